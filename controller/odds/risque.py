"""Exact odds of Risque: the chance of reaching 10 with the dice left after the Mises.

A character with a pool of k dice who sets m of them aside as Mises rolls k - m six-sided dice
and needs a total of 10 or more (seeds/risque-fr.md). Counted exactly, over every face.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from typing import Any

from controller.odds import table
from controller.settings import N_

#: The total a Risque needs for the Privilege and the Mises (10+).
TARGET = 10


@cache
def ways(n: int) -> tuple[int, ...]:
    """ways(n)[t]: the number of ways n six-sided dice total t (t from 0 to 6n)."""
    if n < 0:
        raise ValueError(f"{n} dice: expected 0 or more")
    counts = [1]
    for _ in range(n):
        nxt = [0] * (len(counts) + 6)
        for total, count in enumerate(counts):
            for face in range(1, 7):
                nxt[total + face] += count
        counts = nxt
    return tuple(counts)


def p_at_least(n: int, target: int = TARGET) -> Fraction:
    """The chance that n dice total `target` or more."""
    counts = ways(n)
    return Fraction(sum(counts[max(target, 0):]), 6**n)


def reach(k: int, m: int, target: int = TARGET) -> Fraction:
    """The chance of reaching `target` (10) with a pool of k dice after m Mises."""
    if k < 0 or m < 0 or m > k:
        raise ValueError(f"a pool of {k} dice with {m} Mises: expected 0 <= Mises <= dice")
    return p_at_least(k - m, target)


def expected_truths(k: int, m: int) -> Fraction:
    """Alone in a Risque, the Truths to expect with a pool of k dice and m Mises: one and
    one per Mise, if the roll reaches 10 (the Privilege keeps every Mise)."""
    return reach(k, m) * (1 + m)


def best_mises(k: int) -> int:
    """The Mises that give the most Truths to expect, alone in a Risque (fewest on a tie)."""
    return max(range(k), key=lambda m: (expected_truths(k, m), -m))


def fraction_json(p: Fraction) -> dict:
    """A probability for screens: exact as "a/b", and as a float."""
    return {"exact": f"{p.numerator}/{p.denominator}", "p": float(p)}


def odds(settings: Mapping[str, Any] | None = None, max_pool: int = 20) -> dict:
    """The report of `feltbank odds risque`: for pools of 1 to `max_pool` dice and every
    number of Mises, the exact chance of reaching 10 (Risque has no bets and no house)."""
    rows = []
    for k in range(1, max_pool + 1):
        rows.append({"dice": k, "best_mises": best_mises(k),
                     "by_mises": [{"mises": m, **fraction_json(reach(k, m)),
                                   "truths": float(expected_truths(k, m))}
                                  for m in range(k)]})
    return {"mode": "risque", "game": "risque", "title": "Risque", "bets": [],
            "target": TARGET, "pools": rows,
            "summary": N_("Risque has no bets and no house: what matters is the chance that "
                          "a character reaches 10, by the dice in the pool and the Mises set "
                          "aside (they are not rolled)."),
            "tables": [table(
                N_("Chance of reaching 10 with a pool of dice after the Mises"), N_("Pool"),
                [{"text": N_("Mises: %(mises)d"), "values": {"mises": m}}
                 for m in range(TABLE_MISES + 1)] + [N_("Best Mises alone")],
                [(k, [fraction_json(reach(k, m)) if m < k else None
                      for m in range(TABLE_MISES + 1)] + [best_mises(k)])
                 for k in range(1, TABLE_POOLS + 1)])]}


#: The dashboard's table: pools of 1 to 12 dice, 0 to 6 Mises (the JSON has them all).
TABLE_POOLS, TABLE_MISES = 12, 6


def odds_text(report: Mapping) -> list[str]:
    """The same report for people: one line per pool, the chance (%) for 0, 1, 2... Mises."""
    lines = [f"Chance (%) of reaching {report['target']} with a pool of k dice after m = 0, "
             "1, 2... Mises; * the Mises with the most Truths to expect alone:"]
    for row in report["pools"]:
        cells = " ".join(f"{c['p'] * 100:5.1f}{'*' if c['mises'] == row['best_mises'] else ' '}"
                         for c in row["by_mises"][:12])
        lines.append(f"k={row['dice']:>2}: {cells}")
    return lines
