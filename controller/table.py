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
from dataclasses import dataclass
from datetime import UTC, datetime

from controller import games
from controller.errors import IllegalCommand, JournalError
from controller.games.base import Command, Engine, Event, State
from controller.journal import Journal, TransactionHook
from controller.ledger import Statement, statements

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
        self.state: State | None = journal.rebuild()

    @property
    def engine(self) -> Engine | None:
        return games.find_game(self.state.mode) if self.state else None

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
        with self._lock:
            if not cmd.id:
                cmd = Command(cmd.kind, cmd.args, f"auto-{uuid.uuid4().hex}")
            earlier = self.journal.find(cmd.id)
            if earlier is not None:
                if not earlier.command.same_as(cmd):
                    raise CommandIdReused(
                        f"command id {cmd.id!r} was already used for a {earlier.command.kind!r} "
                        "command; every new command needs a new id")
                return Outcome(earlier.seq, earlier.command, earlier.events, repeated=True)
            state, events = games.apply(self.state, cmd)
            try:
                seq = self.journal.append(cmd, events, source=source, at=self._clock(),
                                          hooks=(*self._hooks, *hooks))
            except sqlite3.Error as exc:
                # Disk full, a read-only file system...: the command did not happen.
                raise JournalError(f"the journal {self.journal.path} could not store "
                                   f"{cmd.kind!r}: {exc}; nothing changed") from exc
            self.state = state
            outcome = Outcome(seq, cmd, events)
            # Told in journal order, under the lock: listeners only enqueue, they never block.
            for listener in list(self._listeners):
                try:
                    listener(outcome)
                except Exception:
                    # A broken screen or lamp must not stop the game; the journal holds it.
                    log.exception("listener %r failed on seq %d", listener, seq)
        return outcome

    def responsive(self, timeout: float = 2.0) -> bool:
        """True when the table can take a command within `timeout` s (its lock is not stuck)."""
        if self._lock.acquire(timeout=timeout):
            self._lock.release()
            return True
        return False

    def view(self) -> dict:
        """The table as JSON for people and screens."""
        with self._lock:
            if self.state is None:
                return {"open": False}
            return {"open": True, "seq": self.journal.last_seq(),
                    **self.engine.view(self.state)}

    def statements(self) -> dict[str, Statement]:
        """Every player's session statement from the journal's entries."""
        with self._lock:
            return statements(self.journal.entries())
