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
from web.auth import banker_required
from web.data import journal, table

bp = Blueprint("money", __name__, url_prefix="/money")

JOURNAL_LIMIT = 500


def _filtered(kind: str, player: str, limit: int):
    out = []
    for record in journal().records():
        if kind and record.command.kind != kind:
            continue
        if player and player.lower() not in json.dumps(
                [record.command.args, [e.to_json() for e in record.events]]).lower():
            continue
        out.append(record)
    return out[-limit:]


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


def house_series() -> list[tuple[int, int]]:
    """(seq, the bank's balance after it) for every command that moved the bank."""
    series, bank = [], 0
    for record in journal().records():
        legs = [amount for e in record.events for entry in e.entries
                for account, amount in entry.legs if account == "bank"]
        if legs:
            bank += sum(legs)
            series.append((record.seq, bank))
    return series


def chart(points: list[tuple[int, int]], width: int = 600, height: int = 200) -> dict:
    """An SVG line chart's geometry for `points` (x, y), zero line included."""
    if not points:
        return {"points": "", "width": width, "height": height, "zero": height / 2,
                "lo": 0, "hi": 0, "first": 0, "last": 0}
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
            "hi": hi, "first": x0, "last": x1}


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
        bets = []
        for bet in report.get("bets", []):
            edges = [bet.get("house_edge"), bet.get("house_edge_worst")]
            worst = min(e for e in edges if e is not None)
            bets.append({**bet, "worst": worst, "favours_player": worst < 0})
        top = max((abs(b["worst"]) for b in bets), default=0) or 1
        for b in bets:
            b["bar"] = round(100 * abs(b["worst"]) / top, 1)
        fair = [b for b in bets if b["house_edge"] == 0 and b["worst"] == 0]
        reports.append({"game": report.get("game", mode), "title": report.get("title", mode),
                        "current": state is not None and state.mode == mode,
                        "bets": [b for b in bets if b not in fair], "fair": fair,
                        "notes": report.get("notes", []),
                        "favouring": [b for b in bets if b["favours_player"]]})
    return reports


@bp.get("/")
@banker_required
def index():
    t = table()
    state = t.state
    view = t.view()
    kind, player, limit = _filters()
    records = _filtered(kind, player, min(limit, JOURNAL_LIMIT))
    kinds = sorted({r.command.kind for r in journal().records()})
    players = []
    if state is not None:
        everyone = dict(state.ledger.players())
        for name in sorted(everyone, key=lambda n: (n not in state.seats, n)):
            players.append({"player": name, "balance": everyone[name],
                            "on_table": state.ledger.on_table(name),
                            "seated": name in state.seats})
    statements = {name: s.to_json() for name, s in t.statements().items()}
    return render_template("money/index.html", view=view, players=players,
                           records=list(reversed(records)), kinds=kinds, kind=kind,
                           player=player, house=chart(house_series()),
                           statements=statements, odds=odds_reports(),
                           chain_head=journal().head())


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
                     "amount"])
    for r in _filtered(kind, player, limit):
        args = json.dumps(dict(r.command.args), ensure_ascii=False)
        events = " ".join(e.kind for e in r.events)
        legs = [(a, n) for e in r.events for entry in e.entries for a, n in entry.legs]
        for account, amount in legs or [("", "")]:
            writer.writerow([r.seq, r.at, _cell(r.source), _cell(r.command.id),
                             r.command.kind, _cell(args), events, account, amount])
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=journal.csv"})


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
