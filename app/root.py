"""`Feltbank`: the running table made from the configuration, its parts, start, stop, health."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from app.camera import CameraRig, DemoThrower, calibrator_for, start_camera
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
    (when house.url is set). Every part is made here, handed what it needs when it is made.

    `camera=False` runs without a camera (a console, tests); `pin_factory` and `printer` are
    the devices' doubles (gpiozero's mock pins, a test printer); `table` an already opened
    table (tests).
    """

    def __init__(self, config: Config, *, camera: bool = True, pin_factory: Any = None,
                 printer: Any = None, table: Table | None = None) -> None:
        self.config = config
        self.table = table if table is not None else open_table(config)
        self.live = LiveTable(self.table, confirm=config["live.confirm"],
                              min_confidence=config["live.min_confidence"])
        self.supervisor = Supervisor()
        self.camera: CameraRig | None = None
        self.camera_error = ""
        self.shipper: Shipper | None = None
        self._parts: list = []
        try:
            self.shipper = shipper_for(config, self.table)
            if camera:
                self.camera = self._start_camera()
            self.demo = (DemoThrower(self.table, self.camera.demo)
                         if self.camera is not None and self.camera.demo is not None else None)
            self.devices = TableDevices(config, self.table, live=self.live, demo=self.demo,
                                        factory=pin_factory, printer=printer)
            self.tickers = [
                Ticker(self.supervisor.heartbeat("table", max_age=10), self.table.responsive,
                       every=2),
                Ticker(self.supervisor.heartbeat("devices", max_age=10), self.devices.alive,
                       every=2),
            ]
        except BaseException:
            self.stop()
            raise
        self.calibrator = (calibrator_for(config, self.camera) if self.camera is not None
                           else None)
        view = self.table.view()
        log.info("%s: %s, %d commands in %s; players %s", config["table.name"], view["title"],
                 view["seq"], config.journal_path, view["balances"])

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
        """Start watching the parts (the supervisor, systemd's watchdog) and shipping the
        journal to the house."""
        self.supervisor.start()
        if self.shipper is not None:
            self.shipper.start()
        return self

    def stop(self) -> None:
        """Stop every part (idempotent)."""
        shipper = getattr(self, "shipper", None)
        if shipper is not None:
            shipper.stop()
        self.supervisor.stop()
        for ticker in getattr(self, "tickers", ()):
            ticker.stop()
        if self.camera is not None:
            self.camera.stop()
        devices = getattr(self, "devices", None)
        if devices is not None:
            devices.close()

    def __enter__(self) -> Feltbank:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

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
        return LoopCamera(loop, lambda img: jpeg(annotate(img, loop.last_objects)))

    def services(self):
        """What the dashboard is handed: `web.Services`."""
        from web import Services

        return Services(table=self.table, live=self.live, camera=self.web_camera(),
                        calibrator=self.calibrator, health=self.health, demo=self.demo)

    def app(self, **settings: Any):
        """The dashboard of this running table (`settings`: Flask settings over the defaults)."""
        from web import create_app

        return create_app({"FELTBANK": self.config, **settings}, self.services())

    def watch_web(self, host: str, port: int, tls: bool = False) -> None:
        """Beat the "web" heartbeat while the dashboard's own server answers /healthz."""
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

        self.tickers.append(Ticker(self.supervisor.heartbeat("web", max_age=30), answers,
                                   every=5))

    # -- health -----------------------------------------------------------------------------

    def health(self) -> dict:
        """Each part of the running table: the one health report (/healthz, the supervisor)."""
        from controller.storage import storage_health
        from web.health import table_health

        spooler = self.devices.spooler
        printer = ({"ok": spooler.status.ok, **spooler.status.to_json()} if spooler
                   else {"ok": True, "connection": "none"})
        return {
            "journal": table_health(self.table),
            "disk": storage_health(self.table.journal.path.parent),
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
