"""`feltbank simulate MODE --rounds N --seed S` for Roche and Rugen: seeded play through the real
engines agrees with the exact odds of `feltbank odds MODE --json` within 3 standard errors."""

from __future__ import annotations

import json

import pytest

from controller.cli import main


def cli(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("mode, rounds, seed", [
    ("roche", 300, 5), ("grand-roche", 200, 5), ("house-rugen", 200, 5),
    ("street-rugen", 800, 5), ("capital-rugen", 800, 5)])
def test_simulate_agrees_with_the_exact_odds(capsys, mode, rounds, seed):
    exact = {b["id"]: b for b in cli(capsys, "odds", mode, "--json")["bets"]}
    report = cli(capsys, "simulate", mode, "--rounds", str(rounds), "--seed", str(seed),
                 "--json")
    again = cli(capsys, "simulate", mode, "--rounds", str(rounds), "--seed", str(seed),
                "--json")
    assert report["turns"] == rounds and report["seed"] == seed
    assert [b["edge"] for b in report["bets"]] == [b["edge"] for b in again["bets"]]  # seeded
    assert {b["id"] for b in report["bets"]} == set(exact)  # every bet of the report played
    # Bets won often enough for the normal approximation (20 wins expected) are compared.
    checked = [b for b in report["bets"] if exact[b["id"]]["probability"] * b["n"] >= 20]
    assert len(checked) >= 4, [b["id"] for b in report["bets"]]
    for bet in checked:
        assert bet["exact_edge"] == pytest.approx(exact[bet["id"]]["house_edge"])
        assert abs(bet["z"]) <= 3, bet


def test_a_bet_never_won_has_no_z(capsys):
    """A bet that lost every time has no spread: its z is None ("—"), not a 0 that would read
    as agreement with the exact odds."""
    report = cli(capsys, "simulate", "roche", "--rounds", "20", "--seed", "1", "--json")
    never = {b["id"]: b for b in report["bets"]}["day:7"]  # 1 in 40,000 deals
    assert never["se"] == 0 and never["z"] is None
    assert main(["simulate", "roche", "--rounds", "20", "--seed", "1"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("day:7 "))
    assert line.split()[-1] == "—"
