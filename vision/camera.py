"""Camera sources behind one interface: Pi camera, USB webcam, replay, the synthetic table.

Every source is polled with `read()`, which returns the newest frame or None; a missing or
unplugged camera is a state (`CameraState.UNAVAILABLE` with a reason), retried with back-off,
never an exception reaching the table service.
"""

from __future__ import annotations

import enum
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.errors import VisionError
from vision.images import IMAGE_SUFFIXES, read_image

if TYPE_CHECKING:
    from vision.labels import DieSet


class CameraState(enum.Enum):
    """What the rest of the system (and the dashboard) sees of a camera."""

    STARTING = "starting"
    OK = "ok"
    UNAVAILABLE = "unavailable"


@dataclass
class Frame:
    """One camera frame with when it was taken (monotonic seconds) and its number."""

    image: np.ndarray
    t: float
    index: int


@dataclass
class Backoff:
    """Retry delays that double from `first` up to `most` seconds."""

    first: float = 0.5
    most: float = 30.0
    _next: float = field(default=0.0, init=False)

    def delay(self) -> float:
        """The delay before the next retry (and lengthen the one after)."""
        d = self._next or self.first
        self._next = min(self.most, d * 2)
        return d

    def reset(self) -> None:
        """Forget past failures."""
        self._next = 0.0


class CameraSource:
    """The interface: read() the newest frame, state/reason for the dashboard, close()."""

    name = "camera"

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.state = CameraState.STARTING
        self.reason = ""
        self.controls: dict | None = None  # locked exposure/gains, kept in the profile

    def read(self) -> Frame | None:
        """The newest frame not yet returned, or None."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the device."""

    def _unavailable(self, reason: str) -> None:
        """Record that the camera cannot deliver frames, and why."""
        self.state = CameraState.UNAVAILABLE
        self.reason = reason


class ReplaySource(CameraSource):
    """Frames from a folder of images or a video file, in order, optionally looping."""

    name = "replay"

    def __init__(self, path: str | Path, loop: bool = False, fps: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock)
        self.path = Path(path)
        self.loop = loop
        self.period = 1.0 / fps if fps > 0 else 0.0
        self._index = 0
        self._last = -1e9
        self._files: list[Path] = []
        self._video: cv2.VideoCapture | None = None
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir()
                                 if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                self._unavailable(f"{self.path}: no images to replay")
        elif self.path.is_file():
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                self._unavailable(f"{self.path}: not a video OpenCV can open")
        else:
            self._unavailable(f"{self.path}: no such folder or video")

    def read(self) -> Frame | None:
        """The next frame (None when paced, finished or unavailable)."""
        if self.state is CameraState.UNAVAILABLE and not self._files and self._video is None:
            return None
        now = self.clock()
        if now - self._last < self.period:
            return None
        img = self._next_image()
        if img is None:
            return None
        self._last = now
        self.state = CameraState.OK
        self._index += 1
        return Frame(img, now, self._index)

    def _next_image(self) -> np.ndarray | None:
        """Decode the next image of the folder or video."""
        if self._files:
            if self._index >= len(self._files):
                if not self.loop:
                    return None
                self._index = 0
            try:
                return read_image(self._files[self._index])
            except ValueError as e:
                self._unavailable(str(e))
                return None
        if self._video is not None:
            ok, img = self._video.read()
            if not ok and self.loop:
                self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, img = self._video.read()
            return img if ok else None
        return None

    def close(self) -> None:
        """Release the video file."""
        if self._video is not None:
            self._video.release()


