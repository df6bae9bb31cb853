"""Money: players, buy-in and cash-out, the journal (filter, CSV and JSONL), statements,
the house's result over the session, and each mode's odds and house edge."""

from __future__ import annotations

import csv
import io
import json
from functools import lru_cache

from flask import Blueprint, Response, abort, current_app, render_template, request

from controller.errors import FeltbankError
from controller.history import export
from controller.modes import words_of_bet
from web.auth import banker_required
from web.data import journal, table
from web.i18n import N_, say, t
from web.modes import bet_words
from web.table import bet_words_by_seq, describe, secret_args

bp = Blueprint("money", __name__, url_prefix="/money")

JOURNAL_LIMIT = 500
#: How an odds report says that a bet pays by the combination rolled.
BY_COMBINATION = N_("by combination")
#: How an odds report says that a row is no bet (a chance of the game, paid by no one).
NO_PAY = N_("none")


def _filtered(kind: str, player: str, limit: int):
    """The last `limit` records of `kind` / naming `player`, oldest first."""
    return list(reversed(journal().latest(limit, kind, player)))


def _filters() -> tuple[str, str, int]:
    kind = request.args.get("kind", "").strip()[:64]
    player = request.args.get("player", "").strip()[:64]
    try:
        limit = int(request.args.get("limit", JOURNAL_LIMIT))
    except ValueError:
        abort(400, description="limit is a whole number of journal lines")
    if not 1 <= limit <= 100_000:
        abort(400, description="limit is from 1 to 100000")
    return kind, player, limit


def chart(points: list[tuple[int, int]], width: int = 600, height: int = 200) -> dict:
    """An SVG line chart's geometry for `points` (x, y), zero line included."""
    if not points:
        return {"points": "", "width": width, "height": height, "zero": height / 2,
                "lo": 0, "hi": 0, "first": 0, "last": 0, "now": 0}
    xs = [p[0] for p in points]
    ys = [p[1] for p in points] + [0]
    x0, x1 = min(xs), max(xs)
    lo, hi = min(ys), max(ys)
    span_x = (x1 - x0) or 1
    span_y = (hi - lo) or 1
    pad = 10

    def sx(x):
        return round(pad + (x - x0) * (width - 2 * pad) / span_x, 1)

    def sy(y):
        return round(height - pad - (y - lo) * (height - 2 * pad) / span_y, 1)

    line = " ".join(f"{sx(x)},{sy(y)}" for x, y in [(x0, 0), *points])
    return {"points": line, "width": width, "height": height, "zero": sy(0), "lo": lo,
            "hi": hi, "first": x0, "last": x1, "now": points[-1][1]}


@lru_cache(maxsize=32)
def _odds(mode: str, settings: str) -> dict:
    from controller.odds import odds

    return odds(mode, json.loads(settings))


def odds_reports() -> list[dict]:
    """Each mode's odds with the settings it would be played with here; bets that favour
    the player marked."""
    from controller.odds import odds_modes

    state = table().state
    config = current_app.extensions.get("feltbank.config")
    reports = []
    for mode in odds_modes():
        if state is not None and state.mode == mode:
            settings = dict(state.settings)
        else:
            settings = config.game_settings(mode) if config is not None else {}
        try:
            report = _odds(mode, json.dumps(settings, sort_keys=True))
        except (FeltbankError, ValueError) as exc:
            reports.append({"game": mode, "title": mode, "error": str(exc), "bets": []})
            continue
        words = report.get("strategies", {})
        bets = [_odds_row(bet, words, mode) for bet in report.get("bets", [])]
        top = max((abs(b["house_edge"]) for b in bets), default=0) or 1
        for b in bets:
            b["bar"] = round(100 * abs(b["house_edge"]) / top, 1)
        fair = [b for b in bets if b["house_edge"] == 0 and not b["favours"]]
        reports.append({"game": report.get("game", mode), "title": report.get("title", mode),
                        "current": state is not None and state.mode == mode,
                        "bets": [b for b in bets if b not in fair], "fair": fair,
                        "favouring": [b for b in bets if b["favours"]],
                        "summary": _words(report.get("summary", "")),
                        "tables": [_odds_table(tab) for tab in report.get("tables", ())]})
    return reports


def _words(item) -> str:
    """An odds report's words in the page's language: a word, or a template and its values."""
    if isinstance(item, dict):
        template, values = item["text"], item.get("values", {})
        return t(template) % values
    return t(item) if isinstance(item, str) and item and not item.isdigit() else str(item)


def _odds_table(tab: dict) -> dict:
    """A table of a mode without bets (controller.odds.table) for the page: its words
    translated, each cell a percentage (the exact fraction as its title) or a number."""
    def cell(value) -> dict:
        if value is None:
            return {"text": "—", "exact": ""}
        if isinstance(value, dict):
            return {"text": f"{value['p'] * 100:.2f}%", "exact": value["exact"]}
        return {"text": str(value), "exact": ""}

    return {"title": _words(tab["title"]), "label": _words(tab["label"]),
            "columns": [_words(c) for c in tab["columns"]],
            "rows": [{"label": _words(r["label"]), "cells": [cell(c) for c in r["cells"]]}
                     for r in tab["rows"]]}


