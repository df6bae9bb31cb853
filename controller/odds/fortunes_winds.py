"""Exact odds of Fortunes and Winds: dynamic programming over the dice, in Fractions.

Only three things about a white die matter to the combinations: it shows an element, a wind or
something else ("E", "W", "X"). A point of the turn is (roll about to be made, the categories of
the dice set aside). After a roll with neither Lord Moon nor a combination the shooter picks how
many of each category just rolled to set aside (at most three in the turn); a strategy picks the
choice that maximises an objective, with ties broken by a second objective and then by setting
aside fewer dice. Each solved strategy gives the exact distribution of how the turn ends, and
every bet's probability and edge follow from it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from itertools import product
from math import factorial
from typing import Any

from controller.games import apply, find_game
from controller.games.base import Command, Pays, RoundEnded
from controller.games.fortunes_winds import (
    BET_KINDS,
    BET_NAMES,
    COMBINATIONS,
    DIE,
    ELEMENTS,
    LORD_MOON,
    LORD_MOON_SPOT,
    MAX_ROLLS,
    MAX_SET_ASIDE,
    MOON_DIE,
    NO_COMBINATION,
    STANDARD,
    WHITE_DICE,
    WIN,
    WINDS,
    FortunesWinds,
    TurnOutcome,
    bet_result,
    pays_of,
)
from controller.games.fortunes_winds import LORD_MOON_LOSS as MOON_LOSS
from controller.odds import pct
from controller.simulate import Run, Tally, open_table, settled

CATEGORIES = ("E", "W", "X")
#: Kept (or rolled) white dice as counts of (elements, winds, others).
Counts = tuple[int, int, int]
#: How a turn ends: result, combination id, rolls made.
Outcome = tuple[str, str | None, int]
Distribution = Mapping[Outcome, Fraction]


def category(label: str) -> str:
    """'E', 'W' or 'X': what a white face counts as."""
    return "E" if label in ELEMENTS else "W" if label in WINDS else "X"


def counts_of(labels: Iterable[str]) -> Counts:
    """White faces as counts of (elements, winds, others)."""
    cats = [category(label) for label in labels]
    return (cats.count("E"), cats.count("W"), cats.count("X"))


def _white_probabilities() -> tuple[Fraction, Fraction, Fraction]:
    dists = {tuple(Fraction(sum(category(f) == c for f in DIE[d].faces), 6) for c in CATEGORIES)
             for d in WHITE_DICE}
    # The DP counts dice by category: every white die must have the same chances.
    assert len(dists) == 1, "the white dice differ; the odds model needs them alike"
    return dists.pop()  # type: ignore[return-value]


WHITE = _white_probabilities()
BLACK: tuple[tuple[str, Fraction], ...] = tuple(
    (label, Fraction(DIE[MOON_DIE].faces.count(label), 6))
    for label in dict.fromkeys(DIE[MOON_DIE].faces))
_COMBO = {(c.white, c.black): c.id for c in COMBINATIONS}


@cache
def roll_outcomes(n: int) -> tuple[tuple[Counts, Fraction], ...]:
    """Every way `n` white dice fall, as category counts with their probability."""
    out = []
    for e in range(n + 1):
        for w in range(n + 1 - e):
            x = n - e - w
            ways = factorial(n) // (factorial(e) * factorial(w) * factorial(x))
            out.append(((e, w, x), ways * WHITE[0] ** e * WHITE[1] ** w * WHITE[2] ** x))
    return tuple(out)


def terminal(white: Counts, black: str, roll: int) -> Outcome | None:
    """How the turn ends on this roll, or None when it goes on."""
    if black == LORD_MOON:
        return (MOON_LOSS, None, roll)
    kind = ELEMENTS if white[0] == 4 else WINDS if white[1] == 4 else None
    combo = _COMBO.get((kind, black)) if kind else None
    if combo:
        return (WIN, combo, roll)
    if roll == MAX_ROLLS:
        return (NO_COMBINATION, None, roll)
    return None


def choices(kept: Counts, rolled: Counts) -> list[Counts]:
    """The set-asides open after a roll: counts of each category, fewest dice first."""
    room = MAX_SET_ASIDE - sum(kept)
    out = [c for c in product(*(range(n + 1) for n in rolled)) if sum(c) <= room]
    return sorted(out, key=lambda c: (sum(c), c))


def add(a: Counts, b: Counts) -> Counts:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@dataclass(frozen=True)
class PayTable:
    """What the standard bet and each side bet pay, from a table's settings."""

    settings: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> PayTable:
        keys = [c.setting for c in COMBINATIONS] + ["first_roll_multiplier"]
        keys += [f"{k.replace('-', '_')}_pays" for k in BET_KINDS if k != STANDARD]
        return cls(tuple((k, settings[k]) for k in keys))

    def net(self, kind: str, outcome: Outcome) -> Fraction:
        """Net coins per coin staked on `kind` (the standard bet with its Lord Moon money)."""
        return _net(self, kind, outcome)


