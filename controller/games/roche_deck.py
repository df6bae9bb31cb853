"""The printed Roche deck as data (equipment/roche.json): six suits, 54 distinct cards.

Suit sizes are twice their rank (Mages 4 ... Commons 14); each suit is half Day, half Night.
A card's label reads `SUIT-RANK-DAY|NIGHT-NN`, e.g. `KIN-6-DAY-03`, as the recognizer names it.
"""

from __future__ import annotations

from dataclasses import dataclass

import equipment
from controller.errors import IllegalCommand


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
    label: str
    suit: str
    rank: int
    half: str
    name: str


@dataclass(frozen=True)
class Deck:
    name: str
    suits: tuple[Suit, ...]
    cards: tuple[Card, ...]

    def card(self, label: object) -> Card:
        """The card labelled `label`, or IllegalCommand saying what a label looks like."""
        found = self._by_label.get(label) if isinstance(label, str) else None
        if found is None:
            raise IllegalCommand(
                f"{label!r} is not a card of the Roche deck: a card is SUIT-RANK-DAY|NIGHT-NN "
                f"with SUIT one of {', '.join(s.key.upper() for s in self.suits)}, "
                "e.g. 'KIN-6-DAY-03'")
        return found

    def suit(self, key: object) -> Suit:
        """The suit called `key` (mages, realm, world, valor, kin, commons)."""
        for suit in self.suits:
            if key == suit.key:
                return suit
        raise IllegalCommand(f"{key!r} is not a suit: one of "
                             + ", ".join(s.key for s in self.suits))

    def index(self, key: str) -> int:
        return [s.key for s in self.suits].index(key)

    def of_suit(self, key: str) -> tuple[str, ...]:
        return tuple(c.label for c in self.cards if c.suit == key)

    @property
    def _by_label(self) -> dict[str, Card]:
        return _LABELS[self.name]


_LABELS: dict[str, dict[str, Card]] = {}


def load(name: str = "roche") -> Deck:
    """The deck `name` from equipment/NAME.json."""
    data = equipment.load(name)
    if data["kind"] != "deck":
        raise ValueError(f"equipment/{name}.json is {data['kind']}, not a deck")
    suits = tuple(Suit(s["key"], s["suit"], s["rank"]) for s in data["suits"])
    keys = {s.title: s.key for s in suits}
    cards = tuple(Card(c["label"], keys[c["suit"]], c["rank"], c["half"], c["name"])
                  for c in data["cards"])
    for suit in suits:
        if sum(c.suit == suit.key for c in cards) != suit.size:
            raise ValueError(f"deck {name}: {suit.title} should have {suit.size} cards")
    _LABELS[name] = {c.label: c for c in cards}
    return Deck(name, suits, cards)


ROCHE = load()