class OpenCVSource(CameraSource):
    """A USB webcam via cv2.VideoCapture: a reader thread keeps only the newest frame.

    When no frame arrives for `stale_s`, or the device cannot be opened, the camera is
    reported unavailable and reopened after a back-off delay.
    """

    name = "usb"

    def __init__(self, device: int | str = 0, size: tuple[int, int] = (1640, 1232),
                 stale_s: float = 2.0, backoff: Backoff | None = None,
                 opener: Callable[[int | str], cv2.VideoCapture] = cv2.VideoCapture) -> None:
        super().__init__()
        self.device, self.size, self.stale_s = device, size, stale_s
        self.backoff = backoff or Backoff()
        self._opener = opener
        self._lock = threading.Lock()
        self._latest: Frame | None = None
        self._returned = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"camera-{device}", daemon=True)
        self._thread.start()

    def _open(self) -> cv2.VideoCapture | None:
        """Open the device, or report why not."""
        try:
            cap = self._opener(self.device)
        except Exception as e:  # noqa: BLE001 - any driver failure is a camera state
            self._unavailable(f"camera {self.device}: {e}")
            return None
        if cap is None or not cap.isOpened():
            self._unavailable(f"camera {self.device}: cannot open (unplugged?)")
            return None
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        return cap

    def _run(self) -> None:
        """Reader thread: grab frames, keep the newest, reopen when they stop."""
        index = 0
        while not self._stop.is_set():
            cap = self._open()
            if cap is None:
                self._stop.wait(self.backoff.delay())
                continue
            last_ok = time.monotonic()
            while not self._stop.is_set():
                ok, img = cap.read()
                now = time.monotonic()
                if ok and img is not None:
                    index += 1
                    with self._lock:
                        self._latest = Frame(img, now, index)
                    self.state, self.reason = CameraState.OK, ""
                    self.backoff.reset()
                    last_ok = now
                elif now - last_ok > self.stale_s:
                    self._unavailable(f"camera {self.device}: no frames for {self.stale_s:g} s")
                    break
                else:
                    self._stop.wait(0.01)
            cap.release()
            self._stop.wait(self.backoff.delay())

    def read(self) -> Frame | None:
        """The newest frame if it is new since the last read."""
        with self._lock:
            f = self._latest
        if f is None or f.index == self._returned:
            return None
        self._returned = f.index
        return f

    def close(self) -> None:
        """Stop the reader thread."""
        self._stop.set()
        self._thread.join(timeout=5)


LOCKED_CONTROLS = ("ExposureTime", "AnalogueGain", "ColourGains")  # libcamera control names


def flicker_free(controls: dict, mains_hz: float) -> dict:
    """Exposure and gain moved to a whole number of the lamps' flicker periods, same brightness.

    Lamps on mains power flicker at twice its frequency; a rolling shutter exposed for a
    fraction of a period paints moving bands that the settle detector would take for motion
    all evening. Exposing for whole periods averages the flicker out; the analogue gain makes
    up the difference (never below 1). Exposures shorter than a period are left alone.
    """
    if not mains_hz:
        return dict(controls)
    period = 1e6 / (2 * mains_hz)  # µs
    t, gain = controls["ExposureTime"], controls["AnalogueGain"]
    if t < period:
        return dict(controls)
    whole = round(t / period) * period
    if gain * t / whole < 1.0:  # too bright for the longer exposure: the shorter one
        whole = max(period, math.floor(t / period) * period)
    return {**controls, "ExposureTime": int(round(whole)),
            "AnalogueGain": max(1.0, gain * t / whole)}


class PiCameraSource(CameraSource):
    """The Raspberry Pi camera via picamera2 (imported only here, only when used).

    After auto-exposure and white balance settle, ExposureTime, AnalogueGain and ColourGains
    are locked, so the lamps' drift over an evening is the only change; `controls` holds the
    locked values for the calibration profile, and `lock(controls)` restores them.
    """

    name = "picamera"

    def __init__(self, size: tuple[int, int] = (1640, 1232), settle_s: float = 2.0,
                 controls: dict | None = None, backoff: Backoff | None = None,
                 mains_hz: float = 50.0) -> None:
        super().__init__()
        self.size, self.settle_s = size, settle_s
        self.mains_hz = mains_hz
        self.backoff = backoff or Backoff()
        self._cam = None
        self._retry_at = 0.0
        self._index = 0
        self._wanted = controls
        self._start()

    def _start(self) -> None:
        """Open and configure the camera, settle AE/AWB, lock the controls."""
        try:
            from picamera2 import Picamera2  # lazy: only on a Pi
        except ImportError:
            self._unavailable("picamera2 is not installed (python3-picamera2 on the Pi)")
            self._retry_at = float("inf")
            return
        try:
            cam = Picamera2()
            # a continuous stream; picamera2's "RGB888" is laid out B, G, R: OpenCV's order
            cam.configure(cam.create_video_configuration(main={"size": self.size,
                                                               "format": "RGB888"}))
            cam.start()
            if self._wanted:
                self.lock(self._wanted, cam)
            else:
                time.sleep(self.settle_s)  # let AE/AWB converge under the table lamps
                md = cam.capture_metadata()
                self.lock(flicker_free({"ExposureTime": int(md["ExposureTime"]),
                                        "AnalogueGain": float(md["AnalogueGain"]),
                                        "ColourGains": tuple(md["ColourGains"])},
                                       self.mains_hz), cam)
            self._cam = cam
            self.state, self.reason = CameraState.OK, ""
            self.backoff.reset()
        except Exception as e:  # noqa: BLE001 - any camera failure is a state
            self._unavailable(f"picamera: {e}")
            self._retry_at = time.monotonic() + self.backoff.delay()

    def lock(self, controls: dict, cam: object = None) -> None:
        """Fix exposure, gain and white balance to these values (a profile's, say); a camera
        that is not running takes them when it starts."""
        wanted = {k: controls[k] for k in LOCKED_CONTROLS if k in controls}
        if "ColourGains" in wanted:
            wanted["ColourGains"] = tuple(wanted["ColourGains"])
        self._wanted = wanted
        cam = cam or self._cam
        if cam is not None:
            cam.set_controls({"AeEnable": False, "AwbEnable": False, **wanted})  # type: ignore
        self.controls = dict(wanted)

    def read(self) -> Frame | None:
        """Capture a frame (None while unavailable; retried with back-off)."""
        if self._cam is None:
            if time.monotonic() >= self._retry_at:
                self._start()
            return None
        try:
            img = self._cam.capture_array("main")
        except Exception as e:  # noqa: BLE001
            self._unavailable(f"picamera: {e}")
            try:
                self.close()  # release it, or opening it again finds it busy
            except Exception:  # noqa: BLE001 - a camera that is gone may not stop cleanly
                pass
            self._cam = None
            self._retry_at = time.monotonic() + self.backoff.delay()
            return None
        self._index += 1
        return Frame(np.ascontiguousarray(img[:, :, :3]), time.monotonic(), self._index)

    def close(self) -> None:
        """Stop the camera."""
        if self._cam is not None:
            try:
                self._cam.stop()
            finally:
                self._cam.close()


