"""Reading dice: the shipped profile on unseen scenes, unseen art, abstaining, refusing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.vision.conftest import SEASONS, SEASONS_STYLE, SEASONS_TABLE
from vision.default_profile import NOMINAL_TABLE
from vision.dice import TopFace
from vision.errors import CalibrationRefused
from vision.labels import Die, DieSet
from vision.matcher import INK_RELIABILITY_FLOOR, INK_WEIGHT, InkModel
from vision.reader import POSE_UNSURE
from vision.recognizer import Recognizer, Thresholds, calibrate
from vision.synthetic import DieSpec, make_capture, make_scene, render_scene, sample_params


def _tally(rec, scenes):
    """(right, abstained, wrong) over scenes, matching readings to dice by position."""
    right = abstained = wrong = 0
    for scene in scenes:
        readings = rec.read(scene.image)
        used = set()
        for truth in scene.dice:
            near = [(math.dist(r.center, truth.top_center), i) for i, r in enumerate(readings)
                    if i not in used]
            d, i = min(near, default=(99.0, -1))
            if d > 12:
                abstained += 1
                continue
            used.add(i)
            label = readings[i].label
            if label is None:
                abstained += 1
            elif label == truth.label:
                right += 1
            else:
                wrong += 1
        wrong += sum(1 for i, r in enumerate(readings) if i not in used and r.label)
    return right, abstained, wrong


def test_shipped_profile_reads_unseen_scenes(shipped_profile):
    rec = Recognizer(shipped_profile)
    scenes = [make_scene(7000 + s, table=NOMINAL_TABLE) for s in range(8)]
    right, abstained, wrong = _tally(rec, scenes)
    assert wrong == 0
    assert right >= 38 and right + abstained == 40


def test_touching_dice_are_each_found(shipped_profile):
    rec = Recognizer(shipped_profile)
    scenes = [make_scene(7100 + s, touching=1.0, table=NOMINAL_TABLE) for s in range(4)]
    right, abstained, wrong = _tally(rec, scenes)
    assert wrong == 0
    assert right >= 15


def test_calibration_learns_art_it_never_saw(seasons_profile):
    profile, report = seasons_profile
    assert report.accuracy >= 0.9
    rec = Recognizer(profile)
    scenes = [make_scene(7200 + s, n_dice=2, style=SEASONS_STYLE, die_set=SEASONS,
                         table=SEASONS_TABLE) for s in range(8)]
    right, abstained, wrong = _tally(rec, scenes)
    assert wrong == 0
    assert right >= 15


def test_cocked_die_is_flagged_not_read(shipped_profile):
    rec = Recognizer(shipped_profile)
    p = sample_params(np.random.default_rng(3), table=NOMINAL_TABLE)
    scene = render_scene(p, [DieSpec("NORTH", 60.0, 40.0, 20.0, cocked_deg=28.0)], seed=4)
    readings = [r for r in rec.read(scene.image) if r.kind == "die"]
    assert readings, "the cocked die must still be reported"
    assert all(r.label is None for r in readings)
    assert any(r.cocked for r in readings)


def test_blank_faces_make_calibration_refuse():
    twins = DieSet("test-twins", (Die("T", (60, 60, 180), (20, 20, 20),
                                      ("LEFT", "LEFT", "LEFT", "RIGHT", "RIGHT", "RIGHT")),),
                   glyphs={"LEFT": "土", "RIGHT": "土"})
    caps = {lab: [(f"{lab}/{j}.png", make_capture(50 + 10 * i + j, lab, die_set=twins,
                                                 table=NOMINAL_TABLE, sticker_offset=0.0).image)
                  for j in range(3)]
            for i, lab in enumerate(["LEFT", "RIGHT"])}
    # identical art, but words differ: make them identical too by dropping the word
    from vision.art import LabelStyle

    style = LabelStyle(word="none")
    caps = {lab: [(f"{lab}/{j}.png", make_capture(50 + 10 * i + j, lab, style, twins,
                                                 table=NOMINAL_TABLE).image)
                  for j in range(3)]
            for i, lab in enumerate(["LEFT", "RIGHT"])}
    with pytest.raises(CalibrationRefused, match="LEFT|RIGHT"):
        calibrate(caps, twins.name)


def test_die_on_the_felt_edge_is_reported_off_felt(shipped_profile):
    rec = Recognizer(shipped_profile)
    p = sample_params(np.random.default_rng(5), table=NOMINAL_TABLE)
    edge_x = p.felt_mm[0] / 2 - 3.0  # most of the die lies on the wood beyond the felt
    scene = render_scene(p, [DieSpec("SUN", edge_x, 0.0, 10.0), DieSpec("MOON", 0.0, 0.0, 30.0)],
                         seed=6)
    readings = {r.label: r for r in rec.read(scene.image) if r.kind == "die"}
    assert readings["MOON"].on_felt
    edge = [r for r in rec.read(scene.image) if r.kind == "die" and not r.on_felt]
    assert edge and math.dist(edge[0].center, scene.dice[0].top_center) < 30


def test_hand_over_the_felt_is_an_obstruction_not_a_die(shipped_profile):
    rec = Recognizer(shipped_profile)
    p = sample_params(np.random.default_rng(7), table=NOMINAL_TABLE)
    from dataclasses import replace

    scene = render_scene(replace(p, hand=True), [], seed=8)
    readings = rec.read(scene.image)
    assert readings and all(r.label is None for r in readings)
    assert any(r.kind == "obstruction" for r in readings)


def _one_east():
    """A scene of one EAST die in the middle of the felt, in ordinary light."""
    p = sample_params(np.random.default_rng(11), table=NOMINAL_TABLE)
    return render_scene(p, [DieSpec("EAST", 0.0, 0.0, 30.0)], seed=12)


def _one_face(rec, scene):
    """The fitted top face of a one-die scene and the die's true label."""
    faces = [f for f, _, cocked in rec.find_faces(scene.image) if f is not None and not cocked]
    assert len(faces) == 1
    return faces[0], scene.dice[0].label


