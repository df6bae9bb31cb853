"""Exact odds of Rugen (Street, House, Capital): dynamic programming over the chain, in Fractions.

A roll shows N with chance 2N/20 (Day and Night N/20 each). The chain is a walk over the
markers (how often each number was rolled) until a number N reaches N rolls. With numbers that
nobody took, their rolls are ignored: the walk then runs over the taken numbers only, each roll
being N with chance p(N) / (sum of p over the taken numbers). Given that N breaks, each of its
N rolls is Day or Night with chance 1/2, independently of the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import cache
from itertools import combinations
from typing import Any

from controller.games.rugen import (
    BASE,
    HALVES,
    NUMBERS,
    SCHEDULES,
    HouseBet,
    house_pays,
    prices,
)


def p_number(n: int) -> Fraction:
    """The chance a roll of the Rugen die shows `n` (Day or Night)."""
    return Fraction(2 * n, 20)


@cache
def break_chances(taken: frozenset[int] = frozenset(NUMBERS),
                  start: tuple[int, ...] = (0, 0, 0, 0)) -> Mapping[int, Fraction]:
    """The chance each taken number is the first of them to break, from the markers `start`
    (rolls of each number 1..4 so far), rolls of untaken numbers ignored."""
    order = sorted(taken)
    total = sum(p_number(n) for n in order)
    step = {n: p_number(n) / total for n in order}
    level = {tuple(start[n - 1] for n in order): Fraction(1)}
    out = dict.fromkeys(order, Fraction(0))
    while level:
        nxt: dict[tuple[int, ...], Fraction] = {}
        for markers, p in level.items():
            for i, n in enumerate(order):
                q = p * step[n]
                if markers[i] + 1 == n:
                    out[n] += q
                else:
                    key = markers[:i] + (markers[i] + 1,) + markers[i + 1:]
                    nxt[key] = nxt.get(key, Fraction(0)) + q
        level = nxt
    return out


@cache
def chain_lengths() -> Mapping[int, Fraction]:
    """The chance the chain (every number taken) breaks on roll n, n = 1..7."""
    level = {(0, 0, 0, 0): Fraction(1)}
    out: dict[int, Fraction] = {}
    t = 0
    while level:
        t += 1
        nxt: dict[tuple[int, ...], Fraction] = {}
        for markers, p in level.items():
            for n in NUMBERS:
                q = p * p_number(n)
                if markers[n - 1] + 1 == n:
                    out[t] = out.get(t, Fraction(0)) + q
                else:
                    key = markers[:n - 1] + (markers[n - 1] + 1,) + markers[n:]
                    nxt[key] = nxt.get(key, Fraction(0)) + q
        level = nxt
    return out


def _row(bet_id: str, p: Fraction, pays: str, expected: Fraction, **extra: Any) -> dict:
    """One bet of a report: its chance, pays and the house edge (minus the expected net)."""
    return {"id": bet_id, "probability": float(p), "probability_exact": str(p), "pays": pays,
            "house_edge": float(-expected), "house_edge_exact": str(-expected), **extra}


def house_bet(settings: Mapping[str, Any], kind: str, n: int) -> tuple[Fraction, str, Fraction]:
    """A House Rugen bet's chance of winning, its pays and its expected net per coin."""
    bet = HouseBet(kind, n)
    day, night = (house_pays(settings, bet, h) for h in HALVES)
    if kind == "center":
        p_half = (Fraction(n, 20), Fraction(n, 20))
    elif kind in ("day", "night"):
        p_half = (Fraction(n, 20), Fraction(0)) if kind == "day" else (Fraction(0),
                                                                       Fraction(n, 20))
    else:
        b = break_chances()[n]
        if kind == "chain":
            p_half = (b / 2, b / 2)
        else:
            p = b / 2 ** n
            p_half = (p, Fraction(0)) if kind == "chain-day" else (Fraction(0), p)
    p = sum(p_half)
    expected = p_half[0] * day.ratio + p_half[1] * night.ratio - (1 - p)
    text = str(day) if str(day) == str(night) or kind in ("day", "night", "chain-day",
                                                          "chain-night") else f"{day}/{night}"
    if kind == "night":
        text = str(night)
    return p, text, expected


def house_report(settings: Mapping[str, Any]) -> dict:
    """The odds report of House Rugen (`feltbank odds house-rugen --json`) at the table's pays."""
    bets = []
    for kind in ("center", "day", "night", "chain", "chain-day", "chain-night"):
        for n in NUMBERS:
            p, text, expected = house_bet(settings, kind, n)
            bets.append(_row(f"{kind}:{n}", p, text, expected, number=n))
    lengths = chain_lengths()
    return {
        "game": "house-rugen",
        "title": "House Rugen",
        "die": settings["die"],
        "chain_breaks": {str(n): float(p) for n, p in break_chances().items()},
        "expected_chain_rolls": float(sum(t * p for t, p in lengths.items())),
        "notes": [
            "center:N, day:N, night:N: one-roll bets on the next roll, staked in multiples of "
            "N; pays D/N: the Day figure on a Day roll, the Night figure on a Night roll",
            "chain:N pays the Day or Night figure by the roll that breaks the chain; "
            "chain-day:N and chain-night:N need every roll of N in the chain of that half",
            "chain bets placed at the start of a chain",
        ],
        "bets": bets,
    }


