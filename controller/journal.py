"""The journal: every accepted command with its events and ledger legs, in SQLite.

One transaction per command, committed (WAL, synchronous=FULL) before anyone is told. The
state after a restart is the replay of the journal. Each command carries an id; the id is
unique, so a command can never be stored twice.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from controller import chain, games
from controller.errors import IllegalCommand, JournalError
from controller.games.base import Command, Event, State
from controller.ledger import Books, Entry

#: 'FBNK': marks a SQLite file as a feltbank journal.
APPLICATION_ID = 0x46424E4B



@dataclass(frozen=True)
class Migration:
    """A migration with a Python step: `sql` first, then `then(connection)`, in the same
    transaction; `then` returns a note for the log ("" for none)."""

    sql: str
    then: Callable[[sqlite3.Connection], str]


#: Schema migrations: MIGRATIONS[n] takes a journal from version n to n + 1 (SQL, or a
#: Migration when rows must be rewritten too).
MIGRATIONS: list[str | Migration] = [
    """
    CREATE TABLE commands (
        seq     INTEGER PRIMARY KEY,
        id      TEXT NOT NULL UNIQUE,
        kind    TEXT NOT NULL,
        args    TEXT NOT NULL,
        events  TEXT NOT NULL,
        source  TEXT NOT NULL DEFAULT '',
        at      TEXT NOT NULL
    );
    CREATE TABLE legs (
        seq     INTEGER NOT NULL REFERENCES commands(seq),
        entry   INTEGER NOT NULL,
        kind    TEXT NOT NULL,
        account TEXT NOT NULL,
        amount  INTEGER NOT NULL
    );
    CREATE INDEX legs_by_account ON legs(account);
    CREATE INDEX legs_by_seq ON legs(seq);
    """,
    # 2: the print queue. A receipt is queued in the transaction of the command it belongs
    # to (seq), or on its own (seq NULL: a statement, a report, a reprint).
    """
    CREATE TABLE receipts (
        id         INTEGER PRIMARY KEY,
        seq        INTEGER REFERENCES commands(seq),
        kind       TEXT NOT NULL,
        mode       TEXT NOT NULL DEFAULT '',
        data       TEXT NOT NULL,
        copy       INTEGER NOT NULL DEFAULT 0,
        state      TEXT NOT NULL DEFAULT 'queued',
        attempts   INTEGER NOT NULL DEFAULT 0,
        error      TEXT NOT NULL DEFAULT '',
        queued_at  TEXT NOT NULL,
        printed_at TEXT
    );
    CREATE INDEX receipts_waiting ON receipts(state, id);
    """,
    # 3: the hash chain (controller/chain.py): each command carries the SHA-256 of the one
    # before it; the commands already there are chained once, with a note in the log.
    Migration("ALTER TABLE commands ADD COLUMN hash TEXT NOT NULL DEFAULT ''",
              lambda db: _chain_existing(db)),
    # 4: what the camera read, kept with the commands it became: the faces and confidences
    # read, the banker's corrections and who made them, and the frame the reading came from.
    # `seq` is the reading's last command (its commands are `cam-<pending>-<n>`).
    """
    CREATE TABLE readings (
        pending     TEXT PRIMARY KEY,
        seq         INTEGER NOT NULL REFERENCES commands(seq),
        read        TEXT NOT NULL,
        corrections TEXT NOT NULL,
        confirmed_by TEXT NOT NULL DEFAULT '',
        frame       BLOB
    );
    CREATE INDEX readings_by_seq ON readings(seq);
    """,
    # 5: commands of one kind found without reading the journal (the game opened at each
    # command, for the journal's words: its `open` commands).
    "CREATE INDEX commands_by_kind ON commands(kind, seq);",
]
SCHEMA_VERSION = len(MIGRATIONS)

log = logging.getLogger(__name__)

#: Called inside the transaction that stores a command: (connection, seq, command, events).
TransactionHook = Callable[[sqlite3.Connection, int, Command, tuple[Event, ...]], None]


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Record:
    """A stored command: its place in the journal, what it asked, what happened."""

    seq: int
    command: Command
    events: tuple[Event, ...]
    source: str = ""
    at: str = ""

    def to_json(self) -> dict:
        return {"seq": self.seq, "at": self.at, "source": self.source, **self.command.to_json(),
                "events": [e.to_json() for e in self.events]}


@dataclass
class Verification:
    """What `journal verify` found."""

    commands: int = 0
    problems: list[str] = field(default_factory=list)
    balances: dict[str, int] = field(default_factory=dict)
    #: The hash of the last entry when the whole chain holds, else "".
    head: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


class Journal:
    """A feltbank journal file. Use as a context manager or call close()."""

    def __init__(self, path: str | Path, *, readonly: bool = False, create: bool = True):
        self.path = Path(path)
        self.readonly = readonly
        # The file is only ever touched through SQLite: closing any other descriptor of it
        # would drop this process's POSIX locks, and another opener would then take itself
        # for the last one and remove the WAL this process still writes into.
        exists = self.path.exists() and self.path.stat().st_size > 0
        if not exists and (readonly or not create):
            raise JournalError(f"{self.path}: no journal there")
        if not exists:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if readonly:
                self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                          isolation_level=None, check_same_thread=False)
            else:
                self.db = sqlite3.connect(self.path, isolation_level=None,
                                          check_same_thread=False)
            self._check_identity(exists)
            if not readonly:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self._migrate()
        except sqlite3.DatabaseError as exc:
            db = getattr(self, "db", None)
            if db is not None:
                db.close()
            if "file is not a database" in str(exc):
                raise JournalError(f"{self.path} is not a feltbank journal: not a SQLite file "
                                   "(corrupt, or something else); nothing was changed"
                                   ) from None
            raise JournalError(f"{self.path} is not a usable journal: {exc}") from None

    def _check_identity(self, exists: bool) -> None:
        app_id = self.db.execute("PRAGMA application_id").fetchone()[0]
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if exists and app_id != APPLICATION_ID and (tables or version):
            self.db.close()
            raise JournalError(f"{self.path} is a SQLite file of another program "
                               f"(application_id {app_id:#x}); nothing was changed")
        if version > SCHEMA_VERSION:
            self.db.close()
            raise JournalError(f"{self.path} has journal schema {version}, written by a newer "
                               f"feltbank; this one reads up to schema {SCHEMA_VERSION}. "
                               "Upgrade feltbank; nothing was changed")
        if self.readonly and version < SCHEMA_VERSION:
            self.db.close()
            raise JournalError(f"{self.path} has journal schema {version}; open it once with "
                               f"feltbank run to migrate it to schema {SCHEMA_VERSION}")

    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            notes = []
            for n in range(version, SCHEMA_VERSION):
                step = MIGRATIONS[n]
                sql = step.sql if isinstance(step, Migration) else step
                for statement in sql.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                if isinstance(step, Migration):
                    notes.append(step.then(self.db))
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        for note in filter(None, notes):
            log.warning("%s upgraded from journal schema %d to %d: %s", self.path, version,
                        SCHEMA_VERSION, note)

    @property
    def schema_version(self) -> int:
        return self.db.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ------------------------------------------------------------------------------

    def append(self, command: Command, events: Iterable[Event], *, source: str = "",
               at: str = "", hooks: Iterable[TransactionHook] = ()) -> int:
        """Store one accepted command with its events and legs in one transaction; its seq."""
        return self.append_many([(command, tuple(events), source, at)], hooks=hooks)[0]

    def append_many(self, items: Iterable[tuple[Command, tuple[Event, ...], str, str]],
                    hooks: Iterable[TransactionHook] = ()) -> list[int]:
        """Store several commands in one transaction (bulk import); their seqs."""
        if self.readonly:
            raise JournalError(f"{self.path} is open read-only")
        db = self.db
        seqs = []
        db.execute("BEGIN IMMEDIATE")
        try:
            seq, previous = db.execute(
                "SELECT seq, hash FROM commands ORDER BY seq DESC LIMIT 1").fetchone() or (
                0, chain.GENESIS)
            for command, events, source, at in items:
                if not command.id:
                    raise JournalError("a command needs an id to be journaled")
                seq += 1
                args, shown = dict(command.args), [e.to_json() for e in events]
                legs = []
                n = 0
                for event in events:
                    for entry in event.entries:
                        legs += [(seq, n, entry.kind, account, amount)
                                 for account, amount in entry.legs]
                        n += 1
                previous = chain.link(previous, chain.body(
                    seq, command.id, command.kind, args, shown, [leg[1:] for leg in legs],
                    source, at))
                db.execute(
                    "INSERT INTO commands (seq, id, kind, args, events, source, at, hash) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (seq, command.id, command.kind, _dumps(args), _dumps(shown), source, at,
                     previous),
                )
                db.executemany(
                    "INSERT INTO legs (seq, entry, kind, account, amount) VALUES (?, ?, ?, ?, ?)",
                    legs,
                )
                for hook in hooks:
                    hook(db, seq, command, events)
                seqs.append(seq)
            db.execute("COMMIT")
        except sqlite3.IntegrityError as exc:
            db.execute("ROLLBACK")
            raise JournalError(f"command id already in the journal: {exc}") from None
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return seqs

    # -- reading ------------------------------------------------------------------------------

    def _record(self, row: tuple) -> Record:
        seq, cid, kind, args, events, source, at = row
        return Record(seq, Command(kind, json.loads(args), cid),
                      tuple(Event.from_json(e) for e in json.loads(events)), source, at)

    def find(self, command_id: str) -> Record | None:
        """The stored command with this id, if any."""
        row = self.db.execute(
            "SELECT seq, id, kind, args, events, source, at FROM commands WHERE id = ?",
            (command_id,),
        ).fetchone()
        return self._record(row) if row else None

    def records(self, after: int = 0) -> Iterator[Record]:
        """Every stored command after `after`, in order."""
        rows = self.db.execute(
            "SELECT seq, id, kind, args, events, source, at FROM commands WHERE seq > ? "
            "ORDER BY seq", (after,))
        for row in rows:
            yield self._record(row)

    def commands(self) -> Iterator[Command]:
        """Every stored command in order, without parsing the events (fast, for rebuilds)."""
        for cid, kind, args in self.db.execute("SELECT id, kind, args FROM commands ORDER BY seq"):
            yield Command(kind, json.loads(args), cid)

    def __len__(self) -> int:
        return self.db.execute("SELECT count(*) FROM commands").fetchone()[0]

    def last_seq(self) -> int:
        return self.db.execute("SELECT coalesce(max(seq), 0) FROM commands").fetchone()[0]

    # -- the hash chain (controller/chain.py) ---------------------------------------------------

    def head(self) -> tuple[int, str]:
        """The last entry's seq and hash: (0, GENESIS) for an empty journal."""
        row = self.db.execute("SELECT seq, hash FROM commands ORDER BY seq DESC LIMIT 1"
                              ).fetchone()
        return (row[0], row[1]) if row else (0, chain.GENESIS)

    def chained(self, after: int = 0, limit: int | None = None) -> Iterator[dict]:
        """Entries after seq `after` as the chain sees them: {"seq", "prev", "hash", "body"}
        (body: chain.body()), in order; what the outbox ships and the house keeps."""
        yield from _chained(self.db, after, limit)

    def check_chain(self) -> tuple[str, str]:
        """(head, "") when every entry matches its hash, else ("", the first break named)."""
        expected_seq, previous = 1, chain.GENESIS
        for entry in _chained(self.db, 0, None):
            seq, cid = entry["seq"], entry["body"]["id"]
            if seq != expected_seq:
                return "", (f"seq {seq} ({cid}): the hash chain breaks here: the entries "
                            f"from seq {expected_seq} to {seq - 1} are missing")
            if entry["hash"] != chain.link(previous, entry["body"]):
                return "", (f"seq {seq} ({cid}): the hash chain breaks here: the entry does "
                            "not match its hash (edited after it was written)")
            previous, expected_seq = entry["hash"], seq + 1
        return previous, ""

    def restore(self, entries: Iterable[Mapping]) -> int:
        """Write chained entries (as `chained()` gives them) into this empty journal, each
        checked against its hash first; how many. All or nothing."""
        if self.readonly:
            raise JournalError(f"{self.path} is open read-only")
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("SELECT count(*) FROM commands").fetchone()[0]:
                raise JournalError(f"{self.path} already holds commands: restore writes only "
                                   "into a new, empty journal; nothing was changed")
            previous, n = chain.GENESIS, 0
            for entry in entries:
                b = entry["body"]
                n += 1
                if b["seq"] != n or entry["hash"] != chain.link(previous, b):
                    raise JournalError(f"entry seq {b['seq']} does not follow the chain "
                                       f"(expected seq {n} after {chain.short(previous)}); "
                                       "nothing was written")
                db.execute(
                    "INSERT INTO commands (seq, id, kind, args, events, source, at, hash) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (n, b["id"], b["kind"], _dumps(b["args"]), _dumps(b["events"]),
                     b["source"], b["at"], entry["hash"]))
                db.executemany(
                    "INSERT INTO legs (seq, entry, kind, account, amount) VALUES (?, ?, ?, ?, ?)",
                    [(n, *leg) for leg in b["legs"]])
                previous = entry["hash"]
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return n

    def entries(self) -> Iterator[Entry]:
        """Every ledger entry in order, rebuilt from the stored legs."""
        for _, entries in self._entries_by_seq():
            yield from entries

    def _entries_by_seq(self) -> Iterator[tuple[int, list[Entry]]]:
        rows = self.db.execute("SELECT seq, entry, kind, account, amount FROM legs "
                               "ORDER BY seq, entry, rowid")
        key, kind, legs = None, "", []
        entries: list[Entry] = []
        for seq, entry, k, account, amount in rows:
            if (seq, entry) != key:
                if legs:
                    entries.append(Entry(kind, tuple(legs)))
                if key is not None and seq != key[0]:
                    yield key[0], entries
                    entries = []
                key, kind, legs = (seq, entry), k, []
            legs.append((account, amount))
        if legs:
            entries.append(Entry(kind, tuple(legs)))
            yield key[0], entries

    def books(self) -> Books:
        """The session's figures (statements, kinds, the house's result) from one snapshot;
        the table keeps them up to date from there on."""
        books = Books()
        with self.snapshot():
            for seq, entries in self._entries_by_seq():
                books.add(seq, None, entries)
            books.kinds |= {k for (k,) in self.db.execute("SELECT DISTINCT kind FROM commands")}
        return books

    def latest(self, limit: int, kind: str = "", text: str = "") -> list[Record]:
        """The last `limit` records, newest first; only those of command `kind` and those
        whose arguments or events hold `text` (any case), when given. Reads from the end of
        the journal and stops there: its length does not matter."""
        rows = self.db.execute(
            "SELECT seq, id, kind, args, events, source, at FROM commands WHERE "
            + ("kind = :kind AND " if kind else "")  # then by its index (commands_by_kind)
            + "(:text = '' OR instr(lower(args || ' ' || events), :text) > 0) "
            "ORDER BY seq DESC LIMIT :limit",
            {"kind": kind, "text": text.lower(), "limit": limit})
        return [self._record(row) for row in rows]

    def add_reading(self, db: sqlite3.Connection, seq: int, reading: Mapping) -> None:
        """Keep what the camera read with the command `seq` (inside its transaction)."""
        db.execute(
            "INSERT INTO readings (pending, seq, read, corrections, confirmed_by, frame) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (reading["pending"], seq, _dumps(reading["read"]),
             _dumps({"changed": reading.get("corrections", []),
                     "confirmed": reading.get("confirmed", [])}),
             reading.get("confirmed_by", ""),
             reading.get("frame")))

    def readings(self, seqs: Iterable[int] | None = None) -> dict[int, dict]:
        """The camera readings kept with these commands (all when None), by seq, without
        the frames."""
        query = ("SELECT pending, seq, read, corrections, confirmed_by, frame IS NOT NULL "
                 "FROM readings")
        if seqs is None:
            batches = [self.db.execute(query + " ORDER BY seq")]
        else:
            wanted = sorted(set(seqs))
            batches = [self.db.execute(query + f" WHERE seq IN ({','.join('?' * len(part))})",
                                       part)
                       for part in (wanted[i:i + 500] for i in range(0, len(wanted), 500))]
        out: dict[int, dict] = {}
        for rows in batches:
            for pending, seq, read, corrections, by, framed in rows:
                taps = json.loads(corrections)
                out[seq] = {"pending": pending, "read": json.loads(read),
                            "corrections": taps["changed"], "confirmed": taps["confirmed"],
                            "confirmed_by": by, "frame": bool(framed)}
        return out

    def reading_frame(self, seq: int) -> bytes | None:
        """The JPEG frame the reading of command `seq` came from, if kept."""
        row = self.db.execute("SELECT frame FROM readings WHERE seq = ?", (seq,)).fetchone()
        return bytes(row[0]) if row and row[0] is not None else None

    def account_sums(self) -> dict[str, int]:
        """Each account's balance as the sum of its stored legs."""
        rows = self.db.execute("SELECT account, sum(amount) FROM legs GROUP BY account")
        return {a: s for a, s in rows if s != 0 or a.startswith("player:")}

    # -- replay -------------------------------------------------------------------------------

    def rebuild(self) -> State | None:
        """The table's state: every stored command replayed from scratch."""
        state: State | None = None
        for cmd in self.commands():
            try:
                state, _ = games.apply(state, cmd)
            except IllegalCommand as exc:
                raise JournalError(f"{self.path}: stored command {cmd.id!r} ({cmd.kind}) is "
                                   f"refused on replay: {exc}. Run feltbank journal verify"
                                   ) from None
        return state

    @contextmanager
    def snapshot(self) -> Iterator[Journal]:
        """Every read inside sees the journal as of one moment (one read transaction), however
        many commands the running table commits meanwhile (WAL: it never waits for us)."""
        if self.db.in_transaction:
            yield self
            return
        self.db.execute("BEGIN")
        try:
            yield self
        finally:
            self.db.execute("COMMIT")

    def verify(self) -> Verification:
        """Replay every command from scratch and check events, legs and every balance, all
        read from one snapshot."""
        with self.snapshot():
            return self._verify()

    def _verify(self) -> Verification:
        report = Verification()
        head, broken = self.check_chain()
        if broken:
            report.problems.append(broken)
        report.head = head
        state: State | None = None
        for record in self.records():
            report.commands += 1
            try:
                state, events = games.apply(state, record.command)
            except IllegalCommand as exc:
                report.problems.append(f"seq {record.seq} ({record.command.id}): refused on "
                                       f"replay: {exc}")
                break
            if [e.to_json() for e in events] != [e.to_json() for e in record.events]:
                report.problems.append(f"seq {record.seq} ({record.command.id}): replay gives "
                                       "other events than the journal holds")
        for seq, entry, total in self.db.execute(
            "SELECT seq, entry, sum(amount) FROM legs GROUP BY seq, entry HAVING sum(amount) != 0"
        ):
            report.problems.append(f"seq {seq}: entry {entry}'s legs sum to {total}, not zero")
        stored = self.account_sums()
        replayed = dict(state.ledger.balances) if state else {}
        for account in sorted(set(stored) | set(replayed)):
            if stored.get(account, 0) != replayed.get(account, 0):
                report.problems.append(f"{account}: the journal's legs give "
                                       f"{stored.get(account, 0)}, the replay gives "
                                       f"{replayed.get(account, 0)}")
        if sum(replayed.values()) != 0:
            report.problems.append(f"balances sum to {sum(replayed.values())}, not zero")
        report.balances = dict(sorted(replayed.items()))
        return report


