"""The live table: readings applied at once or held for the banker, corrected, rejected."""

from __future__ import annotations

import pytest

from controller.errors import IllegalCommand
from controller.games.base import Command
from controller.games.observation import Observation, Seen
from controller.journal import Journal
from controller.live import LiveTable, Pending
from controller.table import Table


def seen(*labels, zone="rolling", confidence=0.99):
    return tuple(Seen(label, confidence, (10.0 * i, 0.0), zone) for i, label in enumerate(labels))


@pytest.fixture
def table(tmp_path):
    table = Table(Journal(tmp_path / "j.sqlite3"))
    for cmd in [Command("open", {"mode": "fortunes-winds"}),
                Command("join", {"player": "Ginawa"}),
                Command("buy-in", {"player": "Ginawa", "amount": 50}),
                Command("bet", {"player": "Ginawa", "bet": "standard", "amount": 1})]:
        table.submit(cmd)
    return table


FIRST = Observation(seen("NORTH", "EAST", "FIRE", "BIRD", "VOID"))


def test_auto_applies_a_sure_reading_at_once(table):
    live = LiveTable(table, confirm="auto")
    outcomes = live.observe(FIRST)
    assert [o.command.kind for o in outcomes] == ["roll"] and table.state.roll == 1
    assert live.pending is None
    assert table.journal.find(outcomes[0].command.id).source == "camera"


def test_banker_mode_holds_the_reading_until_confirmed(table):
    told = []
    live = LiveTable(table, confirm="banker")
    live.subscribe(told.append)
    pending = live.observe(FIRST)
    assert isinstance(pending, Pending) and pending.reading.ready and table.state.roll == 0
    assert told == [pending]
    outcomes = live.confirm(pending.id)
    assert table.state.roll == 1 and told[-1] is None
    assert live.confirm(pending.id) == outcomes  # a confirm sent twice applies once
    assert table.state.roll == 1 and len(table.journal) == 5


def test_an_unsure_die_waits_even_in_auto_and_the_banker_corrects_it(table):
    live = LiveTable(table, confirm="auto")
    objects = list(FIRST.objects)
    objects[3] = Seen(None, 0.2, (30.0, 0.0), candidates=(("BIRD", 0.2), ("SOUTH", 0.1)))
    pending = live.observe(Observation(tuple(objects)))
    assert isinstance(pending, Pending) and pending.reading.uncertain == (3,)
    with pytest.raises(IllegalCommand, match=r"tap the face of die #4 \(not read\)"):
        live.confirm(pending.id)
    live.confirm(pending.id, corrections={3: "SOUTH"})
    assert table.state.showing_map()["AIR"] == "SOUTH"


def test_a_reading_that_does_not_fit_is_rejected_and_read_again(table):
    live = LiveTable(table, confirm="auto")
    pending = live.observe(Observation(seen("NORTH", "EAST", "FIRE", "BIRD")))
    assert "it must show 5" in pending.reading.problems[0]
    with pytest.raises(IllegalCommand, match="it must show 5"):
        live.confirm(pending.id)
    live.reject(pending.id)
    assert live.pending is None
    with pytest.raises(IllegalCommand, match="no read roll is waiting"):
        live.reject()
    assert isinstance(live.observe(FIRST), list)


def test_a_stale_confirm_is_refused(table):
    live = LiveTable(table)
    first = live.observe(FIRST)
    second = live.observe(FIRST)
    with pytest.raises(IllegalCommand, match="no longer the one waiting"):
        live.confirm(first.id)
    live.confirm(second.id)
    with pytest.raises(ValueError, match="'auto' or 'banker'"):
        LiveTable(table, confirm="sometimes")


def test_a_reading_of_several_commands_is_one_submission(table, monkeypatch):
    """Issue 11: the set-aside and the roll one reading makes are committed together
    (`Table.submit_many`, one journal transaction), so no dashboard command lands between."""
    live = LiveTable(table, confirm="auto")
    live.observe(FIRST)
    submitted = []
    real = table.submit_many

    def submit_many(cmds, *args, **kwargs):
        submitted.append([cmd.kind for cmd in cmds])
        return real(cmds, *args, **kwargs)

    monkeypatch.setattr(table, "submit_many", submit_many)
    second = Observation(seen("NORTH", zone="tray")
                         + tuple(Seen(label, 0.99, (10.0 * (i + 1), 0.0), "rolling")
                                 for i, label in enumerate(("WATER", "FIRE", "AIR", "SUN"))))
    outcomes = live.observe(second)
    assert submitted == [["set-aside", "roll"]]
    assert [o.seq for o in outcomes] == [6, 7] and table.state.roll == 2
