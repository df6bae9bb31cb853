"""The shared mode harness: every mode the registry finds is checked here, with no test to write.

A new mode declared in pyproject.toml's `feltbank.modes` entry points is picked up by these
tests (and by the random-play harness in test_random_play.py, the page harness in
tests/web/test_web_modes.py and the receipt harness in tests/hardware/test_hardware_receipts.py).
See docs/adding-a-mode.md.
"""

from __future__ import annotations

import random
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

import equipment
from controller import modes as registry
from controller.errors import IllegalCommand
from controller.games import find_game, games
from controller.games.base import Engine, RoundEnded, State
from controller.games.play import random_play
from controller.modes import Mode, find_mode, modes, resolve_ref, result_words, with_part
from controller.odds import table_text
from controller.simulate import simulate

MODES = sorted(modes())
ROOT = Path(__file__).resolve().parents[2]
#: Seeded proposals played per mode to see rounds end (and how).
STEPS = 1500


def test_the_registry_is_the_entry_points_of_pyproject():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert set(declared[registry.GROUP]) <= set(modes()), (
        "a mode in pyproject.toml is not installed: re-run `python3 bootstrap.py test` "
        "(it reinstalls when pyproject.toml changes)")
    assert {"fortunes-winds", "hazard"} <= set(modes())
    assert games() == {name: mode.engine for name, mode in modes().items()}


def test_an_unknown_mode_is_refused_naming_the_modes():
    with pytest.raises(IllegalCommand, match="'craps' is not a game mode here; modes: .*hazard"):
        find_mode("craps")
    with pytest.raises(IllegalCommand, match="not a game mode"):
        find_mode(None)


def test_a_part_a_mode_lacks_is_refused_naming_the_modes_that_have_it():
    hazard = find_mode("hazard")
    assert not hazard.advise_ref
    with pytest.raises(IllegalCommand, match="Hazard has no advisor; modes with one: "
                                             "fortunes-winds"):
        hazard.advise(["ONE"], 1, [], {})


def test_a_bad_reference_says_what_is_expected():
    with pytest.raises(ValueError, match="expected 'package.module:attr'"):
        resolve_ref("controller.games.hazard")


@pytest.mark.parametrize("name", MODES)
def test_the_record(name):
    mode = find_mode(name)
    assert isinstance(mode, Mode) and isinstance(mode.engine, Engine)
    assert mode.name == name and mode.title and find_game(name) is mode.engine
    assert mode.engine.command_kinds(), "a mode has commands"
    state = mode.engine.new_state({})
    assert isinstance(state, State)
    for ref in (mode.odds_ref, mode.odds_text_ref, mode.simulate_ref, mode.advise_ref,
                mode.advice_text_ref, *mode.printables.values()):
        if ref:
            assert callable(resolve_ref(ref)), ref
    assert bool(mode.odds_ref) == bool(mode.odds_text_ref), "odds and their text go together"
    assert bool(mode.advise_ref) == bool(mode.advice_text_ref)
    if mode.strategies:
        assert mode.simulate_ref, "strategies are the simulation's"
    assert all(isinstance(w, str) and w for w in mode.result_words.values())
    assert result_words().items() >= mode.result_words.items(), \
        "two modes give the same result different words"


@pytest.mark.parametrize("name", MODES)
def test_the_equipment_file(name):
    mode = find_mode(name)
    if not mode.equipment:
        pytest.skip(f"{name} names no dice or deck file")
    data = equipment.load(mode.equipment)
    if data["kind"] == "dice":
        assert data["dice"], "a die set has dice"
        for die in data["dice"]:
            assert die["name"] and len(die["faces"]) in (6, 20), die  # a d6, or Rugen's d20
        faces = {f for d in data["dice"] for f in d["faces"]}
        assert set(data.get("glyphs", {})) <= faces, "glyphs for faces no die has"
    else:
        assert data["cards"], "a deck has cards"
    # the decks it may deal (the camera reads the one its settings choose) are files too
    for deck in mode.decks:
        assert equipment.load(mode.deck_file(deck))["kind"] == "deck", deck
    settings = mode.engine.new_state({}).settings
    assert mode.deck_file(mode.deck_dealt(settings)) in {mode.equipment, *mode.decks.values()}


