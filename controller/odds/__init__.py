"""Exact odds of the dice games, in Fractions, from exhaustive enumeration over the dice.

    report = odds(mode, settings)   # the JSON of `feltbank odds MODE --json`

Each mode computes its own (its `Mode.odds_ref`, e.g. `controller/odds/MODE.py`). Every
report has `game`, `title` and `bets` (each bet's probability, pays and house edge). A mode
without bets against the house (Namaste, Risque) has no bets and says what its odds are in
`summary` and `tables`, the shape made by `table()`: the dashboard's odds section and
`feltbank odds MODE` show any mode's tables without knowing the mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from controller.errors import IllegalCommand
from controller.modes import find_mode, modes, with_part

#: Words of a report's tables: a word ("Pool"), or a template and its values
#: ({"text": "%(mises)d Mises", "values": {"mises": 2}}) so a screen translates the template.
Words = str | dict


def words(item: Words) -> str:
    """A report's words in English (the dashboard translates `text` before filling it in)."""
    if isinstance(item, dict):
        return item["text"] % item.get("values", {})
    return str(item)


def probability(p: Fraction) -> dict:
    """A probability for reports: exact as "a/b", and as a float."""
    return {"exact": f"{p.numerator}/{p.denominator}", "p": float(p)}


def table(title: Words, label: Words, columns: list[Words],
          rows: list[tuple[Words | int, list[Any]]]) -> dict:
    """A table of a report, for modes whose odds are not bets: `rows` are (label, cells), a
    cell a `probability()`, a number or None (does not apply)."""
    for row_label, cells in rows:
        if len(cells) != len(columns):
            raise ValueError(f"row {row_label!r} has {len(cells)} cells for {len(columns)} "
                             "columns")
    return {"title": title, "label": label, "columns": list(columns),
            "rows": [{"label": row_label, "cells": list(cells)} for row_label, cells in rows]}


def table_text(tab: dict) -> list[str]:
    """A report's table for people: a title line, a header and one line a row (% to 1 place)."""
    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, dict):
            return f"{100 * value['p']:.1f}"
        return str(value)

    head = [words(tab["label"])] + [words(c) for c in tab["columns"]]
    body = [[words(r["label"])] + [cell(c) for c in r["cells"]] for r in tab["rows"]]
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
    lines = [words(tab["title"]) + " (%):"]
    for line in [head, *body]:
        lines.append("  ".join(text.rjust(w) for text, w in zip(line, widths, strict=True)))
    return lines


def pct(x: float) -> str:
    """A probability or edge as people read it: a percentage, 7 wide, 3 decimals."""
    return f"{100 * x:7.3f}%"


def odds_modes() -> list[str]:
    """The modes with an odds report, by name."""
    return with_part("odds")


def odds(game: str, settings: Mapping[str, Any] | None = None) -> dict:
    """The odds report of `game` with the house's `settings` over the mode's defaults."""
    if game not in modes() or not find_mode(game).odds_ref:
        raise IllegalCommand(f"no odds for {game!r}; odds are computed for "
                             f"{', '.join(odds_modes())}")
    return find_mode(game).odds(settings)
