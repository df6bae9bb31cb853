"""Rochi: the deal, seeding and locking, plays and prices, cuts, folds, penalties and shields,
entering and leaving, the Last Hand; the seed's examples coin for coin."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.errors import IllegalCommand
from controller.games.base import Command
from controller.games.rochi import SUITS, Rochi, joining_fee, marker_value, penalty, pot_of
from controller.history import replay
from controller.ledger import CASHIER

ENGINE = Rochi()


def C(kind: str, **args) -> Command:
    return Command(kind, args)


def run(state, *cmds: Command):
    """Apply `cmds` in order: the final state and every event."""
    events = []
    for cmd in cmds:
        state, evs = ENGINE.apply(state, cmd)
        events += evs
    return state, events


def table(*players: str, coins: int = 100, **config):
    state = ENGINE.new_state(config)
    for p in players:
        state, _ = run(state, C("join", player=p), C("buy-in", player=p, amount=coins))
    return state


def refused(state, cmd: Command, words: str) -> None:
    with pytest.raises(IllegalCommand, match=words):
        ENGINE.apply(state, cmd)
    assert not ENGINE.can(state, cmd)


def coins(state) -> dict:
    return {**state.ledger.players(),
            **{s: state.ledger.balance(pot_of(s)) for s in SUITS if state.ledger.balance(pot_of(s))}}


def deal(card: str, **kw) -> Command:
    return C("deal", card=card, **kw)


def end(player: str) -> Command:
    return C("end-turn", player=player)


#: Six seed cards for a three-player hand that cut nothing (one Kin among them).
SEEDS = ["KIN-6-DAY-01", "COMMONS-7-DAY-01", "COMMONS-7-DAY-02", "VALOR-5-DAY-01",
         "WORLD-4-DAY-01", "REALM-3-DAY-01"]


def seeded(*players: str, seeds=SEEDS, **kw):
    state = table(*players, **kw)
    return run(state, C("start-hand"), *(deal(c) for c in seeds))[0]


# -- the seed's examples of playing -----------------------------------------------------------------


def test_chance_benedict_and_aubrey_buy_the_6s():
    state = seeded("Chance", "Benedict", "Aubrey")
    assert state.hand.turn == "Chance"
    # Chance plays a 6 while the token is unclaimed: two 6s in the stack, 2 into the pot.
    state, ev = run(state, C("play", player="Chance", card="KIN-6-DAY-02"))
    assert ev[0].data["price"] == 2 and ev[0].data["paid_to"] == "pot"
    assert coins(state) == {"Chance": 98, "Benedict": 100, "Aubrey": 100, "kin": 2}
    assert state.hand.felt.owner("kin") == "Chance"
    # Benedict plays a 6: the third in the stack, 3 coins to Chance, the token to him.
    state, ev = run(state, end("Chance"), C("play", player="Benedict", card="KIN-6-DAY-03"))
    assert ev[-1].data["price"] == 3 and ev[-1].data["paid_to"] == "Chance"
    assert coins(state) == {"Chance": 101, "Benedict": 97, "Aubrey": 100, "kin": 2}
    assert state.hand.felt.owner("kin") == "Benedict"
    # Later on there are five 6s in the stack.
    state, _ = run(state, end("Benedict"), deal("KIN-6-DAY-04", player="Aubrey"), end("Aubrey"),
                   deal("KIN-6-DAY-05", player="Chance"), end("Chance"),
                   deal("COMMONS-7-DAY-03", player="Benedict"), end("Benedict"))
    assert len(state.hand.felt.stack("kin")) == 5
    # Aubrey's 6 would cut: it goes to Benedict as a shield; she pays him 5.
    state, ev = run(state, C("play", player="Aubrey", card="KIN-6-NIGHT-01"))
    assert ev[0].data | {} == ev[0].data and ev[0].data["to"] == "shield"
    assert ev[0].data["shield_of"] == "Benedict" and ev[0].data["price"] == 5
    assert coins(state) == {"Chance": 101, "Benedict": 102, "Aubrey": 95, "kin": 2}
    assert state.hand.felt.shields_of("Benedict") == ["KIN-6-NIGHT-01"]
    assert len(state.hand.felt.stack("kin")) == 5
    # Her turn comes back and she plays another 6: she keeps it and pays no one.
    state, _ = run(state, end("Aubrey"), deal("COMMONS-7-DAY-04", player="Chance"),
                   end("Chance"), deal("WORLD-4-DAY-02", player="Benedict"), end("Benedict"))
    state, ev = run(state, C("play", player="Aubrey", card="KIN-6-NIGHT-02"))
    assert ev[0].data["shield_of"] == "Aubrey" and ev[0].data["paid_to"] is None
    assert ev[0].entries == ()
    assert coins(state) == {"Chance": 101, "Benedict": 102, "Aubrey": 95, "kin": 2}
    # Then she deals the sixth 6 from the deck: the 6s cut and she owns them.
    state, ev = run(state, deal("KIN-6-NIGHT-03", player="Aubrey"))
    ended = next(e for e in ev if e.kind == "round-ended")
    assert ended.data["details"]["winner"] == "Aubrey" and ended.data["details"]["suit"] == "kin"
    # The pot (2), Benedict's penalty halved by his shield (3), Chance's whole (6).
    rows = {r["player"]: r for r in ended.data["details"]["penalties"]}
    assert rows["Benedict"]["paid"] == 3 and rows["Chance"]["paid"] == 6
    assert coins(state) == {"Chance": 95, "Benedict": 99, "Aubrey": 106}
    assert state.hand is None and state.leader == "Benedict" and state.rounds == 1
    assert ENGINE.light(state, tuple(ev)) == "win"
    assert state.last_result["suit"] == "kin" and state.last_result["suit_title"] == "Kin"
    assert state.ledger.total() == 0 and state.ledger.balance(CASHIER) == -300


# -- the deal and the seeds --------------------------------------------------------------------------


def test_seeding_two_per_missing_player_and_a_seed_cut_locks():
    state = table("A", "B", "C", "D")
    state, ev = run(state, C("start-hand"))
    assert ev[0].data["seeds"] == 4 and state.hand.phase == "seeding"
    assert state.hand.deck == 54 - 20
    refused(state, C("play", player="A", card="KIN-6-DAY-01"), "being seeded")
    state, ev = run(state, deal("MAGES-2-DAY-01"), deal("MAGES-2-NIGHT-01"))
    assert any(e.kind == "locked" and e.data == {"suit": "mages", "by": "seed"} for e in ev)
    assert state.hand.felt.is_locked("mages")
    state, ev = run(state, deal("KIN-6-DAY-01"), deal("KIN-6-DAY-02"))
    assert state.hand.phase == "turns" and state.hand.turn == "A"
    # A locked suit cannot be bought.
    refused(state, C("play", player="A", card="MAGES-2-DAY-02"), "Mages is locked")
    view = ENGINE.view(state)
    mages = next(s for s in view["suits"] if s["suit"] == "mages")
    assert mages["locked"] and mages["dead"] and mages["price"] is None


def test_six_players_seed_nothing_and_the_leader_begins():
    state = table(*"ABCDEF")
    state, _ = run(state, C("button", player="C"), C("start-hand"))
    assert state.hand.phase == "turns" and state.hand.turn == "C"
    assert state.hand.players == tuple("CDEFAB") and state.hand.deck == 24


def test_a_dealt_cut_of_an_unowned_suit_locks_and_the_turn_goes_on():
    state = seeded("A", "B", "C", seeds=["WORLD-4-DAY-01", "WORLD-4-DAY-02", "WORLD-4-DAY-03",
                                         "VALOR-5-DAY-01", "KIN-6-DAY-01", "REALM-3-DAY-01"])
    state, ev = run(state, deal("WORLD-4-DAY-04", player="A"))
    assert state.hand.felt.is_locked("world") and state.hand.turn == "A"
    state, _ = run(state, C("play", player="A", card="VALOR-5-DAY-02"))
    assert state.hand.turn == "B"


def test_a_dealt_cut_of_an_owned_suit_ends_the_hand_at_once():
    state = seeded("A", "B", "C")
    state, _ = run(state, C("play", player="A", card="REALM-3-DAY-02"), end("A"))
    assert coins(state)["realm"] == 2
    # B deals the third Realm: A owns it, so A wins in the middle of B's turn.
    state, ev = run(state, deal("REALM-3-DAY-03", player="B"))
    ended = ev[-2]
    assert ended.kind == "round-ended" and ended.data["details"]["winner"] == "A"
    # B has taken a turn and pays the rank; C has not and pays nothing.
    assert [(r["player"], r["paid"]) for r in ended.data["details"]["penalties"]] == [("B", 3)]
    assert coins(state) == {"A": 103, "B": 97, "C": 100}


def test_cards_from_hands_never_cut_and_go_to_the_buyer_when_unclaimed():
    state = seeded("A", "B", "C", seeds=["REALM-3-DAY-01", "REALM-3-DAY-02", *SEEDS[1:5]])
    state, ev = run(state, C("play", player="A", card="REALM-3-NIGHT-01"))
    assert ev[0].data["to"] == "shield" and ev[0].data["shield_of"] == "A"
    assert ev[0].data["price"] == 2 and coins(state)["realm"] == 2
    assert len(state.hand.felt.stack("realm")) == 2


# -- refusals --------------------------------------------------------------------------------------


def test_every_illegal_action_is_refused_with_a_reason():
    state = seeded("A", "B", "C")
    refused(state, C("play", player="B", card="KIN-6-DAY-02"), "it is A's turn")
    refused(state, C("play", player="A", card="KIN-6-DAY-01"), "already seen")
    refused(state, C("play", player="A", card="KIN-9-DAY-01"), "not a card of the Roche deck")
    refused(state, C("deal", card="KIN-6-DAY-02", player="B"), "it is A's turn")
    refused(state, C("start-hand"), "under way")
    refused(state, C("join", player="D"), "between rounds")
    state, _ = run(state, C("play", player="A", card="KIN-6-DAY-02"))
    refused(state, C("play", player="A", card="KIN-6-DAY-03"), "played a card this turn")
    refused(state, C("fold", player="A"), "does not fold")
    refused(state, deal("VALOR-5-DAY-02", player="B"), "it is A's turn")
    state, _ = run(state, deal("VALOR-5-DAY-02"))
    assert state.hand.turn == "B"  # a play and a deal: the turn is over


def test_a_second_card_from_the_deck_passes_the_turn():
    state = seeded("A", "B", "C")
    state, _ = run(state, deal("VALOR-5-DAY-02", player="A"))
    refused(state, deal("VALOR-5-DAY-03", player="A"), "dealt this turn already")
    state, ev = run(state, deal("VALOR-5-DAY-03"))
    assert [e.kind for e in ev][:2] == ["turn-over", "turn"]
    assert ev[-1].data["by"] == "B" and state.hand.dealt and "B" in state.hand.had_turn


def test_a_player_cannot_play_more_cards_than_he_holds():
    state = seeded("A", "B", "C")
    deals = iter(["VALOR-5-DAY-02", "VALOR-5-DAY-03", "VALOR-5-DAY-04", "WORLD-4-DAY-02",
                  "WORLD-4-DAY-03", "REALM-3-NIGHT-01", "KIN-6-DAY-02", "KIN-6-DAY-03"])
    for i in range(1, 5):
        state, _ = run(state, C("play", player="A", card=f"COMMONS-7-NIGHT-0{i}"), end("A"),
                       deal(next(deals), player="B"), end("B"),
                       deal(next(deals), player="C"), end("C"))
    state, ev = run(state, C("play", player="A", card="COMMONS-7-NIGHT-05"), end("A"),
                    C("fold", player="B"), deal("KIN-6-DAY-04", player="C"), end("C"))
    assert ev[0].data["to"] == "shield" and state.hand.holding("A") == 0
    refused(state, C("play", player="A", card="COMMONS-7-NIGHT-06"), "every card of his hand")
    assert ENGINE.view(state)["hand"]["held"] == {"A": 0, "B": 0, "C": 5}


def test_a_purchase_beyond_the_balance_is_refused():
    state = seeded("A", "B", "C", coins=1)
    refused(state, C("play", player="A", card="KIN-6-DAY-02"), r"A holds 1 coin\(s\); buying Kin costs 2")
    state, _ = run(state, C("play", player="A", card="MAGES-2-DAY-01"))
    assert coins(state)["mages"] == 1 and state.ledger.balance("player:A") == 0


# -- folds and the last player standing -------------------------------------------------------------


def test_a_fold_returns_tokens_and_discards_shields():
    state = seeded("A", "B", "C", seeds=["REALM-3-DAY-01", "REALM-3-DAY-02", *SEEDS[1:5]])
    state, _ = run(state, C("play", player="A", card="REALM-3-NIGHT-01"),
                   C("play", player="B", card="KIN-6-DAY-02") if False else end("A"))
    assert state.hand.felt.shields_of("A") == ["REALM-3-NIGHT-01"]
    state, _ = run(state, C("play", player="B", card="KIN-6-DAY-02"), end("B"), end("C"))
    assert "C" in state.hand.folded  # ending a turn having done nothing is a fold
    state, ev = run(state, C("fold", player="A"))
    assert ev[0].data == {"player": "A", "tokens": ["realm"], "shields": ["REALM-3-NIGHT-01"]}
    # B is the last player standing and owns exactly one suit: Kin wins at once.
    ended = next(e for e in ev if e.kind == "round-ended")
    assert ended.data["details"]["winner"] == "B" and ended.data["details"]["suit"] == "kin"
    assert ended.data["result"] == "last-player-standing" and ended.data["details"]["penalties"] == []
    assert coins(state) == {"A": 98, "B": 100, "C": 100, "realm": 2}


def test_the_last_player_standing_with_no_suit_ends_the_hand_with_no_winner():
    state = seeded("A", "B", "C")
    state, ev = run(state, C("fold", player="A"), C("fold", player="B"))
    ended = ev[-2]
    assert ended.data["result"] == "hand-no-winner" and state.hand is None
    assert ENGINE.light(state, tuple(ev)) == "loss"


def test_the_last_player_standing_with_several_suits_is_dealt_out():
    state = seeded("A", "B", "C")
    state, _ = run(state, C("play", player="A", card="REALM-3-DAY-02"), end("A"),
                   C("fold", player="B"), C("play", player="C", card="WORLD-4-DAY-02"), end("C"),
                   C("play", player="A", card="VALOR-5-DAY-02"), end("A"))
    state, ev = run(state, C("fold", player="C"))
    assert state.hand.phase == "deal-out" and ev[-1].data["suits"] == ["realm", "valor"]
    refused(state, C("play", player="A", card="KIN-6-DAY-02"), "last player standing")
    state, ev = run(state, deal("COMMONS-7-DAY-03"), deal("REALM-3-DAY-03"))
    ended = next(e for e in ev if e.kind == "round-ended")
    # Realm cut: A takes its pot (2); B and C folded and pay nothing.
    assert ended.data["details"]["winner"] == "A" and ended.data["details"]["suit"] == "realm"
    assert coins(state) == {"A": 98 + 2 - 2, "B": 100, "C": 98, "valor": 2, "world": 2}


def test_the_deck_running_out_ends_the_hand_with_no_winner():
    state = table(*"ABCDEF")
    state, _ = run(state, C("start-hand"))
    assert state.hand.deck == 24
    rng = random.Random(3)
    events = []
    while state.hand is not None:
        p = state.hand.turn
        # Every player deals a card of a suit that cannot cut with the tokens all unclaimed.
        card = rng.choice(ENGINE.unseen(state))
        state, ev = run(state, deal(card, player=p))
        events += ev
        if state.hand is not None:
            state, ev = run(state, end(p))
    ended = next(e for e in events if e.kind == "round-ended")
    assert ended.data["result"] == "hand-no-winner" and "deck ran out" in ended.data["details"]["why"]
    assert sum(1 for e in events if e.kind == "dealt") == 24


# -- penalties and shields ---------------------------------------------------------------------------


@pytest.mark.parametrize(("rank", "shields", "due"), [
    (6, 0, 6), (6, 1, 3), (5, 1, 3), (7, 1, 4), (3, 1, 2), (2, 1, 1), (6, 2, 0), (7, 3, 0)])
def test_the_penalty_is_halved_rounding_up_by_one_shield_and_cancelled_by_two(rank, shields, due):
    assert penalty(rank, shields) == due


def test_a_penalty_larger_than_the_balance_takes_what_is_there():
    state = seeded("A", "B", "C", coins=3)
    state, _ = run(state, C("play", player="A", card="REALM-3-DAY-02"), end("A"),
                   C("play", player="B", card="COMMONS-7-DAY-03"), end("B"))
    assert coins(state) == {"A": 1, "B": 0, "C": 3, "realm": 2, "commons": 3}
    state, ev = run(state, deal("REALM-3-DAY-03", player="C"))
    ended = next(e for e in ev if e.kind == "round-ended")
    rows = {r["player"]: r for r in ended.data["details"]["penalties"]}
    assert rows["B"] == {"player": "B", "shields": 0, "due": 3, "paid": 0, "shortfall": 3}
    assert rows["C"]["paid"] == 3
    assert coins(state) == {"A": 6, "B": 0, "C": 0, "commons": 3}


# -- entering, leaving and the Last Hand ---------------------------------------------------------------


def pots_after_a_hand():
    """A table of A, B, C whose Realm pot holds 2 and Commons pot 3 after C won World's."""
    state = seeded("A", "B", "C")
    state, _ = run(state, C("play", player="A", card="REALM-3-DAY-02"), end("A"),
                   C("play", player="B", card="COMMONS-7-DAY-03"), end("B"),
                   C("play", player="C", card="WORLD-4-DAY-02"), end("C"),
                   C("fold", player="A"), C("fold", player="B"))
    assert state.hand is None and state.last_result["winner"] == "C"
    assert coins(state) == {"A": 98, "B": 97, "C": 100, "realm": 2, "commons": 3}
    return state


