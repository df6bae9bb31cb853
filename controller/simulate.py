"""Seeded virtual dice played through the real engines: the empirical edge of every bet.

Fortunes and Winds: two seats; the shooter lays the smallest standard bet, the other player
every side bet; the shooter sets dice aside as the advisor says (max-return by default) and
always throws a new turn after a win. Hazard: two seats; the caster calls a main at random
(so that every main is played), bets caster-wins, the other player caster-loses and, once a
chance is set, the odds. Each bet's edge is minus its mean net per coin staked, with the
standard error of that mean, beside the exact edge from `controller.odds`.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from controller.errors import IllegalCommand
from controller.games import apply, find_game, limits
from controller.games.base import Command, Pays, State
from controller.ledger import BANK

COINS = 10**12
GAMES = ("fortunes-winds", "hazard")


class Tally:
    """Running sums of a bet's net per coin staked."""

    def __init__(self) -> None:
        self.n = 0
        self.total = 0.0
        self.squares = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        self.total += x
        self.squares += x * x

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    @property
    def se(self) -> float:
        """The standard error of the mean."""
        if self.n < 2:
            return math.inf
        var = (self.squares - self.n * self.mean ** 2) / (self.n - 1)
        return math.sqrt(max(var, 0.0) / self.n)


def _open(mode: str, settings: Mapping[str, Any] | None) -> State:
    state = None
    for cmd in (Command("open", {"mode": mode, "settings": dict(settings or {})}),
                Command("join", {"player": "P1"}), Command("join", {"player": "P2"}),
                Command("buy-in", {"player": "P1", "amount": COINS}),
                Command("buy-in", {"player": "P2", "amount": COINS})):
        state, _ = apply(state, cmd)
    assert state is not None
    return state


def _settled(events, tallies: dict[str, Tally], name=lambda bet: bet) -> None:
    """Add each settled bet's net per coin; the Lord Moon money counts with the standard bet."""
    nets: dict[tuple[str, str], list[int]] = {}
    for e in events:
        if e.kind != "bet-settled":
            continue
        bet = "standard" if e.data["bet"] == "lord-moon" else e.data["bet"]
        net, stake = nets.setdefault((e.data["player"], bet), [0, 0])
        staked = e.data["stake"] if e.data["bet"] != "lord-moon" else 0
        nets[e.data["player"], bet] = [net + e.data["paid"] - e.data["stake"], stake + staked]
    for (_, bet), (net, stake) in nets.items():
        tallies.setdefault(name(bet), Tally()).add(net / stake)


def _fortunes_winds(turns: int, rng: random.Random, settings: Mapping[str, Any] | None,
                    strategy: str) -> tuple[dict[str, Tally], State]:
    from controller.advisor import choose
    from controller.games.fortunes_winds import SIDE_BETS, smallest_stake

    state = _open("fortunes-winds", settings)
    kinds = [k for k in SIDE_BETS if k != "daikoku-against" or state.settings["daikoku_against"]]
    stakes = {k: smallest_stake(state.settings, k) for k in ("standard", *kinds)}
    tallies: dict[str, Tally] = {"shooter-wins": Tally()}
    for _ in range(turns):
        shooter = state.shooter
        other = "P2" if shooter == "P1" else "P1"
        cmds = [Command("bet", {"player": shooter, "bet": "standard",
                                "amount": stakes["standard"]})]
        cmds += [Command("bet", {"player": other, "bet": k, "amount": stakes[k]}) for k in kinds]
        for cmd in cmds:
            state, _ = apply(state, cmd)
        while True:
            state, events = apply(state, find_game(state.mode).chance_step(state, rng))
            if events[-1].kind != "rolled":
                break
            keep = choose(state.showing_map(), state.set_aside, state.roll, strategy,
                          state.settings)
            if keep:
                state, _ = apply(state, Command("set-aside", {"dice": keep}))
        _settled(events, tallies)
        ended = next(e for e in events if e.kind == "turn-ended")
        tallies["shooter-wins"].add(float(ended.data["result"] == "win"))
    return tallies, state


