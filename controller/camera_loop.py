"""The camera loop: frames in, one reading per settled table out to the live table.

It knows the vision side only through three small things handed to it: a camera source
(`read() -> frame | None`, with `state` and `reason`), a settle detector
(`update(image, t) -> state` whose `.value` is "empty", "moving" or "settled") and a reader
(`image -> list of object dicts` as `feltbank recognize` prints them, with a `zone`). A
settled table is read once; it is read again only after something moves.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.errors import IllegalCommand
from controller.games.observation import Observation
from controller.live import LiveTable

log = logging.getLogger(__name__)


@dataclass
class CameraStatus:
    """What the dashboard and /healthz show of the camera."""

    camera: str = "starting"  # starting, ok, unavailable
    reason: str = ""
    table: str = "moving"  # empty, moving, settled
    last_frame_at: float | None = None  # monotonic seconds
    frames: int = 0
    readings: int = 0
    #: When the table last turned settled (monotonic seconds): where a reading starts.
    settled_at: float | None = None

    def to_json(self, now: float | None = None) -> dict:
        now = time.monotonic() if now is None else now
        age = None if self.last_frame_at is None else round(now - self.last_frame_at, 3)
        return {"camera": self.camera, "reason": self.reason, "table": self.table,
                "last_frame_age_s": age, "frames": self.frames, "readings": self.readings}


class CameraLoop:
    """Runs on its own thread; `step()` is one turn of it (tests call it directly)."""

    def __init__(self, source, settle, reader: Callable[[object], list[dict]],
                 live: LiveTable, *, heartbeat=None,
                 on_change: Callable[[CameraStatus], None] = lambda s: None,
                 extra: Callable[[object, list[dict]], dict] | None = None,
                 idle_seconds: float = 0.01):
        self.source = source
        self.settle = settle
        self.reader = reader
        self.live = live
        self.heartbeat = heartbeat
        self.on_change = on_change
        #: What the banker's screen gets with a reading (the frame and crops as JPEG).
        self.extra = extra
        self.idle_seconds = idle_seconds
        self.status = CameraStatus()
        self.last_frame = None
        self.last_objects: list[dict] = []
        self._read_this_settle = False
        self._nothing_here = False  # read since the table settled, and nothing was on it
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def step(self) -> bool:
        """Take the newest frame if there is one; True if there was."""
        frame = self.source.read()
        camera = getattr(getattr(self.source, "state", None), "value", "ok")
        changed = camera != self.status.camera
        self.status.camera = camera
        self.status.reason = getattr(self.source, "reason", "")
        if frame is None:
            if changed:
                self.on_change(self.status)
            return False
        self.last_frame = frame
        self.status.frames += 1
        self.status.last_frame_at = time.monotonic()
        settled = self.settle.update(frame.image, frame.t).value
        if self.live.take_read_again():
            # The banker rejected the reading: the still table is read afresh.
            self._read_this_settle = self._nothing_here = False
        if settled != "settled":
            self._read_this_settle = self._nothing_here = False
            self.last_objects = []  # what was read no longer lies where it was
        elif not self._read_this_settle:
            self._read_this_settle = True
            self.status.settled_at = time.monotonic()
            self._read(frame)
        # still, but read once with nothing on the felt (the corner markers, a speck): empty
        table = "empty" if settled == "settled" and self._nothing_here else settled
        changed = changed or table != self.status.table
        self.status.table = table
        if changed:
            self.on_change(self.status)
        return True

    def _read(self, frame) -> None:
        try:
            objects = self.reader(frame.image)
            observation = Observation.from_json({"objects": objects})
        except (IllegalCommand, ValueError) as exc:
            log.warning("frame %s could not be read: %s", getattr(frame, "index", "?"), exc)
            return
        self.last_objects = objects
        if not objects:
            # Still, but nothing to read (the corner markers or a speck moved the settle
            # detector): the table is empty, not a roll.
            self._nothing_here = True
            return
        self.status.readings += 1
        extra = {"frame": getattr(frame, "index", None)}
        if self.extra is not None:
            try:
                extra.update(self.extra(frame.image, objects))
            except Exception:  # pictures for the screen must never stop a reading
                log.exception("frame %s: no pictures for the screen", extra["frame"])
        self.live.observe(observation, extra=extra)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                got = self.step()
            except Exception:  # a bad frame must not stop the table
                log.exception("camera loop")
                got = False
            if self.heartbeat is not None:
                self.heartbeat.beat()
            if not got:
                self._stop.wait(self.idle_seconds)

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
