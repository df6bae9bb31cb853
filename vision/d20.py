"""The Rugen d20: the number on the face most nearly facing the camera, as a Rugen number.

A standard d20's 1..20 is mapped through the seed's transposing table (the faces of
`equipment/rugen-die.json`, in the order of a d20's numbers) to "1d".."4n"; a printed Rugen
die's face is read as printed. Nothing here knows the surface, the die's colour or size.
Steps, on an image pyramid (as `vision.numerals`):

1. **Ink**, dark on a light die or light on a dark one (black-hat and top-hat), in pieces of
   a number's size; pieces side by side ("1" and "4" of 14) joined.
2. **The face**: three straight edges round the number, about 120 degrees apart, each
   showing along most of its length (`_edge_triangle`: found by the brightness changing
   across them, not by the face's shade, which a lamp varies smoothly over a solid die);
   else the body flood-filled round the ink (`vision.numerals.grow_face`) must be a
   triangle, near equilateral, the number at its centre. Of the faces found on one die the
   one farthest from the camera's nadir (given when known, a calibrated table's; else the
   picture's middle) is taken for the top. A die looks alike whichever face is on top: only
   the vertical tells the top from a side face facing the camera as squarely. With the
   nadir (`_with_nadir`) a face is read when it is squashed towards it, not 41.8 degrees
   aslant, and its line of sight cannot be so far from the vertical that a side face next
   to the top faces the camera as it does (or the body beyond it says it is no side face;
   a calibrated table's nadir bounds that angle over the cameras its markers allow); two
   faces of one die that can each be the top, as far from the nadir, are both abstained
   on. Without it (`_without_nadir`) the camera may be tipped up to MAX_TILT any way: a
   face is read only where no side face can face the camera as it does, which is almost
   nowhere; so with no nadir given it is told from the picture where three dice and more
   show it (`_frame_nadir`: each die's body reaches from its top face towards the nadir).
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
from vision.nadir import Nadir, locate, toward
from vision.numerals import (
    GLYPH_PX,
    HAT,
    INK_MIN,
    LEVELS,
    MIN_SIDE,
    TEMPLATE_FACES,
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
TOP_FACING = 0.93  # a face read as the top only when it faces the camera within about 21
#                    degrees (`_facing`: cos 21.6): farther aslant, a side face facing the
#                    camera (41.8 degrees from the top) faces it as squarely
FACING_MARGIN = 0.1  # a top face read only when it faces the camera more squarely than
#                      any other face found of its die by this much (`_facing`): two faces
#                      closer tie (a 50 px face's corners put `_facing` 0.02-0.05 off)
TALL_BEYOND = 0.9  # a face is not the top when the body reaches this far beyond it (heights)
BAND = (10, 22)  # a number's height (px) at the pyramid levels it is looked for at


def _texts() -> tuple[list[str], list[str]]:
    """(what a face may show, the Rugen number each means)."""
    from vision.scenes_d20 import rugen_faces

    rugen = list(rugen_faces())
    shown = [str(n) for n in range(1, 21)] + sorted(set(rugen))
    means = rugen + sorted(set(rugen))
    return shown, means


def _faces_with(text: str) -> tuple:
    """The TrueType template faces (`vision.numerals.TEMPLATE_FACES`) that draw every
    character of text (most have digits only)."""
    from vision.scenes_numerals import outline_faces

    return tuple((f, w) for f, w in TEMPLATE_FACES
                 if all(ch in outline_faces()[f]["glyphs"] for ch in text))


@cache
def _templates() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """(vectors, Rugen-number index of each, the Rugen numbers): every face text in every
    template font, at small turns."""
    from vision.scenes_d20 import d20_texture

    shown, means = _texts()
    names = tuple(sorted(set(means)))
    vecs, labs = [], []
    for text, mean in zip(shown, means, strict=True):
        for font, weight in TEMPLATE_FONTS + _faces_with(text):
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
    ink = np.clip((d - lo) / (hi - lo) * 2 - 0.5, 0, 1)
    # the number is at the face's centre: ink that keeps to the rim (a rounded edge's shade
    # where the circle touches the face's sides) is no part of it
    n, lab = cv2.connectedComponents((ink > 0.25).astype(np.uint8), connectivity=8)
    if n > 2:
        near = (xx - out / 2) ** 2 + (yy - out / 2) ** 2 <= (0.3 * rad) ** 2
        keep = np.unique(lab[near & (lab > 0)])
        ink[~np.isin(lab, keep)] = 0
    return ink


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
        for font, weight in TEMPLATE_FONTS + _faces_with(ch):
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


def _face_triangle(poly: np.ndarray, gh: float, glyph: tuple[float, float], area: float,
                   most: float = MAX_SIDES) -> tuple | None:
    """(corners, side, how equilateral) of three corners that can be a top face round a
    number (its longest side at most `most` times its shortest); area is the region's."""
    sides = [float(np.linalg.norm(poly[i] - poly[(i + 1) % 3])) for i in range(3)]
    ratio = max(sides) / max(min(sides), 1e-6)
    side = float(np.mean(sides))
    c = poly.mean(0)
    if (ratio > most or side < 12 or area < 0.75 * 0.433 * side * side
            or not 0.08 <= gh / side <= 0.4
            or math.hypot(c[0] - glyph[0], c[1] - glyph[1]) > 0.15 * side):
        return None
    return poly.astype(np.float32), side, ratio


