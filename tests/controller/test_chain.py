"""The journal's hash chain: every entry carries the hash of the one before it; an edit, a
removed entry or a changed leg is named by `journal verify`; old journals are chained once."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from controller import chain
from controller.cli import main
from controller.errors import JournalError
from controller.games.base import Command
from controller.games.play import seated_table
from controller.journal import MIGRATIONS, SCHEMA_VERSION, Journal
from controller.printqueue import house_report_data, statement_data
from controller.table import Table


@pytest.fixture
def path(tmp_path):
    return tmp_path / "journal.sqlite3"


def played(path) -> Table:
    table = Table(Journal(path))
    for cmd in seated_table("hazard", players=2, coins=100):
        table.submit(cmd)
    table.submit(Command("call-main", {"main": 7}, "m1"))
    table.submit(Command("bet", {"player": "P1", "bet": "caster-wins", "amount": 10}, "b1"))
    table.submit(Command("throw", {"dice": [3, 4]}, "t1"))
    return table


def edit(path, sql: str) -> None:
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()


def test_each_entry_carries_the_hash_of_the_one_before(path):
    table = played(path)
    entries = list(table.journal.chained())
    previous = chain.GENESIS
    for entry in entries:
        assert entry["prev"] == previous
        assert entry["hash"] == chain.link(previous, entry["body"])
        previous = entry["hash"]
    assert table.journal.head() == (entries[-1]["seq"], previous)
    report = table.journal.verify()
    assert report.ok and report.head == previous
    # The legs are part of what is hashed, not only the events.
    assert entries[-1]["body"]["legs"]
    assert list(table.journal.chained(after=entries[2]["seq"]))[0]["prev"] == entries[2]["hash"]


@pytest.mark.parametrize("sql, named", [
    ("UPDATE commands SET args = replace(args, '10', '11') WHERE id = 'b1'", "(b1)"),
    ("UPDATE legs SET amount = amount + 1 WHERE seq = (SELECT seq FROM commands "
     "WHERE id = 'b1') AND amount > 0", "(b1)"),
    ("UPDATE commands SET at = '2020-01-01T00:00:00.000+00:00' WHERE id = 'm1'", "(m1)"),
])
def test_an_edited_entry_is_named_as_the_first_break(path, sql, named, capsys):
    played(path).journal.close()
    edit(path, sql)
    report = Journal(path, readonly=True).verify()
    assert not report.ok and report.head == ""
    assert named in report.problems[0] and "hash chain breaks here" in report.problems[0]
    assert "edited" in report.problems[0]
    assert main(["journal", "verify", "--journal", str(path)]) == 1
    out = capsys.readouterr().out
    assert named in out.splitlines()[0]


def test_a_removed_entry_is_named(path):
    played(path).journal.close()
    edit(path, "DELETE FROM legs WHERE seq = 3")
    edit(path, "DELETE FROM commands WHERE seq = 3")
    report = Journal(path, readonly=True).verify()
    assert report.problems[0].startswith("seq 4 ")
    assert "from seq 3 to 3 are missing" in report.problems[0]


def test_verify_prints_the_short_head(path, capsys):
    head = played(path).journal.head()[1]
    assert main(["journal", "verify", "--journal", str(path)]) == 0
    assert f"chain head {head[:12]}: ok" in capsys.readouterr().out


def test_an_old_journal_is_chained_once_with_a_message(path, caplog):
    played(path).journal.close()
    # Make it a schema-2 journal, as written before the chain: no hash column.
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, id, kind, args, events, source, at FROM commands").fetchall()
    legs = db.execute("SELECT seq, entry, kind, account, amount FROM legs").fetchall()
    db.executescript("DROP TABLE IF EXISTS readings; DROP TABLE receipts; DROP TABLE legs; "
                     "DROP TABLE commands;")
    for n in range(2):
        db.executescript(MIGRATIONS[n])
    db.executemany("INSERT INTO commands VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    db.executemany("INSERT INTO legs VALUES (?, ?, ?, ?, ?)", legs)
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="open it once with feltbank run"):
        Journal(path, readonly=True)
    with caplog.at_level(logging.WARNING, logger="controller.journal"):
        with Journal(path) as j:
            head = j.head()[1]
            assert j.verify().ok
    [note] = [r.getMessage() for r in caplog.records]
    assert f"upgraded from journal schema 2 to {SCHEMA_VERSION}" in note
    assert f"its {len(rows)} commands are now hash-chained (head {head[:12]})" in note
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="controller.journal"):
        table = Table(Journal(path))  # once: the second open says nothing
        table.submit(Command("call-main", {"main": 6}, "m2"))
        assert table.journal.verify().ok
    assert not caplog.records


def test_restore_writes_a_verified_copy_and_refuses_a_broken_chain(path, tmp_path):
    table = played(path)
    entries = list(table.journal.chained())
    with Journal(tmp_path / "copy.sqlite3") as copy:
        assert copy.restore(entries) == len(entries)
        report = copy.verify()
        assert report.ok and report.head == table.journal.head()[1]
        assert copy.rebuild() == table.state
        with pytest.raises(JournalError, match="already holds commands"):
            copy.restore(entries)
    bad = [dict(e) for e in entries]
    bad[3] = {**bad[3], "body": {**bad[3]["body"], "source": "forged"}}
    with Journal(tmp_path / "bad.sqlite3") as copy:
        with pytest.raises(JournalError, match="entry seq 4 does not follow the chain"):
            copy.restore(bad)
        assert len(copy) == 0


def test_slips_carry_the_short_head(path):
    table = played(path)
    head = table.journal.head()[1]
    assert statement_data(table, "P1")["chain"] == head[:12]
    assert house_report_data(table)["chain"] == head[:12]
    from hardware.receipts import render

    for kind, data in (("statement", statement_data(table, "P1")),
                       ("house-report", house_report_data(table))):
        assert head[:12].encode() in render(kind, {**data, "table": "T", "time": "now"})
