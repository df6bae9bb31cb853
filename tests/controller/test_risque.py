"""Risque: characters, the pool builder and what each bonus is worth, secret Mises revealed
together, the roll, the Privilege, Mises kept, the Truths, Glory, the Honour Reserve, Seppuku,
duels, Reputations, and the exact chance of reaching 10."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.errors import IllegalCommand
from controller.games.base import Command, Event
from controller.games.observation import Observation, Seen
from controller.games.risque import Risque
from controller.history import read_history
from controller.odds.risque import (
    best_mises,
    expected_truths,
    odds,
    odds_text,
    p_at_least,
    reach,
)

ENGINE = Risque()


def C(kind: str, **args) -> Command:
    return Command(kind, args)


def play(state, *cmds: Command):
    events = []
    for cmd in cmds:
        state, evs = ENGINE.apply(state, cmd)
        events += evs
    return state, events


def refused(state, cmd: Command, words: str) -> None:
    before = state
    with pytest.raises(IllegalCommand, match=words):
        ENGINE.apply(state, cmd)
    assert state == before and not ENGINE.can(state, cmd)


TOSHIMOKO = C("character", name="Kakita Toshimoko", clan="Crane",
              virtues={"Courage": 3, "Courtesy": 2}, giri="Guard the Emperor", giri_rank=2,
              aspects=["Master duelist", "Proud"], reputations={"Iron Blade": 23, "Poet": 4},
              equipment={"Ancestral katana": 2}, handicaps=["Old"], wounds={})
KACHIKO = C("character", name="Bayushi Kachiko", clan="Scorpion",
            virtues={"Courage": 1, "Sincerity": 4}, giri="Serve the clan", giri_rank=1,
            aspects=["Schemer"], handicaps=["Watched"], daimyo=["In debt to the Crab"],
            wounds={"Cut arm": 2})
HIDA = C("character", name="Hida Kisada", clan="Crab", virtues={"Courage": 4}, giri_rank=0)


def table(honour: int = 3):
    state = ENGINE.new_state({"honour": honour}, seats=("Ann", "Bob"))
    return play(state, TOSHIMOKO, KACHIKO, HIDA)[0]


def opened(*names, honour=3, kind="risque"):
    return play(table(honour), C(kind, characters=list(names)))[0]


# -- the pool builder -------------------------------------------------------------------------


def test_the_builder_lists_every_bonus_of_the_seed_and_its_worth():
    state = opened("Kakita Toshimoko", "Bayushi Kachiko")
    view = ENGINE.view(state)
    offer = {b["bonus"]: b for b in view["risque"]["participants"][0]["bonuses"]}
    assert {k: b["worth"] for k, b in offer.items()} == {
        "virtue:Courage": 3, "virtue:Courtesy": 2,   # always: the Virtue's rank
        "giri": 2,                                   # Giri: + rank
        "clan": 2, "name": 1,                        # the Clan's name +2, the character's +1
        "aspect:Master duelist": 3, "aspect:Proud": 3,  # one Aspect: +3
        "reputation:Iron Blade": 2, "reputation:Poet": 0,  # one Reputation: + rank (23 pts)
        "equipment:Ancestral katana": 2,             # one Equipment: + rank
        "honour": 4,                                 # 1 Honour spent: +4
        "handicap:Bayushi Kachiko:Watched": 2,       # an opponent's Handicap: 2 dice
        "daimyo:Bayushi Kachiko:In debt to the Crab": 2,
        "wound:Bayushi Kachiko:Cut arm": 2,          # an opponent's Wound: + its rank
    }
    assert offer["honour"]["honour_cost"] == 1
    assert offer["daimyo:Bayushi Kachiko:In debt to the Crab"]["honour_cost"] == 1
    assert offer["wound:Bayushi Kachiko:Cut arm"]["gives_honour"] == "Bayushi Kachiko"
    # His own Handicap is not on his list (only others invoke it); Hida has none to offer.
    assert not any("Old" in k for k in offer)


def test_a_full_pool_and_the_honour_reserve():
    state = opened("Kakita Toshimoko", "Bayushi Kachiko", honour=2)
    state, events = play(state, C("pool", character="Kakita Toshimoko", virtue="Courage",
                                  bonuses=["giri", "clan", "name", "aspect:Master duelist",
                                           "reputation:Iron Blade", "equipment:Ancestral katana",
                                           "honour", "handicap:Bayushi Kachiko:Watched",
                                           "daimyo:Bayushi Kachiko:In debt to the Crab",
                                           "wound:Bayushi Kachiko:Cut arm"]))
    # 3 + 2 + 2 + 1 + 3 + 2 + 2 + 4 + 2 + 2 + 2 = 25 dice; 2 Honour spent, 1 given (the wound)
    assert events[-1].data["dice"] == 25 and state.honour == 1
    # Built again, smaller: the first pool's Honour comes back.
    state, _ = play(state, C("pool", character="Kakita Toshimoko", virtue="Courtesy",
                             bonuses=["clan"]))
    assert state.honour == 2 and state.risk.get("Kakita Toshimoko").pool.dice == 4


@pytest.mark.parametrize("bonuses, words", [
    (["aspect:Master duelist", "aspect:Proud"], "one Aspect at most"),
    (["reputation:Iron Blade", "reputation:Poet"], "one Reputation at most"),
    (["clan", "clan"], "taken twice"),
    (["handicap:Kakita Toshimoko:Old"], "not a bonus Kakita Toshimoko can take now"),
    (["aspect:Schemer"], "not a bonus"),
    (["virtue:Courtesy"], "not a bonus"),
    ([3], "not a bonus"),
])
def test_the_builder_refuses_what_the_seed_does_not_allow(bonuses, words):
    state = opened("Kakita Toshimoko", "Bayushi Kachiko")
    refused(state, C("pool", character="Kakita Toshimoko", virtue="Courage", bonuses=bonuses),
            words)


def test_honour_and_daimyo_handicaps_need_honour_in_the_reserve():
    state = opened("Hida Kisada", "Bayushi Kachiko", honour=1)
    state, _ = play(state, C("pool", character="Hida Kisada", virtue="Courage",
                             bonuses=["honour"]))
    assert state.honour == 0
    refused(state, C("pool", character="Bayushi Kachiko", virtue="Sincerity",
                     bonuses=["honour"]), "the Reserve holds 0 Honour")
    refused(state, C("pool", character="Hida Kisada", virtue="Courage",
                     bonuses=["honour", "daimyo:Bayushi Kachiko:In debt to the Crab"]),
            "the Reserve holds 1 Honour for this pool; it spends 2")
    refused(state, C("pool", character="Hida Kisada", virtue="Wisdom"),
            "Hida Kisada has no Virtue 'Wisdom'; Virtues: Courage")


# -- Mises, the roll, the Privilege -----------------------------------------------------------


def built(state, *pools):
    """pools: (character, virtue, bonuses, mises)."""
    for who, virtue, bonus, mises in pools:
        state, _ = play(state, C("pool", character=who, virtue=virtue, bonuses=bonus),
                        C("mise", character=who, mises=mises))
    return state


def test_mises_are_secret_until_revealed_together():
    state = opened("Kakita Toshimoko", "Bayushi Kachiko")
    state, events = play(state, C("pool", character="Kakita Toshimoko", virtue="Courage",
                                  bonuses=["clan", "name"]),
                         C("mise", character="Kakita Toshimoko", mises=2))
    assert events[-1].data == {"character": "Kakita Toshimoko"}  # how many: not told
    refused(state, C("reveal"), "waiting for Bayushi Kachiko")
    refused(state, C("mise", character="Bayushi Kachiko", mises=1), "builds a pool before")
    state, _ = play(state, C("mise", character="Kakita Toshimoko", mises=1))  # changed
    state = built(state, ("Bayushi Kachiko", "Sincerity", [], 3))
    part = ENGINE.view(state)["risque"]["participants"][0]
    assert part["staked"] and part["mises"] is None
    refused(state, C("roll", character="Kakita Toshimoko", dice=[6, 6]),
            "not now: rolling comes when the Risque is rolling; it is building pools and staking "
            "Mises \\('pool', 'mise', then 'reveal'\\)")
    refused(state, C("mise", character="Bayushi Kachiko", mises=4),
            "stake 0 to 3 Mises, leaving one die at least to roll")
    state, events = play(state, C("reveal"))
    assert events[-1].data == {"mises": {"Kakita Toshimoko": 1, "Bayushi Kachiko": 3},
                               "to_roll": {"Kakita Toshimoko": 5, "Bayushi Kachiko": 1}}
    assert ENGINE.view(state)["risque"]["participants"][0]["mises"] == 1
    refused(state, C("mise", character="Bayushi Kachiko", mises=0), "staking Mises comes when")


def test_the_privilege_keeps_every_mise_other_successes_half_and_failures_none():
    state = opened("Kakita Toshimoko", "Bayushi Kachiko", "Hida Kisada")
    state = built(state, ("Kakita Toshimoko", "Courage", ["clan", "name"], 3),  # 6 dice, 3 roll
                  ("Bayushi Kachiko", "Sincerity", ["clan"], 3),               # 6 dice, 3 roll
                  ("Hida Kisada", "Courage", ["clan"], 2))                     # 6 dice, 4 roll
    state, events = play(state, C("reveal"), C("roll", character="Kakita Toshimoko",
                                                dice=[4, 4, 3]),
                         C("roll", character="Bayushi Kachiko", dice=[6, 6]))
    assert ENGINE.in_round(state)
    refused(state, C("roll", character="Bayushi Kachiko", dice=[1, 1]), "has 1 dice still to roll")
    state, events = play(state, C("roll", character="Bayushi Kachiko", dice=[1]),
                         C("roll", character="Hida Kisada", dice=[1, 2, 1, 2]))
    rolled = next(e for e in events if e.kind == "risque-rolled").data
    assert rolled == {"scores": {"Kakita Toshimoko": 11, "Bayushi Kachiko": 13,
                                 "Hida Kisada": 6},
                      "succeeded": ["Kakita Toshimoko", "Bayushi Kachiko"],
                      "kept": {"Kakita Toshimoko": 2, "Bayushi Kachiko": 3, "Hida Kisada": 0}}
    assert events[-1].kind == "privilege" and events[-1].data["character"] == "Bayushi Kachiko"
    assert not ENGINE.in_round(state) and state.risk.phase == "truths"
    # The Truths: Kachiko first (the Privilege), then clockwise: Hida (nothing), Toshimoko.
    refused(state, C("truth", character="Kakita Toshimoko"), "it is Bayushi Kachiko's turn")
    state, events = play(
        state,
        C("truth", character="Bayushi Kachiko", text="The Crane's envoy was never here"),
        C("truth", character="Kakita Toshimoko"),           # his free Truth
        C("glory", character="Bayushi Kachiko"),            # 2 of her 3 Mises: 1 Glory
        C("glory", character="Kakita Toshimoko"),           # his 2 kept Mises: 1 Glory
        C("truth", character="Bayushi Kachiko"))            # her last Mise
    assert [e.data.get("paid") for e in events if e.kind == "truth"] == ["free", "free", "mise"]
    assert events[-1].kind == "round-ended"
    ended = events[-1].data
    assert ended["result"] == "privilege" and ended["holder"] is None
    assert ended["details"]["privilege"] == "Bayushi Kachiko" and ended["details"]["truths"] == 5
    assert state.risk is None and state.rounds == 1
    assert state.by_name["Bayushi Kachiko"].glory == 1
    assert state.by_name["Kakita Toshimoko"].glory == 1
    assert ENGINE.light(state, tuple(events)) == "win"


def test_nobody_reaches_10_the_narrator_tells():
    state = built(opened("Hida Kisada"), ("Hida Kisada", "Courage", [], 1))
    state, events = play(state, C("reveal"), C("roll", character="Hida Kisada", dice=[6, 2, 1]))
    assert events[-1].kind == "round-ended" and events[-1].data["result"] == "narrator"
    assert ENGINE.light(state, tuple(events)) == "loss"


def test_a_tie_for_the_highest_keeps_all_mises_and_more_mises_has_the_privilege():
    state = opened("Kakita Toshimoko", "Hida Kisada")
    state = built(state, ("Kakita Toshimoko", "Courage", ["clan", "name"], 4),  # 6 dice
                  ("Hida Kisada", "Courage", ["clan"], 3))                     # 6 dice
    state, events = play(state, C("reveal"), C("roll", character="Kakita Toshimoko",
                                                dice=[6, 6]),
                         C("roll", character="Hida Kisada", dice=[6, 5, 1]))
    assert next(e for e in events if e.kind == "risque-rolled").data["kept"] == {
        "Kakita Toshimoko": 4, "Hida Kisada": 3}
    assert state.risk.privilege == "Kakita Toshimoko"


def test_a_tie_with_as_many_mises_is_the_narrators_choice():
    state = opened("Kakita Toshimoko", "Hida Kisada")
    state = built(state, ("Kakita Toshimoko", "Courage", ["clan", "name"], 3),  # 6 dice
                  ("Hida Kisada", "Courage", ["clan"], 3))                     # 6 dice
    state, events = play(state, C("reveal"), C("roll", character="Kakita Toshimoko",
                                                dice=[5, 5, 2]),
                         C("roll", character="Hida Kisada", dice=[6, 5, 1]))
    assert events[-1].kind == "privilege-tied" and state.risk.phase == "privilege"
    refused(state, C("truth", character="Hida Kisada"), "waiting for the Narrator")
    state, events = play(state, C("privilege", character="Hida Kisada"),
                         C("truths-from", character="Kakita Toshimoko"))
    assert state.risk.privilege == "Hida Kisada"
    assert state.risk.participants[state.risk.speaker].character == "Kakita Toshimoko"


def test_tied_scores_with_as_many_mises_wrong_choice_refused():
    state = opened("Kakita Toshimoko", "Hida Kisada", "Bayushi Kachiko")
    state = built(state, ("Kakita Toshimoko", "Courage", ["clan"], 2),
                  ("Hida Kisada", "Courage", ["clan"], 2),
                  ("Bayushi Kachiko", "Sincerity", [], 1))
    state, _ = play(state, C("reveal"), C("roll", character="Kakita Toshimoko", dice=[5, 5, 2]),
                    C("roll", character="Hida Kisada", dice=[6, 4, 1, 1]),
                    C("roll", character="Bayushi Kachiko", dice=[4, 4, 4]))
    refused(state, C("privilege", character="Bayushi Kachiko"),
            "the Privilege goes to one of Kakita Toshimoko, Hida Kisada")


def test_a_risque_rolled_in_parts_ten_dice_at_a_time():
    state = built(opened("Kakita Toshimoko", honour=1),
                  ("Kakita Toshimoko", "Courage",
                   ["giri", "clan", "name", "aspect:Proud", "honour", "equipment:Ancestral katana"],
                   1))  # 3 + 2 + 2 + 1 + 3 + 4 + 2 = 17 dice, 16 to roll
    state, _ = play(state, C("reveal"))
    cmd = ENGINE.chance_step(state, random.Random(1))
    assert len(cmd.args["dice"]) == 10
    state, _ = play(state, cmd)
    assert len(ENGINE.chance_step(state, random.Random(1)).args["dice"]) == 6


# -- Seppuku, duels, Glory and Reputations, Honour --------------------------------------------


def test_seppuku_is_courage_plus_giri_and_restores_4_honour_plus_1_per_mise():
    state, events = play(table(honour=0), C("seppuku", character="Kakita Toshimoko"))
    assert events[-1].data["dice"] == 5  # Courage 3 + Giri 2
    refused(state, C("pool", character="Kakita Toshimoko", virtue="Courage"),
            "Courage \\+ Giri, built when it opens")
    state, events = play(state, C("mise", character="Kakita Toshimoko", mises=2), C("reveal"),
                         C("roll", character="Kakita Toshimoko", dice=[6, 4, 3]))
    assert events[-1].data["details"]["honour"] == 6 and state.honour == 6
    assert not state.by_name["Kakita Toshimoko"].alive
    refused(state, C("risque", characters=["Kakita Toshimoko"]), "dead")
    refused(state, C("risque", characters=["Hida Kisada", "Kakita Toshimoko"]), "dead")


def test_a_failed_seppuku_restores_nothing():
    state, _ = play(table(honour=0), C("seppuku", character="Hida Kisada"),
                    C("mise", character="Hida Kisada", mises=0), C("reveal"))
    state, events = play(state, C("roll", character="Hida Kisada", dice=[1, 2, 3, 2]))
    assert events[-1].data["details"]["honour"] == 0 and state.honour == 0


def test_a_duels_winner_gains_a_glory_per_mise_of_the_opponent():
    state = opened("Kakita Toshimoko", "Hida Kisada", kind="duel")
    state = built(state, ("Kakita Toshimoko", "Courage", ["aspect:Master duelist"], 2),
                  ("Hida Kisada", "Courage", ["clan"], 3))
    state, events = play(state, C("reveal"), C("roll", character="Kakita Toshimoko",
                                                dice=[6, 5, 2, 1]),
                         C("roll", character="Hida Kisada", dice=[2, 1, 1]))
    glory = [e.data for e in events if e.kind == "glory-won"]
    assert glory == [{"character": "Kakita Toshimoko", "points": 3,
                      "why": "the duel: Hida Kisada's Mises"}]
    refused(table(), C("duel", characters=["Hida Kisada"]), "a duel has 2 characters")


def test_glory_grows_reputations_10_points_a_rank_at_most_1_plus_giri():
    state, _ = play(table(), C("award-glory", character="Hida Kisada", points=12))
    state, events = play(state, C("reputation", character="Hida Kisada",
                                  reputation="Wall-breaker", points=7))
    assert events[-1].data["rank"] == 0
    state, events = play(state, C("reputation", character="Hida Kisada",
                                  reputation="Wall-breaker"))
    assert events[-1].data == {"character": "Hida Kisada", "reputation": "Wall-breaker",
                               "points": 12, "rank": 1, "ranks_gained": 1}
    state, _ = play(state, C("award-glory", character="Hida Kisada", points=1))
    # Giri rank 0: one Reputation at most.
    refused(state, C("reputation", character="Hida Kisada", reputation="Drunkard"),
            "has 1 Reputations, the most for Giri rank 0; add the Glory to one of: Wall-breaker")
    refused(state, C("reputation", character="Hida Kisada", reputation="Wall-breaker",
                     points=2), "has 1 Glory to add")
    refused(state, C("character", name="X", clan="Crab", virtues={"Courage": 1},
                     reputations={"A": 1, "B": 2}), "at most 1 Reputations")


def test_honour_gains_and_losses_a_loss_takes_what_is_there():
    state, events = play(table(honour=0), C("honour", points=1, why="a Risque for the Clan"),
                         C("honour", points=-3, why="broke an Aspect's constraint"))
    assert events[-1].data == {"points": -1, "why": "broke an Aspect's constraint",
                               "reserve": 0, "shortfall": 2}
    refused(state, C("honour", points=0, why="x"), "expected a gain")


def test_character_sheets_are_checked():
    state = table()
    refused(state, C("character", name="A:B", clan="Crab", virtues={"Courage": 1}), "without ':'")
    refused(state, C("character", name="A", clan="Crab", virtues={}), "at least one Virtue")
    refused(state, C("character", name="A", clan="Crab", virtues={"Courage": -1}),
            "virtue Courage = -1")
    refused(state, C("character", name="A", clan="Crab", virtues={"Courage": 1},
                     player="Zed"), "Zed is not seated")
    state = opened("Hida Kisada")
    refused(state, HIDA, "in the Risque under way")
    refused(state, C("risque", characters=["Hida Kisada"]), "a Risque is under way")
    refused(state, C("configure", settings={"max_pool": 9}), "between Risques")


# -- the camera ---------------------------------------------------------------------------------


def test_the_camera_reads_pip_dice_and_leaves_the_mises_in_the_tray():
    state = built(opened("Hida Kisada"), ("Hida Kisada", "Courage", ["clan"], 2))
    state, _ = play(state, C("reveal"))
    objects = [Seen(f"PIP-{d}", 0.99) for d in (6, 2, 5, 1)] + \
              [Seen("PIP-3", 0.99, zone="tray"), Seen("PIP-3", 0.99, zone="tray")]
    reading = ENGINE.read(state, Observation(tuple(objects)))
    assert reading.ready
    assert reading.commands == (C("roll", character="Hida Kisada", dice=[6, 2, 5, 1]),)
    too_many = Observation(tuple(objects[:4] + [Seen("PIP-4", 0.99)]))
    assert "rolls 4 more dice" in ENGINE.read(state, too_many).problems[0]
    unsure = Observation((Seen("PIP-6", 0.3),))
    assert ENGINE.read(state, unsure).uncertain == (0,)


# -- the exact chance of reaching 10 ----------------------------------------------------------


def brute(n: int) -> Fraction:
    rolls = list(itertools.product(range(1, 7), repeat=n))
    return Fraction(sum(sum(r) >= 10 for r in rolls), len(rolls))


def test_the_chance_of_reaching_10_is_exact():
    assert reach(1, 0) == 0 and reach(5, 4) == 0
    assert reach(2, 0) == Fraction(1, 6)            # 4-6, 5-5, 6-4, 5-6, 6-5, 6-6
    assert reach(3, 0) == Fraction(5, 8)            # 135 of 216
    for n in range(0, 7):
        assert p_at_least(n) == brute(n)
    assert reach(8, 3) == brute(5)
    with pytest.raises(ValueError, match="0 <= Mises <= dice"):
        reach(3, 4)
    report = odds()
    assert report["pools"][2] == {"dice": 3, "best_mises": 0, "by_mises": [
        {"mises": 0, "exact": "5/8", "p": 0.625, "truths": 0.625},
        {"mises": 1, "exact": "1/6", "p": 1 / 6, "truths": 1 / 3},
        {"mises": 2, "exact": "0/1", "p": 0.0, "truths": 0.0}]}
    assert odds_text(report)[3].startswith("k= 3:  62.5*")
    # 6 dice: 3 Mises leave 3 dice (5/8 * 4 = 2.5 Truths) against 2 Mises (65/72 * 3 = 2.71).
    assert expected_truths(6, 2) == Fraction(65, 72) * 3 and best_mises(6) == 2
    assert [best_mises(k) for k in range(1, 13)] == [0, 0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8]


def test_the_view_shows_the_chance_for_every_number_of_mises():
    state = opened("Hida Kisada")
    state, _ = play(state, C("pool", character="Hida Kisada", virtue="Courage", bonuses=["clan"]))
    reach_ = ENGINE.view(state)["risque"]["participants"][0]["reach"]
    assert [r["mises"] for r in reach_] == [0, 1, 2, 3, 4, 5]
    assert [r["exact"] for r in reach_[:3]] == [f"{p.numerator}/{p.denominator}"
                                                for p in (reach(6, 0), reach(6, 1), reach(6, 2))]
    assert reach_[4]["exact"] == "1/6" and reach_[5]["exact"] == "0/1"


# -- properties -------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_risques_keep_the_rules(seed):
    """Random play: the Reserve never goes negative; Mises kept follow the seed; Truths end."""
    rng = random.Random(seed)
    state = ENGINE.new_state(seats=("Ann", "Bob"))
    ended = 0
    for _ in range(1500):
        cmd = ENGINE.random_command(state, rng)
        try:
            state, events = ENGINE.apply(state, cmd)
        except IllegalCommand as exc:
            assert str(exc)
            continue
        assert state.honour >= 0
        for e in events:  # events go to the journal as JSON and come back the same
            assert Event.from_json(e.to_json()) == e
        for e in events:
            if e.kind == "risque-rolled":
                risk = state.risk
                scores = e.data["scores"]
                best = max((s for s in scores.values() if s >= 10), default=None)
                for p in (risk.participants if risk else ()):
                    if scores[p.character] < 10:
                        assert e.data["kept"][p.character] == 0
                    elif scores[p.character] == best:
                        assert e.data["kept"][p.character] == p.mises
                    else:
                        assert e.data["kept"][p.character] == -(-p.mises // 2)
            if e.kind == "round-ended":
                ended += 1
        for char in state.characters:
            assert len(char.reputations) <= char.max_reputations
    assert ended >= 20


# -- the hand history --------------------------------------------------------------------------

HISTORY = Path(__file__).parents[1] / "histories" / "risque-court.jsonl"


def test_the_hand_history_plays_to_its_recorded_end():
    """tests/histories/risque-court.jsonl: every recorded event comes out the same."""
    lines = list(read_history(HISTORY))
    state = ENGINE.new_state(lines[0].command.args["settings"])
    for line in lines[1:]:
        state, events = ENGINE.apply(state, line.command)
        if line.events is not None:
            assert [e.to_json() for e in events] == line.events, line.number
    assert state.rounds == 3 and state.risk is None
    assert state.honour == 6  # 2, less 1 spent, 1 from the Wound, 4 from the Seppuku
    toshimoko = state.by_name["Kakita Toshimoko"]
    assert toshimoko.glory == 3 and dict(toshimoko.reputations) == {"Iron Blade": 24}
    assert not state.by_name["Bayushi Kachiko"].alive
    assert state.last["risque_kind"] == "seppuku" and state.last["honour"] == 4


def test_honour_for_the_clan_constraints_and_truths_for_honour():
    state, events = play(table(honour=0), C("risque", characters=["Hida Kisada"],
                                              honour_for=["clan-interest", "bushido"]))
    assert state.honour == 2 and events[-1].data == {"points": 2,
                                                     "why": "clan-interest, bushido",
                                                     "reserve": 2}
    refused(table(), C("risque", characters=["Hida Kisada"], honour_for=["fun"]),
            "each of clan-interest, clan-dignity, duty-in-danger, bushido at most once")
    refused(table(), C("duel", characters=["Hida Kisada", "Bayushi Kachiko"],
                       honour_for=["bushido", "bushido"]), "at most once")
    state, events = play(table(honour=1),
                         C("compel", character="Kakita Toshimoko", aspect="Proud", kept=True),
                         C("compel", character="Bayushi Kachiko", aspect="Schemer", kept=False))
    assert [e.data["points"] for e in events] == [1, -2] and events[-1].data["shortfall"] == 1
    refused(state, C("compel", character="Hida Kisada", aspect="Proud", kept=True),
            "Hida Kisada has no Aspect 'Proud'; Aspects: none")
    refused(state, C("honour-truth", text="The bridge is rotten"), "Reserve is empty")
    state, events = play(table(honour=1), C("honour-truth", text="The bridge is rotten"))
    assert state.honour == 0 and events[-1].data["paid"] == "honour"


def test_feltbank_replay_runs_the_hand_history(capsys):
    from controller.cli import main

    assert main(["replay", str(HISTORY)]) == 0
    assert '"Ann": 0' in capsys.readouterr().out  # no money in Risque
