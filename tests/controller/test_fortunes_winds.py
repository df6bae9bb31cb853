"""Fortunes and Winds: the dice, the combinations, a turn, every refusal, the seed's example."""

from __future__ import annotations

import json
import random
from itertools import product
from pathlib import Path

import pytest
import tables
from hypothesis import given, settings
from hypothesis import strategies as st
from tables import C, balances, play, refused

from controller.errors import IllegalCommand
from controller.games import apply, find_game
from controller.games.base import Command, RoundEnded
from controller.games.fortunes_winds import (
    COMBINATIONS,
    DICE,
    DIE_OF,
    LABELS,
    combination_of,
    parse_faces,
    stake_unit,
)
from controller.ledger import BANK

HISTORY = Path(__file__).parents[1] / "histories" / "fortunes-winds-example.jsonl"
ENGINE = find_game("fortunes-winds")


def table(*players: str, coins: int = 100, **settings):
    return tables.table("fortunes-winds", *players, coins=coins, **settings)



# -- the dice ---------------------------------------------------------------------------------


def test_dice_are_the_seeds():
    faces = {d.name: sorted(d.faces) for d in DICE}
    assert faces == {
        "EARTH": sorted(["EARTH"] * 3 + ["NORTH"] * 2 + ["RICE"]),
        "WATER": sorted(["WATER"] * 3 + ["EAST"] * 2 + ["FISH"]),
        "FIRE": sorted(["FIRE"] * 3 + ["WEST"] * 2 + ["TREE"]),
        "AIR": sorted(["AIR"] * 3 + ["SOUTH"] * 2 + ["BIRD"]),
        "MOON": sorted(["VOID"] * 2 + ["FORTUNES"] * 2 + ["SUN", "MOON"]),
    }
    assert [d.colour for d in DICE] == ["white"] * 4 + ["black"]
    assert len(LABELS) == 16 and all(DIE_OF[f] == d.name for d in DICE for f in d.faces)


def test_every_combination_of_faces():
    """All 3^4 * 4 distinct showings: exactly the seed's six combinations score."""
    names = {}
    for row in product(*(sorted(set(d.faces)) for d in DICE)):
        combo = combination_of(dict(zip([d.name for d in DICE], row, strict=True)))
        if combo:
            names[row] = combo.name
    assert names == {
        ("NORTH", "EAST", "WEST", "SOUTH", "FORTUNES"): "Fortunes and Winds",
        ("NORTH", "EAST", "WEST", "SOUTH", "SUN"): "The Lady's Breath",
        ("NORTH", "EAST", "WEST", "SOUTH", "VOID"): "Empty Winds",
        ("EARTH", "WATER", "FIRE", "AIR", "VOID"): "Shinsei's Blessing",
        ("EARTH", "WATER", "FIRE", "AIR", "SUN"): "The Lady's Tears",
        ("EARTH", "WATER", "FIRE", "AIR", "FORTUNES"): "Seven Thunders",
    }
    assert [c.pays for c in COMBINATIONS] == ["4:1", "4:1", "2:1", "2:1", "2:1", "1:1"]


def test_faces_parse_in_any_order_and_case():
    assert parse_faces("void bird north") == {"MOON": "VOID", "AIR": "BIRD", "EARTH": "NORTH"}
    with pytest.raises(IllegalCommand, match="both faces of the Earth die"):
        parse_faces(["NORTH", "EARTH"])
    with pytest.raises(IllegalCommand, match="not a face"):
        parse_faces(["DRAGON"])


# -- the seed's Example of Play -----------------------------------------------------------------