@pytest.mark.parametrize(("total", "players", "fee", "marker"),
                         [(5, 3, 2, 1), (6, 3, 2, 2), (0, 4, 0, 0), (7, 4, 2, 1), (9, 0, 0, 0)])
def test_joining_fee_and_marker(total, players, fee, marker):
    assert joining_fee(total, players) == fee and marker_value(total, players) == marker


def test_a_newcomer_pays_the_joining_fee_into_pots_of_her_choice():
    state = pots_after_a_hand().replace(settings={**ENGINE.new_state().settings,
                                                  "joining_fee": True})
    state, ev = run(state, C("join", player="Dora"))
    assert ev[0].data["fee"] == 2 and state.owes("Dora") == 2
    refused(state, C("pay-entry", player="Dora", pots={"kin": 2}), "Dora holds 0 coins")
    state, _ = run(state, C("buy-in", player="Dora", amount=10))
    # She is not dealt in until she has paid.
    assert "Dora" not in ENGINE.dealt_in(state)
    refused(state, C("pay-entry", player="Dora", pots={"kin": 1}), "owes 2 coins")
    refused(state, C("pay-entry", player="Dora", pots={"hearts": 2}), "suits being")
    state, ev = run(state, C("pay-entry", player="Dora", pots={"kin": 1, "mages": 1}))
    assert coins(state)["kin"] == 1 and coins(state)["mages"] == 1 and not state.owes("Dora")
    assert "Dora" in ENGINE.dealt_in(state)
    refused(state, C("pay-entry", player="Dora", pots={"kin": 1}), "owes no joining fee")


