"""Exact odds of Roche and Grand Roche: dynamic programming over the deal, in Fractions.

The deal is a uniformly shuffled deck revealed card by card until one suit is cut (half of it
shown). Only how many cards of each suit have been shown matters to which suit cuts, so the
deal is a walk over count vectors. The chance of a given sequence of suits is a product of
(cards of that suit left) over a product of (cards left in the deck) that depends only on how
many cards have been dealt; the walk therefore carries whole-number weights, and each
probability is one Fraction at the end. Burned cards are unseen and random, so they change no
chance (RULINGS.md).

A Day (Night) bet is the same race with the suit's Day cards (needing R) racing its Night
cards (the first one loses the bet) and the other suits. Card-level bets follow by symmetry
inside the cut suit (every card of it is equally likely to be among the cut and to be the
last), which the tests check against a walk that follows one card. Rochi's next-cut chances
(controller/odds/rochi.py) are this race too, with the cards already seen taken out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import floor
from types import MappingProxyType
from typing import Any

#: The suits by rank: suit R has 2R cards, R Day and R Night, and cuts when R are shown.
RANKS = (2, 3, 4, 5, 6, 7)


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


@dataclass(frozen=True)
class Race:
    """Which suit a deal cuts first (`deal_race`); suits by their index in `need`."""

    #: The chance each suit is the first to cut.
    cut: tuple[Fraction, ...]
    #: The chance no suit cuts in the cards dealt.
    none: Fraction
    #: (i, j) -> the chance suit i cuts first and no card of suit j was shown before.
    unseen: Mapping[tuple[int, int], Fraction]
    #: The chance every suit stands one card from cutting before any cut (Cavalry).
    ripe: Fraction
    #: n -> the chance the cut comes on the n-th card dealt.
    length: Mapping[int, Fraction]


@cache
def deal_race(need: tuple[int, ...], cards: tuple[int, ...], blanks: int = 0,
              deal: int | None = None) -> Race:
    """The deal race: suit i cuts when `need[i]` more of its `cards[i]` unseen cards are shown;
    `blanks` unseen cards belong to no suit in the race; `deal` cards (default: all) are dealt
    from the shuffled unseen cards, stopping at the first cut.

    The one walk behind Roche's bets and Rochi's next cut. It runs over the count of each
    suit's cards shown (blanks are what is left of the cards dealt). The chance of a sequence
    of suits is a product of cards left of that suit over a product of cards left in all that
    depends only on how many were dealt, so the walk carries whole-number weights and each
    depth's sum becomes one Fraction.
    """
    if len(need) != len(cards) or any(n < 1 for n in need) or blanks < 0:
        raise ValueError("need and cards go suit by suit; every need is at least 1")
    total = sum(cards) + blanks
    deal = total if deal is None else deal
    if not 0 <= deal <= total:
        raise ValueError(f"a deal of {deal} cards from {total} unseen is impossible")
    k = len(need)
    ripe_counts = tuple(n - 1 for n in need)
    level: dict[tuple[int, ...], int] = {tuple(0 for _ in need): 1}
    cut = [Fraction(0)] * k
    unseen = {(i, j): Fraction(0) for i in range(k) for j in range(k) if i != j}
    length: dict[int, Fraction] = {}
    ripe = Fraction(int(all(n == 1 for n in need)))
    for t in range(deal):
        nxt: dict[tuple[int, ...], int] = {}
        cut_w = [0] * k
        unseen_w = dict.fromkeys(unseen, 0)
        ripe_w = 0
        for counts, w in level.items():
            for i, n in enumerate(need):
                ways = w * (cards[i] - counts[i])
                if not ways:
                    continue
                if counts[i] + 1 == n:
                    cut_w[i] += ways
                    for j in range(k):
                        if j != i and counts[j] == 0:
                            unseen_w[i, j] += ways
                else:
                    c = counts[:i] + (counts[i] + 1,) + counts[i + 1:]
                    nxt[c] = nxt.get(c, 0) + ways
                    if c == ripe_counts:
                        ripe_w += ways
            left_blank = blanks - (t - sum(counts))
            if left_blank > 0:
                nxt[counts] = nxt.get(counts, 0) + w * left_blank
        below = _falling(total, t + 1)
        for i in range(k):
            cut[i] += Fraction(cut_w[i], below)
        for key, w in unseen_w.items():
            unseen[key] += Fraction(w, below)
        ripe += Fraction(ripe_w, below)
        if any(cut_w):
            length[t + 1] = Fraction(sum(cut_w), below)
        level = nxt
    return Race(tuple(cut), 1 - sum(cut, Fraction(0)), MappingProxyType(unseen), ripe,
                MappingProxyType(length))


def next_cut(need: tuple[int, ...], unseen: tuple[int, ...], blanks: int, deck: int
             ) -> tuple[tuple[Fraction, ...], Fraction]:
    """Rochi's question of the deal race: per open suit (needing `need[i]` more cards in its
    stack, `unseen[i]` of its cards not yet seen) the chance it is the next to cut when up to
    `deck` cards are dealt from the unseen ones; and the chance none cuts."""
    race = deal_race(need, unseen, blanks, deck)
    return race.cut, race.none


def _suits(ranks: tuple[int, ...]) -> Race:
    """The Roche deal: suit R has 2R cards and cuts when R are shown."""
    return deal_race(ranks, tuple(2 * r for r in ranks))


def deal_chances(ranks: tuple[int, ...] = RANKS) -> dict[str, Any]:
    """The chance each suit cuts, each suit is never shown (by the cut suit), and Cavalry.

    Returns {"cut": {R: P}, "unseen": {(R, S): P(R cuts and no card of S was shown)},
    "cavalry": P(every suit one card from cutting before the cut), "length": {n: P(the cut
    comes on card n)}}.
    """
    race = _suits(ranks)
    return {"cut": dict(zip(ranks, race.cut, strict=True)),
            "unseen": {(ranks[i], ranks[j]): p for (i, j), p in race.unseen.items()},
            "cavalry": race.ripe, "length": dict(race.length)}


def all_one_half(rank: int, ranks: tuple[int, ...] = RANKS) -> Fraction:
    """P(suit `rank` cuts with every shown card of it Day): the deal race where the suit's Day
    cards race (needing `rank`) against its Night cards (the first one loses the bet) and the
    other suits. (The same for Night: the halves are the same size.)"""
    others = tuple(r for r in ranks if r != rank)
    race = deal_race((*others, rank, 1), (*(2 * r for r in others), rank, rank))
    return race.cut[len(others)]


def bet_chance(kind: str, rank: int | None = None, ranks: tuple[int, ...] = RANKS) -> Fraction:
    """The exact chance a bet wins: kind cut, day, night, single, oscura, terminus (one card of
    suit `rank`), starlight (suit `rank` never shown) or cavalry."""
    chances = deal_chances(ranks)
    if kind == "cavalry":
        return chances["cavalry"]
    assert rank is not None
    cut = chances["cut"][rank]
    if kind == "cut":
        return cut
    if kind in ("day", "night"):
        return all_one_half(rank, ranks)
    if kind == "single":
        return cut * Fraction(rank, 2 * rank)
    if kind == "oscura":
        return cut * Fraction(rank, 2 * rank)
    if kind == "terminus":
        return cut / (2 * rank)
    if kind == "starlight":
        return sum((p for (r, s), p in chances["unseen"].items() if s == rank), Fraction(0))
    raise ValueError(kind)


def edge(p: Fraction, pays: Fraction) -> Fraction:
    """The house edge of a bet winning with chance `p` and paying `pays` per coin."""
    return 1 - p * (pays + 1)


def default_pays(p: Fraction, least_edge: Fraction) -> int:
    """The largest whole X such that X:1 leaves the house an edge of at least `least_edge`."""
    return floor((1 - least_edge) / p - 1)


def _bet(bet_id: str, p: Fraction, pays: Fraction, text: str, **extra: Any) -> dict:
    e = edge(p, pays)
    return {"id": bet_id, "probability": float(p), "probability_exact": str(p), "pays": text,
            "house_edge": float(e), "house_edge_exact": str(e), **extra}


def report(game: str, title: str, kinds: Sequence[str], settings: Mapping[str, Any]) -> dict:
    """The odds report of a Roche layout taking bets of `kinds`, at the table's pays."""
    from controller.games.base import Pays

    bets = []
    for kind in kinds:
        ranks: tuple[int | None, ...] = (None,) if kind == "cavalry" else RANKS
        for rank in ranks:
            key = "cavalry_pays" if rank is None else f"{kind}_{rank}_pays"
            pays = Pays.parse(settings[key])
            bet_id = kind if rank is None else f"{kind}:{rank}"
            extra = {} if rank is None else {"rank": rank}
            bets.append(_bet(bet_id, bet_chance(kind, rank), pays.ratio, str(pays), **extra))
    lengths = deal_chances()["length"]
    return {
        "game": game,
        "title": title,
        "deck": settings["deck"],
        "expected_cards": float(sum(n * p for n, p in lengths.items())),
        "notes": [
            "R is a suit's rank: 2 Mages, 3 Realm, 4 World, 5 Valor, 6 Kin, 7 Commons",
            "single:R, oscura:R, terminus:R: a bet on one card of suit R (every card of a "
            "suit has the same chance)",
            "the four-poker-decks deck gives the same chances; burned cards change none",
        ],
        "bets": bets,
    }


