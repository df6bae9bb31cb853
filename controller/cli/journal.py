"""`feltbank journal verify|export|statements` and `feltbank replay`."""

from __future__ import annotations

import argparse
import sys

from controller import history
from controller.chain import short
from controller.cli.common import (
    add_journal_option,
    config_of,
    journal_path,
    open_journal,
    print_json,
)
from controller.ledger import statements


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("journal", help="check, export and read the journal",
                                   description="Check, export and read the table's journal.")
    sub = parser.add_subparsers(dest="journal_command", metavar="ACTION", required=True)

    verify = sub.add_parser("verify", help="check the hash chain, replay every command and "
                                           "check every balance",
                            description="Check the hash chain (naming the first entry that "
                                        "breaks it); replay every command from scratch; check "
                                        "that the events, ledger legs and balances match the "
                                        "journal.")
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

    restore = sub.add_parser(
        "restore", help="write a lost table's journal back from the house",
        description="Write the table's journal back from the house ledger (house.url, "
                    "house.table, house.token of the configuration, or the options), each "
                    "entry checked against the chain, then verified; only into a new journal.")
    add_journal_option(restore)
    restore.add_argument("--from-house", metavar="URL", required=True, nargs="?", const="",
                         help="the house's address (default: house.url)")
    restore.add_argument("--table", help="the table's id at the house (default: house.table)")
    restore.add_argument("--token", help="the table's token (default: house.token)")
    restore.add_argument("--ca", help="the certificate the house's is checked against "
                                      "(default: house.ca)")
    restore.set_defaults(func=restore_journal)

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
                    "head": report.head, "balances": report.balances})
    else:
        for problem in report.problems:
            print(f"problem: {problem}")
        word = "ok" if report.ok else f"{len(report.problems)} problem(s)"
        chained = f", chain head {short(report.head)}" if report.head else ""
        print(f"{journal.path}: {report.commands} commands replayed, "
              f"{len(report.balances)} accounts checked{chained}: {word}")
    return 0 if report.ok else 1


def restore_journal(args: argparse.Namespace) -> int:
    from controller.outbox import HouseClient, restore_from_house

    config = config_of(args)
    client = HouseClient(args.from_house or config["house.url"],
                         args.table or config["house.table"], args.token or config["house.token"],
                         args.ca or config["house.ca"] or None)
    path = journal_path(args)
    n, head = restore_from_house(client, path)
    print(f"{path}: {n} commands written back from the house; journal verify ok, chain head "
          f"{short(head)}")
    return 0


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
