"""`feltbank config show`: the effective configuration."""

from __future__ import annotations

import argparse

from controller.cli.common import add_config_option, config_of, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("config", help="show the effective configuration",
                                   description="Show the effective configuration.")
    sub = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    show = sub.add_parser("show", help="print every key with its value and where it came from",
                          description="Print every key with its value and where it came from: "
                                      "the default or the override file.")
    add_config_option(show)
    show.add_argument("--json", action="store_true", help="print JSON instead of TOML")
    show.set_defaults(func=show_config)


def show_config(args: argparse.Namespace) -> int:
    config = config_of(args)
    if args.json:
        print_json({"path": str(config.path) if config.path else None,
                    "data_dir": str(config.data_dir), "journal": str(config.journal_path),
                    "values": dict(config.values)})
    else:
        print(config.to_toml())
    return 0
