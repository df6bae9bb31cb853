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
MIN_INK_PX = 6  # least height of a number read (full-frame pixels)
MAX_SIDES = 1.07  # a top face's longest side over its shortest
TALL_BEYOND = 0.9  # a face is not the top when the body reaches this far beyond it (heights)
BAND = (10, 22)  # a number's height (px) at the pyramid levels it is looked for at


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


def _face_ink(plane: np.ndarray, tri: np.ndarray, apex: int = 0, invert: bool = False
              ) -> np.ndarray:
    """The ink (1 = ink, 0.5 at a stroke's edge) of a triangular face, turned so corner `apex`
    points up: the disc
    round the centroid that a face's number fills, cut out square. plane is the picture's
    grey (uint8) or a darkness 0..1 (float); its ink is high, or low with invert."""
    c = tri.mean(0)
    up = tri[apex] - c
    ang = math.degrees(math.atan2(up[0], -up[1]))  # turn that brings the apex up
    rad = float(np.linalg.norm(up))  # centroid to corner
    out = max(16, int(round(rad * 1.1)))
    m = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), ang, 1.0)
    m[:, 2] += (out / 2 - c[0], out / 2 - c[1])
    d = cv2.warpAffine(plane, m, (out, out), flags=cv2.INTER_LINEAR).astype(np.float32)
    if plane.dtype == np.uint8:
        d /= 255
    if invert:
        d = 1 - d
    yy, xx = np.mgrid[0:out, 0:out]
    d[(xx - out / 2) ** 2 + (yy - out / 2) ** 2 > (0.5 * rad) ** 2] = 0  # inside the face
    lo, hi = float(np.percentile(d, 40)), float(d.max())
    if hi - lo < 0.08:
        return np.zeros_like(d)
    if (d > (lo + hi) / 2).sum() > 0.4 * math.pi * (0.5 * rad) ** 2:  # the body, not a number
        return np.zeros_like(d)
    # soft at the strokes' edges (a small number's shape is in its grey edges), 0.5 halfway
    return np.clip((d - lo) / (hi - lo) * 2 - 0.5, 0, 1)


#: what a face's characters may be: the digits of 1..20 and the letters of the Rugen numbers
CHARS = "0123456789dn"
CHAR_MIN_SCORE = 0.8  # least correlation of each character with its best drawing
CHAR_MIN_MARGIN = 0.05  # by which each character's best beats every other character
CHAR_BLUR = 0.7  # the characters' drawings are compared less blurred than whole numbers


