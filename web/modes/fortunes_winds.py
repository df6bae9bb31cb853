"""Fortunes and Winds' page: the felt (standard, Lord Moon, side bets per seat), the dice,
set-aside, the advisor's hint, pass or a new turn."""

from __future__ import annotations

import logging

from controller.errors import IllegalCommand
from controller.games.base import RoundEnded
from controller.games.fortunes_winds import (
    BET_NAMES,
    DIE,
    DIE_NAMES,
    DIE_OF,
    EQUIPMENT,
    LABELS,
    LORD_MOON_SPOT,
    MAX_SET_ASIDE,
    MOON_DIE,
    STANDARD,
    pays_of,
    smallest_stake,
    stake_unit,
)
from web.i18n import N_, t, tn
from web.modes import ModePage, PageInput, glyphs, manual_rows, reason, result_line

log = logging.getLogger(__name__)

#: The kanji printed on each face (the seed's dice, from equipment/fortunes-and-winds.json).
KANJI = glyphs(EQUIPMENT)

#: The felt's spaces for one seat, as the seed draws them: (bet, name, words), two rows.
FELT = (
    (("daikoku-for", "Daikoku's Belly", "Win: bet 2 to win 3"),
     (STANDARD, "Standard Bet", ""),
     ("lady-sun-tea", "Lady Sun's Tea", "3 rolls: bet 1 to win 1")),
    (("daikoku-against", "Daikoku's Belly", "Lose: bet 3 to win 2"),
     (LORD_MOON_SPOT, "Bet for Lord Moon", ""),
     ("hungry-moon", "Hungry Moon", "Fewer: bet 1 to win 1, bar Fortunes & Winds")),
)


def _advice(state) -> dict | None:
    if not state.roll:
        return None
    try:
        from controller.odds.fortunes_winds_advisor import advise_state
    except ImportError:
        return None
    try:
        advice = advise_state(state)
    except IllegalCommand as exc:
        # E.g. after dice were set aside on this roll: the choice is made, no hint to give.
        log.debug("no advice: %s", exc)
        return None
    except Exception:  # the hint is a help; the table goes on without it
        log.exception("the advisor failed")
        return None
    if not advice or advice.get("turn_over"):
        return None
    return advice.get("max-return")


def context(page: PageInput) -> dict:
    engine, state, view = page.engine, page.state, page.view
    settings = state.settings
    offered = set(view["bet_kinds"])
    seats = []
    for player in state.seats:
        on = view["bets"].get(player, {})
        rows = []
        for row in FELT:
            spots = []
            for kind, short, words in row:
                spot = {"bet": kind, "short": short, "words": words, "amount": on.get(kind, 0),
                        "name": BET_NAMES.get(kind, "Lord Moon money")}
                if kind == LORD_MOON_SPOT:
                    spot.update(passive=True, reason="the Lord Moon money is laid with the "
                                "standard bet, as much again")
                elif kind not in offered:
                    spot.update(passive=True, reason="this house has no space for betting "
                                "against the shooter")
                else:
                    least = smallest_stake(settings, kind) or stake_unit(settings, kind)
                    spot.update(unit=stake_unit(settings, kind), least=least,
                                pays=None if kind == STANDARD else str(pays_of(settings, kind)),
                                reason=reason(engine, state, "bet", player=player, bet=kind,
                                              amount=least))
                spots.append(spot)
            rows.append(spots)
        seats.append({"player": player, "shooter": player == state.shooter, "rows": rows,
                      "balance": view["balances"].get(player, 0)})
    # Between turns the felt is clear: the dice show nothing until the next roll (how the
    # last turn ended is in the settlement card).
    showing = view["showing"] if state.roll else {}
    past = False
    pickable = state.roll and view["may_set_aside"] > 0
    dice = []
    for name in DIE_NAMES:
        face = showing.get(name)
        aside = name in state.set_aside
        dice.append({"die": name, "title": DIE[name].title, "colour": DIE[name].colour,
                     "face": face, "aside": aside, "past": past, "kanji": KANJI.get(face, ""),
                     "pickable": bool(pickable and face and not aside and name != MOON_DIE)})
    first_pick = next((d["face"] for d in dice if d["pickable"]), None)
    set_aside_reason = (reason(engine, state, "set-aside", dice=[first_pick]) if first_pick
                        else t(N_("dice are set aside after a roll with neither Lord Moon nor "
                                  "a combination")) if not state.roll else
                        t(N_("at most %(most)s white dice are set aside in a turn"))
                        % {"most": MAX_SET_ASIDE})
    return {"seats": seats, "dice": dice, "shooter": state.shooter, "roll": state.roll,
            "phase": view["phase"], "may_set_aside": view["may_set_aside"],
            "set_aside_reason": set_aside_reason,
            "pass_reason": reason(engine, state, "pass"),
            "may_pass": view["may_pass"], "won_last": state.won_last,
            "advice": _advice(state), "last_turn": view["last_turn"]}


def confirmation(page: PageInput) -> dict:
    state = page.state
    rows = manual_rows([(d, DIE[d].title, list(dict.fromkeys(DIE[d].faces)))
                        for d in state.to_roll()])
    for row in rows:
        row["colour"] = DIE[row["key"]].colour
    return {"kind": "roll", "arg": "faces", "ints": False, "rows": rows,
            "key": f"{state.rounds}-{state.roll}",
            "reason": reason(page.engine, state, "roll",
                             faces=[DIE[d].faces[0] for d in state.to_roll()])}


def faces_for(label: str | None) -> list[str]:
    """The faces of the die that `label` is on; every face when the die was not read."""
    if label in DIE_OF:
        return list(dict.fromkeys(DIE[DIE_OF[label]].faces))
    return list(LABELS)


def ended_line(ended: RoundEnded, t) -> str:
    """The combination, the result, the rolls made: "Empty Winds won · 2 rolls"."""
    rolls = ended.details.get("rolls")
    line = f"{t(ended.details.get('combination_name') or '')} {result_line(ended, t)}".strip()
    return f"{line} · {tn('%(num)d roll', '%(num)d rolls', rolls)}" if rolls else line


PAGE = ModePage("fortunes-winds", "modes/fortunes_winds.html", context, confirmation,
                holder=lambda page: page.state.shooter,
                faces_for=faces_for, face_marks=KANJI, ended_line=ended_line)
