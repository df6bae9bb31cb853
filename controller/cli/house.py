"""`feltbank house …`: the house ledger's service (on the house's machine), and its bench.

    feltbank house serve --local --cert C --key K          # its own PostgreSQL server
    feltbank house serve --db postgresql://... --cert C --key K
    feltbank house add-table t1 --name "Table 1"           # prints the table's token
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from controller.cli.common import config_of, print_json
from controller.errors import ConfigError

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "house", help="the house ledger: every table's journal in PostgreSQL",
        description="The house ledger: a service on the house's machine that keeps every "
                    "table's journal in PostgreSQL, checked against each table's hash chain, "
                    "with the house's dashboard.")
    sub = parser.add_subparsers(dest="house_command", metavar="ACTION", required=True)

    serve = sub.add_parser("serve", help="run the house's service and dashboard",
                           description="Migrate the database, then serve the tables' API and "
                                       "the house's dashboard (hypercorn, HTTPS).")
    _db_options(serve)
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default all)")
    serve.add_argument("--port", type=int, default=8443, help="TCP port (default 8443)")
    serve.add_argument("--cert", type=Path, help="TLS certificate (PEM)")
    serve.add_argument("--key", type=Path, help="TLS private key (PEM)")
    serve.add_argument("--http", action="store_true",
                       help="serve plain http (tokens travel in clear: a test bench only)")
    serve.add_argument("--threads", type=int, default=16, help="server threads (default 16)")
    serve.set_defaults(func=serve_house)

    add = sub.add_parser("add-table", help="register a table and print its token",
                         description="Register a table; its token is printed once (the house "
                                     "keeps only its hash): put it in the table's house.token.")
    _db_options(add)
    add.add_argument("table", help="the table's id: lower-case letters, digits, - or _")
    add.add_argument("--name", default="", help="the table's name on the dashboard")
    add.set_defaults(func=add_table)

    token = sub.add_parser("new-token", help="replace a table's token (the old one stops)")
    _db_options(token)
    token.add_argument("table")
    token.set_defaults(func=new_token)

    tables = sub.add_parser("tables", help="every table the house knows, with its head")
    _db_options(tables)
    tables.add_argument("--json", action="store_true")
    tables.set_defaults(func=list_tables)

    migrate = sub.add_parser("migrate", help="bring the house's database schema up to date")
    _db_options(migrate)
    migrate.set_defaults(func=migrate_db)


def _db_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--db", metavar="URL", default=os.environ.get("FELTBANK_HOUSE_DB"),
                       help="the PostgreSQL database (libpq URL; default $FELTBANK_HOUSE_DB)")
    group.add_argument("--local", action="store_true",
                       help="the house's own PostgreSQL server (in --pg), made and started "
                            "with Debian's tools")
    parser.add_argument("--pg", metavar="DIR", type=Path,
                        help="the folder of --local's server (default: house/pg in the data "
                             "folder)")
    parser.add_argument("--data", metavar="DIR", type=Path,
                        help="the house's folder: dashboard accounts, session key (default: "
                             "house/ in the data folder)")
    parser.add_argument("--config", metavar="FILE", type=Path, help="the TOML override file")


def _data_dir(args: argparse.Namespace) -> Path:
    return args.data or config_of(args).data_dir / "house"


def _database(args: argparse.Namespace):
    """(url, the local server or None); the local server is started."""
    if args.local:
        from house.localpg import LocalPostgres

        folder = args.pg or _data_dir(args) / "pg"
        server = LocalPostgres(folder)
        server.start()
        return server.url, server
    if not args.db:
        raise ConfigError("which database? --db URL (or $FELTBANK_HOUSE_DB), or --local for "
                          "the house's own PostgreSQL server")
    return args.db, None


def _house(args: argparse.Namespace):
    from house.db import House, migrate

    url, server = _database(args)
    migrate(url)
    return House(url), server


def add_table(args: argparse.Namespace) -> int:
    house, _ = _house(args)
    token = house.add_table(args.table, args.name)
    print(f"table {args.table} added. In that table's configuration:\n"
          f'  [house]\n  table = "{args.table}"\n  token = "{token}"\n'
          "The token is shown only now.")
    return 0


def new_token(args: argparse.Namespace) -> int:
    house, _ = _house(args)
    print(house.new_token(args.table))
    return 0


def list_tables(args: argparse.Namespace) -> int:
    house, _ = _house(args)
    tables = house.tables()
    if args.json:
        print_json(tables)
    else:
        for tb in tables:
            print(f"{tb['id']}: seq {tb['seq']}, head {tb['head']}, house result "
                  f"{tb['house_result']}{'; refused: ' + tb['refusal'] if tb['refusal'] else ''}")
    return 0


def migrate_db(args: argparse.Namespace) -> int:
    from house.db import migrate

    url, _ = _database(args)
    done = migrate(url)
    print(f"applied {', '.join(done)}" if done else "the house's schema is up to date")
    return 0


def serve_house(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if bool(args.cert) != bool(args.key):
        raise ConfigError("--cert and --key go together")
    if not args.cert and not args.http:
        raise ConfigError("the house serves https: give --cert and --key (PEM files), or "
                          "--http for a plain-http test bench")
    from house.app import create_house_app
    from web.server import serve

    house, server = _house(args)
    data_dir = _data_dir(args)
    data_dir.mkdir(parents=True, exist_ok=True)
    app = create_house_app({"HOUSE_DB": house.url, "DATA_DIR": data_dir,
                            "SESSION_COOKIE_SECURE": bool(args.cert)})
    tls = (str(args.cert.resolve()), str(args.key.resolve())) if args.cert else None
    log.info("the house on %s:%d (%s), database %s", args.host, args.port,
             "https" if args.cert else "http", house.url)
    try:
        # The same server as the table's dashboard (hypercorn: idle connections and live
        # screens wait on one event loop).
        serve(app, args.host, args.port, threads=args.threads, tls=tls)
    finally:
        if server is not None:
            server.stop()
    return 0


# -- bench ------------------------------------------------------------------------------------

def register_bench(sub: argparse._SubParsersAction) -> None:
    bench = sub.add_parser(
        "house", help="entries/s the house ingests; commit-to-dashboard delay",
        description="Start a throwaway PostgreSQL and house (HTTPS), ship journals from N "
                    "tables at once, and measure entries per second ingested and the delay "
                    "from a table's commit to the house dashboard's live stream.")
    bench.add_argument("--tables", type=int, default=3, help="tables shipping at once")
    bench.add_argument("--entries", type=int, default=2000, help="entries per table")
    bench.add_argument("--samples", type=int, default=50,
                       help="single commits timed to the dashboard (default 50)")
    bench.add_argument("--json", action="store_true")
    bench.set_defaults(func=bench_house)


def bench_house(args: argparse.Namespace) -> int:
    from house.bench import run_bench

    figures = run_bench(args.tables, args.entries, args.samples)
    if args.json:
        print_json(figures)
    else:
        print(f"ingest: {figures['entries']} entries from {figures['tables']} tables in "
              f"{figures['ingest_s']:.2f} s = {figures['entries_per_s']} entries/s")
        print(f"commit to dashboard: median {figures['delay_ms_median']} ms, "
              f"p95 {figures['delay_ms_p95']} ms, max {figures['delay_ms_max']} ms "
              f"({figures['samples']} commits)")
    sys.stdout.flush()
    return 0
