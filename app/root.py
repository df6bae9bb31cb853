"""`Feltbank`: the running table made from the configuration, its parts, start, stop, health."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from typing import Any

from app.camera import CameraRig, DemoThrower, calibrator_for, reading_confidence, start_camera
from app.devices import TableDevices
from controller.config import Config
from controller.errors import ConfigError
from controller.games.base import Command
from controller.journal import Journal
from controller.live import LiveTable
from controller.outbox import Shipper, shipper_for
from controller.supervisor import Supervisor, Ticker
from controller.table import Table

log = logging.getLogger("feltbank")


def open_table(config: Config) -> Table:
    """The table of `config`: its journal replayed, opened with the configured mode if new."""
    table = Table(Journal(config.journal_path))
    if table.state is None:
        mode = config["table.mode"]
        table.submit(Command("open", {"mode": mode, "settings": config.game_settings(mode)},
                             f"open-{uuid.uuid4().hex}"), source="config")
    return table


class Feltbank:
    """A running table: the table service rebuilt from its journal, the camera's door to it
    (the live table), the supervisor and its heartbeats, the devices (buttons, lights,
    printer), the camera rig, the demo table and the outbox's shipper to the house ledger
    (when house.url is set). Every part is made in `start()`, handed what it needs when it
    is made; making a Feltbank only keeps its configuration (no file, no thread, no device).

    `camera=False` runs without a camera (a console, tests); `pin_factory` and `printer` are
    the devices' doubles (gpiozero's mock pins, a test printer); `table` an already opened
    table (tests). `start()` and `stop()` may be called again: the second call does nothing;
    a stopped Feltbank does not start again (make a new one). `with Feltbank(c) as root:`
    starts it and stops it at the end.
    """

    def __init__(self, config: Config, *, camera: bool = True, pin_factory: Any = None,
                 printer: Any = None, table: Table | None = None) -> None:
        self.config = config
        self.supervisor = Supervisor()
        self._want_camera = camera
        self._pin_factory = pin_factory
        self._printer = printer
        self._given_table = table
        self._lock = threading.Lock()
        self._state = "made"  # made -> started -> stopped
        self._web_checks: list[tuple[Callable[[], bool], float]] = []
        # The parts, made by start().
        self.table: Table | None = None
        self.live: LiveTable | None = None
        self.camera: CameraRig | None = None
        self.camera_error = ""
        self.shipper: Shipper | None = None
        self.demo: DemoThrower | None = None
        self.devices: TableDevices | None = None
        self.tickers: list[Ticker] = []
        self.calibrator = None

    @property
    def started(self) -> bool:
        return self._state == "started"

    def _make_parts(self) -> None:
        config = self.config
        self.table = (self._given_table if self._given_table is not None
                      else open_table(config))
        self.live = LiveTable(self.table, confirm=config["live.confirm"],
                              min_confidence=reading_confidence(config))
        self.shipper = shipper_for(config, self.table)
        if self._want_camera:
            self.camera = self._start_camera()
        self.demo = (DemoThrower(self.table, self.camera.demo)
                     if self.camera is not None and self.camera.demo is not None else None)
        self.devices = TableDevices(config, self.table, live=self.live, demo=self.demo,
                                    factory=self._pin_factory, printer=self._printer)
        self.tickers = [
            Ticker(self.supervisor.heartbeat("table", max_age=10), self.table.responsive,
                   every=2),
            Ticker(self.supervisor.heartbeat("devices", max_age=10), self.devices.alive,
                   every=2),
        ]
        for answers, every in self._web_checks:
            self._watch(answers, every)
        self.calibrator = (calibrator_for(config, self.camera) if self.camera is not None
                           else None)

    def _start_camera(self) -> CameraRig | None:
        try:
            return start_camera(self.config, self.table, self.live,
                                heartbeat=self.supervisor.heartbeat("camera", max_age=15))
        except ConfigError as exc:
            # A bad profile must not stop the table: rolls are entered by hand meanwhile.
            self.camera_error = str(exc)
            self.supervisor.forget("camera")
            log.error("%s; the table runs without its camera", exc)
            return None

    # -- start and stop ---------------------------------------------------------------------

    def start(self) -> Feltbank:
        """Make and start every part: the table (its journal replayed, opened with the
        configured mode if new), the camera, the devices, the heartbeats and the supervisor
        (systemd's watchdog), the shipping of the journal to the house. Again: nothing."""
        with self._lock:
            if self._state == "started":
                return self
            if self._state == "stopped":
                raise RuntimeError("this Feltbank was stopped; make a new one to start again")
            self._state = "started"
            try:
                self._make_parts()
                self.supervisor.start()
                if self.shipper is not None:
                    self.shipper.start()
            except BaseException:
                self._stop_parts()
                self._state = "stopped"
                raise
        view = self.table.view()
        log.info("%s: %s, %d commands in %s; players %s", self.config["table.name"],
                 view["title"], view["seq"], self.config.journal_path, view["balances"])
        return self

    def stop(self) -> None:
        """Stop every part that was started (again: nothing)."""
        with self._lock:
            if self._state == "started":
                self._stop_parts()
            self._state = "stopped"

    def _stop_parts(self) -> None:
        if self.shipper is not None:
            self.shipper.stop()
        self.supervisor.stop()
        for ticker in self.tickers:
            ticker.stop()
        if self.camera is not None:
            self.camera.stop()
        if self.devices is not None:
            self.devices.close()

    def __enter__(self) -> Feltbank:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _started_table(self) -> Table:
        if self.table is None:
            raise RuntimeError("the running table is not started: call start() first")
        return self.table

    # -- the dashboard ----------------------------------------------------------------------

    def web_camera(self):
        """The camera as the dashboard sees it (newest frame as JPEG, status), or None."""
        if self.camera is None:
            return None
        from vision.screen import annotate, jpeg
        from web.camera import LoopCamera

        loop = self.camera.loop
        # The live picture carries the last reading's outlines, labels and confidences, at
        # the frame's own size: the dashboard draws the waiting reading in frame pixels.
        return LoopCamera(loop, lambda img: jpeg(annotate(img, loop.last_objects)),
                          reads=self.camera.reads)

    def services(self):
        """What the dashboard is handed: `web.Services`."""
        from web import Services

        return Services(table=self._started_table(), live=self.live, camera=self.web_camera(),
                        calibrator=self.calibrator, health=self.health, demo=self.demo)

    def app(self, **settings: Any):
        """The dashboard of this running table (`settings`: Flask settings over the defaults)."""
        from web import create_app

        return create_app({"FELTBANK": self.config, **settings}, self.services())

    def watch_web(self, host: str, port: int, tls: bool = False) -> None:
        """Beat the "web" heartbeat while the dashboard's own server answers /healthz (from
        start(), or at once if started)."""
        scheme = "https" if tls else "http"
        target = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
        url = f"{scheme}://{target}:{port}/healthz"

        def answers() -> bool:
            import ssl
            import urllib.error
            import urllib.request

            context = ssl._create_unverified_context() if tls else None  # its own cert
            try:
                with urllib.request.urlopen(url, timeout=5, context=context) as response:
                    return response.status in (200, 503)  # it answered: the threads serve
            except urllib.error.HTTPError as exc:
                return exc.code == 503
            except OSError:
                return False

        with self._lock:
            self._web_checks.append((answers, 5))
            if self._state == "started":
                self._watch(answers, 5)

    def _watch(self, answers: Callable[[], bool], every: float) -> None:
        self.tickers.append(Ticker(self.supervisor.heartbeat("web", max_age=30), answers,
                                   every=every))

    # -- health -----------------------------------------------------------------------------

    def health(self) -> dict:
        """Each part of the running table: the one health report (/healthz, the supervisor)."""
        from web.health import table_parts

        if not self.started:
            return {"table": {"ok": False, "reason": f"the running table is {self._state}, "
                                                     "not started"}}
        spooler = self.devices.spooler
        printer = ({"ok": spooler.status.ok, **spooler.status.to_json()} if spooler
                   else {"ok": True, "connection": "none"})
        return {
            **table_parts(self.table),
            "printer": printer,
            "camera": (self.camera.health() if self.camera is not None
                       else {"ok": False, "camera": "failed", "reason": self.camera_error}
                       if self.camera_error
                       else {"ok": True, "camera": "none", "reason": "camera.source = none"}),
            "recognizer": (self.camera.recognizer_health() if self.camera is not None
                           else {"ok": True, "profile": None}),
            "heartbeats": {"ok": not self.supervisor.stale(),
                           "parts": self.supervisor.health()},
            **({"house": self.shipper.status} if self.shipper is not None else {}),
        }