def test_a_marker_is_credited_against_rejoining():
    state = pots_after_a_hand()
    refused(state, C("leave", player="C", marker=True), "grants no markers")
    config = {**ENGINE.new_state().settings, "joining_fee": True, "markers": True}
    state = state.replace(settings=config)
    state, ev = run(state, C("join", player="D"), C("buy-in", player="D", amount=5),
                    C("pay-entry", player="D", pots={"world": 2}))
    state, ev = run(state, C("leave", player="C", marker=True))
    assert ev[0].data["marker"] == 7 // 4 and state.markers == (("C", 1),)
    state, ev = run(state, C("join", player="C"))
    # The fee is ceil(7 / 3) = 3, less the marker of 1.
    assert ev[0].data["fee"] == 3 and ev[0].data["owes"] == 2 and state.markers == ()


def test_the_leader_button_passes_left_after_every_hand_and_skips_leavers():
    state = pots_after_a_hand()
    assert state.leader == "B"
    state, _ = run(state, C("leave", player="B"))
    assert state.leader == "C"


def test_the_last_hand_divides_every_pot_among_all_its_players():
    state = pots_after_a_hand()   # realm 2, commons 3; leader B
    state, _ = run(state, C("last-hand"), C("start-hand"), *(deal(c) for c in SEEDS))
    assert state.hand.last and state.hand.players == ("B", "C", "A")
    state, _ = run(state, C("play", player="B", card="REALM-3-DAY-02"), end("B"),
                   C("fold", player="C"))
    state, ev = run(state, deal("REALM-3-DAY-03", player="A"))
    # B wins Realm's pot (2 + 2) and A's penalty (3); then Commons' 3 coins are divided
    # among B, C and A (C folded but shares): one each.
    divided = next(e for e in ev if e.kind == "pots-divided")
    assert divided.data["total"] == 3 and divided.data["shares"] == {"B": 1, "C": 1, "A": 1}
    assert not any(coins(state).get(s) for s in SUITS) and not state.last_hand
    assert state.ledger.total() == 0


