"""The Rugen pages: the chain's markers, each seat's spots, the die's faces to tap.

The camera reads the die to its Rugen face; the banker may tap the face it shows instead (or
the number a standard d20 shows, on a d20 table).
"""

from __future__ import annotations

from controller.games.rugen import (
    BASE,
    D20,
    FACE_LABELS,
    HOUSE_KINDS,
    HOUSE_NAMES,
    NUMBERS,
    HouseBet,
    house_unit,
    prices,
)
from controller.settings import N_
from web.modes import ModePage, PageInput, reason


def _faces(page: PageInput) -> list[dict]:
    """The buttons of a roll: a Rugen die's eight faces, or a d20's twenty numbers."""
    engine, state = page.engine, page.state
    if state.settings["die"] == "d20":
        return [{"cmd": {"kind": "roll", "d20": n}, "label": f"{n} · {D20[n]}",
                 "reason": reason(engine, state, "roll", d20=n)} for n in range(1, 21)]
    return [{"cmd": {"kind": "roll", "face": f}, "label": f,
             "reason": reason(engine, state, "roll", face=f)} for f in FACE_LABELS]


def _common(page: PageInput) -> dict:
    view = page.view
    return {"game": page.state.mode, "die": page.state.settings["die"],
            "chain": view["chain"], "markers": {str(n): m for n, m in view["markers"].items()},
            "faces": _faces(page), "bets": view["bets"]}


def house_context(page: PageInput) -> dict:
    engine, state = page.engine, page.state
    seats = []
    for player in state.seats:
        placed = page.view["bets"].get(player, {})
        rows = []
        for n in NUMBERS:
            spots = []
            for kind in HOUSE_KINDS:
                bet = HouseBet(kind, n)
                unit = house_unit(state.settings, bet)
                least = -(-state.settings["min_bet"] // unit) * unit
                spots.append({"bet": bet.id, "kind": kind, "words": HOUSE_NAMES[kind], "number": n,
                              "amount": placed.get(bet.id, 0),
                              "reason": reason(engine, state, "bet", player=player, bet=bet.id,
                                               amount=least)})
            rows.append({"number": n, "spots": spots})
        seats.append({"player": player, "rows": rows})
    return {**_common(page), "seats": seats, "last": page.view["last"]}


def street_context(page: PageInput) -> dict:
    engine, state = page.engine, page.state
    k = state.multipliers.get("core")
    core = state.pools.get("core", {})
    seats = []
    for player in state.seats:
        spots = []
        for n in NUMBERS:
            amount = BASE[n] * k if k else "$chip"
            spots.append({"number": n, "taken": core.get(n), "amount": amount,
                          "stake": page.view["bets"].get(player, {}).get(f"street:{n}", 0),
                          "words": f"{n} ({BASE[n]}{' x ' + str(k) if k else ''})",
                          "reason": reason(engine, state, "bet", player=player, number=n,
                                           amount=BASE[n] * (k or 1))})
        seats.append({"player": player, "shooter": player == state.shooter, "spots": spots})
    groups = {g: {str(n): p for n, p in t.items()} for g, t in state.pools.items() if g != "core"}
    return {**_common(page), "seats": seats, "shooter": state.shooter, "phase": state.phase,
            "point": state.point, "multiplier": k, "groups": groups,
            "players": list(state.seats), "numbers": list(NUMBERS),
            "pass_reason": reason(engine, state, "pass-die")}


def capital_context(page: PageInput) -> dict:
    engine, state = page.engine, page.state
    player_price, house_price = prices(state.settings)
    k = state.multiplier
    seats = []
    for player in state.seats:
        spots = []
        for n in NUMBERS:
            spots.append({"number": n, "taken": state.takers.get(n),
                          "stake": page.view["bets"].get(player, {}).get(f"capital:{n}", 0),
                          "amount": player_price[n] * k if k else "$chip",
                          "words": f"{n} ({player_price[n]}{' x ' + str(k) if k else ''})",
                          "reason": reason(engine, state, "bet", player=player, number=n,
                                           amount=player_price[n] * (k or 1))})
        seats.append({"player": player, "spots": spots})
    return {**_common(page), "seats": seats, "phase": state.phase, "multiplier": k,
            "prices": {"player": player_price, "house": house_price},
            "house": {str(n): s for n, s in state.house.items()}}


def faces_for(label: str | None) -> list[str]:
    """What the banker may tap for a die read as `label`: a d20's numbers when it was read as
    one, else the Rugen die's faces."""
    if label is not None and label.isdigit():
        return [str(n) for n in range(1, 21)]
    return list(FACE_LABELS)


#: The journal's words for the mode's own commands, arguments and events.
JOURNAL = {
    "chain-broken": N_("chain broken"),
    "die-passed": N_("die passed"),
    "face": N_("face"),
    "group": N_("group"),
    "house-covers": N_("house covers"),
    "number": N_("number"),
    "pass-die": N_("pass the die"),
    "point": N_("point"),
    "side-bet": N_("side bet"),
}


HOUSE_PAGE = ModePage("house-rugen", "modes/rugen.html", house_context,
                      faces_for=faces_for, journal_words=JOURNAL)
STREET_PAGE = ModePage("street-rugen", "modes/rugen.html", street_context,
                       holder=lambda page: page.state.shooter, holder_word="Shooter",
                       faces_for=faces_for, journal_words=JOURNAL)
CAPITAL_PAGE = ModePage("capital-rugen", "modes/rugen.html", capital_context,
                        faces_for=faces_for, journal_words=JOURNAL)
