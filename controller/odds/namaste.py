"""Exact odds of Namaste: the chance that a total can be entered from one roll.

The active player rolls the turquoise die and k white dice (k = 1 to 3) and may enter any total
of all of them; the others any total of the white dice alone; each 1/7 face counts 1 or 7 as
each player chooses (seeds/namaste.md). Counted exactly over all 6^(k+1) rolls.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from typing import Any

from controller.games.namaste import FACES, totals
from controller.odds import table
from controller.odds.risque import fraction_json
from controller.settings import N_


@cache
def can_make(dice: int) -> dict[int, Fraction]:
    """For `dice` dice, each total: the chance that a roll lets the player enter it."""
    counts: dict[int, int] = {}
    for roll in itertools.product(FACES, repeat=dice):
        for total in totals(roll):
            counts[total] = counts.get(total, 0) + 1
    return {t: Fraction(n, 6**dice) for t, n in sorted(counts.items())}


def odds(settings: Mapping[str, Any] | None = None) -> dict:
    """The report of `feltbank odds namaste`: for one to three white dice, the chance of each
    total for the active player (with the turquoise die) and for the others (white dice)."""
    rows = []
    for white in (1, 2, 3):
        rows.append({"white_dice": white,
                     "active": {str(t): fraction_json(p) for t, p in can_make(white + 1).items()},
                     "others": {str(t): fraction_json(p) for t, p in can_make(white).items()}})
    columns, cells = [], []
    for row in rows:
        for who, words in (("active", N_("on turn, %(white)d white")),
                           ("others", N_("others, %(white)d white"))):
            columns.append({"text": words, "values": {"white": row["white_dice"]}})
            cells.append(row[who])
    top = max(int(t) for row in rows for t in row["active"])
    return {"mode": "namaste", "game": "namaste", "title": "Namaste", "bets": [], "rolls": rows,
            "summary": N_("Namaste has no bets and no house: what matters is the chance that "
                          "a roll lets a player enter a total. The player on turn adds the "
                          "turquoise die to the white dice; the others use the white dice "
                          "alone; a 1/7 face counts 1 or 7."),
            "tables": [table(N_("Chance that one roll lets a player enter each total"),
                             N_("Total"), columns,
                             [(str(t), [c.get(str(t)) for c in cells])
                              for t in range(1, top + 1)])]}


def odds_text(report: Mapping) -> list[str]:
    lines = ["Chance that a roll lets a player enter each total (each 1/7 counted 1 or 7):"]
    for row in report["rolls"]:
        for who in ("active", "others"):
            cells = " ".join(f"{t}:{c['p'] * 100:.0f}%" for t, c in row[who].items())
            lines.append(f"{row['white_dice']} white, {who}: {cells}")
    return lines
