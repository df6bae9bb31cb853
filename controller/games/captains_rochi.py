"""Captain's Rochi: the continuous two-player game (seeds/rochi-roche-rugen.md, "Captain's
Rochi"), on the stacks, tokens, prices and shields of `controller.games.rochi`.

`start-game`: seven cards to each player (face down), an ante of 1 coin from each into every
pot, eight seed cards (`deal`; a suit that locks in the setup has its cards discarded). Then
turns: `play`, `deal` (not on the game's first turn), both, or `pass` (discard the hand,
reshuffle the discards, both draw back to seven). A dealt card that cuts an owned suit ends
the turn and settles the cut: the token goes back, the loser pays the penalty (one shield
halves it, the odd coin going into a pot of his choice: `odd-coin`), the winner takes the pot
less one coin, the loser antes one into it, the suit's cards are discarded and both draw back
to seven. The deck reshuffles when it is empty, when a player passes, and when a suit lies
entirely exposed on the table. `stop` ends the game by agreement and divides the pots;
`drop-out` ends it with the pots left on the table.

A cut is this mode's round (`rounds` counts them); the end of the game ends one more, with the
result "game-stopped" or "game-dropped-out". Rulings: docs/rules/captains-rochi.md.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from dataclasses import replace as _replace
from typing import Any

from controller.errors import IllegalCommand
from controller.games.base import Arg, Command, Engine, Event, RoundEnded, State, command
from controller.games.observation import Reading
from controller.games.roche_deck import ROCHE
from controller.games.rochi import (
    CUT,
    CUTS_FIRST,
    RANK,
    RESULT_WORDS,
    SUITS,
    Felt,
    card_of,
    new_cards,
    place,
    pot_of,
    pots,
    settlement,
    try_reading,
)
from controller.ledger import Entry, player_account, pot_account
from controller.modes import Mode
from controller.settings import Setting

Handled = tuple[State, list[Event]]

HAND_SIZE = 7
SEEDS = 8
ANTE = 1
#: Odd penalty coins wait here until the loser names the pot they go to.
ODD_POT = pot_account("rochi-odd")
#: How a game ends: the `result` of its last `round-ended` (by agreement, or a drop-out).
STOPPED, DROPPED_OUT = "game-stopped", "game-dropped-out"


def captains_penalty(rank: int, shields: int) -> tuple[int, int]:
    """(coins to the winner, odd coin into a pot): a shield halves the rank, the odd coin
    going into a pot; two or more shields pay nothing."""
    if shields >= 2:
        return 0, 0
    if shields == 1:
        return rank // 2, rank % 2
    return rank, 0


@dataclass(frozen=True)
class Game:
    """A Captain's game under way."""

    #: The two players, the first to move first.
    players: tuple[str, str]
    phase: str  # "seeding" or "turns"
    seeds_left: int
    deck: int
    held: tuple[int, int]
    turn: str
    played: bool = False
    dealt: bool = False
    #: The game's very first turn (no deal on it).
    first_turn: bool = True
    #: The player whose deal just cut (he may not play: the cut ended his turn).
    cut_by: str | None = None
    felt: Felt = field(default_factory=Felt)
    #: Cards seen face up in the discard pile, and how many lie there face down.
    discard: tuple[str, ...] = ()
    discard_hidden: int = 0
    #: Odd penalty coins waiting for their owner to choose a pot: (player, coins).
    odd: tuple[tuple[str, int], ...] = ()
    last_winner: str | None = None

    def other(self, player: str) -> str:
        return self.players[1] if player == self.players[0] else self.players[0]

    def holding(self, player: str) -> int:
        return self.held[self.players.index(player)]

    def known(self) -> list[str]:
        """Cards whose place is known: on the table or face up in the discard pile."""
        return self.felt.cards() + list(self.discard)

    def total(self) -> int:
        """Every card accounted for: the deck, hands, table and discards (always 54)."""
        return (self.deck + sum(self.held) + len(self.felt.cards()) + len(self.discard)
                + self.discard_hidden)


@dataclass(frozen=True, kw_only=True)
class CaptainsState(State):
    #: Who moves first in the next game.
    leader: str | None = None
    game: Game | None = None
    #: How the last cut was settled (for the table view).
    last_result: Mapping[str, Any] | None = None


