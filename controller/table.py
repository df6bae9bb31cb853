"""The table service: commands in, journal first, then everyone is told.

`Table.submit()` is the one door through which anything changes: the dashboard, the
buttons and the camera all come through it. It is thread-safe.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from controller import games
from controller.errors import IllegalCommand, JournalError
from controller.games.base import Command, Engine, Event, State
from controller.journal import Journal, TransactionHook
from controller.ledger import Statement
from controller.storage import disk_fault

log = logging.getLogger(__name__)


class CommandIdReused(IllegalCommand):
    """A command id that the journal already holds for a different command."""


@dataclass(frozen=True)
class Outcome:
    """An accepted command: where it stands in the journal and what happened."""

    seq: int
    command: Command
    events: tuple[Event, ...]
    #: True when the id had been applied before: this is the first result, not a new one.
    repeated: bool = False

    def to_json(self) -> dict:
        return {"seq": self.seq, "id": self.command.id, "kind": self.command.kind,
                "repeated": self.repeated, "events": [e.to_json() for e in self.events]}


@dataclass(frozen=True)
class Snapshot:
    """The table at one moment: its journal position, state and engine, taken together under
    the table's lock. Every reader on another thread (the live table, the camera, the
    dashboard, the devices) reads through one, never `state` and `engine` one after the
    other (a command could land between them)."""

    seq: int
    state: State | None
    engine: Engine | None

    def view(self) -> dict:
        """The table as JSON for people and screens."""
        if self.state is None:
            return {"open": False}
        return {"open": True, "seq": self.seq, **self.engine.view(self.state)}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Table:
    """One table: the journal, the state rebuilt from it, and who to tell after a commit."""

    def __init__(self, journal: Journal, clock: Callable[[], str] = _now):
        self.journal = journal
        self._clock = clock
        self._lock = threading.RLock()
        self._listeners: list[Callable[[Outcome], None]] = []
        self._hooks: list[TransactionHook] = []
        self._state: State | None = journal.rebuild()
        self._seq = journal.last_seq()
        #: The session's figures, kept up to date command by command (pages never sum the
        #: whole journal).
        self._books = journal.books()

    @property
    def state(self) -> State | None:
        """The state now. Reading more than this one value: `snapshot()`."""
        return self._state

    @property
    def engine(self) -> Engine | None:
        """The engine of the mode now. Reading more than this one value: `snapshot()`."""
        return self.snapshot().engine

    def snapshot(self) -> Snapshot:
        """The journal position, state and engine of one moment, taken under the lock."""
        with self._lock:
            state = self._state
            return Snapshot(self._seq, state, games.find_game(state.mode) if state else None)

    def subscribe(self, listener: Callable[[Outcome], None]) -> None:
        """Call `listener(outcome)` after each command is committed; it must return quickly."""
        self._listeners.append(listener)

    def add_transaction_hook(self, hook: TransactionHook) -> None:
        """Run `hook` inside the transaction that stores each command (e.g. queue a receipt)."""
        self._hooks.append(hook)

    def submit(self, cmd: Command, source: str = "",
               hooks: tuple[TransactionHook, ...] = ()) -> Outcome:
        """Apply `cmd`: journaled, then applied in memory, then announced; or IllegalCommand.
        `hooks` run in its transaction besides the table's own (e.g. keep a camera reading)."""
        return self.submit_many([cmd], source, hooks)[0]

    def submit_many(self, cmds: list[Command], source: str = "",
                    hooks: tuple[TransactionHook, ...] = ()) -> list[Outcome]:
        """Apply several commands as one (a camera reading's set-aside and roll): all are
        journaled in ONE transaction, so no other command lands between them, or none is
        (IllegalCommand for the first refused, and nothing changes). Commands whose ids the
        journal holds are answered with their first result and not applied again. `hooks`
        run in that transaction for each command, besides the table's own."""
        with self._lock:
            cmds = [cmd if cmd.id else Command(cmd.kind, cmd.args, f"auto-{uuid.uuid4().hex}")
                    for cmd in cmds]
            state = self._state
            results: list[Outcome | tuple[Command, tuple[Event, ...]]] = []
            for cmd in cmds:
                earlier = self.journal.find(cmd.id)
                if earlier is not None:
                    if not earlier.command.same_as(cmd):
                        raise CommandIdReused(
                            "command id %(id)s was already used for a %(kind)s command; "
                            "every new command needs a new id", id=repr(cmd.id),
                            kind=repr(earlier.command.kind))
                    results.append(Outcome(earlier.seq, earlier.command, earlier.events,
                                           repeated=True))
                    continue
                if any(not isinstance(r, Outcome) and r[0].id == cmd.id for r in results):
                    raise IllegalCommand("command id %(id)s is given twice", id=repr(cmd.id))
                state, events = games.apply(state, cmd)
                results.append((cmd, events))
            new = [r for r in results if not isinstance(r, Outcome)]
            try:
                at = self._clock()
                seqs = self.journal.append_many([(cmd, events, source, at)
                                                 for cmd, events in new],
                                                hooks=(*self._hooks, *hooks)) if new else []
            except sqlite3.Error as exc:
                # Disk full, a read-only file system...: the commands did not happen.
                kinds = ", ".join(repr(cmd.kind) for cmd, _ in new)
                fault = disk_fault(exc, self.journal.path.parent)
                raise JournalError(f"the journal {self.journal.path} could not store "
                                   f"{kinds}: {f'{fault} ({exc})' if fault else exc}; "
                                   "nothing changed") from exc
            except OverflowError:
                # The settings bound every stake and pay; this is the last door.
                kinds = ", ".join(repr(cmd.kind) for cmd, _ in new)
                raise IllegalCommand("%(kinds)s moves a number of coins too large for the "
                                     "journal (at most 2**63 - 1); nothing changed",
                                     kinds=kinds) from None
            fresh = iter(seqs)
            outcomes = [r if isinstance(r, Outcome) else Outcome(next(fresh), *r)
                        for r in results]
            if new:
                self._state, self._seq = state, seqs[-1]
            for outcome in outcomes:
                if not outcome.repeated:
                    self._books.add(outcome.seq, outcome.command.kind,
                                    [entry for e in outcome.events for entry in e.entries])
            # Told in journal order, under the lock: listeners only enqueue, they never block.
            for outcome in outcomes:
                if outcome.repeated:
                    continue
                for listener in list(self._listeners):
                    try:
                        listener(outcome)
                    except Exception:
                        # A broken screen or lamp must not stop the game; the journal holds it.
                        log.exception("listener %r failed on seq %d", listener, outcome.seq)
        return outcomes

    def responsive(self, timeout: float = 2.0) -> bool:
        """True when the table can take a command within `timeout` s (its lock is not stuck)."""
        if self._lock.acquire(timeout=timeout):
            self._lock.release()
            return True
        return False

    def view(self) -> dict:
        """The table as JSON for people and screens."""
        return self.snapshot().view()

    def statements(self) -> dict[str, Statement]:
        """Every player's session statement (kept as commands are stored)."""
        with self._lock:
            return {name: replace(s) for name, s in self._books.statements.items()}

    def house_series(self) -> list[tuple[int, int]]:
        """(seq, the bank's balance after it), thinned for a chart, every extreme kept."""
        with self._lock:
            return self._books.house_series()

    def command_kinds(self) -> list[str]:
        """The kinds of command the journal holds."""
        with self._lock:
            return sorted(self._books.kinds)
