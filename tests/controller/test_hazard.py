"""Hazard: the seed's nick/out/chance table, chance throws, the passing of the dice, the bets."""

from __future__ import annotations

import random

import pytest
import tables
from hypothesis import given, settings
from hypothesis import strategies as st
from tables import C, balances, play, refused

from controller.errors import IllegalCommand
from controller.games import apply, find_game
from controller.games.base import Command, RoundEnded
from controller.games.hazard import MAINS, first_throw, odds_pays
from controller.ledger import BANK, statements

ENGINE = find_game("hazard")

#: The seed's table, row by main, columns 2..12 (o = out, C = chance, N = nick).
SEED_TABLE = {
    5: "o o C N C C C C C o o",
    6: "o o C C N C C C C o N",
    7: "o o C C C N C C C N o",
    8: "o o C C C C N C C o N",
    9: "o o C C C C C N C o o",
}


def table(*players: str, coins: int = 100, **settings):
    return tables.table("hazard", *players, coins=coins, **settings)



def throw(total: int) -> Command:
    return C("throw", dice=[max(1, total - 6), total - max(1, total - 6)])


@pytest.mark.parametrize("main", MAINS)
def test_every_main_against_every_total(main):
    words = {"o": "out", "C": "chance", "N": "nick"}
    expected = [words[c] for c in SEED_TABLE[main].split()]
    assert [first_throw(main, total) for total in range(2, 13)] == expected


@pytest.mark.parametrize("main", MAINS)
@pytest.mark.parametrize("total", range(2, 13))
def test_every_first_throw_through_the_engine(main, total):
    state = table("A", "B")
    state, events = play(C("call-main", main=main),
                         C("bet", player="A", bet="caster-wins", amount=10),
                         C("bet", player="B", bet="caster-loses", amount=20),
                         throw(total), state=state)
    result = first_throw(main, total)
    if result == "chance":
        assert state.chance == total and ENGINE.in_round(state)
        return
    won = result == "nick"
    assert balances(state) == ({"A": 110, "B": 80, BANK: 10} if won
                               else {"A": 90, "B": 119, BANK: -9})
    assert not ENGINE.in_round(state) and state.losses == (0 if won else 1)


def test_after_a_chance_the_chance_wins_and_the_main_loses():
    state = table("A")
    state, _ = play(C("call-main", main=7), throw(4), throw(9), throw(11), throw(2), state=state)
    assert state.chance == 4 and state.throws == 4  # 11 and 2 mean nothing now
    state, events = play(throw(4), state=state)
    assert events[-1].data["result"] == "caster-wins" and state.losses == 0
    state, events = play(C("call-main", main=6), throw(5), throw(6), state=state)
    assert events[-1].data["result"] == "caster-loses" and state.losses == 1


def test_three_losses_in_succession_pass_the_dice_left():
    state = table("A", "B", "C")
    lose = [C("call-main", main=5), throw(2)]
    state, _ = play(*lose, *lose, state=state)
    assert state.caster == "A" and state.losses == 2
    state, _ = play(C("call-main", main=5), throw(5), *lose, *lose, state=state)
    assert state.caster == "A" and state.losses == 2  # the win broke the run
    state, events = play(*lose, state=state)
    assert state.caster == "B" and state.losses == 0
    assert events[-1].kind == "dice-passed" and events[-1].data["from"] == "A"
    state = table("A", losses_to_pass=1)
    state, _ = play(*lose, state=state)
    assert state.caster == "A"  # alone at the table, the dice come back to him