def test_a_last_hand_with_no_winner_gives_its_odd_coins_from_the_leader_round_to_the_left():
    state = pots_after_a_hand()   # realm 2, commons 3; leader B
    state, _ = run(state, C("last-hand"), C("start-hand"), *(deal(c) for c in SEEDS))
    # B and C fold: A is the last player standing and owns no suit, so no one wins.
    state, ev = run(state, C("fold", player="B"), C("fold", player="C"))
    ended = next(e for e in ev if e.kind == "round-ended")
    assert ended.data["result"] == "hand-no-winner"
    # 5 coins among B, C, A: one each, and the 2 odd coins to B and C (from the leader on).
    divided = next(e for e in ev if e.kind == "pots-divided")
    assert divided.data["shares"] == {"B": 2, "C": 2, "A": 1} and divided.data["odd_to"] == ["B", "C"]
    assert ended.data["details"]["shares"] == divided.data["shares"]
    assert state.last_result["shares"] == divided.data["shares"]
    assert coins(state) == {"A": 99, "B": 99, "C": 102}


def test_the_odd_coins_of_the_last_hand_go_to_its_winner():
    state = pots_after_a_hand()
    state, _ = run(state, C("last-hand"),
                   C("start-hand"), *(deal(c) for c in SEEDS),
                   C("play", player="B", card="KIN-6-DAY-02"), end("B"))
    # kin 2, realm 2, commons 3: B wins Kin by the last-standing rule; 5 coins left, 1 each + 2
    state, ev = run(state, C("fold", player="C"), C("fold", player="A"))
    divided = next(e for e in ev if e.kind == "pots-divided")
    assert divided.data["total"] == 5 and divided.data["shares"] == {"B": 3, "C": 1, "A": 1}


