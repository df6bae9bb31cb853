"""Captain's Rochi: antes and seeds, the first-turn exception, the continuous cut with its
odd coin, passing, locks until the reshuffle, dead suits, stopping by agreement."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.errors import IllegalCommand
from controller.games.base import Command
from controller.games.captains_rochi import ODD_POT, CaptainsRochi, captains_penalty
from controller.games.rochi import SUITS, pot_of
from controller.ledger import CASHIER

ENGINE = CaptainsRochi()


def C(kind: str, **args) -> Command:
    return Command(kind, args)


def run(state, *cmds: Command):
    events = []
    for cmd in cmds:
        state, evs = ENGINE.apply(state, cmd)
        events += evs
    return state, events


def table(*players: str, coins: int = 100):
    state = ENGINE.new_state()
    for p in players:
        state, _ = run(state, C("join", player=p), C("buy-in", player=p, amount=coins))
    return state


def refused(state, cmd: Command, words: str) -> None:
    with pytest.raises(IllegalCommand, match=words):
        ENGINE.apply(state, cmd)
    assert not ENGINE.can(state, cmd)


def coins(state) -> dict:
    out = dict(state.ledger.players())
    out.update({s: state.ledger.balance(pot_of(s)) for s in SUITS
                if state.ledger.balance(pot_of(s))})
    if state.ledger.balance(ODD_POT):
        out["odd"] = state.ledger.balance(ODD_POT)
    return out


def deal(card: str, **kw) -> Command:
    return C("deal", card=card, **kw)


SEEDS = ["VALOR-5-DAY-01", "VALOR-5-DAY-02", "VALOR-5-DAY-03", "KIN-6-DAY-01",
         "COMMONS-7-DAY-01", "WORLD-4-DAY-01", "REALM-3-DAY-01", "COMMONS-7-DAY-02"]


def started(seeds=SEEDS):
    state = table("Ann", "Bob")
    return run(state, C("start-game"), *(deal(c) for c in seeds))[0]


def test_setup_antes_seven_cards_and_eight_seeds():
    state = table("Ann", "Bob")
    state, ev = run(state, C("start-game"))
    assert coins(state) == {"Ann": 94, "Bob": 94, **dict.fromkeys(SUITS, 2)}
    assert state.game.deck == 40 and state.game.held == (7, 7)
    refused(state, C("play", player="Ann", card="KIN-6-DAY-02"), "being seeded")
    state, _ = run(state, *(deal(c) for c in SEEDS))
    assert state.game.phase == "turns" and state.game.turn == "Ann"
    assert state.game.deck == 32 and state.game.total() == 54


def test_a_suit_locked_in_the_setup_is_discarded():
    state, ev = run(started(["MAGES-2-DAY-01", "MAGES-2-NIGHT-01", *SEEDS[:6]]))
    assert not state.game.felt.stack("mages") and not state.game.felt.is_locked("mages")
    assert state.game.discard == ("MAGES-2-DAY-01", "MAGES-2-NIGHT-01")
    # A discarded card cannot come up again before the reshuffle.
    refused(state, C("play", player="Ann", card="MAGES-2-DAY-01"), "in the discard pile")


def test_no_deal_on_the_first_turn_and_the_first_play_ends_it():
    state = started()
    refused(state, deal("KIN-6-DAY-02", player="Ann"), "may not deal on the game's first turn")
    refused(state, deal("KIN-6-DAY-02"), "may not deal on the game's first turn")
    refused(state, C("end-turn", player="Ann"), "no fold in Captain's Rochi")
    state, ev = run(state, C("play", player="Ann", card="VALOR-5-DAY-04"))
    assert state.game.turn == "Bob" and not state.game.first_turn


@pytest.mark.parametrize(("rank", "shields", "split"),
                         [(5, 1, (2, 1)), (6, 1, (3, 0)), (7, 0, (7, 0)), (3, 2, (0, 0))])
def test_the_captains_penalty(rank, shields, split):
    assert captains_penalty(rank, shields) == split


def test_the_fives_cut_against_a_single_shield():
    """The seed's example: the 5s cut and Player 1 has a single 5 Shield: 2 coins to Player 2,
    one into a pot of Player 1's choice."""
    state = started()
    state, _ = run(state, C("play", player="Ann", card="VALOR-5-DAY-04"))
    assert coins(state)["valor"] == 2 + 4
    state, ev = run(state, C("play", player="Bob", card="VALOR-5-NIGHT-01"))
    assert ev[0].data["shield_of"] == "Ann" and ev[0].data["price"] == 4
    state, ev = run(state, deal("VALOR-5-NIGHT-02", player="Bob"))
    cut = next(e for e in ev if e.kind == "round-ended")
    assert cut.data["details"]["winner"] == "Bob" and cut.data["details"]["loser"] == "Ann"
    assert cut.data["details"]["penalties"] == [{"player": "Ann", "shields": 1, "due": 3, "paid": 2,
                                      "odd": 1, "shortfall": 0}]
    # Bob takes the pot (6) less one coin; Ann antes one into it.
    assert cut.data["details"]["pot"] == 5 and cut.data["details"]["ante"] == 1
    assert coins(state) == {"Ann": 90, "Bob": 97, "valor": 2, "odd": 1,
                            **{s: 2 for s in ("mages", "realm", "world", "kin", "commons")}}
    game = state.game
    assert not game.felt.stack("valor") and not game.felt.shields_of("Ann")
    assert game.felt.owner("valor") is None and len(game.discard) == 6
    assert game.held == (7, 7) and game.total() == 54 and state.rounds == 1
    # The cut ended Bob's turn: he may not play after it.
    refused(state, C("play", player="Bob", card="KIN-6-DAY-02"), "a cut ends the turn")
    assert state.game.turn == "Ann"
    # Ann puts the odd coin into the pot of her choice.
    refused(state, C("odd-coin", player="Bob", pot="kin"), "no odd penalty coin")
    state, _ = run(state, C("odd-coin", player="Ann", pot="kin"))
    assert coins(state)["kin"] == 3 and "odd" not in coins(state)
    assert state.ledger.total() == 0 and state.ledger.balance(CASHIER) == -200