def read_d20(image: np.ndarray, nadir: Nadir | None = None) -> list[ObjectReading]:
    """Every d20's top face in a BGR frame: label "1d".."4n" (None when unsure). nadir: the
    camera's nadir when it is known (a calibrated table's, `vision.nadir.Nadir`): the top
    face is then told from a side face by the vertical; without it, by the picture's middle
    and how squarely each face faces the camera."""
    faces, _ = _faces(image)
    if nadir is None:
        nadir = _frame_nadir(image, faces)
    return _choose(image, faces, nadir)


#: the nadir told from the picture's dice (`_frame_nadir`)
FRAME_DICE = 3  # least dice whose lines must agree (two lines always meet: no check)
SIL_NOISE = 1.5  # px: how far off a die's silhouette's middle and a face's centre are found
SIL_SIDE = 32.0  # px: the silhouette is found in a window scaled so a face's side is this
FRAME_SPREAD = 3.0  # the nadir's spread given: this many of `locate`'s standard errors


def _frame_nadir(image: np.ndarray, faces: list[ObjectReading]) -> Nadir | None:
    """The camera's nadir told from the dice in the picture (a photograph; a table not yet
    calibrated): a die's body reaches from its top face towards the nadir (its top is the
    highest point, and a camera sees what is higher displaced away from the nadir), so the
    line from a face's centre to its die's silhouette's middle (`_silhouette`) is the image
    of a vertical (`vision.nadir.toward`) for its top face, and for the faces beside it in
    the plane of the line of sight; faces across it miss. Where the lines of at least
    FRAME_DICE dice agree (`vision.nadir.locate`), the nadir with FRAME_SPREAD of its
    standard error as its spread; else None (one or two dice: any two lines meet). Only the
    dice with a face read (a number shown) count: a group of faces none of which shows a
    number (a triangle of a patterned cloth, a die's fragment found apart from it) is no
    evidence of a die, and its line points anywhere (the bench's 300 dev dice of seeds
    20261121 / 20281121, cached faces: nadirs 19 / 10, outside their spread 1 / 4, 23281184
    875 px off with a spread of 121 and a confident error, with every group; 14 / 3, none
    outside, no confident error, with groups of a face read)."""
    dice = [idx for idx in _dice(faces) if any(faces[i].label is not None for i in idx)]
    if len(dice) < FRAME_DICE:
        return None
    lines = []
    for g, idx in enumerate(dice):
        seed = max(idx, key=lambda i: (_facing(faces[i].corners), faces[i].size_px))
        mid = _silhouette(image, faces[seed])
        if mid is None:
            continue
        for i in idx:
            if math.hypot(*(mid - np.asarray(faces[i].center))) >= 2 * SIL_NOISE:
                lines.append(toward(faces[i].center, mid, g, SIL_NOISE))
    found = locate(lines)
    if found is None or found.dice < FRAME_DICE:
        return None
    return Nadir(found.point, FRAME_SPREAD * found.spread, found.dice, found.lines)


