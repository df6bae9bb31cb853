"""The Rugen d20: the number on the face most nearly facing the camera, as a Rugen number.

A standard d20's 1..20 is mapped through the seed's transposing table (the faces of
`equipment/rugen-die.json`, in the order of a d20's numbers) to "1d".."4n"; a printed Rugen
die's face is read as printed. Nothing here knows the surface, the die's colour or size.
Steps, on an image pyramid (as `vision.numerals`):

1. **Ink**, dark on a light die or light on a dark one (black-hat and top-hat), in pieces of
   a number's size; pieces side by side ("1" and "4" of 14) joined.
2. **The face**: the body flood-filled round the ink (`vision.numerals.grow_face`) must be a
   triangle, near equilateral, the number at its centre. Of the faces found on one die the
   top face is the largest and most equilateral (the others are tilted away).
3. **The number**: a d20 prints each number upright towards one corner; the ink is turned
   so each corner in turn points up and matched with the numbers drawn in several fonts
   (6 and 9 with their bar) and the Rugen die's printed faces. The best Rugen number must
   beat every other by a margin (numbers that transpose alike are not rivals).
"""

from __future__ import annotations

import math
from functools import cache

import cv2
import numpy as np

from vision.errors import BadImage
from vision.numerals import (
    GLYPH_PX,
    HAT,
    INK_MIN,
    LEVELS,
    MIN_SIDE,
    TEMPLATE_FONTS,
    _groups,
    _ink_vector,
    grow_face,
    match,
)
from vision.objects import ObjectReading

MIN_SCORE = 0.85
MIN_MARGIN = 0.04
MAX_SIDES = 1.07  # a top face's longest side over its shortest


def _texts() -> tuple[list[str], list[str]]:
    """(what a face may show, the Rugen number each means)."""
    from vision.scenes_d20 import rugen_faces

    rugen = list(rugen_faces())
    shown = [str(n) for n in range(1, 21)] + sorted(set(rugen))
    means = rugen + sorted(set(rugen))
    return shown, means


@cache
def _templates() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """(vectors, Rugen-number index of each, the Rugen numbers): every face text in every
    template font, at small turns."""
    from vision.scenes_d20 import d20_texture

    shown, means = _texts()
    names = tuple(sorted(set(means)))
    vecs, labs = [], []
    for text, mean in zip(shown, means, strict=True):
        for font, weight in TEMPLATE_FONTS:
            tex, _ = d20_texture(text, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), font, weight, 0.24)
            ink = _face_ink(1 - tex.mean(2), np.array([[tex.shape[1] / 2, 0],
                                                       [tex.shape[1], tex.shape[0]],
                                                       [0, tex.shape[0]]], np.float32))
            for turn in (-5.0, 0.0, 5.0):
                h, w = ink.shape
                m = cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0)
                v = _ink_vector(cv2.warpAffine(ink, m, (w, h)))
                if v is not None:
                    vecs.append(v)
                    labs.append(names.index(mean))
    return np.array(vecs, np.float32), np.array(labs), names


def _face_ink(darkness: np.ndarray, tri: np.ndarray, apex: int = 0) -> np.ndarray:
    """The ink (1 = ink) of a triangular face, turned so corner `apex` points up: the disc
    round the centroid that a face's number fills, cut out square; darkness is 0..1 with the
    ink high."""
    c = tri.mean(0)
    up = tri[apex] - c
    ang = math.degrees(math.atan2(up[0], -up[1]))  # turn that brings the apex up
    rad = float(np.linalg.norm(up))  # centroid to corner
    out = max(16, int(round(rad * 1.1)))
    m = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), ang, 1.0)
    m[:, 2] += (out / 2 - c[0], out / 2 - c[1])
    d = cv2.warpAffine(darkness.astype(np.float32), m, (out, out), flags=cv2.INTER_LINEAR)
    yy, xx = np.mgrid[0:out, 0:out]
    d[(xx - out / 2) ** 2 + (yy - out / 2) ** 2 > (0.5 * rad) ** 2] = 0  # inside the face
    lo, hi = float(np.percentile(d, 40)), float(d.max())
    if hi - lo < 0.08:
        return np.zeros_like(d)
    ink = d > (lo + hi) / 2
    if ink.sum() > 0.4 * math.pi * (0.5 * rad) ** 2:  # the body, not a number on it
        return np.zeros_like(d)
    return ink.astype(np.float32)


