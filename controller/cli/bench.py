"""`feltbank bench …`: speed figures, printed as numbers."""

from __future__ import annotations

import argparse
import importlib
import tempfile
import time
import uuid
from pathlib import Path

from controller.cli.common import add_mode_option, print_json
from controller.games.base import Command
from controller.games.play import accepted
from controller.journal import Journal
from controller.table import Table

#: Other subcommand modules that add their own `bench` sub-subcommands.
BENCH_MODULES = ["games", "vision", "camera", "house"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="measure speed (ledger, ...)",
                                   description="Measure speed and print the figures.")
    sub = parser.add_subparsers(dest="bench_command", metavar="WHAT", required=True)
    ledger = sub.add_parser(
        "ledger", help="journal commits per second and replay speed",
        description="Commands committed per second with synchronous=FULL, and replay speed "
                    "of a journal in commands per second.")
    ledger.add_argument("--commits", type=int, default=1000, metavar="N",
                        help="commands to commit one by one (default 1000)")
    ledger.add_argument("--replay", type=int, default=100_000, metavar="N",
                        help="commands in the journal to replay (default 100000)")
    add_mode_option(ledger, "game mode to play")
    ledger.add_argument("--dir", type=Path, help="folder for the journal files "
                                                 "(default: a temporary folder)")
    ledger.add_argument("--json", action="store_true", help="print the figures as JSON")
    ledger.set_defaults(func=bench_ledger)
    web = sub.add_parser(
        "web", help="dashboard commands per second with many idle event streams open",
        description="Serve a table's dashboard on 127.0.0.1 (web.server), open idle event "
                    "streams as viewers, let writers submit commands over HTTP: commands per "
                    "second, latency percentiles, and the outcomes each stream received (all "
                    "of them, or the figure says how many were missed). Then the money page's "
                    "time at a large journal.")
    web.add_argument("--writers", type=int, default=8, help="threads submitting (default 8)")
    web.add_argument("--commands", type=int, default=100, metavar="N",
                     help="commands per writer (default 100)")
    web.add_argument("--streams", type=int, default=100, help="event streams open (default 100)")
    web.add_argument("--threads", type=int, default=16, help="the server's page threads")
    web.add_argument("--money", type=int, default=100_000, metavar="N",
                     help="commands in the journal for the money page's time (0: skip)")
    add_mode_option(web, "game mode of the table (its commands for the money page)")
    web.add_argument("--json", action="store_true", help="print the figures as JSON")
    web.set_defaults(func=bench_web)
    for name in BENCH_MODULES:
        try:
            module = importlib.import_module(f"controller.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"controller.cli.{name}":
                raise
            continue
        module.register_bench(sub)


def bench_ledger(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        played, _ = accepted(args.mode, args.commits)
        table = Table(Journal(Path(tmp) / "commits.sqlite3"))
        start = time.perf_counter()
        for cmd, _ in played:
            table.submit(Command(cmd.kind, cmd.args, uuid.uuid4().hex))
        commit_s = time.perf_counter() - start
        table.journal.close()

        played, final = accepted(args.mode, args.replay, seed=2)
        path = Path(tmp) / "replay.sqlite3"
        with Journal(path) as journal:
            for i in range(0, len(played), 5000):
                journal.append_many((c, e, "bench", "") for c, e in played[i:i + 5000])
        start = time.perf_counter()
        with Journal(path, readonly=True) as journal:
            state = journal.rebuild()
        replay_s = time.perf_counter() - start
        if state != final:
            raise SystemExit("bench: the replayed state differs from the played one")
        start = time.perf_counter()
        with Journal(path, readonly=True) as journal:
            report = journal.verify()
        verify_s = time.perf_counter() - start
        if not report.ok:
            raise SystemExit(f"bench: verify found problems: {report.problems[:3]}")
    figures = {
        "mode": args.mode,
        "commits": args.commits,
        "commits_per_s": round(args.commits / commit_s, 1),
        "replay_commands": args.replay,
        "replay_s": round(replay_s, 3),
        "replay_commands_per_s": round(args.replay / replay_s),
        "verify_s": round(verify_s, 3),
    }
    if args.json:
        print_json(figures)
    else:
        print(f"commit (synchronous=FULL): {figures['commits_per_s']} commands/s "
              f"({args.commits} commands)")
        print(f"replay: {args.replay} commands in {replay_s:.2f} s = "
              f"{figures['replay_commands_per_s']} commands/s")
        print(f"verify: {args.replay} commands in {verify_s:.2f} s")
    return 0


def bench_web(args: argparse.Namespace) -> int:
    # The dashboard is web/'s; imported only for this benchmark.
    from web.bench import money_page_ms, serve_under_load

    figures = serve_under_load(args.writers, args.commands, args.streams, args.threads,
                               mode=args.mode)
    if args.money:
        figures["money_page_commands"] = args.money
        figures["money_page_ms"] = money_page_ms(args.money, mode=args.mode)
    if args.json:
        print_json(figures)
    else:
        print(f"{figures['writers']} writers, {figures['streams']} idle event streams open: "
              f"{figures['commands_per_s']} commands/s; latency p50 {figures['p50_ms']} ms, "
              f"p99 {figures['p99_ms']} ms")
        print(f"events per stream: {figures['events_min']} to {figures['events_max']} of "
              f"{figures['events_expected']} ({'all' if figures['all_received'] else 'MISSED'})")
        if args.money:
            print(f"/money/ at {args.money} commands: {figures['money_page_ms']} ms (median of 5)")
    return 0 if figures["all_received"] else 1