class CaptainsRochi(Engine):
    name = "captains-rochi"
    title = "Captain's Rochi"
    state_type = CaptainsState
    #: The cards the table sees come up: dealt from the deck, and on the first turn (when
    #: the deck is closed to the first player) the card he plays from his hand.
    chance_kinds = frozenset({"deal", "play"})
    # A cut is the round; the deck reshuffles, so bound the cards seen between two cuts
    # generously (every card of the deck twice over, with passes between).
    round_bound = 4 * len(ROCHE.cards)
    settings = (
        Setting("max_seats", 4, "seats at the table: two play a game, the others wait for the "
                "next", minimum=2, maximum=8),
    )

    def in_round(self, state: CaptainsState) -> bool:
        return state.game is not None

    def seats_changed(self, new: CaptainsState, old: State) -> CaptainsState:
        if new.leader in new.seats:
            return new
        return new.replace(leader=new.seats[0] if new.seats else None)

    # -- setting up --------------------------------------------------------------------------

    @command("button", player=str)
    def button(self, state: CaptainsState, cmd: Command) -> Handled:
        """Who moves first in the next game."""
        player = self.seated(state, cmd.args["player"])
        if self.in_round(state):
            raise IllegalCommand("the first player is chosen between games")
        return state.replace(leader=player), [Event("button", {"leader": player})]

    @command("start-game", players=Arg(list, optional=True))
    def start_game(self, state: CaptainsState, cmd: Command) -> Handled:
        """Seven cards each, an ante of 1 into every pot from each player; the eight seed
        cards follow as `deal`s. `players`: the two who play, first mover first (default: the
        leader and the player on his left)."""
        if self.in_round(state):
            raise IllegalCommand("a Captain's game is under way; 'stop' ends it")
        players = cmd.args.get("players")
        if players is None:
            if len(state.seats) < 2:
                raise IllegalCommand("Captain's Rochi is for two players; %(n)d seated",
                                     n=len(state.seats))
            players = [state.leader, state.seat_after(state.leader)]
        if (len(players) != 2 or players[0] == players[1]
                or not all(isinstance(p, str) and p in state.seats for p in players)):
            raise IllegalCommand("players = %(players)s: name two different seated players, "
                                 "the first to move first; seated: %(seated)s",
                                 players=repr(players), seated=state.seats)
        entries = []
        for p in players:
            held = state.ledger.balance(player_account(p))
            if held < ANTE * len(SUITS):
                raise IllegalCommand("%(player)s holds %(held)d coins; the antes are %(ante)d "
                                     "into each of the %(pots)d pots (%(total)d)", player=p,
                                     held=held, ante=ANTE, pots=len(SUITS),
                                     total=ANTE * len(SUITS))
            entries += [Entry.transfer("pot", player_account(p), pot_of(s), ANTE, "ante")
                        for s in SUITS]
        game = Game(players=(players[0], players[1]), phase="seeding", seeds_left=SEEDS,
                    deck=len(ROCHE.cards) - 2 * HAND_SIZE, held=(HAND_SIZE, HAND_SIZE),
                    turn=players[0])
        event = Event("game-started", {"players": list(players), "seeds": SEEDS},
                      tuple(entries))
        return self.post(state, [event]).replace(game=game), [event]

    # -- turns -----------------------------------------------------------------------------------

    def _game(self, state: CaptainsState) -> Game:
        if state.game is None:
            raise IllegalCommand("no Captain's game is under way: 'start-game' deals one")
        return state.game

    def _check_turn(self, game: Game, player: str, action: str) -> None:
        if game.phase == "seeding":
            raise IllegalCommand("the stacks are being seeded (seed cards to deal: %(left)d); "
                                 "%(player)s cannot %(action)s yet", left=game.seeds_left,
                                 player=player, action=action)
        if player not in game.players:
            raise IllegalCommand("%(player)s is not playing this game (%(players)s are)",
                                 player=player, players=game.players)
        if player != game.turn:
            if player == game.cut_by and action == "play":
                raise IllegalCommand("%(player)s's deal cut a suit, and a cut ends the turn: no "
                                     "play after it; it is %(turn)s's turn", player=player,
                                     turn=game.turn)
            raise IllegalCommand("it is %(turn)s's turn, not %(player)s's", turn=game.turn,
                                 player=player)

    def _turn_over(self, game: Game) -> tuple[Game, list[Event]]:
        nxt = game.other(game.turn)
        events = [Event("turn-over", {"player": game.turn}), Event("turn", {"player": nxt})]
        return _replace(game, turn=nxt, played=False, dealt=False, first_turn=False), events

    @command("deal", card=str, player=Arg(str, optional=True))
    def deal(self, state: CaptainsState, cmd: Command) -> Handled:
        """A card from the deck into its stack: a seed card, or the turn's deal."""
        game = self._game(state)
        card = self._possible(game, cmd.args["card"])
        who = cmd.args.get("player")
        if not game.deck:
            raise IllegalCommand("the deck is empty even after the reshuffle (every other card "
                                 "is on the table or in a hand): play a card or pass")
        events: list[Event] = []
        if game.phase == "turns":
            if game.first_turn:
                raise IllegalCommand("%(player)s moves first and may not deal on the game's "
                                     "first turn; he plays a card or passes", player=game.turn)
            if game.dealt:
                if who == game.turn:
                    raise IllegalCommand("%(player)s has dealt this turn already; he may play "
                                         "a card or end his turn", player=who)
                # A second card from the deck: the turn has passed to the other player.
                game, ended = self._turn_over(game)
                events += ended
            if who is not None:
                self._check_turn(game, who, "deal")
            game = _replace(game, dealt=True, cut_by=None)
        elif who is not None:
            self._check_turn(game, who, "deal")
        felt = game.felt.stacked(card)
        game = _replace(game, felt=felt, deck=game.deck - 1)
        suit = card_of(card).suit
        cut = felt.cuts(suit) and not felt.is_locked(suit)
        data: dict[str, Any] = {"card": card, "suit": suit, "count": len(felt.stack(suit))}
        if game.phase == "seeding":
            data["seed"] = True
        else:
            data["by"] = game.turn
        if cut:
            data["cut"] = True
        events.append(Event("dealt", data))
        owner = felt.owner(suit)
        if game.phase == "seeding":
            game = _replace(game, seeds_left=game.seeds_left - 1)
            if cut:
                # A suit locked in the setup: its cards are discarded, none replaced.
                game = self._discard_suit(game, suit)
                events.append(Event("discarded", {"suit": suit, "why": "locked in the setup"}))
            if not game.seeds_left:
                game = _replace(game, phase="turns")
                events.append(Event("turn", {"player": game.turn}))
            state = state.replace(game=game)
        elif cut and owner is not None:
            state, settled = self._cut(state.replace(game=game), suit, owner)
            events += settled
            game = state.game
            game, ended = self._turn_over(_replace(game, cut_by=game.turn))
            events += ended
            state = state.replace(game=game)
        else:
            if cut:
                game = _replace(game, felt=felt.lock(suit))
                events.append(Event("locked", {"suit": suit, "by": "deal"}))
            if game.played:
                game, ended = self._turn_over(game)
                events += ended
            state = state.replace(game=game)
        state, more = self._maybe_reshuffle(state)
        return state, events + more

    @command("play", player=str, card=str)
    def play(self, state: CaptainsState, cmd: Command) -> Handled:
        """A card from the player's hand buys the suit's token (as in Rochi)."""
        game = self._game(state)
        player = cmd.args["player"]
        self._check_turn(game, player, "play")
        if game.played:
            raise IllegalCommand("%(player)s has played a card this turn already; he may deal "
                                 "or end his turn", player=player)
        if not game.holding(player):
            raise IllegalCommand("%(player)s holds no cards; he may deal or pass", player=player)
        card = self._possible(game, cmd.args["card"])
        owner = game.felt.owner(card_of(card).suit)
        placed = place(game.felt, state.ledger, player, card)
        i = game.players.index(player)
        held = list(game.held)
        held[i] -= 1
        game = _replace(game, felt=placed.felt, played=True, held=(held[0], held[1]),
                        cut_by=None)
        event = Event("played", {"player": player, "card": card, "suit": card_of(card).suit,
                                 "to": placed.to, "shield_of": placed.shield_of,
                                 "price": placed.price, "paid_to": placed.payee,
                                 "from": owner}, placed.entries)
        state = self.post(state, [event])
        events = [event]
        if game.dealt or game.first_turn:
            # Both done, or the first turn (no deal on it): nothing is left to do.
            game, ended = self._turn_over(game)
            events += ended
        state, more = self._maybe_reshuffle(state.replace(game=game))
        return state, events + more

    @command("end-turn", player=str)
    def end_turn(self, state: CaptainsState, cmd: Command) -> Handled:
        game = self._game(state)
        player = cmd.args["player"]
        self._check_turn(game, player, "end his turn")
        if not (game.played or game.dealt):
            raise IllegalCommand("%(player)s has neither played nor dealt: there is no fold in "
                                 "Captain's Rochi; he plays, deals or passes", player=player)
        game, events = self._turn_over(game)
        return state.replace(game=game), events

    @command("pass", player=str)
    def pass_turn(self, state: CaptainsState, cmd: Command) -> Handled:
        """Discard the hand, shuffle the discards into the deck, both draw back to seven."""
        game = self._game(state)
        player = cmd.args["player"]
        self._check_turn(game, player, "pass")
        if game.played or game.dealt:
            if game.played:
                raise IllegalCommand("%(player)s has played this turn; a pass replaces the "
                                     "turn's actions: end the turn instead", player=player)
            raise IllegalCommand("%(player)s has dealt this turn; a pass replaces the turn's "
                                 "actions: end the turn instead", player=player)
        i = game.players.index(player)
        held = list(game.held)
        game = _replace(game, discard_hidden=game.discard_hidden + held[i])
        held[i] = 0
        game = _replace(game, held=(held[0], held[1]))
        events = [Event("passed", {"player": player, "discarded": game.discard_hidden})]
        game, shuffled = self._reshuffle(game, "a player passed")
        game, drawn = self._draw(game)
        game, ended = self._turn_over(game)
        return state.replace(game=game), events + shuffled + drawn + ended

    @command("odd-coin", player=str, pot=Arg(str, choices=SUITS))
    def odd_coin(self, state: CaptainsState, cmd: Command) -> Handled:
        """The loser puts his odd penalty coin into the pot he chooses."""
        game = self._game(state)
        player, suit = cmd.args["player"], cmd.args["pot"]
        owed = dict(game.odd).get(player, 0)
        if not owed:
            raise IllegalCommand("%(player)s has no odd penalty coin waiting for a pot",
                                 player=player)
        event = Event("odd-coin", {"player": player, "pot": suit, "coins": owed},
                      (Entry.transfer("pot", ODD_POT, pot_of(suit), owed, "odd coin"),))
        game = _replace(game, odd=tuple((p, c) for p, c in game.odd if p != player))
        return self.post(state, [event]).replace(game=game), [event]

    @command("stop")
    def stop(self, state: CaptainsState, cmd: Command) -> Handled:
        """The players agree to stop: every pot is divided between them; an odd coin to the
        winner of the last cut (before any cut: to the second player)."""
        game = self._game(state)
        in_pots = {**{pot_of(s): c for s, c in pots(state.ledger).items() if c},
                   **({ODD_POT: state.ledger.balance(ODD_POT)}
                      if state.ledger.balance(ODD_POT) else {})}
        total = sum(in_pots.values())
        share, odd = divmod(total, 2)
        gets = dict.fromkeys(game.players, share)
        odd_to = game.last_winner or game.players[1]
        gets[odd_to] += odd
        legs = [(a, -c) for a, c in in_pots.items()]
        legs += [(player_account(p), c) for p, c in gets.items() if c]
        entries = (Entry("pot", tuple(legs), "pots divided"),) if total else ()
        return self._game_over(state, game, STOPPED, {
            "players": list(game.players), "total": total, "shares": gets,
            "odd_to": odd_to if odd else None}, entries)

    @command("drop-out", player=str)
    def drop_out(self, state: CaptainsState, cmd: Command) -> Handled:
        """A player drops out: the game ends; the pots stay on the table."""
        game = self._game(state)
        player = cmd.args["player"]
        if player not in game.players:
            raise IllegalCommand("%(player)s is not playing this game", player=player)
        if game.odd:
            owing = game.odd[0][0]
            raise IllegalCommand("%(player)s's odd penalty coin waits for a pot: 'odd-coin' "
                                 "places it before the game ends", player=owing)
        return self._game_over(state, game, DROPPED_OUT, {
            "players": list(game.players), "player": player,
            "pots": sum(pots(state.ledger).values())}, ())

    def _game_over(self, state: CaptainsState, game: Game, result: str, details: dict,
                   entries: tuple[Entry, ...]) -> Handled:
        """The game ends (by agreement or a drop-out): one `round-ended` with `result`."""
        ended = RoundEnded(result, game.turn, details).event()
        event = Event(ended.kind, ended.data, entries)
        state = self.post(state, [event])
        return state.replace(game=None, rounds=state.rounds + 1,
                             last_result={"result": result, **details}), [event]

    # -- the cut, drawing and reshuffling ---------------------------------------------------------

    def _possible(self, game: Game, label: object) -> str:
        card = card_of(label)
        if card.label in game.known():
            if card.label in game.discard:
                raise IllegalCommand("%(card)s is in the discard pile (%(name)s); it cannot be "
                                     "dealt or played now: check the reading", card=card.label,
                                     name=card.name)
            raise IllegalCommand("%(card)s is on the table (%(name)s); it cannot be dealt or "
                                 "played now: check the reading", card=card.label,
                                 name=card.name)
        return card.label

    def _cut(self, state: CaptainsState, suit: str, winner: str) -> Handled:
        game = state.game
        assert game is not None
        loser = game.other(winner)
        rank = RANK[suit]
        shields = len(game.felt.shields_of(loser, suit))
        to_winner, odd = captains_penalty(rank, shields)
        held = state.ledger.balance(player_account(loser))
        paid = min(to_winner, held)
        odd_paid = min(odd, held - paid)
        entries = []
        if paid:
            entries.append(Entry.transfer("pot", player_account(loser), player_account(winner),
                                          paid, f"penalty {suit}"))
        if odd_paid:
            entries.append(Entry.transfer("pot", player_account(loser), ODD_POT, odd_paid,
                                          "odd penalty coin"))
        pot = state.ledger.balance(pot_of(suit))
        taken = max(pot - 1, 0)
        if taken:
            entries.append(Entry.transfer("pot", pot_of(suit), player_account(winner), taken,
                                          f"pot {suit}"))
        ante = 1 if held - paid - odd_paid >= 1 else 0
        if ante:
            entries.append(Entry.transfer("pot", player_account(loser), pot_of(suit), ante,
                                          "ante"))
        row = {"player": loser, "shields": shields, "due": to_winner + odd, "paid": paid,
               "odd": odd_paid, "shortfall": to_winner + odd - paid - odd_paid}
        ended = RoundEnded(CUT, game.turn, {"winner": winner, "loser": loser, "suit": suit,
                                            "suit_title": ROCHE.suit(suit).title,
                                            "pot": taken, "penalties": [row], "ante": ante,
                                            "ante_shortfall": 1 - ante}).event()
        event = Event(ended.kind, ended.data, tuple(entries))
        state = self.post(state, [event])
        game = _replace(self._discard_suit(game, suit), last_winner=winner,
                        odd=(tuple((p, c) for p, c in game.odd if p != loser)
                             + (((loser, dict(game.odd).get(loser, 0) + odd_paid),)
                                if odd_paid else ())))
        events = [event]
        game, drawn = self._draw(game)
        events += drawn
        last = settlement({"result": CUT, **event.data["details"]})
        return state.replace(game=game, rounds=state.rounds + 1, last_result=last), events

    @staticmethod
    def _discard_suit(game: Game, suit: str) -> Game:
        """Every card of `suit` on the table (stack and shields) to the discard pile; the
        token back to the centre, the lock lifted."""
        felt = game.felt
        gone = list(felt.stack(suit)) + [c for _, c in felt.shields if card_of(c).suit == suit]
        i = SUITS.index(suit)
        felt = Felt(stacks=felt.stacks[:i] + ((),) + felt.stacks[i + 1:],
                    owners=felt.owners[:i] + (None,) + felt.owners[i + 1:],
                    locked=felt.locked[:i] + (False,) + felt.locked[i + 1:],
                    shields=tuple((p, c) for p, c in felt.shields if card_of(c).suit != suit))
        return _replace(game, felt=felt, discard=game.discard + tuple(gone))

    def _draw(self, game: Game) -> tuple[Game, list[Event]]:
        """Both players draw back up to seven, reshuffling if the deck runs out."""
        events: list[Event] = []
        held = list(game.held)
        for i in range(2):
            while held[i] < HAND_SIZE:
                if not game.deck:
                    game, shuffled = self._reshuffle(_replace(game, held=(held[0], held[1])),
                                                     "the deck is empty")
                    events += shuffled
                    if not game.deck:
                        break
                take = min(HAND_SIZE - held[i], game.deck)
                held[i] += take
                game = _replace(game, deck=game.deck - take, held=(held[0], held[1]))
        events.append(Event("drawn", {"held": dict(zip(game.players, held, strict=True)),
                                      "deck": game.deck}))
        return game, events

    def _reshuffle(self, game: Game, why: str) -> tuple[Game, list[Event]]:
        """Dead suits and locked stacks to the discards, then the discards into the deck."""
        for suit in SUITS:
            if self._dead_on_table(game, suit) or game.felt.is_locked(suit):
                game = self._discard_suit(game, suit)
        back = len(game.discard) + game.discard_hidden
        game = _replace(game, deck=game.deck + back, discard=(), discard_hidden=0)
        return game, [Event("reshuffled", {"why": why, "cards": back, "deck": game.deck})]

    @staticmethod
    def _dead_on_table(game: Game, suit: str) -> bool:
        on_table = sum(card_of(c).suit == suit for c in game.felt.cards())
        return on_table == ROCHE.suit(suit).size

    def _maybe_reshuffle(self, state: CaptainsState) -> tuple[CaptainsState, list[Event]]:
        game = state.game
        if game is None or game.phase == "seeding" and game.deck:
            return state, []
        dead = [s for s in SUITS if self._dead_on_table(game, s)]
        if dead:
            game, events = self._reshuffle(game, f"{', '.join(dead)} dead on the table")
        elif not game.deck:
            game, events = self._reshuffle(game, "the deck is empty")
        else:
            return state, []
        return state.replace(game=game), events

    # -- views and play ------------------------------------------------------------------------

    def read(self, state: CaptainsState, observation, min_confidence: float = 0.9
             ) -> Reading:
        """The new card on the felt as a command: a seed card; on the first turn the first
        player's play; a deal once the turn's player has played. Otherwise whether it was
        played or dealt is the banker's to say."""
        game = state.game
        if game is None:
            return Reading(problems=("no Captain's game is under way: start one, then the "
                                     "seed cards are read",))
        new, looking = new_cards(observation, game.known(), min_confidence)
        if looking:
            return looking
        if not new:
            return Reading(problems=("no new card on the table",))
        if game.phase == "seeding":
            return try_reading(self, state, [Command("deal", {"card": c}) for c in new], new)
        if len(new) > 1:
            return Reading(problems=(f"{len(new)} new cards ({', '.join(new)}): a turn "
                                     "brings one at a time; enter them by hand",),
                           faces={"new": ", ".join(new)})
        if game.first_turn:
            return try_reading(self, state, [Command("play", {"player": game.turn,
                                                              "card": new[0]})], new)
        if game.played and not game.dealt:
            return try_reading(self, state, [Command("deal", {"card": new[0]})], new)
        return Reading(problems=(f"{new[0]} came up in {game.turn}'s turn: played or dealt? "
                                 "Choose on the page",), faces={"new": new[0]})

    def light(self, state: CaptainsState, events: tuple[Event, ...]) -> str:
        for event in events:
            if event.kind == "round-ended":
                return "win"
        return super().light(state, events)

    def view(self, state: CaptainsState) -> dict:
        out = super().view(state)
        game = state.game
        in_pots = pots(state.ledger)
        felt = game.felt if game else Felt()
        known = game.known() if game else []
        out.update(leader=state.leader, pots=in_pots,
                   last_result=dict(state.last_result) if state.last_result else None,
                   odd_pot=state.ledger.balance(ODD_POT),
                   suits=[felt.suit_view(s, known, in_pots[s]) for s in SUITS], game=None)
        if game:
            out["game"] = {
                "players": list(game.players), "phase": game.phase, "turn": game.turn,
                "played": game.played, "dealt": game.dealt, "first_turn": game.first_turn,
                "seeds_left": game.seeds_left, "deck": game.deck,
                "held": dict(zip(game.players, game.held, strict=True)),
                "discard": list(game.discard), "discard_face_down": game.discard_hidden,
                "shields": {p: game.felt.shields_of(p) for p in game.players},
                "odd": dict(game.odd), "last_winner": game.last_winner,
            }
        return out

    def unseen(self, state: CaptainsState) -> list[str]:
        """Cards that may be in the deck or a hand now."""
        known = set(state.game.known()) if state.game else set()
        return [c.label for c in ROCHE.cards if c.label not in known]

    def chance_step(self, state: CaptainsState, rng: random.Random) -> Command:
        """The next card the table sees: one from the deck, or on the first turn (the deck
        closed to the first player) the card he plays."""
        game = state.game
        if game is not None and game.phase == "turns" and game.first_turn:
            return Command("play", {"player": game.turn,
                                    "card": rng.choice(self._playable(state))})
        return Command("deal", {"card": rng.choice(self.unseen(state))})

    def demo_throw(self, state: CaptainsState, rng: random.Random
                   ) -> tuple[list[str], list[str]] | None:
        """For a deck: the next card the table sees, and the cards face up on the felt;
        None before a game starts."""
        if state.game is None:
            return None
        return [self.chance_step(state, rng).args["card"]], state.game.felt.cards()

    def _playable(self, state: CaptainsState) -> list[str]:
        """Cards the turn's player could play and pay for (all unseen ones if none)."""
        game = state.game
        assert game is not None
        held = state.ledger.balance(player_account(game.turn))
        out = []
        for c in self.unseen(state):
            suit = card_of(c).suit
            if game.felt.is_locked(suit):
                continue
            if game.felt.owner(suit) == game.turn or game.felt.price(suit) <= held:
                out.append(c)
        return out or self.unseen(state)

    def random_command(self, state: CaptainsState, rng: random.Random) -> Command:
        game = state.game
        if game is None:
            if rng.random() < 0.05 and state.seats:
                return Command("buy-in", {"player": rng.choice(state.seats),
                                          "amount": rng.randint(1, 50)})
            return Command("start-game", {})
        if game.phase == "seeding":
            return self.chance_step(state, rng)
        if game.odd and rng.random() < 0.5:
            return Command("odd-coin", {"player": game.odd[0][0], "pot": rng.choice(SUITS)})
        p = game.turn
        r = rng.random()
        if r < 0.01:
            return Command("stop", {})
        if not (game.played or game.dealt) and r < 0.04:
            return Command("pass", {"player": p})
        if not game.played and game.holding(p) and r < 0.5:
            return Command("play", {"player": p, "card": rng.choice(self._playable(state))})
        if not game.dealt and not game.first_turn:
            return Command("deal", {"card": rng.choice(self.unseen(state)), "player": p})
        if game.played or game.dealt:
            return Command("end-turn", {"player": p})
        return self.chance_step(state, rng)


MODE = Mode(
    engine=CaptainsRochi(),
    equipment="roche",
    odds_ref="controller.odds.captains_rochi:odds",
    odds_text_ref="controller.odds.rochi:odds_text",
    simulate_ref="controller.odds.captains_rochi:simulate",
    strategies=("deal-only", "random"),
    page_ref="web.modes.rochi:CAPTAINS_PAGE",
    result_words={CUT: RESULT_WORDS[CUT],
                  STOPPED: "the players stop and divide the pots",
                  DROPPED_OUT: "a player drops out; the pots stay"},
    receipts=("round-slip",),
    bet_words=CUTS_FIRST,
)
