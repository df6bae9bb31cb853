"""Live: Server-Sent Events of the table, and the camera (MJPEG, snapshot, last reading)."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from flask import Blueprint, Response, abort, current_app, g, jsonify, request

from controller.journal import Journal
from controller.table import Outcome
from web.auth import login_required
from web.camera import camera_status

bp = Blueprint("live", __name__)


class Broadcaster:
    """A table listener keeping the latest outcomes for the live streams; it only enqueues."""

    def __init__(self, size: int = 1000):
        self._cond = threading.Condition()
        self._recent: deque[tuple[int, dict]] = deque(maxlen=size)
        self.last = 0
        #: Live streams waiting for news now (for tests: wait until a stream listens).
        self.waiters = 0
        #: Bumped each time the camera's waiting reading changes (controller.live listener).
        self.pending_version = 0
        #: Called (without the lock) after each change: an event loop's streams wake on it.
        self._wakers: set = set()

    def __call__(self, outcome: Outcome) -> None:
        with self._cond:
            self._recent.append((outcome.seq, outcome.to_json()))
            self.last = outcome.seq
            self._cond.notify_all()
        self._wake()

    def pending_changed(self, _pending) -> None:
        with self._cond:
            self.pending_version += 1
            self._cond.notify_all()
        self._wake()

    def add_waker(self, waker) -> None:
        """Call `waker()` after each change (it must only schedule, never block)."""
        with self._cond:
            self._wakers.add(waker)

    def remove_waker(self, waker) -> None:
        with self._cond:
            self._wakers.discard(waker)

    def _wake(self) -> None:
        with self._cond:
            wakers = list(self._wakers)
        for waker in wakers:
            waker()

    def since(self, seq: int) -> list[tuple[int, dict]] | None:
        """Outcomes after `seq`, or None when some of them are no longer held."""
        with self._cond:
            if self.last <= seq:
                return []
            items = [(s, o) for s, o in self._recent if s > seq]
            if not items or items[0][0] != seq + 1:
                return None
            return items

    def wait(self, seq: int, timeout: float, pending_version: int | None = None) -> bool:
        """Wait up to `timeout` seconds for an outcome after `seq` (or a new waiting reading);
        True if there is one."""
        with self._cond:
            self.waiters += 1
            self._cond.notify_all()
            try:
                return self._cond.wait_for(lambda: self.last > seq or (
                    pending_version is not None and self.pending_version != pending_version),
                    timeout)
            finally:
                self.waiters -= 1

    def listening(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds until a live stream waits for news; True if one does."""
        with self._cond:
            return self._cond.wait_for(lambda: self.waiters > 0, timeout)


def sse(data: object, event: str | None = None, id: int | None = None) -> str:
    lines = []
    if event:
        lines.append(f"event: {event}")
    if id is not None:
        lines.append(f"id: {id}")
    lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


def _last_event_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        abort(400, description="Last-Event-ID is the seq of the last event seen: a whole number")
    if value < 0:
        abort(400, description="Last-Event-ID is a seq: 0 or more")
    return value


class EventFeed:
    """One client's view of the table: every outcome exactly once, in journal order, each
    batch followed by the state it leads to (`id` = the journal seq); resumable from the
    Last-Event-ID, from the broadcaster's window or else from the journal itself.

    It never blocks: `opening()` and `news()` give the SSE text to send now; the server waits
    (`broadcaster.wait`, or an asyncio event) for `ready()` in between."""

    def __init__(self, table, broadcaster: Broadcaster, live=None, last_id: int | None = None,
                 retry_ms: int = 2000):
        self.table, self.broadcaster, self.live = table, broadcaster, live
        self.last_id, self.retry_ms = last_id, retry_ms
        self.cursor = 0
        self.version = broadcaster.pending_version

    def opening(self) -> list[str]:
        """The retry delay, the outcomes missed since Last-Event-ID, then the state."""
        view = self.table.view()
        seq = view.get("seq", 0)
        chunks = [f"retry: {self.retry_ms}\n\n"]
        if self.last_id is not None and self.last_id < seq:
            chunks += self._outcomes(self.last_id, seq)
        chunks.append(sse(view, "state", seq))
        self.cursor = seq
        return chunks

    def ready(self) -> bool:
        b = self.broadcaster
        return b.last > self.cursor or b.pending_version != self.version

    def news(self) -> list[str]:
        """What happened since the last call: the outcomes after the cursor up to the state
        read now, that state, and the camera's waiting reading when it changed."""
        chunks = []
        if self.broadcaster.last > self.cursor:
            view = self.table.view()
            seq = view.get("seq", self.cursor)
            if seq > self.cursor:
                chunks += self._outcomes(self.cursor, seq)
                chunks.append(sse(view, "state", seq))
                self.cursor = seq
        if self.broadcaster.pending_version != self.version:
            self.version = self.broadcaster.pending_version
            pending = self.live.pending if self.live is not None else None
            # No id: a camera reading is not a journal event.
            chunks.append(sse(pending.to_json() if pending else None, "reading"))
        return chunks

    def _outcomes(self, after: int, upto: int) -> list[str]:
        """The outcomes after `after` up to `upto` inclusive, each once, in order."""
        held = self.broadcaster.since(after)
        if held is not None:
            items = [(s, o) for s, o in held if s <= upto]
            if (items[-1][0] if items else after) == upto:
                return [sse(o, "outcome", s) for s, o in items]
        # Older than the broadcaster's window: read them from the journal.
        with Journal(self.table.journal.path, readonly=True) as journal:
            return [sse(Outcome(r.seq, r.command, r.events).to_json(), "outcome", r.seq)
                    for r in journal.records(after=after) if r.seq <= upto]


