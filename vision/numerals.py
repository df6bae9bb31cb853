"""Namaste numeral dice: the printed number on each die's top face, and the die's colour.

The dice (`equipment/namaste.json`) are light (white, turquoise) with dark numerals: "1/7"
and "2".."6". Nothing here knows the surface or the die's size. Steps, on an image pyramid
(each level halves the frame, so every die is read where its numeral is 8-40 px tall):

1. **Ink.** Thin dark strokes: the black-hat of the grey image (darker than a closing over a
   few strokes' width), in connected pieces of a numeral's size; pieces side by side (the
   "1", "/" and "7" of "1/7") are one group.
2. **The face.** The body round a group is flood-filled within a colour range from a point
   just beside the ink: the top face stops at its darker rounded rim, so side faces and
   touching dice are separate. A face must be a compact square, the numeral in its middle
   and of a numeral's size on it.
3. **The numeral.** The face's ink, turned square to the face, is compared at its four
   quarter turns with the numerals drawn in several fonts (normalised correlation of the
   blurred ink, scaled to its longer side); the best label must beat every other label by a
   margin, else the face is abstained on.
4. **The colour.** The body's chromaticity (B, G, R over their sum: free of brightness) is
   nearest one die's: from a calibration of the set's own dice (`NumeralProfile`), else the
   colours of `equipment/namaste.json`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.errors import BadImage, VisionError
from vision.objects import ObjectReading

LABELS = ("1/7", "2", "3", "4", "5", "6")
LEVELS = 5
MIN_SIDE = 60
GLYPH_PX = (8, 40)  # a numeral's height at the level it is read at
HAT = 9  # black-hat kernel (px): strokes up to about this wide
INK_MIN = 22  # least black-hat at an ink pixel (grey levels)
SIZE = 32  # the compared ink's square (px)
MIN_SCORE = 0.8  # least correlation with the best label's drawing
MIN_MARGIN = 0.06  # by which the best label beats every other
#: fonts the templates are drawn in (OpenCV's Hershey fonts, with stroke weights)
TEMPLATE_FONTS = ((cv2.FONT_HERSHEY_SIMPLEX, 0.11), (cv2.FONT_HERSHEY_DUPLEX, 0.13),
                  (cv2.FONT_HERSHEY_COMPLEX, 0.1), (cv2.FONT_HERSHEY_TRIPLEX, 0.14),
                  (cv2.FONT_HERSHEY_SIMPLEX, 0.18), (cv2.FONT_HERSHEY_DUPLEX, 0.08))
EQUIPMENT = Path(__file__).resolve().parent.parent / "equipment" / "namaste.json"


@dataclass
class NumeralReading(ObjectReading):
    """A numeral die's reading: the face's label and the die's colour (None when unsure)."""

    colour: str | None = None
    colour_confidence: float = 0.0
    body_chroma: tuple[float, float, float] | None = None  # what the colour was told by
    body_grey: float = 0.0  # the body's brightness (0..255)

    def to_json(self) -> dict:
        """`recognize --json`'s object, with the die's "colour"."""
        out = super().to_json()
        out["colour"] = self.colour
        return out


@dataclass
class NumeralProfile:
    """The set's die colours as the table's camera sees them: chromaticity (b, g, r) each."""

    colours: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    source: str = "equipment/namaste.json"

    def to_json(self) -> dict:
        """As written by `feltbank calibrate --kind numerals`."""
        return {"kind": "numerals", "source": self.source,
                "colours": {k: [round(v, 4) for v in c] for k, c in self.colours.items()}}

    @classmethod
    def from_json(cls, data: dict) -> NumeralProfile:
        """A profile written by to_json; a clear error for anything else."""
        if not isinstance(data, dict) or data.get("kind") != "numerals" or not isinstance(
                data.get("colours"), dict) or len(data["colours"]) < 2:
            raise VisionError("not a numeral dice profile: expected {\"kind\": \"numerals\", "
                              "\"colours\": {NAME: [b, g, r], ...}} with two colours or more")
        try:
            cols = {str(k): tuple(float(x) for x in v) for k, v in data["colours"].items()}
        except (TypeError, ValueError) as e:
            raise VisionError(f"numeral dice profile: a colour is not three numbers ({e})") from e
        if any(len(c) != 3 for c in cols.values()):
            raise VisionError("numeral dice profile: each colour is three numbers [b, g, r]")
        return cls(cols, str(data.get("source", "")))