def test_the_deck_dealt_is_the_one_the_settings_choose():
    roche, rochi = find_mode("roche"), find_mode("rochi")
    assert roche.deck_dealt({"deck": "poker"}) == "poker"
    assert roche.deck_file("poker") == "poker-roche-deck"
    assert roche.deck_dealt({"deck": "roche"}) == roche.deck_dealt({}) == "roche"
    assert rochi.deck_dealt({"deck": "poker"}) == "roche"  # Rochi deals its own deck only
    assert rochi.deck_file("roche") == "roche"


@pytest.mark.parametrize("name", MODES)
def test_rounds_end_with_a_result_the_mode_has_words_for(name):
    mode = find_mode(name)
    ended: set[str] = set()
    rng = random.Random(1)
    for n, step in enumerate(random_play(name, seed=1)):
        if n >= STEPS:
            break
        for event in step.events or ():
            end = RoundEnded.of(event)
            if end is not None:
                ended.add(end.result)
                assert end.holder is None or end.holder in step.before.seats, end
            else:
                assert not event.kind.endswith("-ended"), \
                    f"a round ends with RoundEnded(...).event() only, not {event.kind!r}"
        if step.after is not None and step.after.seats:
            light = mode.engine.light(step.after, step.events or ())
            assert light in {"ready", "bets_open", "rolling", "win", "loss"}, light
            throw = mode.engine.demo_throw(step.after, rng)
            if throw is not None and mode.equipment:
                data = equipment.load(mode.equipment)
                faces = {f for d in data.get("dice", ()) for f in d["faces"]}
                if data["kind"] == "deck":  # a card dealt and the cards on the felt: any deck's
                    faces = {c["label"] for n in equipment.names()
                             if (deck := equipment.load(n))["kind"] == "deck"
                             for c in deck["cards"]}
                assert set(throw[0]) | set(throw[1]) <= faces, throw
    assert ended, f"no round of {name} ended in {STEPS} seeded proposals"
    assert ended <= set(mode.result_words), (
        f"results without words in {name}'s Mode.result_words: {ended - set(mode.result_words)}")


@pytest.mark.parametrize("name", with_part("odds"))
def test_the_odds_report(name):
    mode = find_mode(name)
    report = mode.odds()
    # Bets against the house, or (a mode without bets) tables of what its odds are.
    assert report["title"] and (report["bets"] or report["tables"])
    for bet in report["bets"]:
        assert bet["id"] and 0 <= bet["probability"] <= 1, bet
    for tab in report.get("tables", ()):
        assert report["summary"] and tab["title"] and tab["rows"]
        for row in tab["rows"]:
            assert len(row["cells"]) == len(tab["columns"]), row
            for cell in row["cells"]:
                if isinstance(cell, dict):  # a probability: exact, and the same as a float
                    assert 0 <= cell["p"] <= 1 and float(Fraction(cell["exact"])) == cell["p"]
                else:
                    assert cell is None or isinstance(cell, int | str), cell
        assert len(table_text(tab)) == len(tab["rows"]) + 2
    lines = mode.odds_text(report)
    assert lines and all(isinstance(line, str) for line in lines)


@pytest.mark.parametrize("name", with_part("simulation"))
def test_a_short_seeded_simulation(name):
    mode = find_mode(name)
    report = simulate(name, 60, seed=2)
    again = simulate(name, 60, seed=2)
    assert report["bets"] and [b["edge"] for b in report["bets"]] == \
        [b["edge"] for b in again["bets"]]
    assert isinstance(report["bank"], int)
    for strategy in mode.strategies[1:]:
        assert simulate(name, 10, seed=2, strategy=strategy)["bets"]
    with pytest.raises(IllegalCommand, match="has no strategy 'nonsense'"):
        simulate(name, 10, seed=2, strategy="nonsense")
