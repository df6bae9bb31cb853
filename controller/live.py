"""The live table: settled observations become commands, at once or after the banker's confirm.

The vision pipeline calls `observe()` each time the table settles. The mode's engine reads
the observation (`Engine.read`): when it fits the game and every die is sure, the commands
are applied at once (`live.confirm = "auto"`) or held for the banker (`"banker"`); when
something does not fit or a die is unsure, the reading waits for the banker, who confirms
it, corrects dice by tapping their faces, or rejects it (the dice are read again).
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from controller.errors import IllegalCommand
from controller.games.base import Command
from controller.games.observation import Observation, Reading
from controller.table import Outcome, Table

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Pending:
    """A reading waiting for the banker."""

    id: str
    observation: Observation
    reading: Reading
    #: Extra data from the vision side for the screens (crops of each die, the frame id).
    extra: Mapping = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"id": self.id, "observation": self.observation.to_json(),
                "reading": self.reading.to_json()}


class LiveTable:
    """Between the camera and the table service."""

    def __init__(self, table: Table, *, confirm: str = "banker", min_confidence: float = 0.9):
        if confirm not in ("auto", "banker"):
            raise ValueError(f"confirm {confirm!r}: 'auto' or 'banker'")
        self.table = table
        self.confirm_mode = confirm
        self.min_confidence = min_confidence
        self.pending: Pending | None = None
        #: Outcomes of the last confirmed readings, so that a confirm sent twice answers twice.
        self._done: dict[str, list[Outcome]] = {}
        self._lock = threading.Lock()
        self._listeners: list[Callable[[Pending | None], None]] = []

    def subscribe(self, listener: Callable[[Pending | None], None]) -> None:
        """Call `listener(pending)` when a reading starts or stops waiting for the banker."""
        self._listeners.append(listener)

    def _tell(self) -> None:
        for listener in list(self._listeners):
            try:
                listener(self.pending)
            except Exception:
                log.exception("live listener failed")

    def read(self, observation: Observation) -> Reading:
        """What the current game makes of `observation` (nothing is applied)."""
        now = self.table.snapshot()
        if now.engine is None:
            return Reading(problems=("the table is not open",))
        return now.engine.read(now.state, observation, self.min_confidence)

    def observe(self, observation: Observation, extra: Mapping | None = None
                ) -> list[Outcome] | Pending:
        """A settled table: apply its commands at once, or hold the reading for the banker."""
        with self._lock:
            reading = self.read(observation)
            pending = Pending(uuid.uuid4().hex, observation, reading, extra or {})
            if reading.ready and self.confirm_mode == "auto":
                try:
                    outcomes = self._apply(pending, reading)
                except IllegalCommand as exc:
                    # The state moved between the read and the apply: the banker looks.
                    pending = Pending(pending.id, observation,
                                      Reading(problems=(str(exc),), faces=reading.faces),
                                      extra or {})
                else:
                    self.pending = None
                    self._tell()
                    return outcomes
            self.pending = pending
        self._tell()
        return pending

    def confirm(self, pending_id: str | None = None,
                corrections: Mapping[int, str] | None = None) -> list[Outcome]:
        """The banker confirms the waiting reading, with corrected faces; IllegalCommand if
        it still does not fit (the reason says why) or nothing is waiting."""
        with self._lock:
            if pending_id in self._done:
                return self._done[pending_id]
            pending = self._current(pending_id)
            observation = pending.observation.corrected(corrections or {})
            reading = self.read(observation)
            if not reading.ready:
                why = list(reading.problems) or [
                    f"dice {', '.join(str(i) for i in reading.uncertain)} are still unread: "
                    "tap their faces"]
                raise IllegalCommand("; ".join(why))
            outcomes = self._apply(pending, reading)
            self.pending = None
        self._tell()
        return outcomes

    def reject(self, pending_id: str | None = None) -> None:
        """The banker (or the reject button) throws the reading away; the dice are read again."""
        with self._lock:
            self._current(pending_id)
            self.pending = None
        self._tell()

    def _current(self, pending_id: str | None) -> Pending:
        if self.pending is None:
            raise IllegalCommand("no read roll is waiting")
        if pending_id is not None and pending_id != self.pending.id:
            raise IllegalCommand("that reading is no longer the one waiting; look again")
        return self.pending

    def _apply(self, pending: Pending, reading: Reading) -> list[Outcome]:
        # Ids from the reading: the same reading applied twice is applied once. Its commands
        # (a set-aside and a roll) go into the journal in one transaction: nothing between.
        outcomes = self.table.submit_many(
            [Command(cmd.kind, cmd.args, f"cam-{pending.id}-{n}")
             for n, cmd in enumerate(reading.commands)], source="camera")
        self._done[pending.id] = outcomes
        while len(self._done) > 32:
            self._done.pop(next(iter(self._done)))
        return outcomes
