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
        #: The session's figures, kept up to date command by command (pages never sum the
        #: whole journal).
        self._books = journal.books()

    @property
    def engine(self) -> Engine | None:
        return games.find_game(self.state.mode) if self.state else None

    def subscribe(self, listener: Callable[[Outcome], None]) -> None:
        """Call `listener(outcome)` after each command is committed; it must return quickly."""
        self._listeners.append(listener)

    def add_transaction_hook(self, hook: TransactionHook) -> None:
        """Run `hook` inside the transaction that stores each command (e.g. queue a receipt)."""
        self._hooks.append(hook)

    def submit(self, cmd: Command, source: str = "") -> Outcome:
        """Apply `cmd`: journaled, then applied in memory, then announced; or IllegalCommand."""
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
                                          hooks=self._hooks)
            except sqlite3.Error as exc:
                # Disk full, a read-only file system...: the command did not happen.
                fault = disk_fault(exc, self.journal.path.parent)
                raise JournalError(f"the journal {self.journal.path} could not store "
                                   f"{cmd.kind!r}: {f'{fault} ({exc})' if fault else exc}; "
                                   "nothing changed") from exc
            except OverflowError:
                # The settings bound every stake and pay; this is the last door.
                raise IllegalCommand(f"{cmd.kind!r} moves a number of coins too large for "
                                     "the journal (at most 2**63 - 1); nothing changed"
                                     ) from None
            self.state = state
            self._books.add(seq, cmd.kind, [entry for e in events for entry in e.entries])
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
