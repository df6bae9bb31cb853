"""Hazard's page: the caster, the main and the chance, the bets, the losses in a row."""

from __future__ import annotations

from controller.games.hazard import BET_WORDS, BETS, MAINS, odds_pays
from web.modes import ModePage, PageInput, manual_rows, reason


def context(page: PageInput) -> dict:
    engine, state, view = page.engine, page.state, page.view
    unit = {"caster-wins": 1, "caster-loses": 1}
    if state.chance is not None:
        unit["odds"] = odds_pays(state.main, state.chance).unit
    mains = [{"main": m, "reason": reason(engine, state, "call-main", main=m)} for m in MAINS]
    seats = []
    bets = view["bets"]
    for player in state.seats:
        spots = []
        for kind in BETS:
            least = max(state.settings["min_bet"], unit.get(kind, 1))
            least = -(-least // unit.get(kind, 1)) * unit.get(kind, 1)
            spots.append({"bet": kind, "words": BET_WORDS[kind],
                          "amount": bets.get(f"bet:{player}:{kind}", 0),
                          "unit": unit.get(kind, 1),
                          "reason": reason(engine, state, "bet", player=player, bet=kind,
                                           amount=least)})
        seats.append({"player": player, "caster": player == state.caster, "spots": spots})
    return {"mains": mains, "seats": seats, "odds_pays": view.get("odds_pays"),
            "caster": state.caster, "main": state.main, "chance": state.chance,
            "throws": state.throws, "losses": state.losses,
            "losses_to_pass": state.settings["losses_to_pass"]}


def confirmation(page: PageInput) -> dict:
    faces = [1, 2, 3, 4, 5, 6]
    return {"kind": "throw", "arg": "dice", "ints": True,
            "rows": manual_rows([("d1", "Die 1", faces), ("d2", "Die 2", faces)]),
            "key": f"{page.state.rounds}-{page.state.throws}",
            "reason": reason(page.engine, page.state, "throw", dice=[1, 1])}


PAGE = ModePage("hazard", "modes/hazard.html", context, confirmation,
                holder=lambda page: page.state.caster, holder_word="Caster")
