"""What the dashboard needs of a camera: the latest frame and a status.

The vision side provides the real object; the dashboard only calls these two methods, so any
object with them will do (a Pi camera, a webcam, a file camera, a test double):

    camera.latest_jpeg() -> bytes | None     the newest frame as JPEG, None before the first
    camera.status() -> dict                  {"ok": bool, "message": str, ...}

What the camera *read* comes through `controller.live.LiveTable` (its pending reading), whose
`extra` may carry `frame_jpeg` (the settled frame as JPEG bytes, the recognizer's boxes,
labels and confidences drawn on) and `crops` (JPEG bytes of each object, by index).

`LoopCamera` adapts `controller.camera_loop.CameraLoop` to this interface; the JPEG encoder is
handed in (the vision side has OpenCV; the dashboard does not import it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from web.i18n import N_, number, t


@runtime_checkable
class Camera(Protocol):
    def latest_jpeg(self) -> bytes | None: ...

    def status(self) -> dict: ...


#: The camera's states and the table's, as the status line says them.
CAMERA_WORDS = (N_("no camera"), N_("still frames"), N_("no frame yet"), N_("starting"),
                N_("ok"), N_("unavailable"), N_("empty"), N_("moving"), N_("settled"))
#: What a running table's camera reads (`app.readers.KINDS`), as the camera panel says it.
READS_WORDS = (N_("labelled dice"), N_("pip dice"), N_("numeral dice"), N_("the Rugen die"),
               N_("the cards"))


def camera_status(camera: Camera | None) -> dict:
    """The camera's status, or the "no camera" one; its message in the page's language."""
    if camera is None:
        return {"ok": False, "present": False, "message": t("no camera")}
    try:
        status = dict(camera.status())
    except Exception as exc:  # a broken camera must not break the page
        return {"ok": False, "present": True,
                "message": t("camera error: %(error)s") % {"error": exc}}
    status.setdefault("present", True)
    status.setdefault("ok", True)
    age = status.get("last_frame_age_s")
    reason, still, message = (status.get(k) or "" for k in ("reason", "table", "message"))
    if reason:
        message = reason
    elif age is not None and still:
        message = t("%(table)s; frame %(age)s s old") % {"table": t(still),
                                                         "age": number(round(age, 1))}
    status["message"] = t(message)
    return status


class StillCamera:
    """A camera showing one fixed frame: for tests and demonstrations."""

    def __init__(self, jpeg: bytes | None = None):
        self.jpeg = jpeg

    def latest_jpeg(self) -> bytes | None:
        return self.jpeg

    def status(self) -> dict:
        return {"ok": self.jpeg is not None, "message": "still frames" if self.jpeg
                else "no frame yet"}


class LoopCamera:
    """The camera loop's newest frame as JPEG (encoded once per frame) and its status."""

    def __init__(self, loop: Any, encode: Callable[[Any], bytes], reads: str = ""):
        self.loop = loop
        self.encode = encode
        #: What the camera reads ("pip dice", "cards"...: one of READS_WORDS), for the panel.
        self.reads = reads
        self._lock = threading.Lock()
        self._frame: Any = None
        self._jpeg: bytes | None = None

    def latest_jpeg(self) -> bytes | None:
        frame = self.loop.last_frame
        if frame is None:
            return None
        with self._lock:
            if frame is not self._frame:
                self._jpeg = self.encode(frame.image)
                self._frame = frame
            return self._jpeg

    def status(self) -> dict:
        status = self.loop.status.to_json()
        ok = status.get("camera") == "ok"
        # camera_status() words it for people, from the reason, the table and the frame's age.
        return {**status, "ok": ok, "message": status.get("camera", ""), "reads": self.reads}
