"""One exception root for vision; every message names the file and what would be accepted."""

from __future__ import annotations


class VisionError(ValueError):
    """Root of every error vision raises on bad input."""


class BadImage(VisionError):
    """An image file that cannot be read or decoded (missing, truncated, not an image)."""


class BadCaptureFolder(VisionError):
    """A calibration capture folder that is empty, mislabelled or holds an unusable image."""


class BadProfile(VisionError):
    """A calibration profile that is missing, corrupt, or made for another die set."""


class CalibrationRefused(VisionError):
    """Calibration that cannot tell the faces apart; no profile is written."""


class CameraUnavailable(VisionError):
    """A camera that is missing or stopped sending frames (a state, retried with back-off)."""
