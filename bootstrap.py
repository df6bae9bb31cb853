#!/usr/bin/env python3
"""Run feltbank or its tests from a fresh clone with only python3: makes .venv when needed.

    python3 bootstrap.py run [feltbank run options]
    python3 bootstrap.py test [pytest options]  # none: the whole suite, on every core
    python3 bootstrap.py house [feltbank house serve options]   # the house ledger

The venv is (re)installed when pyproject.toml or the wanted extras change. On a machine whose
system python already has OpenCV (a Raspberry Pi with python3-opencv, python3-picamera2 and
python3-lgpio), the venv sees the system packages and pip installs no second OpenCV or numpy.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("FELTBANK_VENV", ROOT / ".venv"))
STAMP = VENV / "feltbank-installed"
WHOLE_SUITE = ["-n", "auto", "--dist", "loadfile"]


def system_has_opencv() -> bool:
    """True when the system python imports cv2 (Debian's python3-opencv on a Pi)."""
    probe = subprocess.run(
        [sys.executable, "-c", "import cv2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return probe.returncode == 0


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv(extras: list[str]) -> None:
    """Create .venv and install the project with `extras` unless the stamp says it is done."""
    use_system = system_has_opencv()
    if not use_system:
        extras = ["cv", *extras]
    extras = sorted(set(extras))
    project = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if venv_python().exists() and STAMP.exists():
        # A venv installed with more extras (test's) serves a command that needs fewer (run's).
        done = STAMP.read_text().split()
        held = set(done[1:]) | ({"house"} if "dev" in done else set())  # dev includes house
        if done[:1] == [project] and set(extras) <= held:
            return
    if not venv_python().exists():
        print(f"bootstrap: creating {VENV}", file=sys.stderr)
        try:
            venv.EnvBuilder(with_pip=True, system_site_packages=use_system).create(VENV)
        except (subprocess.CalledProcessError, OSError) as exc:
            sys.exit(
                f"bootstrap: could not create {VENV} ({exc}). On Debian or Raspberry Pi OS "
                "install the venv module first: sudo apt install python3-venv"
            )
    spec = f".[{','.join(extras)}]" if extras else "."
    print(f"bootstrap: installing feltbank{spec[1:]} into {VENV}", file=sys.stderr)
    pip = [str(venv_python()), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "-e", spec], cwd=ROOT, check=True)
    STAMP.write_text(" ".join([project, *extras]) + "\n")


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("run", "test", "house"):
        print(__doc__, file=sys.stderr)
        return 2
    what, rest = argv[0], argv[1:]
    if what == "run":
        ensure_venv([])
        cmd = [str(VENV / "bin" / "feltbank"), "run", *rest]
    elif what == "house":
        # The house's own PostgreSQL (--local) unless --db names one.
        ensure_venv(["house"])
        named = any(a.startswith(("--db", "--local")) for a in rest)
        local = [] if named or os.environ.get("FELTBANK_HOUSE_DB") else ["--local"]
        cmd = [str(VENV / "bin" / "feltbank"), "house", "serve", *local, *rest]
    else:
        ensure_venv(["dev"])
        # The whole suite (no options) runs on every core (pytest-xdist), each test file on
        # one worker so that its fixtures are made once; options given run as given.
        cmd = [str(venv_python()), "-m", "pytest", *(rest or WHOLE_SUITE)]
    if what != "house":  # the house's --cert and --key may be relative to where it was asked
        os.chdir(ROOT)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
