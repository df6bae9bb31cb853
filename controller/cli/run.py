"""`feltbank run`: the table service, rebuilt from its journal, with the banker's dashboard.

Argument parsing and the server adapter only: the running table is `app.Feltbank`.

Production serves the dashboard with web.server (hypercorn, in this process: the table, its
journal and the camera live here): idle connections and event streams wait on an event loop,
pages are built in `web.threads` threads. `--dev` uses Flask's own server instead (a thread
per connection), without the reloader (it would open the camera twice).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from typing import BinaryIO

from app import Feltbank
from controller.cli.common import add_config_option, config_of
from controller.errors import ConfigError, IllegalCommand, JournalError
from controller.games.base import Command
from controller.ownership import JournalOwner
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
                          "instead of hypercorn")
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
    # One process owns the table's journal, for its whole life (a second one is refused
    # with the holder's pid); released by the kernel when this process ends.
    owner = JournalOwner(config.journal_path).acquire()  # noqa: F841 - held till exit
    if not (args.commands or args.no_web or args.dev):
        return serve(config, host, port)
    with Feltbank(config, camera=not args.commands) as root:
        if args.commands:
            source = sys.stdin.buffer if args.commands == "-" else open(args.commands, "rb")
            with source:
                for answer in take_lines(root.table, source):
                    print(json.dumps(answer, ensure_ascii=False), flush=True)
            return 0
        if args.dev:
            root.watch_web(host, port, tls=tls_files(config) is not None)
            return serve_dev(config, root, host, port)
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        stop.wait()
        log.info("stopped")
        return 0


#: The longest command line the console takes (a command is a few hundred bytes).
MAX_LINE = 64 * 1024


def take_lines(table: Table, source: BinaryIO) -> Iterator[dict]:
    """Each non-blank line of `source` submitted; its outcome or refusal as JSON. No line,
    however bad (too long, not UTF-8, not JSON...), ends the stream."""
    while line := source.readline(MAX_LINE + 1):
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while (rest := source.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                pass
            yield {"error": f"the line is longer than {MAX_LINE} bytes; one command a line"}
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield {"error": f"the line is not UTF-8 text: {exc.reason} at byte {exc.start}"}
            continue
        if text.strip():
            yield take(table, text)


def take(table: Table, line: str) -> dict:
    """Submit one JSON command line; the outcome or the refusal as JSON."""
    try:
        cmd, _ = Command.parse(line)
        return table.submit(cmd, source="console").to_json()
    except IllegalCommand as exc:
        return {"error": str(exc)}
    except JournalError as exc:
        # The disk refused it (full, read-only): this command did not happen; the next may.
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


def serve(config, host: str, port: int) -> int:
    """The table service and its dashboard in this process, served by web.server (hypercorn:
    idle connections and event streams on an event loop, pages in `web.threads` threads)."""
    try:
        from web.server import serve as serve_dashboard
    except ImportError as exc:
        raise ConfigError(f"the dashboard's server is not installed ({exc.name}): pip install "
                          "hypercorn, or run with --dev") from None
    with Feltbank(config) as root:  # started here, stopped at the end
        tls = tls_files(config)
        root.watch_web(host, port, tls=tls is not None)
        serve_dashboard(root.app(), host, port, threads=config["web.threads"], tls=tls)
    log.info("stopped")
    return 0