# -- the table view --------------------------------------------------------------------------------


def suit(state, key: str) -> dict:
    return next(s for s in ENGINE.view(state)["suits"] if s["suit"] == key)


def test_the_table_view_shows_each_suits_stack_price_owner_pot_state_and_the_shields():
    state = seeded("A", "B", "C", seeds=["MAGES-2-DAY-01", *SEEDS[1:6]])
    mages = suit(state, "mages")
    assert mages["stack"] == ["MAGES-2-DAY-01"] and mages["count"] == 1 and mages["cut"] == 2
    # One card short of the cut: ripe; a card played now would cut, so it goes to a shield and
    # the price is the stack's count.
    assert mages["ripe"] and not mages["dead"] and not mages["locked"] and mages["price"] == 1
    assert mages["owner"] is None and mages["pot"] == 0
    assert suit(state, "kin")["price"] == 1 and not suit(state, "kin")["ripe"]
    state, _ = run(state, C("play", player="A", card="MAGES-2-DAY-02"), end("A"),
                   C("play", player="B", card="MAGES-2-NIGHT-01"), end("B"))
    mages = suit(state, "mages")
    assert mages["owner"] == "B" and mages["pot"] == 1 and mages["count"] == 1
    assert ENGINE.view(state)["hand"]["shields"] == {"A": ["MAGES-2-DAY-02", "MAGES-2-NIGHT-01"],
                                                     "B": [], "C": []}
    # The last Mages card goes to a shield too: none is left to cut the suit, so it is dead
    # (and no longer ripe), though not locked.
    state, _ = run(state, C("play", player="C", card="MAGES-2-NIGHT-02"))
    mages = suit(state, "mages")
    assert mages["dead"] and not mages["ripe"] and not mages["locked"] and mages["owner"] == "C"
    assert ENGINE.view(state)["hand"]["shields"]["B"] == ["MAGES-2-NIGHT-02"]


