"""The shooter's advisor for Fortunes and Winds: which dice to set aside after a roll.

Two choices, each with its figures from the exact odds: the set-aside that maximises the
expected return of the shooter's standard bet (Lord Moon money included), and the one that
maximises his chance to win the turn. The table service calls `advise_state(state)`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from controller.errors import IllegalCommand
from controller.games import find_game
from controller.games.fortunes_winds import (
    DIE,
    DIE_NAMES,
    DIE_OF,
    LORD_MOON,
    MAX_ROLLS,
    MAX_SET_ASIDE,
    MOON_DIE,
    STANDARD,
    WHITE_DICE,
    FortunesWindsState,
    combination_of,
    parse_faces,
)
from controller.odds.fortunes_winds import (
    CATEGORIES,
    OBJECTIVES,
    STRATEGY_WORDS,
    Counts,
    PayTable,
    Strategy,
    bet_figures,
    category,
    counts_of,
    strategy,
)


def _strategy(objective: str, settings: Mapping[str, Any] | None) -> tuple[Strategy, PayTable]:
    return _plan(objective, tuple(sorted((settings or {}).items())))


@lru_cache(maxsize=64)
def _plan(objective: str, settings: tuple[tuple[str, Any], ...]) -> tuple[Strategy, PayTable]:
    values = find_game("fortunes-winds").new_state(dict(settings)).settings
    pays = PayTable.of(values)
    return strategy(objective, pays), pays


def choose(showing: Mapping[str, str], set_aside: Iterable[str], roll: int,
           objective: str = "max-return",
           settings: Mapping[str, Any] | None = None) -> list[str]:
    """The labels of the dice just rolled to set aside under `objective` (fast, for play)."""
    kept = tuple(set_aside)
    plan, _ = _strategy(objective, settings)
    rolled = [d for d in WHITE_DICE if d not in kept]
    counts = plan.best(roll, counts_of(showing[d] for d in kept),
                       counts_of(showing[d] for d in rolled))
    out: list[str] = []
    for cat, n in zip(CATEGORIES, counts, strict=True):
        out += [showing[d] for d in rolled if category(showing[d]) == cat][:n]
    return out


def _figures(plan: Strategy, pays: PayTable, roll: int, kept: Counts) -> dict[str, Any]:
    dist = plan.distribution(roll, kept)
    fig = bet_figures(STANDARD, dist, pays)
    win: Fraction = fig["probability"]
    ret: Fraction = fig["expected"]
    return {"win_probability": float(win), "win_probability_exact": str(win),
            "expected_return": float(ret), "expected_return_exact": str(ret)}


def advise(showing: Mapping[str, str] | Iterable[str] | str, roll: int,
           set_aside: Iterable[str] = (), settings: Mapping[str, Any] | None = None) -> dict:
    """Both set-aside choices after roll `roll` (1 or 2) with the five dice `showing`.

    `showing` gives every die's face (labels, or die name -> label); `set_aside` names the
    dice (or their labels) set aside on earlier rolls of the turn.
    """
    faces = dict(showing) if isinstance(showing, Mapping) else parse_faces(
        showing.split() if isinstance(showing, str) else list(showing))
    kept: list[str] = []
    for name in set_aside:
        label = name.strip().upper() if isinstance(name, str) else name
        if label not in DIE_OF:
            raise IllegalCommand(f"{name!r} names no die: give a die's name or the face it shows")
        die = DIE_OF[label]
        if die not in faces:
            faces[die] = label
        elif faces[die] != label and label != die:
            raise IllegalCommand(f"the {DIE[die].title} shows {faces[die]}, not {label}")
        kept.append(die)
    if sorted(faces) != sorted(DIE_NAMES):
        missing = [d for d in DIE_NAMES if d not in faces]
        raise IllegalCommand("the advisor needs the face of every die; missing: "
                             + ", ".join(DIE[d].title for d in missing))
    if MOON_DIE in kept:
        raise IllegalCommand("the black Moon die is never set aside")
    if len(set(kept)) > MAX_SET_ASIDE:
        raise IllegalCommand(f"at most {MAX_SET_ASIDE} white dice are set aside in a turn")
    if roll not in range(1, MAX_ROLLS + 1):
        raise IllegalCommand(f"the roll number is 1, 2 or 3, not {roll}")
    row = [faces[d] for d in DIE_NAMES]
    out: dict[str, Any] = {"roll": roll, "showing": row,
                           "set_aside": [faces[d] for d in kept]}
    combo = combination_of(faces)
    if faces[MOON_DIE] == LORD_MOON or combo is not None or roll == MAX_ROLLS:
        out["turn_over"] = True
        out["result"] = ("lord-moon" if faces[MOON_DIE] == LORD_MOON else "win" if combo
                         else "no-combination")
        out["combination"] = combo.name if combo else None
        return out
    out["turn_over"] = False
    base = counts_of(faces[d] for d in kept)
    for objective in OBJECTIVES:
        plan, pays = _strategy(objective, settings)
        labels = choose(faces, kept, roll, objective, settings)
        after = tuple(a + b for a, b in zip(base, counts_of(labels), strict=True))
        out[objective] = {"set_aside": labels,
                          "roll_next": [faces[d] for d in DIE_NAMES
                                        if d not in kept and faces[d] not in labels],
                          **_figures(plan, pays, roll + 1, after),
                          "strategy": STRATEGY_WORDS[objective]}
    return out


def advise_state(state: FortunesWindsState) -> dict | None:
    """The advice for the shooter at this table now, or None when there is no choice to make."""
    if not state.roll:
        return None
    return advise(state.showing_map(), state.roll, state.set_aside, state.settings)


def advice_text(advice: dict) -> list[str]:
    """The advice for people (`feltbank advise fortunes-winds`)."""
    out: list[str] = []
    kept = f" (set aside before: {' '.join(advice['set_aside'])})" if advice["set_aside"] else ""
    out.append(f"roll {advice['roll']}: {' '.join(advice['showing'])}{kept}")
    if advice["turn_over"]:
        what = {"win": f"a win: {advice['combination']}", "lord-moon": "Lord Moon: a loss",
                "no-combination": "no combination after the third roll: a loss"}
        out.append(f"the turn is over: {what[advice['result']]}")
        return out
    for objective, title in (("max-return", "best return"), ("max-win", "best chance to win")):
        a = advice[objective]
        aside = " ".join(a["set_aside"]) or "nothing"
        out.append(f"{title + ':':<20} set aside {aside}, roll {' '.join(a['roll_next'])}: "
                   f"wins the turn {100 * a['win_probability']:.3f}%, expected return "
                   f"{a['expected_return']:+.4f} per coin of standard bet")
    return out
