"""The SQLite journal and the table service: committed first, never twice, rebuilt on start."""

from __future__ import annotations

import sqlite3

import pytest

from controller import journal as journal_module
from controller.errors import IllegalCommand, JournalError
from controller.games.base import Command
from controller.games.play import seated_table
from controller.journal import APPLICATION_ID, SCHEMA_VERSION, Journal
from controller.ledger import statements
from controller.table import CommandIdReused, Table


@pytest.fixture
def path(tmp_path):
    return tmp_path / "journal.sqlite3"


def seated(path) -> Table:
    table = Table(Journal(path))
    for cmd in seated_table("hazard", players=2, coins=100):
        table.submit(cmd)
    return table


def test_new_journal_is_marked_versioned_and_in_wal_mode(path):
    with Journal(path) as j:
        assert j.schema_version == SCHEMA_VERSION
        assert j.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert j.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert j.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_state_is_rebuilt_from_the_journal_on_start(path):
    table = seated(path)
    table.submit(Command("call-main", {"main": 7}, "m1"))
    table.submit(Command("bet", {"player": "P1", "bet": "caster-wins", "amount": 10}, "b1"))
    table.submit(Command("throw", {"dice": [3, 4]}, "t1"))
    state = table.state
    table.journal.close()
    again = Table(Journal(path))
    assert again.state == state
    assert again.state.ledger.players() == {"P1": 110, "P2": 100}
    assert again.journal.verify().ok


def test_a_repeated_id_returns_the_first_result_and_is_never_applied_twice(path):
    table = seated(path)
    first = table.submit(Command("buy-in", {"player": "P1", "amount": 5}, "same"))
    second = table.submit(Command("buy-in", {"player": "P1", "amount": 5}, "same"))
    assert second.repeated and not first.repeated
    assert (second.seq, second.events) == (first.seq, first.events)
    assert table.state.ledger.players()["P1"] == 105
    with pytest.raises(CommandIdReused, match="already used for a 'buy-in'"):
        table.submit(Command("buy-in", {"player": "P1", "amount": 6}, "same"))
    assert table.state.ledger.players()["P1"] == 105


def test_a_refused_command_is_not_journaled(path):
    table = seated(path)
    n = len(table.journal)
    with pytest.raises(IllegalCommand, match="holds 100 coins"):
        table.submit(Command("cash-out", {"player": "P1", "amount": 101}))
    assert len(table.journal) == n


def test_listeners_hear_after_the_commit_and_a_broken_one_stops_nothing(path, caplog):
    table = seated(path)
    heard = []

    def listener(outcome):
        heard.append((outcome.seq, table.journal.find(outcome.command.id) is not None))

    table.subscribe(lambda outcome: 1 / 0)
    table.subscribe(listener)
    outcome = table.submit(Command("call-main", {"main": 6}))
    assert heard == [(outcome.seq, True)]
    assert "listener" in caplog.text


def test_a_failing_transaction_hook_rolls_the_command_back(path):
    table = seated(path)
    seen = []

    def hook(db, seq, cmd, events):
        db.execute("CREATE TABLE IF NOT EXISTS hook_log (seq INTEGER)")
        db.execute("INSERT INTO hook_log VALUES (?)", (seq,))
        seen.append(seq)
        if cmd.kind == "throw":
            raise RuntimeError("printer queue full")

    table.add_transaction_hook(hook)
    table.submit(Command("call-main", {"main": 6}, "m"))
    state, n = table.state, len(table.journal)
    with pytest.raises(RuntimeError):
        table.submit(Command("throw", {"dice": [1, 1]}, "t"))
    assert table.state == state and len(table.journal) == n
    rows = table.journal.db.execute("SELECT seq FROM hook_log").fetchall()
    assert rows == [(seen[0],)]