@cache
def _net(pays: PayTable, kind: str, outcome: Outcome) -> Fraction:
    turn = TurnOutcome(*outcome, showing=())
    settings = dict(pays.settings)
    result = bet_result(kind, turn)
    value = (pays_of(settings, kind, turn).ratio if result == "win"
             else Fraction(-1) if result == "lose" else Fraction(0))
    if kind == STANDARD and bet_result(LORD_MOON_SPOT, turn) == "lose":
        value -= 1
    return value


class Strategy:
    """The shooter's set-aside strategy maximising `objective` (a tuple, compared in order)."""

    def __init__(self, objective: Callable[[Outcome], tuple[Fraction, ...]]) -> None:
        self.objective = objective
        self._dist: dict[tuple[int, Counts], dict[Outcome, Fraction]] = {}
        self._best: dict[tuple[int, Counts, Counts], Counts] = {}
        self._value: dict[tuple[int, Counts], tuple[Fraction, ...]] = {}

    def score(self, dist: Distribution) -> tuple[Fraction, ...]:
        total: list[Fraction] | None = None
        for outcome, p in dist.items():
            values = self.objective(outcome)
            if total is None:
                total = [Fraction(0)] * len(values)
            for i, v in enumerate(values):
                total[i] += p * v
        return tuple(total or ())

    def distribution(self, roll: int = 1, kept: Counts = (0, 0, 0)) -> dict[Outcome, Fraction]:
        """How the turn ends, from the point of making roll `roll` with `kept` set aside."""
        key = (roll, kept)
        if key in self._dist:
            return self._dist[key]
        out: dict[Outcome, Fraction] = {}
        for rolled, p_white in roll_outcomes(4 - sum(kept)):
            white = add(kept, rolled)
            for black, p_black in BLACK:
                p = p_white * p_black
                end = terminal(white, black, roll)
                if end is not None:
                    out[end] = out.get(end, Fraction(0)) + p
                    continue
                nxt = self.distribution(roll + 1, add(kept, self.best(roll, kept, rolled)))
                for o, q in nxt.items():
                    out[o] = out.get(o, Fraction(0)) + p * q
        self._dist[key] = out
        return out

    def best(self, roll: int, kept: Counts, rolled: Counts) -> Counts:
        """The counts of (elements, winds, others) just rolled to set aside after roll `roll`."""
        key = (roll, kept, rolled)
        if key not in self._best:
            options = choices(kept, rolled)
            # max() keeps the first of equals: the option with fewer dice set aside.
            self._best[key] = max(options, key=lambda c: self.value(roll + 1, add(kept, c)))
        return self._best[key]

    def value(self, roll: int, kept: Counts) -> tuple[Fraction, ...]:
        """The objective's expected value from the point of making roll `roll`."""
        if (roll, kept) not in self._value:
            self._value[roll, kept] = self.score(self.distribution(roll, kept))
        return self._value[roll, kept]


OBJECTIVES = ("max-win", "max-return")
STRATEGY_WORDS = {
    "max-win": "the shooter sets dice aside to maximise his chance of winning the turn",
    "max-return": "the shooter sets dice aside to maximise the expected return of his "
                  "standard bet (Lord Moon money included)",
}


def _won(outcome: Outcome) -> Fraction:
    return Fraction(outcome[0] == WIN)