def test_example_of_play_koku_for_koku():
    """The seed's three turns at the House Where Fortune Smiles, through the history file."""
    lines = [json.loads(line) for line in HISTORY.read_text(encoding="utf-8").splitlines() if line.strip()]
    state, seen = None, {}
    for data in lines:
        state, events = apply(state, Command.from_json(data))
        seen[data["id"]] = (state, events)

    def paid(cid: str) -> dict:
        return {(e.data["player"], e.data["bet"]): (e.data["result"], e.data["paid"])
                for e in seen[cid][1] if e.kind == "bet-settled"}

    # Turn 1: North, East, Fire, Bird, Void; keeps North and East; then West; no luck.
    assert paid("c15") == {
        ("Ginawa", "standard"): ("lose", 0), ("Ginawa", "lord-moon"): ("push", 1),
        ("Sanzo", "standard"): ("lose", 0), ("Sanzo", "lord-moon"): ("push", 1),
        ("Ujikeme", "daikoku-against"): ("win", 3 + 2),
    }
    assert balances(seen["c15"][0]) == {"Ginawa": 9, "Sanzo": 9, "Ujikeme": 12, BANK: 0}
    assert seen["c15"][0].shooter == "Sanzo"
    # Turn 2: The Lady's Tears on the first roll pays double: eight koku on two.
    assert paid("c19") == {
        ("Sanzo", "standard"): ("win", 2 + 8), ("Sanzo", "lord-moon"): ("push", 2),
        ("Ginawa", "lady-sun-tea"): ("lose", 0), ("Ujikeme", "hungry-moon"): ("win", 2),
    }
    assert balances(seen["c19"][0]) == {"Ginawa": 8, "Sanzo": 17, "Ujikeme": 13, BANK: -8}
    assert seen["c19"][0].shooter == "Sanzo" and seen["c20"][0].shooter == "Ujikeme"
    # Turn 3: Lord Moon on the first roll; Ginawa is paid two, Sanzo one.
    assert paid("c24") == {
        ("Ujikeme", "standard"): ("lose", 0), ("Ujikeme", "lord-moon"): ("lose", 0),
        ("Ginawa", "hungry-moon"): ("win", 4), ("Sanzo", "hungry-moon"): ("win", 2),
    }
    assert balances(state) == {"Ginawa": 10, "Sanzo": 18, "Ujikeme": 11, BANK: -9}
    assert state.shooter == "Ginawa" and state.ledger.total() == 0
    assert not state.ledger.accounts("bet")


# -- a turn -----------------------------------------------------------------------------------


def test_first_roll_combination_pays_double_and_returns_lord_moon():
    state = table("A", "B")
    state, events = play(C("bet", player="A", bet="standard", amount=3),
                         C("bet", player="B", bet="standard", amount=1),
                         C("bet", player="B", bet="daikoku-for", amount=2),
                         C("roll", faces=["NORTH", "EAST", "WEST", "SOUTH", "FORTUNES"]),
                         state=state)
    assert balances(state) == {"A": 124, "B": 111, BANK: -35}
    ended = RoundEnded.among(events)
    assert ended == RoundEnded("win", "A", {"combination": "fortunes-and-winds",
                                            "combination_name": "Fortunes and Winds",
                                            "rolls": 1, "showing": ended.details["showing"]})
    assert state.shooter == "A" and state.won_last and state.rounds == 1


def test_second_roll_combination_pays_the_listed_odds():
    state = table("A", "B")
    state, _ = play(C("bet", player="A", bet="standard", amount=2),
                    C("bet", player="B", bet="hungry-moon", amount=5),
                    C("bet", player="B", bet="lady-sun-tea", amount=5),
                    C("roll", faces=["EARTH", "WATER", "FIRE", "BIRD", "VOID"]),
                    C("set-aside", dice=["EARTH", "WATER", "FIRE"]),
                    C("roll", faces=["AIR", "FORTUNES"]), state=state)
    # Seven Thunders on roll 2 pays 1:1; Hungry Moon wins, Lady Sun's Tea loses.
    assert balances(state) == {"A": 102, "B": 100, BANK: -2}


def test_lord_moon_loses_bet_and_lord_moon_money_and_passes_left():
    state = table("A", "B", "C")
    state, events = play(C("bet", player="A", bet="standard", amount=4),
                         C("bet", player="C", bet="standard", amount=1),
                         C("roll", faces=["NORTH", "WATER", "FIRE", "AIR", "VOID"]),
                         C("roll", faces=["NORTH", "WATER", "FIRE", "AIR", "MOON"]),
                         state=state)
    assert balances(state) == {"A": 92, "B": 100, "C": 98, BANK: 10}
    assert state.shooter == "B" and not state.won_last
    assert events[-1].kind == "dice-passed" and events[-1].data["reason"] == "lord-moon"


def test_no_combination_after_three_rolls_returns_lord_moon_money():
    state = table("A", "B")
    state, _ = play(C("bet", player="A", bet="standard", amount=5),
                    C("bet", player="B", bet="daikoku-against", amount=6),
                    C("bet", player="B", bet="lady-sun-tea", amount=1),
                    C("roll", faces=["RICE", "FISH", "TREE", "BIRD", "SUN"]),
                    C("roll", faces=["RICE", "FISH", "TREE", "BIRD", "SUN"]),
                    C("roll", faces=["RICE", "FISH", "TREE", "BIRD", "SUN"]), state=state)
    assert balances(state) == {"A": 95, "B": 105, BANK: 0}
    assert state.shooter == "B" and state.roll == 0 and not state.set_aside