def _dice(faces: list[ObjectReading]) -> list[list[int]]:
    """The faces found grouped by die (`_same_die`, joined through each other)."""
    group = list(range(len(faces)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i in range(len(faces)):
        for j in range(i + 1, len(faces)):
            if _same_die(faces[i], faces[j]):
                group[root(i)] = root(j)
    out: dict[int, list[int]] = {}
    for i in range(len(faces)):
        out.setdefault(root(i), []).append(i)
    return list(out.values())


def _silhouette(image: np.ndarray, rd: ObjectReading) -> np.ndarray | None:
    """The middle (x, y) of the die's outline round a face found, by GrabCut in a window
    1.6 sides round it scaled so the side is SIL_SIDE px: the face (0.8 of the way to its
    corners) sure die, beyond 1.45 sides sure surround. None where the window leaves the
    frame, the die is not parted from its surround (it runs to 1.4 sides) or its outline is
    no d20's round that face (1.2-3.5 squared sides)."""
    tri = np.asarray(rd.corners, np.float64)
    c = tri.mean(0)
    side = float(rd.size_px)
    reach = 1.6 * side
    h, w = image.shape[:2]
    x0, y0 = int(math.floor(c[0] - reach)), int(math.floor(c[1] - reach))
    x1, y1 = int(math.ceil(c[0] + reach)), int(math.ceil(c[1] + reach))
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return None
    win = image[y0:y1, x0:x1]
    if side > SIL_SIDE:
        win = cv2.resize(win, None, fx=SIL_SIDE / side, fy=SIL_SIDE / side,
                         interpolation=cv2.INTER_AREA)
    sc = win.shape[1] / (x1 - x0)
    cw = (c + 0.5 - [x0, y0]) * sc
    mask = np.full(win.shape[:2], cv2.GC_PR_BGD, np.uint8)
    yy, xx = np.mgrid[0:win.shape[0], 0:win.shape[1]]
    d = np.hypot(xx + 0.5 - cw[0], yy + 0.5 - cw[1]) / sc
    mask[d <= 0.9 * side] = cv2.GC_PR_FGD
    mask[d >= 1.45 * side] = cv2.GC_BGD
    inner = (c + (tri - c) * 0.8 + 0.5 - [x0, y0]) * sc - 0.5
    cv2.fillConvexPoly(mask, np.round(inner).astype(np.int32), cv2.GC_FGD)
    try:
        cv2.grabCut(win, mask, None, np.zeros((1, 65)), np.zeros((1, 65)), 3,
                    cv2.GC_INIT_WITH_MASK)
    except cv2.error:
        return None
    fg = ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)).astype(np.uint8)
    _, lab = cv2.connectedComponents(fg, connectivity=4)
    iy, ix = min(int(cw[1]), fg.shape[0] - 1), min(int(cw[0]), fg.shape[1] - 1)
    die = lab == lab[iy, ix]
    if not fg[iy, ix] or die[d >= 1.4 * side].any():
        return None
    m = cv2.moments(die.astype(np.uint8), True)
    if not 1.2 <= m["m00"] / sc ** 2 / side ** 2 <= 3.5:
        return None
    return (np.array([m["m10"], m["m01"]]) / m["m00"] + 0.5) / sc - 0.5 + [x0, y0]


def _choose(image: np.ndarray, faces: list[ObjectReading], nadir: Nadir | None
            ) -> list[ObjectReading]:
    """Of the faces found, the dice's top faces read; every other face abstained on.

    Faces of one die (within one and a half sides of each other): its top face is the
    farthest from the nadir (a camera sees a die's sides on the nadir's side of its top, and
    the nearer of them, little slanted from it, can look as equilateral as the top); a face
    is read only where the body does not run on beyond it, away from the nadir, as far as a
    top face would. With the nadir known, `_with_nadir` tells the top from the side faces by
    the vertical; with it unknown, the picture's middle stands for it and only a face within
    about 21 degrees of the line of sight that faces it more squarely than the die's other
    faces is read (`_without_nadir`)."""
    h, w = image.shape[:2]
    ref = np.array(nadir.point) if nadir is not None else np.array([w / 2, h / 2])
    kept: list[ObjectReading] = []
    # with the nadir known, a face that cannot be the top (`_can_be_top`: a side face tilted
    # away, farther from the nadir than the top face) is not the top over any face, and is
    # not reported where another face of its die can be the top; where none can, the die is
    # reported once, by its face farthest from the nadir
    can = [nadir is None or _can_be_top(o, nadir, (w, h)) for o in faces]
    far = [float(np.hypot(*(np.asarray(o.center) - ref))) for o in faces]
    for i, rd in enumerate(faces):
        c = np.asarray(rd.center)
        mates = [j for j, o in enumerate(faces) if j != i and _same_die(o, rd)]
        if not can[i] and any(can[m] or (far[m], -m) > (far[i], -i) for m in mates):
            continue  # a side face of a die another of whose faces found is (more) its top
        if any(_outside_of(np.asarray(o.center), c, ref, o.size_px, rd.size_px, FARTHER)
               for j, o in enumerate(faces) if j != i and can[j]):
            continue
        tied = [m for m in mates if can[m] and not _outside_of(
            c, np.asarray(faces[m].center), ref, rd.size_px, faces[m].size_px, FARTHER)]
        if rd.label is not None and nadir is not None and tied:
            rd = _abstain(rd, "perhaps a side face: another face of its die that can be the "
                          f"top lies as far from the nadir (within {FARTHER} of a side)")
        elif rd.label is not None and nadir is not None:
            rd = _with_nadir(image, rd, nadir)
        elif rd.label is not None:
            rd = _without_nadir(image, rd, ref, [faces[m] for m in mates])
        kept.append(rd)
    return kept


