"""`feltbank run`: the table service, rebuilt from its journal."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import uuid

from controller.cli.common import add_config_option, config_of
from controller.cli.hardware import TableDevices
from controller.errors import IllegalCommand
from controller.games.base import Command
from controller.journal import Journal
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
    parser.set_defaults(func=run)


def open_table(config) -> Table:
    """The table of `config`: its journal replayed, opened with the configured mode if new."""
    table = Table(Journal(config.journal_path))
    if table.state is None:
        mode = config["table.mode"]
        table.submit(Command("open", {"mode": mode, "settings": config.game_settings(mode)},
                             f"open-{uuid.uuid4().hex}"), source="config")
    return table


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    logging.basicConfig(level=config["log.level"].upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    table = open_table(config)
    devices = TableDevices(config, table)
    supervisor = Supervisor()
    tickers = [
        Ticker(supervisor.heartbeat("table", max_age=10), table.responsive, every=2),
        Ticker(supervisor.heartbeat("devices", max_age=10), devices.alive, every=2),
    ]
    view = table.view()
    log.info("%s: %s, %d commands in %s; players %s", config["table.name"], view["title"],
             view["seq"], config.journal_path, view["balances"])
    try:
        if args.commands:
            source = sys.stdin if args.commands == "-" else open(args.commands, encoding="utf-8")
            with source:
                for line in source:
                    if line.strip():
                        print(json.dumps(take(table, line), ensure_ascii=False), flush=True)
            return 0
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        supervisor.start()
        stop.wait()
        log.info("stopped")
        return 0
    finally:
        supervisor.stop()
        for ticker in tickers:
            ticker.stop()
        devices.close()


def take(table: Table, line: str) -> dict:
    """Submit one JSON command line; the outcome or the refusal as JSON."""
    try:
        cmd = Command.from_json(json.loads(line))
        return table.submit(cmd, source="console").to_json()
    except json.JSONDecodeError as exc:
        return {"error": f"not a JSON object: {exc.msg}"}
    except IllegalCommand as exc:
        return {"error": str(exc)}