def test_caster_loses_pays_less_a_commission_rounded_down():
    state = table("A", "B", "C")
    state, events = play(C("call-main", main=7),
                         C("bet", player="B", bet="caster-loses", amount=39),
                         C("bet", player="C", bet="caster-loses", amount=19),
                         throw(12), state=state)
    # 5% of 39 is 1.95: one coin; of 19, 0.95: nothing.
    assert balances(state) == {"A": 100, "B": 138, "C": 119, BANK: -57}
    settled = {e.data["player"]: e.data for e in events if e.kind == "bet-settled"}
    assert settled["B"]["commission"] == 1 and settled["B"]["paid"] == 77
    assert "commission" not in settled["C"]
    entries = [x for e in events for x in e.entries]
    assert statements(entries)["B"].fees == 1 and statements(entries)["B"].won == 39


def test_odds_are_laid_at_true_odds_once_a_chance_is_set():
    assert str(odds_pays(7, 4)) == "2:1" and str(odds_pays(5, 6)) == "4:5"
    assert str(odds_pays(8, 6)) == "1:1" and str(odds_pays(9, 10)) == "4:3"
    state = table("A", "B")
    state, _ = play(C("call-main", main=5), state=state)
    refused(state, C("bet", player="B", bet="odds", amount=5), "once a chance is set")
    state, _ = play(throw(6), state=state)
    refused(state, C("bet", player="B", bet="odds", amount=4), "multiple of 5")
    refused(state, C("bet", player="B", bet="caster-wins", amount=4), "before the first throw")
    state, _ = play(C("bet", player="B", bet="odds", amount=10), throw(6), state=state)
    assert balances(state) == {"A": 100, "B": 108, BANK: -8}


def test_hazard_refusals():
    state = table("A", "B", coins=10, max_bet=30)
    refused(state, C("bet", player="B", bet="caster-wins", amount=1), "once the caster has called")
    refused(state, C("throw", dice=[3, 4]), "calls a main before")
    refused(state, C("call-main", main=4), "expected one of")
    refused(state, C("call-main", player="B", main=7), "only the caster")
    state, _ = play(C("call-main", main=7), state=state)
    refused(state, C("call-main", main=6), "already 7")
    refused(state, C("bet", player="A", bet="caster-loses", amount=1), "may not bet that he")
    refused(state, C("bet", player="B", bet="caster-wins", amount=11), "holds 10 coins")
    refused(state, C("bet", player="B", bet="caster-wins", amount=31), "table takes 1 to 30")
    state, _ = play(C("bet", player="B", bet="caster-wins", amount=10), state=state)
    refused(state, C("bet", player="B", bet="caster-wins", amount=30), r"\(10 already on it\)")
    state = table("A", "B", min_caster_loses=20)
    state, _ = play(C("call-main", main=7), state=state)
    refused(state, C("bet", player="B", bet="caster-loses", amount=19), "takes 20 to 1000")
    refused(state, C("throw", dice=[3, 7]), "two dice from 1 to 6")
    refused(state, C("throw", dice=[3]), "two dice from 1 to 6")
    refused(state, C("throw", player="B", dice=[3, 4]), "only the caster")
    refused(state, C("leave", player="B"), "between rounds")


def test_declarations():
    assert ENGINE.chance_kinds == {"throw"} and ENGINE.round_bound >= 100


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4))
def test_random_play_conserves_every_coin(seed, players):
    rng = random.Random(seed)
    state = table(*[f"P{i}" for i in range(players)], coins=30)
    bought = 30 * players
    for _ in range(300):
        cmd = ENGINE.random_command(state, rng)
        try:
            new, events = apply(state, cmd)
        except IllegalCommand:
            continue
        for e in events:
            bought += {"bought-in": 1, "cashed-out": -1}.get(e.kind, 0) * e.data.get("amount", 0)
        assert new.ledger.total() == 0
        held = sum(new.ledger.players().values()) + sum(new.ledger.accounts("bet").values())
        assert held + new.ledger.balance(BANK) == bought
        if RoundEnded.among(events):
            assert not new.ledger.accounts("bet")
        state = new


def test_the_dice_go_left_when_the_caster_leaves_between_rounds():
    state = table("A", "B", "C")
    state, _ = play(C("leave", player="A"), state=state)
    assert state.caster == "B" and state.losses == 0