def street_bets(taken: Iterable[int]) -> dict[int, dict[str, Fraction]]:
    """With `taken` numbers bet (base x one k each), each bet's chance to take all and its
    expected net per coin staked."""
    taken = frozenset(taken)
    pot = sum(BASE[n] for n in taken)
    out = {}
    for n, p in break_chances(taken).items():
        out[n] = {"probability": p, "expected": p * pot / BASE[n] - 1}
    return out


def street_report(settings: Mapping[str, Any] | None = None) -> dict:
    full = street_bets(NUMBERS)
    bets = [_row(f"street:{n}", v["probability"], f"{sum(BASE.values()) - BASE[n]}:{BASE[n]}",
                 v["expected"], number=n, base=BASE[n], expected_return=float(v["expected"]),
                 point_probability=float(p_number(n)))
            for n, v in full.items()]
    subsets = []
    for size in range(2, 5):
        for taken in combinations(NUMBERS, size):
            subsets.append({"taken": list(taken), "bets": [
                {"id": f"street:{n}", "probability": float(v["probability"]),
                 "probability_exact": str(v["probability"]),
                 "expected_return": float(v["expected"]),
                 "expected_return_exact": str(v["expected"])}
                for n, v in street_bets(taken).items()]})
    return {
        "game": "street-rugen",
        "title": "Street Rugen",
        "notes": [
            "street:N with all four numbers taken: the winner takes the whole pot, 20 x k; "
            "house_edge is minus the expected return per coin staked, paid to the other "
            "players, not to a house",
            "subsets: every set of taken numbers; rolls of the others are ignored",
        ],
        "bets": bets,
        "subsets": subsets,
    }


def capital_bets(player: Mapping[int, int], house: Mapping[int, int],
                 taken: Iterable[int]) -> dict[int, dict[str, Fraction]]:
    """Players on `taken` at their price, the house on the rest at its price: each player
    bet's chance to take all and expected net per coin."""
    taken = frozenset(taken)
    pot = sum(player[n] if n in taken else house[n] for n in NUMBERS)
    chances = break_chances()
    return {n: {"probability": chances[n], "expected": chances[n] * pot / player[n] - 1}
            for n in sorted(taken)}


def capital_report(settings: Mapping[str, Any]) -> dict:
    schedules = {name: (dict(zip(NUMBERS, s["player"], strict=True)),
                        dict(zip(NUMBERS, s["house"], strict=True)))
                 for name, s in SCHEDULES.items()}
    schedules[settings["schedule"]] = prices(settings)
    table_player, table_house = prices(settings)
    solo = {n: capital_bets(table_player, table_house, [n])[n] for n in NUMBERS}
    bets = [_row(f"capital:{n}", v["probability"],
                 f"{sum(table_house.values()) - table_house[n]}:{table_player[n]}",
                 v["expected"], number=n, price=table_player[n], house_price=table_house[n],
                 expected_return=float(v["expected"]))
            for n, v in solo.items()]
    out_schedules = []
    for name, (player, house) in schedules.items():
        rows = []
        for size in range(1, 5):
            for taken in combinations(NUMBERS, size):
                for n, v in capital_bets(player, house, taken).items():
                    rows.append({"id": f"capital:{n}", "taken": list(taken),
                                 "probability": float(v["probability"]),
                                 "expected_return": float(v["expected"]),
                                 "expected_return_exact": str(v["expected"])})
        out_schedules.append({"name": name, "player": [player[n] for n in NUMBERS],
                              "house": [house[n] for n in NUMBERS], "bets": rows})
    return {
        "game": "capital-rugen",
        "title": "Capital Rugen",
        "schedule": settings["schedule"],
        "notes": [
            "bets: a player alone against the house (the house covers the other three "
            "numbers) at this table's schedule; pays: what the rest of the pot adds to the "
            "stake",
            "schedules: each preset and this table's, for every set of numbers players take",
        ],
        "bets": bets,
        "schedules": out_schedules,
    }


