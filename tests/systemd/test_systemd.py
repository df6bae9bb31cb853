"""The service unit (checked by systemd-analyze) and the install script (in a scratch root)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "feltbank.service"
INSTALL = ROOT / "systemd" / "install.sh"


def unit_options() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    section = ""
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif line and not line.startswith("#"):
            key, _, value = line.partition("=")
            out.setdefault(f"{section}.{key}", []).append(value)
    return out


def test_systemd_analyze_verify_finds_nothing(tmp_path):
    assert shutil.which("systemd-analyze"), "systemd-analyze is needed (.ci/run installs it)"
    # verify checks that ExecStart exists: point the unit at a stand-in under tmp_path.
    app = tmp_path / "opt" / "feltbank"
    (app / ".venv" / "bin").mkdir(parents=True)
    exe = app / ".venv" / "bin" / "feltbank"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    unit = tmp_path / "feltbank.service"
    unit.write_text(UNIT.read_text().replace("/opt/feltbank", str(app)))
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stderr == "" and done.stdout == "", done.stderr
    broken = tmp_path / "broken.service"
    broken.write_text(unit.read_text().replace("WatchdogSec=", "WatchdogSecs="))
    done = subprocess.run(["systemd-analyze", "verify", str(broken)], capture_output=True,
                          text=True)
    assert "Unknown key 'WatchdogSecs'" in done.stderr  # the check can fail


def test_the_unit_is_a_watched_hardened_notify_service():
    o = unit_options()
    assert o["Service.Type"] == ["notify"]
    assert o["Service.NotifyAccess"] == ["all"]
    assert int(o["Service.WatchdogSec"][0]) > 0
    assert o["Service.Restart"] == ["on-failure"]
    assert o["Service.User"] == ["feltbank"]
    assert set(o["Service.SupplementaryGroups"][0].split()) >= {"gpio", "video", "lp"}
    assert o["Service.StateDirectory"] == ["feltbank"]
    # The override file lives in the state folder: the dashboard's Settings page writes it.
    assert "FELTBANK_CONFIG=/var/lib/feltbank/feltbank.toml" in o["Service.Environment"]
    assert o["Service.ProtectSystem"] == ["strict"] and o["Service.NoNewPrivileges"] == ["yes"]
    assert "Service.PrivateDevices" not in o  # it would hide the camera, GPIO and printer
    assert o["Service.ExecStart"] == ["/opt/feltbank/.venv/bin/feltbank run"]


def run_install(root: Path, *args: str) -> str:
    env = {**os.environ, "FELTBANK_ROOT": str(root), "FELTBANK_SKIP_SYSTEM": "1"}
    done = subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_install_upgrade_uninstall_keep_config_and_data(tmp_path):
    root = tmp_path / "root"
    out = run_install(root, "install")
    assert "(skipped) apt-get install -y" in out and "python3-picamera2" in out
    app = root / "opt" / "feltbank"
    assert (app / "controller" / "table.py").is_file() and not (app / ".git").exists()
    assert (root / "etc" / "systemd" / "system" / "feltbank.service").read_text() == \
        UNIT.read_text()
    assert (root / "etc" / "udev" / "rules.d" / "60-feltbank.rules").is_file()
    config = root / "var" / "lib" / "feltbank" / "feltbank.toml"
    config.write_text('[table]\nname = "Fortune Smiles"\n')
    journal = root / "var" / "lib" / "feltbank" / "journal.sqlite3"
    journal.write_bytes(b"the session")
    (app / "stale.py").write_text("# removed by the upgrade")

    out = run_install(root, "upgrade")
    assert "kept" in out and config.read_text() == '[table]\nname = "Fortune Smiles"\n'
    assert journal.read_bytes() == b"the session"
    assert not (app / "stale.py").exists() and (app / "controller" / "table.py").is_file()

    run_install(root, "uninstall")
    assert not app.exists() and config.exists() and journal.exists()
    assert not (root / "etc" / "systemd" / "system" / "feltbank.service").exists()
    run_install(root, "uninstall", "--purge")
    assert not config.exists() and not journal.exists()


def test_upgrade_without_install_refuses(tmp_path):
    env = {**os.environ, "FELTBANK_ROOT": str(tmp_path), "FELTBANK_SKIP_SYSTEM": "1"}
    done = subprocess.run(["bash", str(INSTALL), "upgrade"], capture_output=True, text=True,
                          env=env)
    assert done.returncode == 1 and "not installed" in done.stdout


def test_the_shipped_config_is_valid():
    from controller.config import load_config

    assert load_config(ROOT / "systemd" / "feltbank.toml").overrides == {}