def _hazard(turns: int, rng: random.Random, settings: Mapping[str, Any] | None
            ) -> tuple[dict[str, Tally], State]:
    from controller.games.hazard import MAINS, odds_pays

    state = _open("hazard", settings)
    pct = state.settings["commission_percent"]
    lose_rate = Pays.parse(state.settings["caster_loses_pays"])
    # A stake whose commission is exactly its percentage, so that the exact edge applies.
    exact = next(s for s in range(lose_rate.unit, 10**6, lose_rate.unit)
                 if (lose_rate.ratio * s * pct / 100).denominator == 1)

    def stake(kind: str, unit: int) -> int:
        least = limits.smallest_stake(state.settings, kind, unit)
        if least is None:
            raise IllegalCommand(f"the table's limits leave no {kind} bet to simulate")
        return least

    wins = stake("caster-wins", Pays.parse(state.settings["caster_wins_pays"]).unit)
    loses = stake("caster-loses", exact)
    tallies: dict[str, Tally] = {}
    for _ in range(turns):
        caster = state.caster
        other = "P2" if caster == "P1" else "P1"
        main = rng.choice(MAINS)
        for cmd in (Command("call-main", {"main": main}),
                    Command("bet", {"player": caster, "bet": "caster-wins", "amount": wins}),
                    Command("bet", {"player": other, "bet": "caster-loses",
                                    "amount": loses})):
            state, _ = apply(state, cmd)
        chance = None
        while True:
            state, events = apply(state, find_game(state.mode).chance_step(state, rng))
            if events[-1].kind == "round-ended" or events[-1].kind == "dice-passed":
                break
            if state.chance is not None and chance is None:
                chance = state.chance
                amount = stake("odds", odds_pays(main, chance).unit)
                state, _ = apply(state, Command("bet", {"player": other, "bet": "odds",
                                                        "amount": amount}))
        _settled(events, tallies, lambda bet, m=main, c=chance: f"{bet}:{m}" if bet != "odds"
                 else f"odds:{m}:{c}")
    return tallies, state


def simulate(game: str, turns: int, seed: int, settings: Mapping[str, Any] | None = None,
             strategy: str = "max-return") -> dict:
    """Play `turns` turns (rounds) with seeded dice; the empirical and exact edge of each bet."""
    from controller.odds import odds

    if game not in GAMES:
        raise IllegalCommand(f"no simulation for {game!r}; simulated games: {', '.join(GAMES)}")
    if turns < 1:
        raise IllegalCommand(f"simulate at least one turn, not {turns}")
    rng = random.Random(seed)
    start = time.perf_counter()
    if game == "fortunes-winds":
        tallies, state = _fortunes_winds(turns, rng, settings, strategy)
    else:
        tallies, state = _hazard(turns, rng, settings)
    seconds = time.perf_counter() - start
    report = odds(game, settings)
    exact: dict[str, Fraction] = {}
    for bet in report["bets"]:
        if game == "fortunes-winds":
            exact[bet["id"]] = Fraction(bet["by_strategy"][strategy]["house_edge_exact"])
        else:
            exact[bet["id"]] = Fraction(bet["house_edge_exact"])
    bets = []
    for bet_id, tally in sorted(tallies.items()):
        if bet_id == "shooter-wins":
            continue
        row: dict[str, Any] = {"id": bet_id, "n": tally.n, "edge": -tally.mean, "se": tally.se}
        if bet_id in exact:
            row["exact_edge"] = float(exact[bet_id])
            row["z"] = ((row["edge"] - row["exact_edge"]) / tally.se
                        if tally.se not in (0.0, math.inf) else 0.0)
        bets.append(row)
    out: dict[str, Any] = {"game": game, "turns": turns, "seed": seed, "seconds": seconds,
                           "turns_per_s": turns / seconds if seconds else math.inf,
                           "bank": state.ledger.balance(BANK), "bets": bets}
    if game == "fortunes-winds":
        wins = tallies["shooter-wins"]
        key = "shooter_win_probability" if strategy == "max-win" else None
        probability = (report[key] if key else next(
            b["probability"] for b in report["bets"] if b["id"] == "standard"))
        out.update(strategy=strategy, shooter_win_rate=wins.mean, shooter_win_se=wins.se,
                   shooter_win_exact=probability)
    return out