def chroma(bgr: np.ndarray | tuple) -> np.ndarray:
    """B, G, R over their sum."""
    c = np.asarray(bgr, np.float64)
    return c / max(float(c.sum()), 1e-6)


@cache
def default_profile() -> NumeralProfile:
    """The set's colours as equipment/namaste.json gives them."""
    data = json.loads(EQUIPMENT.read_text())
    return NumeralProfile({d["colour"]: tuple(float(x) for x in chroma(d["body_bgr"]))
                           for d in data["dice"]})


def load_numeral_profile(path: str | Path) -> NumeralProfile:
    """A profile file written by `feltbank calibrate --kind numerals`."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except OSError as e:
        raise VisionError(f"cannot read the numeral dice profile {p}: {e.strerror}") from e
    except ValueError as e:
        raise VisionError(f"the numeral dice profile {p} is not JSON ({e})") from e
    return NumeralProfile.from_json(data)


def _ink_vector(mask: np.ndarray, blur: float = 1.5) -> np.ndarray | None:
    """The ink (float, 1 = ink) cropped to itself, scaled by its longer side into SIZE x
    SIZE, centred, blurred (sigma in px) and normalised (zero mean, unit norm); None when
    there is none."""
    ys, xs = np.nonzero(mask > 0.5)
    if len(xs) < 4:
        return None
    crop = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = crop.shape
    f = (SIZE - 4) / max(h, w)
    small = cv2.resize(crop.astype(np.float32), (max(1, round(w * f)), max(1, round(h * f))),
                       interpolation=cv2.INTER_AREA)
    out = np.zeros((SIZE, SIZE), np.float32)
    y0, x0 = (SIZE - small.shape[0]) // 2, (SIZE - small.shape[1]) // 2
    out[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    out = cv2.GaussianBlur(out, (0, 0), blur).ravel()
    out -= out.mean()
    n = float(np.linalg.norm(out))
    return out / n if n > 1e-6 else None


@cache
def _templates() -> tuple[np.ndarray, np.ndarray]:
    """(vectors (N, SIZE*SIZE), label index (N,)): every label in every template font, at
    small turns."""
    from vision.scenes_numerals import render_text

    vecs, labs = [], []
    for li, lab in enumerate(LABELS):
        for font, weight in TEMPLATE_FONTS:
            mask = render_text(lab, font, 40 * (0.62 if lab == "1/7" else 1), weight)
            for turn in (-6.0, 0.0, 6.0):
                h, w = mask.shape
                pad = np.pad(mask, max(h, w) // 2)
                m = cv2.getRotationMatrix2D((pad.shape[1] / 2, pad.shape[0] / 2), turn, 1.0)
                v = _ink_vector(cv2.warpAffine(pad, m, (pad.shape[1], pad.shape[0])))
                if v is not None:
                    vecs.append(v)
                    labs.append(li)
    return np.array(vecs, np.float32), np.array(labs)


def match(masks: list[np.ndarray], vecs: np.ndarray, labs: np.ndarray, n_labels: int,
          blur: float = 1.5) -> tuple[int, float, float, int]:
    """(label index, best score, margin over the next label, which mask) of the best label
    of any of the masks (one ink seen at several turns) against labelled template vectors."""
    best = np.full(n_labels, -1.0)
    which = np.zeros(n_labels, int)
    for k, mask in enumerate(masks):
        v = _ink_vector(mask, blur)
        if v is None:
            continue
        per = np.full(n_labels, -1.0)
        # einsum, not BLAS: BLAS's threads spin against each other on one busy core (80 ms
        # for what takes 3 ms in one thread)
        np.maximum.at(per, labs, np.einsum("ij,j->i", vecs, v))
        better = per > best
        best[better] = per[better]
        which[better] = k
    order = np.argsort(-best)
    b = float(best[order[0]])
    return int(order[0]), b, b - float(best[order[1]]), int(which[order[0]])


def classify_ink(mask: np.ndarray) -> tuple[str | None, float, float, int]:
    """(label, best score, margin over the next label, quarter turns) of an ink mask that is
    square to its face; label None when no label is clearly best."""
    vecs, labs = _templates()
    i, b, margin, turns = match([np.rot90(mask, k) for k in range(4)], vecs, labs, len(LABELS))
    if b < MIN_SCORE or margin < MIN_MARGIN:
        return None, b, margin, turns
    return LABELS[i], b, margin, turns


def _groups(ink: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) of ink of a numeral's size: pieces side by side joined, then
    every piece alone."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    boxes = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if max(w, h) > GLYPH_PX[1] * 2.2 or max(w, h) < GLYPH_PX[0] * 0.5 or area < 6:
            continue
        boxes.append([x, y, x + w, y + h])
    if not boxes:
        return []
    # join pieces alike in size and closer than half a numeral's height (the parts of "1/7")
    bx = np.array(boxes, np.float64)
    size = np.maximum(bx[:, 2] - bx[:, 0], bx[:, 3] - bx[:, 1])
    gap = 0.45 * np.maximum(size[:, None], size[None, :])
    near = ((bx[:, None, 0] - gap <= bx[None, :, 2]) & (bx[None, :, 0] - gap <= bx[:, None, 2])
            & (bx[:, None, 1] - gap <= bx[None, :, 3]) & (bx[None, :, 1] - gap <= bx[:, None, 3]))
    ratio = size[:, None] / np.maximum(size[None, :], 1)
    near &= (ratio > 0.4) & (ratio < 2.5)
    parent = list(range(len(boxes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True):
        parent[find(int(i))] = find(int(j))
    joined: dict[int, list[float]] = {}
    for i, b in enumerate(boxes):
        r = find(i)
        if r in joined:
            u = joined[r]
            joined[r] = [min(u[0], b[0]), min(u[1], b[1]), max(u[2], b[2]), max(u[3], b[3])]
        else:
            joined[r] = list(b)
    # each piece alone too: a numeral next to a die's dark rim is joined with the rim
    boxes = [b for b in joined.values() if b not in boxes] + boxes
    return [tuple(b) for b in boxes
            if GLYPH_PX[0] <= max(b[3] - b[1], b[2] - b[0]) <= GLYPH_PX[1] * 1.9]


def _square_face(hull: np.ndarray, gh: float, glyph: tuple[float, float]) -> tuple | None:
    """(centre, side, angle) of a region that can be a numeral die's face, else None."""
    area = cv2.contourArea(hull)
    (fx, fy), (rw, rh), ang = cv2.minAreaRect(hull)
    if rw < 6 or rh < 6:
        return None
    side = math.sqrt(rw * rh)
    if (max(rw, rh) / min(rw, rh) > 1.3 or area / (rw * rh) < 0.78
            or not 0.25 <= gh / side <= 0.8
            or math.hypot(fx - glyph[0], fy - glyph[1]) > 0.18 * side):
        return None
    return (fx, fy), side, ang % 90.0


