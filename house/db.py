"""The house ledger in PostgreSQL: every table's journal entries, keyed by (table, seq).

Entries arrive in order and are checked against the chain (controller/chain.py) before they
are kept: an entry the house already holds is acknowledged again (idempotent by table and
seq); a gap, a fork of the chain, an entry that does not match its hash, or a token of another
table is refused with the reason, which is also kept in `refusals` for the dashboard.

The schema is migrated with yoyo (house/migrations/*.sql).
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import groupby
from pathlib import Path

import psycopg

from controller import chain
from controller.errors import FeltbankError
from controller.ledger import Entry, Statement, account_kind, statements

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).parent / "migrations"
#: At most this many entries in one shipment.
MAX_BATCH = 500
#: The day's three shifts by the hour (UTC) an entry was committed at.
SHIFTS = (("night", 0, 8), ("day", 8, 16), ("evening", 16, 24))
_BODY_KEYS = {"seq", "id", "kind", "args", "events", "legs", "source", "at"}


def new_table_token() -> str:
    """A table's secret token: 32 random bytes, URL-safe, never beginning with "-" (one in 64
    would, and a command line reads `--token -x...` as an option, not as the token)."""
    while (token := secrets.token_urlsafe(32)).startswith("-"):
        pass
    return token


class HouseError(FeltbankError):
    """Something the house refuses; `status` is the HTTP status that says so."""

    status = 400


class Refused(HouseError):
    """A shipment the house refuses: a gap, a fork, an edited entry, a wrong token."""

    def __init__(self, message: str, status: int = 409, seq: int | None = None):
        super().__init__(message)
        self.status, self.seq = status, seq


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def migrate(url: str) -> list[str]:
    """Apply the house's schema migrations (yoyo); the ids applied now."""
    from yoyo import get_backend, read_migrations

    backend = get_backend(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        migrations = read_migrations(str(MIGRATIONS))
        with backend.lock():
            todo = backend.to_apply(migrations)
            backend.apply_migrations(todo)
    finally:
        backend.connection.close()
    return [m.id for m in todo]


@dataclass(frozen=True)
class Shipped:
    """What the house holds of a table after a shipment."""

    table: str
    head_seq: int
    head_hash: str
    added: int

    def to_json(self) -> dict:
        return {"table": self.table, "head_seq": self.head_seq, "head": self.head_hash,
                "added": self.added}


class House:
    """The house ledger at `url` (a libpq URL); one short connection per call."""

    def __init__(self, url: str):
        self.url = url
        self._listeners: list[Callable[[Shipped], None]] = []
        self._lock = threading.Lock()

    def connect(self) -> psycopg.Connection:
        try:
            return psycopg.connect(self.url, connect_timeout=10)
        except psycopg.OperationalError as exc:
            raise HouseError(f"the house's database at {self.url} cannot be reached: "
                             f"{str(exc).strip()}") from None

    def subscribe(self, listener: Callable[[Shipped], None]) -> None:
        """Call `listener(shipped)` after each shipment that added entries is committed."""
        with self._lock:
            self._listeners.append(listener)

    # -- tables ----------------------------------------------------------------------------

    def add_table(self, table_id: str, name: str = "") -> str:
        """Register a table; its token (shown once: only its hash is kept)."""
        check_table_id(table_id)
        token = new_table_token()
        with self.connect() as db:
            if db.execute("SELECT 1 FROM house_tables WHERE id = %s", (table_id,)).fetchone():
                raise HouseError(f"there is already a table {table_id!r}; pick another id, or "
                                 f"`feltbank house new-token {table_id}` for a new token")
            db.execute("INSERT INTO house_tables (id, name, token_hash) VALUES (%s, %s, %s)",
                       (table_id, name or table_id, token_hash(token)))
        return token

    def new_token(self, table_id: str) -> str:
        """A new token for a table; the old one stops working."""
        token = new_table_token()
        with self.connect() as db:
            cur = db.execute("UPDATE house_tables SET token_hash = %s WHERE id = %s",
                             (token_hash(token), table_id))
            if not cur.rowcount:
                raise HouseError(f"there is no table {table_id!r}")
        return token

    def authenticate(self, table_id: str, token: str) -> None:
        """Nothing when `token` is `table_id`'s; else Refused (kept as a refusal)."""
        with self.connect() as db:
            self._authenticate(db, table_id, token)

    def _authenticate(self, db: psycopg.Connection, table_id: str, token: str) -> None:
        row = db.execute("SELECT id FROM house_tables WHERE token_hash = %s",
                         (token_hash(token or ""),)).fetchone()
        if row is None:
            raise self._refuse(db, table_id, None, Refused(
                f"table {table_id}: the token is not one the house gave out (or it was "
                "replaced): use the token `feltbank house add-table` or `new-token` "
                "printed", 401))
        if row[0] != table_id:
            raise self._refuse(db, table_id, None, Refused(
                f"table {table_id}: the token sent is table {row[0]}'s, not "
                f"{table_id}'s: each table ships with its own token", 403))

    def _refuse(self, db: psycopg.Connection, table_id: str, seq: int | None,
                exc: Refused) -> Refused:
        log.warning("refused: %s", exc)
        if db.execute("SELECT 1 FROM house_tables WHERE id = %s", (table_id,)).fetchone():
            db.execute("INSERT INTO refusals (table_id, seq, reason) VALUES (%s, %s, %s)",
                       (table_id, seq, str(exc)))
            db.commit()
        return exc

    # -- entries -------------------------------------------------------------------------

    def ingest(self, table_id: str, token: str, entries: list) -> Shipped:
        """Keep `entries` (as Journal.chained() gives them, in order) after checking each
        against the chain; entries already held are acknowledged. On a refusal the entries
        before it are kept and Refused says why."""
        refused: Refused | None = None
        added = 0
        with self.connect() as db:
            self._authenticate(db, table_id, token)
            if not isinstance(entries, list) or len(entries) > MAX_BATCH:
                raise Refused(f"table {table_id}: a shipment is a list of at most {MAX_BATCH} "
                              "entries", 400)
            head_seq, head_hash, mode = db.execute(
                "SELECT head_seq, head_hash, mode FROM house_tables WHERE id = %s FOR UPDATE",
                (table_id,)).fetchone()
            rows, legs = [], []
            for entry in entries:
                try:
                    seq, body = _check_shape(table_id, entry)
                    if seq <= head_seq:
                        held = db.execute("SELECT hash FROM entries WHERE table_id = %s AND "
                                          "seq = %s", (table_id, seq)).fetchone()
                        if held and held[0] == entry["hash"]:
                            continue
                        raise Refused(
                            f"table {table_id}: seq {seq} ({body['id']}) differs from the entry "
                            f"the house holds at seq {seq} (house {chain.short(held[0])}, "
                            f"table {chain.short(entry['hash'])}): the chain forks there; "
                            f"nothing from seq {seq} on is kept",
                            409, seq)
                    if seq != head_seq + 1:
                        raise Refused(
                            f"table {table_id}: seq {seq} ({body['id']}) arrives but the house "
                            f"holds up to seq {head_seq}: seq {head_seq + 1} to {seq - 1} are "
                            "missing (a gap); send them first", 409, seq)
                    if entry["prev"] != head_hash:
                        raise Refused(
                            f"table {table_id}: seq {seq} ({body['id']}) follows "
                            f"{chain.short(entry['prev'])}, but the house's seq {head_seq} is "
                            f"{chain.short(head_hash)}: the chain forks there", 409, seq)
                    if chain.link(head_hash, body) != entry["hash"]:
                        raise Refused(
                            f"table {table_id}: seq {seq} ({body['id']}) does not match its "
                            "hash: the entry was edited after it was written; the house keeps "
                            f"nothing from seq {seq} on", 422, seq)
                except Refused as exc:
                    refused = exc
                    break
                if body["kind"] == "open" and isinstance(body["args"].get("mode"), str):
                    mode = body["args"]["mode"]
                rows.append((table_id, seq, entry["prev"], entry["hash"], body["id"],
                             body["kind"], mode, _when(body["at"]), chain.canonical(body)))
                legs += [(table_id, seq, n, kind, account, amount)
                         for n, kind, account, amount in body["legs"]]
                head_seq, head_hash = seq, entry["hash"]
                added += 1
            with db.cursor() as cur:
                cur.executemany("INSERT INTO entries (table_id, seq, prev, hash, command_id, "
                                "kind, mode, at, body) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                                "%s)", rows)
                cur.executemany("INSERT INTO legs (table_id, seq, entry, kind, account, amount)"
                                " VALUES (%s, %s, %s, %s, %s, %s)", legs)
                moved: dict[str, int] = {}
                for *_, account, amount in legs:
                    moved[account] = moved.get(account, 0) + amount
                cur.executemany(
                    "INSERT INTO balances (table_id, account, balance) VALUES (%s, %s, %s) "
                    "ON CONFLICT (table_id, account) DO UPDATE "
                    "SET balance = balances.balance + EXCLUDED.balance",
                    [(table_id, a, v) for a, v in sorted(moved.items())])
            db.execute("UPDATE house_tables SET head_seq = %s, head_hash = %s, mode = %s, "
                       "last_seen = now() WHERE id = %s", (head_seq, head_hash, mode, table_id))
            db.commit()
            if refused is not None:
                self._refuse(db, table_id, refused.seq, refused)
        shipped = Shipped(table_id, head_seq, head_hash, added)
        if added:
            for listener in list(self._listeners):
                try:
                    listener(shipped)
                except Exception:
                    log.exception("house listener %r failed", listener)
        if refused is not None:
            raise refused
        return shipped

    def head(self, table_id: str, token: str) -> Shipped:
        """The last entry the house holds of a table."""
        self.authenticate(table_id, token)
        with self.connect() as db:
            seq, digest = db.execute("SELECT head_seq, head_hash FROM house_tables WHERE "
                                     "id = %s", (table_id,)).fetchone()
        return Shipped(table_id, seq, digest, 0)

    def chained(self, table_id: str, after: int = 0, limit: int = MAX_BATCH) -> list[dict]:
        """A table's entries after seq `after`, as Journal.chained() gives them."""
        import json

        with self.connect() as db:
            rows = db.execute("SELECT seq, prev, hash, body FROM entries WHERE table_id = %s "
                              "AND seq > %s ORDER BY seq LIMIT %s",
                              (table_id, after, limit)).fetchall()
        return [{"seq": s, "prev": p, "hash": h, "body": json.loads(b)} for s, p, h, b in rows]

    # -- what the dashboard shows --------------------------------------------------------

    def tables(self) -> list[dict]:
        """Every table: its head, mode, last shipment, house result, players and refusals."""
        with self.connect() as db:
            tables = db.execute(
                "SELECT id, name, head_seq, head_hash, mode, last_seen FROM house_tables "
                "ORDER BY id").fetchall()
            balances: dict[str, dict[str, int]] = {}
            for table_id, account, total in db.execute(
                    "SELECT table_id, account, balance FROM balances "
                    "WHERE balance <> 0 OR account LIKE 'player:%'"):
                balances.setdefault(table_id, {})[account] = int(total)
            refusals: dict[str, tuple] = {}
            for table_id, reason, at in db.execute(
                    "SELECT DISTINCT ON (table_id) table_id, reason, at FROM refusals "
                    "ORDER BY table_id, id DESC"):
                refusals[table_id] = (reason, at)
        out = []
        for table_id, name, seq, digest, mode, seen in tables:
            book = balances.get(table_id, {})
            refusal = refusals.get(table_id)
            out.append({
                "id": table_id, "name": name, "seq": seq, "head": chain.short(digest),
                "mode": mode, "last_seen": f"{seen.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC" if seen else None,
                "house_result": book.get("bank", 0),
                "players": {a.split(":", 1)[1]: b for a, b in sorted(book.items())
                            if account_kind(a) == "player"},
                "on_table": sum(b for a, b in book.items() if account_kind(a) in ("bet", "pot")),
                "refusal": refusal[0] if refusal and (not seen or refusal[1] >= seen) else "",
            })
        return out

    def results(self, by: str) -> list[tuple[str, int]]:
        """The house result (the bank's change) by table, mode, shift or day, in order."""
        keys = {
            "table": "e.table_id",
            "mode": "e.mode",
            "day": "to_char(coalesce(e.at, e.received) AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
            "shift": "CASE " + " ".join(
                f"WHEN extract(hour FROM coalesce(e.at, e.received) AT TIME ZONE 'UTC') < {end} "
                f"THEN '{n}'" for n, _, end in SHIFTS) + " END",
        }
        if by not in keys:
            raise HouseError(f"results by {by!r}: by one of {', '.join(keys)}")
        with self.connect() as db:
            rows = db.execute(
                f"SELECT {keys[by]} AS k, sum(l.amount) FROM legs l JOIN entries e "
                "ON e.table_id = l.table_id AND e.seq = l.seq WHERE l.account = 'bank' "
                "GROUP BY k ORDER BY k").fetchall()
        found = {k: int(v) for k, v in rows}
        if by == "shift":
            return [(n, found.get(n, 0)) for n, _, _ in SHIFTS]
        return sorted(found.items())

    def statements(self) -> dict[str, dict]:
        """Every player's statement across tables: {player: {"total": Statement,
        "tables": {table: Statement}}}, from each table's entries in order."""
        per_table: dict[str, dict[str, Statement]] = {}
        for table_id, entries in self._entries():
            per_table[table_id] = statements(entries)
        out: dict[str, dict] = {}
        for table_id, found in sorted(per_table.items()):
            for player, statement in found.items():
                mine = out.setdefault(player, {"total": Statement(player), "tables": {}})
                mine["tables"][table_id] = statement
                total = mine["total"]
                for name in ("buy_in", "cashed_out", "staked", "won", "lost", "pots_paid",
                             "pots_won", "fees"):
                    setattr(total, name, getattr(total, name) + getattr(statement, name))
        return dict(sorted(out.items()))

    def _entries(self) -> Iterator[tuple[str, list[Entry]]]:
        """Each table's ledger entries in order, rebuilt from the legs the house keeps."""
        with self.connect() as db:
            rows = db.execute("SELECT table_id, seq, entry, kind, account, amount FROM legs "
                              "ORDER BY table_id, seq, entry").fetchall()
        for table_id, of_table in groupby(rows, key=lambda r: r[0]):
            yield table_id, [Entry(legs[0][3], tuple((r[4], int(r[5])) for r in legs))
                             for _, group in groupby(of_table, key=lambda r: (r[1], r[2]))
                             for legs in [list(group)]]

    def export_csv(self) -> Iterator[str]:
        """Every ledger leg of every table, one CSV line each, for the accountant."""
        yield _csv_line(["table", "seq", "at", "mode", "command", "entry", "entry_kind",
                         "account", "amount", "hash"])
        with self.connect() as db, db.cursor(name="export") as cur:
            cur.execute("SELECT l.table_id, l.seq, e.at, e.mode, e.kind, l.entry, l.kind, "
                        "l.account, l.amount, e.hash FROM legs l JOIN entries e "
                        "ON e.table_id = l.table_id AND e.seq = l.seq "
                        "ORDER BY l.table_id, l.seq, l.entry, l.account")
            for row in cur:
                at = row[2].isoformat(timespec="milliseconds") if row[2] else ""
                yield _csv_line([row[0], row[1], at, *row[3:]])

    def refusals(self, limit: int = 50) -> list[dict]:
        with self.connect() as db:
            rows = db.execute("SELECT table_id, seq, reason, at FROM refusals ORDER BY id DESC "
                              "LIMIT %s", (limit,)).fetchall()
        return [{"table": t, "seq": s, "reason": r, "at": a.isoformat(timespec="seconds")}
                for t, s, r, a in rows]


def check_table_id(table_id: object) -> str:
    import re

    if not isinstance(table_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,31}", table_id):
        raise HouseError(f"{table_id!r} is not a table id: 1 to 32 lower-case letters, digits, "
                         "dashes or underscores, starting with a letter or digit")
    return table_id


def _check_shape(table_id: str, entry: object) -> tuple[int, dict]:
    """The entry's seq and body when it is shaped as Journal.chained() gives entries."""
    ok = (isinstance(entry, Mapping) and isinstance(entry.get("seq"), int)
          and isinstance(entry.get("prev"), str) and isinstance(entry.get("hash"), str)
          and isinstance(entry.get("body"), Mapping) and set(entry["body"]) == _BODY_KEYS)
    if ok:
        body = entry["body"]
        ok = (body["seq"] == entry["seq"] and isinstance(body["id"], str)
              and isinstance(body["kind"], str) and isinstance(body["args"], Mapping)
              and isinstance(body["legs"], list) and isinstance(body["at"], str)
              and all(isinstance(leg, list) and len(leg) == 4 and isinstance(leg[0], int)
                      and isinstance(leg[3], int) for leg in body["legs"]))
    if not ok:
        seq = entry.get("seq") if isinstance(entry, Mapping) else None
        raise Refused(f"table {table_id}: entry {seq!r} is not shaped as a journal entry: "
                      '{"seq", "prev", "hash", "body": {' + ", ".join(sorted(_BODY_KEYS))
                      + "}} with body.seq = seq", 400, seq if isinstance(seq, int) else None)
    return entry["seq"], dict(entry["body"])


def _when(at: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        return None
    return when if when.tzinfo else None


def _csv_line(values: Iterable) -> str:
    out = io.StringIO()
    csv.writer(out).writerow(values)
    return out.getvalue()