def test_a_journal_that_cannot_write_refuses_the_command_and_changes_nothing(path):
    table = seated(path)
    state, n = table.state, len(table.journal)

    def full(db, seq, cmd, events):
        raise sqlite3.OperationalError("database or disk is full")

    table.add_transaction_hook(full)
    with pytest.raises(JournalError, match=r"could not store 'call-main': the disk is full "
                                           r"\(database or disk is full\); nothing changed"):
        table.submit(Command("call-main", {"main": 6}))
    assert table.state == state and len(table.journal) == n


def test_statements_from_the_journal(path):
    table = seated(path)
    table.submit(Command("call-main", {"main": 7}))
    table.submit(Command("bet", {"player": "P2", "bet": "caster-loses", "amount": 20}))
    table.submit(Command("throw", {"dice": [1, 1]}))
    stmts = table.statements()
    # Even money less a commission of 5% of the win, rounded down.
    assert stmts["P2"].net == 19 and stmts["P1"].net == 0
    assert stmts == statements(Journal(path, readonly=True).entries())


def test_verify_finds_a_tampered_journal(path):
    seated(path).journal.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE legs SET amount = amount + 1 WHERE account = 'player:P1'")
    db.commit()
    db.close()
    report = Journal(path, readonly=True).verify()
    assert not report.ok
    assert any("legs sum to 1" in p for p in report.problems)
    assert any("player:P1: the journal's legs give 10001" in p or "player:P1" in p
               for p in report.problems)


# -- bad files: a clear error naming the file, nothing written ------------------------------------

def unchanged(path, fn):
    before = path.read_bytes()
    with pytest.raises(JournalError) as info:
        fn()
    assert path.read_bytes() == before
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    return str(info.value)


def test_a_corrupt_file_is_refused(path):
    path.write_bytes(b"this is not a database at all" * 100)
    message = unchanged(path, lambda: Journal(path))
    assert str(path) in message and "not a SQLite file" in message


def test_a_damaged_sqlite_file_is_refused(path):
    path.write_bytes(b"SQLite format 3\0" + b"\xff" * 4000)
    message = unchanged(path, lambda: Journal(path))
    assert str(path) in message


def test_a_foreign_sqlite_file_is_refused(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.commit()
    db.close()
    message = unchanged(path, lambda: Journal(path))
    assert "another program" in message and str(path) in message


def test_a_journal_from_a_newer_schema_is_refused(path):
    Journal(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    for fn in (lambda: Journal(path), lambda: Journal(path, readonly=True)):
        message = unchanged(path, fn)
        assert "newer feltbank" in message


def test_missing_journal_for_reading(path):
    with pytest.raises(JournalError, match="no journal there"):
        Journal(path, readonly=True)
    assert not path.exists()


def test_migrations_run_in_order_and_only_once(path, monkeypatch):
    seated(path).journal.close()
    monkeypatch.setattr(journal_module, "MIGRATIONS", [
        *journal_module.MIGRATIONS,
        "ALTER TABLE commands ADD COLUMN operator TEXT NOT NULL DEFAULT ''",
    ])
    monkeypatch.setattr(journal_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with Journal(path) as j:
        assert j.schema_version == SCHEMA_VERSION + 1
        cols = [r[1] for r in j.db.execute("PRAGMA table_info(commands)")]
        assert "operator" in cols
        assert j.verify().ok
    with Journal(path) as j:  # a second open migrates nothing
        assert j.schema_version == SCHEMA_VERSION + 1


def test_a_failing_migration_leaves_the_old_schema(path, monkeypatch):
    seated(path).journal.close()
    monkeypatch.setattr(journal_module, "MIGRATIONS", [*journal_module.MIGRATIONS,
                                                       "ALTER TABLE nowhere ADD COLUMN x"])
    monkeypatch.setattr(journal_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(JournalError, match="not a usable journal"):
        Journal(path)
    monkeypatch.undo()
    with Journal(path) as j:
        assert j.schema_version == SCHEMA_VERSION and j.verify().ok
