"""The face classifier learned at calibration (vision.classifier), on faces not drawn by our
renderer: OpenCV letters on coloured stickers, captured at any quarter turn, then read
blurred, dimmed, noisy, JPEG-compressed and a little turned."""

from __future__ import annotations

import cv2
import numpy as np

from vision.classifier import align, face_rows, margin, train
from vision.descriptors import STORE
from vision.dice import PATCH

# (letter, die body colour BGR): two dice that share letters, told apart by colour
FACES = [("A", (40, 40, 170)), ("K", (40, 40, 170)), ("R", (40, 40, 170)),
         ("A", (170, 120, 30)), ("K", (170, 120, 30)), ("F", (170, 120, 30))]


def _face(li: int, seed: int, turn: int) -> np.ndarray:
    """A stored face: a die body round a pale sticker, its letter a little off centre, the
    whole turned `turn` quarters (the die lay at any angle)."""
    letter, body = FACES[li]
    rng = np.random.default_rng(seed)
    img = np.full((STORE, STORE, 3), 25, np.uint8)
    o = (STORE - PATCH) // 2
    img[o:o + PATCH, o:o + PATCH] = body
    s = 5
    img[o + s:o + PATCH - s, o + s:o + PATCH - s] = (205, 220, 230)
    dx, dy = rng.integers(-2, 3, 2)
    cv2.putText(img, letter, (o + 11 + int(dx), o + PATCH - 12 + int(dy)),
                cv2.FONT_HERSHEY_DUPLEX, 1.1, (30, 30, 40), 2, cv2.LINE_AA)
    img = np.ascontiguousarray(np.rot90(img, turn))
    noisy = img.astype(np.float32) + rng.normal(0, 3, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def _as_play_shows(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The face as a table shows it later: turned a few degrees, blurred, dimmer, noisier,
    JPEG (drawn here, not with vision.augment)."""
    c = (STORE - 1) / 2
    M = cv2.getRotationMatrix2D((c, c), float(rng.uniform(-4, 4)), 1.0)
    M[:, 2] += rng.uniform(-2, 2, 2)
    f = cv2.warpAffine(face, M, (STORE, STORE), borderMode=cv2.BORDER_REPLICATE)
    f = cv2.GaussianBlur(f.astype(np.float32), (0, 0), float(rng.uniform(0.4, 1.2)))
    f = f * rng.uniform(0.55, 1.1) + rng.normal(0, 4, f.shape)
    ok, buf = cv2.imencode(".jpg", np.clip(f, 0, 255).astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, 70])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _captures(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    turns = rng.integers(0, 4, 6 * len(FACES))
    patches = [_face(i // 6, 100 + i, int(turns[i])) for i in range(6 * len(FACES))]
    return np.asarray(patches), np.repeat(np.arange(len(FACES)), 6), turns


def test_captures_are_aligned_to_their_labels_orientation():
    patches, labels, turns = _captures(np.random.default_rng(1))
    ks = align(patches, labels)
    for li in range(len(FACES)):
        idx = np.flatnonzero(labels == li)
        # turning each capture by its alignment brings them all to one orientation
        assert len({int(turns[i] + ks[i]) % 4 for i in idx}) == 1, FACES[li]


def test_the_classifier_reads_faces_at_any_turn_and_tells_dice_apart_by_colour():
    rng = np.random.default_rng(2)
    patches, labels, _ = _captures(rng)
    clf = train(patches, labels, len(FACES), copies=6)
    right, margins = 0, []
    for li in range(len(FACES)):
        for k in range(8):
            face = _as_play_shows(_face(li, 900 + 10 * li + k, k % 4), rng)
            s = clf.scores(face_rows(face))
            right += int(np.argmax(s)) == li
            margins.append(margin(s))
    assert right == 8 * len(FACES)
    assert np.median(margins) > 2.0  # sure, not just ahead


def test_a_face_the_classifier_never_saw_is_not_read_surely():
    rng = np.random.default_rng(3)
    patches, labels, _ = _captures(rng)
    clf = train(patches, labels, len(FACES), copies=6)
    known = np.median([margin(clf.scores(face_rows(_face(li, 50 + li, 0))))
                       for li in range(len(FACES))])
    blank = _face(0, 7, 0)
    o = (STORE - PATCH) // 2 + 5
    blank[o:o + PATCH - 10, o:o + PATCH - 10] = (205, 220, 230)  # the sticker, no letter
    assert margin(clf.scores(face_rows(blank))) < known / 2


def test_captures_are_aligned_together_when_the_first_is_smeared():
    """A label's first capture blurred past reading and its face fitted off: matched against
    it alone, the sharp captures' turns came out at random; chosen together (each pair at the
    best of the search shifts), they agree."""
    patches, labels, turns = _captures(np.random.default_rng(1))
    c = (STORE - 1) / 2
    for li in range(len(FACES)):
        i = int(np.flatnonzero(labels == li)[0])
        M = cv2.getRotationMatrix2D((c, c), 0.0, 1.12)
        M[:, 2] += (5, -4)
        smeared = cv2.warpAffine(patches[i], M, (STORE, STORE), borderMode=cv2.BORDER_REPLICATE)
        patches[i] = cv2.GaussianBlur(smeared, (0, 0), 4.0)
    ks = align(patches, labels)
    for li in range(len(FACES)):
        idx = np.flatnonzero(labels == li)[1:]
        assert len({int(turns[i] + ks[i]) % 4 for i in idx}) == 1, FACES[li]
