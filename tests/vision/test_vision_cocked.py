"""Cocked dice: a die leaning on something is flagged whichever way it leans; flat dice are not."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from vision.default_profile import NOMINAL_TABLE
from vision.dice import lean
from vision.leaning import is_leaning
from vision.model import Thresholds
from vision.recognizer import Recognizer
from vision.synthetic import DieSpec, render_scene, sample_params

LIGHTS = [(False, 5), (True, 4), (True, 6)]  # (hard, seed): normal light, low light, glare


def _away(x: float, y: float) -> float:
    """The yaw that turns a cocked die's raised side away from the table's centre (the nadir)."""
    return math.degrees(math.atan2(-x, y))


# 15 degrees, raised side away from the nadir, 85 mm out: the raised side face past the top
# face is about as wide as a flat die's side face would be on the near side, so the outline
# is a flat die's; only where the top face lies tells
AWAY = [DieSpec(lab, x, y, _away(x, y) + 3.0, cocked_deg=15.0)
        for lab, (x, y) in zip(("SUN", "WATER", "FIRE", "TREE"),
                               ((85.0, 0.0), (0.0, 85.0), (-85.0, 0.0), (0.0, -85.0)), strict=True)]
# out towards the felt's corners, leaning every way: towards the nadir, across it, away
SPREAD = [DieSpec(lab, x, y, _away(x, y) + turn + 90.0 * i, cocked_deg=15.0)
          for turn in (0.0, 45.0)
          for i, (lab, (x, y)) in enumerate(zip(
              ("MOON", "EARTH", "AIR", "BIRD"),
              ((150.0, 100.0), (-160.0, 90.0), (-140.0, -110.0), (170.0, -100.0)), strict=True))]


def _flags(rec: Recognizer, specs: list[DieSpec], hard: bool, seed: int) -> list[bool]:
    """The cocked flag of each die of a rendered scene."""
    p = sample_params(np.random.default_rng(seed), hard=hard, table=NOMINAL_TABLE)
    scene = render_scene(p, specs, seed=seed + 1)
    faces = [(f, cocked) for f, _, cocked in rec.find_faces(scene.image) if f is not None]
    flags = []
    for truth in scene.dice:
        d, cocked = min((math.dist(f.center, truth.top_center), cocked) for f, cocked in faces)
        assert d < 15, "every die is found"
        flags.append(cocked)
    return flags


@pytest.fixture(scope="module")
def rec(shipped_profile) -> Recognizer:
    return Recognizer(shipped_profile)


@pytest.mark.parametrize("hard,seed", LIGHTS)
def test_a_die_leaning_away_from_the_nadir_is_flagged(rec, hard, seed):
    assert all(_flags(rec, AWAY, hard, seed))


@pytest.mark.parametrize("hard,seed", LIGHTS)
def test_dice_leaning_any_way_anywhere_are_flagged(rec, hard, seed):
    assert all(_flags(rec, SPREAD[:4], hard, seed) + _flags(rec, SPREAD[4:], hard, seed))


@pytest.mark.parametrize("hard,seed", LIGHTS)
def test_flat_dice_on_the_same_spots_stay_flat(rec, hard, seed):
    flat = [replace(s, cocked_deg=0.0) for s in AWAY + SPREAD]
    assert not any(_flags(rec, flat[:4], hard, seed) + _flags(rec, flat[4:8], hard, seed)
                   + _flags(rec, flat[8:], hard, seed))


def test_lean_reads_the_outline_about_the_top_face():
    side, k, nadir = 50.0, 0.025, (0.0, 0.0)
    r = 400.0  # px from the nadir along u: a flat die's side face reaches 10 px past its top
    # a flat die: top face at the far end of its outline, the side face on the near side
    assert lean((r - 25 - k * r, r + 25, -25, 25), (r, 0.0), side, k, nadir, 0.0) == \
        pytest.approx((0.0, 0.0), abs=1e-9)
    # leaning away by t: the raised side face shows past the far edge (s sin t less the
    # view's slant, k * r) and nothing past the near edge; by extents alone it is flat
    s_t = side * math.sin(math.radians(15.0))
    r = s_t / 2 / k
    lopsided, stretch = lean((r - 25, r + 25 + s_t - k * r, -25, 25), (r, 0.0), side, k, nadir,
                             0.0)
    assert stretch == pytest.approx(0.0, abs=1e-9)
    assert lopsided == pytest.approx(math.sin(math.radians(15.0)))


def test_a_lopsided_outline_round_a_poorly_matched_face_is_not_a_lean():
    # measured with the table's rim at its captures' median (session 14): the flat die of
    # test_cli_camera's marked table (EAST) has an outline lopsided 0.164 side round a "top
    # face" found 0.116 side from the flat fit, but matched only 0.522 (no flat die lopsided
    # over 0.15 matched better than 0.53: the face found was not a face), so it is judged by
    # the unsure limit; a die cocked 15 degrees away from the nadir (seed 5's scene above)
    # shows a lopsided outline round a well-matched face and is flagged
    th = Thresholds()
    assert not is_leaning(0.164, 0.001, 0.522, th, 0.116)
    assert is_leaning(0.184, 0.015, 0.676, th, 0.107)
