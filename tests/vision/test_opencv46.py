"""The vision code on a Raspberry Pi's OpenCV: Bookworm's python3-opencv 4.6 (with contrib) and numpy 1.

OpenCV 4.7 rewrote cv2.aruco (ArucoDetector, generateImageMarker); Bookworm ships 4.6, whose
aruco has only the old calls (DetectorParameters_create, detectMarkers, drawMarker). This test
builds a side venv with PyPI's build of that OpenCV (opencv-contrib-python-headless 4.6.0.66,
the same API as Debian's) and numpy 1.24 (Bookworm's), once, keyed on those pins, in
.venv-cv46/ (or $FELTBANK_CV46_VENV). It then runs this file as a script under both pythons,
the side venv's and the suite's: each renders the corner markers and some dice on the synthetic
table, finds the felt with TableGeometry.from_markers and reads the dice with the shipped
profile; the side venv must get the felt's size right and read what the suite's OpenCV reads.

Building the venv needs PyPI: without it the test is skipped, except on CI (CI set), where it
fails. By hand, `.venv-cv46/bin/python tests/vision/test_opencv46.py` prints what it checks.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
import urllib.request
import venv
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Bookworm: python3 3.11, python3-numpy 1.24.2, python3-opencv 4.6.0 (contrib included),
# python3-threadpoolctl 3.1.0.
NUMPY = "numpy==1.24.2" if sys.version_info[:2] == (3, 11) else "numpy>=1.24,<2"
PINS = (NUMPY, "opencv-contrib-python-headless==4.6.0.66", "threadpoolctl==3.1.0", "pytest")
STAMP = "feltbank-cv46"  # in the venv: what it was built from
PYPI_PROBE = "https://pypi.org/simple/opencv-contrib-python-headless/"

FELT_MM = (440.0, 330.0)
INSET_MM = 4.0 + 48.0 / 2  # a marker's centre from the felt's edges: 4 mm + half its 48 mm paper
MARKER_DICE = (("SUN", -100.0, 40.0, 15.0), ("EAST", 120.0, -60.0, 40.0))  # label, x, y mm, yaw
DICE_SEEDS = (1, 2, 3)  # make_scene seeds on the nominal table, five dice each
MATCH_PX = 12.0  # a reading belongs to a die when its centre is this close to the truth


# --- the check: runs as a script under the side venv's python and the suite's ---------------

def _stage(out: dict, name: str, fn: Callable[[], object]) -> None:
    """out[name] = fn(), or the traceback that stopped it (the other stages still run)."""
    try:
        out[name] = fn()
    except Exception:  # noqa: BLE001 - reported to the test, which names the failing stage
        out[name] = {"error": traceback.format_exc()}


def check() -> dict:
    """What this python's cv2 makes of the synthetic table, as JSON-able facts."""
    import cv2
    import numpy as np

    from vision.default_profile import NOMINAL_TABLE
    from vision.geometry import TableGeometry, detect_markers
    from vision.profile import load_profile
    from vision.recognizer import Recognizer
    from vision.synthetic import DieSpec, SceneParams, _marker_image, make_scene, render_scene

    cv2.setNumThreads(1)
    out: dict = {"cv2": cv2.__version__, "numpy": np.__version__,
                 "aruco_detector": hasattr(cv2.aruco, "ArucoDetector")}
    recognizer = Recognizer(load_profile(REPO / "calibration" / "fortunes-and-winds"))

    def labels_at(readings: list, scene) -> list:
        """For each true die: the label read there and its table mm (None if no reading)."""
        got = []
        for truth in scene.dice:
            near = [r for r in readings if r.kind == "die"
                    and np.hypot(*np.subtract(r.center, truth.top_center)) < MATCH_PX]
            r = near[0] if near else None
            got.append({"truth": truth.label, "label": r.label if r else None,
                        "table_mm": list(r.table_mm) if r and r.table_mm else None})
        return got

    def marker_art() -> list[str]:
        return [hashlib.sha256(_marker_image(i, 120).tobytes()).hexdigest()[:16] for i in range(4)]

    def markers() -> dict:
        scene = render_scene(SceneParams(felt_mm=FELT_MM, markers=True),
                             [DieSpec(lab, x, y, yaw) for lab, x, y, yaw in MARKER_DICE], seed=3)
        found = detect_markers(scene.image)
        corner_px = max(float(np.abs(found[i] - scene.marker_corners[i]).max())
                        for i in found if i in scene.marker_corners) if found else None
        size = (FELT_MM[0] - 2 * INSET_MM, FELT_MM[1] - 2 * INSET_MM)
        geo = TableGeometry.from_markers(scene.image, size)
        return {"ids": sorted(found), "corner_err_px": corner_px, "size_mm": list(size),
                "felt_corners_mm": geo.to_table(scene.felt_corners).tolist(),
                "dice": labels_at(recognizer.read(scene.image, geo), scene)}

    def dice() -> list:
        scenes = [make_scene(s, n_dice=5, table=NOMINAL_TABLE) for s in DICE_SEEDS]
        return [labels_at(recognizer.read(sc.image), sc) for sc in scenes]

    _stage(out, "marker_art", marker_art)
    _stage(out, "markers", markers)
    _stage(out, "dice", dice)
    return out


# --- the side venv -----------------------------------------------------------------------------

