"""Exact odds of Hazard: every main against every total of two dice, in Fractions."""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from controller.errors import IllegalCommand
from controller.games import apply, find_game, limits
from controller.games.base import Command, Pays
from controller.games.hazard import MAINS, WAYS, Hazard, commission, first_throw, odds_pays
from controller.odds import pct
from controller.simulate import Run, Tally, open_table, settled

TOTALS = tuple(range(2, 13))


def p_total(total: int) -> Fraction:
    """The chance of throwing `total` with two dice."""
    return Fraction(WAYS[total], 36)


def chance_wins(main: int, chance: int) -> Fraction:
    """The chance that a set chance comes before the main."""
    return Fraction(WAYS[chance], WAYS[chance] + WAYS[main])


def caster_wins(main: int) -> Fraction:
    """The chance that the caster wins the round after calling `main`."""
    p = Fraction(0)
    for total in TOTALS:
        result = first_throw(main, total)
        if result == "nick":
            p += p_total(total)
        elif result == "chance":
            p += p_total(total) * chance_wins(main, total)
    return p


def first_throw_split(main: int) -> dict[str, Fraction]:
    """The chances of nick, out and chance on the first throw after calling `main`."""
    out = {"nick": Fraction(0), "out": Fraction(0), "chance": Fraction(0)}
    for total in TOTALS:
        out[first_throw(main, total)] += p_total(total)
    return out


def caster_loses_expected(q: Fraction, pays: Pays, percent: int, stake: int | None) -> Fraction:
    """Expected net per coin of a caster-loses bet: at the exact commission, or for `stake`."""
    if stake is None:
        kept = pays.ratio * (1 - Fraction(percent, 100))
    else:
        win = pays.winnings(stake)
        kept = Fraction(win - commission(win, percent), stake)
    return q * kept - (1 - q)


def _bet(bet_id: str, p: Fraction, pays: Pays, expected: Fraction, **extra: Any) -> dict:
    return {"id": bet_id, "probability": float(p), "probability_exact": str(p),
            "pays": str(pays), "house_edge": float(-expected), "house_edge_exact": str(-expected),
            **extra}


@lru_cache(maxsize=16)
def _report(wins_pays: str, loses_pays: str, percent: int) -> dict:
    win_rate, lose_rate = Pays.parse(wins_pays), Pays.parse(loses_pays)
    bets = []
    mains = []
    for main in MAINS:
        p = caster_wins(main)
        split = first_throw_split(main)
        mains.append({"main": main, "caster_wins": float(p), "caster_wins_exact": str(p),
                      **{k: float(v) for k, v in split.items()}})
        bets.append(_bet(f"caster-wins:{main}", p, win_rate, p * win_rate.ratio - (1 - p),
                         main=main))
    for main in MAINS:
        q = 1 - caster_wins(main)
        exact = caster_loses_expected(q, lose_rate, percent, None)
        # Rounded down, the commission on a small win is less than its share, or nothing:
        # the house's worst case is the stake where it takes the least.
        unit = lose_rate.unit
        worst = max(caster_loses_expected(q, lose_rate, percent, s * unit)
                    for s in range(1, 201))
        bets.append(_bet(f"caster-loses:{main}", q, lose_rate, exact, main=main,
                         commission_percent=percent, house_edge_worst=float(-worst),
                         house_edge_worst_exact=str(-worst)))
    for main in MAINS:
        for chance in TOTALS:
            if first_throw(main, chance) != "chance":
                continue
            p = chance_wins(main, chance)
            rate = odds_pays(main, chance)
            bets.append(_bet(f"odds:{main}:{chance}", p, rate, p * rate.ratio - (1 - p),
                             main=main, chance=chance))
    best = max(MAINS, key=caster_wins)
    return {
        "game": "hazard",
        "title": "Hazard",
        "best_main": best,
        "caster_win_probability": float(caster_wins(best)),
        "mains": mains,
        "notes": [
            "caster-wins:M and caster-loses:M: the round after the caster calls main M; "
            "odds:M:C: the odds bet once chance C is set against main M, at true odds",
            "caster-loses house_edge: with the commission exactly its percentage (a stake "
            "whose win is a multiple of 100/percent); house_edge_worst: at the stake where "
            "the commission, rounded down, takes least",
        ],
        "bets": bets,
    }