class StreamSlots:
    """Caps on open event streams: `per_user` for each account, `total` in all."""

    def __init__(self, per_user: int, total: int):
        self.per_user, self.total = per_user, total
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, user: str) -> str | None:
        """None when a slot is taken for `user` (give it back with `give_back`), else why
        not."""
        with self._lock:
            mine = self._open.get(user, 0)
            if mine >= self.per_user:
                return (f"{user} has {mine} live streams open, the most one account may: close "
                        "a tab or a screen")
            if sum(self._open.values()) >= self.total:
                return f"the table already serves {self.total} live streams: try again later"
            self._open[user] = mine + 1
            return None

    def give_back(self, user: str) -> None:
        with self._lock:
            left = self._open.get(user, 0) - 1
            if left > 0:
                self._open[user] = left
            else:
                self._open.pop(user, None)

    def count(self) -> int:
        with self._lock:
            return sum(self._open.values())


@dataclass
class EventStream:
    """What a server built for many idle connections needs to drive one stream itself."""

    feed: EventFeed
    broadcaster: Broadcaster
    keepalive: float
    lifetime: float
    release: Callable[[], None]


@bp.get("/live/events")
@login_required
def events() -> Response:
    """The table's stream: the missed outcomes and the state on connect, then each outcome
    followed by the state. Capped per account and in all (503 beyond)."""
    app = current_app._get_current_object()
    broadcaster: Broadcaster = app.extensions["feltbank.broadcaster"]
    feed = EventFeed(app.extensions["feltbank.table"], broadcaster,
                     app.extensions["feltbank.live"], _last_event_id(),
                     app.config["SSE_RETRY_MS"])
    keepalive = app.config["SSE_KEEPALIVE"]
    lifetime = app.config["SSE_MAX_SECONDS"]
    slots: StreamSlots = app.extensions["feltbank.stream_slots"]
    user = g.user.name
    refused = slots.take(user)
    if refused:
        abort(503, description=refused)
    released = threading.Event()

    def release() -> None:
        if not released.is_set():
            released.set()
            slots.give_back(user)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    handoff = request.environ.get("feltbank.stream")
    if handoff is not None:
        # web.server: the event loop drives the stream; no thread waits on it.
        handoff.append(EventStream(feed, broadcaster, keepalive, lifetime, release))
        return Response("", mimetype="text/event-stream", headers=headers)

    def stream() -> Iterator[str]:
        # A threaded server (Flask's own, with --dev): this thread waits for the news.
        try:
            yield from feed.opening()
            end = time.monotonic() + lifetime
            while time.monotonic() < end:
                if not broadcaster.wait(feed.cursor, keepalive, feed.version):
                    yield ": keepalive\n\n"
                    continue
                yield from feed.news()
        finally:
            release()

    response = Response(stream(), mimetype="text/event-stream", headers=headers)
    response.call_on_close(release)  # also when the stream never started
    return response


# -- the camera -------------------------------------------------------------------------------


def _camera():
    return current_app.extensions["feltbank.camera"]


def _jpeg(data: bytes) -> Response:
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/camera/status")
@login_required
def status() -> Response:
    return jsonify(camera_status(_camera()))


@bp.get("/camera/snapshot.jpg")
@login_required
def snapshot() -> Response:
    camera = _camera()
    frame = camera.latest_jpeg() if camera is not None else None
    if frame is None:
        abort(404, description="no camera frame: " + camera_status(camera)["message"])
    return _jpeg(frame)


def _pending_extra(pending_id: str) -> dict:
    door = current_app.extensions["feltbank.live"]
    pending = door.pending if door is not None else None
    if pending is None or pending.id != pending_id:
        abort(404, description="that reading is no longer waiting")
    return pending.extra


@bp.get("/camera/reading/<pending_id>.jpg")
@login_required
def reading_frame(pending_id: str) -> Response:
    """The settled frame of the waiting reading, with the recognizer's boxes drawn on."""
    frame = _pending_extra(pending_id).get("frame_jpeg")
    if not isinstance(frame, bytes | bytearray) or not frame:
        abort(404, description="the vision side gave no frame with this reading")
    return _jpeg(frame)


@bp.get("/camera/reading/<pending_id>/<int:index>.jpg")
@login_required
def reading_crop(pending_id: str, index: int) -> Response:
    """A crop of one die of the waiting reading."""
    crops = _pending_extra(pending_id).get("crops") or ()
    if not isinstance(crops, list | tuple) or index >= len(crops) or not isinstance(
            crops[index], bytes | bytearray) or not crops[index]:
        abort(404, description=f"no crop of object {index} in this reading")
    return _jpeg(crops[index])


@bp.get("/camera/stream.mjpg")
@login_required
def stream() -> Response:
    """The camera as MJPEG, a few frames a second; at most four viewers at once."""
    app = current_app._get_current_object()
    camera = _camera()
    if camera is None or camera.latest_jpeg() is None:
        abort(404, description="no camera frame: " + camera_status(camera)["message"])
    slots: threading.BoundedSemaphore = app.extensions["feltbank.camera_slots"]
    if not slots.acquire(blocking=False):
        abort(503, description="too many camera streams are open; close one or use the snapshot")
    interval = 1.0 / app.config["MJPEG_FPS"]
    lifetime = app.config["MJPEG_MAX_SECONDS"]

    def frames() -> Iterator[bytes]:
        try:
            end = time.monotonic() + lifetime
            last = None
            while time.monotonic() < end:
                frame = camera.latest_jpeg()
                if frame is not None and frame is not last:
                    last = frame
                    yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                           + str(len(frame)).encode() + b"\r\n\r\n" + frame + b"\r\n")
                time.sleep(interval)
        finally:
            slots.release()

    return Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-store"})
