"""Simulation through the real engines agrees with the exact odds within 3 standard errors."""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from controller.errors import IllegalCommand
from controller.simulate import simulate


@pytest.mark.parametrize("strategy", ["max-return", "max-win"])
def test_fortunes_winds_simulation_agrees_with_the_exact_odds(strategy):
    report = simulate("fortunes-winds", 4000, seed=7, strategy=strategy)
    ids = {b["id"] for b in report["bets"]}
    assert ids == {"standard", "daikoku-for", "daikoku-against", "lady-sun-tea", "hungry-moon"}
    for bet in report["bets"]:
        assert bet["n"] == 4000
        assert abs(bet["edge"] - bet["exact_edge"]) <= 3 * bet["se"], bet
    assert abs(report["shooter_win_rate"] - report["shooter_win_exact"]) \
        <= 3 * report["shooter_win_se"]


def test_hazard_simulation_agrees_with_the_exact_odds():
    report = simulate("hazard", 6000, seed=7)
    ids = {b["id"] for b in report["bets"]}
    assert {f"caster-wins:{m}" for m in range(5, 10)} <= ids
    assert {f"caster-loses:{m}" for m in range(5, 10)} <= ids
    assert any(i.startswith("odds:") for i in ids)
    for bet in report["bets"]:
        assert abs(bet["edge"] - bet["exact_edge"]) <= 3 * bet["se"], bet


def test_simulation_is_seeded_and_money_is_whole():
    one = simulate("fortunes-winds", 300, seed=3)
    two = simulate("fortunes-winds", 300, seed=3)
    assert [b["edge"] for b in one["bets"]] == [b["edge"] for b in two["bets"]]
    assert one["bank"] == two["bank"] and isinstance(one["bank"], int)
    with pytest.raises(IllegalCommand, match="at least one turn"):
        simulate("hazard", 0, seed=1)


def test_cli_simulate_and_bench(capsys):
    assert main(["simulate", "hazard", "--turns", "200", "--seed", "5"]) == 0
    assert "caster-wins:7" in capsys.readouterr().out
    assert main(["simulate", "fortunes-winds", "--turns", "200", "--seed", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["turns"] == 200
    assert main(["bench", "games", "--turns", "100", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["fortunes-winds"]["turns_per_s"] > 0 and figures["hazard"]["turns_per_s"] > 0
    assert {"roche", "grand-roche", "house-rugen", "street-rugen", "capital-rugen"} <= set(figures)
