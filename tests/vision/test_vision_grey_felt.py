"""Dice on a grey felt: the felt's colour is judged as each frame shows it.

A grey felt's chromaticity moves with every frame's lamp (warm or cool) by a good part of
the spread the calibration captures show between them; judged against the captures' mean,
every pixel looked far off, the distance scale widened, and dice passed for felt ("die not
found" in most captures of a grey table).
"""

from __future__ import annotations

import math

import numpy as np

from vision.bench import capture_set
from vision.dice import _felt_distance, chroma, felt_noise, find_blobs, frame_felt, learn_felt
from vision.labels import FORTUNES_AND_WINDS, Die, DieSet
from vision.recognizer import Recognizer, calibrate
from vision.synthetic import (
    DIE_MM,
    DieSpec,
    World,
    make_capture,
    make_scene,
    render_scene,
    sample_world,
    world_params,
)
from vision.training import FITTED_OFF, capture_dice


def _grey_frame(lamp_bgr: tuple[float, float, float], rng: np.random.Generator) -> np.ndarray:
    """A grey felt under a lamp, mottled and noisy, with a blue die (80 px) at (300, 200)."""
    felt = 0.32 * 255 * (1 + 0.04 * rng.standard_normal((60, 80, 1)))
    img = np.repeat(np.repeat(felt, 8, 0), 8, 1) * np.ones(3)
    img[160:240, 260:340] = (170, 110, 40)
    img = img * np.array(lamp_bgr) + rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _lamp(warm: float) -> tuple[float, float, float]:
    """A lamp's colour (BGR, 1 at most) from cool (-1) to warm (1), as the generator's."""
    c = np.array((1.0 - 0.12 * warm, 1.0 - 0.03 * abs(warm), 1.0 + 0.08 * warm))
    return tuple(c / c.max())


def test_the_felt_colour_follows_the_frames_lamp():
    rng = np.random.default_rng(3)
    felt = learn_felt([_grey_frame(_lamp(w), rng) for w in (-1, -0.5, 0, 0.5, 1)])
    for warm in (-1.0, 1.0):  # the coolest and the warmest lamp the captures showed
        frame = _grey_frame(_lamp(warm), rng)
        moved = frame_felt(frame, felt)
        _, o1, o2 = chroma(frame[:100, :200])  # felt only
        assert np.allclose(moved.mean, [np.median(o1), np.median(o2)], atol=0.02)
        # judged against the captures' mean, the felt looked 5 times noisier than calibrated
        assert felt_noise(_felt_distance(frame, felt)[1], 0.4) > 3
        assert felt_noise(_felt_distance(frame, moved)[1], 0.4) < 2
        blobs, _, _ = find_blobs(frame, felt, 80.0)
        assert len(blobs) == 1 and abs(blobs[0].area - 80 * 80) < 0.15 * 80 * 80


#: a white die and a black one: on a grey felt only their brightness tells them from it
NEUTRAL = DieSet(
    name="test-neutral",
    dice=(
        Die("CHALK", (225, 228, 230), (90, 110, 40),
            ("SPRING", "SPRING", "SUMMER", "SUMMER", "AUTUMN", "WINTER")),
        Die("COAL", (28, 26, 26), (20, 20, 20), ("STAR", "STAR", "STAR", "CLOUD", "CLOUD", "RAIN")),
    ),
    glyphs={"SPRING": "東", "SUMMER": "陽", "AUTUMN": "米", "WINTER": "北", "STAR": "空",
            "CLOUD": "風", "RAIN": "魚"},
)


