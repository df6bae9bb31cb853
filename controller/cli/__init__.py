"""The `feltbank` command line: one module per subcommand group, each with `register()`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from controller.errors import FeltbankError

# Each module defines register(subparsers) and sets `func` (args -> exit code) on its parsers.
SUBCOMMAND_MODULES = [
    "run",
    "config",
    "journal",
    "bench",
    "hardware",
    "games",
    "vision",
    "users",
    "house",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="feltbank",
        description="The automated banker of a live dice and card table.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(f"controller.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except FeltbankError as exc:
        print(f"feltbank: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`feltbank ... | head`): stop quietly, as other tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
