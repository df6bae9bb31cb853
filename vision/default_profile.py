"""Rebuild a shipped default profile (calibration/NAME) from generated captures.

Run from the repository root: ``python -m vision.default_profile [DIE_SET]`` (default
fortunes-and-winds; any labelled die set of equipment/, e.g. namaste). The captures show our
printed labels (vision.art's default style) on the nominal table: camera 62 cm above green
felt, 16 mm dice about 50 px across, under varied lamps. A real table should recalibrate.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from vision.bench import capture_set
from vision.labels import DIE_SETS, FORTUNES_AND_WINDS
from vision.profile import save_profile
from vision.recognizer import calibrate

NOMINAL_TABLE: dict[str, object] = {
    "camera_height_mm": 620.0, "die_px": 50.0, "tilt_deg": (0.0, 0.0), "roll_deg": 0.0,
    "principal_offset": (0.0, 0.0), "felt_mm": (510.0, 380.0), "felt_bgr": (0.15, 0.42, 0.12),
}
CALIBRATION = Path(__file__).resolve().parents[1] / "calibration"
OUT = CALIBRATION / FORTUNES_AND_WINDS.name
#: The captures' seed per die set (the shipped profiles were made with these).
SEEDS = {FORTUNES_AND_WINDS.name: 424242, "namaste": 424243}


def main(argv: list[str] | None = None) -> int:
    """Calibrate on generated captures of the nominal table and write the shipped profile."""
    args = sys.argv[1:] if argv is None else argv
    name = args[0] if args else FORTUNES_AND_WINDS.name
    if name not in DIE_SETS:
        print(f"no die set {name!r}; sets: {', '.join(DIE_SETS)}", file=sys.stderr)
        return 1
    caps = capture_set(NOMINAL_TABLE, seed=SEEDS.get(name, 424242), per_label=8,
                       die_set=DIE_SETS[name])
    profile, report = calibrate(caps, name)
    out = CALIBRATION / name
    if out.exists():
        shutil.rmtree(out)
    path = save_profile(profile, out, activate=True)
    print(f"{path}: held-out accuracy {report.accuracy:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