@contextmanager
def _locked(path: Path):
    """One builder of a venv at a time (two suites on one machine share .venv-cv46)."""
    tag = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"feltbank-cv46-{tag}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def _pypi_reachable() -> bool:
    try:
        with urllib.request.urlopen(PYPI_PROBE, timeout=10) as r:
            return r.status == 200
    except OSError:
        return False


def side_python() -> Path:
    """The side venv's python: reused when built from the same pins, else (re)built."""
    env_dir = Path(os.environ.get("FELTBANK_CV46_VENV", REPO / ".venv-cv46"))
    python, stamp = env_dir / "bin" / "python", env_dir / STAMP
    key = json.dumps({"python": sys.version.split()[0], "base": sys.base_prefix,
                      "pins": PINS}) + "\n"
    with _locked(env_dir):
        if python.exists() and stamp.exists() and stamp.read_text() == key:
            return python
        if env_dir.exists():
            if not (env_dir / "pyvenv.cfg").exists():
                pytest.fail(f"{env_dir} exists and is not a venv; remove it or set "
                            "FELTBANK_CV46_VENV to another folder")
            shutil.rmtree(env_dir)
        venv.EnvBuilder(with_pip=True).create(env_dir)
        # Wheels only: a source build of OpenCV would take hours.
        done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-input",
                               "--disable-pip-version-check", "--only-binary=:all:", *PINS],
                              capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            if not os.environ.get("CI") and not _pypi_reachable():
                pytest.skip(f"PyPI unreachable: cannot build {env_dir} with {' '.join(PINS)}")
            pytest.fail(f"pip install {' '.join(PINS)} into {env_dir} failed:\n"
                        f"{done.stdout[-3000:]}{done.stderr[-3000:]}")
        stamp.write_text(key)
    return python


def run_check(python: Path) -> dict:
    """Run this file as a script under `python` and return its JSON."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PYTHONPATH=str(REPO), PYTHONNOUSERSITE="1", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([str(python), str(Path(__file__).resolve())], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=300)
    # (a negative code is a signal: 4.6's cv2.aruco.DetectorParameters() segfaults when used)
    assert done.returncode == 0, (f"{python} {Path(__file__).name} exited {done.returncode}:\n"
                                  f"{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the test -----------------------------------------------------------------------------------

def _ok(result: dict, stage: str, env: str):
    """A stage's result, failing the test with the traceback when the stage raised."""
    got = result[stage]
    if isinstance(got, dict) and "error" in got:
        pytest.fail(f"{stage} under {env} (cv2 {result['cv2']}, numpy {result['numpy']}) "
                    f"raised:\n{got['error']}")
    return got


@pytest.mark.slow
def test_vision_on_bookworms_opencv_4_6():
    side = run_check(side_python())
    main = run_check(Path(sys.executable))
    old, new = "the side venv", "the suite's python"
    # the side venv really has 4.6's aruco API and numpy 1
    versions = {k: side[k] for k in ("cv2", "numpy", "aruco_detector")}
    assert side["cv2"] == "4.6.0" and not side["aruco_detector"], versions
    assert side["numpy"].startswith("1."), versions

    # synthetic.py draws the markers with 4.6's drawMarker: the same art as generateImageMarker
    assert _ok(side, "marker_art", old) == _ok(main, "marker_art", new)

    # the four corner markers found with 4.6's detectMarkers, and the felt measured right
    m = _ok(side, "markers", old)
    assert m["ids"] == [0, 1, 2, 3], m
    assert m["corner_err_px"] is not None and m["corner_err_px"] < 2.0, m
    w, h = m["size_mm"]
    felt = [[-INSET_MM, -INSET_MM], [w + INSET_MM, -INSET_MM], [w + INSET_MM, h + INSET_MM],
            [-INSET_MM, h + INSET_MM]]
    for got, exp in zip(m["felt_corners_mm"], felt, strict=True):
        assert abs(got[0] - exp[0]) < 2.0 and abs(got[1] - exp[1]) < 2.0, m["felt_corners_mm"]
    (x0, y0), (x1, _), (_, y2) = m["felt_corners_mm"][:3]
    assert abs((x1 - x0) - FELT_MM[0]) < 2.0 and abs((y2 - y0) - FELT_MM[1]) < 2.0, m
    # ...and the dice on it read, at their place in table mm
    for die, (label, x, y, _) in zip(m["dice"], MARKER_DICE, strict=True):
        assert die["label"] == label, m["dice"]
        tx, ty = die["table_mm"]
        assert abs(tx - (x + w / 2)) < 4 and abs(ty - (h / 2 - y)) < 4, m["dice"]

    # the shipped profile reads the same labels under 4.6 as under the suite's OpenCV
    want = [[d["label"] for d in sc] for sc in _ok(main, "dice", new)]
    truth = [[d["truth"] for d in sc] for sc in _ok(main, "dice", new)]
    right = sum(a == b for ws, ts in zip(want, truth, strict=True) for a, b in zip(ws, ts, strict=True))
    assert right >= 0.8 * sum(map(len, truth)), (want, truth)  # else the comparison means little
    assert [[d["label"] for d in sc] for sc in _ok(side, "dice", old)] == want, truth


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))  # this checkout's vision/, whichever python runs this
    print(json.dumps(check()))