def test_second_look_finds_a_misfitted_face(shipped_profile):
    # a face fitted 6 px and 4 degrees off (a washed-out outline): the wider, slower second
    # look still puts the true label first
    rec = Recognizer(shipped_profile)
    scene = _one_east()
    face, truth = _one_face(rec, scene)
    t = math.radians(face.angle_deg)
    off = TopFace((face.center[0] + 6 * math.cos(t), face.center[1] + 6 * math.sin(t)),
                  face.angle_deg + 4.0, face.side * 1.05, face.residual)
    scores, _ = rec.second_look(scene.image, off)
    assert shipped_profile.labels[int(np.argmax(scores))] == truth
    label, _, _ = rec.read_face(scene.image, off)
    assert label in (truth, None)


def _classifier_sure_of(rec, monkeypatch, labels, name):
    """Make the learned classifier surely read `name` (these tests are about the matcher's
    decision: the classifier agrees with whatever it should)."""
    c = np.full(len(labels), -10.0, np.float32)
    c[labels.index(name)] = 0.0
    monkeypatch.setattr(rec.classifier, "scores", lambda rows: c.copy())
    return c


def test_second_look_overrules_the_first_only_with_double_margin(shipped_profile,
                                                                 monkeypatch):
    rec = Recognizer(shipped_profile)
    scene = _one_east()
    face, truth = _one_face(rec, scene)
    labels = shipped_profile.labels
    other = labels.index("WEST")
    # the classifier unsure (a flat guess), so the matcher's looks decide alone
    monkeypatch.setattr(rec.classifier, "scores",
                        lambda rows: np.zeros(len(labels), np.float32))
    # a first look that abstains, favouring the truth a little
    first = np.full(len(labels), 0.5, np.float32)
    first[labels.index(truth)] = 0.55
    monkeypatch.setattr(rec.matcher, "scores", lambda d: first.copy())
    monkeypatch.setattr(rec.ink, "penalty", lambda c, k=None: np.zeros(len(labels), np.float32))
    m = shipped_profile.thresholds.alone_margin
    flat = np.zeros(len(labels), np.float32)

    def second(k):  # WEST ahead of the runner-up (the truth, 0.55) by k times the threshold
        s = np.full(len(labels), 0.5, np.float32)
        s[other] = 0.55 + 0.45 * k * m
        return lambda img, f: (s, flat)

    # another label above the threshold, but short of twice it: the looks disagree, abstain
    monkeypatch.setattr(rec, "second_look", second(1.5))
    assert rec.read_face(scene.image, face)[0] is None
    # far above it: the second look's reading stands
    monkeypatch.setattr(rec, "second_look", second(2.2))
    label, conf, _ = rec.read_face(scene.image, face)
    assert label == "WEST" and conf >= 0.5
    # agreeing with the first look's favourite: the ordinary threshold is enough
    s = first.copy()
    s[labels.index(truth)] = 0.5 + 0.5 * 1.2 * m  # ahead of the rest (0.5) by 1.2x
    monkeypatch.setattr(rec, "second_look", lambda img, f: (s, flat))
    assert rec.read_face(scene.image, face)[0] == truth