def test_lady_sun_tea_wins_when_lord_moon_turns_up_on_the_third_roll():
    state = table("A", "B")
    state, _ = play(C("bet", player="A", bet="standard", amount=1),
                    C("bet", player="B", bet="lady-sun-tea", amount=3),
                    C("bet", player="B", bet="hungry-moon", amount=2),
                    *[C("roll", faces=["RICE", "FISH", "TREE", "BIRD", "VOID"])] * 2,
                    C("roll", faces=["RICE", "FISH", "TREE", "BIRD", "MOON"]), state=state)
    assert balances(state) == {"A": 98, "B": 101, BANK: 1}


@pytest.mark.parametrize("rolls", [1, 2])
def test_hungry_moon_pushes_on_fortunes_and_winds_in_one_or_two_rolls(rolls):
    state = table("A", "B")
    fw = ["NORTH", "EAST", "WEST", "SOUTH", "FORTUNES"]
    miss = ["NORTH", "EAST", "WEST", "BIRD", "SUN"]
    state, events = play(C("bet", player="A", bet="standard", amount=1),
                         C("bet", player="B", bet="hungry-moon", amount=7),
                         *[C("roll", faces=miss)] * (rolls - 1),
                         C("roll", faces=fw), state=state)
    settled = {e.data["bet"]: e.data["result"] for e in events if e.kind == "bet-settled"}
    assert settled["hungry-moon"] == "push" and balances(state)["B"] == 100


def test_hungry_moon_wins_other_combinations_and_loses_on_three_rolls():
    state = table("A", "B")
    state, _ = play(C("bet", player="A", bet="standard", amount=1),
                    C("bet", player="B", bet="hungry-moon", amount=7),
                    C("roll", faces=["NORTH", "EAST", "WEST", "SOUTH", "SUN"]), state=state)
    assert balances(state)["B"] == 107
    state, _ = play(C("bet", player="A", bet="standard", amount=1),
                    C("bet", player="B", bet="hungry-moon", amount=7),
                    *[C("roll", faces=["NORTH", "EAST", "WEST", "BIRD", "SUN"])] * 2,
                    C("roll", faces=["NORTH", "EAST", "WEST", "SOUTH", "FORTUNES"]),
                    state=state)
    assert balances(state)["B"] == 100


def test_set_aside_is_cumulative_and_the_next_roll_shows_the_rest():
    state = table("A")
    state, _ = play(C("bet", player="A", bet="standard", amount=1),
                    C("roll", faces=["NORTH", "WATER", "FIRE", "BIRD", "VOID"]),
                    C("set-aside", dice=["NORTH"]),
                    C("set-aside", player="A", dice=["fire"]), state=state)
    assert state.set_aside == ("EARTH", "FIRE") and state.to_roll() == ("WATER", "AIR", "MOON")
    view = ENGINE.view(state)
    assert view["set_aside"] == ["NORTH", "FIRE"] and view["may_set_aside"] == 1
    state, _ = play(C("roll", faces=["SUN", "EAST", "SOUTH"]), state=state)
    assert state.roll == 2 and state.showing_map()["WATER"] == "EAST"
    refused(state, C("set-aside", dice=["EAST", "SOUTH"]), "at most 3 white dice")
    state, _ = play(C("set-aside", dice=["SOUTH"]), state=state)
    refused(state, C("roll", faces=["EAST", "BIRD", "VOID"]), "Air die is set aside")
    state, _ = play(C("roll", faces=["EAST", "VOID"]), state=state)
    assert state.roll == 0 and state.last_turn.rolls == 3
    assert state.last_turn.showing == ("NORTH", "EAST", "FIRE", "SOUTH", "VOID")


def test_a_winner_chooses_new_turn_or_pass():
    state = table("A", "B")
    tears = ["EARTH", "WATER", "FIRE", "AIR", "SUN"]
    state, _ = play(C("bet", player="A", bet="standard", amount=1), C("roll", faces=tears),
                    state=state)
    assert ENGINE.view(state)["may_pass"]
    # A new turn: he keeps the dice.
    state, _ = play(C("bet", player="A", bet="standard", amount=1),
                    C("bet", player="B", bet="daikoku-for", amount=2), state=state)
    # Passing before its first roll returns every bet laid on that turn.
    state, events = play(C("pass", player="A"), state=state)
    assert state.shooter == "B" and not state.ledger.accounts("bet")
    assert balances(state) == {"A": 104, "B": 100, BANK: -4}
    assert [e.data["result"] for e in events if e.kind == "bet-settled"] == ["push"] * 3
    refused(state, C("pass", player="B"), "after a winning turn")


