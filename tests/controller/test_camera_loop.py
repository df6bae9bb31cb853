"""The camera loop: one reading per settled table, handed to the live table."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import pytest

from controller.camera_loop import CameraLoop
from controller.games.base import Command
from controller.journal import Journal
from controller.live import LiveTable
from controller.table import Table
from tests.waiting import wait_for


class State(enum.Enum):
    OK = "ok"
    UNAVAILABLE = "unavailable"
    MOVING = "moving"
    SETTLED = "settled"


@dataclass
class Frame:
    image: str
    t: float
    index: int


class Source:
    """Frames from a script: each item is a table state for the settle stand-in, or None."""

    def __init__(self, script):
        self.script = list(script)
        self.state = State.OK
        self.reason = ""
        self.n = 0

    def read(self):
        if not self.script:
            return None
        item = self.script.pop(0)
        if item is None:
            self.state, self.reason = State.UNAVAILABLE, "unplugged"
            return None
        self.state, self.reason = State.OK, ""
        self.n += 1
        return Frame(item, float(self.n), self.n)


class Settle:
    def update(self, image, t):
        return State.SETTLED if image == "still" else State.MOVING


FACES = ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]


def reader(image):
    return [{"label": f, "confidence": 0.99, "center": [i * 60, 100], "zone": "rolling"}
            for i, f in enumerate(FACES)]


@pytest.fixture
def live(tmp_path):
    table = Table(Journal(tmp_path / "j.sqlite3"))
    for cmd in [Command("open", {"mode": "fortunes-winds"}), Command("join", {"player": "A"}),
                Command("buy-in", {"player": "A", "amount": 20}),
                Command("bet", {"player": "A", "bet": "standard", "amount": 1})]:
        table.submit(cmd)
    return LiveTable(table, confirm="banker")


def test_a_settled_table_is_read_once_and_again_after_motion(live):
    seen = []
    live.subscribe(seen.append)
    changes = []
    loop = CameraLoop(Source(["moving", "moving", "still", "still", "still", "moving",
                              "still"]), Settle(), reader, live,
                      on_change=lambda s: changes.append(s.table))
    while loop.step():
        pass
    assert loop.status.readings == 2 and loop.status.frames == 7
    assert [p.reading.ready for p in seen if p] == [True, True]
    assert changes == ["moving", "settled", "moving", "settled"]  # the first: camera ok


def test_an_unplugged_camera_is_a_state_not_a_crash(live):
    statuses = []
    loop = CameraLoop(Source(["still", None]), Settle(), reader, live,
                      on_change=lambda s: statuses.append(s.camera))
    assert loop.step() and not loop.step()
    assert loop.status.camera == "unavailable" and loop.status.reason == "unplugged"
    assert statuses[-1] == "unavailable"
    assert loop.status.to_json()["last_frame_age_s"] >= 0


def test_a_frame_that_cannot_be_read_is_skipped(live):
    loop = CameraLoop(Source(["still"]), Settle(), lambda image: [{"label": 5,
                                                                   "confidence": "x"}], live)
    assert loop.step() and loop.status.readings == 0 and live.pending is None


def test_the_thread_beats_its_heartbeat_and_stops(live):
    beats = []

    class Beat:
        def beat(self):
            beats.append(1)

    loop = CameraLoop(Source(["moving", "still"]), Settle(), reader, live, heartbeat=Beat())
    loop.start()
    assert wait_for(lambda: live.pending is not None) and loop.alive()
    loop.stop()
    assert not loop.alive() and len(beats) >= 2


def test_a_still_table_with_nothing_to_read_is_empty_not_a_roll(live):
    # the settle detector saw something (the corner markers before the geometry was known)
    # but the recognizer reads nothing: no reading for the banker, the table shows empty
    changes = []
    loop = CameraLoop(Source(["moving", "still", "still", "moving", "still"]), Settle(),
                      lambda image: [], live, on_change=lambda s: changes.append(s.table))
    while loop.step():
        pass
    assert live.pending is None and loop.status.readings == 0
    assert changes == ["moving", "empty", "moving", "empty"]


def test_a_rejected_reading_is_read_again_while_the_table_stays_still(live):
    """The banker's "Reject: read again": the same still table gives a new reading."""
    seen = []
    live.subscribe(seen.append)
    loop = CameraLoop(Source(["still", "still", "still", "still"]), Settle(), reader, live,
                      idle_seconds=0)
    loop.step()
    loop.step()
    first = live.pending
    assert first is not None and loop.status.readings == 1
    live.reject(first.id)
    assert live.pending is None
    loop.step()
    assert loop.status.readings == 2 and live.pending is not None
    assert live.pending.id != first.id
    loop.step()  # still: read once again only, not on every frame
    assert loop.status.readings == 2
