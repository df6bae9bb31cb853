"""Rochi: 3-6 players buy the six suits of the Roche deck and steer them to cut
(seeds/rochi-roche-rugen.md, "Rules for Rochi"). Captain's Rochi builds on this module.

The controller is dealer and bookkeeper of a physical game: the players hold real cards, so
the engine never knows a hand. It learns a card when it is dealt (seeded or dealt from the
deck) or played, and checks what can be checked: a player cannot play more cards than he
holds, a card whose every copy is already seen is impossible, a locked suit cannot be bought.

A hand: `start-hand` (five cards to each player, not seen), the seed cards (`deal` before the
first turn, two per missing player), then turns from the leader to the left. On his turn a
player may `play` a card, `deal` one from the deck, both in either order, or `fold`;
`end-turn` after one of them (with neither, it is a fold). A dealt card that cuts an owned
suit ends the hand at once; one that cuts an unowned suit locks it.

Money: the suit pots are `pot:rochi-SUIT`; every move of coins is a "pot" entry (players pay
prices to the pot or to the owner, penalties to the winner, pots to the winner).
Rulings beyond the seed and RULINGS.md: docs/rules/rochi.md.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from dataclasses import replace as _replace
from typing import Any

from controller.errors import ConfigError, IllegalCommand
from controller.games.base import Arg, Command, Engine, Event, RoundEnded, State, command
from controller.games.observation import Reading
from controller.games.roche_deck import ROCHE, Card
from controller.ledger import Entry, player_account, pot_account
from controller.modes import Mode
from controller.settings import N_, Name, Setting, phrase

Handled = tuple[State, list[Event]]

SUITS: tuple[str, ...] = tuple(s.key for s in ROCHE.suits)
RANK: dict[str, int] = {s.key: s.rank for s in ROCHE.suits}
HAND_SIZE = 5
#: How a hand ends: the `result` of its `round-ended` event, in words for the dashboard.
RESULT_WORDS = {"cut-owner-wins": "the suit cut: its owner wins",
                "last-player-standing": "the last player standing wins",
                "hand-no-winner": "no one wins the hand"}
NO_WINNER = "hand-no-winner"
CUT = "cut-owner-wins"
LAST_STANDING = "last-player-standing"
#: Rochi is played by 3 to 6; fewer than six seed two cards per missing player.
MIN_PLAYERS, MAX_PLAYERS = 3, 6


def pot_of(suit: str) -> str:
    """The ledger account of the pot beside `suit`."""
    return pot_account(f"rochi-{suit}")


def pots(ledger) -> dict[str, int]:
    """Coins in each suit's pot."""
    return {s: ledger.balance(pot_of(s)) for s in SUITS}


