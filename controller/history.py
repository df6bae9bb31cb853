"""Hand histories: a session as JSON lines, one command per line (docs/hand-history.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from controller import games
from controller.errors import HistoryError, IllegalCommand
from controller.games.base import Command, Event, State
from controller.journal import Journal


@dataclass(frozen=True)
class Line:
    """One command of a hand history, with the events it recorded (None when it has none)."""

    number: int
    command: Command
    events: list | None


def read_history(path: str | Path) -> Iterator[Line]:
    """The commands of a hand history; HistoryError names the line of anything malformed."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise HistoryError(f"{path}: cannot read the hand history ({exc})") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        where = f"{path}:{number}"
        try:
            command, data = Command.parse(raw)
        except IllegalCommand as exc:
            raise HistoryError(f"{where}: {exc}") from None
        events = data.get("events")
        if events is not None and not isinstance(events, list):
            raise HistoryError(f"{where}: 'events' must be a list")
        yield Line(number, command if command.id else Command(command.kind, command.args,
                                                              f"line-{number}"), events)


def replay(path: str | Path) -> State | None:
    """Run a hand history through the engines; events it records must come out the same."""
    state: State | None = None
    seen: dict[str, int] = {}
    for line in read_history(path):
        where = f"{path}:{line.number}"
        if line.command.id in seen:
            raise HistoryError(f"{where}: id {line.command.id!r} was used on line "
                               f"{seen[line.command.id]}")
        seen[line.command.id] = line.number
        try:
            state, events = games.apply(state, line.command)
        except IllegalCommand as exc:
            raise HistoryError(f"{where}: {line.command.kind!r} refused: {exc}") from None
        if line.events is not None and [e.to_json() for e in events] != _recorded(line, where):
            raise HistoryError(f"{where}: the engines give other events than the line records: "
                               f"{json.dumps([e.to_json() for e in events])}")
    return state


def _recorded(line: Line, where: str) -> list[dict]:
    """The events a line records, read as today's (an older feltbank's shapes upgraded)."""
    try:
        return [Event.from_json(e).to_json() for e in line.events]
    except (TypeError, KeyError, AttributeError, ValueError) as exc:
        raise HistoryError(f"{where}: 'events' holds something that is not an event "
                           f"({exc!r}); an event is {{\"kind\": ..., ...}}") from None


def balances(state: State | None) -> dict:
    """The money of a table as JSON: players, bank, cashier, bets and pots."""
    if state is None:
        return {"players": {}, "bank": 0, "cashier": 0, "on_table": {}}
    ledger = state.ledger
    return {
        "players": dict(sorted(ledger.players().items())),
        "bank": ledger.balance("bank"),
        "cashier": ledger.balance("cashier"),
        "on_table": {**ledger.accounts("bet"), **ledger.accounts("pot")},
    }


def export(journal: Journal, out: IO[str]) -> int:
    """Write the journal as a hand history; the number of commands written."""
    n = 0
    readings = journal.readings()
    for record in journal.records():
        line = record.to_json()
        if record.seq in readings:
            # What the camera read, and what the banker changed (the frame stays in the
            # journal file): kept for the record, ignored on replay.
            line["reading"] = {k: v for k, v in readings[record.seq].items() if k != "frame"}
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
        n += 1
    return n
