"""The table: the shared frame (seats, balances, camera, roll confirmation, journal) around
the mode's page, and the JSON door through which the banker's commands go."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from flask import Blueprint, Response, abort, current_app, g, jsonify, render_template
from itsdangerous import BadSignature

from controller import games
from controller.errors import IllegalCommand
from controller.games.base import Command, RoundEnded
from controller.modes import words_of_bet
from controller.table import CommandIdReused
from web.auth import banker_required, login_required
from web.camera import camera_status
from web.data import (
    camera,
    coins_moved,
    journal,
    json_body,
    last_settlement,
    live,
    recent_records,
    table,
)
from web.i18n import ZONE_WORDS, refusal, say, t, word
from web.modes import BET_RESULTS, CHIPS, PageInput, bet_words, page_for, shared_signer

bp = Blueprint("table", __name__)


def secret_args() -> dict[str, tuple[str, ...]]:
    """Every mode's arguments kept secret on screens (`Engine.secret_args`), by command kind:
    the journal may hold commands of modes played earlier."""
    out: dict[str, tuple[str, ...]] = {}
    for name in games.games():
        for kind, args in (getattr(games.find_game(name), "secret_args", None) or {}).items():
            out[kind] = tuple(dict.fromkeys(out.get(kind, ()) + tuple(args)))
    return out


def bet_words_by_seq(records) -> dict[int, Mapping]:
    """Each record's bets in words (by seq): the words of the game the table had opened when
    the record came (the journal may hold commands of games played earlier, whose bet ids
    another game's words would misname: House Rugen's "day:3" is not Roche's)."""
    if not records:
        return {}
    opened = [(r.seq, r.command.args.get("mode")) for r in journal().latest(10_000, "open")]
    out = {}
    for record in records:
        mode = next((m for seq, m in opened if seq <= record.seq), None)
        out[record.seq] = bet_words(mode) if isinstance(mode, str) else {}
    return out


def bet_in_words(bet: str, bet_words: Mapping) -> str:
    """A bet (its id or its ledger spot) in the mode's words, in the page's language; its id
    when the mode has no words for it."""
    found = words_of_bet(bet_words, bet)
    return say(found if found is not None else bet)


def describe(record, bet_words: dict | None = None, secret=None) -> str:
    """One line of the journal for people: what was asked, in short, in the page's language
    ("roll faces NORTH EAST", "bet player Ginawa · bet standard bet · amount 1"); the arguments
    the mode keeps secret on screens (`Engine.secret_args`, e.g. Risque's Mises) as "•"."""
    bet_words = bet_words or {}
    hidden = (secret or {}).get(record.command.kind, ())

    def words(key, value) -> str:
        if key in hidden:
            return "•"
        if isinstance(value, list | tuple):
            return " ".join(words(key, v) for v in value)
        if isinstance(value, dict):  # a character's virtues, {"Courage": 2}: "Courage 2"
            return ", ".join(f"{k} {words(key, v)}" for k, v in value.items())
        if key == "bet" and isinstance(value, str):
            return bet_in_words(value, bet_words)
        if key == "mode":
            return str(value)
        return str(value)

    order = ("player", "bet", "amount", "faces", "dice")
    args = sorted(record.command.args.items(),
                  key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0]))
    args = " · ".join(f"{word(k)} {words(k, v)}" for k, v in args if k != "settings")
    return f"{word(record.command.kind)} {args}".strip()


