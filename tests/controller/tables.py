"""Helpers the rules tests share: fold commands through the rules core from a closed table."""

from __future__ import annotations

import pytest

from controller.errors import IllegalCommand
from controller.games import apply, find_game
from controller.games.base import Command
from controller.ledger import BANK


def C(kind: str, **args) -> Command:
    """A command without an id: `C("bet", player="Ann", bet="standard", amount=2)`."""
    return Command(kind, args)


def play(*cmds: Command, state=None):
    """Fold commands through the table; the final state and every event."""
    events = []
    for cmd in cmds:
        state, evs = apply(state, cmd)
        events += evs
    return state, events


def table(mode: str, *players: str, coins: int = 100, **settings):
    """A table of `mode` with `players` seated and bought in for `coins` each."""
    cmds = [C("open", mode=mode, settings=settings)]
    for p in players:
        cmds += [C("join", player=p), C("buy-in", player=p, amount=coins)]
    return play(*cmds)[0]


def balances(state) -> dict:
    """Every player's coins and the bank's."""
    return {**state.ledger.players(), BANK: state.ledger.balance(BANK)}


def refused(state, cmd: Command, words: str) -> None:
    """`cmd` is refused with a reason matching `words`, and nothing changes."""
    before = state
    with pytest.raises(IllegalCommand, match=words):
        apply(state, cmd)
    assert state == before
    assert not find_game(state.mode).can(state, cmd)