def _chained(db: sqlite3.Connection, after: int, limit: int | None) -> Iterator[dict]:
    """Entries after `after` with their legs, merged from two ordered reads."""
    bound = "" if limit is None else f" LIMIT {int(limit)}"
    rows = db.execute("SELECT seq, id, kind, args, events, source, at, hash FROM commands "
                      f"WHERE seq > ? ORDER BY seq{bound}", (after,)).fetchall()
    if not rows:
        return
    legs: dict[int, list] = {}
    for seq, entry, kind, account, amount in db.execute(
            "SELECT seq, entry, kind, account, amount FROM legs WHERE seq BETWEEN ? AND ? "
            "ORDER BY seq, entry, rowid", (rows[0][0], rows[-1][0])):
        legs.setdefault(seq, []).append((entry, kind, account, amount))
    before = db.execute("SELECT hash FROM commands WHERE seq = ?", (after,)).fetchone()
    previous = before[0] if before else chain.GENESIS
    for seq, cid, kind, args, events, source, at, digest in rows:
        yield {"seq": seq, "prev": previous, "hash": digest,
               "body": chain.body(seq, cid, kind, json.loads(args), json.loads(events),
                                  legs.get(seq, []), source, at)}
        previous = digest


def _chain_existing(db: sqlite3.Connection) -> str:
    """Schema 3: hash-chain the commands written before the chain existed."""
    previous, n = chain.GENESIS, 0
    for entry in list(_chained(db, 0, None)):
        previous = chain.link(previous, entry["body"])
        db.execute("UPDATE commands SET hash = ? WHERE seq = ?", (previous, entry["seq"]))
        n += 1
    if not n:
        return ""
    return (f"its {n} commands are now hash-chained (head {chain.short(previous)}); "
            "`feltbank journal verify` checks the chain from now on")