def test_a_pass_discards_the_hand_reshuffles_and_both_draw_to_seven():
    state = started()
    state, _ = run(state, C("play", player="Ann", card="KIN-6-DAY-02"))
    refused(state, C("pass", player="Ann"), "it is Bob's turn")
    state, ev = run(state, C("pass", player="Bob"))
    kinds = [e.kind for e in ev]
    assert kinds[:3] == ["passed", "reshuffled", "drawn"] and state.game.turn == "Ann"
    assert state.game.held == (7, 7) and state.game.total() == 54
    assert state.game.discard_hidden == 0


def test_a_lock_lasts_until_the_reshuffle():
    state = started(["WORLD-4-DAY-01", "WORLD-4-DAY-02", "WORLD-4-DAY-03", "KIN-6-DAY-01",
                     "COMMONS-7-DAY-01", "COMMONS-7-DAY-02", "REALM-3-DAY-01", "VALOR-5-DAY-01"])
    state, _ = run(state, C("play", player="Ann", card="KIN-6-DAY-02"),
                   deal("WORLD-4-DAY-04", player="Bob"))
    assert state.game.felt.is_locked("world")
    refused(state, C("play", player="Bob", card="WORLD-4-NIGHT-01"), "World is locked")
    state, ev = run(state, C("end-turn", player="Bob"), C("pass", player="Ann"))
    assert not state.game.felt.is_locked("world") and not state.game.felt.stack("world")


def test_a_suit_dead_on_the_table_forces_a_reshuffle():
    state = started(["MAGES-2-DAY-01", *SEEDS[:7]])
    state, _ = run(state, C("play", player="Ann", card="MAGES-2-DAY-02"),
                   C("play", player="Bob", card="MAGES-2-NIGHT-01"),
                   deal("KIN-6-DAY-02", player="Bob"))
    state, ev = run(state, C("play", player="Ann", card="MAGES-2-NIGHT-02"))
    shuffled = next(e for e in ev if e.kind == "reshuffled")
    assert "mages dead on the table" in shuffled.data["why"]
    assert not state.game.felt.shields_of("Ann") and state.game.total() == 54


