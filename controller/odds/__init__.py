"""Exact odds of the dice games, in Fractions, from exhaustive enumeration over the dice.

    report = odds("fortunes-winds", settings)   # the JSON of `feltbank odds MODE --json`
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.errors import IllegalCommand
from controller.games import find_game

#: Modes with an odds report, by name.
MODES = ("fortunes-winds", "hazard")


def odds(game: str, settings: Mapping[str, Any] | None = None) -> dict:
    """The odds report of `game` with the house's `settings` over the mode's defaults."""
    if game not in MODES:
        raise IllegalCommand(f"no odds for {game!r}; odds are computed for {', '.join(MODES)}")
    state = find_game(game).new_state(settings or {})
    if game == "fortunes-winds":
        from controller.odds import fortunes_winds as module
    else:
        from controller.odds import hazard as module  # type: ignore[no-redef]
    return module.odds(state.settings)