# -- random legal play on a simulated deck --------------------------------------------------------------


def random_hand(seed: int, players: int):
    """Seeded random play of whole hands at a table of `players`; every state, every step."""
    rng = random.Random(seed)
    state = table(*[f"P{i}" for i in range(players)], coins=rng.choice([5, 30, 200]),
                  joining_fee=True, markers=True)
    steps = []
    for _ in range(600):
        cmd = ENGINE.random_command(state, rng)
        try:
            new, events = ENGINE.apply(state, cmd)
        except IllegalCommand as exc:
            assert str(exc)
            continue
        steps.append((state, cmd, new, events))
        state = new
    return steps


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(3, 6))
def test_random_legal_play_keeps_the_money_and_the_rules(seed, players):
    steps = random_hand(seed, players)
    hands = 0
    chance = 0
    for before, cmd, after, events in steps:
        ledger = after.ledger
        assert ledger.total() == 0
        assert all(b >= 0 for a, b in ledger.balances.items() if a not in ("bank", CASHIER))
        if cmd.kind == "deal":
            chance += 1
            assert chance <= ENGINE.round_bound
        for e in events:
            if e.kind == "round-ended":
                hands += 1
                chance = 0
                hand = before.hand
                for row in e.data.get("penalties", []):
                    # No penalty from a folded player or one who has not had a turn.
                    assert row["player"] not in e.data["folded"]
                    assert row["player"] in hand.had_turn or row["player"] == cmd.args.get(
                        "player", hand.turn)
                    assert row["player"] != e.data["winner"]
        if after.hand:
            h = after.hand
            assert sum(h.held) + h.deck + len(h.seen) <= 54
            assert len(set(h.seen)) == len(h.seen)
            assert all(0 <= n <= 5 for n in h.held)
    assert hands >= 3, "random play ends hands"
    # Replaying the accepted commands reproduces the state.
    state = steps[0][0]
    for _, cmd, _, _ in steps:
        state, _ = ENGINE.apply(state, cmd)
    assert state == steps[-1][2]