def test_an_empty_deck_forces_a_reshuffle():
    """The third reshuffle condition: the deck runs out. The locked stacks go to the discards
    first, and the discards become the deck."""
    state = started()
    state, _ = run(state, C("play", player="Ann", card="COMMONS-7-DAY-03"))  # Ann owns Commons
    # Each turn deals one card, never the whole of a suit (none dies) nor Commons' cut: the
    # other suits are cut unowned and lock.
    room = {"mages": 3, "realm": 5, "world": 7, "valor": 9, "kin": 11, "commons": 6}
    events = []
    while not any(e.kind == "reshuffled" for e in events):
        on_table = state.game.felt.cards()
        card = next(c for c in ENGINE.unseen(state)
                    if sum(x.split("-")[0] == c.split("-")[0] for x in on_table)
                    < room[c.split("-")[0].lower()])
        p = state.game.turn
        state, ev = run(state, deal(card, player=p))
        events += ev
        if state.game.turn == p:
            state, ev = run(state, C("end-turn", player=p))
    locked = {e.data["suit"] for e in events if e.kind == "locked"}
    assert state.rounds == 0 and locked and "commons" not in locked
    shuffled = next(e for e in events if e.kind == "reshuffled")
    assert shuffled.data["why"] == "the deck is empty"
    game = state.game
    # Every locked stack went back into the deck and its suit is open again; Commons stays.
    assert shuffled.data["cards"] == game.deck == 54 - sum(game.held) - len(game.felt.cards())
    assert not any(game.felt.is_locked(s) for s in SUITS) and game.felt.stack("commons")
    assert game.total() == 54 and game.discard == ()
    state, _ = run(state, deal("MAGES-2-DAY-01", player=game.turn))  # the deck deals again


def test_a_loser_short_of_coins_pays_the_winner_first_then_the_odd_coin_then_the_ante():
    state = table("Ann", "Bob", coins=11)
    state, _ = run(state, C("start-game"), *(deal(c) for c in SEEDS))
    # Ann: 11 - 6 antes - 4 for Valor + 4 from Bob (her shield) - 2 for Kin = 3 coins.
    state, _ = run(state, C("play", player="Ann", card="VALOR-5-DAY-04"),
                   C("play", player="Bob", card="VALOR-5-NIGHT-01"), C("end-turn", player="Bob"),
                   C("play", player="Ann", card="KIN-6-DAY-02"), C("end-turn", player="Ann"))
    assert coins(state)["Ann"] == 3
    state, ev = run(state, deal("VALOR-5-NIGHT-02", player="Bob"))
    cut = next(e for e in ev if e.kind == "round-ended").data["details"]
    # The 5s, one shield: 2 to Bob, the odd coin into a pot, no coin left for the ante.
    assert cut["penalties"] == [{"player": "Ann", "shields": 1, "due": 3, "paid": 2, "odd": 1,
                                 "shortfall": 0}]
    assert cut["ante"] == 0 and cut["ante_shortfall"] == 1
    assert coins(state)["Ann"] == 0 and state.ledger.total() == 0
    # Poorer still: the penalty takes what there is, the rest is written as a shortfall.
    state = table("Ann", "Bob", coins=10)
    state, _ = run(state, C("start-game"), *(deal(c) for c in SEEDS),
                   C("play", player="Ann", card="REALM-3-DAY-02"),
                   C("play", player="Bob", card="VALOR-5-DAY-04"))
    assert coins(state)["Ann"] == 2
    state, ev = run(state, deal("VALOR-5-DAY-05", player="Bob"))
    cut = next(e for e in ev if e.kind == "round-ended").data["details"]
    assert cut["winner"] == "Bob" and cut["penalties"] == [
        {"player": "Ann", "shields": 0, "due": 5, "paid": 2, "odd": 0, "shortfall": 3}]
    assert cut["ante"] == 0 and coins(state)["Ann"] == 0