class SyntheticSource(CameraSource):
    """The synthetic table as a camera: scripted frames (for the demo and settle tests)."""

    name = "synthetic"

    def __init__(self, frames: Iterator[np.ndarray], fps: float = 10.0) -> None:
        super().__init__()
        self._frames = frames
        self._t = 0.0
        self._index = 0
        self.period = 1.0 / fps
        self.state = CameraState.OK

    def read(self) -> Frame | None:
        """The next scripted frame, stamped with simulated time."""
        img = next(self._frames, None)
        if img is None:
            return None
        self._index += 1
        self._t += self.period
        return Frame(img, self._t, self._index)


def roll_frames(seed: int, moving: int = 6, still: int = 30, hand: int = 0,
                die_set: DieSet | None = None) -> Iterator[np.ndarray]:
    """A roll of five dice of `die_set` on the synthetic table: hand frames, dice tumbling
    (blurred), then at rest. No die set: the first labelled one of equipment/."""
    from vision.labels import DIE_SETS
    from vision.synthetic import DieSpec, render_scene, sample_dice, sample_params

    die_set = die_set or next(iter(DIE_SETS.values()))
    rng = np.random.default_rng(seed)
    params = sample_params(rng)
    final = sample_dice(rng, params, die_set.labels, 5, die_set=die_set)
    for k in range(hand):
        yield render_scene(replace(params, hand=True), [], seed=seed + k,
                           die_set=die_set).image
    for k in range(moving, 0, -1):
        dice = [DieSpec(s.label, s.x_mm - 9 * k, s.y_mm + 5 * k, s.yaw_deg + 25 * k,
                        motion_px=(30.0, -18.0)) for s in final]
        yield render_scene(params, dice, seed=seed, die_set=die_set).image
    rest = render_scene(params, final, seed=seed, die_set=die_set).image
    for _ in range(still):  # the same scene, fresh sensor noise each frame
        noise = rng.normal(0.0, 2.0, rest.shape)
        yield np.clip(rest + noise, 0, 255).astype(np.uint8)


def open_camera(spec: str, controls: dict | None = None, mains_hz: float = 50.0,
                die_set: DieSet | None = None) -> CameraSource:
    """A source from a short spec: picamera, usb[:N], replay:PATH, synthetic[:SEED].

    `controls` are a profile's locked exposure and gains, for the Pi camera to start with;
    `mains_hz` the lamps' mains frequency, which its exposure is fitted to; `die_set` the dice
    the synthetic table rolls (the table's mode's).
    """
    kind, _, arg = spec.partition(":")
    if kind == "picamera":
        return PiCameraSource(controls=controls, mains_hz=mains_hz)
    if kind == "usb":
        return OpenCVSource(int(arg) if arg.isdigit() else (arg or 0))
    if kind == "replay":
        return ReplaySource(arg, loop=True, fps=5.0)
    if kind == "synthetic":
        return SyntheticSource(roll_frames(int(arg or 0), die_set=die_set))
    raise VisionError(f"camera {spec!r}: expected picamera, usb[:N], replay:PATH or "
                     "synthetic[:SEED]")