def test_a_shooter_who_cannot_cover_the_smallest_bet_may_pass():
    state = table("A", "B", coins=1)
    assert ENGINE.view(state)["may_pass"]
    state, events = play(C("pass"), state=state)
    assert state.shooter == "B" and events[-1].data["reason"] == "cannot cover the smallest bet"


def test_the_dice_go_left_when_the_shooter_leaves():
    state = table("A", "B", "C")
    state, _ = play(C("leave", player="A"), state=state)
    assert state.shooter == "B"
    state, _ = play(C("bet", player="C", bet="standard", amount=1), state=state)
    refused(state, C("leave", player="B"), "bets are laid on his turn")


def test_house_pays_are_settings_and_set_the_stake_unit():
    state = table("A", seven_thunders_pays="3:2", first_roll_multiplier=1)
    assert stake_unit(state.settings, "standard") == 2
    refused(state, C("bet", player="A", bet="standard", amount=3), "multiple of 2")
    state, _ = play(C("bet", player="A", bet="standard", amount=4),
                    C("roll", faces=["EARTH", "WATER", "FIRE", "AIR", "FORTUNES"]), state=state)
    assert balances(state) == {"A": 106, BANK: -6}


# -- refusals -----------------------------------------------------------------------------------


def test_bets_are_refused_with_reasons():
    state = table("A", "B", "C", max_standard=10, min_daikoku_for=4, coins=30)
    refused(state, C("bet", player="A", bet="daikoku-for", amount=2), "shooter may not make")
    refused(state, C("bet", player="B", bet="daikoku-for", amount=3), "multiple of 2")
    refused(state, C("bet", player="B", bet="daikoku-for", amount=2), "table takes 4 to")
    refused(state, C("bet", player="B", bet="daikoku-against", amount=4), "multiple of 3")
    refused(state, C("bet", player="B", bet="standard", amount=11), "table takes 1 to 10")
    refused(state, C("bet", player="B", bet="standard", amount=16), "table takes 1 to 10")
    refused(state, C("bet", player="B", bet="lady-sun-tea", amount=31), "holds 30 coins")
    refused(state, C("bet", player="D", bet="standard", amount=1), "not seated")
    refused(state, C("bet", player="B", bet="lord-moon", amount=1), "expected one of")
    state, _ = play(C("bet", player="B", bet="standard", amount=10), state=state)
    refused(state, C("bet", player="B", bet="standard", amount=1), r"11 on the standard bet "
                                                                   r"\(10 already on it\)")
    state = table("A", "B", coins=9)
    refused(state, C("bet", player="B", bet="standard", amount=5), r"needs 10 \(5 more for Lord")


def test_the_against_space_can_be_switched_off():
    state = table("A", "B", daikoku_against=False)
    refused(state, C("bet", player="B", bet="daikoku-against", amount=3), "no space for betting")
    assert "daikoku-against" not in ENGINE.view(state)["bet_kinds"]


def test_rolls_and_set_asides_are_refused_with_reasons():
    state = table("A", "B")
    roll = C("roll", faces=["NORTH", "EAST", "FIRE", "BIRD", "VOID"])
    refused(state, roll, "lays a standard bet")
    refused(state, C("set-aside", dice=["NORTH"]), "roll first")
    state, _ = play(C("bet", player="A", bet="standard", amount=1), roll, state=state)
    refused(state, C("bet", player="B", bet="standard", amount=1), "before the turn's first")
    refused(state, C("bet", player="A", bet="standard", amount=1), "before the turn's first")
    refused(state, C("set-aside", dice=["VOID"]), "black Moon die")
    refused(state, C("set-aside", dice=["EARTH"]), "Earth die shows NORTH, not EARTH")
    refused(state, C("set-aside", dice=["NORTH", "NORTH"]), "already set aside")
    refused(state, C("set-aside", dice=["NORTH", "EAST", "FIRE", "BIRD"]), "at most 3")
    refused(state, C("set-aside", dice=[]), "name the dice")
    refused(state, C("set-aside", dice=["PEARL"]), "not a face")
    refused(state, C("set-aside", player="B", dice=["NORTH"]), "only the shooter")
    refused(state, C("roll", player="B", faces=["NORTH"] * 1), "only the shooter")
    refused(state, C("pass", player="A"), "turn is under way")
    refused(state, C("pass", player="B"), "only the shooter")
    state, _ = play(C("set-aside", dice=["NORTH", "EAST"]), state=state)
    refused(state, C("set-aside", dice=["NORTH"]), "already set aside")
    refused(state, C("roll", faces=["FIRE", "AIR"]), "missing: the Moon die")
    refused(state, C("roll", faces=["FIRE", "AIR", "VOID", "NORTH"]), "is set aside")
    refused(state, C("roll", faces=["FIRE", "TREE", "AIR", "VOID"]), "both faces of the Fire")
    refused(state, C("roll", faces="FIRE AIR VOID"), "expected a list")
    refused(state, C("join", player="Z"), "between rounds")
    refused(state, C("configure", settings={"max_bet": 5}), "no bets lie")