def bet_title(bet: dict, mode: str) -> str:
    """A bet of an odds report in words: its name, or its kind with its main and chance."""
    if bet.get("name"):
        return t(bet["name"])
    words = bet_words(mode)
    spot = words_of_bet(words, bet["id"])  # "cut:3" is spot "cut.3"
    if spot is not None:
        return say(spot)
    kind = bet["id"].split(":", 1)[0]
    title = say(words.get(kind, kind))
    if "main" in bet:
        title += " · " + t("main %(main)s") % {"main": bet["main"]}
    if "chance" in bet:
        title += " · " + t("chance %(chance)s") % {"chance": bet["chance"]}
    return title


def _odds_row(bet: dict, strategies: dict, mode: str) -> dict:
    """One bet of an odds report for the page: its house edge under the advisor's play, and
    in words each play under which the bet favours the player instead (negative edge)."""
    favours = []
    for name, figures in bet.get("by_strategy", {}).items():
        if figures["house_edge"] < 0:
            favours.append((t("when %(play)s") % {"play": t(strategies.get(name, name))},
                            figures["house_edge"]))
    if bet.get("house_edge_colluding", 0) < 0:
        favours.append((t("when the shooter sets dice aside to make this bet win"),
                        bet["house_edge_colluding"]))
    if "by_strategy" not in bet and bet.get("house_edge_worst", 0) < 0:
        favours.append((t("at the stakes where the commission, rounded down, takes least"),
                        bet["house_edge_worst"]))
    if bet["house_edge"] < 0:
        favours.insert(0, (t("as the advisor plays"), bet["house_edge"]))
    pays = bet["pays"]
    return {"id": bet["id"], "title": bet_title(bet, mode), "probability": bet["probability"],
            "pays": t(pays) if pays in (BY_COMBINATION, NO_PAY) else pays,
            "house_edge": bet["house_edge"], "favours": favours}


@bp.get("/")
@banker_required
def index():
    tab = table()
    state = tab.state
    view = tab.view()
    kind, player, limit = _filters()
    records = _filtered(kind, player, min(limit, JOURNAL_LIMIT))
    words = bet_words_by_seq(records)
    secret = secret_args()
    kinds = tab.command_kinds()
    players = []
    if state is not None:
        everyone = dict(state.ledger.players())
        for name in sorted(everyone, key=lambda n: (n not in state.seats, n)):
            players.append({"player": name, "balance": everyone[name],
                            "on_table": state.ledger.on_table(name),
                            "seated": name in state.seats})
    statements = {name: s.to_json() for name, s in tab.statements().items()}
    return render_template("money/index.html", view=view, players=players,
                           records=list(reversed(records)), kinds=kinds, kind=kind,
                           readings=journal().readings(r.seq for r in records),
                           describe=lambda r: describe(r, words[r.seq], secret),
                           player=player, house=chart(tab.house_series()),
                           statements=statements, odds=odds_reports(),
                           chain_head=journal().head())


@bp.get("/reading/<int:seq>.jpg")
@banker_required
def reading_frame(seq: int) -> Response:
    """The frame a camera reading came from, as kept in the journal with command `seq`."""
    frame = journal().reading_frame(seq)
    if frame is None:
        abort(404, description=f"no camera frame is kept with command #{seq}")
    return Response(frame, mimetype="image/jpeg", headers={"Cache-Control": "private"})


@bp.get("/journal.jsonl")
@banker_required
def journal_jsonl() -> Response:
    kind, player, limit = _filters()
    if kind or player:
        body = "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n"
                       for r in _filtered(kind, player, limit))
    else:
        out = io.StringIO()
        export(journal(), out)
        body = out.getvalue()
    return Response(body, mimetype="application/jsonl",
                    headers={"Content-Disposition": "attachment; filename=journal.jsonl"})


@bp.get("/journal.csv")
@banker_required
def journal_csv() -> Response:
    kind, player, limit = _filters()
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["seq", "at", "source", "id", "kind", "arguments", "events", "account",
                     "amount", "camera read", "banker changed"])
    records = _filtered(kind, player, limit)
    readings = journal().readings(r.seq for r in records)
    for r in records:
        read, changed = _reading_cells(readings.get(r.seq))
        args = json.dumps(dict(r.command.args), ensure_ascii=False)
        events = " ".join(e.kind for e in r.events)
        legs = [(a, n) for e in r.events for entry in e.entries for a, n in entry.legs]
        for account, amount in legs or [("", "")]:
            writer.writerow([r.seq, r.at, _cell(r.source), _cell(r.command.id),
                             r.command.kind, _cell(args), events, account, amount, read,
                             _cell(changed)])
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=journal.csv"})


def _reading_cells(reading: dict | None) -> tuple[str, str]:
    """A camera reading in two CSV cells: what was read, what the banker changed (and who)."""
    if not reading:
        return "", ""
    read = " ".join(f"{o['label'] or '?'}:{o['confidence']:.2f}" for o in reading["read"])
    changed = "; ".join(f"#{c['index'] + 1} {c['read'] or '?'}->{c['banker']}"
                        for c in reading["corrections"])
    if changed:
        changed = f"{reading['confirmed_by']}: {changed}"
    return read, changed


def _cell(text: str) -> str:
    # A cell starting with = + - @ is a formula to a spreadsheet: never run what a player typed.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@bp.get("/statements")
@banker_required
def statements():
    t = table()
    rows = [s.to_json() for _, s in sorted(t.statements().items())]
    view = t.view()
    return render_template("money/statements.html", rows=rows, view=view,
                           table_name=current_app.config["TABLE_NAME"])