def penalty(rank: int, shields: int) -> int:
    """Rochi's penalty: the rank; half, rounded up, with one shield; none with two or more."""
    if shields >= 2:
        return 0
    return -(-rank // 2) if shields == 1 else rank


def joining_fee(pot_total: int, players: int) -> int:
    """The price to join: the coins in all pots over the current players, rounded up."""
    return -(-pot_total // players) if players else 0


def marker_value(pot_total: int, players: int) -> int:
    """A leaver's marker: an equal share of the pots, rounded down."""
    return pot_total // players if players else 0


def card_of(label: object) -> Card:
    return ROCHE.card(label)


# -- the cards on the table ---------------------------------------------------------------------


@dataclass(frozen=True)
class Felt:
    """The six stacks, the suit tokens, locks and shields: what lies on the table.

    Per suit, in `SUITS` order: the stack's cards, the token's owner (None: in the centre),
    whether the suit is locked. Shields are (player, card) pairs in the order laid down.
    """

    stacks: tuple[tuple[str, ...], ...] = ((),) * len(SUITS)
    owners: tuple[str | None, ...] = (None,) * len(SUITS)
    locked: tuple[bool, ...] = (False,) * len(SUITS)
    shields: tuple[tuple[str, str], ...] = ()

    def stack(self, suit: str) -> tuple[str, ...]:
        return self.stacks[SUITS.index(suit)]

    def owner(self, suit: str) -> str | None:
        return self.owners[SUITS.index(suit)]

    def is_locked(self, suit: str) -> bool:
        return self.locked[SUITS.index(suit)]

    def owned_by(self, player: str) -> list[str]:
        return [s for s, o in zip(SUITS, self.owners, strict=True) if o == player]

    def shields_of(self, player: str, suit: str | None = None) -> list[str]:
        return [c for p, c in self.shields
                if p == player and (suit is None or card_of(c).suit == suit)]

    def cards(self) -> list[str]:
        """Every card lying face up on the table."""
        return [c for stack in self.stacks for c in stack] + [c for _, c in self.shields]

    def _with(self, suit: str, **per_suit: Any) -> Felt:
        i = SUITS.index(suit)
        changes = {}
        for name, value in per_suit.items():
            old = getattr(self, name)
            changes[name] = old[:i] + (value,) + old[i + 1:]
        return Felt(**{"stacks": self.stacks, "owners": self.owners, "locked": self.locked,
                       "shields": self.shields, **changes})

    def stacked(self, card: str) -> Felt:
        suit = card_of(card).suit
        return self._with(suit, stacks=self.stack(suit) + (card,))

    def owned(self, suit: str, owner: str | None) -> Felt:
        return self._with(suit, owners=owner)

    def lock(self, suit: str) -> Felt:
        return self._with(suit, locked=True, owners=None)

    def shielded(self, player: str, card: str) -> Felt:
        return Felt(self.stacks, self.owners, self.locked, self.shields + ((player, card),))

    def without_player(self, player: str) -> Felt:
        """`player`'s tokens back to the centre and his shields discarded."""
        owners = tuple(None if o == player else o for o in self.owners)
        return Felt(self.stacks, owners, self.locked,
                    tuple((p, c) for p, c in self.shields if p != player))

    def price(self, suit: str) -> int:
        """What buying `suit` costs now: the cards in its stack after the play (a card that
        would cut goes to a shield instead, so the stack keeps its count)."""
        n = len(self.stack(suit))
        return n if n + 1 >= RANK[suit] else n + 1

    def cuts(self, suit: str) -> bool:
        """True when the stack holds exactly half the suit: the card just added cut it."""
        return len(self.stack(suit)) == RANK[suit]

    def unseen_in(self, suit: str, seen: Iterable[str]) -> int:
        """Cards of `suit` not seen (in hands, the deck, or discarded face down)."""
        return ROCHE.suit(suit).size - sum(card_of(c).suit == suit for c in seen)

    def suit_view(self, suit: str, seen: Iterable[str], pot: int) -> dict:
        """One suit as the dashboard shows it."""
        stack = self.stack(suit)
        rank = RANK[suit]
        n = len(stack)
        locked = self.is_locked(suit)
        # A cut needs rank - n more cards in the stack, the last from the deck.
        dead = locked or self.unseen_in(suit, seen) < rank - n
        return {
            "suit": suit,
            "title": ROCHE.suit(suit).title,
            "rank": rank,
            "cut": rank,
            "stack": list(stack),
            "count": n,
            "price": None if locked else self.price(suit),
            "owner": self.owner(suit),
            "pot": pot,
            # Ripe: one card short of the cut, and that card can still come.
            "ripe": not dead and n == rank - 1,
            "dead": dead,
            "locked": locked,
        }

    def to_json(self) -> dict:
        return {"stacks": {s: list(self.stack(s)) for s in SUITS},
                "owners": {s: self.owner(s) for s in SUITS if self.owner(s)},
                "locked": [s for s in SUITS if self.is_locked(s)],
                "shields": [[p, c] for p, c in self.shields]}


@dataclass(frozen=True)
class Placement:
    """Where a played card goes and who is paid what for the token."""

    felt: Felt
    to: str  # "stack" or "shield"
    shield_of: str | None
    price: int
    payee: str | None  # a player, "pot", or None (the buyer owns it already)
    entries: tuple[Entry, ...]


def place(felt: Felt, ledger, player: str, card: str) -> Placement:
    """A card played by `player`: where it goes, the price and its payment; refused when the
    suit is locked or the player cannot pay."""
    suit = card_of(card).suit
    title = ROCHE.suit(suit).title
    if felt.is_locked(suit):
        raise IllegalCommand("%(suit)s is locked and cannot be bought; play a card of an "
                             "open suit", suit=title)
    owner = felt.owner(suit)
    price = felt.price(suit)
    if price == len(felt.stack(suit)):
        # The card would cut, and cards from hands never cut: it goes to the previous owner
        # as a shield, else to the buyer; the stack keeps its count.
        shield_of = owner if owner not in (None, player) else player
        felt, to = felt.shielded(shield_of, card), "shield"
    else:
        felt, to, shield_of = felt.stacked(card), "stack", None
    felt = felt.owned(suit, player)
    held = ledger.balance(player_account(player))
    entries: tuple[Entry, ...] = ()
    if owner == player:
        payee = None
    else:
        if price > held:
            raise IllegalCommand("%(player)s holds %(held)d coin(s); buying %(suit)s costs "
                                 "%(price)d", player=player, held=held, suit=title, price=price)
        payee = "pot" if owner is None else owner
        to_account = pot_of(suit) if owner is None else player_account(owner)
        entries = (Entry.transfer("pot", player_account(player), to_account, price,
                                  f"buys {suit}"),)
    return Placement(felt, to, shield_of, price, payee, entries)


def check_possible(card: str, seen: Iterable[str]) -> Card:
    """The card, unless every copy of it is already seen (then it cannot be here)."""
    found = card_of(card)
    if card in seen:
        raise IllegalCommand("%(card)s is already seen this hand (%(name)s); the Roche deck "
                             "has one of each card, so this one is impossible: check the "
                             "reading", card=card, name=found.name)
    return found


def settlement(result: Mapping[str, Any]) -> dict:
    """How a round was settled, for the table view: the result, winner, suit (key and
    title), pot and each penalty (and a Last Hand's shares)."""
    out = {k: result.get(k) for k in ("result", "winner", "loser", "suit", "suit_title", "pot")
           if result.get(k) is not None}
    out["penalties"] = [dict(r) for r in result.get("penalties", ())]
    if result.get("shares"):
        out["shares"] = dict(result["shares"])
    return out


def penalty_events(ledger, felt: Felt, suit: str, winner: str, payers: Iterable[str]
                   ) -> tuple[list[Event], list[dict]]:
    """Each payer's penalty to `winner` (shields counted); a penalty larger than the balance
    takes what is there and notes the shortfall."""
    rank = RANK[suit]
    rows, entries = [], []
    balances = dict(ledger.balances)
    for p in payers:
        shields = len(felt.shields_of(p, suit))
        due = penalty(rank, shields)
        paid = min(due, balances.get(player_account(p), 0))
        balances[player_account(p)] = balances.get(player_account(p), 0) - paid
        rows.append({"player": p, "shields": shields, "due": due, "paid": paid,
                     "shortfall": due - paid})
        if paid:
            entries.append(Entry.transfer("pot", player_account(p), player_account(winner),
                                          paid, f"penalty {suit}"))
    if not rows:
        return [], []
    return [Event("penalties-paid", {"winner": winner, "suit": suit, "penalties": rows},
                  tuple(entries))], rows


def new_cards(observation, known: Iterable[str], min_confidence: float
              ) -> tuple[list[str], Reading | None]:
    """The cards on the felt the table has not seen yet, or the Reading that says why the
    banker must look (a card read without confidence, a label that is no Roche card)."""
    known = set(known)
    uncertain, problems, new = [], [], []
    for i, seen in enumerate(observation.objects):
        if seen.kind == "obstruction":
            problems.append("something covers the felt; clear it and look again")
            continue
        if seen.zone == "outside":
            continue
        if seen.label is None or seen.confidence < min_confidence:
            uncertain.append(i)
            continue
        try:
            card = card_of(seen.label)
        except IllegalCommand as exc:
            problems.append(str(exc))
            continue
        if card.label not in known:
            new.append(card.label)
    if uncertain or problems:
        return new, Reading(problems=tuple(problems), uncertain=tuple(uncertain),
                            faces={"new": ", ".join(new)})
    return new, None


def try_reading(engine: Engine, state: State, commands: list[Command], new: list[str]
                ) -> Reading:
    """The commands a reading means, each tried in turn: refused ones become the problem."""
    faces = {"new": ", ".join(new)}
    trial = state
    for cmd in commands:
        try:
            trial, _ = engine.apply(trial, cmd)
        except IllegalCommand as exc:
            return Reading(problems=(str(exc),), faces=faces)
    return Reading(tuple(commands), faces=faces)


# -- Rochi -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hand:
    """One hand of Rochi under way."""

    #: Players dealt in, in turn order from the leader.
    players: tuple[str, ...]
    #: "seeding", "turns" (players take turns) or "deal-out" (one player left, several suits).
    phase: str
    seeds_left: int
    #: Cards still in the deck.
    deck: int
    #: Cards each player still holds, in `players` order.
    held: tuple[int, ...]
    turn: str | None = None
    played: bool = False
    dealt: bool = False
    had_turn: frozenset[str] = frozenset()
    folded: frozenset[str] = frozenset()
    felt: Felt = field(default_factory=Felt)
    #: Every card seen this hand (stacks, shields, discarded shields), in order.
    seen: tuple[str, ...] = ()
    last: bool = False

    def holding(self, player: str) -> int:
        return self.held[self.players.index(player)]

    def still_in(self) -> list[str]:
        return [p for p in self.players if p not in self.folded]

    def next_after(self, player: str) -> str:
        i = self.players.index(player)
        for step in range(1, len(self.players) + 1):
            p = self.players[(i + step) % len(self.players)]
            if p not in self.folded:
                return p
        return player


@dataclass(frozen=True, kw_only=True)
class RochiState(State):
    leader: str | None = None
    #: The table agreed that the next hand (or the one under way) is the Last Hand.
    last_hand: bool = False
    #: Joining fees owed before a player is dealt in: (player, coins).
    owed: tuple[tuple[str, int], ...] = ()
    #: Markers granted to players sitting out: (player, coins credited against rejoining).
    markers: tuple[tuple[str, int], ...] = ()
    hand: Hand | None = None
    #: The winner of the last hand that had one (for the odd coins of a Last Hand division).
    last_result: Mapping[str, Any] | None = None

    def owes(self, player: str) -> int:
        return dict(self.owed).get(player, 0)


def _seat_after(seats: tuple[str, ...], old_seats: tuple[str, ...], player: str) -> str | None:
    """The next seated player to the left of `player` (who may have left) by the old order."""
    if not seats:
        return None
    order = old_seats if player in old_seats else seats
    i = order.index(player) if player in order else -1
    for step in range(1, len(order) + 1):
        p = order[(i + step) % len(order)]
        if p in seats:
            return p
    return seats[0]


class Rochi(Engine):
    name = "rochi"
    title = "Rochi"
    state_type = RochiState
    chance_kinds = frozenset({"deal"})
    # A hand deals at most the whole deck.
    round_bound = len(ROCHE.cards)
    settings = (
        Setting("max_seats", MAX_PLAYERS, "players at the table (Rochi is for 3 to 6)",
                minimum=MIN_PLAYERS, maximum=MAX_PLAYERS),
        Setting("joining_fee", False, "a player entering a game in progress pays the pots over "
                "the current players, rounded up, into pots of her choice"),
        Setting("markers", False, "a player sitting out may take a marker: an equal share of "
                "the pots, rounded down, credited against rejoining"),
    )

    def check_settings(self, values: Mapping[str, Any]) -> None:
        super().check_settings(values)
        if values["max_seats"] < MIN_PLAYERS:
            raise ConfigError("max_seats = %(seats)s: Rochi needs %(least)s",
                              seats=values["max_seats"], least=MIN_PLAYERS)

    def in_round(self, state: RochiState) -> bool:
        return state.hand is not None

    def seats_changed(self, new: RochiState, old: State) -> RochiState:
        if new.leader in new.seats:
            return new
        if new.leader is None:
            return new.replace(leader=new.seats[0] if new.seats else None)
        return new.replace(leader=_seat_after(new.seats, old.seats, new.leader))

    def dealt_in(self, state: RochiState) -> list[str]:
        """The seated players a new hand deals in, in turn order from the leader."""
        if not state.seats or state.leader is None:
            return []
        i = state.seats.index(state.leader)
        order = state.seats[i:] + state.seats[:i]
        return [p for p in order if not state.owes(p)]

    # -- between hands ---------------------------------------------------------------------------

    @command("join", player=str, seat=Arg(int, optional=True, minimum=1))
    def join(self, state: RochiState, cmd: Command) -> Handled:
        current = len(state.seats)
        new, events = Engine._join(self, state, cmd)
        player = cmd.args["player"]
        fee = 0
        if state.settings["joining_fee"]:
            fee = joining_fee(sum(pots(state.ledger).values()), current)
        marker = dict(state.markers).get(player, 0)
        credit = min(fee, marker)
        data = dict(events[0].data)
        if fee:
            data.update(fee=fee, marker_credit=credit, owes=fee - credit)
        new = new.replace(markers=tuple((p, m) for p, m in state.markers if p != player))
        if fee - credit:
            new = new.replace(owed=new.owed + ((player, fee - credit),))
        return new, [Event(events[0].kind, data)]

    @command("pay-entry", player=str, pots=dict)
    def pay_entry(self, state: RochiState, cmd: Command) -> Handled:
        """The joining fee, placed by the newcomer into pots of her choice."""
        player = self.seated(state, cmd.args["player"])
        owed = state.owes(player)
        if not owed:
            raise IllegalCommand("%(player)s owes no joining fee", player=player)
        if self.in_round(state):
            raise IllegalCommand("the joining fee is paid between hands")
        split = cmd.args["pots"]
        for suit, coins in split.items():
            if suit not in SUITS or type(coins) is not int or coins < 1:
                raise IllegalCommand(
                    "pots = %(pots)s: give coins (whole, at least 1) per suit, suits being "
                    "%(suits)s; e.g. {\"kin\": %(owed)d}", pots=repr(split), suits=SUITS,
                    owed=owed)
        if sum(split.values()) != owed:
            raise IllegalCommand("%(player)s owes %(owed)d coins to join; the pots given add "
                                 "up to %(given)d", player=player, owed=owed,
                                 given=sum(split.values()))
        held = state.ledger.balance(player_account(player))
        if held < owed:
            raise IllegalCommand("%(player)s holds %(held)d coins; the joining fee is "
                                 "%(owed)d: buy in first", player=player, held=held, owed=owed)
        entries = tuple(Entry.transfer("pot", player_account(player), pot_of(s), c, "joining fee")
                        for s, c in sorted(split.items()))
        event = Event("entry-paid", {"player": player, "pots": dict(sorted(split.items()))},
                      entries)
        new = self.post(state, [event]).replace(
            owed=tuple((p, c) for p, c in state.owed if p != player))
        return new, [event]

    @command("leave", player=str, marker=Arg(bool, optional=True))
    def leave(self, state: RochiState, cmd: Command) -> Handled:
        player = self.seated(state, cmd.args["player"])
        wants = cmd.args.get("marker", False)
        if wants and not state.settings["markers"]:
            raise IllegalCommand("this table grants no markers (setting markers); leave without "
                                 "one")
        new, events = Engine._leave(self, state, Command("leave", {"player": player}, cmd.id))
        data = dict(events[0].data)
        new = new.replace(owed=tuple((p, c) for p, c in new.owed if p != player))
        if wants:
            value = marker_value(sum(pots(state.ledger).values()), len(state.seats))
            data["marker"] = value
            new = new.replace(markers=tuple((p, m) for p, m in new.markers if p != player)
                              + ((player, value),))
        return new, [Event(events[0].kind, data)]

    @command("button", player=str)
    def button(self, state: RochiState, cmd: Command) -> Handled:
        """Give the leader button to a player (the table draws who first has it)."""
        player = self.seated(state, cmd.args["player"])
        if self.in_round(state):
            raise IllegalCommand("the leader button moves between hands")
        return state.replace(leader=player), [Event("button", {"leader": player})]

    @command("last-hand", agreed=Arg(bool, optional=True))
    def last_hand(self, state: RochiState, cmd: Command) -> Handled:
        """The table agrees (or takes back) that the next hand is the Last Hand."""
        if self.in_round(state):
            raise IllegalCommand("the Last Hand is agreed between hands, for the next hand")
        agreed = cmd.args.get("agreed", True)
        return state.replace(last_hand=agreed), [Event("last-hand", {"agreed": agreed})]

    @command("start-hand")
    def start_hand(self, state: RochiState, cmd: Command) -> Handled:
        """Shuffle and deal five cards to each player (face down: the table does not see
        them); two seed cards per missing player follow as `deal`s."""
        if self.in_round(state):
            raise IllegalCommand("a hand is under way; it ends before the next is dealt")
        players = self.dealt_in(state)
        if len(players) < MIN_PLAYERS:
            owing = [p for p in state.seats if state.owes(p)]
            if owing:
                raise IllegalCommand("Rochi needs %(least)d to %(most)d players; %(n)d can be "
                                     "dealt in (%(owing)s must pay the joining fee first)",
                                     least=MIN_PLAYERS, most=MAX_PLAYERS, n=len(players),
                                     owing=owing)
            raise IllegalCommand("Rochi needs %(least)d to %(most)d players; %(n)d can be "
                                 "dealt in", least=MIN_PLAYERS, most=MAX_PLAYERS,
                                 n=len(players))
        seeds = 2 * (MAX_PLAYERS - len(players))
        hand = Hand(players=tuple(players), phase="seeding" if seeds else "turns",
                    seeds_left=seeds, deck=len(ROCHE.cards) - HAND_SIZE * len(players),
                    held=(HAND_SIZE,) * len(players),
                    turn=None if seeds else players[0], last=state.last_hand)
        event = Event("hand-started", {"players": list(players), "leader": players[0],
                                       "seeds": seeds, "last_hand": state.last_hand})
        return state.replace(hand=hand), [event]

    # -- the hand -------------------------------------------------------------------------------

    def _hand(self, state: RochiState) -> Hand:
        if state.hand is None:
            raise IllegalCommand("no hand is under way: 'start-hand' deals one")
        return state.hand

    def _check_turn(self, hand: Hand, player: str, action: str) -> None:
        if hand.phase == "seeding":
            raise IllegalCommand("the stacks are being seeded (seed cards to deal: %(left)d); "
                                 "%(player)s cannot %(action)s yet", left=hand.seeds_left,
                                 player=player, action=action)
        if hand.phase == "deal-out":
            raise IllegalCommand("%(player)s is the last player standing: cards are dealt "
                                 "until one of his suits wins; no one takes turns",
                                 player=hand.still_in()[0])
        if player not in hand.players:
            raise IllegalCommand("%(player)s is not in this hand", player=player)
        if player in hand.folded:
            raise IllegalCommand("%(player)s has folded this hand", player=player)
        if player != hand.turn:
            raise IllegalCommand("it is %(turn)s's turn, not %(player)s's", turn=hand.turn,
                                 player=player)

    @command("deal", card=str, player=Arg(str, optional=True))
    def deal(self, state: RochiState, cmd: Command) -> Handled:
        """A card revealed from the deck into its stack: a seed card, the turn's deal, or
        the deal-out for the last player standing."""
        hand = self._hand(state)
        card = check_possible(cmd.args["card"], hand.seen)
        who = cmd.args.get("player")
        events: list[Event] = []
        if hand.phase == "turns":
            if hand.dealt:
                if who == hand.turn:
                    raise IllegalCommand("%(player)s has dealt this turn already; he may play "
                                         "a card or end his turn", player=who)
                # A second card from the deck: the turn has passed to the next player.
                hand, ended = self._turn_over(hand)
                events += ended
            if who is not None:
                self._check_turn(hand, who, "deal")
            hand = _replace(hand, dealt=True, had_turn=hand.had_turn | {hand.turn})
        elif who is not None:
            self._check_turn(hand, who, "deal")
        felt = hand.felt.stacked(card.label)
        hand = _replace(hand, felt=felt, seen=hand.seen + (card.label,), deck=hand.deck - 1)
        data: dict[str, Any] = {"card": card.label, "suit": card.suit,
                                "count": len(felt.stack(card.suit))}
        if hand.phase == "seeding":
            hand = _replace(hand, seeds_left=hand.seeds_left - 1)
            data["seed"] = True
        else:
            data["by"] = hand.turn
        cut = felt.cuts(card.suit) and not felt.is_locked(card.suit)
        owner = felt.owner(card.suit)
        if cut:
            data["cut"] = True
        events.append(Event("dealt", data))
        if cut and owner is not None:
            return self._win(state.replace(hand=hand), card.suit, owner, CUT, events)
        if cut:
            hand = _replace(hand, felt=felt.lock(card.suit))
            events.append(Event("locked", {"suit": card.suit, "by": "seed" if data.get("seed")
                                           else "deal"}))
        if hand.phase == "seeding" and hand.seeds_left == 0:
            hand = _replace(hand, phase="turns", turn=hand.players[0])
            events.append(Event("turn", {"player": hand.turn}))
        if hand.deck == 0:
            return self._no_winner(state.replace(hand=hand), "the deck ran out with no cut",
                                   events)
        if hand.phase == "turns" and hand.played and hand.dealt:
            hand, ended = self._turn_over(hand)
            events += ended
        return state.replace(hand=hand), events

    @command("play", player=str, card=str)
    def play(self, state: RochiState, cmd: Command) -> Handled:
        """A card from the player's hand: it buys the suit's token at the stack's count."""
        hand = self._hand(state)
        player = cmd.args["player"]
        self._check_turn(hand, player, "play")
        if hand.played:
            raise IllegalCommand("%(player)s has played a card this turn already; he may deal "
                                 "or end his turn", player=player)
        if not hand.holding(player):
            raise IllegalCommand("%(player)s has played every card of his hand (%(size)d); he "
                                 "may deal or fold", player=player, size=HAND_SIZE)
        card = check_possible(cmd.args["card"], hand.seen)
        owner = hand.felt.owner(card.suit)
        placed = place(hand.felt, state.ledger, player, card.label)
        i = hand.players.index(player)
        hand = _replace(hand, felt=placed.felt, seen=hand.seen + (card.label,), played=True,
                        had_turn=hand.had_turn | {player},
                        held=hand.held[:i] + (hand.held[i] - 1,) + hand.held[i + 1:])
        event = Event("played", {"player": player, "card": card.label, "suit": card.suit,
                                 "to": placed.to, "shield_of": placed.shield_of,
                                 "price": placed.price, "paid_to": placed.payee,
                                 "from": owner}, placed.entries)
        state = self.post(state, [event])
        events = [event]
        if hand.dealt:
            hand, ended = self._turn_over(hand)
            events += ended
        return state.replace(hand=hand), events

    @command("end-turn", player=str)
    def end_turn(self, state: RochiState, cmd: Command) -> Handled:
        """The player is done; with neither a play nor a deal this turn, he folds."""
        hand = self._hand(state)
        player = cmd.args["player"]
        self._check_turn(hand, player, "end his turn")
        if not (hand.played or hand.dealt):
            return self._fold(state, player)
        hand, events = self._turn_over(hand)
        return state.replace(hand=hand), events

    @command("fold", player=str)
    def fold(self, state: RochiState, cmd: Command) -> Handled:
        """Hand, tokens and shields go back; the player neither wins nor pays this hand."""
        hand = self._hand(state)
        player = cmd.args["player"]
        self._check_turn(hand, player, "fold")
        if hand.played or hand.dealt:
            if hand.played:
                raise IllegalCommand("%(player)s has played this turn, so he does not fold; he "
                                     "may end his turn", player=player)
            raise IllegalCommand("%(player)s has dealt this turn, so he does not fold; he may "
                                 "end his turn", player=player)
        return self._fold(state, player)

    def _fold(self, state: RochiState, player: str) -> Handled:
        hand = state.hand
        assert hand is not None
        i = hand.players.index(player)
        tokens = hand.felt.owned_by(player)
        shields = hand.felt.shields_of(player)
        hand = _replace(hand, folded=hand.folded | {player}, felt=hand.felt.without_player(player),
                        held=hand.held[:i] + (0,) + hand.held[i + 1:])
        events = [Event("folded", {"player": player, "tokens": tokens, "shields": shields})]
        left = hand.still_in()
        if len(left) == 1:
            last = left[0]
            owned = hand.felt.owned_by(last)
            if len(owned) == 1:
                events.append(Event("last-standing", {"player": last, "suits": owned}))
                return self._win(state.replace(hand=hand), owned[0], last, LAST_STANDING,
                                 events)
            if not owned:
                return self._no_winner(state.replace(hand=hand),
                                       f"{last} is the last player standing and owns no suit",
                                       events)
            events.append(Event("last-standing", {"player": last, "suits": owned}))
            hand = _replace(hand, phase="deal-out", turn=None, played=False, dealt=False)
            return state.replace(hand=hand), events
        hand, ended = self._turn_over(hand, events_only_turn=True)
        return state.replace(hand=hand), events + ended

    def _turn_over(self, hand: Hand, events_only_turn: bool = False) -> tuple[Hand, list[Event]]:
        """The turn passes to the next player still in."""
        assert hand.turn is not None
        nxt = hand.next_after(hand.turn)
        events = [] if events_only_turn else [Event("turn-over", {"player": hand.turn})]
        hand = _replace(hand, turn=nxt, played=False, dealt=False)
        return hand, events + [Event("turn", {"player": nxt})]

    # -- the end of a hand -----------------------------------------------------------------------

    def _win(self, state: RochiState, suit: str, winner: str, how: str,
             first: list[Event]) -> Handled:
        hand = state.hand
        assert hand is not None
        events = list(first)
        pot = state.ledger.balance(pot_of(suit))
        if pot:
            events.append(Event("pot-won", {"player": winner, "suit": suit, "pot": pot},
                                (Entry.transfer("pot", pot_of(suit), player_account(winner),
                                                pot, f"pot {suit}"),)))
        payers = [p for p in hand.players
                  if p != winner and p not in hand.folded and p in hand.had_turn]
        state = self.post(state, events[len(first):])
        pen_events, rows = penalty_events(state.ledger, hand.felt, suit, winner, payers)
        state = self.post(state, pen_events)
        events += pen_events
        result = {"result": how, "winner": winner, "suit": suit,
                  "suit_title": ROCHE.suit(suit).title, "pot": pot, "penalties": rows}
        return self._end_hand(state, result, events)

    def _no_winner(self, state: RochiState, why: str, first: list[Event]) -> Handled:
        return self._end_hand(state, {"result": NO_WINNER, "winner": None, "why": why},
                              list(first))

    def _end_hand(self, state: RochiState, result: dict, events: list[Event]) -> Handled:
        hand = state.hand
        assert hand is not None
        division = self._divide(state, hand, result.get("winner")) if hand.last else None
        if division is not None:
            # The Last Hand's division settles from the pots, with no bet: its shares are part
            # of how the hand ended (the page and the end slip show them).
            result = {**result, "shares": division.data["shares"]}
        details = {k: v for k, v in result.items() if k != "result"}
        events.append(RoundEnded(result["result"], hand.players[0],
                                 {**details, "players": list(hand.players),
                                  "folded": sorted(hand.folded)}).event())
        if division is not None:
            state = self.post(state, [division])
            events.append(division)
        leader = _seat_after(state.seats, state.seats, hand.players[0])
        events.append(Event("button", {"leader": leader}))
        return state.replace(hand=None, leader=leader, rounds=state.rounds + 1,
                             last_hand=False if hand.last else state.last_hand,
                             last_result=settlement(result)), events

    def _divide(self, state: RochiState, hand: Hand, winner: str | None) -> Event:
        """The Last Hand: every pot combined and divided among all the hand's players; the
        odd coins to the winner (none: one each from the leader round to the left)."""
        in_pots = {s: c for s, c in pots(state.ledger).items() if c}
        total = sum(in_pots.values())
        players = hand.players
        share, odd = divmod(total, len(players))
        gets = {p: share for p in players}
        if winner is not None:
            gets[winner] += odd
        else:
            for p in players[:odd]:
                gets[p] += 1
        legs = [(pot_of(s), -c) for s, c in in_pots.items()]
        legs += [(player_account(p), c) for p, c in gets.items() if c]
        entries = (Entry("pot", tuple(legs), "last hand"),) if total else ()
        return Event("pots-divided", {"total": total, "shares": gets, "odd_to": winner
                                      if winner else list(players[:odd])}, entries)

    # -- views and play --------------------------------------------------------------------------

    def read(self, state: RochiState, observation, min_confidence: float = 0.9) -> Reading:
        """The new card on the felt as a command: a seed card or the deal-out's deal, or in
        a turn a deal once the player has played; whether a card in a turn was played or
        dealt is otherwise the banker's to say."""
        hand = state.hand
        if hand is None:
            return Reading(problems=("no hand is under way: start a hand, then the seed cards "
                                     "are read",))
        new, looking = new_cards(observation, hand.seen, min_confidence)
        if looking:
            return looking
        if not new:
            return Reading(problems=("no new card on the table",))
        if hand.phase == "seeding":
            if len(new) > hand.seeds_left:
                return Reading(problems=(f"{len(new)} new cards; {hand.seeds_left} seed cards "
                                         "are still to come",), faces={"new": ", ".join(new)})
            return try_reading(self, state, [Command("deal", {"card": c}) for c in new], new)
        if len(new) > 1:
            return Reading(problems=(f"{len(new)} new cards ({', '.join(new)}): a turn "
                                     "brings one at a time; enter them by hand",),
                           faces={"new": ", ".join(new)})
        if hand.phase == "deal-out" or (hand.played and not hand.dealt):
            return try_reading(self, state, [Command("deal", {"card": new[0]})], new)
        return Reading(problems=(f"{new[0]} came up in {hand.turn}'s turn: did he play it "
                                 "or deal it? Choose on the page",),
                       faces={"new": new[0]})

    def light(self, state: RochiState, events: tuple[Event, ...]) -> str:
        for event in events:
            if event.kind == "round-ended":
                return "loss" if event.data["result"] == NO_WINNER else "win"
        return super().light(state, events)

    def view(self, state: RochiState) -> dict:
        out = super().view(state)
        hand = state.hand
        in_pots = pots(state.ledger)
        felt = hand.felt if hand else Felt()
        seen = hand.seen if hand else ()
        out.update(
            leader=state.leader,
            last_hand=state.last_hand,
            owed=dict(state.owed),
            markers=dict(state.markers),
            pots=in_pots,
            suits=[felt.suit_view(s, seen, in_pots[s]) for s in SUITS],
            last_result=dict(state.last_result) if state.last_result else None,
            hand=None,
        )
        if hand:
            out["hand"] = {
                "phase": hand.phase,
                "players": list(hand.players),
                "turn": hand.turn,
                "played": hand.played,
                "dealt": hand.dealt,
                "seeds_left": hand.seeds_left,
                "deck": hand.deck,
                "held": dict(zip(hand.players, hand.held, strict=True)),
                "folded": sorted(hand.folded),
                "had_turn": sorted(hand.had_turn),
                "shields": {p: hand.felt.shields_of(p) for p in hand.players},
                "last": hand.last,
            }
        return out

    def unseen(self, state: RochiState) -> list[str]:
        """Cards not yet seen this hand: in hands or in the deck."""
        seen = set(state.hand.seen) if state.hand else set()
        return [c.label for c in ROCHE.cards if c.label not in seen]

    def chance_step(self, state: RochiState, rng: random.Random) -> Command:
        """The next card from a shuffled deck: one of the cards not yet seen."""
        return Command("deal", {"card": rng.choice(self.unseen(state))})

    def demo_throw(self, state: RochiState, rng: random.Random
                   ) -> tuple[list[str], list[str]] | None:
        """For a deck: the next card dealt, and the cards face up on the felt; None
        before a hand starts."""
        if state.hand is None:
            return None
        return [self.chance_step(state, rng).args["card"]], state.hand.felt.cards()

    def random_command(self, state: RochiState, rng: random.Random) -> Command:
        hand = state.hand
        if hand is None:
            owing = [p for p in state.seats if state.owes(p)]
            if owing:
                p = owing[0]
                if state.ledger.balance(player_account(p)) < state.owes(p):
                    return Command("buy-in", {"player": p, "amount": state.owes(p)})
                return Command("pay-entry", {"player": p,
                                             "pots": {rng.choice(SUITS): state.owes(p)}})
            r = rng.random()
            if r < 0.03 and state.seats:
                return Command("buy-in", {"player": rng.choice(state.seats),
                                          "amount": rng.randint(1, 50)})
            if r < 0.05:
                return Command("last-hand", {})
            return Command("start-hand", {})
        if hand.phase != "turns":
            return self.chance_step(state, rng)
        p = hand.turn
        r = rng.random()
        if not (hand.played or hand.dealt) and r < 0.08:
            return Command("fold", {"player": p})
        if not hand.played and hand.holding(p) and r < 0.6:
            open_cards = [c for c in self.unseen(state)
                          if not hand.felt.is_locked(card_of(c).suit)]
            if open_cards:
                return Command("play", {"player": p, "card": rng.choice(open_cards)})
        if not hand.dealt and r < 0.9:
            return Command("deal", {"card": rng.choice(self.unseen(state)), "player": p})
        return Command("end-turn", {"player": p})


#: The odds report's rows ("first-cut-kin") in words.
CUTS_FIRST = {f"first-cut-{s.key}": phrase(N_("%(suit)s cut first"), suit=Name(s.title))[1]
              for s in ROCHE.suits}

MODE = Mode(
    engine=Rochi(),
    equipment="roche",
    odds_ref="controller.odds.rochi:odds",
    odds_text_ref="controller.odds.rochi:odds_text",
    simulate_ref="controller.odds.rochi:simulate",
    strategies=("deal-only", "random"),
    page_ref="web.modes.rochi:ROCHI_PAGE",
    result_words=RESULT_WORDS,
    receipts=("round-slip",),
    bet_words=CUTS_FIRST,
)
