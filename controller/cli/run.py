"""`feltbank run`: the table service, rebuilt from its journal, with the banker's dashboard.

Production serves the dashboard with gunicorn: one gthread worker (the table, its journal and
the camera live in one process) with `web.threads` threads, enough for the live streams. The
table is opened inside the worker, after the fork, so no SQLite connection crosses a fork.
`--dev` uses Flask's own server instead, without the reloader (it would open the camera twice).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import uuid
from contextlib import contextmanager
from dataclasses import dataclass

from controller.cli.camera import CameraRig, DemoThrower, calibrator_for, start_camera
from controller.cli.common import add_config_option, config_of
from controller.cli.hardware import TableDevices
from controller.errors import ConfigError, IllegalCommand
from controller.games.base import Command
from controller.journal import Journal
from controller.live import LiveTable
from controller.outbox import Shipper, shipper_for
from controller.supervisor import Supervisor, Ticker
from controller.table import Table

log = logging.getLogger("feltbank")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run", help="run the table service",
        description="Run the table: rebuild its state from the journal, open it with the "
                    "configured mode if it is new, and take commands until stopped.")
    add_config_option(parser)
    parser.add_argument("--commands", metavar="FILE",
                        help="take commands from FILE ('-': standard input), one JSON object "
                             "per line as in a hand history; print each result as a JSON line; "
                             "stop at the end of the file")
    web = parser.add_mutually_exclusive_group()
    web.add_argument("--dev", action="store_true",
                     help="serve the dashboard with Flask's development server (no reloader) "
                          "instead of gunicorn")
    web.add_argument("--no-web", action="store_true",
                     help="run the table without the dashboard; stop with Ctrl-C")
    parser.add_argument("--host", help="the dashboard's address (default: web.host)")
    parser.add_argument("--port", type=int, help="the dashboard's port (default: web.port)")
    parser.set_defaults(func=run)


def open_table(config) -> Table:
    """The table of `config`: its journal replayed, opened with the configured mode if new."""
    table = Table(Journal(config.journal_path))
    if table.state is None:
        mode = config["table.mode"]
        table.submit(Command("open", {"mode": mode, "settings": config.game_settings(mode)},
                             f"open-{uuid.uuid4().hex}"), source="config")
    return table


@contextmanager
def table_service(config, camera: bool = True):
    """The running table: its journal, the camera's door (live), the devices, the camera,
    the supervisor."""
    table = open_table(config)
    live = LiveTable(table, confirm=config["live.confirm"],
                     min_confidence=config["live.min_confidence"])
    devices = TableDevices(config, table, live=live)
    supervisor = Supervisor()
    tickers = [
        Ticker(supervisor.heartbeat("table", max_age=10), table.responsive, every=2),
        Ticker(supervisor.heartbeat("devices", max_age=10), devices.alive, every=2),
    ]
    rig = demo = None
    camera_error = ""
    if camera:
        try:
            rig = start_camera(config, table, live,
                               heartbeat=supervisor.heartbeat("camera", max_age=15))
        except ConfigError as exc:
            # A bad profile must not stop the table: rolls are entered by hand meanwhile.
            camera_error = str(exc)
            supervisor.forget("camera")
            log.error("%s; the table runs without its camera", exc)
        if rig is not None and rig.demo is not None:
            demo = devices.demo = DemoThrower(table, rig.demo)
    view = table.view()
    log.info("%s: %s, %d commands in %s; players %s", config["table.name"], view["title"],
             view["seq"], config.journal_path, view["balances"])
    shipper = shipper_for(config, table)
    try:
        yield Service(table, live, supervisor, devices, tickers, rig, demo, camera_error,
                      shipper)
    finally:
        if shipper is not None:
            shipper.stop()
        supervisor.stop()
        for ticker in tickers:
            ticker.stop()
        if rig is not None:
            rig.stop()
        devices.close()


@dataclass(frozen=True)
class Service:
    table: Table
    live: LiveTable
    supervisor: Supervisor
    devices: TableDevices
    tickers: list[Ticker]
    camera: CameraRig | None = None
    demo: DemoThrower | None = None
    camera_error: str = ""
    shipper: Shipper | None = None

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

    def app(self, config):
        """The dashboard of this running table."""
        from web import create_app

        calibrator = calibrator_for(config, self.camera) if self.camera is not None else None
        return create_app({"FELTBANK": config}, table=self.table, live=self.live,
                          camera=self.web_camera(), health=self.health, demo=self.demo,
                          calibrator=calibrator)

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

    def health(self) -> dict:
        """Each part of the running table, for /healthz."""
        from web.health import table_health

        spooler = self.devices.spooler
        printer = ({"ok": spooler.status.ok, **spooler.status.to_json()} if spooler
                   else {"ok": True, "connection": "none"})
        return {
            "journal": table_health(self.table),
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


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    logging.basicConfig(level=config["log.level"].upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    host = args.host or config["web.host"]
    port = args.port or config["web.port"]
    if not (args.commands or args.no_web or args.dev):
        # gunicorn: the whole table service runs in its worker, after the fork.
        return serve(config, host, port)
    with table_service(config, camera=not args.commands) as service:
        if args.commands:
            source = sys.stdin if args.commands == "-" else open(args.commands, encoding="utf-8")
            with source:
                for line in source:
                    if line.strip():
                        print(json.dumps(take(service.table, line), ensure_ascii=False),
                              flush=True)
            return 0
        if args.dev:
            service.watch_web(host, port, tls=tls_files(config) is not None)
            service.supervisor.start()
            return serve_dev(config, service, host, port)
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        service.supervisor.start()
        stop.wait()
        log.info("stopped")
        return 0


def take(table: Table, line: str) -> dict:
    """Submit one JSON command line; the outcome or the refusal as JSON."""
    try:
        cmd = Command.from_json(json.loads(line))
        return table.submit(cmd, source="console").to_json()
    except json.JSONDecodeError as exc:
        return {"error": f"not a JSON object: {exc.msg}"}
    except IllegalCommand as exc:
        return {"error": str(exc)}


def tls_files(config) -> tuple[str, str] | None:
    """The certificate and key to serve https with, or None for plain http."""
    cert, key = config["web.certificate"], config["web.private_key"]
    if bool(cert) != bool(key):
        raise ConfigError("web.certificate and web.private_key go together: set both or neither")
    return (cert, key) if cert else None


def serve_dev(config, service: Service, host: str, port: int) -> int:
    """The dashboard on Flask's development server, in this process, without the reloader."""
    app = service.app(config)
    log.info("dashboard (development server) on %s:%d", host, port)
    app.run(host=host, port=port, threaded=True, use_reloader=False, debug=False,
            ssl_context=tls_files(config))
    return 0


