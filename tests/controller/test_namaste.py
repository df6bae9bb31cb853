"""Namaste: the sheet, the legal circles, symbol and truth spaces, bad karma, the end, the seed's
examples (Magdalena's 14, 7 and 13; Daniel's row; the truth spaces 4 and 22 -> 11)."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.errors import IllegalCommand
from controller.games.base import Command, Event
from controller.games.namaste import (
    CIRCLES,
    LABEL_OF,
    LINE,
    LINES,
    NUMBER,
    Namaste,
    Sheet,
    half_up,
    karma_points,
    legal_circles,
    standings,
    totals,
)
from controller.games.observation import Observation, Seen
from controller.history import read_history
from controller.odds.namaste import can_make, odds, odds_text
from tests.waiting import wait_for

ENGINE = Namaste()


def C(kind: str, **args) -> Command:
    return Command(kind, args)


def play(state, *cmds: Command):
    """Fold commands through the engine; the final state and every event."""
    events = []
    for cmd in cmds:
        state, evs = ENGINE.apply(state, cmd)
        events += evs
    return state, events


def game(*players: str, first: str | None = None):
    state = ENGINE.new_state(seats=players or ("Magdalena", "Daniel"))
    return play(state, C("start", **({"first": first} if first else {})))[0]


def refused(state, cmd: Command, words: str) -> None:
    """`cmd` is refused with a reason matching `words`, and nothing changes."""
    before = state
    with pytest.raises(IllegalCommand, match=words):
        ENGINE.apply(state, cmd)
    assert state == before and not ENGINE.can(state, cmd)


def with_sheet(state, player: str, sheet: Sheet):
    return ENGINE._set_sheet(state, player, sheet)


def roll(turquoise: str, *white: str) -> Command:
    return C("roll", turquoise=turquoise, white=list(white))


# -- the sheet ---------------------------------------------------------------------------------


def test_the_sheet_is_a_diamond_of_25_circles():
    assert len(CIRCLES) == 25
    rows = [sum(1 for r, _ in CIRCLES if r == k) for k in range(7)]
    cols = [sum(1 for _, c in CIRCLES if c == k) for k in range(7)]
    assert rows == cols == [1, 3, 5, 7, 5, 3, 1]
    # Every line's middle (pink) circle lies on the centre line.
    for line in LINES:
        r, c = CIRCLES[line.middle - 1]
        assert (c == 3) if line.name.startswith("row") else (r == 3)
    symbol = [ln for ln in LINES if ln.space == "symbol"]
    truth = {ln.space: ln.circles for ln in LINES if ln.space != "symbol"}
    assert len(symbol) == 10  # the seed's 10 white symbol spaces
    assert truth == {"top": (1,), "bottom": (25,), "left": (NUMBER[(3, 0)],),
                     "right": (NUMBER[(3, 6)],)}  # and its 4 turquoise truth spaces


def test_magdalenas_14():
    """She has entered 14 once, and an 8 and a 12: many circles are closed to another 14."""
    sheet = Sheet().with_value(13, 14).with_value(6, 8).with_value(21, 12)
    # Worked by hand: circle 4 and 24 touch nothing filled; 8 is right of the 8 in row 3;
    # 22 is below the 8 in column 3.
    assert legal_circles(sheet, 14) == (4, 8, 22, 24)
    assert "already filled with 14" in sheet.why_not(13, 14)
    assert sheet.why_not(14, 14) == "14 in circle 13 comes before it in row-4"
    assert sheet.why_not(9, 14) == "12 in circle 21 comes after it in column-6"


def test_magdalenas_7_and_13_and_her_fellow_players_3_and_9():
    """White 1/7 and 2, turquoise 4: 7 or 13 for her; 3 or 9 for the others."""
    assert totals(["1/7", "2", "4"]) == (7, 13)
    assert totals(["1/7", "2"]) == (3, 9)
    state, events = play(game("Magdalena", "Daniel"), roll("4", "1/7", "2"))
    assert events[-1].data["totals"] == [7, 13] and events[-1].data["white_totals"] == [3, 9]
    assert ENGINE.totals_for(state, "Magdalena") == (7, 13)
    assert ENGINE.totals_for(state, "Daniel") == (3, 9)
    refused(state, C("enter", player="Daniel", circle=1, total=7),
            "Daniel may enter one of these totals from this roll: 3, 9")
    refused(state, C("enter", player="Magdalena", circle=1, total=9),
            "may enter one of these totals from this roll: 7, 13")
    state, _ = play(state, C("enter", player="Magdalena", circle=12, total=7),
                    C("enter", player="Daniel", circle=12, total=9))
    assert state.sheet("Magdalena").value(12) == 7 and state.sheet("Daniel").value(12) == 9


def test_each_1_7_face_is_chosen_on_its_own():
    assert totals(["1/7", "1/7", "1/7", "1/7"]) == (4, 10, 16, 22, 28)
    assert totals(["6", "6", "6", "6"]) == (24,)


def test_daniels_row():
    """Daniel adds a 9 and is first to fill the second row: its pink circle's 7 scores 7.
    Had he been second, 7 / 2 = 3.5, rounded up: 4."""
    state = game("Daniel", "Magdalena")
    row2 = LINE["row-2"]
    assert row2.circles == (2, 3, 4) and row2.middle == 3
    state = with_sheet(state, "Daniel", Sheet().with_value(2, 5).with_value(3, 7))
    state = with_sheet(state, "Magdalena", Sheet().with_value(2, 2).with_value(3, 7))
    state, events = play(state, roll("5", "3", "1/7"),
                         C("enter", player="Daniel", circle=4, total=9))
    assert events[-1].data["scored"] == [{"line": "row-2", "space": "symbol", "middle": 7,
                                          "points": 7, "as": "first"}]
    assert state.sheet("Daniel").points == 7
    # Magdalena fills the same row on a later turn: half of her 7, rounded up.
    state, _ = play(state, C("pass", player="Magdalena"), roll("2", "4", "5"),
                    C("enter", player="Magdalena", circle=4, total=11))
    assert state.sheet("Magdalena").spaces == (("row-2", 4),)
    assert half_up(7) == 4 and half_up(8) == 4


def test_completions_in_the_same_turn_all_score_full():
    state = game("A", "B")
    state = with_sheet(state, "A", Sheet().with_value(2, 2).with_value(3, 3))
    state = with_sheet(state, "B", Sheet().with_value(2, 2).with_value(3, 5))
    # A rolls white 4 + 5 + turquoise 3 = 12; B may enter 9.
    state, _ = play(state, roll("3", "4", "5"), C("enter", player="A", circle=4, total=12),
                    C("enter", player="B", circle=4, total=9))
    assert state.sheet("A").spaces == (("row-2", 3),)
    assert state.sheet("B").spaces == (("row-2", 5),)


def test_the_truth_spaces_4_and_22_give_4_and_11():
    state = game("Magdalena", "Daniel")
    state, events = play(state, roll("2", "1/7", "1/7"),
                         C("enter", player="Magdalena", circle=1, total=4))
    assert events[-1].data["scored"] == [{"line": "row-1", "space": "top", "middle": 4,
                                          "points": 4, "as": "top"}]
    state, _ = play(state, C("pass", player="Daniel"), roll("6", "5", "6"),
                    C("pass", player="Daniel"), roll("1/7", "1/7", "1/7", "1/7"))
    state, events = play(state, C("enter", player="Magdalena", circle=25, total=22))
    assert events[-1].data["scored"][0] == {"line": "row-7", "space": "bottom", "middle": 22,
                                            "points": 11, "as": "bottom"}
    left, right = NUMBER[(3, 0)], NUMBER[(3, 6)]
    sheet = Sheet().with_value(left, 9).with_value(right, 9)
    assert [ln.full_points for ln in (LINE["column-1"], LINE["column-7"])] == [True, False]
    assert sheet.completed_by(left)[0].name == "column-1"
    assert sheet.completed_by(right)[0].name == "column-7"


def test_truth_spaces_score_the_same_whoever_is_first():
    state = game("A", "B")
    state, _ = play(state, roll("2", "3", "4"), C("enter", player="A", circle=1, total=9),
                    C("enter", player="B", circle=1, total=7),
                    roll("6", "5", "6"), C("enter", player="B", circle=25, total=17),
                    C("enter", player="A", circle=25, total=11))
    assert state.sheet("A").spaces == (("row-1", 9), ("row-7", 6))
    assert state.sheet("B").spaces == (("row-1", 7), ("row-7", 9))


def test_bad_karma_is_the_turquoise_die_for_the_active_player_only():
    assert karma_points("5") == 5 and karma_points("1/7") == 1
    state = game("A", "B", "C")
    state, events = play(state, roll("5", "2"), C("pass", player="A"), C("pass", player="B"))
    assert events[1].data == {"player": "A", "karma": 5}
    assert events[2].data == {"player": "B"}
    assert state.sheet("A").karma == (5,) and state.sheet("B").karma == ()
    # C never decides: the next roll closes the turn; C skips freely.
    state, events = play(state, roll("1/7", "3"))
    assert [e.kind for e in events] == ["passed", "round-ended", "rolled"]
    assert state.active_player == "B" and state.sheet("C").karma == ()
    # B (active now) does not decide before the next roll: B takes the 1/7 turquoise as 1.
    state, _ = play(state, roll("2", "2"))
    assert state.sheet("B").karma == (1,) and state.sheet("B").points == -1


def test_refusals_say_what_is_wrong_and_change_nothing():
    state = ENGINE.new_state(seats=("A",))
    refused(state, C("start"), "2 to 4 players; 1 are seated")
    refused(state, roll("2", "3"), "no game is under way")
    state = game("A", "B")
    refused(state, C("start"), "a game is under way")
    refused(state, C("enter", player="A", circle=1, total=5), "not rolled yet: A rolls")
    refused(state, roll("8", "3"), "each face one of 1/7, 2, 3, 4, 5, 6")
    refused(state, roll("2"), "one to three white dice")
    refused(state, roll("2", "3", "3", "3", "3"), "one to three white dice")
    refused(state, C("roll", turquoise="2", white=[7]), "each face one of")
    refused(state, C("roll", turquoise="2", white=[True]), "each face one of")
    refused(state, C("roll", turquoise="2", white=[[3]]), "each face one of")
    # Faces 2 to 6 may come as numbers (the dashboard's form): the same roll.
    assert play(state, C("roll", turquoise="2", white=["1/7", 3]))[0].roll == \
        play(state, C("roll", turquoise="2", white=["1/7", "3"]))[0].roll
    state, _ = play(state, roll("2", "3"))
    refused(state, C("enter", player="Z", circle=1, total=5), "Z is not in this game")
    refused(state, C("enter", player="A", circle=26, total=5), "circles 1 to 25")
    refused(state, C("enter", player="A", circle=0, total=5), "at least 1")
    state, _ = play(state, C("enter", player="A", circle=13, total=5))
    refused(state, C("enter", player="A", circle=14, total=5), "already entered or passed")
    refused(state, C("pass", player="A"), "already entered or passed")
    state, _ = play(state, roll("2", "1/7"))  # B's turn now
    refused(state, C("enter", player="A", circle=13, total=1),
            r"circle 13 is already filled with 5; legal circles for 1: 1, 2, 3")
    refused(state, C("enter", player="A", circle=16, total=1),
            r"1 cannot go in circle 16: 5 in circle 13 comes before it in row-4")


def test_the_game_ends_after_the_round_in_which_a_sheet_is_full():
    state = game("A", "B", "C", first="B")
    assert state.players == ("B", "C", "A") and state.sheet("B").first
    state = with_sheet(state, "B", Sheet(karma=(3, 3, 3), first=True))
    assert not state.ending
    # B's fourth bad karma: the round is finished (C and A roll), then the game is over.
    state, events = play(state, roll("4", "2"), C("pass", player="B"), C("pass", player="C"),
                         C("pass", player="A"))
    assert state.sheet("B").karma == (3, 3, 3, 4)
    assert state.ending and state.phase == "playing" and state.active_player == "C"
    state, events = play(state, roll("2", "6"), C("enter", player="B", circle=1, total=6),
                         C("pass", player="C"), C("pass", player="A"))
    assert state.phase == "playing" and state.active_player == "A"
    state, events = play(state, roll("2", "2", "2"), C("pass", player="C"),
                         C("enter", player="A", circle=2, total=6), C("pass", player="B"))
    assert state.phase == "over" and events[-1].kind == "round-ended"
    assert events[-1].data["result"] == "game-over"
    # B: 6 (row-1's truth space, top) less 13; C: bad karma 2 once; A: nothing.
    assert events[-1].data["holder"] == "A"
    assert events[-1].data["details"]["standings"] == [
        {"player": "A", "points": 0, "karma_spaces": 0},
        {"player": "C", "points": -2, "karma_spaces": 1},
        {"player": "B", "points": -7, "karma_spaces": 4}]
    assert events[-1].data["details"]["winners"] == ["A"] and state.winners == ("A",)
    refused(state, roll("2", "2"), "no game is under way")
    assert ENGINE.light(state, tuple(events)) == "win"
    state, _ = play(state, C("start"))
    assert state.phase == "playing" and state.turn == 0


def test_a_full_sheet_ends_the_game():
    full = Sheet(tuple(range(1, 26)))
    assert full.full
    state = with_sheet(game("A", "B", first="B"), "B", Sheet(tuple(range(1, 25)) + (None,)))
    state, events = play(state, roll("1/7", "1/7", "1/7", "1/7"), C("pass", player="A"),
                         C("enter", player="B", circle=25, total=28))
    # The last circle completes column 4 (pink 13) and the bottom truth space (half of 28).
    assert [(s["line"], s["points"]) for s in events[-2].data["scored"]] == [
        ("row-7", 14), ("column-4", 13)]
    assert state.ending and state.phase == "playing" and state.active_player == "A"
    state, events = play(state, roll("2", "2"), C("pass", player="B"), C("pass", player="A"))
    assert state.phase == "over" and state.winners == ("B",)


def test_the_tie_break_is_fewest_bad_karma_then_shared():
    sheets = {"A": Sheet(spaces=(("row-2", 9),), karma=(2,)),
              "B": Sheet(spaces=(("row-2", 7),)),
              "C": Sheet(spaces=(("row-1", 8),), karma=(1,))}
    rows, winners = standings(sheets)
    assert [r[0] for r in rows] == ["B", "A", "C"] and winners == ["B"]
    sheets["C"] = Sheet(spaces=(("row-1", 7),))
    assert standings(sheets)[1] == ["B", "C"]


# -- the camera --------------------------------------------------------------------------------


def seen(label, confidence=0.99, zone="rolling", **kw):
    return Seen(label, confidence, zone=zone, **kw)


def test_the_camera_tells_the_turquoise_die_by_colour():
    state = game("A", "B")
    reading = ENGINE.read(state, Observation((seen("WHITE-1-7"), seen("TURQUOISE-4"),
                                              seen("WHITE-2"))))
    assert reading.ready
    assert reading.commands == (C("roll", turquoise="4", white=["1/7", "2"]),)
    state, _ = play(state, *reading.commands)
    assert ENGINE.totals_for(state, "A") == (7, 13)


@pytest.mark.parametrize("objects, words", [
    ((seen("WHITE-2"),), "one turquoise die; 0 are read"),
    ((seen("TURQUOISE-2"), seen("TURQUOISE-3"), seen("WHITE-2")), "one turquoise die; 2"),
    ((seen("TURQUOISE-2"),), "one to three white dice; 0 are read"),
    ((seen("TURQUOISE-2"), seen("WHITE-2", zone="outside")), "outside the rolling area"),
    ((seen("TURQUOISE-2"), seen("WHITE-2", cocked=True)), "cocked"),
    ((seen("TURQUOISE-2"), seen("WHITE-9")), "not a face of the Namaste dice"),
    ((seen("TURQUOISE-2"), seen(None, kind="obstruction")), "not a die"),
])
def test_a_reading_that_does_not_fit_waits_for_the_banker(objects, words):
    reading = ENGINE.read(game("A", "B"), Observation(objects))
    assert not reading.ready and any(words in p for p in reading.problems)


def test_an_uncertain_die_is_confirmed_by_the_banker():
    state = game("A", "B")
    obs = Observation((seen("TURQUOISE-2"), seen("WHITE-5", 0.4)))
    reading = ENGINE.read(state, obs)
    assert reading.uncertain == (1,) and not reading.ready
    assert ENGINE.read(state, obs.corrected({1: "WHITE-6"})).commands == (
        C("roll", turquoise="2", white=["6"]),)


def test_demo_throws_are_namaste_labels():
    rng = random.Random(3)
    state = game("A", "B")
    for _ in range(20):
        labels, tray = ENGINE.demo_throw(state, rng)
        obs = Observation(tuple(seen(lab) for lab in labels))
        assert ENGINE.read(state, obs).ready and tray == []


# -- properties --------------------------------------------------------------------------------


def lines_increase(sheet: Sheet) -> bool:
    for line in LINES:
        values = [sheet.value(n) for n in line.circles if sheet.value(n) is not None]
        if values != sorted(set(values)):
            return False
    return True


@settings(max_examples=60, deadline=None)
@given(entries=st.lists(st.tuples(st.integers(1, 25), st.integers(2, 28)), max_size=60))
def test_legal_circles_are_exactly_those_that_keep_every_line_increasing(entries):
    sheet = Sheet()
    for n, total in entries:
        legal = legal_circles(sheet, total)
        if n in legal:
            sheet = sheet.with_value(n, total)
        assert lines_increase(sheet)
    for total in range(2, 29):
        legal = set(legal_circles(sheet, total))
        for n in range(1, 26):
            ok = sheet.value(n) is None and lines_increase(sheet.with_value(n, total))
            assert (n in legal) == ok


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_random_games_keep_the_books(seed, players):
    """Random play: refusals change nothing; points are the spaces less the karma; each line
    scores once per sheet; a game ends within the round after a sheet is full."""
    rng = random.Random(seed)
    state = ENGINE.new_state(seats=tuple(f"P{i}" for i in range(players)))
    state, _ = play(state, C("start"))
    for _ in range(2000):
        cmd = ENGINE.random_command(state, rng)
        try:
            new, events = ENGINE.apply(state, cmd)
        except IllegalCommand as exc:
            assert str(exc)
            continue
        state = new
        for e in events:  # events go to the journal as JSON and come back the same
            assert Event.from_json(e.to_json()) == e
        for _, sheet in state.sheets:
            assert lines_increase(sheet)
            names = [name for name, _ in sheet.spaces]
            assert len(names) == len(set(names))
            assert sheet.points == sum(p for _, p in sheet.spaces) - sum(sheet.karma)
            assert len(sheet.karma) <= 4
            for name, points in sheet.spaces:
                line = LINE[name]
                middle = sheet.value(line.middle)
                assert points in (middle, half_up(middle))
        if state.phase == "over":
            assert any(s.full or s.karma_full for _, s in state.sheets)
            assert state.winners
            break
    assert state.phase == "over", "a random game of Namaste did not end in 2000 commands"


# -- the hand history --------------------------------------------------------------------------

HISTORY = Path(__file__).parents[1] / "histories" / "namaste-game.jsonl"


def test_the_hand_history_plays_to_its_recorded_end():
    """tests/histories/namaste-game.jsonl: every recorded event comes out the same."""
    lines = list(read_history(HISTORY))
    assert lines[0].command.args == {"mode": "namaste"}
    state = ENGINE.new_state()
    for line in lines[1:]:
        state, events = ENGINE.apply(state, line.command)
        if line.events is not None:
            assert [e.to_json() for e in events] == line.events, line.number
    assert state.phase == "over" and state.winners == ("Magdalena",)
    assert {p: s.points for p, s in state.sheets} == {"Magdalena": 18, "Daniel": 3}
    assert state.sheet("Daniel").karma == (5, 1, 4, 3)


# -- the odds ----------------------------------------------------------------------------------


def test_the_chance_of_each_total_is_exact():
    one = can_make(1)
    # One white die: 1 or 7 on the 1/7 face (1/6 each), 2..6 (1/6 each).
    assert one == {t: Fraction(1, 6) for t in (1, 2, 3, 4, 5, 6, 7)}
    two = can_make(2)
    # 8: 2+6, 3+5, 4+4, 5+3, 6+2, and 1/7 with 1/7 (1 + 7): 6 rolls of 36; 1/7 with 1/7 also
    # makes 2 and 14, and nothing else does.
    assert two[8] == Fraction(6, 36) and two[14] == Fraction(1, 36) and two[2] == Fraction(1, 36)
    report = odds()
    assert [r["white_dice"] for r in report["rolls"]] == [1, 2, 3]
    assert report["rolls"][0]["others"]["7"] == {"exact": "1/6", "p": 1 / 6}
    assert max(map(int, report["rolls"][2]["active"])) == 28
    assert odds_text(report)[1].startswith("1 white, active: 2:")


def test_feltbank_replay_runs_the_hand_history(capsys):
    from controller.cli import main

    assert main(["replay", str(HISTORY)]) == 0
    assert '"Magdalena": 0' in capsys.readouterr().out  # no money in Namaste: the sheets score


# -- the demo table ----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_demo_table_throws_namaste_dice_and_the_recognizer_reads_them(tmp_path):
    """The numeral dice reader (vision.numerals, with the set's colours of
    equipment/namaste.json) reads the demo table's turquoise and white dice; the reading is
    the roll."""
    from app.camera import DemoThrower, reading_confidence, start_camera
    from controller.config import load_config
    from controller.games.play import seated_table
    from controller.journal import Journal
    from controller.live import LiveTable
    from controller.table import Table

    config_file = tmp_path / "feltbank.toml"
    config_file.write_text('[table]\nmode = "namaste"\n[camera]\nsource = "demo"\n'
                           'settle_seconds = 0.3\nfps = 20.0\n')
    table = Table(Journal(tmp_path / "journal.sqlite3"))
    for cmd in seated_table("namaste", players=2):
        if cmd.kind != "buy-in":  # no money in Namaste
            table.submit(cmd)
    table.submit(Command("start", {}, "start"))
    config = load_config(config_file)
    live = LiveTable(table, confirm="banker", min_confidence=reading_confidence(config))
    rig = start_camera(config, table, live)
    try:
        thrown = DemoThrower(table, rig.demo, seed=3)()
        assert wait_for(lambda: live.pending)
        pending = live.pending
        reading = pending.reading
        assert not reading.problems, reading.problems
        # Every die read with confidence is one thrown; a die the recognizer abstained on (it
        # may, about 1 in 100) is tapped by the banker: the thrown label left over.
        objects = pending.observation.objects
        sure = [o.label for i, o in enumerate(objects) if i not in reading.uncertain]
        left = list(thrown["rolled"])
        for label in sure:
            left.remove(label)
        live.confirm(pending.id, dict(zip(reading.uncertain, left, strict=True)))
        roll = table.state.roll
        faces = sorted([LABEL_OF[("turquoise", roll.turquoise)]]
                       + [LABEL_OF[("white", f)] for f in roll.white])
        assert faces == sorted(thrown["rolled"]) and table.state.turn == 1
    finally:
        rig.stop()
        table.journal.close()
