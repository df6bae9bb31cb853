"""Exact chances for the Rochi table, in Fractions: which suit the deck cuts next.

Rochi has no house bets; what a player weighs is which suit the deck will cut. From the
table's view the cards not yet seen (in hands and in the deck) are shuffled at random, so the
cards still to be dealt are a uniform random ordered sample of them. `next_cut` (the deal
race of controller/odds/roche.py, shared with Roche) walks the count of each open suit's cards
dealt (the other cards are blanks) and gives the
chance that each open suit is the next to cut if only the deck is dealt from now, and the
chance the deck runs out first.

`odds(settings)` is `feltbank odds rochi|captains-rochi --json`: those chances at the start
of a hand (after the deal of the hands, before any seed card) for each number of players, the
rank (penalty) of each suit, and the expected penalty per opponent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from controller.games.roche_deck import ROCHE
from controller.odds.roche import next_cut

SUITS = tuple(s.key for s in ROCHE.suits)
RANK = {s.key: s.rank for s in ROCHE.suits}
DECK = len(ROCHE.cards)


def from_table(stacks: Mapping[str, int], locked: Sequence[str], seen: Sequence[str],
               deck: int) -> dict[str, Any]:
    """The chance each open suit is the next the deck cuts, from a table where `stacks`
    holds each suit's count, `seen` every card seen (stacks, shields, discards) and `deck`
    the cards left to deal; locked suits' cards are blanks."""
    open_suits = [s for s in SUITS if s not in locked]
    seen_in = {s: sum(1 for c in seen if c.split("-")[0].lower() == s) for s in SUITS}
    need = tuple(RANK[s] - stacks.get(s, 0) for s in open_suits)
    unseen = tuple(2 * RANK[s] - seen_in[s] for s in open_suits)
    blanks = sum(2 * RANK[s] - seen_in[s] for s in SUITS if s in locked)
    chances, none = next_cut(need, unseen, blanks, deck)
    return {"next_cut": dict(zip(open_suits, chances, strict=True)), "no_cut": none}


def odds(settings: Mapping[str, Any]) -> dict:
    """The report of `feltbank odds rochi --json` (settings do not change these chances)."""
    fresh = from_table({}, (), (), DECK - 5 * 3)
    suits = []
    for s in SUITS:
        p = fresh["next_cut"][s]
        suits.append({"suit": s, "title": ROCHE.suit(s).title, "rank": RANK[s],
                      "cards": 2 * RANK[s], "cut_first": float(p), "cut_first_exact": str(p),
                      "penalty": RANK[s]})
    bets = [{"id": f"first-cut-{row['suit']}", "pays": "none", "probability": row["cut_first"],
             "probability_exact": row["cut_first_exact"], "house_edge": 0.0,
             "house_edge_exact": "0"} for row in suits]
    return {"game": "rochi", "title": "Rochi",
            "about": "no house bets: the chance each suit is the first the deck cuts when "
                     "only the deck is dealt (the same for any number of players: the hands "
                     "are a random part of the unseen cards), and its penalty (the rank)",
            "notes": ["Rochi has no house: the players pay each other and the pots, so no "
                      "row has a house edge. 'first-cut-SUIT' is the chance the deck cuts "
                      "SUIT first."],
            "suits": suits, "bets": bets,
            "expected_penalty": float(sum(RANK[s] * fresh["next_cut"][s] for s in SUITS))}


def odds_text(report: dict) -> list[str]:
    """The report for people."""
    lines = [f"{report['title']}: {report['about']}", "",
             f"{'suit':<10}{'rank':>5}{'cards':>6}{'cuts first':>12}"]
    for row in report["suits"]:
        lines.append(f"{row['title']:<10}{row['rank']:>5}{row['cards']:>6}"
                     f"{100 * row['cut_first']:>11.2f}%")
    lines.append(f"expected penalty per opponent who has had a turn: "
                 f"{report['expected_penalty']:.3f}")
    return lines


#: `feltbank simulate rochi --strategy`: "deal-only" (every player deals and never plays, so
#: the first suit to cut is the deck's; checks `cut_first`), "random" (random legal play).
STRATEGIES = ("deal-only", "random")


def simulate(turns: int, rng, settings: Mapping[str, Any] | None, strategy: str):
    """`turns` hands of Rochi at a table of four through the real engine (a
    controller.simulate.Run): how often each suit is the first to cut, beside the exact
    chance, and how hands end."""
    from controller.games.base import Command
    from controller.games.rochi import Rochi
    from controller.simulate import COINS, Run, Tally

    engine = Rochi()
    state = engine.new_state(settings or {})
    for p in ("P1", "P2", "P3", "P4"):
        state, _ = engine.apply(state, Command("join", {"player": p}))
        state, _ = engine.apply(state, Command("buy-in", {"player": p, "amount": COINS}))
    first = {s: Tally() for s in SUITS}
    won = Tally()
    for _ in range(turns):
        state, _ = engine.apply(state, Command("start-hand", {}))
        cut = None
        while state.hand is not None:
            if strategy == "deal-only" or state.hand.phase != "turns":
                cmd = engine.chance_step(state, rng)
            else:
                cmd = engine.random_command(state, rng)
                if cmd.kind in ("start-hand", "last-hand", "buy-in"):
                    cmd = engine.chance_step(state, rng)
            state, events = engine.apply(state, cmd)
            for e in events:
                if e.kind == "dealt" and e.data.get("cut") and cut is None:
                    cut = e.data["suit"]
                if e.kind == "round-ended":
                    won.add(float(e.data["result"] != "hand-no-winner"))
            if strategy == "deal-only" and state.hand and state.hand.phase == "turns" \
                    and state.hand.dealt:
                state, _ = engine.apply(state, Command("end-turn",
                                                       {"player": state.hand.turn}))
        for s in SUITS:
            first[s].add(float(cut == s))

    def extra(report: dict) -> dict:
        exact = {row["suit"]: row["cut_first"] for row in report["suits"]}
        return {"strategy": strategy, "hands_won": won.mean,
                "first_cut": {s: {"empirical": first[s].mean, "se": first[s].se,
                                  "exact": exact[s]} for s in SUITS}}

    # The report's rows are the first-cut chances; a row's "edge" is minus its frequency, so
    # the simulation's z-score compares the frequency with the exact chance.
    def exact(report: dict) -> dict[str, Fraction]:
        return {f"first-cut-{row['suit']}": -Fraction(row["cut_first_exact"])
                for row in report["suits"]}

    tallies = {**{f"first-cut-{s}": t for s, t in first.items()}, "hand-won": won}
    return Run(tallies, state, exact=exact, extra=extra, not_bets=("hand-won",))