@lru_cache(maxsize=64)
def strategy(objective: str, pays: PayTable) -> Strategy:
    """The solved strategy for `objective`: max-win, max-return, or 'collude:BET' (the shooter
    plays for that side bet)."""
    if objective == "max-win":
        return Strategy(lambda o: (_won(o), pays.net(STANDARD, o)))
    if objective == "max-return":
        return Strategy(lambda o: (pays.net(STANDARD, o), _won(o)))
    if objective.startswith("collude:"):
        kind = objective.split(":", 1)[1]
        return Strategy(lambda o: (pays.net(kind, o),))
    raise ValueError(objective)


def bet_figures(kind: str, dist: Distribution, pays: PayTable) -> dict[str, Fraction]:
    """Probability of winning, of a push, and the expected net per coin of a bet of `kind`."""
    win = push = expected = Fraction(0)
    for outcome, p in dist.items():
        result = bet_result(kind, TurnOutcome(*outcome, showing=()))
        win += p * (result == "win")
        push += p * (result == "push")
        expected += p * pays.net(kind, outcome)
    return {"probability": win, "push": push, "expected": expected}


def _num(x: Fraction) -> float:
    return float(x)


@lru_cache(maxsize=16)
def _report(pays: PayTable) -> dict:
    settings = dict(pays.settings)
    dists = {s: strategy(s, pays).distribution() for s in OBJECTIVES}
    bets = []
    for kind in BET_KINDS:
        by = {s: bet_figures(kind, dists[s], pays) for s in OBJECTIVES}
        main = by["max-return"]
        item: dict[str, Any] = {
            "id": kind,
            "name": BET_NAMES[kind],
            "probability": _num(main["probability"]),
            "probability_exact": str(main["probability"]),
            "pays": ("by combination" if kind == STANDARD else str(pays_of(settings, kind))),
            "house_edge": _num(-main["expected"]),
            "house_edge_exact": str(-main["expected"]),
            "strategy": "max-return",
        }
        if main["push"]:
            item["push_probability"] = _num(main["push"])
        item["by_strategy"] = {
            s: {"probability": _num(f["probability"]), "house_edge": _num(-f["expected"]),
                "house_edge_exact": str(-f["expected"])}
            for s, f in by.items()
        }
        item["house_edge_worst"] = _num(min(-f["expected"] for f in by.values()))
        if kind != STANDARD:
            colluding = strategy(f"collude:{kind}", pays).distribution()
            item["house_edge_colluding"] = _num(-bet_figures(kind, colluding, pays)["expected"])
        else:
            item["per_coin_on_table"] = _num(-main["expected"] / 2)
        bets.append(item)
    win = bet_figures(STANDARD, dists["max-win"], pays)
    ret = bet_figures(STANDARD, dists["max-return"], pays)
    return {
        "game": "fortunes-winds",
        "title": "Fortunes and Winds",
        "shooter_win_probability": _num(win["probability"]),
        "shooter_win_probability_exact": str(win["probability"]),
        "standard_expected_return": _num(ret["expected"]),
        "standard_expected_return_exact": str(ret["expected"]),
        "strategies": dict(STRATEGY_WORDS),
        "notes": [
            "probability: of the bet winning; house_edge: the bettor's expected loss per coin "
            "staked, under the max-return strategy (the advisor's)",
            "the standard bet's figures count its Lord Moon money with it, per coin of the "
            "standard bet; per_coin_on_table divides by both coins laid",
            "house_edge_worst: the lower of the two strategies' edges; house_edge_colluding: "
            "the edge if the shooter set dice aside to make that side bet win",
        ],
        "bets": bets,
        "combinations": [
            {"id": c.id, "name": c.name, "pays": settings[c.setting],
             "first_roll_pays": str(Pays.parse(settings[c.setting]).times(
                 settings["first_roll_multiplier"]))}
            for c in COMBINATIONS
        ],
        "outcomes": {
            s: [{"result": o[0], "combination": o[1], "rolls": o[2], "probability": _num(p)}
                for o, p in sorted(d.items(), key=lambda i: (i[0][2], i[0][0], i[0][1] or ""))]
            for s, d in dists.items()
        },
    }


def odds(settings: Mapping[str, Any]) -> dict:
    """The odds report of Fortunes and Winds for a table with `settings` (cached)."""
    return _report(PayTable.of(settings))