def frame_context() -> dict:
    """Everything the table page shows, from one snapshot of the state."""
    now = table().snapshot()  # one moment: state, engine and view agree
    state, engine, view = now.state, now.engine, now.view()
    if state is None:
        return {"view": view, "mode": None, "camera": camera_status(camera()), "pending": None,
                "confirm": None, "holder": None}
    page = PageInput(engine, state, view, banker=g.user.is_banker)
    mode = page_for(state.mode)
    on_table: dict[str, int] = {}
    for player in state.seats:
        on_table[player] = state.ledger.on_table(player)
    settlement = last_settlement()
    tail = list(reversed(recent_records(8)))
    words = bet_words_by_seq(tail)
    return {
        "view": view,
        "mode": mode,
        "mode_context": mode.context(page),
        "confirm": mode.confirmation(page),
        "holder": mode.holder(page),
        "holder_word": mode.holder_word,
        "marks": mode.face_marks,
        "bet_results": BET_RESULTS,
        "on_table": on_table,
        "pending": pending_context(mode),
        "paused": bool(live() is not None and live().paused),
        "camera": camera_status(camera()),
        "settlement": settlement,
        "bet_in_words": partial(bet_in_words, bet_words=bet_words(state.mode)),
        "moved": coins_moved(settlement),
        "ended": [mode.ended_line(ended, t) for ended in
                  map(RoundEnded.of, settlement.events if settlement else ()) if ended],
        "journal_tail": [(r, describe(r, words[r.seq], secret_args())) for r in tail],
        "chips": CHIPS,
        "demo": current_app.extensions.get("feltbank.demo") is not None,
    }


def pending_context(mode) -> dict | None:
    """The camera's reading waiting for the banker: each die read, unsure ones flagged."""
    door = live()
    pending = door.pending if door is not None else None
    if pending is None:
        return None
    reading = pending.reading
    rows = []
    crops = pending.extra.get("crops") or ()
    if not isinstance(crops, list | tuple):
        crops = ()
    for index, seen in enumerate(pending.observation.objects):
        unsure = index in reading.uncertain or seen.label is None
        faces = mode.faces_for(seen.label)
        # The die's own faces first; a face of another die the recognizer also considered
        # stays one tap away, behind "Other faces" (a die may have been taken for another).
        others = [label for label in mode.faces_for(None) if label not in faces]
        for label, _score in seen.candidates:
            if label not in faces and label not in others:
                (others if faces else faces).append(label)
        rows.append({"index": index, "label": seen.label, "confidence": seen.confidence,
                     "center": [round(float(v), 1) for v in seen.center],
                     "zone": seen.zone, "zone_words": t(ZONE_WORDS.get(seen.zone, seen.zone)),
                     "kind": seen.kind, "unsure": unsure, "faces": faces,
                     "others": others,
                     "crop": index < len(crops) and isinstance(crops[index], bytes | bytearray)
                     and bool(crops[index])})
    return {"id": pending.id, "rows": rows, "problems": [refusal(p) for p in reading.problems],
            "ready": reading.ready,
            "frame": isinstance(pending.extra.get("frame_jpeg"), bytes | bytearray),
            "marks": mode.face_marks}


@bp.get("/")
@login_required
def page():
    return render_template("table/page.html", **frame_context())


#: Seconds between two loads of a shared part (a phone on the table's network, no login).
SHARED_REFRESH = 5


@bp.get("/shared/<token>")
def shared(token: str):
    """A mode's shared part, read-only and without logging in, by its signed link; the page
    reloads itself every few seconds."""
    try:
        mode_name, part = shared_signer().loads(token)
    except (BadSignature, ValueError, TypeError):
        abort(404, description=t("this link is not one the banker shared"))
    now = table().snapshot()
    state, engine = now.state, now.engine
    mode = page_for(mode_name)
    if state is None or state.mode != mode_name or mode.shared is None:
        abort(410, description=t("this link is for a game no longer on the table"))
    page = PageInput(engine, state, now.view(), banker=False)
    response = current_app.make_response(render_template(mode.shared_template,
                                                         c=mode.shared(page, part)))
    response.headers["Refresh"] = str(SHARED_REFRESH)
    return response


@bp.get("/table/panel")
@login_required
def panel():
    return render_template("table/panel.html", **frame_context())


@bp.get("/api/state")
@login_required
def state() -> Response:
    out = table().view()
    out["camera"] = camera_status(camera())
    door = live()
    out["pending"] = door.pending.to_json() if door is not None and door.pending else None
    out["user"] = {"name": g.user.name, "role": g.user.role}
    return jsonify(out)


