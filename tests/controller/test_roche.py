"""Roche and Grand Roche: the decks, the bets, the deal to the cut, settlement and exact odds."""

from __future__ import annotations

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
from controller.games import roche as roche_mode
from controller.games.base import Pays
from controller.games.observation import Observation, Seen
from controller.games.roche import (
    COMPUTED_PAYS,
    CUT_PAYS,
    RANKS,
    Bet,
    load_deck,
)
from controller.ledger import BANK
from controller.odds import odds as odds_of
from controller.odds import roche as odds

HISTORIES = Path(__file__).parents[1] / "histories"
ROCHE = find_game("roche")
GRAND = find_game("grand-roche")


def table(*players: str, mode: str = "roche", coins: int = 1000, **settings):
    return tables.table(mode, *players, coins=coins, **settings)


def deal(*labels: str):
    return [C("deal", card=label) for label in labels]


# -- the decks ----------------------------------------------------------------------------------


def test_the_printed_deck_has_54_distinct_cards_of_six_suits():
    deck = load_deck("roche")
    assert deck.size == 54 and deck.distinct and len(set(deck.labels)) == 54
    assert len({c.name for c in deck.cards}) == 54  # a name on each card
    assert dict(deck.suit_names) == {2: "Mages", 3: "Realm", 4: "World", 5: "Valor", 6: "Kin",
                                7: "Commons"}
    for rank in RANKS:
        cards = deck.of_rank(rank)
        assert len(cards) == 2 * rank
        assert sum(c.half == "day" for c in cards) == rank
        assert all(c.label.startswith(f"{deck.suit_names[rank].upper()}-{rank}-") for c in cards)


def test_the_four_poker_decks_deck_red_day_black_night():
    deck = load_deck("poker")
    assert deck.size == 54 and not deck.distinct
    for rank in RANKS:
        cards = deck.of_rank(rank)
        assert sum(c.copies for c in cards) == 2 * rank
        for c in cards:
            assert c.half == ("day" if c.label[-1] in "HD" else "night")
            assert c.copies <= 4  # four decks hold four of each card
    assert deck.card("7h").label == "7H"


def test_a_card_not_of_the_deck_is_refused_with_what_the_deck_holds():
    with pytest.raises(IllegalCommand, match="like MAGES-2-DAY-01"):
        load_deck("roche").card("KIN-8-DAY-01")
    with pytest.raises(IllegalCommand, match="like 2H"):
        load_deck("poker").card("8H")


# -- bets and validation ------------------------------------------------------------------------


def test_bet_texts_round_trip():
    for text in ("cut:2", "day:7", "night:4", "single:KIN-6-DAY-03", "oscura:MAGES-2-NIGHT-01",
                 "terminus:COMMONS-7-NIGHT-07", "starlight:5", "cavalry"):
        assert Bet.parse(text).id == text
        assert Bet.parse(Bet.parse(text).spot).id == text
    for bad in ("cut:8", "cut", "day:x", "single:KIN-6-DAY-09", "red:3", 7):
        with pytest.raises(IllegalCommand):
            Bet.parse(bad)


