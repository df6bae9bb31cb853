"""Seeded random play through the real engines: for the shared harness, benchmarks, demos."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from controller import games
from controller.errors import IllegalCommand
from controller.games.base import Command, Event, State
from controller.settings import Name


def seated_table(mode: str, players: int = 4, coins: int = 10_000) -> list[Command]:
    """The commands that open a table of `mode` with `players` seated and bought in."""
    cmds = [Command("open", {"mode": mode}, "open")]
    for i in range(1, players + 1):
        cmds += [Command("join", {"player": f"P{i}"}, f"join-P{i}"),
                 Command("buy-in", {"player": f"P{i}", "amount": coins}, f"buy-in-P{i}")]
    return cmds


@dataclass(frozen=True)
class Step:
    """One proposed command and what became of it (events None: refused, with the reason)."""

    command: Command
    before: State | None
    after: State | None
    events: tuple[Event, ...] | None
    refusal: str = ""


def random_play(mode: str, seed: int = 1, players: int = 4, coins: int = 10_000,
                id_prefix: str = "r") -> Iterator[Step]:
    """Endless seeded play at a new table of `mode`; refused proposals are yielded too."""
    rng = random.Random(seed)
    engine = games.find_game(mode)
    state: State | None = None
    for cmd in seated_table(mode, players, coins):
        new, events = games.apply(state, cmd)
        yield Step(cmd, state, new, events)
        state = new
    n = 0
    while True:
        proposed = engine.random_command(state, rng)
        n += 1
        cmd = Command(proposed.kind, proposed.args, f"{id_prefix}{n}")
        try:
            new, events = games.apply(state, cmd)
        except IllegalCommand as exc:
            yield Step(cmd, state, state, None, str(exc))
            continue
        yield Step(cmd, state, new, events)
        state = new


def accepted(mode: str, n: int, seed: int = 1) -> tuple[list[tuple[Command, tuple]], State]:
    """The first `n` accepted commands of seeded random play, and the state after them."""
    out: list[tuple[Command, tuple]] = []
    state = None
    for step in random_play(mode, seed):
        if step.events is not None:
            out.append((step.command, step.events))
            state = step.after
            if len(out) >= n:
                return out, state
    raise AssertionError("unreachable")


def to_a_throw(mode: str, players: int = 2, coins: int = 1000, seed: int = 1,
               limit: int = 500) -> tuple[list[Command], State]:
    """The commands that open a table of `mode` and bring it, by seeded play with no throw,
    to where the dice are thrown next (its chance step is accepted), and the state then: what a
    demo or a benchmark plays first, whatever the mode (e.g. a bet before the first roll)."""
    engine = games.find_game(mode)
    rng = random.Random(seed)
    cmds = seated_table(mode, players, coins)
    state: State | None = None
    for cmd in cmds:
        state, _ = games.apply(state, cmd)
    for n in range(limit):
        try:
            games.apply(state, engine.chance_step(state, random.Random(seed + n)))
            return cmds, state
        except (IllegalCommand, NotImplementedError):
            pass
        proposed = engine.random_command(state, rng)
        if proposed.kind in engine.chance_kinds:
            continue
        cmd = Command(proposed.kind, proposed.args, f"ready-{n}")
        try:
            state, _ = games.apply(state, cmd)
        except IllegalCommand:
            continue
        cmds.append(cmd)
    raise IllegalCommand("%(game)s: no throw after %(limit)s seeded commands",
                         game=Name(engine.title), limit=limit)