def test_a_second_card_from_the_deck_passes_the_turn():
    state = started()
    state, _ = run(state, C("play", player="Ann", card="KIN-6-DAY-02"),
                   deal("WORLD-4-DAY-02", player="Bob"))
    refused(state, deal("WORLD-4-DAY-03", player="Bob"), "dealt this turn already")
    state, ev = run(state, deal("WORLD-4-DAY-03"))
    assert [e.kind for e in ev][:2] == ["turn-over", "turn"]
    assert ev[2].data["by"] == "Ann" and state.game.turn == "Ann" and state.game.dealt


def test_stopping_by_agreement_divides_the_pots():
    state = started()
    state, _ = run(state, C("play", player="Ann", card="VALOR-5-DAY-04"),
                   C("play", player="Bob", card="VALOR-5-NIGHT-01"),
                   deal("VALOR-5-NIGHT-02", player="Bob"))
    # 13 coins in pots (the odd coin included): 6 each, the odd one to Bob (the last winner).
    rounds = state.rounds
    state, ev = run(state, C("stop"))
    ended = ev[0].data
    assert ev[0].kind == "round-ended" and ended["result"] == "game-stopped"
    assert ended["details"]["total"] == 13 and ended["details"]["shares"] == {"Ann": 6, "Bob": 7}
    assert ended["details"]["odd_to"] == "Bob"
    assert coins(state) == {"Ann": 96, "Bob": 104}
    assert state.game is None and state.ledger.total() == 0 and state.rounds == rounds + 1
    # The table view keeps how the game ended, in the mode's words.
    view = ENGINE.view(state)
    assert view["last_result"]["result"] == "game-stopped"
    assert view["last_result"]["shares"] == {"Ann": 6, "Bob": 7}
    assert ENGINE.light(state, tuple(ev)) == "win"


def test_the_last_settlement_of_a_cut_names_winner_and_penalty():
    state = started()
    state, _ = run(state, C("play", player="Ann", card="VALOR-5-DAY-04"),
                   C("play", player="Bob", card="VALOR-5-NIGHT-01"),
                   deal("VALOR-5-NIGHT-02", player="Bob"))
    last = ENGINE.view(state)["last_result"]
    assert last["result"] == "cut-owner-wins" and last["winner"] == "Bob"
    assert last["suit"] == "valor" and last["pot"] == 5
    assert last["penalties"] == [{"player": "Ann", "shields": 1, "due": 3, "paid": 2, "odd": 1,
                                  "shortfall": 0}]


def test_a_drop_out_ends_the_game_once_the_odd_coin_has_its_pot():
    state = started()
    state, _ = run(state, C("play", player="Ann", card="VALOR-5-DAY-04"),
                   C("play", player="Bob", card="VALOR-5-NIGHT-01"),
                   deal("VALOR-5-NIGHT-02", player="Bob"))
    # Ann's odd coin still waits: it is placed before anyone leaves the game.
    refused(state, C("drop-out", player="Bob"), "Ann's odd penalty coin waits for a pot")
    state, _ = run(state, C("odd-coin", player="Ann", pot="kin"))
    before = coins(state)
    state, ev = run(state, C("drop-out", player="Bob"))
    assert [e.kind for e in ev] == ["round-ended"]
    assert ev[0].data["result"] == "game-dropped-out" and ev[0].data["details"]["player"] == "Bob"
    # The pots stay on the table for the next game; no coin moves.
    assert coins(state) == before and state.game is None
    assert ENGINE.view(state)["last_result"]["result"] == "game-dropped-out"


def test_only_the_two_in_the_game_act():
    state = table("Ann", "Bob", "Cy")
    refused(state, C("start-game", players=["Ann", "Ann"]), "two different seated players")
    state, _ = run(state, C("start-game", players=["Cy", "Ann"]), *(deal(c) for c in SEEDS))
    refused(state, C("play", player="Bob", card="KIN-6-DAY-02"), "not playing this game")
    refused(state, C("join", player="Dee"), "between rounds")
    refused(state, C("drop-out", player="Bob"), "Bob is not playing this game")
    state, ev = run(state, C("drop-out", player="Ann"))
    assert ev[0].data["result"] == "game-dropped-out" and state.game is None
    assert ev[0].data["details"]["player"] == "Ann"


