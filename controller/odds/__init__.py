"""Exact odds of the dice games, in Fractions, from exhaustive enumeration over the dice.

    report = odds(mode, settings)   # the JSON of `feltbank odds MODE --json`

Each mode computes its own (its `Mode.odds_ref`, e.g. `controller/odds/MODE.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.errors import IllegalCommand
from controller.modes import find_mode, modes, with_part


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
