"""Rugen (Street, House, Capital): the die, the chain, every bet, settlement and exact odds."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from pathlib import Path

import pytest
import tables
from hypothesis import given, settings
from hypothesis import strategies as st
from tables import C, balances, play, refused

from controller import history
from controller.errors import IllegalCommand
from controller.games import apply, find_game
from controller.games.base import Pays
from controller.games.observation import Observation, Seen
from controller.games.rugen import BASE, D20, FACES, NUMBERS, face_of, load_die, prices
from controller.ledger import BANK, statements
from controller.odds import odds as odds_of
from controller.odds import rugen as odds

HISTORIES = Path(__file__).parents[1] / "histories"
HOUSE = find_game("house-rugen")
STREET = find_game("street-rugen")
CAPITAL = find_game("capital-rugen")


def table(mode: str, *players: str, coins: int = 1000, **settings):
    return tables.table(mode, *players, coins=coins, **settings)


def rolls(*faces: str):
    return [C("roll", face=f) for f in faces]


# -- the die ------------------------------------------------------------------------------------


def test_the_rugen_die_and_the_seeds_transposing_table():
    faces, d20 = load_die()
    assert sum(f.sides for f in faces.values()) == 20
    for n in NUMBERS:
        assert faces[f"{n}d"].sides == faces[f"{n}n"].sides == n
    # Standard d20: 1 | 2 | 3-4 | 5-6 | 7-9 | 10-12 | 13-16 | 17-20
    seed = {"1d": [1], "1n": [2], "2d": [3, 4], "2n": [5, 6], "3d": [7, 8, 9],
            "3n": [10, 11, 12], "4d": [13, 14, 15, 16], "4n": [17, 18, 19, 20]}
    assert {label: [k for k, v in d20.items() if v == label] for label in faces} == seed
    assert face_of(d20=14).label == "4d"  # the seed: "if you roll a 14, this becomes a Day 4"
    assert face_of(face=" 3N ").label == "3n"
    for bad in ({"face": "5d"}, {"d20": 21}, {}, {"face": "1d", "d20": 1}, {"d20": "3"}):
        with pytest.raises(IllegalCommand, match="Rugen die|d20"):
            face_of(**bad)


# -- House Rugen --------------------------------------------------------------------------------


def test_center_bet_on_3_pays_7_on_a_day_3_and_6_on_a_night_3():
    state = table("house-rugen", "A")
    state, events = play(C("bet", player="A", bet="center:3", amount=3), *rolls("3d"), state=state)
    assert balances(state) == {"A": 1007, BANK: -7}
    state, _ = play(C("bet", player="A", bet="center:3", amount=6), *rolls("3n"), state=state)
    assert balances(state) == {"A": 1019, BANK: -19}
    state, _ = play(C("bet", player="A", bet="center:3", amount=3), *rolls("4d"), state=state)
    assert balances(state) == {"A": 1016, BANK: -16}


def test_one_roll_day_and_night_bets_and_their_multiples():
    state = table("house-rugen", "A", coins=100)
    refused(state, C("bet", player="A", bet="day:2", amount=3), "multiple of 2 coins")
    refused(state, C("bet", player="A", bet="center:4", amount=6), "multiple of 4 coins")
    refused(state, C("bet", player="A", bet="center:5", amount=5), "N 1 to 4")
    refused(state, C("bet", player="A", bet="day:2", amount=102), "holds 100 coins")
    state, _ = play(C("bet", player="A", bet="day:2", amount=2),
                    C("bet", player="A", bet="night:2", amount=2), *rolls("2d"), state=state)
    assert balances(state) == {"A": 100 + 17 - 2, BANK: -15}  # 17:2 on the Day, Night lost
    # one-roll bets are taken mid-chain: the chain has a marker on 2 now
    assert HOUSE.in_round(state)
    state, _ = play(C("bet", player="A", bet="night:1", amount=1), *rolls("1n"), state=state)
    assert balances(state)["A"] == 115 + 18


def test_chain_bets_only_at_the_start_of_a_chain():
    state = table("house-rugen", "A", "B")
    state, _ = play(C("bet", player="A", bet="chain:3", amount=5), *rolls("4d"), state=state)
    refused(state, C("bet", player="B", bet="chain:2", amount=5), "at the start of a chain")
    refused(state, C("configure", settings={"chain_bets_unmarked": True}), "no bets lie")
    loose = table("house-rugen", "A", chain_bets_unmarked=True)
    loose, _ = play(*rolls("4d"), state=loose)
    refused(loose, C("bet", player="A", bet="chain-day:4", amount=5), "4 has a marker")
    loose, _ = play(C("bet", player="A", bet="chain:2", amount=5), state=loose)
    # the chain breaks when 3 shows three times (2, 2 would break first)
    state, events = play(*rolls("3n", "2d", "3d", "3n"), state=state)
    assert [e.data["bet"] for e in events if e.kind == "bet-settled"] == ["chain.3"]
    assert balances(state)["A"] == 1000 + 15  # 3:1, the Night figure: a Night 3 broke it
    assert events[-1].kind == "round-ended" and events[-1].data["details"]["number"] == 3
    assert not HOUSE.in_round(state) and state.rounds == 1
    state, _ = play(C("bet", player="B", bet="chain:2", amount=5), state=state)


def test_day_and_night_chain_bets_need_every_roll_of_the_number_alike():
    state = table("house-rugen", "A", "B")
    state, events = play(C("bet", player="A", bet="chain-day:2", amount=1),
                         C("bet", player="B", bet="chain-night:2", amount=1),
                         C("bet", player="A", bet="chain:2", amount=2),
                         *rolls("2d", "4n", "2d"), state=state)
    assert balances(state) == {"A": 1000 + 12 + 6, "B": 999, BANK: -17}
    state, events = play(C("bet", player="A", bet="chain-day:2", amount=1),
                         C("bet", player="A", bet="chain:2", amount=2),
                         *rolls("2d", "2n"), state=state)
    assert balances(state)["A"] == 1018 - 1 + 4  # chain:2 at the Night figure 2:1


def test_the_longest_chain_is_seven_rolls():
    state = table("house-rugen", "A")
    state, events = play(*rolls("2d", "3d", "3n", "4d", "4n", "4d"), state=state)
    assert counts_of(HOUSE.view(state)) == {1: 0, 2: 1, 3: 2, 4: 3}
    for face in FACES:
        _, events = play(*rolls(face), state=state)
        assert events[-1].kind == "round-ended"
    assert HOUSE.round_bound == 7 and max(odds.chain_lengths()) == 7


def counts_of(view):
    return view["markers"]


# -- Street Rugen -------------------------------------------------------------------------------


def test_the_seeds_street_example():
    # Point 3, the shooter bets 40; 1 is taken at 80, 4 at 30, nobody takes 2. The chain
    # 4-4-2-3-2-1: 2 is not taken, so 1 breaks; its taker wins all 150 (a profit of 70).
    state = table("street-rugen", "Shooter", "One", "Four", "Idle")
    state, _ = play(*rolls("3n"), state=state)
    assert state.point == 3
    refused(state, C("bet", player="One", number=1, amount=80), "bets on his point first")
    refused(state, C("bet", player="Shooter", number=2, amount=40), "his point, 3")
    refused(state, C("bet", player="Shooter", number=3, amount=42), "multiple of 4 coins")
    refused(state, C("roll", face="1d"), "bets on his point, 3, first")
    state, _ = play(C("bet", player="Shooter", number=3, amount=40), state=state)
    refused(state, C("bet", player="One", number=1, amount=40), "8 x 10 = 80 coins")
    refused(state, C("bet", player="One", number=3, amount=40), "3 is taken by Shooter")
    state, _ = play(C("bet", player="One", number=1, amount=80),
                    C("bet", player="Four", number=4, amount=30), state=state)
    refused(state, C("bet", player="One", number=2, amount=50), "One has taken 1 already")
    state, events = play(*rolls("4d", "4n", "2d", "3d", "2n"), state=state)
    assert STREET.in_round(state) and not any(e.kind == "bet-settled" for e in events)
    refused(state, C("bet", player="Idle", number=2, amount=50), "no more bets")
    state, events = play(*rolls("1n"), state=state)
    assert balances(state) == {"Shooter": 960, "One": 1070, "Four": 970, "Idle": 1000, BANK: 0}
    assert statements(e for ev in events for e in ev.entries)["One"].net == 70
    # the shooter lost: the die passes to the winner
    assert state.shooter == "One" and state.phase == "point" and state.rounds == 1
    assert [e.kind for e in events][-2:] == ["round-ended", "die-passed"]


def test_the_shooter_who_wins_keeps_the_die_and_may_not_withdraw():
    state = table("street-rugen", "A", "B")
    state, _ = play(*rolls("4d"), C("bet", player="A", number=4, amount=3), state=state)
    refused(state, C("pass-die"), "cannot withdraw")
    state, _ = play(C("bet", player="B", number=1, amount=8), *rolls("4d", "4n", "4n", "4d"),
                    state=state)
    assert balances(state) == {"A": 1008, "B": 992, BANK: 0} and state.shooter == "A"
    state, _ = play(C("pass-die"), state=state)
    assert state.shooter == "B"


def test_the_shooter_must_cover_any_point():
    state = table("street-rugen", "A", coins=7)
    refused(state, C("roll", face="2d"), "needs at least 8 coins")
    state = table("street-rugen", "A", max_bet=7)
    refused(state, C("roll", face="2d"), r"limits \(1 to 7\) admit no bet on 1")


def test_side_bet_groups_play_the_same_chain_with_their_own_stakes():
    state = table("street-rugen", "A", "B", "C")
    state, _ = play(C("side-bet", player="B", group="g", number=2, amount=10),
                    C("side-bet", player="C", group="g", number=4, amount=6),
                    C("side-bet", player="C", group="lone", number=1, amount=8),
                    *rolls("1d"), state=state)
    refused(state, C("side-bet", player="A", group="g", number=3, amount=4), "4 x 2 = 8")
    refused(state, C("side-bet", player="A", group="Bad Name", number=3, amount=4), "group")
    state, _ = play(C("bet", player="A", number=1, amount=8),
                    C("bet", player="B", number=4, amount=3), state=state)
    # the lone group is returned at the chain's start; 2 breaks group g; 4 the core
    state, events = play(*rolls("2d", "2d"), state=state)
    assert [e.data["result"] for e in events if e.kind == "bet-settled"] == ["push", "win",
                                                                              "lose"]
    assert STREET.in_round(state)  # the core game goes on: 2 is not taken there
    state, events = play(*rolls("4d", "4d", "4d", "4n"), state=state)
    assert balances(state) == {"A": 992, "B": 1000 + 6 + 8, "C": 994, BANK: 0}
    assert state.shooter == "B"


def test_players_sit_down_to_join_the_shooter_and_nobody_leaves_with_a_bet_down():
    # docs/rules/rugen.md, Street Rugen 7
    state = table("street-rugen", "A", "B")
    state, _ = play(*rolls("2d"), C("bet", player="A", number=2, amount=5),
                    C("bet", player="B", number=4, amount=3), state=state)
    refused(state, C("leave", player="B"), "still has bets on the table")
    state, _ = play(C("join", player="Late"), C("buy-in", player="Late", amount=50),
                    C("bet", player="Late", number=1, amount=8), state=state)
    state, _ = play(*rolls("1n"), state=state)  # the chain: Late's 1 breaks at once
    assert STREET.in_round(state) is False and balances(state)["Late"] == 50 + 5 + 3
    state, _ = play(*rolls("2n"), C("bet", player="Late", number=2, amount=5),
                    C("bet", player="A", number=3, amount=4), *rolls("4d"), state=state)
    assert STREET.in_round(state)  # the chain has begun: no one sits down or leaves
    refused(state, C("join", player="Later"), "join between rounds")
    refused(state, C("leave", player="B"), "leaves between rounds")


def test_house_rugen_a_chain_is_a_round():
    # docs/rules/rugen.md, House Rugen 3: while the chain has markers, nobody joins or leaves
    state = table("house-rugen", "A", "B")
    state, _ = play(*rolls("4d"), state=state)
    refused(state, C("join", player="C"), "join between rounds")
    refused(state, C("leave", player="B"), "leaves between rounds")
    refused(state, C("configure", settings={"die": "d20"}), "between rounds")
    state, _ = play(*rolls("1n"), state=state)  # 1 breaks: the chain is over
    state, _ = play(C("join", player="C"), C("leave", player="B"),
                    C("configure", settings={"die": "d20"}), state=state)
    assert state.seats == ("A", "C") and state.settings["die"] == "d20"


# -- Capital Rugen ------------------------------------------------------------------------------


def test_capital_each_number_once_one_number_each():
    # docs/rules/rugen.md, Capital Rugen 1
    state = table("capital-rugen", "A", "B")
    state, _ = play(C("bet", player="A", number=2, amount=10), state=state)
    refused(state, C("bet", player="B", number=2, amount=10), "2 is taken by A")
    refused(state, C("bet", player="A", number=3, amount=8), "A has taken 2 already")
    state, _ = play(*rolls("3d"), state=state)
    refused(state, C("bet", player="B", number=3, amount=8), "no more bets")


def test_capital_the_house_covers_every_unclaimed_number():
    state = table("capital-rugen", "A", "B")
    refused(state, C("roll", face="1d"), "once a player has taken a number")
    refused(state, C("bet", player="A", number=3, amount=6), "multiple of the player price, 4")
    state, _ = play(C("bet", player="A", number=3, amount=8), state=state)
    refused(state, C("bet", player="B", number=4, amount=3), "3 x 2 = 6")
    state, events = play(C("bet", player="B", number=4, amount=6), *rolls("3d"), state=state)
    assert events[1].kind == "house-covers" and events[1].data["stakes"] == {"1": 14, "2": 8}
    state, events = play(*rolls("3d", "4d", "3n"), state=state)
    # A takes the pot: B's 6 and the house's 22, besides her own 8
    assert balances(state) == {"A": 1028, "B": 994, BANK: -22}
    state, events = play(C("bet", player="A", number=2, amount=5), *rolls("1n"), state=state)
    assert balances(state) == {"A": 1023, "B": 994, BANK: -17}
    assert events[-1].data["details"]["winner"] == "house"


def test_capital_schedules_and_custom_prices():
    state = table("capital-rugen", "A", schedule="high")
    refused(state, C("bet", player="A", number=1, amount=8), "multiple of the player price, 80")
    with pytest.raises(IllegalCommand, match="four whole prices"):
        table("capital-rugen", "A", schedule="custom", player_prices=[8, 5, 4])
    state = table("capital-rugen", "A", schedule="custom", player_prices=[10, 6, 5, 4],
                  house_prices=[9, 5, 4, 3])
    state, events = play(C("bet", player="A", number=1, amount=10), *rolls("2d"), state=state)
    assert events[1].data["stakes"] == {"2": 5, "3": 4, "4": 3}


# -- the camera ---------------------------------------------------------------------------------


def test_reading_the_die():
    state = table("house-rugen", "A")
    seen = Observation((Seen("3d", 0.99),))
    assert HOUSE.read(state, seen).commands[0].args == {"face": "3d"}
    assert HOUSE.read(state, Observation((Seen("3d", 0.5),))).uncertain == (0,)
    assert HOUSE.read(state, Observation((Seen("3d", 0.99),) * 2)).problems
    d20 = table("house-rugen", "A", die="d20")
    assert HOUSE.read(d20, Observation((Seen("14", 0.99),))).commands[0].args == {"d20": 14}
    assert "Rugen die" in HOUSE.read(state, Observation((Seen("7", 0.99),))).problems[0]
    street = table("street-rugen", "A")
    street, _ = play(*rolls("2n"), state=street)
    assert "bets on his point" in STREET.read(street, seen).problems[0]
    # the demo table throws the die; the camera reads its Rugen face, on a d20 table too
    assert STREET.demo_throw(street, random.Random(1))[0][0] in FACES
    assert HOUSE.read(d20, seen).commands[0].args == {"face": "3d"}


def test_the_status_lights():
    state = table("house-rugen", "A")
    assert HOUSE.light(state, ()) == "bets_open"
    state, events = play(C("bet", player="A", bet="chain:1", amount=1), *rolls("4d"),
                         state=state)
    assert HOUSE.light(state, tuple(events)) == "rolling"  # the chain has a marker
    state, events = play(*rolls("1d"), state=state)
    assert HOUSE.light(state, tuple(events)) == "win"
    state, events = play(C("bet", player="A", bet="chain:2", amount=1), *rolls("1d"),
                         state=state)
    assert HOUSE.light(state, tuple(events)) == "loss"
    capital = table("capital-rugen", "A")
    capital, events = play(C("bet", player="A", number=4, amount=3), *rolls("1n"), state=capital)
    assert CAPITAL.light(capital, tuple(events)) == "loss"  # the house's 1 broke the chain
    street = table("street-rugen", "A", "B")
    street, events = play(*rolls("4d"), C("bet", player="A", number=4, amount=3),
                          C("bet", player="B", number=1, amount=8), *rolls("4n"), state=street)
    assert STREET.light(street, tuple(events)) == "rolling"
    street, events = play(*rolls("1d"), state=street)
    assert STREET.light(street, tuple(events)) == "win"


# -- money under random play --------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       mode=st.sampled_from(["house-rugen", "street-rugen", "capital-rugen"]),
       die=st.sampled_from(["rugen", "d20"]))
def test_random_play_conserves_every_coin(seed, mode, die):
    rng = random.Random(seed)
    engine = find_game(mode)
    state = table(mode, "P1", "P2", "P3", coins=80, die=die)
    bought, rounds = 240, 0
    for _ in range(400):
        cmd = engine.random_command(state, rng)
        try:
            new, events = apply(state, cmd)
        except IllegalCommand as exc:
            assert str(exc)
            continue
        for e in events:
            bought += {"bought-in": 1, "cashed-out": -1}.get(e.kind, 0) * e.data.get("amount", 0)
        assert new.ledger.total() == 0
        assert all(v >= 0 for v in new.ledger.players().values())
        held = sum(new.ledger.players().values()) + sum(new.ledger.accounts("bet").values())
        assert held + new.ledger.balance(BANK) == bought
        if mode == "street-rugen":
            assert new.ledger.balance(BANK) == 0  # players bet against each other
        if any(e.kind == "round-ended" for e in events):
            assert not new.ledger.accounts("bet") or mode == "house-rugen"
            rounds += 1
        state = new
    assert rounds >= 3


# -- exact odds ---------------------------------------------------------------------------------


def brute_force_breaks(taken) -> dict[int, Fraction]:
    """Every sequence of numbers up to the break, untaken numbers never rolled (their rolls
    are ignored), each weighted by its chance: who breaks first."""
    taken = sorted(taken)
    weight = sum(taken)
    out = dict.fromkeys(taken, Fraction(0))
    for length in range(1, sum(n - 1 for n in taken) + 2):
        for seq in itertools.product(taken, repeat=length):
            seen = {n: seq.count(n) for n in taken}
            last = seq[-1]
            if seen[last] == last and all(seen[n] < n for n in taken if n != last):
                out[last] += Fraction(1) * Fraction(
                    eval("*".join(str(n) for n in seq)), weight ** length)  # noqa: S307
    return out


def test_the_chain_walk_agrees_with_every_sequence():
    for size in range(1, 5):
        for taken in itertools.combinations(NUMBERS, size):
            assert odds.break_chances(frozenset(taken)) == brute_force_breaks(taken)
    assert sum(odds.chain_lengths().values()) == 1


def test_center_bets_are_fair_if_both_paid_the_day_figure():
    defaults = HOUSE.new_state().settings
    for n in NUMBERS:
        assert odds.house_bet(defaults, "center", n)[2] < 0
        day = defaults[f"center_{n}_day_pays"]
        fair = HOUSE.new_state({f"center_{n}_night_pays": day}).settings
        assert odds.house_bet(fair, "center", n)[2] == 0


def test_one_roll_day_night_bets_are_fair_with_every_pay_raised_by_one():
    defaults = HOUSE.new_state().settings
    for kind in ("day", "night"):
        for n in NUMBERS:
            assert odds.house_bet(defaults, kind, n)[2] < 0
            pays = Pays.parse(defaults[f"{kind}_{n}_pays"])
            fair = HOUSE.new_state({f"{kind}_{n}_pays": f"{pays.win + 1}:{pays.per}"}).settings
            assert odds.house_bet(fair, kind, n)[2] == 0


def test_street_rugen_3_is_the_worst_number_and_4_the_best():
    full = odds.street_bets(NUMBERS)
    ranked = sorted(NUMBERS, key=lambda n: full[n]["expected"])
    assert ranked[0] == 3 and ranked[-1] == 4
    # "all numbers have a very close value": within 6% of the stake
    assert all(abs(v["expected"]) < Fraction(6, 100) for v in full.values())
    # the players bet against each other: what one wins another loses
    for size in range(2, 5):
        for taken in itertools.combinations(NUMBERS, size):
            bets = odds.street_bets(taken)
            assert sum(BASE[n] * v["expected"] for n, v in bets.items()) == 0


def test_capital_favours_the_house_alone_and_less_at_the_high_schedule():
    player, house = prices(CAPITAL.new_state().settings)
    for n in NUMBERS:
        # "you would be better off finding friends": alone is worse than a full table
        alone = odds.capital_bets(player, house, [n])[n]["expected"]
        full = odds.capital_bets(player, house, NUMBERS)[n]["expected"]
        assert alone < full
    assert odds.capital_bets(player, house, [1])[1]["expected"] == (
        odds.break_chances()[1] * (8 + 4 + 3 + 2) / 8 - 1)
    report = odds_of(CAPITAL.name)
    assert [b["id"] for b in report["bets"]] == [f"capital:{n}" for n in NUMBERS]
    assert all(b["house_edge"] > 0 for b in report["bets"])
    high = odds_of(CAPITAL.name, {"schedule": "high"})
    for lo, hi in zip(report["bets"], high["bets"], strict=True):
        assert 0 < hi["house_edge"] < lo["house_edge"]
    assert {s["name"] for s in report["schedules"]} == {"low", "high"}


def test_every_house_bet_has_a_house_edge_and_the_report_lists_them():
    report = odds_of(HOUSE.name)
    assert [b["id"] for b in report["bets"]] == [
        f"{k}:{n}" for k in ("center", "day", "night", "chain", "chain-day", "chain-night")
        for n in NUMBERS]
    assert all(b["house_edge"] > 0 for b in report["bets"])
    chain = {b["id"]: Fraction(b["probability_exact"]) for b in report["bets"]}
    for n in NUMBERS:
        assert chain[f"chain-day:{n}"] * 2 ** n == chain[f"chain:{n}"]


def test_a_chain_bet_mid_chain_is_strictly_worse_than_waiting():
    start = odds.break_chances()
    for markers in itertools.product(range(1), range(2), range(3), range(4)):
        if not any(markers):
            continue
        now = odds.break_chances(frozenset(NUMBERS), markers)
        for n in NUMBERS:
            if not markers[n - 1]:
                assert now[n] < start[n], (markers, n)


def test_the_seeds_d20_table_gives_each_face_its_sides():
    assert {label: list(D20.values()).count(label) for label in FACES} == {
        f.label: f.sides for f in FACES.values()}


@pytest.mark.parametrize("name, final", [
    ("street-rugen-seed-example", {"players": {"Four": 70, "One": 170, "Shooter": 60},
                                   "bank": 0, "cashier": -300, "on_table": {}}),
    ("house-rugen-session", {"players": {"Dee": 96, "Eli": 51}, "bank": -27, "cashier": -120,
                             "on_table": {}}),
    ("capital-rugen-session", {"players": {"Fay": 78, "Gus": 39}, "bank": -17,
                               "cashier": -100, "on_table": {}}),
])
def test_hand_histories_replay_to_their_balances(name, final):
    state = history.replay(HISTORIES / f"{name}.jsonl")
    assert history.balances(state) == final


@pytest.mark.slow
@pytest.mark.parametrize("mode, rounds", [("house-rugen", 300), ("street-rugen", 1500),
                                          ("capital-rugen", 1500)])
def test_seeded_play_agrees_with_the_exact_odds_within_3_standard_errors(mode, rounds):
    from controller.simulate import simulate

    report = simulate(mode, rounds, seed=2)
    chances = {b["id"]: b["probability"] for b in odds_of(mode)["bets"]}
    assert {b["id"] for b in report["bets"]} == set(chances)  # every bet was played
    checked = [b for b in report["bets"] if chances[b["id"]] * b["n"] >= 20]
    assert len(checked) >= 4
    for bet in checked:  # bets won often enough for the normal approximation
        assert abs(bet["z"]) <= 3, bet
    if mode == "street-rugen":
        assert report["bank"] == 0  # the players bet against each other


def test_the_slips_say_the_pays_and_the_multiplier():
    from controller.printqueue import slips_for
    from hardware.receipts import render

    _, events = play(C("bet", player="A", bet="center:3", amount=3),
                     state=table("house-rugen", "A"))
    (kind, data), = slips_for(events, 1, ["bet"])
    assert data["pays"] == "7:3 Day, 6:3 Night"
    street = table("street-rugen", "A", "B")
    _, events = play(*rolls("3d"), C("bet", player="A", number=3, amount=8), state=street)
    (kind, data), = slips_for(events, 2, ["bet"])
    slip = render(kind, {**data, "table": "T", "time": "now"}, mode="street-rugen")
    assert b"Multiplier" in slip and b"the whole pot" in slip
