"""The supervisor: systemd's watchdog is pinged only while every component's heartbeat is fresh.

Each long-lived part of `feltbank run` (the camera reader, the GPIO worker, the dashboard's
server, the table service) registers a heartbeat and beats it from its own thread. A part
that hangs stops beating; the supervisor then stops pinging, and systemd (WatchdogSec=)
restarts the service. The notify protocol is sd_notify(3): one datagram to $NOTIFY_SOCKET.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

log = logging.getLogger(__name__)


def sd_notify(message: str, env: Mapping[str, str] | None = None) -> bool:
    """Send `message` (READY=1, WATCHDOG=1, STATUS=…) to systemd; False when not under it."""
    env = os.environ if env is None else env
    address = env.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]  # the abstract namespace
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
        try:
            sock.sendto(message.encode(), address)
        except OSError as exc:
            log.warning("sd_notify %s failed: %s", message.split("=")[0], exc)
            return False
    return True


def watchdog_interval(env: Mapping[str, str] | None = None) -> float | None:
    """Half of systemd's WatchdogSec (from $WATCHDOG_USEC), or None when there is no watchdog.

    The watchdog is ours when it names this process or its parent: under gunicorn the table
    service runs in the worker, whose parent (the master) is the service's main process.
    """
    env = os.environ if env is None else env
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or (pid and pid not in (str(os.getpid()), str(os.getppid()))):
        return None
    return int(usec) / 2e6


@dataclass
class Heartbeat:
    """One component's heartbeat: call `beat()` at least every `max_age` seconds."""

    name: str
    max_age: float
    clock: Callable[[], float]
    last: float = 0.0

    def __post_init__(self) -> None:
        self.last = self.clock()

    def beat(self) -> None:
        self.last = self.clock()

    def age(self) -> float:
        return self.clock() - self.last


class Supervisor:
    """Holds the heartbeats and pings the watchdog while all of them are fresh."""

    def __init__(self, notify: Callable[[str], bool] = sd_notify,
                 clock: Callable[[], float] = time.monotonic):
        self.notify = notify
        self.clock = clock
        self.heartbeats: dict[str, Heartbeat] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def heartbeat(self, name: str, max_age: float) -> Heartbeat:
        """Register a component; it must beat the returned heartbeat every `max_age` s."""
        with self._lock:
            beat = Heartbeat(name, max_age, self.clock)
            self.heartbeats[name] = beat
            return beat

    def forget(self, name: str) -> None:
        """Stop watching a component (one that could not start and was left out)."""
        with self._lock:
            self.heartbeats.pop(name, None)

    def stale(self) -> list[str]:
        """The components whose heartbeat is too old."""
        with self._lock:
            return [b.name for b in self.heartbeats.values() if b.age() > b.max_age]

    def health(self) -> dict[str, dict]:
        """Each component's heartbeat age and whether it is fresh."""
        with self._lock:
            return {b.name: {"age_s": round(b.age(), 3), "max_age_s": b.max_age,
                             "ok": b.age() <= b.max_age} for b in self.heartbeats.values()}

    def check(self) -> bool:
        """Ping the watchdog if every heartbeat is fresh; True if it pinged."""
        stale = self.stale()
        if stale:
            log.error("no heartbeat from %s: not pinging the watchdog", ", ".join(stale))
            self.notify(f"STATUS=no heartbeat from {', '.join(stale)}")
            return False
        self.notify("WATCHDOG=1")
        return True

    def start(self, interval: float | None = None) -> None:
        """Tell systemd we are ready and ping every `interval` s (default: half WatchdogSec)."""
        self.notify("READY=1")
        interval = interval or watchdog_interval()
        if interval is None:
            return
        self._thread = threading.Thread(target=self._run, args=(interval,), name="supervisor",
                                        daemon=True)
        self._thread.start()

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self.check()

    def stop(self) -> None:
        self.notify("STOPPING=1")
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)


class Ticker:
    """A thread that beats `heartbeat` every `every` seconds while `alive()` is true."""

    def __init__(self, heartbeat: Heartbeat, alive: Callable[[], bool], every: float):
        self.heartbeat = heartbeat
        self.alive = alive
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"beat-{heartbeat.name}",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                if self.alive():
                    self.heartbeat.beat()
            except Exception:
                log.exception("heartbeat check of %s", self.heartbeat.name)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
