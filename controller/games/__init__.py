"""The rules core: one pure module per game family, and the table's top-level fold.

    state, events = apply(state, command)      # state is None before the table opens

`apply` handles `open` (choose a mode and its settings, keeping seats and money) and hands
every other command to the mode's engine. The modes are found through `controller.modes`
(entry points): no list of modes here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.errors import ConfigError, IllegalCommand
from controller.games.base import Command, Engine, Event, State
from controller.modes import find_mode, modes


def find_game(name: str) -> Engine:
    """The engine of the mode called `name`, or IllegalCommand naming the modes there are."""
    return find_mode(name).engine


def games() -> dict[str, Engine]:
    """Every installed mode's engine, by name."""
    return {name: mode.engine for name, mode in modes().items()}


def open_table(state: State | None, mode: str, settings: Mapping[str, Any]) -> tuple[State, Event]:
    """A table of `mode`, carrying over the seats and money of `state` (between rounds only)."""
    engine = find_game(mode)
    if state is not None:
        if find_game(state.mode).in_round(state):
            raise IllegalCommand("the game changes between rounds; wait for this round to end")
        if state.ledger.accounts("bet"):
            raise IllegalCommand("bets are still on the table; settle or return them first")
    try:
        new = engine.new_state(
            settings,
            seats=state.seats if state else (),
            ledger=state.ledger if state else None,
        )
    except ConfigError as exc:
        raise IllegalCommand.because(exc) from None
    if len(new.seats) > new.settings["max_seats"]:
        raise IllegalCommand("%(seated)s players are seated; this table has %(seats)s seats",
                             seated=len(new.seats), seats=new.settings["max_seats"])
    if state is not None:
        new = engine.seats_changed(new.replace(rounds=state.rounds), new)
    return new, Event("opened", {"mode": mode, "settings": dict(new.settings)})


def apply(state: State | None, cmd: Command) -> tuple[State, tuple[Event, ...]]:
    """Apply `cmd` to the table: the new state and events, or IllegalCommand and no change."""
    if cmd.kind == "open":
        mode = cmd.args.get("mode")
        settings = cmd.args.get("settings", {})
        extra = set(cmd.args) - {"mode", "settings"}
        if not isinstance(mode, str) or not isinstance(settings, Mapping) or extra:
            raise IllegalCommand(
                "'open' takes mode (a game mode's name) and settings (an object), e.g. "
                '{"kind": "open", "mode": "MODE", "settings": {"max_bet": 100}}; modes: '
                "%(modes)s", modes=tuple(modes()))
        new, event = open_table(state, mode, settings)
        return new, (event,)
    if state is None:
        raise IllegalCommand("the table is not open: the first command is 'open' with a mode")
    return find_game(state.mode).apply(state, cmd)