def _triangle(hull: np.ndarray, gh: float, glyph: tuple[float, float]) -> tuple | None:
    """(corners (3, 2), side, how equilateral) of a region that can be a d20's face."""
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.06 * peri, True).reshape(-1, 2)
    if len(poly) != 3:
        return None
    sides = [float(np.linalg.norm(poly[i] - poly[(i + 1) % 3])) for i in range(3)]
    ratio = max(sides) / max(min(sides), 1e-6)
    side = float(np.mean(sides))
    c = poly.mean(0)
    if (ratio > MAX_SIDES or side < 12 or cv2.contourArea(hull) < 0.75 * 0.433 * side * side
            or not 0.08 <= gh / side <= 0.4
            or math.hypot(c[0] - glyph[0], c[1] - glyph[1]) > 0.15 * side):
        return None
    return poly.astype(np.float32), side, ratio


def read_d20(image: np.ndarray) -> list[ObjectReading]:
    """Every d20's top face in a BGR frame: label "1d".."4n" (None when unsure)."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise BadImage("expected a BGR colour image of 8-bit pixels (as cv2.imread gives)")
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (HAT, HAT))
    bgr = image
    found: list[tuple[float, ObjectReading]] = []
    for level in range(LEVELS):
        if level:
            bgr = cv2.pyrDown(bgr)
        if min(bgr.shape[:2]) < MIN_SIDE:
            break
        grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        scale = 2 ** level
        for op, dark_ink in ((cv2.MORPH_BLACKHAT, True), (cv2.MORPH_TOPHAT, False)):
            hat = cv2.morphologyEx(grey, op, kern)
            taken: list[tuple[float, float, float]] = []
            for box in _groups((hat > INK_MIN).astype(np.uint8)):
                if max(box[2] - box[0], box[3] - box[1]) > GLYPH_PX[1]:
                    continue
                bc = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
                if any(math.hypot(bc[0] - x, bc[1] - y) < 0.3 * s for x, y, s in taken):
                    continue
                grown = grow_face(bgr, box, _triangle, reach=3.5,
                                   tighten=(1.0, 0.6, 0.36, 0.22, 0.14))
                if grown is None:
                    continue
                _, _, (tri, side, ratio) = grown
                c = tri.mean(0)
                taken.append((float(c[0]), float(c[1]), side))
                darkness = (255 - grey if dark_ink else grey).astype(np.float32) / 255
                rd = _read_face(darkness, tri)
                cc = ((c[0] + 0.5) * scale - 0.5, (c[1] + 0.5) * scale - 0.5)
                rd.center = (float(cc[0]), float(cc[1]))
                rd.corners = [[float((x + 0.5) * scale - 0.5), float((y + 0.5) * scale - 0.5)]
                              for x, y in tri]
                rd.size_px = side * scale
                # the top face: the largest and most equilateral of a die's faces
                found.append((side * scale / ratio, rd))
    # one face found at two levels or in both inks: the surer reading
    found.sort(key=lambda t: -t[1].confidence)
    faces: list[tuple[float, ObjectReading]] = []
    for key, rd in found:
        if all(math.hypot(rd.center[0] - o.center[0], rd.center[1] - o.center[1])
               > 0.3 * max(rd.size_px, o.size_px) for _, o in faces):
            faces.append((key, rd))
    # faces of one die: its top face
    faces.sort(key=lambda t: -t[0])
    kept: list[ObjectReading] = []
    for _, rd in faces:
        if all(math.hypot(rd.center[0] - o.center[0], rd.center[1] - o.center[1])
               > 1.1 * max(rd.size_px, o.size_px) for o in kept):
            kept.append(rd)
    return kept


def _read_face(darkness: np.ndarray, tri: np.ndarray) -> ObjectReading:
    """The Rugen number on one triangular face (level pixels)."""
    vecs, labs, names = _templates()
    inks = [_face_ink(darkness, tri, k) for k in range(3)]
    i, score, margin, _ = match(inks, vecs, labs, len(names))
    c = tri.mean(0)
    if score < MIN_SCORE or margin < MIN_MARGIN:
        return ObjectReading("d20", None, 0.3, (float(c[0]), float(c[1])),
                             why=f"the number is unclear (best {names[i]} {score:.2f}, margin "
                                 f"{margin:.2f})")
    conf = 0.5 + 0.5 * min(1.0, (score - MIN_SCORE) / (1 - MIN_SCORE) * 0.5
                           + (margin - MIN_MARGIN) * 2)
    return ObjectReading("d20", names[i], float(min(1.0, conf)), (float(c[0]), float(c[1])))
