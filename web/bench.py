"""`feltbank bench web`: the dashboard under load, measured on 127.0.0.1 only, bounded in
count and time."""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import re
import selectors
import socket
import statistics
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

from controller.games.base import Command
from controller.journal import Journal
from controller.table import Table

PASSWORD = "bench-password-1"


class _Session:
    """A browser's cookie jar and CSRF token."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.token = ""

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=30) as r:
            page = r.read().decode()
        found = re.search(r'name="csrf[-_]token" (?:content|value)="([^"]+)"', page)
        if found:
            self.token = found.group(1)
        return page

    def form(self, path: str, **fields) -> None:
        body = urllib.parse.urlencode({**fields, "csrf_token": self.token}).encode()
        with self.opener.open(self.base + path, body, timeout=30) as r:
            r.read()

    @property
    def cookie(self) -> str:
        return next(c.value for c in self.jar if c.name == "feltbank_session")


def _table(path: Path, mode: str) -> Table:
    table = Table(Journal(path))
    table.submit(Command("open", {"mode": mode, "settings": {}}, "open"))
    table.submit(Command("join", {"player": "Ann"}, "join"))
    return table


def serve_under_load(writers: int = 8, per_writer: int = 100, streams: int = 100,
                     threads: int = 16, seconds: float = 300.0, *, mode: str) -> dict:
    from web import Services, create_app
    from web.server import ServerThread
    from web.users import UserStore

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        table = _table(tmp_path / "journal.sqlite3", mode)
        app = create_app({"DATA_DIR": tmp_path / "web", "CONFIG_PATH": tmp_path / "none.toml",
                          "SSE_KEEPALIVE": 15.0, "SSE_MAX_SECONDS": seconds},
                         Services(table=table))
        per_user = app.config["SSE_STREAMS_PER_USER"]
        with ServerThread(app, threads=threads) as server:
            banker = _Session(server.url)
            banker.get("/setup")
            code = (tmp_path / "web" / "setup-code").read_text().strip()
            banker.form("/setup", name="boss", password=PASSWORD, password2=PASSWORD,
                        setup_code=code)
            banker.get("/")
            cookies = []
            with UserStore(app.config["USERS_PATH"]) as store:
                for n in range(-(-streams // per_user)):
                    store.add(f"screen{n}", PASSWORD, "viewer")
            for n in range(-(-streams // per_user)):
                viewer = _Session(server.url)
                viewer.get("/login")
                viewer.form("/login", name=f"screen{n}", password=PASSWORD)
                cookies += [viewer.cookie] * per_user
            socks = [_open_stream(server.port, cookies[i]) for i in range(streams)]
            first = table.journal.last_seq()
            seen: list[list[int]] = [[] for _ in socks]
            opened = threading.Event()
            reader = threading.Thread(target=_read_streams, args=(
                socks, seen, first + writers * per_writer, seconds, opened), daemon=True)
            reader.start()
            # Every stream has its opening state before the first command: what it must
            # receive is then every outcome after `first`.
            if not opened.wait(seconds):
                raise RuntimeError("bench: the event streams did not open")
            if table.journal.last_seq() != first:
                raise RuntimeError("bench: the table moved while the streams opened")
            latencies: list[float] = []
            lock = threading.Lock()

            def write(w: int) -> None:
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                mine = []
                for n in range(per_writer):
                    body = json.dumps({"id": f"bench-{w}-{n}", "kind": "buy-in",
                                       "player": "Ann", "amount": 1})
                    start = time.perf_counter()
                    conn.request("POST", "/api/command", body, {
                        "Content-Type": "application/json", "X-CSRF-Token": banker.token,
                        "Cookie": f"feltbank_session={banker.cookie}"})
                    response = conn.getresponse()
                    response.read()
                    if response.status != 201:
                        raise RuntimeError(f"bench: a command got {response.status}")
                    mine.append(time.perf_counter() - start)
                conn.close()
                with lock:
                    latencies.extend(mine)

            start = time.perf_counter()
            pool = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
            for t in pool:
                t.start()
            for t in pool:
                t.join()
            elapsed = time.perf_counter() - start
            reader.join(seconds)
            for s in socks:
                s.close()
        table.journal.close()
    expected = list(range(first + 1, first + writers * per_writer + 1))
    counts = [len(ids) for ids in seen]
    latencies.sort()
    return {
        "writers": writers, "commands": writers * per_writer, "streams": streams,
        "threads": threads,
        "commands_per_s": round(writers * per_writer / elapsed, 1),
        "p50_ms": round(1000 * statistics.median(latencies), 1),
        "p99_ms": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 1),
        "events_expected": len(expected), "events_min": min(counts), "events_max": max(counts),
        "all_received": all(ids == expected for ids in seen),
    }


def _open_stream(port: int, cookie: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"GET /live/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 f"Cookie: feltbank_session={cookie}\r\n\r\n".encode())
    return sock


def _read_streams(socks: list[socket.socket], seen: list[list[int]], last: int,
                  seconds: float, opened: threading.Event) -> None:
    """Collect each stream's outcome ids until every one has `last` (or time is up); set
    `opened` once every stream has had its opening state."""
    selector = selectors.DefaultSelector()
    buffers = [""] * len(socks)
    for i, s in enumerate(socks):
        s.setblocking(False)
        selector.register(s, selectors.EVENT_READ, i)
    done: set[int] = set()
    states: set[int] = set()
    end = time.monotonic() + seconds
    pattern = re.compile(r"event: outcome\nid: (\d+)\n")
    while len(done) < len(socks) and time.monotonic() < end:
        for key, _ in selector.select(timeout=1.0):
            i = key.data
            try:
                chunk = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            if not chunk:
                selector.unregister(key.fileobj)
                done.add(i)
                continue
            buffers[i] += chunk.decode()
            *complete, buffers[i] = buffers[i].split("\n\n")
            for message in complete:
                if "event: state" in message:
                    states.add(i)
                    if len(states) == len(socks):
                        opened.set()
                found = pattern.search(message + "\n")
                if found:
                    seen[i].append(int(found.group(1)))
            if seen[i] and seen[i][-1] >= last:
                done.add(i)
    selector.close()


def money_page_ms(n: int, *, mode: str) -> float:
    """The money page's time (median of 5, ms) with `n` commands in the journal."""
    from controller.games.play import accepted
    from web import Services, create_app

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        played, _ = accepted(mode, n, seed=3)
        with Journal(tmp_path / "journal.sqlite3") as j:
            for i in range(0, len(played), 5000):
                j.append_many((c, e, "bench", "") for c, e in played[i:i + 5000])
        table = Table(Journal(tmp_path / "journal.sqlite3"))
        app = create_app({"DATA_DIR": tmp_path / "web", "CONFIG_PATH": tmp_path / "none.toml"},
                         Services(table=table))
        client = app.test_client()
        code = (tmp_path / "web" / "setup-code").read_text().strip()
        page = client.get("/setup").text
        token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
        client.post("/setup", data={"name": "boss", "password": PASSWORD,
                                    "password2": PASSWORD, "csrf_token": token,
                                    "setup_code": code})
        times = []
        for _ in range(5):
            start = time.perf_counter()
            response = client.get("/money/")
            times.append(time.perf_counter() - start)
            if response.status_code != 200:
                raise RuntimeError(f"bench: /money/ answered {response.status_code}")
        table.journal.close()
    return round(1000 * statistics.median(times), 1)
