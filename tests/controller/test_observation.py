"""From what the camera saw to the commands it means, or the banker's attention."""

from __future__ import annotations

import pytest

from controller.errors import IllegalCommand
from controller.games import apply, find_game
from controller.games.base import Command, Engine
from controller.games.observation import Observation, Seen

FW = find_game("fortunes-winds")


def table(*cmds):
    state = None
    for cmd in [Command("open", {"mode": "fortunes-winds"}),
                Command("join", {"player": "Ginawa"}), Command("join", {"player": "Sanzo"}),
                Command("buy-in", {"player": "Ginawa", "amount": 50}),
                Command("buy-in", {"player": "Sanzo", "amount": 50}),
                Command("bet", {"player": "Ginawa", "bet": "standard", "amount": 1}), *cmds]:
        state, _ = apply(state, cmd)
    return state


def seen(*labels, zone="rolling", confidence=0.99):
    return [Seen(label, confidence, (10.0 * i, 0.0), zone) for i, label in enumerate(labels)]


def obs(*groups):
    return Observation(tuple(o for g in groups for o in g))


def test_a_clean_first_roll_is_the_roll_command():
    reading = FW.read(table(), obs(seen("NORTH", "EAST", "FIRE", "BIRD", "VOID")))
    assert reading.ready and reading.problems == ()
    assert [c.to_json() for c in reading.commands] == [
        {"id": "", "kind": "roll", "faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}]
    assert reading.faces == {"EARTH": "NORTH", "WATER": "EAST", "FIRE": "FIRE", "AIR": "BIRD",
                             "MOON": "VOID"}


def test_dice_moved_to_the_tray_are_set_aside_then_the_rest_is_the_roll():
    # The seed's example: keep North and East, roll the rest.
    state = table(Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}))
    reading = FW.read(state, obs(seen("NORTH", "EAST", zone="tray"),
                                 seen("WEST", "AIR", "SUN")))
    assert reading.ready
    assert [(c.kind, dict(c.args)) for c in reading.commands] == [
        ("set-aside", {"dice": ["NORTH", "EAST"]}),
        ("roll", {"faces": ["WEST", "AIR", "SUN"]})]
    for cmd in reading.commands:
        state, _ = apply(state, cmd)
    assert state.roll == 2 and state.set_aside == ("EARTH", "WATER")


@pytest.mark.parametrize("objects, problem", [
    (seen("NORTH", "EAST", "FIRE", "BIRD"), "shows 4 dice in the rolling area; it must show 5"),
    (seen("NORTH", "EAST", "FIRE", "BIRD", "VOID", "SUN"), "two faces of the Moon die"),
    (seen("NORTH", "NORTH", "FIRE", "BIRD", "VOID"), "two faces of the Earth die"),
    (seen("NORTH", "EAST", "FIRE", "BIRD", "DRAGON"), "DRAGON is not a face"),
    (seen("NORTH", "EAST", "FIRE", "BIRD") + seen("VOID", zone="outside"), "outside the felt"),
    (seen("NORTH", "EAST", "FIRE", "BIRD") + seen("VOID", zone="tray"), "tray should be empty"),
    (seen("NORTH", "EAST", "FIRE", "BIRD", "VOID")
     + [Seen(None, 0.0, (0, 0), "rolling", kind="obstruction")], "not a die"),
])
def test_what_does_not_fit_goes_to_the_banker(objects, problem):
    reading = FW.read(table(), obs(objects))
    assert not reading.ready and reading.commands == ()
    assert any(problem in p for p in reading.problems), reading.problems


def test_a_cocked_die_is_thrown_again():
    objects = seen("NORTH", "EAST", "FIRE", "BIRD", "VOID")
    objects[2] = Seen("FIRE", 0.99, (0, 0), "rolling", cocked=True)
    assert "cocked" in FW.read(table(), obs(objects)).problems[0]


def test_set_aside_dice_must_not_move():
    state = table(Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}),
                  Command("set-aside", {"dice": ["NORTH", "EAST"]}))
    moved = FW.read(state, obs(seen("EARTH", "EAST", zone="tray"), seen("WEST", "AIR", "SUN")))
    assert "the set-aside Earth die moved: it showed NORTH, it shows EARTH" in moved.problems
    missing = FW.read(state, obs(seen("EAST", zone="tray"), seen("WEST", "AIR", "SUN")))
    assert any("2 set-aside dice belong in the tray; 1 are there" in p for p in missing.problems)
    rolled_again = FW.read(state, obs(seen("EAST", zone="tray"),
                                      seen("NORTH", "WEST", "AIR", "SUN")))
    assert any("Earth die is set aside; it lies in the rolling area" in p
               for p in rolled_again.problems)
    turned = FW.read(table(Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD",
                                                      "VOID"]})),
                     obs(seen("EARTH", zone="tray"), seen("EAST", "WEST", "AIR", "SUN")))
    assert any("the Earth die in the tray shows EARTH; it showed NORTH" in p
               for p in turned.problems)


