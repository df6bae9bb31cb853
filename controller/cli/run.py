"""`feltbank run`: the table service, rebuilt from its journal, with the banker's dashboard.

Argument parsing and the server adapter only: the running table is `app.Feltbank`.

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

from app import Feltbank
from controller.cli.common import add_config_option, config_of
from controller.errors import ConfigError, IllegalCommand
from controller.games.base import Command
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


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    logging.basicConfig(level=config["log.level"].upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    host = args.host or config["web.host"]
    port = args.port or config["web.port"]
    if not (args.commands or args.no_web or args.dev):
        # gunicorn: the whole table service runs in its worker, after the fork.
        return serve(config, host, port)
    with Feltbank(config, camera=not args.commands) as root:
        if args.commands:
            source = sys.stdin if args.commands == "-" else open(args.commands, encoding="utf-8")
            with source:
                for line in source:
                    if line.strip():
                        print(json.dumps(take(root.table, line), ensure_ascii=False),
                              flush=True)
            return 0
        if args.dev:
            root.watch_web(host, port, tls=tls_files(config) is not None)
            root.start()
            return serve_dev(config, root, host, port)
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        root.start()
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


def serve_dev(config, root: Feltbank, host: str, port: int) -> int:
    """The dashboard on Flask's development server, in this process, without the reloader."""
    app = root.app()
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
            # In the worker: the table lives as long as the worker, stopped when it exits.
            root = Feltbank(config)
            self.cfg.set("worker_exit", lambda server, worker: root.stop())
            root.watch_web(host, port, tls=tls_files(config) is not None)
            root.start()
            return root.app()

    log.info("dashboard on %s:%d (gunicorn, 1 gthread worker, %d threads)", host, port,
             config["web.threads"])
    Dashboard().run()
    return 0