def test_a_washed_out_ink_weighs_less_but_the_body_colour_does_not():
    # ink chromaticity measured on a dim or glared face (low ink contrast) is noisier: its
    # distance counts less, down to INK_RELIABILITY_FLOOR; the die body's ring counts fully
    model = InkModel(np.zeros((2, 4), np.float32), np.full(4, 0.05, np.float32), 60.0)
    ink_off = np.array([0.5, 0.0, 0.0, 0.0], np.float32)  # ten spreads away in ink
    body_off = np.array([0.0, 0.0, 0.5, 0.0], np.float32)  # ten spreads away in body colour
    sure, unsure = model.penalty(ink_off, 60.0), model.penalty(ink_off, 15.0)
    assert unsure[0] < sure[0]
    assert unsure[0] == pytest.approx(INK_WEIGHT * (10 * INK_RELIABILITY_FLOOR - 3.0))
    assert model.penalty(ink_off, 90.0)[0] == pytest.approx(sure[0])  # brighter: no bonus
    assert model.penalty(body_off, 15.0)[0] == pytest.approx(model.penalty(body_off, 60.0)[0])
    assert model.penalty(ink_off)[0] == pytest.approx(sure[0])  # no contrast given: as before


def test_hard_scenes_are_read_or_abstained_never_misread(shipped_profile):
    # low light or strong glare, touching dice: abstaining is allowed, misreading is not
    rec = Recognizer(shipped_profile)
    scenes = [make_scene(7300 + s, hard=True, touching=0.4, table=NOMINAL_TABLE)
              for s in range(6)]
    right, abstained, wrong = _tally(rec, scenes)
    assert wrong == 0
    assert right >= 26


def test_a_face_placed_unsurely_gets_the_second_look_even_when_sure(shipped_profile,
                                                                      monkeypatch):
    # a blob a flat die explains poorly (touching dice cut badly, a cocked-ish die): its top
    # face may sit further off than the first look searches, so the second look checks it
    rec = Recognizer(shipped_profile)
    scene = _one_east()
    face, truth = _one_face(rec, scene)
    calls = []

    def spy(img, f):
        calls.append(f)
        return (np.full(len(shipped_profile.labels), -1.0, np.float32),
                np.full(len(shipped_profile.labels), -10.0, np.float32))

    monkeypatch.setattr(rec, "second_look", spy)
    sure = TopFace(face.center, face.angle_deg, face.side, 0.0)
    assert rec.read_face(scene.image, sure)[0] == truth and not calls
    unsure = TopFace(face.center, face.angle_deg, face.side, POSE_UNSURE + 0.02)
    assert rec.read_face(scene.image, unsure)[0] == truth and len(calls) == 1


def test_a_reading_barely_over_the_threshold_gets_the_second_look(shipped_profile, monkeypatch):
    # in dim light RICE loses the two dots that tell it from TREE, and the first look may read
    # TREE just over the threshold: the second look is asked, and a disagreement abstains
    rec = Recognizer(shipped_profile)
    scene = _one_east()
    face, _ = _one_face(rec, scene)
    labels = shipped_profile.labels
    m = shipped_profile.min_margin
    tree, rice = labels.index("TREE"), labels.index("RICE")
    first = np.full(len(labels), 0.5, np.float32)
    first[rice] = 0.9
    first[tree] = 0.9 + 0.1 * 1.05 * m  # ahead by 1.05 x the threshold: confidence ~0.52
    monkeypatch.setattr(rec.matcher, "scores", lambda d: first.copy())
    sure_tree = _classifier_sure_of(rec, monkeypatch, labels, "TREE")
    monkeypatch.setattr(rec.ink, "penalty", lambda c, k=None: np.zeros(len(labels), np.float32))
    calls = []

    def looks(winner):
        def second(img, f):
            calls.append(f)
            s = first.copy()
            s[winner] = first[tree] + 0.01
            c = np.full(len(labels), -10.0, np.float32)
            c[winner] = 0.0
            return s, np.maximum(c, sure_tree)  # merged with the first look's, as read_face does
        return second

    monkeypatch.setattr(rec, "second_look", looks(rice))
    assert rec.read_face(scene.image, face)[0] is None and len(calls) == 1
    # the second look agrees (more poses lift the runners-up too): the first reading stands
    monkeypatch.setattr(rec, "second_look", looks(tree))
    label, conf, _ = rec.read_face(scene.image, face)
    assert label == "TREE" and 0.5 <= conf < Thresholds().sure_at_first_look and len(calls) == 2
    # a clear first reading is not looked at again
    first[tree] = 0.9 + 0.1 * 1.6 * m
    assert rec.read_face(scene.image, face)[0] == "TREE" and len(calls) == 2


