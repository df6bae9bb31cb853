"""The table's thread rules: one snapshot for readers, several commands in one transaction."""

from __future__ import annotations

import threading

import pytest

from controller.errors import IllegalCommand
from controller.games.base import Command
from controller.games.play import seated_table
from controller.journal import Journal
from controller.table import Table


@pytest.fixture
def table(tmp_path):
    t = Table(Journal(tmp_path / "journal.sqlite3"))
    for cmd in seated_table("fortunes-winds", players=2, coins=100):
        t.submit(cmd)
    yield t
    t.journal.close()


def bet(n=1):
    return Command("bet", {"player": "P1", "bet": "standard", "amount": 2}, f"bet-{n}")


def test_several_commands_go_into_the_journal_together_or_not_at_all(table):
    before, seq = table.state, table.snapshot().seq
    roll = Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}, "roll-1")
    bad = Command("set-aside", {"dice": ["MOON"]}, "aside-1")  # the Moon die is never kept
    with pytest.raises(IllegalCommand):
        table.submit_many([bet(), roll, bad])
    assert table.state is before and len(table.journal) == seq and table.snapshot().seq == seq
    told = []
    table.subscribe(told.append)
    outcomes = table.submit_many([bet(), roll])
    assert [o.seq for o in outcomes] == [seq + 1, seq + 2] == [o.seq for o in told]
    assert table.state.roll == 1 and table.snapshot().seq == seq + 2
    again = table.submit_many([bet(), roll])  # the same ids: answered, not applied again
    assert all(o.repeated for o in again) and len(table.journal) == seq + 2
    with pytest.raises(IllegalCommand, match="given twice"):
        buy = Command("buy-in", {"player": "P2", "amount": 5}, "buy-twice")
        table.submit_many([buy, buy])
    assert len(table.journal) == seq + 2


def test_a_snapshot_is_one_moment_while_commands_land(table):
    """Readers on other threads see seq, state and engine of the same moment."""
    stop = threading.Event()
    bad: list = []

    def read():
        while not stop.is_set():
            now = table.snapshot()
            if now.state.mode != now.engine.name or now.view()["seq"] != now.seq:
                bad.append(now)

    readers = [threading.Thread(target=read) for _ in range(2)]
    for r in readers:
        r.start()
    try:
        for n in range(30):
            mode = "hazard" if n % 2 == 0 else "fortunes-winds"
            table.submit(Command("open", {"mode": mode, "settings": {}}, f"open-{n}"))
    finally:
        stop.set()
        for r in readers:
            r.join()
    assert not bad
    assert table.snapshot().seq == len(table.journal)
