"""Guided calibration at the table: take captures face by face, learn, activate, roll back.

The dashboard drives it (see web/calibration.py for the interface). Captures are written as
PNG files into a folder per label, exactly what `feltbank calibrate --captures` reads, so a
capture session can also be learned from the command line.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision import profile as profiles
from vision.errors import VisionError
from vision.labels import FORTUNES_AND_WINDS, DieSet
from vision.recognizer import calibrate_folder


def learning_failed(exc: Exception) -> dict:
    """A calibration page's progress when learning stopped on `exc` (nothing written)."""
    return {"state": "failed", "fraction": 1.0, "message": str(exc), "report": None}


def learned(version: Path, **fields: object) -> dict:
    """A calibration page's progress when learning wrote `version` (not yet active)."""
    return {"state": "done", "fraction": 1.0, "message": f"{version.name} is ready: activate it "
            "to use it", "version": version.name, **fields}


class Calibrator:
    """Captures, learning with progress, and the profile store's versions."""

    def __init__(self, store: str | os.PathLike, captures: str | os.PathLike,
                 frame: Callable[[], np.ndarray | None], *, die_set: DieSet = FORTUNES_AND_WINDS,
                 target: int = 6, show: Callable[[str], None] | None = None,
                 on_activate: Callable[[Path], None] | None = None,
                 controls: Callable[[], dict | None] | None = None,
                 on_corners: Callable[[list], None] | None = None):
        self.store = Path(store)
        self.captures = Path(captures)
        self.frame = frame
        self.die_set = die_set
        self.target = target
        #: The demo table lays a die with the asked face before a capture; a real table has
        #: the banker do it.
        self.show = show
        self.on_activate = on_activate
        #: The camera's locked exposure and gains, kept in the profile learned under them.
        self.controls = controls
        #: Where the running camera takes the felt's corners set by hand.
        self.on_corners = on_corners
        self._lock = threading.Lock()
        self._progress: dict = {"state": "idle", "fraction": 0.0, "message": "", "report": None}

    def labels(self) -> list[str]:
        return list(self.die_set.labels)

    def counts(self) -> dict[str, int]:
        return {label: len(list((self.captures / label).glob("*.png")))
                for label in self.labels() if (self.captures / label).is_dir()}

    def capture(self, label: str) -> int:
        """Save the camera's frame as a capture of `label`; the captures of it now."""
        if label not in self.labels():
            raise ValueError(f"{label!r} is not a face of {self.die_set.name}: one of "
                             + ", ".join(self.labels()))
        if self.show is not None:
            self.show(label)
        image = self.frame()
        if image is None:
            raise ValueError("the camera has no frame yet: check it on the table page")
        ok, png = cv2.imencode(".png", image)
        if not ok:
            raise ValueError("the frame could not be saved")
        folder = self.captures / label
        folder.mkdir(parents=True, exist_ok=True)
        n = self.counts().get(label, 0) + 1
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".capture-", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(png.tobytes())
        os.replace(tmp, folder / f"{n:03d}-{int(time.time())}.png")
        return n

    def learn(self) -> None:
        """Learn a profile from the captures in the background (see `progress()`)."""
        with self._lock:
            if self._progress["state"] == "learning":
                raise ValueError("already learning: wait for it to finish")
            self._progress = {"state": "learning", "fraction": 0.05,
                              "message": "reading the captures", "report": None}
        threading.Thread(target=self._learn, name="calibrate", daemon=True).start()

    def _step(self, fraction: float, message: str) -> None:
        with self._lock:
            self._progress.update(fraction=fraction, message=message)

    def _learn(self) -> None:
        try:
            profile, report = calibrate_folder(
                self.captures, self.die_set.name, self.labels(),
                lambda f, message: self._step(0.05 + 0.85 * f, message))
            if self.controls is not None:
                profile.camera_controls = self.controls()
            self._step(0.9, "writing the profile")
            path = profiles.save_profile(profile, self.store, activate=False)
        except VisionError as exc:
            with self._lock:
                self._progress = learning_failed(exc)
            return
        with self._lock:
            self._progress = learned(path, report=report.to_json())

    def set_corners(self, corners: list) -> None:
        """The felt's four corners in the camera's picture (image px, clockwise from the
        top-left), set by hand; [] goes back to the corner markers."""
        if self.on_corners is None:
            raise ValueError("this table's camera does not take corners set by hand")
        self.on_corners(corners)

    def progress(self) -> dict:
        with self._lock:
            return dict(self._progress)

    def versions(self) -> dict:
        return profiles.store_versions(self.store)

    def activate(self, version: str) -> None:
        try:
            profiles.activate_version(self.store, version)
        except VisionError as exc:
            raise ValueError(str(exc)) from None
        if self.on_activate is not None:
            self.on_activate(self.store)

    def rollback(self) -> str:
        try:
            name = profiles.rollback(self.store)
        except VisionError as exc:
            raise ValueError(str(exc)) from None
        if self.on_activate is not None:
            self.on_activate(self.store)
        return name
