"""The Roche decks as data: one file each under equipment/, read by the rules, the recognizer and
the dashboard (seeds/rochi-roche-rugen.md).

  roche              the printed deck: 54 distinct cards, a name each (Rochi, Roche)
  poker-roche-deck   the Roche deck built from four poker decks (RULINGS.md): ranks 2-7, red
                     cards Day, black Night, a card as many times as the four decks give it

Six suits, each twice its rank in cards (Mages 4 ... Commons 14), half Day and half Night; a
suit cuts when `rank` of its cards are out. A printed card's label reads
`SUIT-RANK-DAY|NIGHT-NN` (`KIN-6-DAY-03`), a poker card's `7H`, as the recognizer names them.
A file: {"name", "kind": "deck", "title", "distinct", "suits": [{"key", "suit", "rank"}],
"cards": [{"label", "suit" (the suit's title), "rank", "half", "name", "copies" (default 1)}]}.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

import equipment
from controller.errors import IllegalCommand

#: The decks a Roche table may deal (its `deck` setting) and their files under equipment/.
DECK_FILES = {"roche": "roche", "poker": "poker-roche-deck"}


@dataclass(frozen=True)
class Suit:
    """A suit of the Roche deck; it cuts when `rank` of its `2 * rank` cards are out."""

    key: str
    title: str
    rank: int

    @property
    def size(self) -> int:
        return 2 * self.rank

    @property
    def cut(self) -> int:
        """Cards in the stack that cut the suit (half the suit)."""
        return self.rank


@dataclass(frozen=True)
class Card:
    """One card (or one kind of card, on a deck with copies): label, suit key, rank, Day/Night."""

    label: str
    suit: str
    rank: int
    half: str
    name: str
    copies: int = 1

    def to_json(self) -> dict:
        return {"label": self.label, "suit": self.suit, "rank": self.rank, "half": self.half,
                "name": self.name}


@dataclass(frozen=True)
class Deck:
    """A Roche deck: its suits (by rank), its cards (with copies), distinct or not."""

    name: str
    title: str
    distinct: bool
    suits: tuple[Suit, ...]
    cards: tuple[Card, ...]

    @property
    def size(self) -> int:
        return sum(c.copies for c in self.cards)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.cards)

    @property
    def suit_names(self) -> Mapping[int, str]:
        """The suits' titles by rank."""
        return MappingProxyType({s.rank: s.title for s in self.suits})

    def card(self, label: object) -> Card:
        """The card called `label` (any case), or IllegalCommand saying what the deck holds."""
        text = label.strip().upper() if isinstance(label, str) else None
        found = _index(self.name).get(text) if text is not None else None
        if found is None:
            raise IllegalCommand(
                "%(label)s is not a card of the Roche deck dealt here (%(deck)s); its cards "
                "are labelled like %(first)s or %(last)s", label=repr(label), deck=self.title,
                first=self.cards[0].label, last=self.cards[-1].label)
        return found

    def suit(self, key: object) -> Suit:
        """The suit called `key` (mages, realm, world, valor, kin, commons)."""
        for suit in self.suits:
            if key == suit.key:
                return suit
        raise IllegalCommand("%(suit)s is not a suit: one of %(suits)s", suit=repr(key),
                             suits=[s.key for s in self.suits])

    def index(self, key: str) -> int:
        return [s.key for s in self.suits].index(key)

    def of_suit(self, key: str) -> tuple[str, ...]:
        return tuple(c.label for c in self.cards if c.suit == key)

    def of_rank(self, rank: int) -> tuple[Card, ...]:
        return tuple(c for c in self.cards if c.rank == rank)


@cache
def load(name: str = "roche") -> Deck:
    """The deck in equipment/NAME.json; ValueError when the file is not a Roche deck."""
    data = equipment.load(name)
    if data["kind"] != "deck":
        raise ValueError(f"equipment/{name}.json is {data['kind']}, not a deck")
    suits = tuple(Suit(s["key"], s["suit"], s["rank"]) for s in data["suits"])
    keys = {s.title: s.key for s in suits}
    cards = tuple(Card(c["label"], keys[c["suit"]], c["rank"], c["half"], c["name"],
                       c.get("copies", 1)) for c in data["cards"])
    deck = Deck(name, data["title"], data.get("distinct", True), suits, cards)
    for suit in suits:
        halves = Counter(c.half for c in cards if c.suit == suit.key for _ in range(c.copies))
        if halves != {"day": suit.rank, "night": suit.rank}:
            raise ValueError(f"equipment/{name}.json: {suit.title} should have {suit.rank} Day "
                             f"and {suit.rank} Night cards, not {dict(halves)}")
    if deck.distinct and len(set(deck.labels)) != deck.size:
        raise ValueError(f"equipment/{name}.json says distinct but repeats a card")
    return deck


@cache
def _index(name: str) -> Mapping[str, Card]:
    return MappingProxyType({c.label: c for c in load(name).cards})


def load_deck(setting: str) -> Deck:
    """The deck a table's `deck` setting names ("roche": printed; "poker": four poker decks)."""
    return load(DECK_FILES[setting])


ROCHE = load()