def gunicorn_options(config, host: str, port: int) -> dict:
    """gunicorn's settings: one gthread worker, `web.threads` threads, no timeout for streams."""
    options = {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": 1,
        "worker_class": "gthread",
        "threads": config["web.threads"],
        # Live streams stay open; gthread's heartbeat keeps the worker alive meanwhile.
        "timeout": 60,
        "graceful_timeout": 10,
        "keepalive": 5,
        "preload_app": False,
        "accesslog": "-" if config["log.level"] == "debug" else None,
        "errorlog": "-",
        "loglevel": config["log.level"],
        "proc_name": "feltbank",
    }
    tls = tls_files(config)
    if tls:
        options["certfile"], options["keyfile"] = tls
    return options


def serve(config, host: str, port: int) -> int:
    """The dashboard on gunicorn; the table is opened in the worker."""
    try:
        from gunicorn.app.base import BaseApplication
    except ImportError:
        raise ConfigError("gunicorn is not installed: pip install gunicorn, or run with --dev"
                          ) from None

    class Dashboard(BaseApplication):
        def load_config(self):
            for key, value in gunicorn_options(config, host, port).items():
                if value is not None:
                    self.cfg.set(key, value)

        def load(self):
            # In the worker: the service lives as long as the worker, closed when it exits.
            service_cm = table_service(config)
            service = service_cm.__enter__()
            self.cfg.set("worker_exit", lambda server, worker: service_cm.__exit__(None, None,
                                                                                  None))
            service.watch_web(host, port, tls=tls_files(config) is not None)
            service.supervisor.start()
            return service.app(config)

    log.info("dashboard on %s:%d (gunicorn, 1 gthread worker, %d threads)", host, port,
             config["web.threads"])
    Dashboard().run()
    return 0
