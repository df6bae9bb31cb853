"""Exact odds of Roche and Grand Roche: dynamic programming over the deal, in Fractions.

The deal is a uniformly shuffled deck revealed card by card until one suit is cut (half of it
shown). Only how many cards of each suit have been shown matters to which suit cuts, so the
deal is a walk over count vectors. The chance of a given sequence of suits is a product of
(cards of that suit left) over a product of (cards left in the deck) that depends only on how
many cards have been dealt; the walk therefore carries whole-number weights, and each
probability is one Fraction at the end. Burned cards are unseen and random, so they change no
chance (RULINGS.md).

A Day (Night) bet needs the Day and Night cards of its suit told apart: a second walk tracks
them for that suit. Card-level bets follow by symmetry inside the cut suit (every card of it is
equally likely to be among the cut and to be the last), which the tests check against a walk
that follows one card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from math import floor
from typing import Any

#: The suits by rank: suit R has 2R cards, R Day and R Night, and cuts when R are shown.
RANKS = (2, 3, 4, 5, 6, 7)


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


@cache
def deal_chances(ranks: tuple[int, ...] = RANKS) -> dict[str, Any]:
    """The chance each suit cuts, each suit is never shown (by the cut suit), and Cavalry.

    Returns {"cut": {R: P}, "unseen": {(R, S): P(R cuts and no card of S was shown)},
    "cavalry": P(every suit one card from cutting before the cut), "length": {n: P(the cut
    comes on card n)}}.
    """
    size = sum(2 * r for r in ranks)
    # level: count vector -> summed numerator products of the ways to reach it in t cards.
    # Sums at one depth share the denominator size!/(size-t)!, so they are whole numbers
    # until the end of each depth.
    level: dict[tuple[int, ...], int] = {tuple(0 for _ in ranks): 1}
    cut: dict[int, Fraction] = {r: Fraction(0) for r in ranks}
    unseen: dict[tuple[int, int], Fraction] = {(r, s): Fraction(0) for r in ranks for s in ranks
                                               if r != s}
    length: dict[int, Fraction] = {}
    cavalry = Fraction(0)
    ripe = tuple(r - 1 for r in ranks)
    t = 0
    while level:
        nxt: dict[tuple[int, ...], int] = {}
        below = _falling(size, t + 1)
        cut_w = dict.fromkeys(ranks, 0)
        unseen_w = dict.fromkeys(unseen, 0)
        for counts, w in level.items():
            if counts == ripe:
                cavalry += Fraction(w, _falling(size, t))
            for i, r in enumerate(ranks):
                ways = w * (2 * r - counts[i])
                if counts[i] + 1 == r:
                    cut_w[r] += ways
                    for j, s in enumerate(ranks):
                        if j != i and counts[j] == 0:
                            unseen_w[r, s] += ways
                else:
                    c = counts[:i] + (counts[i] + 1,) + counts[i + 1:]
                    nxt[c] = nxt.get(c, 0) + ways
        for r, w in cut_w.items():
            cut[r] += Fraction(w, below)
        for key, w in unseen_w.items():
            unseen[key] += Fraction(w, below)
        if any(cut_w.values()):
            length[t + 1] = Fraction(sum(cut_w.values()), below)
        level = nxt
        t += 1
    return {"cut": cut, "unseen": unseen, "cavalry": cavalry, "length": length}


@cache
def all_one_half(rank: int, ranks: tuple[int, ...] = RANKS) -> Fraction:
    """P(suit `rank` cuts with every shown card of it Day), by a walk telling its halves apart.

    A Night card of the suit, or another suit's cut, loses the bet: the walk drops those paths
    and follows only the other suits' counts and the suit's Day cards. (The same for Night:
    the halves are the same size.)
    """
    size = sum(2 * r for r in ranks)
    others = tuple(r for r in ranks if r != rank)
    # state: (counts of the other suits..., Day cards of the suit shown)
    level: dict[tuple[int, ...], int] = {tuple(0 for _ in others) + (0,): 1}
    won = Fraction(0)
    t = 0
    while level:
        nxt: dict[tuple[int, ...], int] = {}
        below = _falling(size, t + 1)
        won_w = 0
        for state, w in level.items():
            day = state[-1]
            for i, r in enumerate(others):
                if state[i] + 1 < r:
                    c = state[:i] + (state[i] + 1,) + state[i + 1:]
                    nxt[c] = nxt.get(c, 0) + w * (2 * r - state[i])
            if day + 1 == rank:
                won_w += w * (rank - day)
            else:
                c = state[:-1] + (day + 1,)
                nxt[c] = nxt.get(c, 0) + w * (rank - day)
        won += Fraction(won_w, below)
        level = nxt
        t += 1
    return won


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