def test_the_black_die_is_never_set_aside_and_three_at_most():
    state = table(Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}))
    reading = FW.read(state, obs(seen("VOID", zone="tray"),
                                 seen("NORTH", "EAST", "FIRE", "BIRD")))
    assert any("black Moon die is rolled every roll" in p for p in reading.problems)
    reading = FW.read(state, obs(seen("NORTH", "EAST", "FIRE", "BIRD", zone="tray"),
                                 seen("SUN")))
    assert not reading.ready and "at most 3 white dice" in reading.problems[0]


def test_unsure_dice_wait_for_the_banker_who_corrects_them():
    objects = seen("NORTH", "EAST", "FIRE", "BIRD", "VOID")
    objects[3] = Seen(None, 0.0, (30.0, 0.0), "rolling", candidates=(("BIRD", 0.5),))
    objects[1] = Seen("EAST", 0.6, (10.0, 0.0), "rolling")
    observation = obs(objects)
    reading = FW.read(table(), observation)
    assert not reading.ready and reading.uncertain == (1, 3) and reading.problems == ()
    assert "AIR" not in reading.faces and "WATER" not in reading.faces
    fixed = FW.read(table(), observation.corrected({1: "EAST", 3: "SOUTH"}))
    assert fixed.ready
    assert fixed.commands[0].args["faces"] == ["NORTH", "EAST", "FIRE", "SOUTH", "VOID"]
    with pytest.raises(IllegalCommand, match="no object 9"):
        observation.corrected({9: "EAST"})


def test_no_roll_before_the_standard_bet_and_modes_without_a_reader():
    state = None
    for cmd in [Command("open", {"mode": "fortunes-winds"}), Command("join", {"player": "A"})]:
        state, _ = apply(state, cmd)
    assert "lays a standard bet first" in FW.read(state, obs(seen("SUN"))).problems[0]
    hazard = find_game("hazard")
    state, _ = apply(None, Command("open", {"mode": "hazard"}))
    assert "not a face of a pip die" in hazard.read(state, obs(seen("SUN"))).problems[0]
    # an engine whose mode the camera does not read says so (the base Engine's read)
    assert "not read by the camera" in Engine.read(hazard, state, obs(seen("SUN"))).problems[0]


def test_observations_round_trip_and_bad_ones_are_refused():
    o = Observation.from_json({"objects": [
        {"label": "NORTH", "confidence": 0.97, "center": [10, 20], "cocked": False,
         "on_felt": True, "kind": "die", "candidates": [["NORTH", 0.97]], "corners": []},
        {"label": None, "confidence": 0.1, "center": [1, 2], "on_felt": False}]})
    assert o.objects[0].zone == "rolling" and o.objects[1].zone == "outside"
    assert Observation.from_json(o.to_json()) == o
    with pytest.raises(IllegalCommand, match="an observation is"):
        Observation.from_json({"dice": []})
    with pytest.raises(IllegalCommand, match="zone 'floor'"):
        Observation.from_json({"objects": [{"label": "SUN", "zone": "floor"}]})
    with pytest.raises(IllegalCommand, match="malformed"):
        Observation.from_json({"objects": [{"label": "SUN", "confidence": "high"}]})


def test_a_true_observation_of_every_roll_in_random_play_reads_as_that_roll():
    """Whatever the turn, a camera that sees the dice as they are gives the engine's roll."""
    from controller.games.fortunes_winds import DIE_OF
    from controller.games.play import random_play

    checked = 0
    for step in random_play("fortunes-winds", seed=11):
        if checked >= 300:
            break
        if step.command.kind != "roll" or step.events is None:
            continue
        before = step.before
        showing = before.showing_map()
        tray = [showing[d] for d in before.set_aside]
        rolled = list(step.command.args["faces"])
        reading = FW.read(before, obs(seen(*tray, zone="tray"), seen(*rolled)))
        assert reading.ready, reading.problems
        assert [c.kind for c in reading.commands] == ["roll"]
        assert sorted(reading.commands[0].args["faces"], key=lambda f: DIE_OF[f]) == sorted(
            rolled, key=lambda f: DIE_OF[f])
        assert FW.apply(before, reading.commands[0]) == (step.after, step.events)
        checked += 1
    assert checked == 300
