"""Roche and Grand Roche: house bets on which suit of the Roche deck cuts first.

The house shuffles, players bet on the layout, the dealer calls "no more bets", may burn cards
face down, then reveals cards one by one into their suits' piles until one suit is cut (half of
it shown). Every bet is then paid or collected by the house (seeds/rochi-roche-rugen.md, Roche).

Bets (text form `KIND:WHAT`, e.g. "cut:6", "single:KIN-6-DAY-03"):
  cut:R        suit R cuts (R = 2..7, the suit's rank: Mages 2 .. Commons 7)
  day:R        suit R cuts and every card of its cut is Day      (night:R: Night)
Grand Roche adds:
  single:CARD  the card's suit cuts and the card is in the cut
  oscura:CARD  the card's suit cuts and the card is not in it
  terminus:CARD the card's suit cuts and the card is the one that cuts it (dealt last)
  starlight:R  the deal ends before any card of suit R is shown
  cavalry      every suit one card from cutting (the 21st card) before the cut

The decks are data, read by controller/games/roche_deck.py (`equipment/roche.json`: the
printed deck of 54 distinct cards, the one Rochi deals too; `equipment/poker-roche-deck.json`:
the deck built from four poker decks). Card-level bets need
the printed deck. Rulings beyond the seed and RULINGS.md: docs/rules/roche.md.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from controller.errors import IllegalCommand
from controller.games import limits
from controller.games.base import (
    Arg,
    Command,
    Engine,
    Event,
    Pays,
    RoundEnded,
    State,
    command,
    pays_setting,
)
from controller.games.observation import Observation, Reading
from controller.games.roche_deck import DECK_FILES, ROCHE, Card, Deck, load_deck
from controller.modes import Mode
from controller.odds.roche import bet_chance, default_pays, edge
from controller.settings import N_, Name, Setting, phrase

DECKS = tuple(DECK_FILES)
RANKS = (2, 3, 4, 5, 6, 7)
#: The suits' names by rank, from the printed deck.
SUIT_NAMES: Mapping[int, str] = ROCHE.suit_names

# -- bets -------------------------------------------------------------------------------------

SUIT_BETS = ("cut", "day", "night")
CARD_BETS = ("single", "oscura", "terminus")
GRAND_BETS = (*CARD_BETS, "starlight", "cavalry")
BET_NAMES = {
    "cut": "suit-to-cut bet", "day": "Day bet", "night": "Night bet",
    "single": "Single Card bet", "oscura": "Oscura bet", "terminus": "Terminus bet",
    "starlight": "Starlight bet", "cavalry": "Cavalry bet",
}


def suit_words(rank: int) -> Name:
    """A suit as the table names it: its name and rank, "Kin (6s)" (a name in every language)."""
    return Name(f"{SUIT_NAMES[rank]} ({rank}s)")


#: The seed's pays: suit to cut (X:1 or X:2) and Day/Night (X:1), by rank.
CUT_PAYS = {2: "2:1", 3: "7:2", 4: "5:1", 5: "13:2", 6: "8:1", 7: "10:1"}
DAY_NIGHT_PAYS = {2: "15:1", 3: "75:1", 4: "300:1", 5: "1200:1", 6: "4000:1", 7: "10000:1"}
#: RULINGS.md: Cavalry and Starlight leave the house at least this edge.
LEAST_EDGE = Fraction(5, 100)
#: The most cards a dealer may burn before the deal.
MAX_BURNS = 5


@dataclass(frozen=True)
class Bet:
    """A bet on the layout, parsed from its text ("cut:6", "single:KIN-6-DAY-03", "cavalry")."""

    kind: str
    rank: int | None = None
    card: str | None = None

    @property
    def id(self) -> str:
        if self.kind == "cavalry":
            return "cavalry"
        return f"{self.kind}:{self.card or self.rank}"

    @property
    def spot(self) -> str:
        """Its ledger spot: the id in lower case, ':' as '.'."""
        return self.id.lower().replace(":", ".")

    @property
    def setting(self) -> str:
        """The setting holding its pay."""
        return "cavalry_pays" if self.kind == "cavalry" else f"{self.kind}_{self.rank}_pays"

    @classmethod
    def parse(cls, text: object, deck: Deck | None = None) -> Bet:
        """The bet `text` names; raises IllegalCommand with the forms accepted."""
        kind, _, what = (text.strip().replace(".", ":", 1).partition(":")
                         if isinstance(text, str) else ("", "", ""))
        kind = kind.lower()
        if kind == "cavalry" and not what:
            return cls("cavalry")
        if kind in (*SUIT_BETS, "starlight"):
            if what.isdigit() and int(what) in RANKS:
                return cls(kind, int(what))
            raise IllegalCommand("%(text)s: a %(bet)s names a suit by its rank, 2 (Mages) to 7 "
                                 "(Commons), e.g. %(example)s", text=repr(text),
                                 bet=BET_NAMES[kind], example=f"{kind}:6")
        if kind in CARD_BETS:
            card = (deck or load_deck("roche")).card(what)
            return cls(kind, card.rank, card.label)
        raise IllegalCommand("%(text)s is not a bet: a bet is cut:R, day:R or night:R (R = "
                             "2..7), single:CARD, oscura:CARD, terminus:CARD, starlight:R or "
                             "cavalry", text=repr(text))


@dataclass(frozen=True)
class Cut:
    """How a deal ended: the suit cut, the cards of it shown, the last card, and the deal."""

    rank: int
    cards: tuple[str, ...]
    dealt: tuple[str, ...]
    burned: int = 0

    @property
    def last(self) -> str:
        return self.dealt[-1]

    @property
    def cavalry(self) -> bool:
        """Every suit stood one card from cutting: 21 cards shown without a cut."""
        return len(self.dealt) == sum(r - 1 for r in RANKS) + 1

    def to_json(self, deck: Deck) -> dict:
        halves = {deck.card(c).half for c in self.cards}
        return {"rank": self.rank, "suit": SUIT_NAMES[self.rank], "cards": list(self.cards),
                "last": self.last, "dealt": len(self.dealt), "burned": self.burned,
                "all": halves.pop() if len(halves) == 1 else None, "cavalry": self.cavalry}


def bet_wins(bet: Bet, cut: Cut, deck: Deck) -> bool:
    """True when `bet` wins on the deal that ended with `cut`."""
    if bet.kind == "cavalry":
        return cut.cavalry
    if bet.kind == "starlight":
        return not any(deck.card(c).rank == bet.rank for c in cut.dealt)
    if bet.rank != cut.rank:
        return False
    if bet.kind == "cut":
        return True
    if bet.kind in ("day", "night"):
        return all(deck.card(c).half == bet.kind for c in cut.cards)
    if bet.kind == "single":
        return bet.card in cut.cards
    if bet.kind == "oscura":
        return bet.card not in cut.cards
    if bet.kind == "terminus":
        return bet.card == cut.last
    raise ValueError(bet.kind)


# -- pays -------------------------------------------------------------------------------------


def _computed_pays() -> dict[str, str]:
    """The default pays of the bets the seed leaves unpriced (RULINGS.md): the largest whole
    X:1 leaving the house at least the edge of the same suit's cut bet at the seed's pay
    (Cavalry and Starlight: at least 5%), from the exact chances."""
    out = {}
    for rank in RANKS:
        cut_edge = edge(bet_chance("cut", rank), Pays.parse(CUT_PAYS[rank]).ratio)
        for kind in CARD_BETS:
            out[f"{kind}_{rank}_pays"] = f"{default_pays(bet_chance(kind, rank), cut_edge)}:1"
        out[f"starlight_{rank}_pays"] = (
            f"{default_pays(bet_chance('starlight', rank), LEAST_EDGE)}:1")
    out["cavalry_pays"] = f"{default_pays(bet_chance('cavalry'), LEAST_EDGE)}:1"
    return out


COMPUTED_PAYS: Mapping[str, str] = MappingProxyType(_computed_pays())


def pays_of(settings: Mapping[str, Any], bet: Bet) -> Pays:
    return Pays.parse(settings[bet.setting])


# -- the state --------------------------------------------------------------------------------

BETTING, DEALING = "betting", "dealing"


@dataclass(frozen=True, kw_only=True)
class RocheState(State):
    """The layout: betting until "no more bets", then the deal until a suit cuts."""

    phase: str = BETTING
    #: Cards shown in this deal, in order.
    dealt: tuple[str, ...] = ()
    #: Cards burned face down before this deal.
    burned: int = 0
    #: How the last deal ended (its JSON), for the screens.
    last_cut: Mapping[str, Any] | None = None

    def counts(self, deck: Deck) -> dict[int, int]:
        """Cards shown of each suit, by rank."""
        out = dict.fromkeys(RANKS, 0)
        for label in self.dealt:
            out[deck.card(label).rank] += 1
        return out


Handled = tuple[State, list[Event]]


class Roche(Engine):
    name = "roche"
    title = "Roche"
    state_type = RocheState
    chance_kinds = frozenset({"deal"})
    #: The cut comes by the 22nd card (21 can be shown without one).
    round_bound = sum(r - 1 for r in RANKS) + 1
    kinds: tuple[str, ...] = SUIT_BETS
    settings = (
        Setting("deck", "roche", "the deck dealt: the printed Roche deck, or the Roche deck "
                "built from four poker decks (red Day, black Night)", choices=DECKS),
        Setting("max_burns", 1, "cards the dealer may burn face down before a deal",
                minimum=0, maximum=MAX_BURNS),
        *(pays_setting(f"cut_{r}_pays", CUT_PAYS[r],
                       *phrase(N_("pay of %(suit)s to cut"), suit=suit_words(r)))
          for r in RANKS),
        *(pays_setting(f"{h}_{r}_pays", DAY_NIGHT_PAYS[r],
                       *phrase(N_("pay of %(suit)s to cut all %(half)s"), suit=suit_words(r),
                               half=h.title()))
          for h in ("day", "night") for r in RANKS),
        *limits.limit_settings({k: BET_NAMES[k] for k in SUIT_BETS}),
    )

    def deck(self, state: State) -> Deck:
        return load_deck(state.settings["deck"])

    def in_round(self, state: RocheState) -> bool:
        return state.phase == DEALING

    # -- checks ---------------------------------------------------------------------------------

    def parse_bet(self, state: RocheState, text: object) -> Bet:
        """The bet `text` names at this table, or why this table does not take it."""
        deck = self.deck(state)
        try:
            bet = Bet.parse(text, deck)
        except IllegalCommand:
            # A card bet names a printed card; say so on a poker deck rather than "no such card".
            kind = str(text).partition(":")[0].lower() if isinstance(text, str) else ""
            if kind in CARD_BETS and not deck.distinct and kind in self.kinds:
                raise self._needs_printed(kind) from None
            raise
        if bet.kind not in self.kinds:
            raise IllegalCommand("a %(bet)s is a Grand Roche bet; this %(layout)s layout takes "
                                 "%(kinds)s", bet=BET_NAMES[bet.kind], layout=self.title,
                                 kinds=[f"{k}:R" for k in self.kinds])
        if bet.kind in CARD_BETS and not deck.distinct:
            raise self._needs_printed(bet.kind)
        return bet

    @staticmethod
    def _needs_printed(kind: str) -> IllegalCommand:
        return IllegalCommand("a %(bet)s names one card and needs the printed Roche deck, whose "
                              "54 cards are distinct; this table deals four poker decks (deck = "
                              "'poker'), where cut, Day, Night, Starlight and Cavalry bets are "
                              "taken", bet=BET_NAMES[kind])

    def stake_unit(self, state: State, bet: Bet) -> int:
        return pays_of(state.settings, bet).unit

    # -- commands -------------------------------------------------------------------------------

    @command("bet", player=str, bet=str, amount=Arg(int, minimum=1))
    def bet(self, state: RocheState, cmd: Command) -> Handled:
        player, amount = cmd.args["player"], cmd.args["amount"]
        self.seated(state, player)
        if state.phase != BETTING:
            raise IllegalCommand("no more bets: the deal is under way; bets open again when a "
                                 "suit cuts")
        bet = self.parse_bet(state, cmd.args["bet"])
        name = BET_NAMES[bet.kind]
        unit = self.stake_unit(state, bet)
        if amount % unit:
            raise IllegalCommand("a %(bet)s on %(spot)s pays %(pays)s, so its stake is a "
                                 "multiple of %(unit)s coins, not %(amount)s", bet=name,
                                 spot=bet.id, pays=str(pays_of(state.settings, bet)), unit=unit,
                                 amount=amount)
        self.check_on_spot(state, player, bet.spot, bet.id, bet.kind, amount, name)
        event = Event("bet-placed", {"player": player, "bet": bet.id, "amount": amount,
                                     "pays": str(pays_of(state.settings, bet))},
                      (self.stake(player, bet.spot, amount),))
        return self.post(state, [event]), [event]

    @command("no-more-bets")
    def no_more_bets(self, state: RocheState, cmd: Command) -> Handled:
        if state.phase != BETTING:
            raise IllegalCommand("no more bets is already called; deal the cards")
        return state.replace(phase=DEALING), [Event("no-more-bets", {
            "bets": len(state.ledger.accounts("bet"))})]

    @command("burn", cards=Arg(int, optional=True, minimum=1))
    def burn(self, state: RocheState, cmd: Command) -> Handled:
        n = cmd.args.get("cards", 1)
        most = state.settings["max_burns"]
        if state.phase != DEALING:
            raise IllegalCommand("cards are burned after no more bets, before the deal")
        if state.dealt:
            raise IllegalCommand("cards are burned before the deal; the deal has begun")
        if state.burned + n > most:
            raise IllegalCommand("cards burned before a deal: at most %(most)s at this house, "
                                 "%(burned)s so far", most=most, burned=state.burned)
        return state.replace(burned=state.burned + n), [Event("burned", {"cards": n})]

    @command("deal", card=str)
    def deal(self, state: RocheState, cmd: Command) -> Handled:
        if state.phase != DEALING:
            raise IllegalCommand("the dealer calls no more bets before dealing the first card")
        deck = self.deck(state)
        card = deck.card(cmd.args["card"])
        shown = state.dealt.count(card.label)
        if shown >= card.copies:
            if card.copies == 1:
                raise IllegalCommand("%(card)s (%(name)s) cannot be in the deck: it is already "
                                     "dealt in this deal", card=card.label, name=card.name)
            raise IllegalCommand("%(card)s (%(name)s) cannot be in the deck: all %(copies)s "
                                 "copies are already dealt in this deal", card=card.label,
                                 name=card.name, copies=card.copies)
        dealt = state.dealt + (card.label,)
        counts = state.replace(dealt=dealt).counts(deck)
        shown_event = Event("dealt", {"card": card.label, "name": card.name,
                                      "suit": SUIT_NAMES[card.rank], "rank": card.rank,
                                      "half": card.half, "count": counts[card.rank]})
        state = state.replace(dealt=dealt)
        if counts[card.rank] < card.rank:
            return state, [shown_event]
        cut = Cut(card.rank, tuple(c for c in dealt if deck.card(c).rank == card.rank), dealt,
                  state.burned)
        return self._settle(state, cut, [shown_event])

    def _settle(self, state: RocheState, cut: Cut, first: list[Event]) -> Handled:
        deck = self.deck(state)
        events = list(first)
        for account in sorted(state.ledger.accounts("bet")):
            _, player, spot = account.split(":")
            bet = Bet.parse(spot, deck)
            if bet_wins(bet, cut, deck):
                stake = state.ledger.balance(account)
                events.append(self.settle(state.ledger, player, spot, "win",
                                          pays_of(state.settings, bet).winnings(stake)))
            else:
                events.append(self.settle(state.ledger, player, spot, "lose"))
        state = self.post(state, events[len(first):])
        outcome = cut.to_json(deck)
        events.append(RoundEnded("cut", None, outcome).event())
        return state.replace(phase=BETTING, dealt=(), burned=0, last_cut=MappingProxyType(outcome),
                             rounds=state.rounds + 1), events

    @command("configure", settings=dict)
    def configure(self, state: RocheState, cmd: Command) -> Handled:
        if state.ledger.accounts("bet"):
            raise IllegalCommand("settings change when no bets lie on the layout; wait for the "
                                 "cut")
        return Engine._configure(self, state, cmd)

    # -- views and play -------------------------------------------------------------------------

    def read(self, state: RocheState, observation: Observation,
             min_confidence: float = 0.9) -> Reading:
        """A newly dealt card (the one object on the felt not yet dealt) as a deal command."""
        deck = self.deck(state)
        problems: list[str] = []
        uncertain: list[int] = []
        new: list[str] = []
        seen = Counter()
        for index, obj in enumerate(observation.objects):
            if obj.kind not in ("die", "card"):
                problems.append("something that is not a card is on the felt (a hand?)")
                continue
            if obj.label is None or obj.confidence < min_confidence:
                uncertain.append(index)
                continue
            try:
                label = deck.card(obj.label).label
            except IllegalCommand as exc:
                problems.append(str(exc))
                continue
            seen[label] += 1
            if seen[label] > state.dealt.count(label):
                new.append(label)
        if problems or uncertain:
            return Reading(problems=tuple(problems), uncertain=tuple(uncertain))
        if len(new) != 1:
            return Reading(problems=(f"{len(new)} new cards on the felt; one card is dealt at a "
                                     "time",))
        commands = ([Command("no-more-bets")] if state.phase == BETTING else [])
        commands.append(Command("deal", {"card": new[0]}))
        trial: State = state
        for c in commands:
            try:
                trial, _ = self.apply(trial, c)
            except IllegalCommand as exc:
                return Reading(problems=(str(exc),))
        return Reading(tuple(commands), faces={"card": new[0]})

    def light(self, state: RocheState, events: tuple[Event, ...]) -> str:
        for event in events:
            if event.kind == "round-ended":
                won = any(e.kind == "bet-settled" and e.data["result"] == "win" for e in events)
                return "win" if won else "loss"
        if state.seats and state.phase == DEALING:
            return "rolling"
        return super().light(state, events)

    def view(self, state: RocheState) -> dict:
        out = super().view(state)
        deck = self.deck(state)
        bets: dict[str, dict[str, int]] = {}
        for account, stake in sorted(state.ledger.accounts("bet").items()):
            _, player, spot = account.split(":")
            bets.setdefault(player, {})[Bet.parse(spot, deck).id] = stake
        counts = state.counts(deck)
        out.update(
            phase=state.phase, deck=deck.name, deck_title=deck.title,
            dealt=[deck.card(c).to_json() for c in state.dealt], burned=state.burned,
            suits=[{"rank": r, "name": SUIT_NAMES[r], "shown": counts[r], "cut_at": r,
                    "ripe": counts[r] == r - 1} for r in RANKS],
            bets=bets, bet_kinds=[k for k in self.kinds
                                  if k not in CARD_BETS or deck.distinct],
            pays={k: v for k, v in state.settings.items() if k.endswith("_pays")},
            last_cut=dict(state.last_cut) if state.last_cut else None,
        )
        return out

    def left_in_deck(self, state: RocheState) -> list[Card]:
        """Each card that may still come, once per copy left."""
        deck = self.deck(state)
        used = Counter(state.dealt)
        return [c for c in deck.cards for _ in range(c.copies - used[c.label])]

    def chance_step(self, state: RocheState, rng: random.Random) -> Command:
        """The next card of a shuffled deck: any card left, each copy alike."""
        return Command("deal", {"card": rng.choice(self.left_in_deck(state)).label})

    def demo_throw(self, state: RocheState, rng: random.Random
                   ) -> tuple[list[str], list[str]]:
        """For a deck: the next card dealt, and the cards already face up on the felt."""
        return [self.chance_step(state, rng).args["card"]], list(state.dealt)

    def random_command(self, state: RocheState, rng: random.Random) -> Command:
        if not state.seats:
            return Command("join", {"player": f"P{rng.randint(1, 9)}"})
        if state.phase == DEALING:
            if not state.dealt and rng.random() < 0.1:
                return Command("burn", {"cards": 1})
            return self.chance_step(state, rng)
        r = rng.random()
        if r < 0.03:
            return Command("buy-in", {"player": rng.choice(state.seats),
                                      "amount": rng.randint(1, 50)})
        if r < 0.05:
            return Command("cash-out", {"player": rng.choice(state.seats),
                                        "amount": rng.randint(1, 5)})
        if r < 0.7:
            return Command("bet", self.random_bet(state, rng))
        return Command("no-more-bets")

    def bet_choices(self, state: RocheState) -> list[Bet]:
        """Every bet this layout takes."""
        deck = self.deck(state)
        out = [Bet(k, r) for k in SUIT_BETS for r in RANKS]
        if "starlight" in self.kinds:
            out += [Bet("starlight", r) for r in RANKS] + [Bet("cavalry")]
        if "single" in self.kinds and deck.distinct:
            out += [Bet(k, c.rank, c.label) for k in CARD_BETS for c in deck.cards]
        return out

    def random_bet(self, state: RocheState, rng: random.Random) -> dict:
        player = rng.choice(state.seats)
        bet = rng.choice(self.bet_choices(state))
        unit = self.stake_unit(state, bet)
        least = limits.smallest_stake(state.settings, bet.kind, unit) or unit
        return {"player": player, "bet": bet.id, "amount": least + unit * rng.randint(0, 5)}


class GrandRoche(Roche):
    name = "grand-roche"
    title = "Grand Roche"
    kinds = (*SUIT_BETS, *GRAND_BETS)
    settings = (
        *Roche.settings[:-2 * len(SUIT_BETS)],
        *(pays_setting(f"{k}_{r}_pays", COMPUTED_PAYS[f"{k}_{r}_pays"],
                       *phrase(N_("pay of a %(bet)s on a card of %(suit)s; the default is "
                                  "computed from its exact chance (RULINGS.md)"),
                               bet=BET_NAMES[k], suit=suit_words(r)))
          for k in CARD_BETS for r in RANKS),
        *(pays_setting(f"starlight_{r}_pays", COMPUTED_PAYS[f"starlight_{r}_pays"],
                       *phrase(N_("pay of Starlight on %(suit)s; computed default"),
                               suit=suit_words(r)))
          for r in RANKS),
        pays_setting("cavalry_pays", COMPUTED_PAYS["cavalry_pays"],
                     "pay of Cavalry; computed default"),
        *limits.limit_settings({k: BET_NAMES[k] for k in (*SUIT_BETS, *GRAND_BETS)}),
    )


RESULT_WORDS = {"cut": "a suit is cut"}


def _bet_words() -> dict:
    """Every spot of the layout (the ledger's names, "cut.3") in words, for the settlement, the
    journal and the slips; and the odds report's "single:3", a bet on one card of a suit."""
    out: dict = {"cavalry": N_("Cavalry")}
    for rank in RANKS:
        suit = suit_words(rank)
        out[Bet("cut", rank).spot] = phrase(N_("%(suit)s to cut"), suit=suit)[1]
        out[Bet("day", rank).spot] = phrase(N_("%(suit)s all Day"), suit=suit)[1]
        out[Bet("night", rank).spot] = phrase(N_("%(suit)s all Night"), suit=suit)[1]
        out[Bet("starlight", rank).spot] = phrase(N_("Starlight on %(suit)s"), suit=suit)[1]
        for kind in CARD_BETS:
            out[f"{kind}.{rank}"] = phrase(N_("%(bet)s on a card of %(suit)s"),
                                           bet=BET_NAMES[kind], suit=suit)[1]
    for card in load_deck("roche").cards:
        for kind in CARD_BETS:
            out[Bet(kind, card.rank, card.label).spot] = phrase(
                N_("%(bet)s: %(card)s"), bet=BET_NAMES[kind], card=Name(card.label))[1]
    return out


BET_WORDS: Mapping[str, Any] = MappingProxyType(_bet_words())

MODE = Mode(
    engine=Roche(),
    equipment="roche",
    odds_ref="controller.odds.roche:odds_roche",
    odds_text_ref="controller.odds.roche:odds_text",
    simulate_ref="controller.odds.roche:simulate_roche",
    page_ref="web.modes.roche:PAGE",
    result_words=RESULT_WORDS,
    bet_words=BET_WORDS,
    decks=DECK_FILES,
    deck_setting="deck",
)

GRAND_MODE = Mode(
    engine=GrandRoche(),
    equipment="roche",
    odds_ref="controller.odds.roche:odds_grand_roche",
    odds_text_ref="controller.odds.roche:odds_text",
    simulate_ref="controller.odds.roche:simulate_grand_roche",
    page_ref="web.modes.roche:GRAND_PAGE",
    result_words=RESULT_WORDS,
    bet_words=BET_WORDS,
    decks=DECK_FILES,
    deck_setting="deck",
)
