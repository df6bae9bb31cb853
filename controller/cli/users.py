"""`feltbank users …`: the dashboard's accounts from the console (the way in when the
dashboard locks someone out or a password is lost)."""

from __future__ import annotations

import argparse
import getpass
import sys

from controller.cli.common import add_config_option, config_of
from controller.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("users", help="the dashboard's accounts",
                                   description="List the dashboard's accounts or set a new "
                                               "password from the console.")
    sub = parser.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="every account and its role")
    add_config_option(listing)
    listing.set_defaults(func=list_users)
    reset = sub.add_parser(
        "reset-password", help="set a user's password; every session of theirs ends",
        description="Set a new password for NAME (asked twice, or one line of standard input "
                    "with --password-stdin). Every session of NAME ends, and the failed logins "
                    "counted against the name are forgotten by the running dashboard.")
    add_config_option(reset)
    reset.add_argument("name", help="the user name")
    reset.add_argument("--password-stdin", action="store_true",
                       help="read the new password from the first line of standard input")
    reset.set_defaults(func=reset_password)


def _store(args: argparse.Namespace):
    # The accounts belong to the dashboard (web/); imported here only, when asked for.
    from web.users import UserStore

    path = config_of(args).data_dir / "users.sqlite3"
    if not path.exists():
        raise ConfigError(f"{path}: no accounts yet; the dashboard's first-run wizard makes "
                          "the banker's")
    return UserStore(path)


def list_users(args: argparse.Namespace) -> int:
    with _store(args) as store:
        for user in store.all():
            print(f"{user.name}\t{user.role}")
    return 0


def reset_password(args: argparse.Namespace) -> int:
    from web.users import UserError

    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = getpass.getpass(f"new password for {args.name}: ")
        if getpass.getpass("again: ") != password:
            raise ConfigError("the two passwords differ; nothing was changed")
    with _store(args) as store:
        try:
            user = store.set_password(args.name, password)
        except UserError as exc:
            raise ConfigError(f"{exc}; nothing was changed") from None
    print(f"{user.name}: new password set; every session of {user.name} has ended")
    return 0
