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

from controller.errors import IllegalCommand, Words
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


def unread_words(observation: Observation, indexes) -> Words:
    """Which dice still want the banker's tap, numbered as the screen numbers them (#1...)."""
    dice = []
    for i in indexes:
        seen = observation.objects[i]
        if seen.label:
            dice.append(Words("#%(n)s (read %(label)s at %(percent)s)", n=i + 1,
                              label=seen.label, percent=f"{seen.confidence:.0%}"))
        else:
            dice.append(Words("#%(n)s (not read)", n=i + 1))
    if len(dice) == 1:
        return Words("tap the face of die %(dice)s to confirm or correct it", dice=dice)
    return Words("tap the face of dice %(dice)s to confirm or correct it", dice=dice)


def semicolons(reasons) -> Words | str:
    """Reasons one after the other, separated by semicolons."""
    *first, out = [Words.of(r) for r in reasons]
    for reason in reversed(first):
        out = Words("%(first)s; %(then)s", first=reason, then=out)
    return out


def reading_record(pending: Pending, corrections: Mapping[int, str], by: str) -> dict:
    """What the journal keeps of a reading: each object as read, the banker's taps (a tap on
    the face read confirms an uncertain die as read) and who tapped, the frame."""
    objects = pending.observation.objects
    read = [{"index": i, "label": o.label, "confidence": round(o.confidence, 4), "zone": o.zone,
             "kind": o.kind, "cocked": o.cocked} for i, o in enumerate(objects)]
    taps = [{"index": i, "read": objects[i].label, "banker": label,
             "changed": label != objects[i].label}
            for i, label in sorted(corrections.items()) if 0 <= i < len(objects)]
    frame = pending.extra.get("frame_jpeg")
    return {"pending": pending.id, "read": read,
            "corrections": [t for t in taps if t["changed"]], "confirmed": taps,
            "confirmed_by": by if taps or by else "",
            "frame": bytes(frame) if isinstance(frame, bytes | bytearray) else None}


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
        self._read_again = threading.Event()
        #: Why the camera's readings are set aside instead of read (e.g. the banker is
        #: showing faces to the camera to calibrate it); empty while the table reads.
        self.paused = ""

    def pause(self, why: str) -> None:
        """Set the camera's readings aside until `resume()` (a waiting reading is dropped):
        a die shown to the camera for calibration is not a roll."""
        with self._lock:
            self.paused = why
            dropped = self.pending is not None
            self.pending = None
        if dropped:
            self._tell()

    def resume(self) -> None:
        """Read the camera again; the still table is read afresh."""
        with self._lock:
            was = self.paused
            self.paused = ""
        if was:
            self._read_again.set()

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
        """A settled table: apply its commands at once, or hold the reading for the banker
        (while paused, the reading is set aside: nothing waits, nothing is applied)."""
        with self._lock:
            reading = self.read(observation)
            if self.paused:
                return Pending(uuid.uuid4().hex, observation,
                               Reading(problems=(f"not read: {self.paused}",),
                                       faces=reading.faces), extra or {})
            pending = Pending(uuid.uuid4().hex, observation, reading, extra or {})
            if reading.ready and self.confirm_mode == "auto":
                try:
                    outcomes = self._apply(pending, reading)
                except IllegalCommand as exc:
                    # The state moved between the read and the apply: the banker looks.
                    pending = Pending(pending.id, observation,
                                      Reading(problems=(Words.of(exc),), faces=reading.faces),
                                      extra or {})
                else:
                    self.pending = None
                    self._tell()
                    return outcomes
            self.pending = pending
        self._tell()
        return pending

    def confirm(self, pending_id: str | None = None,
                corrections: Mapping[int, str] | None = None, by: str = "") -> list[Outcome]:
        """The banker `by` confirms the waiting reading, with corrected faces (a face tapped
        on an uncertain die confirms it as read); IllegalCommand if it still does not fit
        (the reason says why) or nothing is waiting."""
        with self._lock:
            if pending_id in self._done:
                return self._done[pending_id]
            pending = self._current(pending_id)
            observation = pending.observation.corrected(corrections or {})
            reading = self.read(observation)
            if not reading.ready:
                if reading.problems:
                    raise IllegalCommand("%(problems)s", problems=semicolons(reading.problems))
                raise IllegalCommand.because(unread_words(pending.observation,
                                                          reading.uncertain))
            outcomes = self._apply(pending, reading, corrections or {}, by)
            self.pending = None
        self._tell()
        return outcomes

    def reject(self, pending_id: str | None = None) -> None:
        """The banker (or the reject button) throws the reading away; the dice are read again."""
        with self._lock:
            self._current(pending_id)
            self.pending = None
            self._read_again.set()
        self._tell()

    def take_read_again(self) -> bool:
        """True once after a rejection: the camera reads the still table again."""
        if self._read_again.is_set():
            self._read_again.clear()
            return True
        return False

    def _current(self, pending_id: str | None) -> Pending:
        if self.pending is None:
            raise IllegalCommand("no read roll is waiting")
        if pending_id is not None and pending_id != self.pending.id:
            raise IllegalCommand("that reading is no longer the one waiting; look again")
        return self.pending

    def _apply(self, pending: Pending, reading: Reading,
               corrections: Mapping[int, str] | None = None, by: str = "") -> list[Outcome]:
        # Ids from the reading: the same reading applied twice is applied once. Its commands
        # (a set-aside and a roll) go into the journal in one transaction: nothing between.
        # What the camera read, what the banker changed and who, and the frame are kept with
        # the last command, in that transaction.
        record = reading_record(pending, corrections or {}, by)
        source = f"camera, corrected by {by}" if record["corrections"] else "camera"
        cmds = [Command(cmd.kind, cmd.args, f"cam-{pending.id}-{n}")
                for n, cmd in enumerate(reading.commands)]

        def keep(db, seq, cmd, events):
            if cmd.id == cmds[-1].id:
                self.table.journal.add_reading(db, seq, record)

        outcomes = self.table.submit_many(cmds, source=source, hooks=(keep,))
        self._done[pending.id] = outcomes
        while len(self._done) > 32:
            self._done.pop(next(iter(self._done)))
        return outcomes