def odds_text(report: dict) -> list[str]:
    """The odds report for people (`feltbank odds house-rugen` ...)."""
    from controller.odds import pct

    out = [report["title"], "", f"{'bet':<16}{'pays':>10}{'P(win)':>10}{'edge':>10}"]
    for bet in report["bets"]:
        out.append(f"{bet['id']:<16}{bet['pays']:>10}{pct(bet['probability']):>10}"
                   f"{pct(bet['house_edge']):>10}")
    if report["game"] == "street-rugen":
        out += ["", "edge: minus the expected return per coin; paid to the other players"]
    if report["game"] == "capital-rugen":
        out += ["", "a player alone against the house; by schedule:"]
        for schedule in report["schedules"]:
            alone = [b for b in schedule["bets"] if len(b["taken"]) == 1]
            out.append(f"  {schedule['name']:<8}" + "  ".join(
                f"{b['id']} {100 * -b['expected_return']:.2f}%" for b in alone))
    return out


# -- seeded simulation (`feltbank simulate house-rugen|street-rugen|capital-rugen`) -------------


def _exact(report: dict) -> dict[str, Fraction]:
    return {bet["id"]: Fraction(bet["house_edge_exact"]) for bet in report["bets"]}


def simulate_house(turns: int, rng, settings: Mapping[str, Any] | None, strategy: str = ""):
    """Two seats: at each chain's start P2 bets every chain bet; before every roll P1 bets
    every one-roll bet, each at its smallest stake. A turn is one chain."""
    from controller.games import apply, find_game, limits
    from controller.games.base import Command
    from controller.games.rugen import HOUSE_KINDS, ONE_ROLL, house_unit, spot_id
    from controller.simulate import Run, Tally, open_table, settled

    state = open_table("house-rugen", settings)
    engine = find_game("house-rugen")
    stakes = {}
    for kind in HOUSE_KINDS:
        for n in NUMBERS:
            bet = HouseBet(kind, n)
            least = limits.smallest_stake(state.settings, kind, house_unit(state.settings, bet))
            if least is not None:
                stakes[bet] = least
    tallies: dict[str, Tally] = {}
    for _ in range(turns):
        for bet, amount in stakes.items():
            if bet.kind not in ONE_ROLL:
                state, _ = apply(state, Command("bet", {"player": "P2", "bet": bet.id,
                                                        "amount": amount}))
        while True:
            for bet, amount in stakes.items():
                if bet.kind in ONE_ROLL:
                    state, _ = apply(state, Command("bet", {"player": "P1", "bet": bet.id,
                                                            "amount": amount}))
            state, events = apply(state, engine.chance_step(state, rng))
            settled(events, tallies, spot_id)
            if events[-1].kind == "round-ended":
                break
    return Run(tallies, state, _exact)


def simulate_street(turns: int, rng, settings: Mapping[str, Any] | None, strategy: str = ""):
    """Four seats: the shooter throws his point and bets its base; the others take the other
    numbers in seat order at the same multiplier; the chain runs to the break."""
    from controller.games import apply, find_game
    from controller.games.base import Command
    from controller.games.play import seated_table
    from controller.games.rugen import BASE, spot_id
    from controller.simulate import COINS, Run, Tally, settled

    state = None
    for cmd in seated_table("street-rugen", players=4, coins=COINS):
        if cmd.kind == "open":
            cmd = Command("open", {"mode": "street-rugen", "settings": dict(settings or {})})
        state, _ = apply(state, cmd)
    engine = find_game("street-rugen")
    tallies: dict[str, Tally] = {}
    for _ in range(turns):
        state, _ = apply(state, engine.chance_step(state, rng))
        shooter, point = state.shooter, state.point
        others = [p for p in state.seats if p != shooter]
        free = [n for n in NUMBERS if n != point]
        for player, n in [(shooter, point), *zip(others, free, strict=True)]:
            state, _ = apply(state, Command("bet", {"player": player, "number": n,
                                                    "amount": BASE[n]}))
        while True:
            state, events = apply(state, engine.chance_step(state, rng))
            if events[-1].kind in ("round-ended", "die-passed"):
                break
        settled(events, tallies, spot_id)
    return Run(tallies, state, _exact)


def simulate_capital(turns: int, rng, settings: Mapping[str, Any] | None, strategy: str = ""):
    """Two seats: P1 alone takes a number drawn at random at the player price; the house
    covers the other three."""
    from controller.games import apply, find_game
    from controller.games.base import Command
    from controller.games.rugen import spot_id
    from controller.simulate import Run, Tally, open_table, settled

    state = open_table("capital-rugen", settings)
    engine = find_game("capital-rugen")
    player_price = prices(state.settings)[0]
    tallies: dict[str, Tally] = {}
    for _ in range(turns):
        n = rng.choice(NUMBERS)
        state, _ = apply(state, Command("bet", {"player": "P1", "number": n,
                                                "amount": player_price[n]}))
        while True:
            state, events = apply(state, engine.chance_step(state, rng))
            if events[-1].kind == "round-ended":
                break
        settled(events, tallies, spot_id)
    return Run(tallies, state, _exact)

