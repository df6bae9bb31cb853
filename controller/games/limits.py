"""Table limits per bet kind: `min_KIND` and `max_KIND` settings within the table's own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.protocol import MAX_STAKE
from controller.settings import N_, Setting


def _key(kind: str) -> str:
    return kind.replace("-", "_")


def limit_settings(names: Mapping[str, str], maximum: int = 1000) -> tuple[Setting, ...]:
    """`min_KIND` and `max_KIND` settings for each bet kind (kind -> its name for people)."""
    out = []
    for kind, name in names.items():
        low = N_("smallest %(bet)s on a spot, in coins (min_bet applies too)")
        high = N_("largest %(bet)s on a spot, in coins (max_bet applies too)")
        out.append(Setting(f"min_{_key(kind)}", 1, low % {"bet": name}, minimum=1,
                           maximum=MAX_STAKE, words=(low, {"bet": name})))
        out.append(Setting(f"max_{_key(kind)}", maximum, high % {"bet": name}, minimum=1,
                           maximum=MAX_STAKE, words=(high, {"bet": name})))
    return tuple(out)


def limits(settings: Mapping[str, Any], kind: str) -> tuple[int, int]:
    """The smallest and largest stake of `kind` on one spot: the table's and the kind's limits."""
    lo = max(settings["min_bet"], settings.get(f"min_{_key(kind)}", 1))
    hi = min(settings["max_bet"], settings.get(f"max_{_key(kind)}", settings["max_bet"]))
    return lo, hi


def smallest_stake(settings: Mapping[str, Any], kind: str, unit: int) -> int | None:
    """The smallest stake of `kind`, a multiple of `unit`, or None when the limits admit none."""
    lo, hi = limits(settings, kind)
    first = -(-lo // unit) * unit
    return first if first <= hi else None