def test_roche_refusals():
    state = table("A", "B", coins=50, max_bet=40)
    refused(state, C("bet", player="A", bet="cut:3", amount=3), "multiple of 2 coins")
    refused(state, C("bet", player="A", bet="cut:5", amount=5), "multiple of 2 coins")
    refused(state, C("bet", player="A", bet="cut:9", amount=5), "2 \\(Mages\\) to 7")
    refused(state, C("bet", player="A", bet="single:KIN-6-DAY-03", amount=5),
            "is a Grand Roche bet")
    refused(state, C("bet", player="A", bet="cavalry", amount=5), "is a Grand Roche bet")
    refused(state, C("bet", player="A", bet="cut:2", amount=41), "takes 1 to 40")
    refused(state, C("bet", player="Z", bet="cut:2", amount=4), "not seated")
    refused(state, C("deal", card="KIN-6-DAY-03"), "no more bets before dealing")
    refused(state, C("burn"), "after no more bets")
    state, _ = play(C("bet", player="A", bet="cut:2", amount=30), state=state)
    refused(state, C("bet", player="A", bet="cut:4", amount=30), "holds 20 coins")
    refused(state, C("bet", player="A", bet="cut:2", amount=20), r"\(30 already on it\)")
    refused(state, C("configure", settings={"max_burns": 2}), "no bets lie on the layout")
    state, _ = play(C("no-more-bets"), state=state)
    refused(state, C("bet", player="B", bet="cut:6", amount=2), "no more bets")
    refused(state, C("no-more-bets"), "already called")
    refused(state, C("leave", player="B"), "between rounds")
    state, _ = play(C("burn"), state=state)
    refused(state, C("burn"), "at most 1 at this house")
    state, _ = play(*deal("KIN-6-DAY-03"), state=state)
    refused(state, C("deal", card="KIN-6-DAY-03"), "cannot be in the deck: it is already dealt")
    refused(state, C("deal", card="kin-6-day-07"),
            "not a card of the Roche deck dealt here .the printed Roche deck.")
    refused(state, C("burn"), "the deal has begun")


def test_grand_roche_card_bets_need_the_printed_deck():
    state = table("A", mode="grand-roche", deck="poker")
    refused(state, C("bet", player="A", bet="single:2H", amount=1), "needs the printed Roche deck")
    refused(state, C("bet", player="A", bet="terminus:KIN-6-DAY-01", amount=1),
            "needs the printed Roche deck")
    state, _ = play(C("bet", player="A", bet="starlight:2", amount=1),
                    C("bet", player="A", bet="cavalry", amount=1),
                    C("bet", player="A", bet="day:3", amount=1), state=state)
    assert GRAND.view(state)["bet_kinds"] == ["cut", "day", "night", "starlight", "cavalry"]


def test_a_poker_deck_deals_each_card_as_often_as_four_decks_hold_it():
    state = table("A", deck="poker")
    state, _ = play(C("no-more-bets"), *deal("3H", "3H"), state=state)
    refused(state, C("deal", card="3H"), "all 2 copies are already dealt")


# -- the deal and settlement --------------------------------------------------------------------


def test_a_deal_to_the_cut_pays_every_bet_coin_for_coin():
    state = table("A", "B", mode="grand-roche")
    bets = [("A", "cut:3", 10), ("A", "day:3", 2), ("B", "night:3", 1), ("B", "cut:2", 10),
            ("A", "single:REALM-3-DAY-01", 1), ("B", "oscura:REALM-3-DAY-01", 1),
            ("A", "terminus:REALM-3-DAY-03", 1), ("B", "terminus:REALM-3-DAY-02", 1),
            ("A", "starlight:7", 1), ("B", "starlight:2", 1), ("A", "cavalry", 1)]
    state, _ = play(*[C("bet", player=p, bet=b, amount=a) for p, b, a in bets],
                    C("no-more-bets"), C("burn"), state=state)
    state, events = play(*deal("REALM-3-DAY-01", "KIN-6-NIGHT-02", "REALM-3-DAY-02",
                               "MAGES-2-DAY-01", "REALM-3-DAY-03"), state=state)
    paid = {(e.data["player"], e.data["bet"]): e.data["paid"] for e in events
            if e.kind == "bet-settled"}
    pays = {k: Pays.parse(v).ratio for k, v in COMPUTED_PAYS.items()}
    assert paid == {
        ("A", "cut.3"): 10 + 35,  # 7:2
        ("A", "day.3"): 2 + 150,  # 75:1, all three Day
        ("B", "night.3"): 0, ("B", "cut.2"): 0,
        ("A", "single.realm-3-day-01"): 1 + pays["single_3_pays"],
        ("B", "oscura.realm-3-day-01"): 0,
        ("A", "terminus.realm-3-day-03"): 1 + pays["terminus_3_pays"],
        ("B", "terminus.realm-3-day-02"): 0,
        ("A", "starlight.7"): 1 + pays["starlight_7_pays"],
        ("B", "starlight.2"): 0,  # a Mage was shown
        ("A", "cavalry"): 0,
    }
    ended = events[-1]
    assert ended.kind == "round-ended" and ended.data["details"]["suit"] == "Realm"
    details = ended.data["details"]
    assert details["all"] == "day" and details["dealt"] == 5 and details["burned"] == 1
    assert not state.ledger.accounts("bet") and state.phase == "betting" and state.rounds == 1
    assert balances(state)[BANK] == -sum(v - dict(((p, b.replace(":", ".").lower()), a)
                                                   for p, b, a in bets)[k]
                                         for k, v in paid.items())
    assert ROCHE.light(state, tuple(events)) == "win"


