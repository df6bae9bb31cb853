"""Camera sources, table geometry, settle detection and dice recognition (numpy and cv2 only)."""

from vision.errors import (
    BadCaptureFolder,
    BadImage,
    BadProfile,
    CalibrationRefused,
    CameraUnavailable,
    VisionError,
)

__all__ = [
    "BadCaptureFolder",
    "BadImage",
    "BadProfile",
    "CalibrationRefused",
    "CameraUnavailable",
    "VisionError",
]
