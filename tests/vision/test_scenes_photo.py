"""The independent judge's photo-like world (vision/scenes_photo.py): deterministic per seed,
and its truth is what the picture shows (checked in the render itself, not by a reader)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.photo_world import Camera, develop
from vision.scenes_photo import (
    CARD_MM,
    CUBE_FACES,
    D20,
    LAYOUTS,
    PIP_FACE_VALUES,
    Card,
    Frame,
    PipDie,
    card_face,
    deck_style,
    icosahedron,
    make_photo_scene,
    pip_style,
    rugen_faces,
)
from vision.ttf import NoFont, text_mask

SMALL = (480, 360)


def _frame(seed: int = 3, tilt: float = 0.0, k1: float = 0.0) -> Frame:
    cam = Camera.looking_down(SMALL, 62.2, 250.0, tilt, roll=20, yaw=10, k1=k1)
    return Frame(cam, np.random.default_rng(seed), "felt", False, np.zeros(3))


def test_same_seed_same_picture_and_truth():
    a = make_photo_scene("pips", 5, size=SMALL, n=3)
    b = make_photo_scene("pips", 5, size=SMALL, n=3)
    c = make_photo_scene("pips", 6, size=SMALL, n=3)
    assert np.array_equal(a.image, b.image)
    assert [(t.label, t.center) for t in a.objects] == [(t.label, t.center) for t in b.objects]
    assert not np.array_equal(a.image, c.image)
    assert a.image.shape == (SMALL[1], SMALL[0], 3) and a.image.dtype == np.uint8


def test_camera_projects_where_its_rays_go():
    cam = Camera.looking_down((640, 480), 68, 600, 20, roll=35, yaw=-50, k1=0.1, k2=0.02,
                              centre_shift=(0.02, -0.01))
    px = np.array([[5.0, 7.0], [320.0, 240.0], [630.0, 470.0]])
    d = cam.rays(px[:, 0], px[:, 1])
    t = -cam.pos[2] / d[:, 2]
    ground = cam.pos + t[:, None] * d
    assert np.allclose(ground[:, 2], 0, atol=1e-6)
    assert np.allclose(cam.project(ground), px, atol=0.05)
    # the camera is the height asked for above the table and looks down
    assert cam.pos[2] == pytest.approx(600)
    assert cam.rot[:, 2][2] < 0


@pytest.mark.parametrize("up", [1, 2, 3, 4, 5, 6])
def test_pips_seen_from_above_are_the_label(up):
    """A die straight under the camera: the dark spots inside its top face are `up` pips,
    and the face's pixels are round the truth's centre."""
    fr = _frame()
    style = pip_style(np.random.default_rng(1))
    style.update(body=np.float32([0.8, 0.8, 0.8]), pip_colour=np.float32([0.02] * 3),
                 red_faces=())
    die = PipDie(0, np.random.default_rng(up), np.zeros(2), 16.0, up, style)
    fr.add_body(die)
    top = (fr.ids == 0) & fr.top
    pips = top & (fr.albedo.mean(-1) < 0.2)
    n, _ = cv2.connectedComponents(pips.astype(np.uint8))
    assert n - 1 == up
    ys, xs = np.nonzero(top)
    centre = fr.cam.project(np.array([[0.0, 0.0, 16.0]]))[0]
    assert math.hypot(xs.mean() - centre[0], ys.mean() - centre[1]) < 1.5


def test_pip_die_faces_sum_to_seven_and_carry_their_layouts():
    assert sorted(PIP_FACE_VALUES) == [1, 2, 3, 4, 5, 6]
    for k in range(0, 6, 2):
        assert PIP_FACE_VALUES[k] + PIP_FACE_VALUES[k + 1] == 7
        assert np.allclose(CUBE_FACES[k][0], -CUBE_FACES[k + 1][0])
    die = PipDie(0, np.random.default_rng(0), np.zeros(2), 16.0, 3, pip_style(
        np.random.default_rng(0)))
    assert len(die.pc) == sum(len(LAYOUTS[v]) for v in range(1, 7)) == 21
    # every pip's dimple is cut into the body (the field is positive at the pip's centre)
    assert (die.sdf(die.pc) > 0).all()
    assert (die.sdf(np.zeros((1, 3))) < 0).all()


def test_scene_truth_is_at_each_die_and_scored_only_when_wholly_seen():
    sc = make_photo_scene("pips", 11, size=SMALL, n=4)
    assert len(sc.objects) == 4
    for t in sc.objects:
        x, y = (int(round(v)) for v in t.center)
        if t.in_frame:
            assert sc.ids[y, x] == t.oid  # the top face's centre shows that die
            assert t.label in {"1", "2", "3", "4", "5", "6"} and t.side_px > 5
        else:
            assert t.why_unscored


def test_d20_top_number_is_the_face_facing_up():
    normals, verts, faces, numbers = icosahedron()
    assert sorted(numbers) == list(range(1, 21))
    for f in range(20):
        opp = int(np.argmin(normals @ normals[f]))
        assert numbers[f] + numbers[opp] == 21
    assert len(rugen_faces()) == 20
    fr = _frame()
    die = D20(0, np.random.default_rng(4), np.zeros(2), 20.0,
              {"body": np.float32([0.8] * 3), "ink": np.float32([0.02] * 3),
               "font": "DejaVuSans-Bold.ttf", "ink_h": 0.35, "gloss": 0.2, "shine": 40})
    up = (die.normals @ die.rot.T)[die.top]
    assert up[2] == pytest.approx(1.0)
    fr.add_body(die)
    top = (fr.ids == 0) & fr.top
    ink = top & (fr.albedo.mean(-1) < 0.3)
    assert ink.sum() > 10  # the number is printed on the face seen from above
    ys, xs = np.nonzero(top)
    centre = fr.cam.project((die.centre + up * die.r_in)[None])[0]
    assert math.hypot(xs.mean() - centre[0], ys.mean() - centre[1]) < 2.0


def test_cards_stack_and_truth():
    sc = make_photo_scene("cards", 8, size=(820, 616), n=5)
    labels = [t.label for t in sc.objects]
    assert len(set(labels)) == len(labels) == 5
    assert all(len(x) == 2 and x[0] in "23456789TJQKA" and x[1] in "SHDC" for x in labels)
    for t in sc.objects:
        seen = (sc.ids == t.oid).sum()
        if t.in_frame:
            x, y = (int(round(v)) for v in t.center)
            assert sc.ids[y, x] == t.oid and seen > 0.5 * t.side_px ** 2
        else:
            assert t.why_unscored


def test_a_card_lies_on_the_card_below_it_and_no_lower_card_shadows_it():
    """A strongly arched lower card never pokes through the card laid on it (it did: the
    upper card's middle showed the lower card, darkened by the upper card's shadow)."""
    fr = _frame()
    deck = deck_style(np.random.default_rng(2))
    centre = fr.table[fr.cam.size[1] // 2, fr.cam.size[0] // 2, :2].astype(float)
    lower = Card(0, "8D", centre.copy(), 0.3, 0.05, 2.5, 0, card_face("8D", deck))
    upper = Card(1, "3C", centre + [12.0, -10.0], 0.45, 0.35, -1.0, 1, card_face("3C", deck))
    fr.add_card(lower)
    fr.add_card(upper)
    ex, ey = upper.axes()
    rim = np.array([[*(upper.xy + sx * (CARD_MM[0] / 2 - 2) * ex + sy * (CARD_MM[1] / 2 - 2) * ey),
                     upper.z] for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    poly = np.zeros(fr.ids.shape, np.uint8)
    cv2.fillConvexPoly(poly, np.round(fr.cam.project(rim)).astype(np.int32), 1)
    inside = poly > 0
    assert inside.sum() > 1000
    assert (fr.ids[inside] == 1).all()
    assert (fr.shadow[:, inside] == 1.0).all()
    assert (fr.ids == 0).sum() > 500  # the lower card still shows beside it


def test_card_face_has_its_index_ink_in_the_corner():
    deck = deck_style(np.random.default_rng(2))
    red, black = card_face("TH", deck), card_face("TS", deck)
    assert red.shape == black.shape
    corner = (slice(0, 120), slice(0, 60))
    # red ink: more red than blue in the corner; black ink: dark and grey
    assert (red[corner][..., 2] - red[corner][..., 0]).max() > 0.3
    assert black[corner].min() < 0.1
    assert not np.array_equal(card_face("9H", deck), card_face("6H", deck))


def test_text_from_truetype_fonts():
    m = text_mask("20", "DejaVuSans-Bold.ttf", 30)
    assert 25 <= m.shape[0] <= 34 and m.max() == pytest.approx(1.0)
    o = text_mask("0", "LiberationSerif-Bold.ttf", 40)
    assert o[o.shape[0] // 2, o.shape[1] // 2] < 0.2  # the hole of the 0 is left open
    with pytest.raises(NoFont, match="not installed"):
        text_mask("1", "NoSuchFont.ttf", 20)


def test_camera_pipeline_makes_a_jpeg_photo():
    rng = np.random.default_rng(0)
    flat = np.full((120, 160, 3), 0.4, np.float32)
    out, info = develop(flat, rng, hard=True)
    assert out.shape == (120, 160, 3) and out.dtype == np.uint8
    assert 50 <= info["jpeg"] <= 95 and out.std() > 0.5  # noise, not a flat fill


def test_bench_scores_readings_against_the_truth():
    """Right where the reading's label is the object's, a confident error where it is not or
    where there is nothing, and readings on cut or covered objects are not scored."""
    from vision.bench_kinds import KindResult
    from vision.bench_photo import score
    from vision.objects import ObjectReading

    sc = make_photo_scene("pips", 11, size=SMALL, n=4)
    scored = [t for t in sc.objects if t.in_frame]
    assert len(scored) >= 2

    def run(readings):
        res, extra = KindResult("photo"), {"phantoms": 0, "unscored": 0, "unscored_wrong": 0}
        score("pips", res, sc, readings, extra, [999])  # 999: nothing dumped
        return res, extra

    right = [ObjectReading("pips", t.label, 0.9, t.center) for t in scored]
    res, extra = run(right)
    assert (res.dice, res.right, res.confident_errors) == (len(scored), len(scored), 0)
    assert extra["unscored"] == len(sc.objects) - len(scored)
    wrong = str(int(scored[0].label) % 6 + 1)
    empty = np.argwhere(sc.ids < 0)[0]
    res, extra = run([ObjectReading("pips", wrong, 0.9, scored[0].center),
                      ObjectReading("pips", None, 0.2, scored[1].center),
                      ObjectReading("pips", "3", 0.9, (float(empty[1]), float(empty[0])))])
    assert res.confident_errors == 2 and extra["phantoms"] == 1
    assert res.abstained == len(scored) - 1 and res.right == 0


def test_bench_photo_world_refuses_the_labelled_dice(capsys):
    from controller.cli import main

    assert main(["bench", "vision", "--world", "photo"]) == 1
    assert "not in the photo world" in capsys.readouterr().err


def test_cards_dealt_on_one_card_table_share_its_camera_and_cloth():
    deck = deck_style(np.random.default_rng(3))
    a = make_photo_scene("cards", 1, size=SMALL, n=2, table=5, deck=deck)
    b = make_photo_scene("cards", 2, size=SMALL, n=2, table=5, deck=deck)
    c = make_photo_scene("cards", 1, size=SMALL, n=2, table=6, deck=deck)
    same = ("camera", "height_mm", "k1", "surface")
    assert [a.info[k] for k in same] == [b.info[k] for k in same]
    assert a.info["surface"] in ("felt", "cloth", "wood")
    assert [a.info[k] for k in same] != [c.info[k] for k in same]
