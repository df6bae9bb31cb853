"""Live: Server-Sent Events of the table, and the camera (MJPEG, snapshot, last reading)."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator

from flask import Blueprint, Response, abort, current_app, jsonify, request

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

    def __call__(self, outcome: Outcome) -> None:
        with self._cond:
            self._recent.append((outcome.seq, outcome.to_json()))
            self.last = outcome.seq
            self._cond.notify_all()

    def pending_changed(self, _pending) -> None:
        with self._cond:
            self.pending_version += 1
            self._cond.notify_all()

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


@bp.get("/live/events")
@login_required
def events() -> Response:
    """The table's stream: its state (or the missed outcomes) on connect, then each outcome."""
    app = current_app._get_current_object()
    table = app.extensions["feltbank.table"]
    broadcaster: Broadcaster = app.extensions["feltbank.broadcaster"]
    live = app.extensions["feltbank.live"]
    keepalive = app.config["SSE_KEEPALIVE"]
    lifetime = app.config["SSE_MAX_SECONDS"]
    last_id = _last_event_id()

    def stream() -> Iterator[str]:
        view = table.view()
        sent = view.get("seq", 0)
        yield f"retry: {app.config['SSE_RETRY_MS']}\n\n"
        missed = broadcaster.since(last_id) if last_id is not None and last_id <= sent else None
        if missed is not None:
            for seq, outcome in missed:
                if seq <= sent:
                    yield sse(outcome, "outcome", seq)
        yield sse(view, "state", sent)
        version = broadcaster.pending_version
        end = time.monotonic() + lifetime
        while time.monotonic() < end:
            if not broadcaster.wait(sent, keepalive, version):
                yield ": keepalive\n\n"
                continue
            if broadcaster.last > sent:
                missed = broadcaster.since(sent)
                for seq, outcome in missed or ():
                    yield sse(outcome, "outcome", seq)
                view = table.view()
                sent = view.get("seq", sent)
                yield sse(view, "state", sent)
            if broadcaster.pending_version != version:
                version = broadcaster.pending_version
                pending = live.pending if live is not None else None
                # No id: a camera reading is not a journal event.
                yield sse(pending.to_json() if pending else None, "reading")

    return Response(stream(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


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
