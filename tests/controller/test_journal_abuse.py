"""The journal under abuse: its file touched only through SQLite, verified on one snapshot,
owned by one process."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from controller.games.base import Command
from controller.games.play import seated_table
from controller.journal import Journal
from controller.table import Table


@pytest.fixture
def path(tmp_path):
    return tmp_path / "journal.sqlite3"


def seated(path) -> Table:
    table = Table(Journal(path))
    for cmd in seated_table("hazard", players=2, coins=100):
        table.submit(cmd)
    return table


def in_another_process(code: str) -> str:
    """Run `code` in a fresh python (another process: its own POSIX locks); its output."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_reader_of_the_journal_never_drops_the_writers_locks(path):
    """Issue 14, item 1, exactly: the server writes; a page opens and closes a read-only
    journal in the server's process; another process opens the file read-write, queries and
    closes; the server then acknowledges 20 more commands. Every one of them must be in the
    file as any other process sees it (with the WAL unlinked, all 20 were gone)."""
    table = seated(path)
    for n in range(5):
        table.submit(Command("buy-in", {"player": "P1", "amount": 1}, f"before-{n}"))
    # A dashboard page: a read-only journal opened and closed in the server's process.
    Journal(path, readonly=True).close()
    # Another read-write opener (a plain sqlite3.connect that queries and closes).
    in_another_process(f"""
        import sqlite3
        db = sqlite3.connect({str(path)!r})
        db.execute("SELECT count(*) FROM commands").fetchone()
        db.close()
    """)
    acknowledged = [table.submit(Command("buy-in", {"player": "P1", "amount": 1}, f"ack-{n}"))
                    for n in range(20)]
    assert not any(o.repeated for o in acknowledged)
    # What a restart after a SIGKILL would find: the file as another process reads it.
    seen = in_another_process(f"""
        import sqlite3
        db = sqlite3.connect("file:{path}?mode=ro", uri=True)
        print(db.execute("SELECT count(*) FROM commands WHERE id LIKE 'ack-%'").fetchone()[0])
    """)
    assert seen == "20"
    wal = path.with_name(path.name + "-wal")
    assert wal.exists(), "the WAL the server writes into was removed under it"
    table.journal.close()


def test_the_journal_file_is_never_opened_with_python_open(path, monkeypatch):
    """Closing any descriptor of a SQLite file drops the process's locks on it: the journal
    touches its file only through SQLite."""
    seated(path).journal.close()
    import builtins
    import io
    import os

    real_open, real_io_open, real_os_open = builtins.open, io.open, os.open
    touched = []

    def watch(real):
        def opener(file, *args, **kwargs):
            if str(file).startswith(str(path)):
                touched.append(str(file))
            return real(file, *args, **kwargs)
        return opener

    monkeypatch.setattr(builtins, "open", watch(real_open))
    monkeypatch.setattr(io, "open", watch(real_io_open))
    monkeypatch.setattr(os, "open", watch(real_os_open))
    Journal(path).close()
    Journal(path, readonly=True).close()
    assert touched == []


def test_verify_on_a_live_table_reads_one_snapshot(path, monkeypatch):
    """Issue 14, item 3: commands committed while `journal verify` replays are not in its
    snapshot; replay and account sums agree (no false alarm)."""
    from controller import games

    table = seated(path)
    real_apply = games.apply
    writes = iter(range(3))

    def apply_while_the_table_plays(state, cmd):
        # Each replayed command lets the live table commit one more (up to three).
        outcome = real_apply(state, cmd)
        n = next(writes, None)
        if n is not None:
            monkeypatch.setattr(games, "apply", real_apply)
            table.submit(Command("buy-in", {"player": "P1", "amount": 7}, f"live-{n}"))
            monkeypatch.setattr(games, "apply", apply_while_the_table_plays)
        return outcome

    with Journal(path, readonly=True) as reader:
        before = len(reader)
        monkeypatch.setattr(games, "apply", apply_while_the_table_plays)
        report = reader.verify()
        monkeypatch.setattr(games, "apply", real_apply)
        assert report.problems == []
        assert report.commands == before
        assert len(reader) == before + 3  # the snapshot ended with verify
    table.journal.close()


def test_the_books_kept_command_by_command_match_the_whole_journal(path):
    """Issue 14, item 12: statements, kinds and the house's result are kept as commands are
    stored; they equal a full recount of the journal, before and after a restart."""
    from controller.games.play import accepted
    from controller.ledger import Books, statements

    played, _ = accepted("hazard", 3000, seed=5)
    table = Table(Journal(path))
    for cmd, _ in played:
        table.submit(cmd)
    full = statements(table.journal.entries())
    assert table.statements() == full
    bank, series = 0, []
    for record in table.journal.records():
        legs = [a for e in record.events for entry in e.entries for acc, a in entry.legs
                if acc == "bank"]
        if legs:
            bank += sum(legs)
            series.append((record.seq, bank))
    assert table.house_series() == series
    assert table.command_kinds() == sorted({r.command.kind for r in table.journal.records()})
    # Thinned for a chart: at most `points` points, each one real, every extreme kept.
    books = Books(points=40)
    for record in table.journal.records():
        books.add(record.seq, record.command.kind,
                  [entry for e in record.events for entry in e.entries])
    kept = books.house_series()
    assert len(kept) <= 41 < len(series)
    assert set(kept) <= set(series)
    assert kept[-1] == series[-1]
    assert min(p[1] for p in kept) == min(p[1] for p in series)
    assert max(p[1] for p in kept) == max(p[1] for p in series)
    table.journal.close()
    again = Table(Journal(path))
    assert again.statements() == full
    assert again.house_series() == series
    again.journal.close()