FARTHER = 0.1  # of a side: a die's top face lies farther from the nadir than a side face
#               that can look like it (one towards the nadir: 0.27 of a side and more; the
#               face centres found are a few px off)

SIDE_TILT = math.degrees(math.acos(math.sqrt(5) / 3))  # 41.8: a d20's faces' normals apart
F_MIN = 0.5  # the shortest focal length taken, in the frame's longer sides (90 degrees)
AWAY_FACING = 0.78  # a face tilted 41.8 degrees and more from the line of sight (cos 0.745)
#                     is a side face tilted away from the camera, never the top
SIGHT_MARGIN = 6.0  # degrees


def _with_nadir(image: np.ndarray, rd: ObjectReading, nadir: Nadir) -> ObjectReading:
    """A face read, checked against the nadir. It is the top face, not a side face next to
    the top that faces the camera as squarely (a die looks alike whichever face is on top:
    only the vertical tells): not squashed 41.8 degrees and more (a side face tilted away);
    squashed towards the nadir (not a side face tilted across the line of sight); where the
    line of sight may be SIDE_TILT + its tilt from the vertical, the top is beyond it (not
    told: abstain); where it may be SIDE_TILT - its tilt, the body beyond it away from the
    nadir reaches no farther than a side face's beyond a top face does (the top face
    beyond a side face reaches farther: cos SIDE_TILT of a face's height lies between)."""
    k, axis = _squash(rd.corners)
    if k < AWAY_FACING:
        return _abstain(rd, f"seen too aslant ({k:.2f} of its breadth across the line of sight,"
                        f" {AWAY_FACING} needed): a side face tilted away from the camera")
    if not _can_be_top(rd, nadir, (image.shape[1], image.shape[0])):
        return _abstain(rd, f"a side face: seen {k:.2f} of its breadth across the line of "
                        "sight, as no top face is where its line of sight is (more aslant "
                        "than the most, or more squarely than the least, the camera allows)")
    miss = _towards_nadir(rd, k, axis, nadir)
    if miss is not None:
        return _abstain(rd, f"a side face: squashed {miss:.0f} degrees off the way to the "
                        "camera's nadir")
    most = _sight_from_vertical(rd.center, nadir, (image.shape[1], image.shape[0]))
    tilt = math.degrees(math.acos(min(1.0, k)))
    if most > SIDE_TILT + tilt - SIGHT_MARGIN:
        return _abstain(rd, f"perhaps a side face: its line of sight may be {most:.0f} degrees "
                        "from the vertical, where the side face next to the top towards the "
                        f"nadir faces the camera within {tilt:.0f} degrees as this one does")
    if most > SIDE_TILT - tilt - SIGHT_MARGIN:
        beyond = _top_beyond(image, rd, np.asarray(nadir.point))
        if beyond > BEYOND_SPLIT:
            return _abstain(rd, f"perhaps a side face: the body reaches {beyond:.2f} of its "
                            "height beyond it, away from the nadir, as the top face beyond a "
                            f"side face does (more than {BEYOND_SPLIT:.2f})")
    return rd


BEYOND_SPLIT = math.sqrt(5) / 3  # cos SIDE_TILT: a side face beyond a top face tilted t
#   from the line of sight reaches cos(SIDE_TILT + t) / cos t of a face's height, the top face
#   beyond a side face tilted t towards it cos(SIDE_TILT - t) / cos t; the two average this


def _can_be_top(rd: ObjectReading, nadir: Nadir, frame: tuple[int, int]) -> bool:
    """Whether a face found can be its die's top face: it faces the camera at least
    AWAY_FACING squarely, and as squarely as a top face does where the line of sight is as
    far from the vertical as it can be (a top face's tilt from the line of sight is that
    angle), within FACING_ERR (its corners' error)."""
    k = _facing(rd.corners)
    most = _sight_from_vertical(rd.center, nadir, frame)
    least = _sight_least(rd.center, nadir, frame)
    return (k >= AWAY_FACING and k >= math.cos(math.radians(most)) - FACING_ERR
            and k <= math.cos(math.radians(least)) + FACING_ERR)


def _sight_least(p, nadir: Nadir, frame: tuple[int, int]) -> float:
    """The least the line of sight to image point p can be from the vertical (degrees), at
    focal lengths of F_MIN and more (`Nadir.sight_least`). A top face is seen this far aslant
    at least: a face facing the camera more squarely is a side face."""
    return math.degrees(nadir.sight_least(p, frame, F_MIN))


