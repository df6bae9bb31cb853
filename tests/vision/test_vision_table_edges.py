"""What lies round the dice: the corner markers on the felt, dice and things off the felt."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.default_profile import NOMINAL_TABLE
from vision.geometry import TableGeometry
from vision.recognizer import Recognizer, calibrate
from vision.settle import SettleDetector, TableState
from vision.synthetic import DieSpec, make_capture, render_scene, sample_params

# The same camera as the shipped profile's, over a smaller felt: the frame shows the wood.
WIDE_TABLE = dict(NOMINAL_TABLE, felt_mm=(400.0, 290.0))
# marker centres sit 4 mm + half a 48 mm marker image in from the felt's corners
INSET = 4.0 + 48.0 / 2


def _wide(seed: int, dice: list[DieSpec], markers: bool = True, **overrides):
    p = replace(sample_params(np.random.default_rng(seed), table=WIDE_TABLE), markers=markers,
                **overrides)
    return render_scene(p, dice, seed=seed), p


def _geometry(scene, p) -> TableGeometry:
    return TableGeometry.from_markers(scene.image, (p.felt_mm[0] - 2 * INSET,
                                                    p.felt_mm[1] - 2 * INSET))


def test_corner_markers_are_not_objects(shipped_profile):
    scene, p = _wide(21, [DieSpec("NORTH", 60.0, 40.0, 20.0), DieSpec("FIRE", -90.0, -50.0, 65.0)])
    rec = Recognizer(shipped_profile)
    blind = rec.read(scene.image)  # without the table's geometry the markers look like things
    assert len(blind) > 2
    readings = rec.read(scene.image, _geometry(scene, p))
    assert sorted((r.label, r.kind, r.on_felt) for r in readings) == [
        ("FIRE", "die", True), ("NORTH", "die", True)]


def test_a_table_with_only_its_markers_on_it_is_empty(shipped_profile):
    scene, p = _wide(22, [])
    settle = SettleDetector(still_s=0.0, felt=shipped_profile.felt,
                            side_px=shipped_profile.geometry.side_px)
    settle.update(scene.image, 0.0)
    assert settle.update(scene.image, 0.1) is TableState.SETTLED  # the markers stand out
    settle.ignore = _geometry(scene, p).ignore
    assert settle.update(scene.image, 0.2) is TableState.EMPTY


def test_calibration_captures_may_show_the_corner_markers():
    caps = {lab: [(f"{lab}/{j}.png", make_capture(300 + 10 * i + j, lab, table=WIDE_TABLE,
                                                  markers=True).image) for j in range(3)]
            for i, lab in enumerate(["SUN", "MOON"])}
    profile, report = calibrate(caps, "fortunes-and-winds")
    assert report.accuracy == 1.0
    assert abs(profile.geometry.side_px - 50.0) < 4.0


def test_a_die_near_the_felt_edge_is_on_the_felt(shipped_profile):
    # the felt runs on past the marker centres, under and beside the markers' papers
    x = WIDE_TABLE["felt_mm"][0] / 2 - 14.0
    scene, p = _wide(23, [DieSpec("EAST", x, 0.0, 10.0)])
    geometry = _geometry(scene, p)
    (reading,) = Recognizer(shipped_profile).read(scene.image, geometry)
    assert reading.label == "EAST" and reading.on_felt
    assert reading.table_mm[0] > geometry.size_mm[0]  # beyond the markers' centres
    assert not geometry.on_felt(np.array([geometry.size_mm[0] + 60.0, 10.0]))


@pytest.mark.parametrize("seed, hard", [(24, False), (25, True)])
def test_dice_wholly_on_the_wood_are_reported_off_the_felt(shipped_profile, seed, hard):
    fw, fh = WIDE_TABLE["felt_mm"][0] / 2, WIDE_TABLE["felt_mm"][1] / 2
    off = [DieSpec("SUN", fw + 30.0, 10.0, 10.0), DieSpec("MOON", -40.0, fh + 22.0, 30.0),
           DieSpec("VOID", -fw - 25.0, -fh + 50.0, 70.0)]
    base = sample_params(np.random.default_rng(seed), hard=hard, table=WIDE_TABLE)
    scene = render_scene(replace(base, markers=True), [DieSpec("NORTH", 60.0, 40.0, 20.0)] + off,
                         seed=seed)
    readings = Recognizer(shipped_profile).read(scene.image, _geometry(scene, base))
    assert len(readings) == 4
    for truth in scene.dice:
        (r,) = [r for r in readings if math.dist(r.center, truth.top_center) < 12]
        assert r.label == truth.label and r.kind == "die"
        assert r.on_felt == (truth.label == "NORTH")


def test_things_on_the_rail_that_are_not_dice_are_not_reported(shipped_profile):
    fw = WIDE_TABLE["felt_mm"][0] / 2
    scene, p = _wide(26, [DieSpec("NORTH", 60.0, 40.0, 20.0), DieSpec("SUN", fw + 30.0, 10.0, 10.0)])
    img = scene.image.copy()
    side = shipped_profile.geometry.side_px
    # on the wood left of the felt: a poker chip (a die's width), a coin, a pencil stub
    x = int(scene.felt_corners[:, 0].min() // 2)
    cv2.circle(img, (x, 400), int(side * 0.55), (40, 40, 170), -1)
    for a in range(0, 360, 45):
        t = math.radians(a)
        cv2.circle(img, (int(x + 0.42 * side * math.cos(t)), int(400 + 0.42 * side * math.sin(t))),
                   4, (235, 235, 235), -1)
    cv2.circle(img, (x, 600), int(side * 0.4), (90, 160, 190), -1)
    cv2.rectangle(img, (x - 10, 800), (x + 10, 880), (60, 200, 230), -1)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    readings = Recognizer(shipped_profile).read(img, _geometry(scene, p))
    assert sorted((r.label, r.on_felt) for r in readings) == [("NORTH", True), ("SUN", False)]
