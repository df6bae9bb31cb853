"""The Rugen d20: the top face's number as a Rugen number, the transposing table, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from controller.cli import main
from vision.bench_kinds import KindResult, score
from vision.d20 import read_d20
from vision.errors import BadImage
from vision.scenes_d20 import icosahedron, make_d20_scene, rugen_faces


def test_the_transposing_table_is_the_seeds():
    faces = rugen_faces()
    # Standard d20: 1 | 2 | 3-4 | 5-6 | 7-9 | 10-12 | 13-16 | 17-20
    want = {1: "1d", 2: "1n", 3: "2d", 4: "2d", 5: "2n", 6: "2n", 7: "3d", 9: "3d",
            10: "3n", 12: "3n", 13: "4d", 16: "4d", 17: "4n", 20: "4n"}
    assert all(faces[n - 1] == lab for n, lab in want.items())
    # each Rugen number N on 2N sides, half Day, half Night
    for n in (1, 2, 3, 4):
        assert faces.count(f"{n}d") == faces.count(f"{n}n") == n


def test_the_icosahedron_has_twenty_faces_opposites_summing_to_21():
    verts, faces, numbers = icosahedron()
    assert len(faces) == 20 and sorted(numbers) == list(range(1, 21))
    centres = np.array([verts[list(f)].mean(0) for f in faces])
    for i in range(20):
        j = int(np.argmin(np.linalg.norm(centres + centres[i], axis=1)))
        assert numbers[i] + numbers[j] == 21


def test_bad_input_is_refused_with_what_is_expected():
    with pytest.raises(BadImage, match="BGR colour image"):
        read_d20(np.zeros((10, 10), np.uint8))
    assert read_d20(np.full((480, 640, 3), (60, 110, 150), np.uint8)) == []


def _table_nadir(scene):
    """The nadir a table calibrated by its markers knows of the scene's camera (as the live
    table gives it, the principal point within the scenes' 10% of the middle)."""
    from vision.nadir import from_homography

    h, w = scene.image.shape[:2]
    return from_homography(scene.table_h, (w, h), pp_share=0.1)


def test_generated_scenes_no_confident_error_some_read():
    res = KindResult("test")
    for seed in (0, 6, 7, 8):
        scene = make_d20_scene(seed)
        score(res, scene.dice, read_d20(scene.image, _table_nadir(scene)), scene.hard, seed)
    assert res.dice >= 6
    assert res.confident_errors == 0, res.errors
    assert res.right >= 0.4 * res.dice, res.summary()


def test_a_printed_rugen_die_is_read_as_printed():
    right = 0
    for seed in range(14):
        scene = make_d20_scene(seed, n_dice=1, printed_rugen=True)
        labels = [o.label for o in read_d20(scene.image, _table_nadir(scene))
                  if o.label is not None]
        assert labels in ([], [scene.dice[0].label]), (seed, labels)
        right += labels == [scene.dice[0].label]
    assert right >= 3


