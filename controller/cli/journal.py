"""`feltbank journal verify|export|statements` and `feltbank replay`."""

from __future__ import annotations

import argparse
import sys

from controller import history
from controller.cli.common import add_journal_option, open_journal, print_json
from controller.ledger import statements


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("journal", help="check, export and read the journal",
                                   description="Check, export and read the table's journal.")
    sub = parser.add_subparsers(dest="journal_command", metavar="ACTION", required=True)

    verify = sub.add_parser("verify", help="replay every command and check every balance",
                            description="Replay every command from scratch; check that the "
                                        "events, ledger legs and balances match the journal.")
    add_journal_option(verify)
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(func=verify_journal)

    export = sub.add_parser("export", help="write the session as a hand history",
                            description="Write the session as a readable hand history: one "
                                        "command per line, with its events.")
    add_journal_option(export)
    export.add_argument("--format", choices=["jsonl"], default="jsonl",
                        help="output format (jsonl: one JSON object per line)")
    export.add_argument("--out", metavar="FILE", help="write there instead of standard output")
    export.set_defaults(func=export_journal)

    stmts = sub.add_parser("statements", help="each player's session statement",
                           description="Each player's session statement: buy-in, cashed out, "
                                       "staked, won, lost, net.")
    add_journal_option(stmts)
    stmts.add_argument("player", nargs="?", help="only this player")
    stmts.add_argument("--json", action="store_true", help="print the statements as JSON")
    stmts.set_defaults(func=show_statements)

    replay = subparsers.add_parser(
        "replay", help="run a hand history through the engines, print the final balances",
        description="Run a hand history (recorded or hand-written, see docs/hand-history.md) "
                    "through the engines and print the final balances as JSON. Nothing is "
                    "written.")
    replay.add_argument("file", metavar="FILE.jsonl", help="the hand history")
    replay.set_defaults(func=replay_history)


def verify_journal(args: argparse.Namespace) -> int:
    with open_journal(args) as journal:
        report = journal.verify()
    if args.json:
        print_json({"ok": report.ok, "commands": report.commands, "problems": report.problems,
                    "balances": report.balances})
    else:
        for problem in report.problems:
            print(f"problem: {problem}")
        word = "ok" if report.ok else f"{len(report.problems)} problem(s)"
        print(f"{journal.path}: {report.commands} commands replayed, "
              f"{len(report.balances)} accounts checked: {word}")
    return 0 if report.ok else 1


def export_journal(args: argparse.Namespace) -> int:
    with open_journal(args) as journal, journal.snapshot():
        if args.out:
            with open(args.out, "w", encoding="utf-8") as out:
                n = history.export(journal, out)
            print(f"wrote {n} commands to {args.out}", file=sys.stderr)
        else:
            history.export(journal, sys.stdout)
    return 0


def show_statements(args: argparse.Namespace) -> int:
    with open_journal(args) as journal, journal.snapshot():
        found = statements(journal.entries())
    if args.player:
        if args.player not in found:
            print(f"feltbank: error: {args.player} has no statement in this journal",
                  file=sys.stderr)
            return 1
        found = {args.player: found[args.player]}
    rows = [s.to_json() for _, s in sorted(found.items())]
    if args.json:
        print_json(rows)
    else:
        print(statements_table(rows))
    return 0


#: The statement's columns, as the table for people heads them.
STATEMENT_COLUMNS = (("player", "player"), ("buy_in", "bought in"),
                     ("cashed_out", "cashed out"), ("staked", "staked"), ("won", "won"),
                     ("lost", "lost"), ("pots_paid", "pots paid"), ("pots_won", "pots won"),
                     ("fees", "fees"), ("net", "net"))


def statements_table(rows: list[dict]) -> str:
    """Statements as a table for people: a player a line, coins right-aligned."""
    if not rows:
        return "no statements in this journal"
    cells = [[head for _, head in STATEMENT_COLUMNS]]
    cells += [[str(row[key]) for key, _ in STATEMENT_COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(STATEMENT_COLUMNS))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(line, widths, strict=True))).rstrip()
             for line in cells]
    return "\n".join(lines)


def replay_history(args: argparse.Namespace) -> int:
    state = history.replay(args.file)
    print_json(history.balances(state))
    return 0