def test_cavalry_wins_when_every_suit_stood_one_card_from_cutting():
    deck = load_deck("roche")
    ripe = [c.label for r in RANKS for c in deck.of_rank(r)[: r - 1]]
    assert len(ripe) == 21
    state = table("A", mode="grand-roche")
    state, _ = play(C("bet", player="A", bet="cavalry", amount=2), C("no-more-bets"),
                    *deal(*ripe), state=state)
    assert GRAND.in_round(state) and all(s["ripe"] for s in GRAND.view(state)["suits"])
    state, events = play(*deal(deck.of_rank(5)[-1].label), state=state)
    assert events[-1].data["details"]["suit"] == "Valor" and events[-1].data["details"]["cavalry"]
    win = Pays.parse(COMPUTED_PAYS["cavalry_pays"]).winnings(2)
    assert balances(state) == {"A": 1000 + win, BANK: -win}


def test_a_mixed_cut_loses_day_and_night_bets():
    state = table("A")
    state, events = play(C("bet", player="A", bet="day:2", amount=1),
                         C("bet", player="A", bet="night:2", amount=1),
                         C("bet", player="A", bet="cut:2", amount=1), C("no-more-bets"),
                         *deal("MAGES-2-DAY-01", "MAGES-2-NIGHT-02"), state=state)
    assert balances(state) == {"A": 1000, BANK: 0}  # cut:2 won 2, the others lost 1 each
    assert events[-1].data["details"]["all"] is None


def test_the_status_lights():
    state = table("A")
    assert ROCHE.light(state, ()) == "bets_open"
    state, events = play(C("bet", player="A", bet="cut:7", amount=1), C("no-more-bets"),
                         *deal("MAGES-2-DAY-01"), state=state)
    assert ROCHE.light(state, tuple(events)) == "rolling"  # the deal is under way
    state, events = play(*deal("MAGES-2-NIGHT-02"), state=state)
    assert ROCHE.light(state, tuple(events)) == "loss"  # the Mages cut; cut:7 lost
    assert ROCHE.light(state, ()) == "bets_open"


# -- the camera ---------------------------------------------------------------------------------


def seen(*labels, confidence=0.99):
    return Observation(tuple(Seen(label, confidence, kind="card") for label in labels))


def test_reading_the_newly_dealt_card():
    state = table("A")
    reading = ROCHE.read(state, seen("KIN-6-DAY-03"))
    assert reading.ready and [c.kind for c in reading.commands] == ["no-more-bets", "deal"]
    state, _ = play(*reading.commands, state=state)
    reading = ROCHE.read(state, seen("KIN-6-DAY-03", "mages-2-day-01"))
    assert reading.ready and reading.commands[0].args == {"card": "MAGES-2-DAY-01"}
    assert ROCHE.read(state, seen("KIN-6-DAY-03", "KIN-6-DAY-03")).problems  # dealt already
    assert ROCHE.read(state, seen("KIN-6-DAY-03")).problems  # nothing new
    assert ROCHE.read(state, seen("KIN-6-DAY-03", "KIN-6-DAY-04", confidence=0.5)).uncertain
    assert "not a card" in ROCHE.read(state, seen("KIN-9-DAY-03")).problems[0]


