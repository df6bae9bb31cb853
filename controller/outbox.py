"""The outbox: the table ships its committed journal entries to the house ledger.

    shipper = Shipper(journal_path, HouseClient(url, table_id, token, cafile))
    table.subscribe(shipper.wake)       # a commit wakes it at once
    shipper.start() ... shipper.stop()

A thread of its own, with its own read-only connection to the journal: it asks the house
for the last seq it holds, sends what follows in order (Journal.chained(), batches of at
most BATCH) over HTTPS with the table's token, and goes on from the head the house answers.
The house keeps entries by (table, seq), so a batch sent twice is kept once. When the house
cannot be reached it waits (back-off doubling up to a limit) and tries again; the table
plays on meanwhile, its journal being the truth. A refusal (a gap, a fork, an edited entry,
a wrong token) is logged with the house's reason and shown in `status`.
"""

from __future__ import annotations

import json
import logging
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.errors import ConfigError, FeltbankError
from controller.journal import Journal

log = logging.getLogger(__name__)

BATCH = 200


class HouseUnreachable(FeltbankError, ConnectionError):
    """The house did not answer (network, TLS, its database, a restart): try again later."""


class HouseRefused(FeltbankError, ValueError):
    """The house answered no, with its reason (a gap, a fork, an edited entry, a token)."""

    def __init__(self, message: str, status: int, seq: int | None = None):
        super().__init__(message)
        self.status, self.seq = status, seq


class _ClientTLSSocket(ssl.SSLSocket):
    """A TLS socket that closes itself when its peer is gone before the handshake.

    CPython 3.11's ssl.SSLSocket, wrapping a connection the peer has already reset (the house
    killed between the TCP connect and the TLS handshake), raises ECONNRESET from its
    pre-handshake recv(1) without closing the descriptor it has just taken over: the socket
    stays open until the garbage collector finds it ("unclosed <ssl.SSLSocket>").
    """

    def recv(self, buflen: int = 1024, flags: int = 0) -> bytes:
        try:
            return super().recv(buflen, flags)
        except ConnectionError:
            if self.version() is None:  # no TLS session yet: nobody else holds this socket
                self.close()
            raise


class HouseClient:
    """The table's side of the house's API (/api/tables/<table>/...)."""

    def __init__(self, url: str, table_id: str, token: str, cafile: str | None = None,
                 timeout: float = 15.0):
        if not url or not table_id or not token:
            raise ConfigError("to reach the house, set house.url, house.table and "
                                "house.token (feltbank house add-table prints the last two)")
        self.base = f"{url.rstrip('/')}/api/tables/{table_id}"
        self.table_id = table_id
        self._token = token
        self.timeout = timeout
        self.context = ssl.create_default_context(cafile=cafile or None)
        self.context.sslsocket_class = _ClientTLSSocket

    def _call(self, method: str, path: str, body: Any = None) -> dict:
        data = None if body is None else json.dumps(body, ensure_ascii=False,
                                                    separators=(",", ":")).encode()
        request = urllib.request.Request(
            self.base + path, data=data, method=method,
            headers={"Authorization": f"Bearer {self._token}", "Accept": "application/json",
                     **({"Content-Type": "application/json"} if data is not None else {})})
        # The failure is built inside the except clauses and raised after them, so that
        # neither it nor this frame keeps the caught exception: its traceback holds the
        # response and its socket, which must close when it goes, not at a later garbage
        # collection (an unclosed TLS socket, and a ResourceWarning, otherwise).
        try:
            with urllib.request.urlopen(request, timeout=self.timeout,
                                        context=self.context) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            with exc:  # the error is the house's answer: read it, then close its socket
                failure = self._refusal(exc)
        except (OSError, ValueError) as exc:
            # URLError, refused connections, timeouts, TLS failures, a cut mid-answer.
            failure = HouseUnreachable(f"the house at {self.base} cannot be reached: "
                                       f"{getattr(exc, 'reason', exc)}")
        raise failure

    def _refusal(self, answer: urllib.error.HTTPError) -> FeltbankError:
        """The house's "no" (4xx: a refusal with its reason) or its failure (5xx)."""
        try:
            body = json.loads(answer.read())
        except (ValueError, OSError):
            body = {}
        message = (body.get("error") if isinstance(body, dict) else None) \
            or f"HTTP {answer.code} {answer.reason}"
        if answer.code >= 500:
            return HouseUnreachable(f"the house at {self.base} failed: {message}")
        return HouseRefused(f"the house refused: {message}", answer.code,
                            body.get("seq") if isinstance(body, dict) else None)

    def head(self) -> dict:
        """{"head_seq", "head"}: the last entry the house holds of this table."""
        return self._call("GET", "/head")

    def ship(self, entries: list[dict]) -> dict:
        return self._call("POST", "/entries", {"entries": entries})

    def entries(self, after: int = 0, limit: int = BATCH) -> list[dict]:
        return self._call("GET", f"/entries?after={int(after)}&limit={int(limit)}")["entries"]

    def all_entries(self) -> Iterator[dict]:
        """Every entry the house holds of this table, in order, page by page."""
        after = 0
        while True:
            page = self.entries(after)
            if not page:
                return
            yield from page
            after = page[-1]["seq"]


