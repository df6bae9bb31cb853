"""Rebuild the shipped default profile (calibration/fortunes-and-winds) from generated captures.

Run from the repository root: ``python -m vision.default_profile``. The captures show our
printed labels (vision.art's default style) on the nominal table: camera 62 cm above green
felt, 16 mm dice about 50 px across, under varied lamps. A real table should recalibrate.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from vision.bench import capture_set
from vision.labels import FORTUNES_AND_WINDS
from vision.profile import save_profile
from vision.recognizer import calibrate

NOMINAL_TABLE: dict[str, object] = {
    "camera_height_mm": 620.0, "die_px": 50.0, "tilt_deg": (0.0, 0.0), "roll_deg": 0.0,
    "principal_offset": (0.0, 0.0), "felt_mm": (510.0, 380.0), "felt_bgr": (0.15, 0.42, 0.12),
}
OUT = Path(__file__).resolve().parents[1] / "calibration" / FORTUNES_AND_WINDS.name


def main() -> int:
    """Calibrate on generated captures of the nominal table and write the shipped profile."""
    caps = capture_set(NOMINAL_TABLE, seed=424242, per_label=8)
    profile, report = calibrate(caps, FORTUNES_AND_WINDS.name)
    if OUT.exists():
        shutil.rmtree(OUT)
    path = save_profile(profile, OUT, activate=True)
    print(f"{path}: held-out accuracy {report.accuracy:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