FACING_ERR = 0.04  # how far off `_facing` a face's corners put it (0.02-0.05 on a 50 px face)


def _towards_nadir(rd: ObjectReading, k: float, axis: np.ndarray, nadir: Nadir
                   ) -> float | None:
    """The angle (degrees) by which a face's squash axis misses the nadir, when it misses it
    by more than its corners' error allows (None when it points at it, or the face is too
    little squashed to show an axis)."""
    if 1 - k < LEAST_SQUASH:
        return None
    to = np.asarray(nadir.point) - np.asarray(rd.center)
    dist = float(np.hypot(*to))
    if dist < 1e-6:
        return None
    # the nadir's own uncertainty seen from the face, and the axis's
    slack = math.atan2(nadir.spread, dist) + 3 * math.atan2(CORNER_PX, rd.size_px / math.sqrt(3)
                                                            * (1 - k))
    miss = math.acos(min(1.0, abs(float(to @ axis)) / dist))
    return math.degrees(miss) if miss > slack else None


def _sight_from_vertical(p, nadir: Nadir, frame: tuple[int, int]) -> float:
    """The most the line of sight to image point p can be from the vertical (degrees), at
    focal lengths of F_MIN and more (`Nadir.sight_most`)."""
    return math.degrees(nadir.sight_most(p, frame, F_MIN))


MAX_TILT = 30.0  # degrees: the most a camera's axis is taken to be tipped from the vertical
#                  when its nadir is not known (the cameras read for: straight down or tilted
#                  up to about 30 degrees; the scenes draw up to 30)
PP_BOX = 0.1  # the principal point anywhere within this share of the frame's width and
#               height of its middle (as far as the scenes draw it; `vision.nadir.PP_SHARE`)


def _sight_unknown(p, frame: tuple[int, int]) -> float:
    """The most the line of sight to image point p can be from the vertical (degrees) with
    the camera's nadir unknown: its angle from the camera's axis at the shortest focal
    length taken (F_MIN) with the principal point anywhere within PP_BOX of the middle,
    plus MAX_TILT (the vertical anywhere within MAX_TILT of the axis)."""
    w, h = frame
    dx = abs(p[0] - w / 2) + PP_BOX * w
    dy = abs(p[1] - h / 2) + PP_BOX * h
    return math.degrees(math.atan2(math.hypot(dx, dy), F_MIN * max(w, h))) + MAX_TILT


def _without_nadir(image: np.ndarray, rd: ObjectReading, mid: np.ndarray,
                   mates: list[ObjectReading]) -> ObjectReading:
    """A face read with the nadir unknown (the picture's middle, `mid`, stands for it):
    within about 21 degrees of the line of sight, facing it more squarely than the die's
    other faces found, the body not reaching beyond it as far as a top face would."""
    k = _facing(rd.corners)
    rival = max((_facing(o.corners) for o in mates), default=0.0)
    most = _sight_unknown(rd.center, (image.shape[1], image.shape[0]))
    tilt = math.degrees(math.acos(min(1.0, k)))
    if most > SIDE_TILT - tilt - SIGHT_MARGIN:
        # a side face next to the top faces the camera within `tilt` where the line of sight
        # is SIDE_TILT - tilt from the vertical: with the nadir unknown, that may be so here
        return _abstain(rd, f"perhaps a side face: with the camera's nadir unknown its line "
                        f"of sight may be {most:.0f} degrees from the vertical, where a side "
                        f"face faces the camera within {tilt:.0f} degrees as this one does")
    if k < TOP_FACING:
        return _abstain(rd, f"seen too aslant ({k:.2f} of its breadth across the line of "
                        f"sight, {TOP_FACING} needed) to tell the top face from a side face "
                        "facing the camera")
    if rival > k - FACING_MARGIN:
        # the top face faces the camera most squarely only within about 21 degrees of the
        # lens's axis; beyond, a side face towards the camera does: then which of the two
        # is the top is not told by its place either
        return _abstain(rd, f"perhaps a side face: another face of the die faces the camera "
                        f"as squarely ({rival:.2f} against {k:.2f})")
    beyond = _top_beyond(image, rd, mid)
    if beyond > TALL_BEYOND:
        return _abstain(rd, f"perhaps a side face: the body reaches {beyond:.2f} of its "
                        "height beyond it, away from the picture's middle, as the top face "
                        "beyond a side face does")
    return rd


def _abstain(rd: ObjectReading, why: str) -> ObjectReading:
    """The face found, not read: why."""
    return ObjectReading("d20", None, 0.3, rd.center, rd.corners, rd.angle_deg, rd.size_px,
                         why=why)


