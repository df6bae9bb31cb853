"""`feltbank bench house`: how fast the house ingests, and how soon its dashboard shows a commit.

A throwaway PostgreSQL (fsync on, as in production) and a house in its own process over
HTTPS; N journals of seeded play shipped at once by N outbox shippers; then single commits at
one table, each timed from Table.submit() to the moment the house dashboard's live stream
(/live/events, logged in as a banker) shows that seq.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import shutil
import ssl
import statistics
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

from controller.games.base import Command
from controller.games.play import accepted
from controller.journal import Journal
from controller.outbox import HouseClient, Shipper
from controller.table import Table


def run_bench(tables: int = 3, entries: int = 2000, samples: int = 50) -> dict:
    from house.db import House, migrate
    from house.localpg import LocalPostgres
    from house.testbed import HouseProcess
    from web.users import UserStore

    folder = Path(tempfile.mkdtemp(prefix="feltbank-bench-house-"))
    folder.chmod(0o755)
    pg = LocalPostgres(folder / "pg")
    proc = None
    try:
        pg.start()
        migrate(pg.url)
        house = House(pg.url)
        proc = HouseProcess(pg.url, folder / "house")
        users = UserStore(folder / "house" / "data" / "house-users.sqlite3")
        users.add("bench", "bench-password", "banker", first=True)
        users.close()
        proc.start()

        played, _ = accepted("hazard", entries, seed=1)
        shippers = []
        for n in range(tables):
            table_id = f"bench{n + 1}"
            token = house.add_table(table_id)
            path = folder / f"{table_id}.sqlite3"
            with Journal(path) as journal:
                journal.append_many((c, e, "bench", "2026-11-23T12:00:00.000+00:00")
                                    for c, e in played[:entries])
            shippers.append(Shipper(path, HouseClient(proc.url, table_id, token,
                                                      str(proc.ca)), poll=0.2))
        start = time.perf_counter()
        for s in shippers:
            s.start()
        for s in shippers:
            if not s.wait_for(entries, timeout=600):
                raise RuntimeError(f"bench: the house did not take every entry: {s.status}")
        ingest_s = time.perf_counter() - start
        for s in shippers:
            s.stop()

        delays = _delays(proc, house, accepted("hazard", samples, seed=2)[0], folder)
    finally:
        if proc is not None:
            proc.stop()
        pg.stop()
        shutil.rmtree(folder, ignore_errors=True)
    delays_ms = sorted(d * 1000 for d in delays)
    return {
        "tables": tables,
        "entries": tables * entries,
        "ingest_s": round(ingest_s, 3),
        "entries_per_s": round(tables * entries / ingest_s),
        "samples": len(delays_ms),
        "delay_ms_median": round(statistics.median(delays_ms), 1),
        "delay_ms_p95": round(delays_ms[int(0.95 * (len(delays_ms) - 1))], 1),
        "delay_ms_max": round(delays_ms[-1], 1),
    }


def _delays(proc, house, commands, folder: Path) -> list[float]:
    """Seconds from a commit at a live table to the house dashboard's stream showing it."""
    token = house.add_table("live")
    table = Table(Journal(folder / "live.sqlite3"))
    shipper = Shipper(table.journal.path, HouseClient(proc.url, "live", token, str(proc.ca)))
    table.subscribe(shipper.wake)
    shipper.start()
    seen = threading.Condition()
    state = {"seq": 0, "at": 0.0}
    stream = _dashboard_stream(proc)

    def read() -> None:
        try:
            for line in stream:
                if line.startswith(b"data: "):
                    for tb in json.loads(line[6:])["tables"]:
                        if tb["id"] == "live":
                            with seen:
                                state["seq"], state["at"] = tb["seq"], time.perf_counter()
                                seen.notify_all()
        except (OSError, ValueError, AttributeError):
            return  # the stream was closed at the end of the bench

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    delays = []
    try:
        for cmd, _ in commands:
            start = time.perf_counter()
            seq = table.submit(Command(cmd.kind, cmd.args, uuid.uuid4().hex)).seq
            with seen:
                if not seen.wait_for(lambda s=seq: state["seq"] >= s, timeout=30):
                    raise RuntimeError(f"bench: the dashboard never showed seq {seq}")
                delays.append(state["at"] - start)
    finally:
        shipper.stop()
        proc.kill()  # a throwaway house: no graceful wait for the open stream
        stream.close()
        table.journal.close()
    return delays


def _dashboard_stream(proc):
    """The house dashboard's live stream, logged in as the bench's banker."""
    context = ssl.create_default_context(cafile=str(proc.ca))
    opener = urllib.request.build_opener(
        urllib.request.HTTPSHandler(context=context),
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    page = opener.open(f"{proc.url}/login", timeout=10).read().decode()
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode({"name": "bench", "password": "bench-password",
                                   "csrf_token": csrf}).encode()
    opener.open(f"{proc.url}/login", data=form, timeout=10).read()
    return opener.open(f"{proc.url}/live/events", timeout=60)
