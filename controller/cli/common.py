"""What the subcommands share: the --config and --journal options, JSON output."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.config import Config, load_config
from controller.journal import Journal


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", type=Path,
                        help="the TOML override file (default: $FELTBANK_CONFIG, "
                             "~/.config/feltbank/feltbank.toml, /etc/feltbank/feltbank.toml)")


def add_journal_option(parser: argparse.ArgumentParser) -> None:
    add_config_option(parser)
    parser.add_argument("--journal", metavar="FILE", type=Path,
                        help="the journal file (default: journal.path of the configuration)")


def default_mode() -> str:
    """The mode a table opens with by default (table.mode's default): the CLI's default mode
    wherever one is needed, so no command names a mode of its own."""
    from controller.config import SETTINGS

    return next(s.default for s in SETTINGS if s.key == "table.mode")


def add_mode_option(parser: argparse.ArgumentParser, help: str) -> None:
    """--mode NAME: one of the installed modes (default: table.mode's default)."""
    from controller.modes import modes

    parser.add_argument("--mode", default=default_mode(), choices=list(modes()),
                        metavar="MODE", help=f"{help} (default {default_mode()}; one of "
                                             f"{', '.join(modes())})")


def config_of(args: argparse.Namespace) -> Config:
    return load_config(getattr(args, "config", None))


def journal_path(args: argparse.Namespace) -> Path:
    return args.journal or config_of(args).journal_path


def open_journal(args: argparse.Namespace, readonly: bool = True) -> Journal:
    return Journal(journal_path(args), readonly=readonly)


def print_json(value: object) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
