"""Seeded virtual dice played through the real engines: the empirical edge of every bet.

Each mode plays its own rounds (its `Mode.simulate_ref`, e.g. `controller/odds/MODE.py`:
who bets what, how the dice holder chooses) with the helpers here: `open_table` (two seats,
deep pockets), `settled` (each settled bet's net per coin into a `Tally`), and returns a `Run`.
Each bet's edge is minus its mean net per coin staked, with the standard error of that mean,
beside the exact edge from the mode's odds.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from controller.errors import IllegalCommand
from controller.games import apply
from controller.games.base import Command, State
from controller.ledger import BANK
from controller.modes import find_mode, modes, with_part

COINS = 10**12


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


def open_table(mode: str, settings: Mapping[str, Any] | None) -> State:
    state = None
    for cmd in (Command("open", {"mode": mode, "settings": dict(settings or {})}),
                Command("join", {"player": "P1"}), Command("join", {"player": "P2"}),
                Command("buy-in", {"player": "P1", "amount": COINS}),
                Command("buy-in", {"player": "P2", "amount": COINS})):
        state, _ = apply(state, cmd)
    assert state is not None
    return state


def settled(events, tallies: dict[str, Tally], name=lambda bet: bet,
            counts_with: Mapping[str, str] | None = None) -> None:
    """Add each settled bet's net per coin. A bet in `counts_with` (spot -> spot) counts with
    that other bet: its net is added, its stake is not (money laid alongside a bet)."""
    along = counts_with or {}
    nets: dict[tuple[str, str], list[int]] = {}
    for e in events:
        if e.kind != "bet-settled":
            continue
        bet = along.get(e.data["bet"], e.data["bet"])
        net, stake = nets.setdefault((e.data["player"], bet), [0, 0])
        staked = e.data["stake"] if e.data["bet"] not in along else 0
        nets[e.data["player"], bet] = [net + e.data["paid"] - e.data["stake"], stake + staked]
    for (_, bet), (net, stake) in nets.items():
        tallies.setdefault(name(bet), Tally()).add(net / stake)


@dataclass
class Run:
    """What a mode's simulation played: a tally per bet, the state at the end, and how to read
    the exact figures of its odds report (bet id -> exact edge; extra figures of the report)."""

    tallies: dict[str, Tally]
    state: State
    exact: Callable[[dict], dict[str, Fraction]]
    #: More figures for the report from the odds report; "notes": lines printed for people.
    extra: Callable[[dict], dict[str, Any]] = field(default=lambda report: {})
    #: Tallies reported in `extra` rather than as bets.
    not_bets: tuple[str, ...] = ()


def simulate(game: str, turns: int, seed: int, settings: Mapping[str, Any] | None = None,
             strategy: str | None = None) -> dict:
    """Play `turns` turns (rounds) with seeded dice; the empirical and exact edge of each bet."""
    from controller.odds import odds

    if game not in modes() or not find_mode(game).simulate_ref:
        raise IllegalCommand(f"no simulation for {game!r}; simulated games: "
                             f"{', '.join(with_part('simulation'))}")
    if turns < 1:
        raise IllegalCommand(f"simulate at least one turn, not {turns}")
    rng = random.Random(seed)
    start = time.perf_counter()
    mode = find_mode(game)
    if strategy is not None and strategy not in mode.strategies:
        raise IllegalCommand(f"{mode.title} has no strategy {strategy!r}; strategies: "
                             f"{', '.join(mode.strategies) or 'none'}")
    strategy = strategy or (mode.strategies[0] if mode.strategies else "")
    run = mode.simulate(turns, rng, settings, strategy)
    tallies, state = run.tallies, run.state
    seconds = time.perf_counter() - start
    report = odds(game, settings)
    exact = run.exact(report)
    bets = []
    for bet_id, tally in sorted(tallies.items()):
        if bet_id in run.not_bets:
            continue
        row: dict[str, Any] = {"id": bet_id, "n": tally.n, "edge": -tally.mean, "se": tally.se}
        if bet_id in exact:
            row["exact_edge"] = float(exact[bet_id])
            # No spread (every such bet lost, or too few played): the standard error says
            # nothing, and z is None rather than a 0 that reads as agreement.
            row["z"] = ((row["edge"] - row["exact_edge"]) / tally.se
                        if tally.se not in (0.0, math.inf) else None)
        bets.append(row)
    out: dict[str, Any] = {"game": game, "turns": turns, "seed": seed, "seconds": seconds,
                           "turns_per_s": turns / seconds if seconds else math.inf,
                           "bank": state.ledger.balance(BANK), "bets": bets}
    out.update(run.extra(report))
    return out