# -- money invariants under random play ---------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), mode=st.sampled_from(["roche", "grand-roche"]),
       deck=st.sampled_from(["roche", "poker"]))
def test_random_play_conserves_every_coin(seed, mode, deck):
    rng = random.Random(seed)
    engine = find_game(mode)
    state = table("P1", "P2", mode=mode, coins=60, deck=deck)
    bought, rounds, cards = 120, 0, 0
    for _ in range(400):
        cmd = engine.random_command(state, rng)
        try:
            new, events = apply(state, cmd)
        except IllegalCommand:
            assert engine.verify is not None
            continue
        for e in events:
            bought += {"bought-in": 1, "cashed-out": -1}.get(e.kind, 0) * e.data.get("amount", 0)
        assert new.ledger.total() == 0
        assert all(v >= 0 for v in new.ledger.players().values())
        held = sum(new.ledger.players().values()) + sum(new.ledger.accounts("bet").values())
        assert held + new.ledger.balance(BANK) == bought
        cards += cmd.kind == "deal"
        if any(e.kind == "round-ended" for e in events):
            assert not new.ledger.accounts("bet") and cards <= engine.round_bound
            rounds, cards = rounds + 1, 0
        state = new
    assert rounds >= 3


# -- exact odds ---------------------------------------------------------------------------------


def brute_force(ranks: tuple[int, ...], marked: int) -> dict:
    """Every deal of a small deck, card by card to the cut, one card of suit `marked` told
    apart: the chance of each bet by following whole sequences (no count-vector walk)."""
    out: dict = {}

    def add(key, p):
        out[key] = out.get(key, Fraction(0)) + p

    # a card type: (rank, half, marked); the marked card is a Day card of suit `marked`
    left = {}
    for r in ranks:
        left[(r, "day", False)] = r - (r == marked)
        left[(r, "night", False)] = r
    left[(marked, "day", True)] = 1

    def walk(seq, p):
        size = sum(left.values())
        for kind, n in list(left.items()):
            if not n:
                continue
            q = p * Fraction(n, size)
            left[kind] -= 1
            seq.append(kind)
            r = kind[0]
            if sum(1 for k in seq if k[0] == r) == r:
                cut = [k for k in seq if k[0] == r]
                add(("cut", r), q)
                for half in ("day", "night"):
                    if all(k[1] == half for k in cut):
                        add((half, r), q)
                if r == marked:
                    add(("single", r), q * any(k[2] for k in cut))
                    add(("terminus", r), q * kind[2])
                for s in ranks:
                    if not any(k[0] == s for k in seq):
                        add(("starlight", s), q)
                if len(seq) == sum(x - 1 for x in ranks) + 1:
                    add(("cavalry", None), q)
            else:
                walk(seq, q)
            seq.pop()
            left[kind] += 1

    walk([], Fraction(1))
    return out


@pytest.mark.parametrize("ranks", [(2, 3), (2, 3, 4)])
def test_the_walk_agrees_with_every_sequence_of_a_small_deck(ranks):
    for marked in ranks:
        truth = brute_force(ranks, marked)
        assert odds.bet_chance("single", marked, ranks) == truth[("single", marked)]
        assert odds.bet_chance("terminus", marked, ranks) == truth[("terminus", marked)]
        assert odds.bet_chance("oscura", marked, ranks) == truth[("cut", marked)] - truth[
            ("single", marked)]
    for r in ranks:
        for kind in ("cut", "day", "night", "starlight"):
            assert odds.bet_chance(kind, r, ranks) == truth.get((kind, r), 0), (kind, r)
    assert odds.bet_chance("cavalry", None, ranks) == truth[("cavalry", None)]
    assert sum(odds.deal_chances(ranks)["cut"].values()) == 1


