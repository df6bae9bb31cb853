"""The shared random-play harness: every registered mode plugs in through `random_command`.

For each mode, seeded random play checks that money is conserved, that no account but the
bank and the cashier goes negative, that a refusal is an IllegalCommand and changes nothing,
that garbage commands are refused cleanly, that every round ends within the mode's declared
bound, and that replaying the journal reproduces the state and the events.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller import games
from controller.errors import IllegalCommand
from controller.games.base import Command
from controller.games.play import random_play
from controller.journal import Journal
from controller.ledger import BANK, CASHIER

MODES = sorted(games.games())
#: What an engine may ask the status lights to show.
LIGHTS = {"ready", "bets_open", "rolling", "win", "loss"}
STEPS = 1500
#: Rounds that seeded random play must complete in STEPS proposals: proof that it progresses.
MIN_ROUNDS = 20


def snapshot(state):
    """What a refusal must leave exactly as it was."""
    engine = games.find_game(state.mode)
    return engine.view(state), state.ledger.to_json(), dict(state.settings), state


def garbage(cmd: Command, rng: random.Random) -> Command:
    """A damaged copy of a real command: wrong kind, missing, extra or ill-typed arguments."""
    args = dict(cmd.args)
    choice = rng.randrange(6)
    if choice == 0:
        return Command(cmd.kind + "-x", args)
    if choice == 1 and args:
        args.pop(rng.choice(sorted(args)))
    elif choice == 2:
        args["unexpected"] = 1
    elif choice == 3 and args:
        args[rng.choice(sorted(args))] = rng.choice([None, -1, 0, "x", 10**12, 2.5, [], {}, True])
    elif choice == 4:
        args["player"] = rng.choice(["Nobody", "", "x" * 40, 7])
    else:
        return Command(cmd.kind, {k: str(v) for k, v in args.items()})
    return Command(cmd.kind, args)


def check_money(state) -> None:
    ledger = state.ledger
    assert ledger.total() == 0, f"coins created or lost: the books sum to {ledger.total()}"
    for account, balance in ledger.balances.items():
        assert balance >= 0 or account in (BANK, CASHIER), f"{account} at {balance}"


def play(mode: str, seed: int, steps: int, tmp_path) -> None:
    engine = games.find_game(mode)
    rng = random.Random(seed ^ 0x5EED)
    accepted, rounds, chance_steps, state = [], 0, 0, None
    for n, step in enumerate(random_play(mode, seed)):
        if n >= steps:
            break
        state = step.after
        if step.events is None:
            assert step.refusal, "a refusal carries its reason"
            continue
        accepted.append((step.command, step.events))
        check_money(state)
        assert engine.light(state, step.events) in LIGHTS
        if engine.in_round(state):
            # In a round, the dice can always be thrown: the mode's chance step is accepted.
            throw = engine.chance_step(state, rng)
            assert throw.kind in engine.chance_kinds
            games.apply(state, throw)
        if step.command.kind in engine.chance_kinds:
            chance_steps += 1
            assert chance_steps <= engine.round_bound, (
                f"a {mode} round went past its bound of {engine.round_bound} chance steps")
        if step.before is not None and state.rounds > step.before.rounds:
            rounds += 1
            chance_steps = 0
        # A damaged command is refused with IllegalCommand (nothing else) and changes nothing.
        before = snapshot(state)
        bad = garbage(step.command, rng)
        try:
            games.apply(state, bad)
        except IllegalCommand as exc:
            assert str(exc)
        assert snapshot(state) == before
    assert rounds >= MIN_ROUNDS * steps // STEPS, f"only {rounds} {mode} rounds ended"

    path = tmp_path / f"{mode}-{seed}.sqlite3"
    with Journal(path) as journal:
        journal.append_many((cmd, events, "harness", "") for cmd, events in accepted)
    with Journal(path, readonly=True) as journal:
        assert journal.rebuild() == state
        report = journal.verify()
        assert report.ok, report.problems
        assert report.balances == state.ledger.to_json()


@pytest.mark.parametrize("mode", MODES)
def test_random_play(mode, tmp_path):
    play(mode, seed=1, steps=STEPS, tmp_path=tmp_path)


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_random_play_any_seed(mode, seed, tmp_path_factory):
    play(mode, seed=seed, steps=300, tmp_path=tmp_path_factory.mktemp("rp"))


def test_replay_is_deterministic():
    for mode in MODES:
        a = [s.events for _, s in zip(range(400), random_play(mode, seed=7), strict=False)]
        b = [s.events for _, s in zip(range(400), random_play(mode, seed=7), strict=False)]
        assert a == b
