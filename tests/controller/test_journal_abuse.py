"""The journal under abuse: its file touched only through SQLite, verified on one snapshot,
owned by one process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

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

    played, _ = accepted("hazard", 800, seed=5)
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


def test_every_configured_number_is_bounded():
    """Issue 14, item 5: no setting takes a number without an upper and a lower bound."""
    from controller.config import schema

    unbounded = [key for key, s in schema().items()
                 if s.choices is None and type(s.default) in (int, float)
                 and (s.minimum is None or s.maximum is None)]
    assert unbounded == []


@pytest.mark.parametrize("settings, words", [
    ({"caster_wins_pays": "99999999999999999999:1"}, "from 0:1 to 100000:1"),
    ({"caster_wins_pays": "1:99999999999999999999"}, "from 0:1 to 100000:1"),
    ({"max_bet": 10**15}, "max_bet = 1000000000000000"),
    ({"max_caster_wins": 10**15}, "max_caster_wins = 1000000000000000"),
])
def test_a_table_opened_with_an_unbounded_number_is_refused(path, settings, words):
    """A pay rate without bound let a win overflow SQLite's integers (OverflowError: a 500 and
    the end of `run --commands -`)."""
    from controller.errors import IllegalCommand

    table = Table(Journal(path))
    with pytest.raises(IllegalCommand, match=words):
        table.submit(Command("open", {"mode": "hazard", "settings": settings}, "open"))
    assert table.state is None and len(table.journal) == 0


def test_a_number_too_large_to_store_is_refused_and_changes_nothing(path, monkeypatch):
    """Whatever the rules produce, a leg SQLite cannot hold is a refusal, not a crash."""
    from controller import table as table_module
    from controller.errors import IllegalCommand
    from controller.ledger import Entry

    table = seated(path)
    before, seq = table.state, table.journal.last_seq()
    apply = table_module.games.apply

    def huge(state, cmd):
        new, events = apply(state, cmd)
        big = Entry("buy-in", (("cashier", -2**70), ("player:P1", 2**70)))
        return new, tuple(e.__class__(e.kind, e.data, (big,)) for e in events)

    monkeypatch.setattr(table_module.games, "apply", huge)
    with pytest.raises(IllegalCommand, match="too large"):
        table.submit(Command("buy-in", {"player": "P1", "amount": 1}, "huge"))
    assert table.state is before and table.journal.last_seq() == seq


def test_the_console_runner_answers_every_bad_line_and_goes_on(tmp_path):
    """Issue 14, item 5: `feltbank run --commands -` answers each bad line with an error line
    (3,000-deep nesting, a 5,001-digit number, not an object, a refused command) and takes
    the next; it never ends on one."""
    import json
    import os

    lines = [
        "[" * 3000 + "]" * 3000,
        '{"id": "a", "kind": "buy-in", "player": "Ann", "amount": ' + "9" * 5001 + "}",
        '{"id": "b", "kind": "buy-in", "player": "Ann", "amount": ' + "9" * 30 + "}",
        "[1, 2]",
        '{"id": 7, "kind": ["x"]}',
        '{"kind": "buy-in", "args": ' + '{"a": ' * 3000 + "1" + "}" * 3000 + "}",
        "caf\xe9 not UTF-8",
        '{"id": "j", "kind": "join", "player": "Ann"}',
    ]
    env = {**os.environ, "FELTBANK_DATA": str(tmp_path / "data"),
           "FELTBANK_CONFIG": str(tmp_path / "feltbank.toml")}
    (tmp_path / "feltbank.toml").write_text('[table]\nmode = "hazard"\n')
    feltbank = str(Path(sys.executable).with_name("feltbank"))
    done = subprocess.run([feltbank, "run", "--commands", "-"],
                          input=("\n".join(lines) + "\n").encode("latin-1"),
                          capture_output=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(answers) == len(lines), done.stdout
    assert all("error" in a for a in answers[:-1]), answers
    assert "nested" in answers[0]["error"]
    assert "digits" in answers[1]["error"]
    assert "at most" in answers[2]["error"]
    assert "UTF-8" in answers[6]["error"]
    assert answers[-1]["events"][0]["kind"] == "joined"


def test_one_process_owns_a_tables_journal(tmp_path):
    """Issue 14, item 2: a second `feltbank run` on the same data folder refuses to start
    and names the holder's pid; read-only tools work beside the running table."""
    import json
    import os

    feltbank = str(Path(sys.executable).with_name("feltbank"))
    env = {**os.environ, "FELTBANK_DATA": str(tmp_path / "data"),
           "FELTBANK_CONFIG": str(tmp_path / "feltbank.toml")}
    (tmp_path / "feltbank.toml").write_text('[table]\nmode = "hazard"\n')
    first = subprocess.Popen([feltbank, "run", "--commands", "-"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first.stdin.write('{"id": "j1", "kind": "join", "player": "Ann"}\n')
        first.stdin.flush()
        assert json.loads(first.stdout.readline())["events"][0]["kind"] == "joined"
        second = subprocess.run([feltbank, "run", "--commands", "-"], input='{"id": "j2", '
                                '"kind": "join", "player": "Bob"}\n', capture_output=True,
                                text=True, env=env, timeout=60)
        assert second.returncode == 1, second.stdout
        assert f"pid {first.pid}" in second.stderr and "in use" in second.stderr
        assert second.stdout == ""
        verify = subprocess.run([feltbank, "journal", "verify", "--json"], capture_output=True,
                                text=True, env=env, timeout=60)
        assert verify.returncode == 0, verify.stderr
        assert json.loads(verify.stdout)["balances"]["player:Ann"] == 0
        first.stdin.write('{"id": "b1", "kind": "buy-in", "player": "Ann", "amount": 5}\n')
        first.stdin.flush()
        assert json.loads(first.stdout.readline())["seq"] == 3
    finally:
        first.stdin.close()
        assert first.wait(timeout=60) == 0
        first.stdout.close()
        first.stderr.close()
    # The lock goes with its process: the next run starts.
    again = subprocess.run([feltbank, "run", "--commands", "-"], input="", capture_output=True,
                           text=True, env=env, timeout=60)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "data" / "journal.lock").exists()