def test_a_grey_felt_table_calibrates_and_reads():
    # a table of the wide world's dev split (42 px dice, a lens k 0.07), its felt grey:
    # before, capture_dice found the die in 34 of these 42 captures (8 "die not found" or
    # "5 objects found on the felt"); now in all but one
    world = sample_world(np.random.default_rng([20261121, 1, 13]), "dev")
    world = World({**world.table, "felt_bgr": (0.45, 0.44, 0.42)}, world.style, world.hard,
                  "grey")
    caps = capture_set(None, 7_000, 6, NEUTRAL, world=world)
    _, singles, missing = capture_dice(caps)
    assert len(missing) <= 1 and len(singles) >= 41
    profile, report = calibrate(caps, NEUTRAL.name)
    # a STAR capture fitted with its side face in the patch (the reader takes it for a cocked
    # die) is named; misread confidently when held out, it set the matcher's threshold 0.37 ->
    # 0.51 (2 of these 12 dice read) before it was kept out of the thresholds
    assert any(n == "STAR/04.png" and FITTED_OFF in why for n, why in report.flawed)
    rec = Recognizer(profile)
    right = wrong = 0
    for seed in (7_100, 7_101, 7_102):
        scene = make_scene(seed, n_dice=4, die_set=NEUTRAL, world=world)
        readings = [r for r in rec.read(scene.image) if r.label is not None]
        for truth in scene.dice:
            near = [r for r in readings
                    if np.hypot(r.center[0] - truth.top_center[0],
                                r.center[1] - truth.top_center[1]) < 0.25 * 42]
            right += any(r.label == truth.label for r in near)
            wrong += any(r.label != truth.label for r in near)
    # 5 of the 12 dice read now (the rest abstained on or, white dice in the frame's dim
    # corners, not found: see docs/vision.md), none misread
    assert wrong == 0
    assert right >= 3


def test_the_black_die_on_a_grey_felt_is_found_by_its_sticker():
    # dev table 29 of the wide world (grey felt, 45 px dice): the black die's body is as dark
    # and as grey as the felt's shadows, so only its sticker tells it from the felt, and only
    # by brightness; shrunk 4 times for the search, the sticker's ink mixes with it to 1.2-1.6
    # times the felt, under BRIGHTER, and the sticker fell apart in strokes. Before, 8 of
    # these 24 captures found no die (SUN in 4 of 6)
    world = sample_world(np.random.default_rng([20261121, 1, 29]), "dev")
    seed = 20261121 + 100_000 * 30 + 50_000_000  # vision.bench's captures of that table
    black = ("VOID", "FORTUNES", "SUN", "MOON")
    caps = {lab: [(f"{lab}/{j:02d}.png",
                   make_capture(seed + 1000 * FORTUNES_AND_WINDS.labels.index(lab) + j, lab,
                                world.style, FORTUNES_AND_WINDS, world=world).image)
                  for j in range(6)]
            for lab in black}
    _, singles, missing = capture_dice(caps)
    assert missing == [] and len(singles) == 24


def test_a_dark_dies_sticker_does_not_join_a_touching_die():
    # four dice touching in a column on dev table 29 (grey felt, 45 px), the black die
    # (VOID) among them: found by its brightness alone, its sticker had joined the column's
    # blob, whose length was then no whole number of faces; the column was cut into faces
    # 3-6 px out of place and the AIR die read BIRD. The colour's whole dice stand apart
    # from what only the brightness finds (vision.dice._objects): 3 of 4 read, none misread
    world = sample_world(np.random.default_rng([20261121, 1, 29]), "dev")
    profile, _ = calibrate(capture_set(None, 20261121 + 100_000 * 30 + 50_000_000, 6,
                                       FORTUNES_AND_WINDS, world=world), FORTUNES_AND_WINDS.name)
    rng = np.random.default_rng([77, 3])
    params = world_params(rng, world)
    yaw = rng.uniform(0, 360)
    x0, y0 = rng.uniform(-60, 60), rng.uniform(-40, 40)
    along = (math.cos(math.radians(yaw + 90)), math.sin(math.radians(yaw + 90)))
    step = DIE_MM + 0.3  # touching, face to face
    labels = ("FISH", "VOID", "AIR", "SUN")  # WATER, MOON (black), AIR, MOON
    dice = [DieSpec(lab, x0 + (1.5 - k) * step * along[0], y0 + (1.5 - k) * step * along[1], yaw)
            for k, lab in enumerate(labels)]
    scene = render_scene(params, dice, seed=3 + 7919, die_set=FORTUNES_AND_WINDS)
    readings = [r for r in Recognizer(profile).read(scene.image) if r.label is not None]
    right = wrong = 0
    for truth in scene.dice:
        near = [r for r in readings if np.hypot(r.center[0] - truth.top_center[0],
                                                r.center[1] - truth.top_center[1]) < 0.3 * 45]
        right += any(r.label == truth.label for r in near)
        wrong += any(r.label != truth.label for r in near)
    assert wrong == 0
    assert right >= 3