#: corners' error (px) of a face found: its squash axis's direction is known to about this
#: over the face's circumradius times how much it is squashed
CORNER_PX = 2.0
LEAST_SQUASH = 0.03  # a face squashed less (1 - `_facing`) shows no axis


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
                got = _find_face(bgr, grey, box)
                if got is None:
                    continue
                tri, side, _ = got
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


FINDERS = ("edges", "fill")


def _find_face(bgr: np.ndarray, grey: np.ndarray, box: tuple[int, int, int, int]
               ) -> tuple | None:
    """(corners, side, how equilateral) of the triangular face round an ink group, by the
    finders of FINDERS in turn: its edges (`_edge_triangle`), its shade (the body
    flood-filled, `vision.numerals.grow_face`)."""
    for finder in FINDERS:
        if finder == "edges":
            got = _edge_triangle(grey, box)
        else:
            grown = grow_face(bgr, box, _triangle, reach=3.5,
                              tighten=(1.0, 0.6, 0.36, 0.22, 0.14))
            got = grown[2] if grown is not None else None
        if got is not None:
            return got
    return None


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


NEAR_SAME = 0.85  # of the smaller face's side: two faces found nearer are of one die (dev
#                   23281258: the top face 18 found 1.61 times as large as the side face 17
#                   beside it, 0.82 of the smaller's side apart, both read: two readings on
#                   one die). Adjacent faces' centres lie 0.54 of a side apart. On the dev
#                   dice of seeds 20261121 / 20281121 with the table's nadir: 1.0 read
#                   128 / 123 of 300, 0.85 131 / 127 (main 133 / 129, 1 confident error)


def _same_die(a: ObjectReading, b: ObjectReading) -> bool:
    """Whether two faces found can be of one die: within one and a half sides of each other,
    alike in size; or, whatever their sizes, within NEAR_SAME of the smaller's side (a face
    found too large, on the die's outline, is still of its die)."""
    d = math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1])
    if d <= NEAR_SAME * min(a.size_px, b.size_px):
        return True
    return d <= 1.5 * max(a.size_px, b.size_px) and 1 / 1.6 < a.size_px / b.size_px < 1.6


def _facing(corners) -> float:
    """How squarely a triangular face faces the camera (`_squash`)."""
    return _squash(corners)[0]


def _squash(corners) -> tuple[float, np.ndarray]:
    """(how squarely, the image direction it is squashed along) of a triangular face: the
    smaller over the larger stretch of the affine map from an equilateral triangle to its
    corners (cos of the angle between the face's normal and the line of sight, for a small
    face), and the unit direction of the smaller stretch (where its normal is imaged)."""
    p = np.asarray(corners, np.float64)
    p = p - p.mean(0)
    q = np.array([[0.0, -1.0], [math.sqrt(3) / 2, 0.5], [-math.sqrt(3) / 2, 0.5]])
    a, *_ = np.linalg.lstsq(q, p, rcond=None)
    u, sv, _ = np.linalg.svd(a.T)
    return float(sv[1] / max(sv[0], 1e-9)), u[:, 1]


def _outside_of(a: np.ndarray, b: np.ndarray, mid: np.ndarray, sa: float, sb: float,
                margin: float = 0.0) -> bool:
    """Whether face a (side sa) is face b's die's top face and b a side of it: within one
    and a half sides, alike in size, a farther from the nadir (`mid`) by more than `margin`
    of a side, along the way from the nadir to b."""
    d = a - b
    dist = float(np.hypot(*d))
    if dist > 1.5 * max(sa, sb) or not 1 / 1.6 < sa / sb < 1.6:
        return False
    out = b - mid
    return float(np.dot(d, out)) > margin * max(sa, sb) * float(np.hypot(*out))


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


#: the face's edges found round a number: angles (degrees) of the polar sampling, how far
#: each side of an edge's normal it is followed, the inradius range in number heights
EDGE_STEP = 6.0
EDGE_SPAN = 48.0
INRADIUS = (0.7, 2.4)  # a number 0.14-0.48 of its face's height
MIN_COVER = 0.55  # least share of each edge's length showing as an edge
SKEW = 1  # steps (of EDGE_STEP) each edge's direction may be off 120 degrees from the next's
SIDES_RATIO = 1.35  # most ratio of two edges' distances from the number
EDGE_SIDES = 1.25  # a face found by its edges: its longest side over its shortest (a tilted
#                    camera's perspective squashes the top face too)


@cache
def _polar_grid(m_steps: int, span_steps: int) -> tuple[np.ndarray, np.ndarray]:
    """(normal directions (M,), the offsets along an edge (S,) in steps)."""
    psi = np.radians(np.arange(m_steps) * EDGE_STEP)
    return psi, np.arange(-span_steps, span_steps + 1)


