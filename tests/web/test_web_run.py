"""`feltbank run` serves the dashboard: hypercorn (web.server) or Flask's server (--dev)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from controller.cli.run import tls_files
from controller.config import load_config
from controller.errors import ConfigError
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_server_closes_idle_and_half_sent_requests():
    from web.server import hypercorn_config

    config = hypercorn_config("0.0.0.0", 8080)
    assert config.bind == ["0.0.0.0:8080"] and config.keep_alive_timeout == 5.0
    assert config.h11_max_incomplete_size == 16 * 1024 and config.certfile is None
    assert hypercorn_config("::", 80).bind == ["[::]:80"]


def test_tls_needs_both_files(tmp_path):
    path = tmp_path / "feltbank.toml"
    path.write_text('[web]\ncertificate = "/x/cert.pem"\n')
    with pytest.raises(ConfigError, match="go together"):
        tls_files(load_config(path))
    path.write_text('[web]\ncertificate = "/x/cert.pem"\nprivate_key = "/x/key.pem"\n')
    config = load_config(path)
    assert tls_files(config) == ("/x/cert.pem", "/x/key.pem")
    from web.server import hypercorn_config

    assert hypercorn_config("0.0.0.0", 8443, tls_files(config)).certfile == "/x/cert.pem"


def test_web_settings_are_validated(tmp_path):
    path = tmp_path / "feltbank.toml"
    path.write_text("[web]\nport = 70000\n")
    with pytest.raises(ConfigError, match="web.port"):
        load_config(path)
    path.write_text('[web]\nlanguage = "de"\n')
    with pytest.raises(ConfigError, match="web.language"):
        load_config(path)


@pytest.mark.slow
@pytest.mark.parametrize("server", ["hypercorn", "dev"])
def test_feltbank_run_serves_the_wizard(tmp_path, server):
    port = free_port()
    # systemd's side of Type=notify and WatchdogSec=: a datagram socket the service talks to.
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(10)
    env = {**os.environ, "FELTBANK_DATA": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "1000000"}
    main = "import sys; from controller.cli import main; sys.exit(main())"
    argv = [sys.executable, "-c", main, "run", "--host", "127.0.0.1", "--port",
            str(port)] + (["--dev"] if server == "dev" else [])
    log = tmp_path / "server.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        pages = []

        def started() -> bool:
            if proc.poll() is not None:
                return True  # it ended: nothing to wait for
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/setup", timeout=5) as r:
                    pages.append(r.read().decode())
                return True
            except OSError:  # not listening yet, or the worker still opening the table
                return False

        if not (wait_for(started, every=0.2) and pages):
            pytest.fail(f"the server did not start: {log.read_text()}")
        page = pages[0]
        assert "Welcome to feltbank" in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
            health = json.loads(r.read())
        # Without a login: ok or fault per part, nothing more.
        assert health == {"ok": True, "journal": {"ok": True}, "disk": {"ok": True},
                          "printer": {"ok": True},
                          "camera": {"ok": True}, "recognizer": {"ok": True},
                          "heartbeats": {"ok": True}}
        # READY=1, then the supervisor's watchdog pings.
        messages = [notify.recv(200) for _ in range(4)]
        assert any(m.startswith(b"READY=1") for m in messages)
        assert b"WATCHDOG=1" in messages
        assert (tmp_path / "data" / "journal.sqlite3").exists()
        assert (tmp_path / "data" / "users.sqlite3").exists()
        if server == "hypercorn":
            assert "hypercorn" in log.read_text()
    finally:
        notify.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
