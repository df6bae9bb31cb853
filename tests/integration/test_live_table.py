"""Every kind at the live table: a mode opened with the demo camera, a throw or a deal read by
the real reader once it settles, and the command it means in the journal.

The camera loop is stepped frame by frame on the demo's own clock (no thread, no sleeps): a
frame is rendered, the settle detector judges it, a settled table is read once.
"""

from __future__ import annotations

import pytest

from app.camera import DemoThrower, reading_confidence, start_camera
from controller.config import load_config
from controller.errors import ConfigError
from controller.games.base import Command
from controller.games.play import seated_table, to_a_throw
from controller.journal import Journal
from controller.live import LiveTable
from controller.table import Table


class Clock:
    """The demo camera's clock, moved on by the test one frame at a time."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class Live:
    """A table of `mode` with the demo camera, its loop stepped by hand."""

    def __init__(self, tmp_path, mode: str, commands: list[Command], confirm: str = "auto",
                 extra: str = ""):
        config_file = tmp_path / "feltbank.toml"
        config_file.write_text(f'[table]\nmode = "{mode}"\n[camera]\nsource = "demo"\n'
                               f'settle_seconds = 0.3\nfps = 10.0\n{extra}')
        self.table = Table(Journal(tmp_path / "journal.sqlite3"))
        for cmd in commands:
            self.table.submit(cmd)
        config = load_config(config_file)
        self.live = LiveTable(self.table, confirm=confirm,
                              min_confidence=reading_confidence(config))
        self.clock = Clock()
        self.rig = start_camera(config, self.table, self.live, start=False, clock=self.clock)
        self.throw = DemoThrower(self.table, self.rig.demo, seed=5)
        self.states: list[str] = []

    def step(self, frames: int) -> None:
        """`frames` frames of the camera: each rendered, judged, and read once settled."""
        for _ in range(frames):
            self.clock.t += self.rig.demo.period
            self.rig.loop.step()
            self.states.append(self.rig.loop.status.table)

    def until_read(self, most: int = 40) -> None:
        """Step until the camera has read the table once more (a reading is an event)."""
        before = self.rig.loop.status.readings
        for _ in range(most):
            self.step(1)
            if self.rig.loop.status.readings > before:
                return
        raise AssertionError(f"nothing read in {most} frames: {''.join(s[0] for s in self.states)}")

    def camera_commands(self, kind: str) -> list[Command]:
        return [c for c in self.table.journal.commands() if c.kind == kind]


def test_a_risque_pool_of_twelve_pip_dice_is_read_ten_then_two_into_the_journal(tmp_path):
    toshimoko = Command("character", {
        "name": "Kakita Toshimoko", "clan": "Crane", "virtues": {"Courage": 3, "Courtesy": 2},
        "giri": "Guard the Emperor", "giri_rank": 2, "aspects": ["Master duelist", "Proud"],
        "reputations": {"Iron Blade": 23}, "equipment": {"Ancestral katana": 2},
        "handicaps": [], "wounds": {}})
    opening = [Command("open", {"mode": "risque"}, "open"),
               Command("join", {"player": "Ann"}, "j1"),
               toshimoko,
               Command("risque", {"characters": ["Kakita Toshimoko"]}),
               Command("pool", {"character": "Kakita Toshimoko", "virtue": "Courage",
                                "bonuses": ["giri", "clan", "name", "aspect:Proud",
                                            "equipment:Ancestral katana"]}),
               Command("mise", {"character": "Kakita Toshimoko", "mises": 1}),
               Command("reveal", {})]
    at = Live(tmp_path, "risque", opening)
    assert at.rig.reads == "pip dice"
    first = at.throw()
    assert len(first["rolled"]) == 10  # ten at most at once
    at.until_read()
    rolls = at.camera_commands("roll")
    assert [sorted(c.args["dice"]) for c in rolls] == [
        sorted(int(x.removeprefix("PIP-")) for x in first["rolled"])]
    second = at.throw()
    assert len(second["rolled"]) == 2  # Courage 3, Giri 2, Clan, name, Proud, katana 2: 12
    at.until_read()
    rolls = at.camera_commands("roll")
    assert len(rolls) == 2 and sorted(rolls[1].args["dice"]) == sorted(
        int(x.removeprefix("PIP-")) for x in second["rolled"])
    assert at.table.state.risk.phase in ("privilege", "truths")


def test_a_hazard_throw_of_two_pip_dice_is_read_into_the_journal(tmp_path):
    at = Live(tmp_path, "hazard", to_a_throw("hazard", players=2)[0])
    thrown = at.throw()
    at.until_read()
    (throw,) = at.camera_commands("throw")
    assert sorted(throw.args["dice"]) == sorted(int(x[4:]) for x in thrown["rolled"])


def test_a_namaste_roll_is_read_with_the_turquoise_die_told_by_colour(tmp_path):
    at = Live(tmp_path, "namaste", to_a_throw("namaste", players=2)[0])
    assert at.rig.reads == "numeral dice"
    thrown = at.throw()
    at.until_read()
    (roll,) = at.camera_commands("roll")
    want = [x.split("-", 1) for x in thrown["rolled"]]
    assert roll.args["turquoise"] == next(f for c, f in want if c == "TURQUOISE").replace(
        "-", "/")
    assert sorted(roll.args["white"]) == sorted(f.replace("-", "/") for c, f in want
                                                if c == "WHITE")


@pytest.mark.parametrize("mode, die", [("house-rugen", "rugen"), ("street-rugen", "rugen"),
                                       ("capital-rugen", "rugen"), ("house-rugen", "d20")])
def test_the_rugen_die_is_read_to_its_face(tmp_path, mode, die):
    """Every Rugen mode on the demo table: the die thrown is read to its Rugen face, on a
    table throwing a standard d20 too (read through the seed's transposing table)."""
    opening = to_a_throw(mode, players=2)[0]
    if die == "d20":
        opening.append(Command("configure", {"settings": {"die": "d20"}}, "d20"))
    at = Live(tmp_path, mode, opening)
    assert at.rig.reads == "the Rugen die"
    thrown = at.throw()
    at.until_read()
    (roll,) = at.camera_commands("roll")
    assert roll.args == {"face": thrown["rolled"][0]}


@pytest.mark.slow
def test_each_card_dealt_is_exactly_one_deal_when_it_lands_and_settles(tmp_path):
    """Roche: cards slide in over several frames, one at a time; each becomes one deal, read
    only once it lies still; a still table is not read again. Sixteen cards: past the
    fifteen places of the felt, a card lands on an earlier one."""
    at = Live(tmp_path, "roche", seated_table("roche", players=2, coins=100))
    assert at.rig.reads == "the cards"
    dealt: list[str] = []
    while len(dealt) < 16:
        thrown = at.throw()
        assert thrown["kept"] == dealt  # the cards already dealt lie where they landed
        at.states = []
        at.until_read()
        # the card slid in over several frames (moving), then lay still before it was read
        moving = "".join(s[0] for s in at.states)
        assert moving.startswith("m" * 4) and moving.endswith("s"), moving
        dealt.append(thrown["rolled"][0])
        at.step(8)  # the table stays still: it is not read again
        assert [c.args["card"] for c in at.camera_commands("deal")] == dealt
        if at.table.state.phase == "betting":  # a suit cut: the deal is over
            break
        assert list(at.table.state.dealt) == dealt
    assert at.live.pending is None


@pytest.mark.slow
def test_a_card_dealt_onto_a_stack_is_one_deal_of_the_top_card(tmp_path):
    """A narrow rolling area: every card lands on the stack, a little aside; only the top card
    is new, and only it is dealt."""
    zones = ('[zones]\nrolling = [[0, 0], [100, 0], [100, 130], [0, 130]]\n'
             'tray = [[420, 0], [510, 0], [510, 380], [420, 380]]\n')
    at = Live(tmp_path, "roche", seated_table("roche", players=2, coins=100), extra=zones)
    dealt = []
    for _ in range(3):
        thrown = at.throw()
        at.until_read()
        objects = at.rig.loop.last_objects
        assert [o["label"] for o in objects if o["label"]] == thrown["rolled"], objects
        dealt += thrown["rolled"]
        assert [c.args["card"] for c in at.camera_commands("deal")] == dealt
        if at.table.state.phase == "betting":
            break


@pytest.mark.parametrize("mode", ["rochi", "captains-rochi", "grand-roche"])
def test_the_printed_deck_is_dealt_and_read_card_by_card(tmp_path, mode):
    at = Live(tmp_path, mode, to_a_throw(mode, players=3)[0])
    assert at.rig.reads == "the cards"
    for n in (1, 2):
        thrown = at.throw()
        at.until_read()
        deals = at.camera_commands("deal")
        assert len(deals) == n and deals[-1].args["card"] == thrown["rolled"][0]


@pytest.mark.slow
def test_the_four_poker_decks_are_learned_by_the_demo_table_and_dealt(tmp_path):
    """Roche dealt from four poker decks (the `deck` setting): the demo table learns its
    poker cards from one capture each, as `feltbank calibrate` does, then reads the deal."""
    opening = [*seated_table("roche", players=2, coins=100),
               Command("configure", {"settings": {"deck": "poker"}}, "poker")]
    at = Live(tmp_path, "roche", opening)
    dealt = []
    for _ in range(3):
        thrown = at.throw()
        assert thrown["rolled"][0][-1] in "SHDC" and thrown["kept"] == dealt
        at.until_read(most=60)
        dealt += thrown["rolled"]
        assert [c.args["card"] for c in at.camera_commands("deal")] == dealt
        if at.table.state.phase == "betting":
            break
    # A deck the banker activates mid-game (the Calibration page's use_profile) is read for
    # the deck the table deals: the poker cards, not the printed deck's art.
    learned = at.rig.place["recognizer"]._read.__self__.readers["poker"].model
    learned.save(tmp_path / "deck")
    at.rig.use_profile(tmp_path / "deck")
    assert at.rig.place["profile_path"] == str(tmp_path / "deck")
    readers = at.rig.place["recognizer"]._read.__self__
    assert readers.deck() == "poker" and "poker" in readers.readers


def test_a_reading_the_banker_rejects_is_read_again_and_never_dealt_twice(tmp_path):
    at = Live(tmp_path, "roche", seated_table("roche", players=2, coins=100),
              confirm="banker")
    thrown = at.throw()
    at.until_read()
    pending = at.live.pending
    assert pending.reading.ready and pending.reading.faces == {"card": thrown["rolled"][0]}
    at.live.reject(pending.id)
    at.until_read()  # the still table, read afresh
    at.live.confirm(at.live.pending.id)
    assert [c.args["card"] for c in at.camera_commands("deal")] == thrown["rolled"]
    at.step(8)  # still: not read again
    assert at.live.pending is None
    at.live._read_again.set()  # the reject button pressed once more on the still table
    at.until_read()  # the card is dealt already: no new card on the felt
    assert not at.live.pending.reading.ready
    assert "0 new cards" in str(at.live.pending.reading.problems[0])
    assert [c.args["card"] for c in at.camera_commands("deal")] == thrown["rolled"]


@pytest.mark.parametrize(("mode", "label"), [
    ("risque", "PIP-5"), ("namaste", "TURQUOISE-1-7"), ("house-rugen", "1d"),
    ("roche", "KIN-6-DAY-03")])
def test_show_lays_one_die_or_card_of_each_kind_and_the_reader_reads_it(tmp_path, mode, label):
    """`CameraRig.show`, which the guided calibration calls: the demo lays the one object,
    and waits until it rests."""
    config_file = tmp_path / "feltbank.toml"
    config_file.write_text(f'[table]\nmode = "{mode}"\n[camera]\nsource = "demo"\n'
                           'settle_seconds = 0.3\nfps = 20.0\n')
    table = Table(Journal(tmp_path / "journal.sqlite3"))
    rig = start_camera(load_config(config_file), table, LiveTable(table))
    try:
        rig.show(label)
        frame = rig.loop.last_frame
        assert frame.t >= rig.demo.rested_at
        read = rig.place["recognizer"].read(frame.image, rig.place["geometry"])
        seen = [o["label"] for o in read]
        if mode == "house-rugen":
            # the d20 reader is short of its target (docs/vision-numerals.md): the one die is
            # found, and read as laid or left to the banker, never read as another face
            assert seen in ([label], [None])
        else:
            assert seen == [label]
        with pytest.raises(ValueError, match="the demo table has no 'NOPE' to lay; it lays"):
            rig.show("NOPE")
    finally:
        rig.stop()


def test_a_corrupt_profile_or_a_mode_without_a_reader_is_a_clear_config_error(tmp_path):
    from app.readers import kind_reader, reader_kind

    table = Table(Journal(tmp_path / "journal.sqlite3"))
    bad = tmp_path / "numerals.json"
    bad.write_text("{not json")
    config_file = tmp_path / "feltbank.toml"
    config_file.write_text(f'[table]\nmode = "namaste"\n[camera]\nsource = "demo"\n'
                           f'profile = "{bad}"\n')
    with pytest.raises(ConfigError, match="numeral dice profile .* is not JSON"):
        start_camera(load_config(config_file), table, LiveTable(table))
    with pytest.raises(ConfigError, match="not a card model"):
        kind_reader("cards", "roche", str(bad))
    with pytest.raises(ConfigError, match="once the deck is learned"):
        kind_reader("cards", "poker-roche-deck")
    with pytest.raises(ConfigError, match="names no dice or deck"):
        reader_kind("")
    with pytest.raises(ConfigError, match="no dice or deck called 'marbles'"):
        reader_kind("marbles")


def test_the_tables_own_numeral_profile_is_read_with(tmp_path):
    import json

    from app.readers import kind_reader
    from vision.numerals import default_profile

    store = tmp_path / "profiles"
    assert kind_reader("numerals", "namaste", store=store).profile_path.startswith("shipped")
    (store / "namaste").mkdir(parents=True)
    own = store / "namaste" / "numerals.json"
    own.write_text(json.dumps(default_profile().to_json()))
    reader = kind_reader("numerals", "namaste", store=store)
    assert reader.profile_path == str(own)
    assert "TURQUOISE-1-7" in reader.labels