def test_calibration_reports_its_progress(seasons_captures):
    seen: list[tuple[float, str]] = []
    calibrate(seasons_captures, SEASONS.name, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert len(seen) > 20 and all(m for _, m in seen)
    # the camera's geometry (a fifth of the time on 16 x 6 captures) moves the bar as it goes
    geometry = [f for f, m in seen if m == "measuring the camera's geometry"]
    assert len(geometry) >= 2 and geometry[-1] > geometry[0]


def test_progress_stages_share_the_bar_and_never_go_back():
    from vision.training import Stages

    seen: list[float] = []
    stages = Stages(lambda f, m: seen.append(f), (("a", 1.0), ("b", 3.0)))
    stages("a", 0.5, "a")
    stages("b", 0.5, "b")
    stages("a", 1.0, "a again")  # a stage done again holds the bar
    stages.within("b")(2.0, "b done")  # beyond its end: the stage's end
    assert seen == [0.125, 0.625, 0.625, 1.0]


def test_flawed_captures_are_named_with_the_reason(seasons_profile):
    import cv2

    from vision.training import capture_flaws

    profile, report = seasons_profile
    patches = profile.patches.copy()
    assert not any(capture_flaws(patches))  # generated captures of one table: none flawed
    patches[0] = cv2.GaussianBlur(patches[0], (0, 0), 2.5)
    patches[1] = (patches[1] * 0.3).astype(np.uint8)
    patches[2] = np.clip(patches[2].astype(int) + 120, 0, 255).astype(np.uint8)
    flaws = capture_flaws(patches)
    assert "blurred" in flaws[0] and "too dark" in flaws[1] and "glare" in flaws[2]
    assert not any(flaws[3:])
    assert report.to_json()["flawed_captures"] == [[n, r] for n, r in report.flawed]


def test_a_dim_table_is_judged_against_its_own_captures(seasons_profile):
    """A dim lamp makes every capture dark: none is "too dark" for that (a person tells the
    faces apart), but one far darker than the table's other captures still is."""
    from vision.training import capture_flaws

    profile, _ = seasons_profile
    dim = (profile.patches.astype(np.float32) * 0.15).astype(np.uint8)
    o = (dim.shape[1] - 48) // 2
    assert np.percentile(dim[:, o:o + 48, o:o + 48], 80) < 40  # under the old fixed floor
    assert not any("too dark" in f for f in capture_flaws(dim))
    dim[3] = (dim[3] * 0.3).astype(np.uint8)
    flaws = capture_flaws(dim)
    assert "too dark" in flaws[3] and not any("too dark" in f for f in flaws[:3] + flaws[4:])


def test_reading_and_calibrating_hold_numpy_blas_to_one_thread(seasons_profile, monkeypatch):
    """OpenBLAS's idle threads spin between the reader's small products: on one core they
    took over half a frame's CPU time, so reading and calibrating run on one BLAS thread."""
    from threadpoolctl import threadpool_info

    import vision.training as training
    from vision.reader import Recognizer

    def blas_threads() -> list[int]:
        return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]

    seen: list[list[int]] = []
    # the first thing each does (finding the faces; the first step of the progress)
    monkeypatch.setattr(Recognizer, "find_faces", lambda self, img, ignore: seen.append(
        blas_threads()) or [])
    frame = seasons_profile[0].geometry.frame or (8, 8)
    Recognizer(seasons_profile[0]).read(np.zeros((frame[1], frame[0], 3), np.uint8))
    with pytest.raises(training.BadCaptureFolder):  # no captures: refused after the first step
        training.calibrate({}, "seasons", progress=lambda f, m: seen.append(blas_threads()))
    # numpy's BLAS (and any other loaded) is found, and held to one thread in both
    assert len(seen) == 2 and all(threads and set(threads) == {1} for threads in seen)
