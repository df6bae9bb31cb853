"""The rules core: one pure module per game family, a registry, and the table's top-level fold.

    state, events = apply(state, command)      # state is None before the table opens

`apply` handles `open` (choose a mode and its settings, keeping seats and money) and hands
every other command to the mode's engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.errors import ConfigError, IllegalCommand
from controller.games.base import Command, Engine, Event, State

_REGISTRY: dict[str, Engine] = {}


def register(engine_cls: type[Engine]) -> type[Engine]:
    """Class decorator: make a mode findable by its name."""
    if not engine_cls.name or engine_cls.name in _REGISTRY:
        raise ValueError(f"engine name {engine_cls.name!r} is empty or taken")
    _REGISTRY[engine_cls.name] = engine_cls()
    return engine_cls


def find_game(name: str) -> Engine:
    """The registered mode called `name`, or IllegalCommand naming the ones there are."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise IllegalCommand(
            f"{name!r} is not a game mode here; modes: {', '.join(sorted(_REGISTRY))}"
        ) from None


def games() -> dict[str, Engine]:
    """Every registered mode by name."""
    return dict(_REGISTRY)


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
        raise IllegalCommand(str(exc)) from None
    if len(new.seats) > new.settings["max_seats"]:
        raise IllegalCommand(f"{len(new.seats)} players are seated; this table has "
                             f"{new.settings['max_seats']} seats")
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
                '{"kind": "open", "mode": "hazard", "settings": {"max_bet": 100}}'
            )
        new, event = open_table(state, mode, settings)
        return new, (event,)
    if state is None:
        raise IllegalCommand("the table is not open: the first command is 'open' with a mode")
    return find_game(state.mode).apply(state, cmd)


# The modes. Each module registers itself.
from controller.games import hazard  # noqa: E402, F401, I001
from controller.games import fortunes_winds  # noqa: E402, F401