class Shipper:
    """Ships the journal at `journal_path` to the house through `client`, in a thread."""

    def __init__(self, journal_path: str | Path, client: HouseClient, *, batch: int = BATCH,
                 poll: float = 5.0, backoff: tuple[float, float] = (0.5, 30.0)):
        self.journal_path = Path(journal_path)
        self.client = client
        self.batch = batch
        self.poll = poll
        self.backoff = backoff
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._status: dict[str, Any] = {"state": "starting", "house_seq": None, "error": ""}
        #: Set after each answer of the house (tests and the bench wait on it).
        self.progress = threading.Condition()

    # -- the small interface the running table uses ---------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="outbox", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 20.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def wake(self, _outcome: object = None) -> None:
        """A table listener: a command was committed, ship it now."""
        self._wake.set()

    @property
    def status(self) -> dict:
        """{"ok", "state" (starting, shipping, caught up, unreachable, refused), "house_seq",
        "error"} for /healthz and the dashboard."""
        with self._lock:
            return {"ok": self._status["state"] != "refused", **self._status,
                    "house": self.client.base}

    def wait_for(self, seq: int, timeout: float) -> bool:
        """Wait until the house acknowledged seq `seq`; True if it did."""
        with self.progress:
            return self.progress.wait_for(
                lambda: (self._status["house_seq"] or 0) >= seq, timeout)

    # -- the thread -----------------------------------------------------------------------

    def _set(self, state: str, house_seq: int | None = None, error: str = "") -> None:
        with self.progress:
            with self._lock:
                previous = self._status
                self._status = {"state": state, "error": error,
                                "house_seq": house_seq if house_seq is not None
                                else previous["house_seq"]}
            self.progress.notify_all()
        if error and error != previous["error"]:
            (log.error if state == "refused" else log.warning)("outbox: %s", error)
        elif state == "caught up" and previous["state"] in ("unreachable", "refused"):
            log.info("outbox: the house is reached again and holds seq %s", house_seq)

    def _sleep(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def _run(self) -> None:
        journal = None
        delay = self.backoff[0]
        acked: int | None = None
        while not self._stop.is_set():
            try:
                if journal is None:
                    journal = Journal(self.journal_path, readonly=True)
                if acked is None:
                    acked = int(self.client.head()["head_seq"])
                    self._set("shipping", acked)
                self._wake.clear()
                batch = list(journal.chained(after=acked, limit=self.batch))
                if not batch:
                    last = journal.last_seq()
                    if acked > last:
                        raise HouseRefused(
                            f"the house holds seq {acked} of table {self.client.table_id} but "
                            f"this journal ends at seq {last}: is this the table's own "
                            "journal? (feltbank journal restore --from-house rebuilds it)", 409)
                    self._set("caught up", acked)
                    delay = self.backoff[0]
                    self._sleep(self.poll)
                    continue
                acked = int(self.client.ship(batch)["head_seq"])
                self._set("shipping", acked)
                delay = self.backoff[0]
            except HouseRefused as exc:
                acked = None
                self._set("refused", error=str(exc))
                self._sleep(self.backoff[1])
            except (HouseUnreachable, FeltbankError) as exc:
                acked = None
                self._set("unreachable", error=str(exc))
                self._sleep(delay)
                delay = min(delay * 2, self.backoff[1])
            except Exception as exc:  # never let the outbox die silently: log and retry
                log.exception("outbox: unexpected error")
                acked = None
                self._set("unreachable", error=f"unexpected: {exc}")
                self._sleep(self.backoff[1])
        if journal is not None:
            journal.close()


def shipper_for(config: Any, table: Any) -> Shipper | None:
    """The running table's shipper when house.url is set (woken by each commit; the caller
    starts and stops it: app.Feltbank)."""
    if not config["house.url"]:
        return None
    client = HouseClient(config["house.url"], config["house.table"], config["house.token"],
                         config["house.ca"] or None)
    shipper = Shipper(config.journal_path, client)
    table.subscribe(shipper.wake)
    return shipper


def restore_from_house(client: HouseClient, path: str | Path) -> tuple[int, str]:
    """Write the house's copy of the table's journal to `path` (which must not hold
    commands), checked entry by entry and then verified; (commands, head)."""
    path = Path(path)
    if path.exists() and path.stat().st_size:
        with Journal(path, readonly=True) as existing:
            if existing.last_seq():
                raise FeltbankError(f"{path} already holds {existing.last_seq()} commands: "
                                    "restore writes a new journal; move that one away first")
    temp = path.with_name(path.name + ".restoring")
    for leftover in (temp, Path(f"{temp}-wal"), Path(f"{temp}-shm")):
        leftover.unlink(missing_ok=True)
    try:
        with Journal(temp) as journal:
            n = journal.restore(client.all_entries())
            report = journal.verify()
        if not report.ok:
            raise FeltbankError(f"the house's copy does not verify: {report.problems[:3]}; "
                                "nothing was written")
        temp.replace(path)
    finally:
        for leftover in (temp, Path(f"{temp}-wal"), Path(f"{temp}-shm")):
            leftover.unlink(missing_ok=True)
    return n, report.head