@cache
def _char_templates() -> tuple[np.ndarray, np.ndarray]:
    """(vectors, character index of each): each of CHARS in every template font, at small
    turns and slants (a die's font may be upright or italic)."""
    from vision.scenes_numerals import render_text

    vecs, labs = [], []
    for ci, ch in enumerate(CHARS):
        for font, weight in TEMPLATE_FONTS:
            mask = render_text(ch, font, 40, weight)
            h, w = mask.shape
            pad = np.pad(mask, max(h, w) // 2)
            ph, pw = pad.shape
            for turn in (-6.0, 0.0, 6.0):
                for slant in (0.0, 0.22):
                    m = cv2.getRotationMatrix2D((pw / 2, ph / 2), turn, 1.0)
                    m[0, 1] -= slant
                    m[0, 2] += slant * ph / 2
                    v = _ink_vector(cv2.warpAffine(pad, m, (pw, ph)), blur=CHAR_BLUR)
                    if v is not None:
                        vecs.append(v)
                        labs.append(ci)
    return np.array(vecs, np.float32), np.array(labs)


def _split_chars(ink: np.ndarray) -> list[np.ndarray] | None:
    """The characters of an upright number (each a mask cut to itself), left to right; the
    bar or dot beneath a 6 or 9 left out; None when they cannot be told apart (touching)."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats((ink > 0.5).astype(np.uint8), 8)
    if n < 2:
        return None
    tall = int(stats[1:, cv2.CC_STAT_HEIGHT].max())
    parts = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if h < 0.5 * tall:  # a 6's or 9's bar or dot, or a speck
            continue
        parts.append([x, y, x + w, y + h, [i]])
    parts.sort(key=lambda b: b[0])
    joined: list[list] = []
    for b in parts:  # the pieces of one broken character overlap across
        if joined and b[0] < joined[-1][2] - 0.5 * min(b[2] - b[0], joined[-1][2] - joined[-1][0]):
            u = joined[-1]
            joined[-1] = [min(u[0], b[0]), min(u[1], b[1]), max(u[2], b[2]), max(u[3], b[3]),
                          u[4] + b[4]]
        else:
            joined.append(b)
    if len(joined) == 1 and joined[0][2] - joined[0][0] > 0.75 * (joined[0][3] - joined[0][1]):
        # as wide as two characters: two touching, parted at the thinnest column between
        x0, y0, x1, y1, ids = joined[0]
        cols = (ink * np.isin(lab, ids))[y0:y1, x0:x1].sum(0)
        lo, hi = int(0.3 * len(cols)), int(0.7 * len(cols)) + 1
        j = lo + int(np.argmin(cols[lo:hi]))
        if cols[j] <= 0.35 * cols.max():
            joined = [[x0, y0, x0 + j, y1, ids], [x0 + j, y0, x1, y1, ids]]
    if not 1 <= len(joined) <= 2 or any(b[2] - b[0] > 1.3 * (b[3] - b[1]) for b in joined):
        return None
    if len(joined) == 1 and joined[0][2] - joined[0][0] > (joined[0][3] - joined[0][1]):
        return None  # two characters that touch too much to part (read whole)
    out = []
    for x0, y0, x1, y1, ids in joined:
        own = cv2.dilate(np.isin(lab, ids).astype(np.uint8), np.ones((3, 3), np.uint8))
        part = (ink * own)[y0:y1, x0:x1]
        rows = np.nonzero(part.max(1) > 0.5)[0]  # a parted character cut to its own height
        out.append(part[rows[0]:rows[-1] + 1] if len(rows) else part)
    return out


def _read_chars(ink: np.ndarray) -> tuple[str | None, float, float]:
    """(text, least score, least margin) of an upright number read character by character;
    text None when it cannot be split into characters."""
    chars = _split_chars(ink)
    if chars is None:
        return None, 0.0, 0.0
    vecs, labs = _char_templates()
    text, lo_score, lo_margin = "", 1.0, 1.0
    for m in chars:
        i, score, margin, _ = match([m], vecs, labs, len(CHARS), blur=CHAR_BLUR)
        text += CHARS[i]
        lo_score, lo_margin = min(lo_score, score), min(lo_margin, margin)
    return text, lo_score, lo_margin



def _triangle(hull: np.ndarray, gh: float, glyph: tuple[float, float]) -> tuple | None:
    """(corners (3, 2), side, how equilateral) of a region that can be a d20's face; a
    region of four corners is the face and a neighbour the fill ran into (faces shaded
    alike): cut along a diagonal, the half round the number."""
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.06 * peri, True).reshape(-1, 2).astype(np.float32)
    if len(poly) == 3:
        return _face_triangle(poly, gh, glyph, cv2.contourArea(hull))
    if len(poly) != 4:
        return None
    for i in range(4):  # the triangle of three corners that holds the number
        tri = np.delete(poly, i, axis=0)
        if cv2.pointPolygonTest(tri.reshape(-1, 1, 2), glyph, False) > 0:
            got = _face_triangle(tri, gh, glyph, cv2.contourArea(tri))
            if got is not None:
                return got
    return None


def _face_triangle(poly: np.ndarray, gh: float, glyph: tuple[float, float], area: float
                   ) -> tuple | None:
    """(corners, side, how equilateral) of three corners that can be a top face round a
    number; area is the region's."""
    sides = [float(np.linalg.norm(poly[i] - poly[(i + 1) % 3])) for i in range(3)]
    ratio = max(sides) / max(min(sides), 1e-6)
    side = float(np.mean(sides))
    c = poly.mean(0)
    if (ratio > MAX_SIDES or side < 12 or area < 0.75 * 0.433 * side * side
            or not 0.08 <= gh / side <= 0.4
            or math.hypot(c[0] - glyph[0], c[1] - glyph[1]) > 0.15 * side):
        return None
    return poly.astype(np.float32), side, ratio


def read_d20(image: np.ndarray) -> list[ObjectReading]:
    """Every d20's top face in a BGR frame: label "1d".."4n" (None when unsure)."""
    faces, grey0 = _faces(image)
    # faces of one die (within one and a half sides of each other): its top face is the
    # farthest from the picture's middle (a camera sees a die's sides facing its middle, and
    # the nearer of them, little slanted from it, can look as equilateral as the top); a
    # face is read only where the body does not run on beyond it as far as a top face would
    mid = np.array([image.shape[1] / 2, image.shape[0] / 2])
    kept: list[ObjectReading] = []
    for rd in faces:
        c = np.asarray(rd.center)
        if any(_outside_of(np.asarray(o.center), c, mid, o.size_px, rd.size_px)
               for o in faces if o is not rd):
            continue
        if rd.label is not None:
            beyond = _top_beyond(image, rd, mid)
            if beyond > TALL_BEYOND:
                rd = ObjectReading("d20", None, 0.3, rd.center, rd.corners, rd.angle_deg,
                                   rd.size_px, why=f"perhaps a side face: the body reaches "
                                   f"{beyond:.2f} of its height beyond it, away from the "
                                   "picture's middle, as the top face beyond a side face does")
        kept.append(rd)
    return kept


def _faces(image: np.ndarray) -> tuple[list[ObjectReading], np.ndarray]:
    """(every triangular face round a number, each read, one reading per face; the grey
    frame)."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise BadImage("expected a BGR colour image of 8-bit pixels (as cv2.imread gives)")
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (HAT, HAT))
    bgr = image
    grey0 = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)  # the number is read at full resolution
    found: list[ObjectReading] = []
    read: list[tuple[float, float, float]] = []  # faces read sure (full-frame px): done
    for level in range(LEVELS):
        if level:
            bgr = cv2.pyrDown(bgr)
        if min(bgr.shape[:2]) < MIN_SIDE:
            break
        grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        scale = 2 ** level
        for op in (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT):  # dark ink, light ink
            hat = cv2.morphologyEx(grey, op, kern)
            taken: list[tuple[float, float, float]] = []
            for box in _groups((hat > INK_MIN).astype(np.uint8)):
                gh = max(box[2] - box[0], box[3] - box[1])
                # each number at one or two levels: 10-22 px there (8 at full size; up to 40
                # at the last level)
                if gh > (GLYPH_PX[1] if level == LEVELS - 1 else BAND[1]) or (
                        level and gh < BAND[0]):
                    continue
                bc = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
                if any(math.hypot(bc[0] - x, bc[1] - y) < 0.3 * s for x, y, s in taken):
                    continue
                fc = ((bc[0] + 0.5) * scale - 0.5, (bc[1] + 0.5) * scale - 0.5)
                if any(math.hypot(fc[0] - x, fc[1] - y) < 0.3 * s for x, y, s in read):
                    continue  # found in the other ink, or at a finer level, and read
                grown = grow_face(bgr, box, _triangle, reach=3.5,
                                   tighten=(1.0, 0.6, 0.36, 0.22, 0.14))
                if grown is None:
                    continue
                _, _, (tri, side, _) = grown
                c = tri.mean(0)
                taken.append((float(c[0]), float(c[1]), side))
                full = (tri + 0.5) * scale - 0.5
                rd = _read_face(grey0, full)
                rd.corners = [[float(x), float(y)] for x, y in full]
                rd.size_px = side * scale
                if rd.label is not None:
                    read.append((rd.center[0], rd.center[1], rd.size_px))
                found.append(rd)
    # one face found at two levels or in both inks: the surer reading
    found.sort(key=lambda r: -r.confidence)
    faces: list[ObjectReading] = []
    for rd in found:
        if all(math.hypot(rd.center[0] - o.center[0], rd.center[1] - o.center[1])
               > 0.3 * max(rd.size_px, o.size_px) for o in faces):
            faces.append(rd)
    return faces, grey0


def _top_beyond(image: np.ndarray, rd: ObjectReading, mid: np.ndarray) -> float:
    """How far (in heights of a face's triangle) the body reaches, as one evenly lit face,
    beyond the face's edges that face away from the picture's middle: the most of those
    edges. A side face looks as equilateral as the top face when it is tilted towards the
    camera by about as much as the camera looks aslant at it, and then the top face lies
    beyond its edge away from the middle, a whole face's height; beyond a top face's edges
    away from the middle the side faces are tilted away from the camera, squashed to at
    most three quarters of a face's height, and past their far corner is the surround."""
    tri = np.asarray(rd.corners, np.float32)
    c = tri.mean(0)
    out = c - mid
    n_out = float(np.hypot(*out))
    if n_out < 1e-6:
        return 0.0
    out /= n_out
    reach = 0.0
    h_img, w_img = image.shape[:2]
    for k in range(3):
        a, b = tri[(k + 1) % 3], tri[(k + 2) % 3]  # the edge facing corner k
        e = b - a
        normal = np.array([e[1], -e[0]], np.float32) / max(float(np.hypot(*e)), 1e-6)
        if normal @ (a - tri[k]) < 0:
            normal = -normal
        if normal @ out < 0.3:
            continue
        height = float(normal @ (a - tri[k]))
        m = (a + b) / 2
        # a window reaching a face's height and a half beyond the edge
        pts = np.array([a, b, a + normal * 1.5 * height, b + normal * 1.5 * height])
        x0, y0 = np.floor(pts.min(0)).astype(int) - 2
        x1, y1 = np.ceil(pts.max(0)).astype(int) + 3
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w_img, x1), min(h_img, y1)
        win = image[y0:y1, x0:x1]
        side = float(np.hypot(*e))
        for t in (0.35, 0.5, 0.65):  # seeds along the edge, just past its rounded rim
            seed = a + e * t + normal * 0.15 * height
            sx, sy = int(round(seed[0])) - x0, int(round(seed[1])) - y0
            if not (0 <= sx < win.shape[1] and 0 <= sy < win.shape[0]):
                continue
            tol = float(np.clip(0.2 * win[sy, sx].max() + 6, 8, 45)) * 0.6
            mask = np.zeros((win.shape[0] + 2, win.shape[1] + 2), np.uint8)
            cv2.floodFill(win, mask, (sx, sy), 0, (tol,) * 3, (tol,) * 3,
                          4 | cv2.FLOODFILL_FIXED_RANGE | cv2.FLOODFILL_MASK_ONLY | (255 << 8))
            ys, xs = np.nonzero(mask[1:-1, 1:-1])
            rel = np.stack([xs + x0 - m[0], ys + y0 - m[1]], 1)
            along = rel @ normal
            across = np.abs(rel @ (e / side))
                # the part of the region within the mirrored face (a wider wedge, 1.5 heights
            # long, told no more sides apart and took more top faces for sides)
            near = across <= 0.5 * side * (1 - np.clip(along / height, 0, 1)) + 2
            reach = max(reach, float(along[near].max(initial=0.0)) / height)
    return reach


def _outside_of(a: np.ndarray, b: np.ndarray, mid: np.ndarray, sa: float, sb: float) -> bool:
    """Whether face a (side sa) is face b's die's top face and b a side of it: within one
    and a half sides, alike in size, a farther from the picture's middle."""
    d = a - b
    dist = float(np.hypot(*d))
    if dist > 1.5 * max(sa, sb) or not 1 / 1.6 < sa / sb < 1.6:
        return False
    return float(np.dot(d, b - mid)) > 0


def _ink_is_dark(grey: np.ndarray, tri: np.ndarray) -> bool:
    """Whether a face's number is darker than its body: the body is most of the face's
    inscribed circle, the number the few pixels far from it (whichever ink found the face)."""
    c = tri.mean(0)
    r = 0.5 * float(np.linalg.norm(tri[0] - c))
    x0, y0 = max(0, int(c[0] - r)), max(0, int(c[1] - r))
    x1, y1 = min(grey.shape[1], int(c[0] + r) + 1), min(grey.shape[0], int(c[1] + r) + 1)
    win = grey[y0:y1, x0:x1]
    yy, xx = np.mgrid[y0:y1, x0:x1]
    vals = win[(xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= r * r]
    if vals.size < 10:
        return True
    lo, mid, hi = np.percentile(vals, (3, 50, 97))
    return bool(mid - lo >= hi - mid)


def _read_face(grey: np.ndarray, tri: np.ndarray) -> ObjectReading:
    """The Rugen number on one triangular face (full-frame pixels): the corner the number
    points to from the whole number's best match at the three turns, then the number read
    character by character there; the two must agree, or the whole match alone (characters
    that touch) must be sure."""
    vecs, labs, names = _templates()
    dark_ink = _ink_is_dark(grey, tri)
    inks = [_face_ink(grey, tri, k, invert=dark_ink) for k in range(3)]
    i, score, margin, k = match(inks, vecs, labs, len(names))
    c = tri.mean(0)
    centre = (float(c[0]), float(c[1]))
    rows = np.nonzero((inks[k] > 0.5).any(1))[0]
    tall = int(rows[-1] - rows[0] + 1) if len(rows) else 0
    if tall < MIN_INK_PX:
        return ObjectReading("d20", None, 0.3, centre,
                             why=f"the number is too small to read ({tall} px tall, "
                                 f"{MIN_INK_PX} needed)")
    ink = inks[k]
    yy, xx = np.mgrid[0:ink.shape[0], 0:ink.shape[1]]
    r_in = 0.5 * float(np.linalg.norm(tri[0] - c))
    rim = np.hypot(xx - ink.shape[1] / 2, yy - ink.shape[0] / 2) > 0.85 * r_in
    if (ink[rim] > 0.5).sum() > 2:  # the number runs out of the face: the face is not its own
        return ObjectReading("d20", None, 0.3, centre,
                             why="the number runs to the edge of the face found round it")
    text, c_score, c_margin = _read_chars(inks[k])
    shown, means = _texts()
    by_chars = means[shown.index(text)] if text in shown else None
    if text is not None and (by_chars is None or c_score < CHAR_MIN_SCORE
                             or c_margin < CHAR_MIN_MARGIN):
        return ObjectReading("d20", None, 0.3, centre,
                             why=f"the number is unclear (read {text!r}: least character score "
                                 f"{c_score:.2f}, margin {c_margin:.2f})")
    if by_chars is not None and by_chars != names[i] and score >= MIN_SCORE:
        return ObjectReading("d20", None, 0.3, centre,
                             why=f"the number is unclear ({text!r} character by character, "
                                 f"{names[i]} as a whole)")
    if by_chars is not None:
        conf = 0.5 + 0.5 * min(1.0, (c_score - CHAR_MIN_SCORE) / (1 - CHAR_MIN_SCORE) * 0.5
                               + (c_margin - CHAR_MIN_MARGIN) * 2)
        return ObjectReading("d20", by_chars, float(min(1.0, conf)), centre)
    if score < MIN_SCORE or margin < MIN_MARGIN:
        return ObjectReading("d20", None, 0.3, centre,
                             why=f"the number is unclear (best {names[i]} {score:.2f}, margin "
                                 f"{margin:.2f})")
    conf = 0.5 + 0.5 * min(1.0, (score - MIN_SCORE) / (1 - MIN_SCORE) * 0.5
                           + (margin - MIN_MARGIN) * 2)
    return ObjectReading("d20", names[i], float(min(1.0, conf)), centre)