def grow_face(bgr: np.ndarray, box: tuple[int, int, int, int], shape=_square_face,
              reach: float = 1.6, tighten: tuple[float, ...] = (1.0, 0.6, 0.36)
              ) -> tuple[np.ndarray, np.ndarray, tuple] | None:
    """(hull, mask, shape(hull, ink height, ink centre)) of the face holding an ink group:
    the body flood-filled from beside the ink, within reach ink heights; None when no
    region of the body's colour has the shape (the range is tightened by the factors of
    `tighten` in turn while the region runs into its surround or has not the shape)."""
    h, w = bgr.shape[:2]
    x0, y0, x1, y1 = box
    gh = max(x1 - x0, y1 - y0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    d = 0.22 * gh
    seeds = [(cx, y0 - d), (cx, y1 + d), (x0 - d, cy), (x1 + d, cy)]
    grey = [float(bgr[int(np.clip(sy, 0, h - 1)), int(np.clip(sx, 0, w - 1))].mean())
            for sx, sy in seeds]
    half = int(reach * gh) + 4
    wx0, wy0 = max(0, int(cx) - half), max(0, int(cy) - half)
    wx1, wy1 = min(w, int(cx) + half + 1), min(h, int(cy) + half + 1)
    win = bgr[wy0:wy1, wx0:wx1]
    for k in np.argsort(grey)[::-1][:2]:  # the brighter seeds: body, not ink or rim
        sx, sy = int(round(seeds[k][0])) - wx0, int(round(seeds[k][1])) - wy0
        if not (0 <= sx < win.shape[1] and 0 <= sy < win.shape[0]):
            continue
        seed = win[sy, sx].astype(np.float32)
        tol0 = float(np.clip(0.2 * seed.max() + 6, 8, 45))
        for tol in (tol0 * f for f in tighten):
            mask = np.zeros((win.shape[0] + 2, win.shape[1] + 2), np.uint8)
            cv2.floodFill(win, mask, (sx, sy), 0, (tol,) * 3, (tol,) * 3,
                          4 | cv2.FLOODFILL_FIXED_RANGE | cv2.FLOODFILL_MASK_ONLY | (255 << 8))
            m = mask[1:-1, 1:-1]
            if m[:, 0].any() or m[:, -1].any() or m[0].any() or m[-1].any():
                continue
            # the ink is a hole in the body: close it
            m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
            cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if not cs:
                continue
            c = max(cs, key=cv2.contourArea)
            hull = cv2.convexHull((c.reshape(-1, 2) + [wx0, wy0]).astype(np.float32))
            got = shape(hull, gh, (cx, cy))
            if got is not None:
                return hull, m, got
    return None


def _colour(body_bgr: np.ndarray, profile: NumeralProfile) -> tuple[str | None, float]:
    """The nearest die colour to a body's and how sure (None when two are about as near)."""
    c = chroma(body_bgr)
    ds = sorted((float(np.linalg.norm(c - np.asarray(v))), k) for k, v in profile.colours.items())
    (d0, k0), (d1, _) = ds[0], ds[1]
    conf = float(np.clip(0.5 + (d1 - d0) / max(d1, 1e-6) / 2, 0, 1))
    if d0 > 0.6 * d1:
        return None, min(conf, 0.49)
    return k0, conf


def read_numerals(image: np.ndarray, profile: NumeralProfile | None = None
                  ) -> list[NumeralReading]:
    """Every numeral die's top face in a BGR frame: label "1/7", "2".."6" (None when unsure)
    and the die's colour."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise BadImage("expected a BGR colour image of 8-bit pixels (as cv2.imread gives)")
    from vision.pips import _side_faces

    profile = profile or default_profile()
    hat_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (HAT, HAT))
    bgr = image
    found: list[tuple[float, NumeralReading]] = []
    for level in range(LEVELS):
        if level:
            bgr = cv2.pyrDown(bgr)
        if min(bgr.shape[:2]) < MIN_SIDE:
            break
        grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        hat = cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, hat_k)
        ink = (hat > INK_MIN).astype(np.uint8)
        scale = 2 ** level
        taken: list[tuple[float, float, float]] = []
        for box in _groups(ink):
            bc = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            if any(math.hypot(bc[0] - x, bc[1] - y) < 0.4 * s for x, y, s in taken):
                continue
            grown = grow_face(bgr, box)
            if grown is None:
                continue
            hull, _, (centre, side, ang) = grown
            taken.append((centre[0], centre[1], side))
            rd = _read_face(bgr, grey, hat, hull, centre, side, ang, profile)
            c = ((centre[0] + 0.5) * scale - 0.5, (centre[1] + 0.5) * scale - 0.5)
            a = math.radians(ang)
            half = side / 0.88 / 2 * scale
            rd.center = c
            rd.corners = [[c[0] + half * (u * math.cos(a) - v * math.sin(a)),
                           c[1] + half * (u * math.sin(a) + v * math.cos(a))]
                          for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            rd.size_px = side / 0.88 * scale
            found.append((rd.confidence, rd))
    found.sort(key=lambda t: -t[0])
    kept: list[NumeralReading] = []
    for _, rd in found:
        if all(math.hypot(rd.center[0] - o.center[0], rd.center[1] - o.center[1])
               > 0.4 * max(rd.size_px, o.size_px) for o in kept):
            kept.append(rd)
    middle = (image.shape[1] / 2, image.shape[0] / 2)
    side_of = _side_faces(kept, middle) | _shaded_side_faces(kept, middle)
    return [rd for i, rd in enumerate(kept) if i not in side_of]


def _shaded_side_faces(faces: list[NumeralReading], middle: tuple[float, float]) -> set[int]:
    """Side faces seen almost whole (near the frame's edge, through a wide lens): as far from
    their top face as a touching die, of its colour but lit unlike it (a side face is turned to the lamp
    otherwise than the top faces, which all face up alike), and on the side towards the
    picture's middle."""
    out: set[int] = set()
    for i, a in enumerate(faces):
        for b in faces:
            if b is a or b.label is None or not 0.5 < a.size_px / b.size_px < 1.5:
                continue
            if math.hypot(b.center[0] - a.center[0], b.center[1] - a.center[1]) >= 1.05 * max(
                    a.size_px, b.size_px):
                continue
            if abs(a.body_grey - b.body_grey) < 0.12 * max(a.body_grey, b.body_grey):
                continue
            if a.body_chroma is None or b.body_chroma is None or np.linalg.norm(
                    np.subtract(a.body_chroma, b.body_chroma)) > 0.03:  # another die's colour
                continue
            if math.hypot(a.center[0] - middle[0], a.center[1] - middle[1]) < math.hypot(
                    b.center[0] - middle[0], b.center[1] - middle[1]):
                out.add(i)
    return out


def _read_face(bgr: np.ndarray, grey: np.ndarray, hat: np.ndarray, hull: np.ndarray,
               centre: tuple[float, float], side: float, ang: float,
               profile: NumeralProfile) -> NumeralReading:
    """One face's numeral and colour (level pixels; the caller scales the place)."""
    # the face turned square and cut out, a little inside its edge
    out = max(16, int(math.ceil(side * 0.84)))
    m = cv2.getRotationMatrix2D(centre, ang, 1.0)
    m[:, 2] += (out / 2 - centre[0], out / 2 - centre[1])
    g = cv2.warpAffine(grey, m, (out, out), flags=cv2.INTER_LINEAR, borderValue=0)
    hmask = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(hmask, np.round(hull).astype(np.int32).reshape(-1, 2), 1)
    inside = cv2.warpAffine(hmask, m, (out, out), flags=cv2.INTER_NEAREST)
    inside = cv2.erode(inside, np.ones((3, 3), np.uint8))
    vals = g[inside > 0].astype(np.float32)
    if vals.size < 30:
        return NumeralReading("numerals", None, 0.2, centre, why="face too small to read")
    body = float(np.percentile(vals, 75))
    dark = float(np.percentile(vals, 3))
    if body - dark < 25:
        return NumeralReading("numerals", None, 0.2, centre, why="no clear print on the face")
    ink = ((g < (body + dark) / 2) & (inside > 0)).astype(np.float32)
    label, score, margin, _ = classify_ink(ink)
    # the body's colour: face pixels well clear of the ink
    fmask = hmask.astype(bool) & (grey > (body + dark) / 2)
    colour, cconf, bc = None, 0.0, None
    if fmask.sum() > 10:
        med = np.median(bgr[fmask], 0)
        colour, cconf = _colour(med, profile)
        bc = tuple(float(v) for v in chroma(med))
    if label is None:
        return NumeralReading("numerals", None, 0.3, centre,
                              why=f"the print is like no numeral (best {score:.2f}, margin "
                                  f"{margin:.2f})", colour=colour, colour_confidence=cconf,
                              body_chroma=bc, body_grey=body)
    conf = 0.5 + 0.5 * min(1.0, (score - MIN_SCORE) / (1 - MIN_SCORE) * 0.5
                           + (margin - MIN_MARGIN) * 2)
    return NumeralReading("numerals", label, float(min(1.0, conf)), centre, angle_deg=ang,
                          colour=colour, colour_confidence=cconf, body_chroma=bc,
                          body_grey=body)


def calibrate_numerals(captures: dict[str, list[tuple[str, np.ndarray]]]
                       ) -> tuple[NumeralProfile, dict]:
    """A profile of the set's die colours from captures of each die (colour name -> [(file,
    BGR image)], as `vision.images.load_captures` reads DIR/<colour>/*.png): the median
    chromaticity of the faces read in each colour's captures. The colour names must be the
    set's (equipment/namaste.json); every colour needs a face read in its captures. Returns
    the profile and a report ({colour: faces used}, and the files where no face was read)."""
    known = set(default_profile().colours)
    unknown = sorted(set(captures) - known)
    if unknown:
        raise VisionError(f"unknown die colour {unknown[0]!r}; the Namaste set's colours are "
                          f"{', '.join(sorted(known))} (one capture folder each)")
    missing = sorted(known - set(captures))
    if missing:
        raise VisionError(f"no captures of the {missing[0]} die; every colour needs a folder "
                          f"{missing[0]}/ of captures")
    cols: dict[str, tuple[float, float, float]] = {}
    used: dict[str, int] = {}
    unread: list[str] = []
    for colour, items in captures.items():
        seen = []
        for name, img in items:
            faces = [o for o in read_numerals(img) if o.label is not None]
            if not faces:
                unread.append(name)
            seen += [o.body_chroma for o in faces if o.body_chroma is not None]
        if not seen:
            raise VisionError(f"no numeral face was read in the captures of the {colour} die; "
                              "capture it face up, the whole die in the picture")
        cols[colour] = tuple(float(v) for v in np.median(np.array(seen), 0))
        used[colour] = len(seen)
    return NumeralProfile(cols, "calibrated"), {"faces": used, "unread": unread}
