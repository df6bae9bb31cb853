"""The supervisor: no heartbeat from a component, no watchdog ping, and systemd restarts us."""

from __future__ import annotations

import os
import socket
import threading

from controller.journal import Journal
from controller.supervisor import Supervisor, Ticker, sd_notify, watchdog_interval
from controller.table import Table
from tests.waiting import wait_for


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_stale_heartbeat_stops_the_pings():
    sent, clock = [], Clock()
    sup = Supervisor(notify=lambda m: sent.append(m) or True, clock=clock)
    camera = sup.heartbeat("camera", max_age=2.0)
    web = sup.heartbeat("web", max_age=5.0)
    assert sup.check() and sent == ["WATCHDOG=1"]
    clock.now += 3
    web.beat()
    assert not sup.check()
    assert sent[-1] == "STATUS=no heartbeat from camera"
    assert sup.health()["camera"] == {"age_s": 3.0, "max_age_s": 2.0, "ok": False}
    camera.beat()
    assert sup.check() and sent[-1] == "WATCHDOG=1"


def test_sd_notify_speaks_the_systemd_protocol(tmp_path):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        assert sd_notify("READY=1", {"NOTIFY_SOCKET": path})
        assert server.recv(100) == b"READY=1"
    assert not sd_notify("READY=1", {})
    abstract = f"@feltbank-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind("\0" + abstract[1:])
        assert sd_notify("WATCHDOG=1", {"NOTIFY_SOCKET": abstract})
        assert server.recv(100) == b"WATCHDOG=1"


def test_watchdog_interval_is_half_the_watchdog_time():
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    # Another process's watchdog (not 1: a test run started in the background has init as
    # its parent).
    other = str(max(os.getpid(), os.getppid()) + 1)
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": other}) is None
    # Under gunicorn the worker pings for the master, the service's main process.
    assert watchdog_interval({"WATCHDOG_USEC": "30000000",
                              "WATCHDOG_PID": str(os.getppid())}) == 15.0
    assert watchdog_interval({}) is None


def test_pings_stop_when_a_component_hangs(tmp_path):
    """A real table whose lock gets stuck: its ticker stops beating, the pings stop."""
    table = Table(Journal(tmp_path / "j.sqlite3"))
    sent: list[str] = []
    lock = threading.Lock()

    def notify(message):
        with lock:
            sent.append(message)
        return True

    sup = Supervisor(notify=notify)
    ticker = Ticker(sup.heartbeat("table", max_age=0.3), lambda: table.responsive(0.05), 0.05)
    sup.start(interval=0.05)

    def seen(check) -> bool:
        with lock:
            return check(list(sent))

    assert wait_for(lambda: seen(lambda s: s[:1] == ["READY=1"] and s.count("WATCHDOG=1") >= 3))
    table._lock.acquire()  # the table service hangs
    try:
        # The heartbeat goes stale: the supervisor says why and stops pinging.
        assert wait_for(lambda: seen(lambda s: any("no heartbeat from table" in m for m in s)))
        with lock:
            sent.clear()
        assert wait_for(lambda: seen(lambda s: len(s) >= 3))
        with lock:
            assert "WATCHDOG=1" not in sent, sent
    finally:
        table._lock.release()
    assert wait_for(lambda: seen(lambda s: s[-1:] == ["WATCHDOG=1"]))  # the pings resume
    ticker.stop()
    sup.stop()
    assert sent[-1] == "STOPPING=1"