def odds(settings: Mapping[str, Any]) -> dict:
    """The odds report of Hazard for a table with `settings` (cached)."""
    return _report(settings["caster_wins_pays"], settings["caster_loses_pays"],
                   settings["commission_percent"])


def odds_text(report: dict) -> list[str]:
    """The odds report for people (`feltbank odds hazard`)."""
    out: list[str] = []
    out.append(f"{'main':>4}{'nick':>10}{'out':>10}{'chance':>10}{'caster wins':>13}")
    for m in report["mains"]:
        out.append(f"{m['main']:>4}{pct(m['nick']):>10}{pct(m['out']):>10}{pct(m['chance']):>10}"
              f"{pct(m['caster_wins']):>13}")
    out.append("")
    out.append(f"{'bet':<16}{'pays':>6}{'P(win)':>10}{'edge':>10}{'worst':>10}")
    for bet in report["bets"]:
        worst = bet.get("house_edge_worst")
        out.append(f"{bet['id']:<16}{bet['pays']:>6}{pct(bet['probability']):>10}"
              f"{pct(bet['house_edge']):>10}{pct(worst) if worst is not None else '':>10}")
    out.append("")
    out.append("caster-loses worst: at a stake whose commission, rounded down, is nothing.")
    return out


# -- seeded simulation (`feltbank simulate hazard`) -------------------------------------------


def simulate(turns: int, rng: random.Random, settings: Mapping[str, Any] | None,
             strategy: str = "") -> Run:
    """Two seats: the caster calls a main at random (so that every main is played), bets
    caster-wins, the other player caster-loses and, once a chance is set, the odds."""
    state = open_table(Hazard.name, settings)
    pct = state.settings["commission_percent"]
    lose_rate = Pays.parse(state.settings["caster_loses_pays"])
    # A stake whose commission is exactly its percentage, so that the exact edge applies.
    exact_stake = next(s for s in range(lose_rate.unit, 10**6, lose_rate.unit)
                       if (lose_rate.ratio * s * pct / 100).denominator == 1)

    def stake(kind: str, unit: int) -> int:
        least = limits.smallest_stake(state.settings, kind, unit)
        if least is None:
            raise IllegalCommand(f"the table's limits leave no {kind} bet to simulate")
        return least

    wins = stake("caster-wins", Pays.parse(state.settings["caster_wins_pays"]).unit)
    loses = stake("caster-loses", exact_stake)
    tallies: dict[str, Tally] = {}
    engine = find_game(state.mode)
    for _ in range(turns):
        caster = state.caster
        other = "P2" if caster == "P1" else "P1"
        main = rng.choice(MAINS)
        for cmd in (Command("call-main", {"main": main}),
                    Command("bet", {"player": caster, "bet": "caster-wins", "amount": wins}),
                    Command("bet", {"player": other, "bet": "caster-loses",
                                    "amount": loses})):
            state, _ = apply(state, cmd)
        chance = None
        while True:
            state, events = apply(state, engine.chance_step(state, rng))
            if events[-1].kind == "round-ended" or events[-1].kind == "dice-passed":
                break
            if state.chance is not None and chance is None:
                chance = state.chance
                amount = stake("odds", odds_pays(main, chance).unit)
                state, _ = apply(state, Command("bet", {"player": other, "bet": "odds",
                                                        "amount": amount}))
        settled(events, tallies, lambda bet, m=main, c=chance: f"{bet}:{m}" if bet != "odds"
                else f"odds:{m}:{c}")

    def exact(report: dict) -> dict[str, Fraction]:
        return {bet["id"]: Fraction(bet["house_edge_exact"]) for bet in report["bets"]}

    return Run(tallies, state, exact)