def _command() -> Command:
    data = json_body()
    try:
        cmd = Command.from_json(data)
    except IllegalCommand as exc:
        raise _Refused(refusal(exc), 400) from None
    if not cmd.id:
        raise _Refused("every command from the dashboard carries its own 'id' (a fresh random "
                       "string), so that a retry is never applied twice", 400)
    return cmd


class _Refused(Exception):
    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.status = status


@bp.errorhandler(_Refused)
def refused(exc: _Refused):
    return jsonify({"error": str(exc)}), exc.status


@bp.post("/api/command")
@banker_required
def command() -> Response:
    """Submit one command; its outcome, or the refusal with the reason (nothing changed)."""
    cmd = _command()
    try:
        outcome = table().submit(cmd, source=f"dashboard:{g.user.name}")
    except CommandIdReused as exc:
        return jsonify({"error": refusal(exc)}), 409
    except IllegalCommand as exc:
        return jsonify({"error": refusal(exc)}), 422
    return jsonify(outcome.to_json()), 200 if outcome.repeated else 201


@bp.post("/api/check")
@banker_required
def check() -> Response:
    """Would this command be accepted now? Nothing is applied."""
    cmd = _command()
    now = table().snapshot()
    try:
        if now.state is None or cmd.kind == "open":
            from controller import games

            games.apply(now.state, cmd)
        else:
            now.engine.verify(now.state, cmd)
    except IllegalCommand as exc:
        return jsonify({"ok": False, "reason": refusal(exc)})
    return jsonify({"ok": True, "reason": None})


# -- the camera's reading: confirm (with the banker's corrections) or reject ---------------------


def _door():
    door = live()
    if door is None:
        abort(404, description="no camera pipeline runs here: enter the roll by hand")
    return door


def _pending_id(data: dict) -> str:
    pending = data.get("pending")
    if not isinstance(pending, str) or not 0 < len(pending) <= 64:
        raise _Refused("name the reading: {\"pending\": ID} as the page shows it", 400)
    return pending


@bp.post("/api/live/confirm")
@banker_required
def confirm_reading() -> Response:
    """Apply the waiting reading, the banker's taps correcting dice by their index."""
    door = _door()
    data = json_body()
    pending = _pending_id(data)
    raw = data.get("corrections", {})
    if not isinstance(raw, dict):
        raise _Refused("corrections are {\"INDEX\": \"LABEL\"}, e.g. {\"1\": \"EAST\"}", 400)
    corrections = {}
    for key, label in raw.items():
        if not (isinstance(key, str) and key.isdigit() and len(key) < 4) or not isinstance(
                label, str) or not 0 < len(label) <= 64:
            raise _Refused("corrections are {\"INDEX\": \"LABEL\"}, e.g. {\"1\": \"EAST\"}",
                           400)
        corrections[int(key)] = label
    try:
        outcomes = door.confirm(pending, corrections, by=g.user.name)
    except IllegalCommand as exc:
        return jsonify({"error": refusal(exc)}), 422
    return jsonify({"outcomes": [o.to_json() for o in outcomes]})


@bp.post("/api/demo/throw")
@banker_required
def demo_throw() -> Response:
    """The demo table throws the dice that must be rolled now; the camera then reads them."""
    thrower = current_app.extensions.get("feltbank.demo")
    if thrower is None:
        abort(404, description="this table has a real camera (or none): throw the real dice")
    try:
        thrown = thrower()
    except IllegalCommand as exc:
        return jsonify({"error": refusal(exc)}), 422
    return jsonify(thrown)


@bp.post("/api/live/reject")
@banker_required
def reject_reading() -> Response:
    """Throw the waiting reading away: the dice are read again."""
    door = _door()
    pending = _pending_id(json_body())
    try:
        door.reject(pending)
    except IllegalCommand as exc:
        return jsonify({"error": refusal(exc)}), 422
    cam = camera()
    if cam is None:
        message = t("Rejected: no camera runs here; enter the roll by hand.")
    else:
        message = t("Rejected: the camera reads the dice again once they are still.")
    return jsonify({"rejected": pending, "message": message})