def odds_roche(settings: Mapping[str, Any]) -> dict:
    """The odds report of Roche (`feltbank odds roche --json`) at the table's pays."""
    from controller.games.roche import Roche

    return report(Roche.name, Roche.title, Roche.kinds, settings)


def odds_grand_roche(settings: Mapping[str, Any]) -> dict:
    """The odds report of Grand Roche at the table's pays."""
    from controller.games.roche import GrandRoche

    return report(GrandRoche.name, GrandRoche.title, GrandRoche.kinds, settings)


def odds_text(report: dict) -> list[str]:
    """The odds report for people (`feltbank odds roche`)."""
    from controller.odds import pct

    out = [f"{report['title']}: a deal shows {report['expected_cards']:.2f} cards on average",
           "", f"{'bet':<14}{'pays':>9}{'P(win)':>10}{'edge':>10}"]
    for bet in report["bets"]:
        out.append(f"{bet['id']:<14}{bet['pays']:>9}{pct(bet['probability']):>10}"
                   f"{pct(bet['house_edge']):>10}")
    return out


# -- seeded simulation (`feltbank simulate roche|grand-roche`) ----------------------------------


def _simulate(mode: str, turns: int, rng, settings: Mapping[str, Any] | None):
    """Two seats: P1 bets every suit bet of the layout at its smallest stake; on Grand Roche
    P2 bets Starlight, Cavalry and, on one card of each suit drawn at random, Single Card,
    Oscura and Terminus. The deal is the engine's chance step (a shuffled deck)."""
    from controller.errors import IllegalCommand
    from controller.games import apply, find_game, limits
    from controller.games.base import Command
    from controller.games.roche import Bet
    from controller.simulate import Run, Tally, open_table, settled

    state = open_table(mode, settings)
    engine = find_game(mode)
    deck = engine.deck(state)
    choices = engine.bet_choices(state)
    suit_bets = [b for b in choices if b.card is None]
    card_kinds = sorted({b.kind for b in choices if b.card is not None})

    def stake(bet: Bet) -> int:
        least = limits.smallest_stake(state.settings, bet.kind, engine.stake_unit(state, bet))
        if least is None:
            raise IllegalCommand(f"the table's limits leave no {bet.kind} bet to simulate")
        return least

    def name(spot: str) -> str:
        bet = Bet.parse(spot, deck)
        return "cavalry" if bet.kind == "cavalry" else f"{bet.kind}:{bet.rank}"

    tallies: dict[str, Tally] = {}
    for _ in range(turns):
        bets = [("P1" if b.kind in ("cut", "day", "night") else "P2", b) for b in suit_bets]
        for rank in RANKS:
            card = rng.choice(deck.of_rank(rank))
            bets += [("P2", Bet(kind, rank, card.label)) for kind in card_kinds]
        for player, bet in bets:
            state, _ = apply(state, Command("bet", {"player": player, "bet": bet.id,
                                                    "amount": stake(bet)}))
        state, _ = apply(state, Command("no-more-bets"))
        while True:
            state, events = apply(state, engine.chance_step(state, rng))
            if events[-1].kind == "round-ended":
                break
        settled(events, tallies, name)

    def exact(report: dict) -> dict[str, Fraction]:
        return {bet["id"]: Fraction(bet["house_edge_exact"]) for bet in report["bets"]}

    return Run(tallies, state, exact)


def simulate_roche(turns: int, rng, settings: Mapping[str, Any] | None, strategy: str = ""):
    return _simulate("roche", turns, rng, settings)


def simulate_grand_roche(turns: int, rng, settings: Mapping[str, Any] | None,
                         strategy: str = ""):
    return _simulate("grand-roche", turns, rng, settings)