def test_every_illegal_action_is_refused_with_a_reason():
    """Issue 16's refusals one by one: each names what is wrong and changes nothing."""
    state = started()
    # Out of turn.
    refused(state, C("play", player="Bob", card="KIN-6-DAY-02"), "it is Ann's turn, not Bob's")
    refused(state, C("pass", player="Bob"), "it is Ann's turn, not Bob's")
    # A card the player cannot hold: it lies on the table.
    refused(state, C("play", player="Ann", card="VALOR-5-DAY-01"),
            "VALOR-5-DAY-01 is on the table")
    # A deal on the Captain's first turn.
    refused(state, deal("KIN-6-DAY-02", player="Ann"), "may not deal on the game's first turn")
    state, _ = run(state, C("play", player="Ann", card="VALOR-5-DAY-04"),
                   deal("REALM-3-DAY-02", player="Bob"), C("end-turn", player="Bob"),
                   deal("REALM-3-DAY-03", player="Ann"))
    # A buy of a locked suit: the Realm's third card from the deck cut it, and no one owns it.
    assert state.game.felt.is_locked("realm")
    refused(state, C("play", player="Ann", card="REALM-3-NIGHT-01"), "Realm is locked")
    # A play after one's own cutting deal.
    state, _ = run(state, C("end-turn", player="Ann"),
                   C("play", player="Bob", card="VALOR-5-NIGHT-01"),
                   deal("VALOR-5-NIGHT-02", player="Bob"))
    assert state.rounds == 1 and state.game.turn == "Ann"
    refused(state, C("play", player="Bob", card="KIN-6-DAY-02"), "a cut ends the turn")
    # A player with no card in hand cannot play (after a pass both hold seven again).
    assert state.game.held == (7, 7)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_legal_play_keeps_money_and_cards(seed):
    rng = random.Random(seed)
    state = table("Ann", "Bob", coins=rng.choice([10, 60, 500]))
    start = state
    accepted = []
    cuts = chance = 0
    for _ in range(500):
        cmd = ENGINE.random_command(state, rng)
        before = state.game
        try:
            state, events = ENGINE.apply(state, cmd)
        except IllegalCommand as exc:
            assert str(exc)
            continue
        accepted.append(cmd)
        for e in events:
            if e.kind == "round-ended" and e.data["result"] == "cut-owner-wins":
                cuts += 1
                chance = 0
                d = e.data["details"]
                # Only the loser pays, and he has had a turn (no deal on the first one).
                assert [r["player"] for r in d["penalties"]] == [d["loser"]]
                assert d["loser"] != d["winner"]
                assert not before.first_turn
        if cmd.kind in ENGINE.chance_kinds:
            chance += 1
            # Every cut comes within the bound of cards the table sees.
            assert chance <= ENGINE.round_bound
        assert state.ledger.total() == 0
        assert all(b >= 0 for a, b in state.ledger.balances.items() if a not in ("bank", CASHIER))
        if state.game:
            assert state.game.total() == 54
            assert all(0 <= h <= 7 for h in state.game.held)
            known = state.game.known()
            assert len(set(known)) == len(known)
        if ENGINE.in_round(state):
            # The table's next card can always come up (unless the first player, whose deck
            # is closed, cannot pay for any card: then he passes).
            step = ENGINE.chance_step(state, rng)
            if not ENGINE.can(state, step):
                assert state.game.first_turn and step.kind == "play"
    assert cuts >= 1, "random play cuts suits"
    again = start
    for cmd in accepted:
        again, _ = ENGINE.apply(again, cmd)
    assert again == state


def test_the_hand_history_replays_to_its_balances():
    from controller.history import replay

    state = replay(Path(__file__).parents[1] / "histories" / "captains-rochi-fives-cut.jsonl")
    assert state.ledger.players() == {"Ann": 96, "Bob": 104} and state.game is None


def test_the_first_turns_card_is_read_as_the_first_players_play():
    from controller.games.observation import Observation, Seen

    state = started()
    reading = ENGINE.read(state, Observation(tuple(Seen(c, 0.99) for c in
                                                   [*SEEDS, "KIN-6-DAY-02"])))
    assert reading.ready and reading.commands[0].kind == "play"
    assert reading.commands[0].args == {"player": "Ann", "card": "KIN-6-DAY-02"}
