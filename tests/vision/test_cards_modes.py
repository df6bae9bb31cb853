"""Cards read by the camera reach the Roche engine: a poker card of the four-poker-decks deck
is dealt; one of a rank outside 2-7 is refused with a message naming it and what the deck
holds."""

from __future__ import annotations

import pytest

from controller.games import apply, find_game
from controller.games.base import Command
from controller.games.observation import Observation, Seen
from vision.cards import CardReader, learn
from vision.scenes_cards import capture, make_card_scene, sample_table


@pytest.fixture(scope="module")
def poker():
    for seed in range(700, 900):
        t = sample_table(seed, deck="poker")
        if t.surface in ("felt", "cloth") and t.card_px > 120:
            break
    reader = CardReader(learn({lab: [(lab, capture(t, lab, 11 + i))]
                               for i, lab in enumerate(["5H", "8H", "2S"])}))
    return t, reader


def _state():
    state = None
    for cmd in (Command("open", {"mode": "roche", "settings": {"deck": "poker"}}),
                Command("join", {"player": "A"}), Command("buy-in", {"player": "A",
                                                                     "amount": 100})):
        state, _ = apply(state, cmd)
    return state


def _seen(reader, image):
    return Observation(tuple(Seen(r.label, r.confidence, r.center, kind="card")
                             for r in reader.read(image)))


def test_a_read_poker_card_is_dealt_and_an_eight_is_refused(poker):
    table, reader = poker
    engine = find_game("roche")
    state = _state()
    five = make_card_scene(table, 21, hard=False, labels=["5H"], stack_share=0.0).image
    reading = engine.read(state, _seen(reader, five), min_confidence=0.5)
    assert reading.ready, reading.problems
    assert reading.commands[-1].kind == "deal" and reading.commands[-1].args == {"card": "5H"}
    eight = make_card_scene(table, 22, hard=False, labels=["8H"], stack_share=0.0).image
    reading = engine.read(state, _seen(reader, eight), min_confidence=0.5)
    assert not reading.ready
    assert "'8H' is not a card of the Roche deck dealt here (four poker decks (ranks 2-7))" \
        in reading.problems[0]
