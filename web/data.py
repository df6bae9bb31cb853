"""Per-request access to the table, the camera and a read-only view of the journal."""

from __future__ import annotations

import math
from typing import Any

from flask import abort, current_app, g, request

from controller.errors import IllegalCommand
from controller.journal import Journal, Record
from controller.ledger import account_kind, account_owner
from controller.protocol import loads_object
from controller.table import Table

#: Integers beyond this are refused at the door: no table holds that many coins, and
#: SQLite stores at most 64 bits.
MAX_INT = 2**53
MAX_DEPTH = 8


def table() -> Table:
    return current_app.extensions["feltbank.table"]


def camera():
    return current_app.extensions["feltbank.camera"]


def live():
    """The camera's door to the table (controller.live.LiveTable), or None."""
    return current_app.extensions["feltbank.live"]


def journal() -> Journal:
    """A read-only connection to the table's journal for this request (WAL: never blocks)."""
    if "journal" not in g:
        g.journal = Journal(table().journal.path, readonly=True)
    return g.journal


def close_journal(_exc: BaseException | None = None) -> None:
    j = g.pop("journal", None)
    if j is not None:
        j.close()


def recent_records(n: int) -> list[Record]:
    """The last `n` records, oldest first."""
    j = journal()
    return list(j.records(after=max(0, j.last_seq() - n)))


def last_settlement(scan: int = 400) -> Record | None:
    """The last record that settled bets (or returned them) or ended a round (the card games
    settle a round with pots and penalties, not bets), in the game the table plays now: one
    before the table opened its game is another game's, said in that game's words."""
    for record in reversed(recent_records(scan)):
        if any(e.kind in ("bet-settled", "round-ended") for e in record.events):
            return record
        if any(e.kind == "opened" for e in record.events):
            return None
    return None


def coins_moved(record: Record | None) -> dict[str, int]:
    """What each player won (+) or lost (-) in `record` when it settled no bet: a round the
    card games settle from pots and penalties. Empty when the record settled bets (those
    are shown bet by bet)."""
    if record is None or any(e.kind == "bet-settled" for e in record.events):
        return {}
    moved: dict[str, int] = {}
    for event in record.events:
        for entry in event.entries:
            for account, amount in entry.legs:
                if account_kind(account) == "player":
                    player = account_owner(account)
                    moved[player] = moved.get(player, 0) + amount
    return {p: n for p, n in moved.items() if n}


def _check_value(value: Any, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        abort(400, description=f"the JSON is nested more than {MAX_DEPTH} deep")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > MAX_INT:
            abort(400, description=f"{value} is too large: numbers are at most {MAX_INT}")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            abort(400, description="numbers must be finite (no NaN or Infinity)")
        return
    if isinstance(value, list):
        for v in value:
            _check_value(v, depth + 1)
        return
    if isinstance(value, dict):
        for v in value.values():
            _check_value(v, depth + 1)
        return
    abort(400, description="the body holds a value JSON does not have")


def json_body() -> dict:
    """The request's JSON object, or 400 saying what is expected."""
    if not request.is_json:
        abort(415, description="send a JSON object with Content-Type: application/json")
    try:
        data = loads_object(request.get_data(as_text=True))
    except IllegalCommand as exc:
        abort(400, description=str(exc))
    _check_value(data)
    return data