HISTORY = Path(__file__).parents[1] / "histories" / "rochi-buying-the-sixes.jsonl"


def test_the_hand_history_of_the_seeds_example_replays_to_its_balances():
    state = replay(HISTORY)  # what `feltbank replay` runs
    assert state.ledger.players() == {"Chance": 95, "Benedict": 99, "Aubrey": 106}
    assert state.rounds == 1 and not any(coins(state).get(s) for s in SUITS)


def test_the_camera_reading_of_new_cards():
    from controller.games.observation import Observation, Seen

    def seen(*labels, confidence=0.99):
        return Observation(tuple(Seen(lb, confidence) for lb in labels))

    state = table("A", "B", "C")
    assert "no hand" in ENGINE.read(state, seen("KIN-6-DAY-01")).problems[0]
    state, _ = run(state, C("start-hand"))
    reading = ENGINE.read(state, seen(*SEEDS[:2]))
    assert reading.ready and [c.args["card"] for c in reading.commands] == SEEDS[:2]
    assert ENGINE.read(state, seen("KIN-6-DAY-01", confidence=0.5)).uncertain == (0,)
    assert "not a card" in ENGINE.read(state, seen("KIN-9-DAY-01")).problems[0]
    state, _ = run(state, *(deal(c) for c in SEEDS))
    # In a turn, a new card may be a play or a deal: the banker says which.
    reading = ENGINE.read(state, seen(*SEEDS, "KIN-6-DAY-02"))
    assert not reading.ready and "play it or deal it" in reading.problems[0]
    state, _ = run(state, C("play", player="A", card="KIN-6-DAY-02"))
    reading = ENGINE.read(state, seen(*SEEDS, "KIN-6-DAY-02", "VALOR-5-DAY-02"))
    assert reading.ready and reading.commands[0].args == {"card": "VALOR-5-DAY-02"}


@pytest.mark.parametrize("page", ["rochi.md", "captains-rochi.md"])
def test_every_test_the_rules_page_points_at_exists(page):
    """docs/rules: each ruling points at the test that holds it; a renamed or removed test
    leaves no pointer to nothing."""
    import re

    root = Path(__file__).parents[2]
    text = (root / "docs" / "rules" / page).read_text()
    named = set(re.findall(r"\b(test_[a-z0-9_]+)\b", text))
    sources = [f.read_text() for f in (root / "tests").rglob("test_*.py")]
    files = {f.stem for f in (root / "tests").rglob("test_*.py")}
    missing = sorted(t for t in named - files
                     if not any(re.search(rf"^\s*(async )?def {t}\(", src, re.M) for src in sources))
    assert len(named) > 20 and missing == []
