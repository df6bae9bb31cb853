"""The recognizer's public face: read dice with a profile, learn a profile from captures.

The work lives in its own modules: `vision.model` (the stored profile and its thresholds),
`vision.descriptors` (descriptor maths of a rectified top face), `vision.matcher` (templates,
whitening, ink colours), `vision.leaning` (the cocked-die check), `vision.reader` (reading a
frame) and `vision.training` (calibration). Callers import from here.
"""

from vision.descriptors import GRID, MARGIN, STORE
from vision.model import Geometry, Profile, Thresholds
from vision.reader import DieReading, Recognizer, decide
from vision.training import CalibrationReport, calibrate, calibrate_folder, learn_templates

__all__ = [
    "GRID",
    "MARGIN",
    "STORE",
    "CalibrationReport",
    "DieReading",
    "Geometry",
    "Profile",
    "Recognizer",
    "Thresholds",
    "calibrate",
    "calibrate_folder",
    "decide",
    "learn_templates",
]