def odds_text(report: dict) -> list[str]:
    """The odds report for people (`feltbank odds fortunes-winds`)."""
    out: list[str] = []
    out.append(f"shooter wins a turn, setting aside to win:      "
          f"{pct(report['shooter_win_probability'])}")
    out.append(f"standard bet's return, setting aside for it:    "
          f"{pct(report['standard_expected_return'])} per coin of standard bet "
          "(Lord Moon money included)")
    out.append("")
    out.append("combinations: " + ", ".join(f"{c['name']} {c['pays']} ({c['first_roll_pays']} on "
                                       "roll 1)" for c in report["combinations"]))
    out.append("")
    head = (f"{'bet':<16}{'pays':>9}{'P(win)':>10}{'edge':>10}{'edge':>10}{'worst':>10}"
            f"{'colluding':>11}")
    out.append(head)
    out.append(f"{'':<16}{'':>9}{'':>10}{'max-ret':>10}{'max-win':>10}{'':>10}{'shooter':>11}")
    for bet in report["bets"]:
        coll = bet.get("house_edge_colluding")
        pays = "combos" if bet["id"] == "standard" else bet["pays"]
        out.append(f"{bet['id']:<16}{pays:>9}{pct(bet['probability']):>10}"
              f"{pct(bet['by_strategy']['max-return']['house_edge']):>10}"
              f"{pct(bet['by_strategy']['max-win']['house_edge']):>10}"
              f"{pct(bet['house_edge_worst']):>10}"
              f"{pct(coll) if coll is not None else '':>11}")
    out.append("")
    out.append("edge: the bettor's expected loss per coin staked (negative: the bettor's edge).")
    out.append("worst: the lower edge of the two strategies; colluding: if the shooter set dice "
          "aside to make that bet win.")
    return out


# -- seeded simulation (`feltbank simulate fortunes-winds`) -----------------------------------


def simulate(turns: int, rng: random.Random, settings: Mapping[str, Any] | None,
             strategy: str) -> Run:
    """Two seats: the shooter lays the smallest standard bet, the other player every side bet;
    the shooter sets dice aside as the advisor says (`strategy`) and always throws a new turn
    after a win. The Lord Moon money counts with the standard bet."""
    from controller.games.fortunes_winds import SIDE_BETS, smallest_stake
    from controller.odds.fortunes_winds_advisor import choose

    state = open_table(FortunesWinds.name, settings)
    kinds = [k for k in SIDE_BETS if k != "daikoku-against" or state.settings["daikoku_against"]]
    stakes = {k: smallest_stake(state.settings, k) for k in (STANDARD, *kinds)}
    tallies: dict[str, Tally] = {"shooter-wins": Tally()}
    for _ in range(turns):
        shooter = state.shooter
        other = "P2" if shooter == "P1" else "P1"
        cmds = [Command("bet", {"player": shooter, "bet": STANDARD,
                                "amount": stakes[STANDARD]})]
        cmds += [Command("bet", {"player": other, "bet": k, "amount": stakes[k]}) for k in kinds]
        for cmd in cmds:
            state, _ = apply(state, cmd)
        engine = find_game(state.mode)
        while True:
            state, events = apply(state, engine.chance_step(state, rng))
            if events[-1].kind != "rolled":
                break
            keep = choose(state.showing_map(), state.set_aside, state.roll, strategy,
                          state.settings)
            if keep:
                state, _ = apply(state, Command("set-aside", {"dice": keep}))
        settled(events, tallies, counts_with={LORD_MOON_SPOT: STANDARD})
        tallies["shooter-wins"].add(float(RoundEnded.among(events).result == WIN))

    def exact(report: dict) -> dict[str, Fraction]:
        return {bet["id"]: Fraction(bet["by_strategy"][strategy]["house_edge_exact"])
                for bet in report["bets"]}

    def extra(report: dict) -> dict[str, Any]:
        wins = tallies["shooter-wins"]
        probability = (report["shooter_win_probability"] if strategy == "max-win" else next(
            b["probability"] for b in report["bets"] if b["id"] == STANDARD))
        return {"strategy": strategy, "shooter_win_rate": wins.mean, "shooter_win_se": wins.se,
                "shooter_win_exact": probability,
                "notes": [f"shooter won {pct(wins.mean).strip()} ± {pct(wins.se).strip()} of "
                          f"turns (exact {pct(probability).strip()}, {strategy})"]}

    return Run(tallies, state, exact, extra, not_bets=("shooter-wins",))