def test_recognize_kind_d20_json(tmp_path, capsys):
    import cv2

    scene = make_d20_scene(2, n_dice=1, printed_rugen=True)
    path = tmp_path / "d20.png"
    cv2.imwrite(str(path), scene.image)
    assert main(["recognize", "--kind", "d20", str(path), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out.strip())
    # one die in a picture of unknown camera: its top face is found, and not told from a
    # side face facing the camera as squarely (the vertical is not known): abstained on
    assert [(o["kind"], o["label"]) for o in obj["objects"]] == [("d20", None)]
    assert "nadir unknown" in obj["objects"][0]["why"]


@pytest.mark.slow
def test_bench_vision_kind_d20_quick(capsys):
    assert main(["bench", "vision", "--kind", "d20", "--dice", "4", "--split", "dev",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip())
    assert set(out) == {"dev"} and out["dev"]["dice"] >= 4


def _drawn_face(number: int, turn_deg: float, font: int, seed: int, bar: bool = True,
                scale: float = 1.3) -> np.ndarray:
    """A d20's top face and its three neighbours drawn flat with OpenCV, not by the scene
    generator: the number upright towards one corner, turned, on noisy cloth, as a JPEG
    (scale: the font's, 1.3 a number about 0.15 of the face's height)."""
    import math

    import cv2

    rng = np.random.default_rng(seed)
    img = np.clip(np.full((480, 640, 3), (40, 90, 50), np.float64)
                  + rng.normal(0, 6, (480, 640, 3)), 0, 255).astype(np.uint8)
    c, r = np.array([320.0, 240.0]), 60.0  # the top face's centre and inradius
    corners = np.array([c + 2 * r * np.array([math.cos(t), math.sin(t)]) for t in
                        (math.radians(turn_deg - 90 + k * 120) for k in range(3))])
    for k in range(3):  # the neighbours, tilted away (41.8 degrees): darker, squashed
        p, q = corners[(k + 1) % 3], corners[(k + 2) % 3]
        far = (p + q) / 2 + 0.745 * ((p + q) / 2 - corners[k])
        cv2.fillConvexPoly(img, np.round([p, q, far]).astype(np.int32),
                           (150, 150, 155), cv2.LINE_AA)
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), (215, 215, 220), cv2.LINE_AA)
    text = str(number)
    patch = np.zeros((160, 160), np.uint8)
    (tw, th), _ = cv2.getTextSize(text, font, scale, 3)
    cv2.putText(patch, text, (80 - tw // 2, 80 + th // 2), font, scale, 255, 3, cv2.LINE_AA)
    if bar and text in ("6", "9"):
        cv2.line(patch, (80 - tw // 2, 88 + th // 2), (80 + tw // 2, 88 + th // 2), 255, 3)
    m = cv2.getRotationMatrix2D((80, 80), -turn_deg, 1.0)
    m[:, 2] += c - 80
    ink = cv2.warpAffine(patch, m, (640, 480)).astype(np.float64)[:, :, None] / 255
    img = (img * (1 - ink) + 30 * ink).astype(np.uint8)
    _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _read_right_or_none(number: int, turn: float, font: int, seed: int, bar: bool = True,
                        scale: float = 1.3) -> bool:
    """A face drawn flat (`_drawn_face`), read as a camera straight above it sees it (its
    nadir the face's middle): asserts it is read right or abstained on; whether right."""
    from vision.nadir import Nadir

    labels = [o.label for o in read_d20(_drawn_face(number, turn, font, seed, bar=bar,
                                                    scale=scale),
                                        Nadir((320.0, 240.0))) if o.label is not None]
    want = rugen_faces()[number - 1]
    assert labels in ([], [want]), (number, turn, labels)
    return labels == [want]


def test_a_face_drawn_otherwise_at_any_turn_is_read_or_abstained_never_misread():
    import cv2

    cases = [(14, 0, cv2.FONT_HERSHEY_DUPLEX), (6, 50, cv2.FONT_HERSHEY_SIMPLEX),
             (9, 140, cv2.FONT_HERSHEY_SIMPLEX), (20, 230, cv2.FONT_HERSHEY_PLAIN),
             (3, 300, cv2.FONT_HERSHEY_COMPLEX), (17, 95, cv2.FONT_HERSHEY_TRIPLEX),
             (11, 200, cv2.FONT_HERSHEY_DUPLEX), (8, 20, cv2.FONT_HERSHEY_PLAIN)]
    right = sum(_read_right_or_none(number, turn, font, i)
                for i, (number, turn, font) in enumerate(cases))
    assert right >= 5, right


@pytest.mark.xfail(strict=True, reason="not found yet: session 16's wider edge search "
                   "found these (14 of 16) but a confident error on the bench came with it")
def test_a_large_two_digit_number_turned_aslant_has_its_face_found():
    """A two-digit number about 0.29 of its face's height, turned 45 degrees and more: its
    box is about 1.6 times its height, so the face's inradius is under 0.7 of the box (the
    edge finder's least, `INRADIUS`) and the box over 0.4 of the face's side
    (`_face_triangle`): 8 of 16 read, the rest "the number runs to the edge" of a wrong
    face or unclear; never misread."""
    import cv2

    right = sum(_read_right_or_none(number, turn, cv2.FONT_HERSHEY_SIMPLEX, 1, scale=2.4)
                for number in (15, 12, 18, 20) for turn in (45, 135, 225, 315))
    assert right >= 13, right


def test_of_one_dies_faces_the_top_is_the_farthest_from_the_pictures_middle():
    from vision.d20 import _outside_of

    mid = np.array([320.0, 240.0])
    top, side = np.array([560.0, 240.0]), np.array([510.0, 240.0])  # the side faces the middle
    assert _outside_of(top, side, mid, 60, 58)
    assert not _outside_of(side, top, mid, 58, 60)
    # another die's face (two sides away), or a face of another size, is no side of it
    assert not _outside_of(top, np.array([400.0, 240.0]), mid, 60, 60)
    assert not _outside_of(top, side, mid, 120, 58)


@pytest.mark.parametrize("seed", [23261122, 23261126, 23261132])
def test_a_side_face_read_is_not_reported(seed):
    """Bench scenes (dev split) where a side face was found and read as a top face would be:
    its place (nearer the picture's middle than the die's top face), how squarely it faces
    the camera, or the body reaching beyond it tell it."""
    from vision.d20 import _faces

    scene = make_d20_scene(seed, hard=bool(np.random.default_rng(seed).random() < 0.3))
    faces, _ = _faces(scene.image)

    def off_top(r):
        return all(np.hypot(r.center[0] - t.center[0], r.center[1] - t.center[1])
                   > 0.35 * t.side_px for t in scene.dice)

    assert any(r.label is not None and off_top(r) for r in faces)  # the side face, read
    readings = read_d20(scene.image)
    assert not [r for r in readings if r.label is not None and off_top(r)]
    res = KindResult("test")
    score(res, scene.dice, readings, scene.hard, seed)
    assert res.confident_errors == 0, res.errors


def test_a_face_is_found_by_its_edges_whatever_its_shade():
    """The top face drawn flat by OpenCV (not the scene generator): the edge finder puts
    its triangle on the drawn corners, at any turn, from the number's box alone."""
    import math

    import cv2

    from vision.d20 import _edge_triangle

    for i, turn in enumerate((0, 37, 95, 200)):
        img = _drawn_face(14, turn, cv2.FONT_HERSHEY_DUPLEX, i)
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        ys, xs = np.nonzero(grey[200:280, 280:360] < 80)  # the number, inside the face
        box = (int(xs.min()) + 280, int(ys.min()) + 200, int(xs.max()) + 281, int(ys.max()) + 201)
        got = _edge_triangle(grey, box)
        assert got is not None, turn
        tri, side, ratio = got
        want = [np.array([320.0, 240.0]) + 120 * np.array([math.cos(t), math.sin(t)])
                for t in (math.radians(turn - 90 + k * 120) for k in range(3))]
        for w in want:  # each drawn corner has a found one within 3 px
            assert min(np.hypot(*(tri - w).T)) < 3.0, (turn, tri, want)
        assert ratio < 1.05 and abs(side - 120 * math.sqrt(3)) < 4


def test_how_squarely_a_face_faces_the_camera():
    import math

    from vision.d20 import _facing

    eq = np.array([[0.0, -2.0], [math.sqrt(3), 1.0], [-math.sqrt(3), 1.0]]) * 20 + 100
    assert _facing(eq) == pytest.approx(1.0)
    turned = eq @ np.array([[0.6, -0.8], [0.8, 0.6]])
    assert _facing(turned) == pytest.approx(1.0)
    squashed = eq * [1.0, math.cos(math.radians(30))]  # seen 30 degrees aslant
    assert _facing(squashed) == pytest.approx(math.cos(math.radians(30)), abs=1e-6)


def _bench_scene(seed):
    """A dev bench frame as `vision.bench_kinds` makes it."""
    return make_d20_scene(seed, hard=bool(np.random.default_rng(seed).random() < 0.3))


def _side_face_read(seed):  # noqa: ANN202 (scene, faces, the faces read wrong)
    """A dev bench frame, the d20 faces found in it, and those of them read as a number no
    die there shows (a side face, read): there must be one."""
    from vision.d20 import _faces

    scene = _bench_scene(seed)
    faces, _ = _faces(scene.image)
    wrong = [r for r in faces if r.label is not None and not any(
        np.hypot(r.center[0] - t.center[0], r.center[1] - t.center[1]) < 0.35 * t.side_px
        and r.label == t.label for t in scene.dice)]
    assert wrong  # the side face, read as a number
    return scene, faces, wrong


@pytest.mark.parametrize("seed", [23261127, 23261143, 23261206, 23261245])
def test_with_the_nadir_given_a_side_face_is_not_read(seed):
    """Dev frames where a side face facing the camera within 4-22 degrees was found and
    read as another number while the die's top face, farther aslant, was not: with the
    camera's nadir given (as a calibrated table knows it) no face is read wrong."""
    from vision.d20 import _choose
    from vision.nadir import Nadir

    scene, faces, _ = _side_face_read(seed)
    res = KindResult("test")
    score(res, scene.dice, _choose(scene.image, faces, Nadir(scene.nadir)), scene.hard, seed)
    assert res.confident_errors == 0, res.errors


def test_with_the_nadir_given_top_faces_seen_aslant_are_read():
    """Dev frames (most from a tilted camera) whose top faces are seen too aslant to tell
    from a side face by their look alone (more than about 21 degrees): with the nadir they
    are read, and nothing is read wrong."""
    from vision.d20 import _choose, _faces
    from vision.nadir import Nadir

    without, given = KindResult("without"), KindResult("given")
    for seed in (23261129, 23261162, 23261169):
        scene = _bench_scene(seed)
        faces, _ = _faces(scene.image)
        score(without, scene.dice, _choose(scene.image, faces, None), scene.hard, seed)
        score(given, scene.dice, _choose(scene.image, faces, Nadir(scene.nadir)), scene.hard,
              seed)
    assert given.confident_errors == 0, given.errors
    assert given.right >= without.right + 4, (without.summary(), given.summary())


def test_the_scenes_nadir_is_below_the_camera():
    """A scene's nadir is where its camera images the table's point straight below it:
    the principal point straight down, off it under a tilted camera (the generator's own
    camera, `vision.scenes_common.View`)."""
    from vision.scenes_common import View, rot_x

    view = View(640, 480, 600.0, 500.0, (330.0, 250.0))
    assert np.allclose(view.project(np.zeros((1, 3)))[0], (330.0, 250.0))
    tilted = View(640, 480, 600.0, 500.0, (330.0, 250.0), rot_x(20.0))
    # the vertical through any point of the table is imaged on a line through the nadir
    nadir = tilted.project(np.zeros((1, 3)))[0]
    foot, top = tilted.project(np.array([[80.0, -40.0, 0.0], [80.0, -40.0, 20.0]]))
    d1, d2 = top - foot, nadir - foot
    assert abs(d1[0] * d2[1] - d1[1] * d2[0]) < 1e-6 * np.hypot(*d1) * np.hypot(*d2)
    assert abs(nadir[1] - 250.0) == pytest.approx(600.0 * np.tan(np.radians(20.0)), rel=1e-6)


def test_how_far_a_line_of_sight_may_be_from_the_vertical():
    """At the nadir the line of sight is the vertical; F_MIN frame sides from it (straight
    down, the nadir in the middle) 45 degrees; a nadir known loosely widens it."""
    from vision.d20 import F_MIN, _sight_from_vertical
    from vision.nadir import Nadir

    frame = (800, 600)
    mid = Nadir((400.0, 300.0))
    assert _sight_from_vertical((400.0, 300.0), mid, frame) == pytest.approx(0.0, abs=1e-6)
    p = (400.0 + F_MIN * 800, 300.0)
    assert _sight_from_vertical(p, mid, frame) == pytest.approx(45.0, abs=1e-6)
    assert _sight_from_vertical(p, Nadir((400.0, 300.0), 80.0), frame) > 45.0


def test_a_face_more_aslant_than_its_line_of_sight_can_be_is_no_top_face():
    """A face seen 37 degrees aslant (squashed to 0.8) straight below the camera (the line
    of sight vertical) is a side face; the same face half a frame's side out (its line of
    sight 45 degrees from the vertical at the shortest focal length) can be the top; one
    squashed to 0.7 (a side face tilted away) never is."""
    import math

    from vision.d20 import F_MIN, _can_be_top
    from vision.nadir import Nadir
    from vision.objects import ObjectReading

    eq = np.array([[0.0, -2.0], [math.sqrt(3), 1.0], [-math.sqrt(3), 1.0]]) * 20

    def face(at, squash):
        corners = eq * [1.0, squash] + at
        return ObjectReading("d20", "1d", 0.9, tuple(at), corners.tolist(), 0.0, 70.0)

    frame, mid = (800, 600), np.array([400.0, 300.0])
    nadir = Nadir(tuple(mid))
    out = mid + [F_MIN * 800, 0.0]
    assert not _can_be_top(face(mid, 0.8), nadir, frame)
    assert _can_be_top(face(out, 0.8), nadir, frame)
    assert _can_be_top(face(mid, 0.996), nadir, frame)  # within the corners' error
    assert not _can_be_top(face(out, 0.7), nadir, frame)


@pytest.mark.parametrize("seed", [23261127, 23261143, 23261206])
def test_without_the_nadir_a_side_face_facing_the_camera_is_not_read(seed):
    """Dev frames where a side face facing the camera within 11-20 degrees was found and
    read (as another number) with the camera's nadir unknown: a camera tilted up to
    MAX_TILT may see a side face so anywhere in these frames, so it is abstained on."""
    scene, _, wrong = _side_face_read(seed)
    readings = read_d20(scene.image)
    res = KindResult("test")
    score(res, scene.dice, readings, scene.hard, seed)
    assert res.confident_errors == 0, res.errors
    assert all("nadir unknown" in r.why for r in readings if r in wrong or r.label is None
               and r.why.startswith("perhaps"))


def test_two_faces_of_a_die_as_far_from_the_nadir_are_not_read():
    """Dev frame 23261257 with the calibrated table's nadir: the die's top face (3n) and a
    side face (4d, found too large: one corner on the cloth, so it looks as square as a top
    face) lie as far from the nadir; whichever is farther by a few px is not its top: both
    are abstained on, and nothing is read wrong."""
    from vision.d20 import _choose, _faces

    scene = _bench_scene(23261257)
    faces, _ = _faces(scene.image)
    assert sorted(r.label for r in faces if r.label is not None) == ["1n", "3n", "4d"]
    res = KindResult("test")
    score(res, scene.dice, _choose(scene.image, faces, _table_nadir(scene)), scene.hard,
          23261257)
    assert res.confident_errors == 0, res.errors
    assert res.right >= 1, res.summary()


def test_a_face_found_too_large_is_still_of_its_die():
    """Dev frame 23281258 (bench seed 20281121) with the calibrated table's nadir: the top
    face (18) is found 1.61 times as large as the side face beside it (17, also 4n), their
    centres 0.82 of the smaller's side apart. Of one die (`NEAR_SAME`), not two: the side
    face is not read as a second die's top (it was: 4n where there is no die)."""
    from vision.d20 import _choose, _faces

    scene = _bench_scene(23281258)
    faces, _ = _faces(scene.image)
    res = KindResult("test")
    score(res, scene.dice, _choose(scene.image, faces, _table_nadir(scene)), scene.hard,
          23281258)
    assert res.confident_errors == 0, res.errors


@pytest.mark.parametrize("seed", [23261156, 23261164, 23261258])
def test_the_nadir_is_told_from_three_dice_in_the_picture(seed):
    """Dev frames of three dice, no nadir given: each die's body reaches from its top face
    towards the nadir; the lines from its faces to its silhouette's middle meet within the
    nadir's stated spread of the camera's true nadir, and with it the dice are read, none
    wrong (before, with the nadir unknown, none could be told from a side face)."""
    from vision.d20 import _faces, _frame_nadir

    scene = _bench_scene(seed)
    faces, _ = _faces(scene.image)
    nadir = _frame_nadir(scene.image, faces)
    assert nadir is not None and nadir.dice == 3
    assert np.hypot(*(np.array(nadir.point) - scene.nadir)) <= nadir.spread, nadir
    res = KindResult("test")
    score(res, scene.dice, read_d20(scene.image), scene.hard, seed)
    assert res.confident_errors == 0, res.errors
    assert res.right >= 2, res.summary()


def test_one_or_two_dice_tell_no_nadir():
    """Two lines always meet: with fewer than three dice the picture tells no nadir."""
    from vision.d20 import _faces, _frame_nadir

    for seed in (23261127, 23261206):  # two and three dice, two of them found
        scene = _bench_scene(seed)
        faces, _ = _faces(scene.image)
        assert _frame_nadir(scene.image, faces) is None


def test_faces_of_no_die_read_tell_no_nadir():
    """A dev frame of another seed than the bench's usual (23281184: three dice, one of them
    found as two groups of faces, one a 70 px fragment with no number read): with every
    group's line the picture's "nadir" lay 875-1080 px from the true one with a spread of 121-212,
    and a side face was read confidently. Only dice with a face read count: two here, no
    nadir, nothing read wrong."""
    from vision.d20 import _faces, _frame_nadir

    scene = _bench_scene(23281184)
    faces, _ = _faces(scene.image)
    nadir = _frame_nadir(scene.image, faces)
    assert nadir is None or np.hypot(*(np.array(nadir.point) - scene.nadir)) <= nadir.spread
    res = KindResult("test")
    score(res, scene.dice, read_d20(scene.image), scene.hard, 23281184)
    assert res.confident_errors == 0, res.errors


def test_a_bare_6_or_9_is_read_or_abstained_never_taken_for_the_other():
    """6 and 9 printed without their bar (as some d20s print them), at any turn: each is
    upright towards one corner, so the other is never read (6 is 2n, 9 is 3d)."""
    import cv2

    right = sum(_read_right_or_none(number, turn, cv2.FONT_HERSHEY_SIMPLEX, 40 + i, bar=False)
                for i, turn in enumerate((0, 50, 140, 230, 300)) for number in (6, 9))
    assert right >= 5, right


def test_a_face_facing_the_camera_more_squarely_than_a_top_face_can_is_no_top_face():
    """A table's camera tipped 30 degrees (its markers' homography known): at the picture's
    middle the line of sight is 30 degrees from the vertical whichever camera the markers
    allow, so a top face there is seen about 30 degrees aslant. A face facing the camera
    squarely there is a side face; one squashed as a top face is can be the top."""
    import math

    from vision.d20 import _can_be_top, _sight_from_vertical, _sight_least
    from vision.geometry import TableGeometry
    from vision.nadir import from_homography
    from vision.objects import ObjectReading

    w, h, f = 1640, 1232, 1400.0
    t = math.radians(30.0)
    turn = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])

    def project(pts):
        q = np.stack([pts[:, 0], pts[:, 1], 800.0 - pts[:, 2]], 1) @ turn.T
        return np.array([w / 2, h / 2]) + f * q[:, :2] / q[:, 2:3]

    felt = np.array([[-450, -300, 0], [450, -300, 0], [450, 300, 0], [-450, 300, 0]], float)
    seen = project(felt) + np.random.default_rng(3).normal(0, 0.5, (4, 2))
    nadir = from_homography(TableGeometry.from_corners(seen, (900.0, 600.0)), (w, h),
                            pp_share=0.03)
    mid = (w / 2, h / 2)
    least, most = _sight_least(mid, nadir, (w, h)), _sight_from_vertical(mid, nadir, (w, h))
    assert least <= 30.0 <= most and least >= 20.0
    eq = np.array([[0.0, -2.0], [math.sqrt(3), 1.0], [-math.sqrt(3), 1.0]]) * 25

    def face(squash):  # squashed towards the nadir (straight down the picture)
        return ObjectReading("d20", "1d", 0.9, mid, (eq * [1.0, squash] + mid).tolist(), 0.0,
                             75.0)

    assert not _can_be_top(face(1.0), nadir, (w, h))
    assert _can_be_top(face(math.cos(math.radians(30.0))), nadir, (w, h))
