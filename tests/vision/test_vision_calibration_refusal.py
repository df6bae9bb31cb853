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


def _learn(patches: list[np.ndarray], labels: list[int], names: list[str]):
    return learn_templates("test-letters", LETTERS, FeltModel(np.zeros(2), np.eye(2)),
                           Geometry(48.0, 0.02, (800.0, 600.0)), np.asarray(patches, np.uint8),
                           np.asarray(labels, np.int32), names=names)


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