def test_the_seeds_claims():
    # "The odds of this occurring are exactly half of the odds of a cut."
    for r in RANKS:
        assert odds.bet_chance("single", r) * 2 == odds.bet_chance("cut", r)
        assert odds.bet_chance("oscura", r) == odds.bet_chance("single", r)
    # "The house has a mathematical advantage in all bets."
    for mode in ("roche", "grand-roche"):
        report = odds_of(mode)
        assert all(b["house_edge"] > 0 for b in report["bets"])
    # The smaller the suit, the likelier its cut.
    cuts = [odds.bet_chance("cut", r) for r in RANKS]
    assert cuts == sorted(cuts, reverse=True)
    # The chance of the cut coming on card n, n = 2 .. 22, sums to one.
    lengths = odds.deal_chances()["length"]
    assert min(lengths) == 2 and max(lengths) == 22 and sum(lengths.values()) == 1


def test_default_pays_are_the_largest_leaving_the_house_its_edge():
    for r in RANKS:
        cut_edge = odds.edge(odds.bet_chance("cut", r), Pays.parse(CUT_PAYS[r]).ratio)
        for kind in ("single", "oscura", "terminus"):
            x = Pays.parse(COMPUTED_PAYS[f"{kind}_{r}_pays"])
            assert x.per == 1
            p = odds.bet_chance(kind, r)
            assert odds.edge(p, x.ratio) >= cut_edge > odds.edge(p, x.ratio + 1)
        x = Pays.parse(COMPUTED_PAYS[f"starlight_{r}_pays"]).ratio
        p = odds.bet_chance("starlight", r)
        assert odds.edge(p, x) >= Fraction(5, 100) > odds.edge(p, x + 1)
    assert COMPUTED_PAYS["single_2_pays"] == "5:1" and COMPUTED_PAYS["cavalry_pays"] == "293:1"


def test_the_report_every_bet_id_and_the_house_pays():
    report = odds_of(GRAND.name)
    ids = [b["id"] for b in report["bets"]]
    assert ids == [f"{k}:{r}" for k in ("cut", "day", "night", "single", "oscura", "terminus",
                                        "starlight") for r in RANKS] + ["cavalry"]
    assert [b["id"] for b in odds_of(ROCHE.name)["bets"]] == ids[:18]
    cheap = odds_of(ROCHE.name, {"cut_2_pays": "1:1"})["bets"][0]
    assert cheap["pays"] == "1:1" and cheap["house_edge"] > 0.3
    assert Fraction(cheap["probability_exact"]) == odds.bet_chance("cut", 2)


def test_the_modes_declare_their_bounds():
    assert ROCHE.round_bound == 22 and ROCHE.chance_kinds == {"deal"}
    assert roche_mode.GrandRoche.kinds[-1] == "cavalry"


@pytest.mark.parametrize("name, final", [
    ("roche-grand-deal", {"players": {"Ann": 332, "Bob": 88}, "bank": -220, "cashier": -200,
                          "on_table": {}}),
    ("roche-poker-decks", {"players": {"Cy": 71}, "bank": -21, "cashier": -50, "on_table": {}}),
])
def test_hand_histories_replay_to_their_balances(name, final):
    state = history.replay(HISTORIES / f"{name}.jsonl")
    assert history.balances(state) == final


@pytest.mark.slow
@pytest.mark.parametrize("mode, deals", [("roche", 400), ("grand-roche", 300)])
def test_seeded_play_agrees_with_the_exact_odds_within_3_standard_errors(mode, deals):
    from controller.simulate import simulate

    report = simulate(mode, deals, seed=2)
    chances = {b["id"]: b["probability"] for b in odds_of(mode)["bets"]}
    assert {b["id"] for b in report["bets"]} == set(chances)  # every bet was played
    checked = [b for b in report["bets"] if chances[b["id"]] * b["n"] >= 20]
    assert len(checked) >= 8
    for bet in checked:  # bets won often enough for the normal approximation
        assert abs(bet["z"]) <= 3, bet
