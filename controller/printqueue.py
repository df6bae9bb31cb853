"""The print queue, kept in the journal: receipts queued with their command, printed after.

A receipt is queued in the same transaction as the command whose events it belongs to, so a
bet exists exactly when its slip is queued. The spooler prints queued receipts one by one in
order; a printer fault leaves the receipt queued and retried with back-off, the game going
on. A receipt is marked 'printing' before it is sent and 'printed' after: one found
'printing' after a crash may or may not have come out, so it prints again marked COPY.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from controller.chain import short
from controller.games.base import Command, Event
from controller.modes import Mode, find_mode, modes
from controller.settings import Name

log = logging.getLogger(__name__)

#: The slips the table can print as the game goes, by setting name: a bet slip per bet, a
#: payout slip per paying bet, an end slip when a round (hand, game) ends (`Mode.end_slips`).
SLIPS = ("bet", "payout", "round")


class Printer(Protocol):
    """What the spooler needs of a printer (hardware.printer.ReceiptPrinter is one)."""

    def render(self, kind: str, data: dict, *, mode: str | None = None,
               copy: bool = False) -> bytes: ...

    def send(self, data: bytes, name: str = "receipt") -> None: ...

    def paper(self) -> str: ...


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def words_json(words: Any) -> dict:
    """Words (a text, or a `controller.settings.phrase`'s template and values) as a receipt's
    data: the template, the values, and which values are names (printed as they are); the
    printer translates the template and the other values (hardware/receipts.py `say`)."""
    template, values = (words, {}) if isinstance(words, str) else words
    return {"template": template, "values": dict(values),
            "names": sorted(k for k, v in values.items() if isinstance(v, Name))}


def _bet(record: Mode | None, bet: str) -> dict:
    """A slip's bet: its id or spot, and its words when the mode has them."""
    words = record.words_of_bet(bet) if record is not None else None
    return {"bet": bet} if words is None else {"bet": bet, "bet_words": words_json(words)}


def slips_for(events: Iterable[Event], seq: int, slips: Iterable[str],
              mode: str = "") -> list[tuple[str, dict]]:
    """The receipts a command's events call for: a bet slip per bet, a payout slip per win
    (each with the bet in the mode's words, `Mode.bet_words`), and the end slip of `mode` (its
    record says which ends print one) when a round ends."""
    wanted = set(slips)
    out = []
    record = find_mode(mode) if mode in modes() else None
    ending = record if "round" in wanted else None
    for n, event in enumerate(events, start=1):
        slip = f"S{seq}-{n}"
        if event.kind == "bet-placed" and "bet" in wanted:
            # What else the mode says of the bet (e.g. money laid alongside it) goes to the
            # slip too; the mode's own layout (hardware/templates/MODE/) prints it.
            extra = {k: v for k, v in event.data.items() if k not in ("player", "bet", "amount")}
            out.append(("bet-slip", {"pays": "", **extra, "slip": slip,
                                     "player": event.data["player"],
                                     **_bet(record, event.data["bet"]),
                                     "stake": event.data["amount"]}))
        elif event.kind == "bet-settled" and "payout" in wanted and event.data.get("paid"):
            out.append(("payout-slip", {"slip": slip, "player": event.data["player"],
                                        **_bet(record, event.data["bet"]),
                                        "stake": event.data["stake"],
                                        "result": event.data["result"],
                                        "paid": event.data["paid"]}))
        elif ending is not None:
            out += [("round-slip", {**end, "slip": slip}) for end in ending.end_slips([event])]
    return out


def statement_data(table, player: str) -> dict:
    """The data of a player's statement receipt, from the table's journal."""
    statements = table.statements()
    if player not in statements:
        raise KeyError(f"{player} has no statement at this table")
    state = table.state
    balance = state.ledger.balance(f"player:{player}") if state else 0
    return {**statements[player].to_json(), "balance": balance,
            "chain": short(table.journal.head()[1])}


def house_report_data(table) -> dict:
    """The data of the house's end-of-session report, from the table's journal."""
    state = table.state
    readings = table.journal.readings()
    return {
        "mode": state.mode if state else "",
        "commands": table.journal.last_seq(),
        "rounds": state.rounds if state else 0,
        "players": [{"player": p, "net": s.net} for p, s in sorted(table.statements().items())],
        "house": state.ledger.balance("bank") if state else 0,
        # The banker's overrides of the camera, for the house to see on paper.
        "corrections": sum(len(r["corrections"]) for r in readings.values()),
        # ... each one: the command, the die (from 1), the camera's face, the banker's, who.
        "overrides": [{"seq": seq, "die": c["index"] + 1, "read": c["read"] or "?",
                       "banker": c["banker"], "who": r["confirmed_by"]}
                      for seq, r in readings.items() for c in r["corrections"]],
        "chain": short(table.journal.head()[1]),
    }


@dataclass(frozen=True)
class Receipt:
    id: int
    seq: int | None
    kind: str
    mode: str
    data: dict[str, Any]
    copy: bool
    state: str
    attempts: int
    error: str


class PrintQueue:
    """Queues receipts in the journal file; `attach(table)` queues each command's slips."""

    def __init__(self, journal_path: str | Path, table_name: str,
                 slips: Iterable[str] = SLIPS, mode_of: Callable[[], str] = lambda: ""):
        self.path = Path(journal_path)
        self.table_name = table_name
        self.slips = tuple(slips)
        self.mode_of = mode_of
        self.changed = threading.Event()

    def attach(self, table) -> None:
        """Queue slips inside each command's transaction; wake the spooler after the commit."""
        table.add_transaction_hook(self.hook)
        table.subscribe(lambda outcome: self.changed.set())

    def hook(self, db: sqlite3.Connection, seq: int, cmd: Command,
             events: tuple[Event, ...]) -> None:
        """Queue the command's slips inside its own transaction."""
        mode = self.mode_of()
        wanted = slips_for(events, seq, self.slips, mode)
        if not wanted:
            return
        at = db.execute("SELECT at FROM commands WHERE seq = ?", (seq,)).fetchone()[0]
        for kind, data in wanted:
            data = {"table": self.table_name, "time": at[:19].replace("T", " "), **data}
            db.execute("INSERT INTO receipts (seq, kind, mode, data, queued_at) "
                       "VALUES (?, ?, ?, ?, ?)", (seq, kind, mode, json.dumps(data), at))

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.execute("PRAGMA synchronous=FULL")
        return db

    def enqueue(self, kind: str, data: dict, *, mode: str = "", copy: bool = False) -> int:
        """Queue a receipt asked for on its own (a statement, a report); its id."""
        data = {"table": self.table_name, "time": _now()[:19].replace("T", " "), **data}
        db = self._connect()
        try:
            cur = db.execute("INSERT INTO receipts (kind, mode, data, copy, queued_at) "
                             "VALUES (?, ?, ?, ?, ?)",
                             (kind, mode, json.dumps(data), int(copy), _now()))
        finally:
            db.close()
        self.changed.set()
        return cur.lastrowid

    def reprint(self, receipt_id: int) -> int:
        """Queue a copy of a receipt; the copy says COPY. Its id."""
        original = self.get(receipt_id)
        if original is None:
            raise KeyError(f"no receipt {receipt_id}")
        return self.enqueue(original.kind, original.data, mode=original.mode, copy=True)

    def get(self, receipt_id: int) -> Receipt | None:
        rows = self.list(where="id = ?", args=(receipt_id,))
        return rows[0] if rows else None

    def list(self, where: str = "1", args: tuple = (), limit: int = 1000) -> list[Receipt]:
        db = self._connect()
        try:
            rows = db.execute(
                "SELECT id, seq, kind, mode, data, copy, state, attempts, error FROM receipts "
                f"WHERE {where} ORDER BY id LIMIT ?", (*args, limit)).fetchall()
        finally:
            db.close()
        return [Receipt(r[0], r[1], r[2], r[3], json.loads(r[4]), bool(r[5]), r[6], r[7], r[8])
                for r in rows]

    def waiting(self) -> list[Receipt]:
        return self.list(where="state IN ('queued', 'printing')")


@dataclass
class PrinterStatus:
    ok: bool = True
    error: str = ""
    waiting: int = 0
    paper: str = "unknown"

    def to_json(self) -> dict:
        return {"ok": self.ok, "error": self.error, "waiting": self.waiting, "paper": self.paper}


class Spooler:
    """Prints the queue in order on its own thread; faults are reported, never raised."""

    def __init__(self, queue: PrintQueue, printer: Printer,
                 on_status: Callable[[PrinterStatus], None] = lambda s: None,
                 retry_seconds: tuple[float, float] = (1.0, 30.0)):
        self.queue = queue
        self.printer = printer
        self.on_status = on_status
        self.retry_first, self.retry_max = retry_seconds
        self.status = PrinterStatus()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def recover(self) -> None:
        """After a crash: a receipt caught 'printing' may have come out; print it as a COPY."""
        db = self.queue._connect()
        try:
            db.execute("UPDATE receipts SET state = 'queued', copy = 1 WHERE state = 'printing'")
        finally:
            db.close()

    def start(self) -> None:
        self.recover()
        self._thread = threading.Thread(target=self._run, name="spooler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.queue.changed.set()
        if self._thread:
            self._thread.join(timeout=10)

    def _report(self, ok: bool, error: str = "", paper: str | None = None) -> None:
        waiting = len(self.queue.waiting())
        new = PrinterStatus(ok, error, waiting, paper or self.status.paper)
        if new != self.status:
            self.status = new
            if not ok:
                log.warning("printer: %s (%d receipts waiting)", error, waiting)
            try:
                self.on_status(new)
            except Exception:
                log.exception("printer status listener failed")

    def print_next(self) -> bool:
        """Print the oldest waiting receipt; True if it printed, False if none or a fault."""
        waiting = self.queue.list(where="state IN ('queued', 'printing')", limit=1)
        if not waiting:
            self._report(True)
            return False
        receipt = waiting[0]
        paper = self.printer.paper()
        if paper == "out":
            self._note_failure(receipt, "out of paper")
            self._report(False, "out of paper", paper)
            return False
        name = f"receipt-{receipt.id:06d}-{receipt.kind}"
        try:
            data = self.printer.render(receipt.kind, receipt.data, mode=receipt.mode or None,
                                       copy=receipt.copy)
        except Exception as exc:  # a broken layout must not block the queue behind it
            log.exception("receipt %d cannot be drawn", receipt.id)
            self._mark(receipt.id, "unprintable", error=f"not printable: {exc}")
            return False
        self._mark(receipt.id, "printing")
        try:
            self.printer.send(data, name)
        except Exception as exc:  # noqa: BLE001 - any printer trouble: keep it, retry later
            self._note_failure(receipt, str(exc))
            self._report(False, str(exc), paper)
            return False
        self._mark(receipt.id, "printed")
        self._report(True, paper=paper)
        return True

    def _mark(self, receipt_id: int, state: str, error: str = "") -> None:
        db = self.queue._connect()
        try:
            db.execute("UPDATE receipts SET state = ?, error = ?, printed_at = ? WHERE id = ?",
                       (state, error, _now() if state == "printed" else None, receipt_id))
        finally:
            db.close()

    def _note_failure(self, receipt: Receipt, error: str) -> None:
        db = self.queue._connect()
        try:
            db.execute("UPDATE receipts SET state = 'queued', attempts = attempts + 1, "
                       "error = ? WHERE id = ?", (error, receipt.id))
        finally:
            db.close()

    def _run(self) -> None:
        delay = self.retry_first
        while not self._stop.is_set():
            self.queue.changed.clear()
            try:
                printed = self.print_next()
            except Exception:  # the journal itself: log, wait, go on
                log.exception("spooler")
                printed = False
            if printed:
                delay = self.retry_first
                continue
            if self.status.ok:
                self.queue.changed.wait()  # nothing waiting: sleep until a receipt is queued
            else:
                self._stop.wait(delay)
                delay = min(delay * 2, self.retry_max)