def test_configure_waits_for_the_bets():
    state = table("A", "B")
    state, _ = play(C("bet", player="B", bet="lady-sun-tea", amount=1), state=state)
    refused(state, C("configure", settings={"daikoku_against": False}), "no bets lie")
    state = table("A")
    state, events = play(C("configure", settings={"daikoku_against": False}), state=state)
    assert events[0].data["settings"] == {"daikoku_against": False}


def test_settings_that_leave_no_stake_are_refused():
    with pytest.raises(IllegalCommand, match="leave no Daikoku's Belly"):
        table("A", min_daikoku_for=3, max_daikoku_for=3)


# -- random play --------------------------------------------------------------------------------


def test_declarations():
    assert ENGINE.chance_kinds == {"roll"} and ENGINE.round_bound == 3


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4))
def test_random_play_conserves_every_coin(seed, players):
    """Random commands: no coin made or lost, no bet left after a turn, turns end in 3 rolls."""
    rng = random.Random(seed)
    state = table(*[f"P{i}" for i in range(players)], coins=20)
    bought = 20 * players
    turns = 0
    for _ in range(300):
        cmd = ENGINE.random_command(state, rng)
        try:
            new, events = apply(state, cmd)
        except IllegalCommand:
            continue
        for e in events:
            if e.kind == "bought-in":
                bought += e.data["amount"]
            elif e.kind == "cashed-out":
                bought -= e.data["amount"]
        assert new.ledger.total() == 0
        assert new.roll <= 3 and len(new.set_aside) <= 3
        players_and_bets = sum(new.ledger.players().values()) + sum(
            new.ledger.accounts("bet").values())
        assert players_and_bets + new.ledger.balance(BANK) == bought
        if RoundEnded.among(events):
            turns += 1
            assert not new.ledger.accounts("bet") and not ENGINE.in_round(new)
        state = new
    assert turns > 0


def test_alone_at_the_table_the_dice_come_back():
    state = table("A")
    state, events = play(C("bet", player="A", bet="standard", amount=1),
                         C("roll", faces=["NORTH", "EAST", "FIRE", "BIRD", "MOON"]), state=state)
    assert state.shooter == "A" and events[-1].data == {"from": "A", "to": "A",
                                                        "reason": "lord-moon"}


def test_a_rider_may_also_make_side_bets_and_bets_add_up_on_a_spot():
    state = table("A", "B")
    state, _ = play(C("bet", player="A", bet="standard", amount=1),
                    C("bet", player="B", bet="standard", amount=1),
                    C("bet", player="B", bet="standard", amount=2),
                    C("bet", player="B", bet="daikoku-for", amount=2),
                    C("bet", player="B", bet="daikoku-against", amount=3), state=state)
    assert ENGINE.view(state)["bets"]["B"] == {"standard": 3, "lord-moon": 3,
                                               "daikoku-for": 2, "daikoku-against": 3}
    state, _ = play(C("roll", faces=["EARTH", "WATER", "FIRE", "AIR", "FORTUNES"]), state=state)
    # Seven Thunders on roll 1 pays 2:1; Daikoku for 3:2 wins 3, against loses 3.
    assert balances(state) == {"A": 102, "B": 106, BANK: -8}


def test_the_view_is_json_for_the_screens():
    state = table("A", "B")
    state, _ = play(C("bet", player="A", bet="standard", amount=1),
                    C("roll", faces=["NORTH", "EAST", "FIRE", "BIRD", "VOID"]), state=state)
    view = json.loads(json.dumps(ENGINE.view(state)))
    assert view["shooter"] == "A" and view["phase"] == "rolling" and view["roll"] == 1
    assert view["to_roll"] == ["EARTH", "WATER", "FIRE", "AIR", "MOON"]
    assert view["may_set_aside"] == 3 and view["may_pass"] is False
    assert view["showing"]["AIR"] == "BIRD" and view["bets"] == {"A": {"standard": 1,
                                                                       "lord-moon": 1}}
