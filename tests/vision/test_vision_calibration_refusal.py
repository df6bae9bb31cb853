"""Calibration refuses only faces it cannot tell apart; a few misread captures raise the
threshold and are named instead."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.descriptors import STORE
from vision.dice import PATCH, FeltModel
from vision.errors import CalibrationRefused
from vision.model import Geometry
from vision.training import learn_templates

LETTERS = ["L", "T", "X", "O"]


def _face(letter: str, seed: int) -> np.ndarray:
    """A rectified face with margin: a pale sticker with a dark letter, a little off."""
    rng = np.random.default_rng(seed)
    img = np.full((STORE, STORE, 3), 40, np.uint8)
    o = (STORE - PATCH) // 2
    img[o:o + PATCH, o:o + PATCH] = (200, 215, 225)
    dx, dy = rng.integers(-2, 3, 2)
    if letter:
        cv2.putText(img, letter, (o + 8 + int(dx), o + PATCH - 9 + int(dy)),
                    cv2.FONT_HERSHEY_SIMPLEX, 1.3, (30, 30, 60), 3, cv2.LINE_AA)
    noisy = img.astype(np.float32) + rng.normal(0, 3, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def _learn(patches: list[np.ndarray], labels: list[int], names: list[str],
           left_out: list[tuple[str, str, list[str]]] | None = None):
    return learn_templates("test-letters", LETTERS, FeltModel(np.zeros(2), np.eye(2)),
                           Geometry(48.0, 0.02, (800.0, 600.0)), np.asarray(patches, np.uint8),
                           np.asarray(labels, np.int32), names=names, left_out=left_out)


def _refused_without_dice(missing: set[tuple[str, int]]) -> str:
    """The refusal of six captures a letter, L drawn with T's art, where the captures in
    `missing` (letter, number) showed no findable die."""
    patches, labels, names, left_out = [], [], [], []
    for li, lab in enumerate(LETTERS):
        for j in range(6):
            if (lab, j) in missing:
                left_out.append((lab, f"{lab}/{j:02d}.png", ["die not found"]))
                continue
            patches.append(_face("T" if lab == "L" else lab, 10 * li + j))
            labels.append(li)
            names.append(f"{lab}/{j:02d}.png")
    with pytest.raises(CalibrationRefused) as refused:
        _learn(patches, labels, names, left_out)
    return str(refused.value)


def test_a_few_blank_captures_are_left_out_and_named_not_refused_the_threshold_and_are_named():
    # 5 of 24 captures show a sticker without its letter (a dash, a dot, nothing): before,
    # more than 10% of held-out captures misread refused the table; now those misread so
    # confidently that no threshold could stand are left out, and all of them are named
    blank = {("L", 1): "", ("T", 2): "-", ("X", 4): ".", ("O", 3): ",", ("L", 5): "_"}
    patches, labels, names = [], [], []
    for li, lab in enumerate(LETTERS):
        for j in range(6):
            patches.append(_face(blank.get((lab, j), lab), 10 * li + j))
            labels.append(li)
            names.append(f"{lab}/{j:02d}.png")
    profile, report = _learn(patches, labels, names)
    flawed = dict(report.flawed)
    misread = {n for n, why in flawed.items() if any("misread when held out" in w for w in why)}
    assert len(misread) >= 3  # over 10% of the captures
    assert misread <= {f"{lab}/{j:02d}.png" for lab, j in blank}
    assert report.accuracy >= 0.75
    assert len(profile.patches) == 24 - sum("left out" in w for why in flawed.values()
                                            for w in why)
    assert profile.thresholds.alone_margin >= 0.25


def test_faces_no_one_could_tell_apart_are_still_refused():
    patches = [_face("T", j) for j in range(24)]
    with pytest.raises(CalibrationRefused, match="cannot tell the faces apart"):
        _learn(patches, [j // 6 for j in range(24)], [f"c{j}.png" for j in range(24)])


def test_a_refusal_names_the_look_alike_faces_the_bad_captures_and_what_to_do():
    # L and T share their art; one capture of X is smeared: the refusal says which faces a
    # person could not tell apart either, which capture is bad and why, and what to do
    patches, labels, names = [], [], []
    for li, lab in enumerate(LETTERS):
        for j in range(6):
            face = _face("T" if lab == "L" else lab, 10 * li + j)
            if (lab, j) == ("X", 2):
                face = cv2.GaussianBlur(face, (0, 0), 5.0)
            patches.append(face)
            labels.append(li)
            names.append(f"{lab}/{j:02d}.png")
    with pytest.raises(CalibrationRefused) as refused:
        _learn(patches, labels, names)
    msg = str(refused.value)
    assert "L looks like T" in msg or "T looks like L" in msg
    assert "X/02.png (blurred" in msg
    assert "hold the die still" in msg and "make the art of L, T more different" in msg
    assert "No profile written" in msg


def test_half_the_captures_without_a_die_are_named_first_and_no_look_alike_is_claimed_on_them():
    # half the captures (12 of 24) show no findable die; L's art is T's, so the table is
    # refused, but L and T are measured on too few good captures (2 and 3 of 6) to say one
    # looks like the other: the refusal names the captures without a die and the cause
    # first, claims no look-alike on them, and says to retake them
    missing = {("L", 0), ("L", 1), ("L", 3), ("L", 4), ("T", 0), ("T", 2), ("T", 5),
               ("X", 1), ("X", 3), ("X", 4), ("O", 2), ("O", 5)}
    msg = _refused_without_dice(missing)
    assert msg.startswith("calibration has too few good captures of L, T, X")
    assert "L has 2 good of 6 captures (die not found: L/00.png, L/01.png, L/03.png, L/04.png)" \
        in msg
    assert "T has 3 good of 6 captures (die not found: T/00.png, T/02.png, T/05.png)" in msg
    assert "looks like" not in msg and "make the art" not in msg  # nothing claimed on them
    # O keeps 4 good captures: measured; its two are named after, as captures to look at
    assert msg.index("Captures to look at: O/02.png (die not found)") > msg.index("X has 3")
    assert "lay the die alone and wholly in view on the felt" in msg
    assert msg.endswith("No profile written")


def test_look_alikes_measured_on_good_captures_are_still_claimed_next_to_the_bad_captures():
    # L's art is T's, each with six good captures: "L looks like T" stands; X lost 3 of its
    # captures (no die found): named first, and X is claimed to look like nothing
    msg = _refused_without_dice({("X", 0), ("X", 1), ("X", 2)})
    assert msg.startswith("calibration has too few good captures of X")
    assert "X has 3 good of 6 captures (die not found: X/00.png, X/01.png, X/02.png)" in msg
    assert "L looks like T" in msg or "T looks like L" in msg
    assert "X looks like" not in msg and "looks like X" not in msg
    assert "make the art of L, T more different" in msg