def _edge_triangle(grey: np.ndarray, box: tuple[int, int, int, int]) -> tuple | None:
    """(corners (3, 2), mean side, longest over shortest side) of the face round a number,
    found by its edges, not its shade: three straight edges round the number's centre, about
    120 degrees apart, each showing along most of its length as a change of brightness across
    it (a rounded edge between faces lit differently, or the die against its surround). The
    brightness is sampled in polar rings round the number; an edge at distance d with normal
    direction psi is where the gradient's component along psi beats its component along the
    edge, sampled at d / cos(delta) for delta within EDGE_SPAN of psi. None when no three
    edges cover MIN_COVER of their length."""
    x0, y0, x1, y1 = box
    gh = max(x1 - x0, y1 - y0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r_lo, r_hi = INRADIUS[0] * gh, INRADIUS[1] * gh
    reach = r_hi / math.cos(math.radians(EDGE_SPAN)) + 3
    h, w = grey.shape
    wx0, wy0 = int(cx - reach) - 2, int(cy - reach) - 2
    wx1, wy1 = int(cx + reach) + 3, int(cy + reach) + 3
    if wx0 < 0 or wy0 < 0 or wx1 > w or wy1 > h:
        crop = cv2.copyMakeBorder(grey[max(0, wy0):min(h, wy1), max(0, wx0):min(w, wx1)],
                                  max(0, -wy0), max(0, wy1 - h), max(0, -wx0), max(0, wx1 - w),
                                  cv2.BORDER_REPLICATE)
    else:
        crop = grey[wy0:wy1, wx0:wx1]
    crop = cv2.GaussianBlur(crop.astype(np.float32), (0, 0), 1.0)
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3) / 8
    # the number's own strokes are no edge of the face
    ix0, iy0 = int(x0 - wx0) - 1, int(y0 - wy0) - 1
    gx[max(0, iy0):int(y1 - wy0) + 2, max(0, ix0):int(x1 - wx0) + 2] = 0
    gy[max(0, iy0):int(y1 - wy0) + 2, max(0, ix0):int(x1 - wx0) + 2] = 0
    mag = np.hypot(gx, gy)
    few = mag[::2, ::2].ravel()
    top = max(1, few.size // 20)
    tau = max(3.0, 0.3 * float(np.partition(few, -top)[-top]))  # 0.3 of the 95th percentile
    m_steps = int(round(360 / EDGE_STEP))
    psi, offs = _polar_grid(m_steps, int(round(EDGE_SPAN / EDGE_STEP)))
    ds = np.arange(r_lo, r_hi + 1e-6, max(1.0, 0.045 * r_hi))  # the edges' distances tried
    centre = (cx - wx0, cy - wy0)
    # a first look along a quarter of each edge's points: most ink groups (a cloth's weave,
    # a side face's number) have no three edges round them
    best = _cover(gx, gy, centre, psi, offs[::4], ds, tau).max(1)  # each direction's best
    third = m_steps // 3
    near = np.max([np.roll(best, -o) for o in range(-SKEW, SKEW + 1)], 0)
    if not np.any((best[:third] >= MIN_COVER - 0.15) & (near[third:2 * third] >= MIN_COVER - 0.15)
                  & (near[2 * third:] >= MIN_COVER - 0.15)):
        return None
    pick = _triple(_cover(gx, gy, centre, psi, offs, ds, tau), ds, MIN_COVER)
    if pick is None:
        return None
    lines = []
    for m, j in pick:  # each edge's line fitted to its points, found near the coarse one
        n = np.array([math.cos(psi[m]), math.sin(psi[m])])
        fit = _fit_edge(gx, gy, centre, n, float(ds[j]), tau)
        lines.append(fit if fit is not None else (n, float(ds[j])))
    corners = []
    for k in range(3):  # corner k: where the other two edges meet
        (n1, d1), (n2, d2) = lines[(k + 1) % 3], lines[(k + 2) % 3]
        a = np.array([n1, n2])
        if abs(np.linalg.det(a)) < 1e-6:
            return None
        corners.append(np.linalg.solve(a, [d1, d2]) + (cx, cy))
    tri = np.array(corners, np.float32)
    return _face_triangle(tri, gh, (cx, cy), cv2.contourArea(tri.reshape(-1, 1, 2)),
                          EDGE_SIDES)


def _fit_edge(gx: np.ndarray, gy: np.ndarray, c: tuple[float, float], n: np.ndarray, d: float,
              tau: float) -> tuple[np.ndarray, float] | None:
    """(unit normal, distance from c) of the straight edge near the line {x: (x - c).n = d}:
    along it, the strongest change of brightness across it within 3 px, the line fitted
    through those points (Huber); None when too few of them are edges."""
    t = np.array([-n[1], n[0]])
    half = d * math.tan(math.radians(EDGE_SPAN))
    along_pts = np.linspace(-half, half, 25)
    offs = np.arange(-3.0, 3.01, 0.5)
    pts = (c[0] + n[0] * (d + offs[None, :]) + t[0] * along_pts[:, None],
           c[1] + n[1] * (d + offs[None, :]) + t[1] * along_pts[:, None])
    px, py = pts[0].astype(np.float32), pts[1].astype(np.float32)
    sx = cv2.remap(gx, px, py, cv2.INTER_LINEAR)
    sy = cv2.remap(gy, px, py, cv2.INTER_LINEAR)
    resp = np.abs(sx * n[0] + sy * n[1]) - np.abs(sy * n[0] - sx * n[1])
    k = resp.argmax(1)
    rows = np.arange(len(along_pts))
    good = resp[rows, k] >= 0.5 * tau
    if good.sum() < 0.4 * len(along_pts):
        return None
    xy = np.stack([px[rows, k], py[rows, k]], 1)[good]
    vx, vy, x0, y0 = cv2.fitLine(xy.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    nn = np.array([vy, -vx], float)
    if nn @ n < 0:
        nn = -nn
    return nn, float((np.array([x0, y0]) - c) @ nn)


def _cover(gx: np.ndarray, gy: np.ndarray, centre: tuple[float, float], psi: np.ndarray,
           offs: np.ndarray, ds: np.ndarray, tau: float) -> np.ndarray:
    """(normals, distances): the share of each straight edge (normal psi, distance d from
    centre) showing as an edge: at angles psi + offs (steps of EDGE_STEP), d / cos(offset)
    from the centre, the gradient across the edge beating the gradient along it by tau."""
    ang = psi[:, None, None] + np.radians(offs * EDGE_STEP)[None, :, None]
    rho = ds[None, None, :] / np.cos(np.radians(offs * EDGE_STEP))[None, :, None]
    px = (centre[0] + rho * np.cos(ang)).astype(np.float32)
    py = (centre[1] + rho * np.sin(ang)).astype(np.float32)
    shape = px.shape
    sx = cv2.remap(gx, px.reshape(shape[0], -1), py.reshape(shape[0], -1), cv2.INTER_LINEAR)
    sy = cv2.remap(gy, px.reshape(shape[0], -1), py.reshape(shape[0], -1), cv2.INTER_LINEAR)
    sx, sy = sx.reshape(shape), sy.reshape(shape)
    c, s = np.cos(psi)[:, None, None], np.sin(psi)[:, None, None]
    along = np.abs(sx * c + sy * s)
    across = np.abs(sy * c - sx * s)
    return np.clip((along - across) / tau, 0, 1).mean(1)


def _triple(cover: np.ndarray, ds: np.ndarray, least: float) -> list | None:
    """[(normal index, distance index)] * 3 of the three edges round the centre, about 120
    degrees apart (within SKEW steps), their distances within SIDES_RATIO of the first's,
    each covering at least `least`, the most covered in all; None when there are none."""
    m_steps, n_d = cover.shape
    lo = np.searchsorted(ds, ds / SIDES_RATIO)
    hi = np.searchsorted(ds, ds * SIDES_RATIO, side="right")
    # the best cover within each distance's window (the first of equals, as argmax)
    k = np.arange(n_d)
    inside = (k[None, :] >= lo[:, None]) & (k[None, :] < hi[:, None])  # (window, distance)
    masked = np.where(inside[None], cover[:, None, :], -np.inf)
    win_at = masked.argmax(2)
    win = np.take_along_axis(masked, win_at[:, :, None], 2)[:, :, 0]
    third = m_steps // 3
    rows = np.arange(third)
    total = cover[:third].copy()
    low = cover[:third].copy()
    parts_at = []
    for k in (1, 2):  # the other two edges, 120 and 240 degrees on
        cand = np.stack([(rows + k * third + o) % m_steps for o in range(-SKEW, SKEW + 1)])
        vals = win[cand]  # (offsets, third, D)
        o = vals.argmax(0)
        best_k = np.take_along_axis(vals, o[None], 0)[0]
        total += best_k
        low = np.minimum(low, best_k)
        parts_at.append(np.take_along_axis(cand[:, :, None].repeat(n_d, 2), o[None], 0)[0])
    total[low < least] = -1
    m, j = np.unravel_index(int(total.argmax()), total.shape)
    if total[m, j] < 0:
        return None
    pick = [(int(m), int(j))]
    for rk in parts_at:
        r = int(rk[m, j])
        pick.append((r, int(win_at[r, j])))
    return pick
