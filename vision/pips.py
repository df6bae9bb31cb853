"""Ordinary pip dice read with no calibration: count the pips on each die's top face.

Nothing here knows the surface, the die's colour or its size. Steps, on an image pyramid
(each level halves the frame, so every die is read at the level where its pips are a few
pixels across):

1. **Pip candidates.** Dark or light spots: local extremes of differences of Gaussians, kept
   when the ring round them is mostly one colour (a die's body) and the spot differs from
   that ring by a good share of its brightness. Wood grain, weave, ruled lines and the
   corners of a checked cloth fail the ring test.
2. **The face.** From a candidate, the body round it is flood-filled within a fixed colour
   range: the top face stops at its rounded, darker rim, so touching dice and the side faces
   (lit differently) are separate regions. A face must be a compact square (aspect,
   fill), of a size the pips fit (pip radius 3-20% of the side), and must not leak into
   the surround.
3. **The count, checked.** The face's pips fix its 3x3 grid (centre, turn, spacing: least
   squares over the turns); every grid point is then looked at: pip-dark (or pip-light) where
   the count's layout has a pip, body where it has none. A count whose layout the face does
   not show cleanly (a pip missed in glare, a stray spot) is abstained on, never guessed.
4. **A second look** at a face that fails, where no level read it surely: strays set aside,
   the top face cut out of a region that grew over a dark die's side faces (whose pips are
   squeezed: a top face's pips are round), two touching dice of one colour read half by half.

5. **Not a die after all.** A face is abstained on when spots like its pips run on past it
   (a cloth's pattern), when it is a lone pip whose body runs on to another pip like it (a
   part of a face), or when a face of its colour beside it may be its top face (a tilted
   camera's side faces point anywhere, not only to the picture's middle), or when little of
   a die's edge runs round it and its layout is not sure (a patch of a speckled surface).

The same face found at two pyramid levels is reported once, from the level that fits best;
two levels that read it otherwise make it abstained on.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import combinations

import cv2
import numpy as np

from vision.errors import BadImage
from vision.nadir import Nadir
from vision.objects import ObjectReading

#: pip positions on the 3x3 grid (column, row in -1..1) for each count
LAYOUTS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
GRID = [(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)]
_GRID = np.array(GRID, np.float64)
_DISC = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], np.float64)  # a point's 3x3
SIGMAS = (1.0, 1.45, 2.1)  # per level: two DoG bands, pip radius ~1.4-3 px (the next level goes on)
LEVELS = 5
MIN_SIDE = 60  # a level whose shorter side is below this is not searched
RING = 2.0  # ring radius round a candidate, in pip radii
N_RING = 16
MAX_OFF = 0.14  # the pips' centre may be this far (face sides) from the face region's
MIN_ISOTROPY = 0.8  # a grid of pips squeezed more than this is a side face
MAX_ASPECT = 1.3  # a face region's longer side over its shorter
MAX_GRID_ERR = 0.42  # a grid point's reading may be off its layout by this much (0..1)
HESSIAN_RATIO = (4 + 1) ** 2 / 4  # curvatures at most 4:1 (a spot, not a line)
DOG_MIN = 5  # least difference of Gaussians at a candidate (grey levels)
CUT_MIN_CONF = 0.7  # a top face cut out of a larger region is read only this sure
PIP_OF_FACE = 0.45  # a face at most this share of a read face's side, within it, is its pip
SQUEEZED = 1.4  # a spot this much longer than wide is a side face's pip seen at a slant
SQUARE_TURN = 12.0  # degrees a grid of pips may be turned against its face's edges
MORE_SQUEEZED = 1.3  # a side face's pips are this much longer than its top face's
TWO_PIPS_SIZE = 1.6  # a two's pips are of one size: radii within this many times (right twos
#: of 1,762 right readings on dev 400 and unseen dev frames, 281 twos: 1.36 at most; a grain
#: and a speck of a speckled ground read as a two 0.70 where there is no die: 2.04, 23402037;
#: `--seed 20261121 --dice 400`, `20400000`/`20401000` 700 each, `20402000` 300)
DIAGONAL_ON = 0.3  # a spot this near (of a two's pips' distance) where its diagonal runs on
EDGE_ROUND = 0.5  # a face with its colour ending round less of its outline than this (a die's
EDGE_SURE = 0.95  # edge, `_edge_round`) is read only this sure of its layout
EDGE_NONE = 0.15  # a face whose colour ends round less of its outline than this is read only
#: when its colour steps round EDGE_ROUND of it (a die's outline steps all round, on a table of
#: its own colour too: white on white paper; a patch of the table steps only at its grains)
WALL = 4.0  # a step this many times a level's median step walls a fill in (`_wall_map`)
WALL_MIN = 4.0  # and at least this many grey levels a pixel
NEAR = 0.85  # a die's top and side faces as deep as 0.7 of a side are closer than this (die
#: sides, the readings' size), touching dice stand a side apart (sharp-edged ones: 0.88 of it)
NEAR_LIT = 0.95  # a side face deeper still (a tilted camera, a wide lens) is closer than this;
#: from NEAR on only when lit otherwise than the top face (touching dice's tops are lit alike)
LIT_OTHERWISE = 1.4  # faces whose brightness differs this many times are lit otherwise
ONE_DIE_LIT = 5.0  # a die's side face turned from the lamp, lit by the room's light alone (a
#: fifth of the lamp's or more), beside its top face lit by both: this many times darker at
#: most (3 was too few: a dev frame's side face in shade, 3.2 times darker than its top face,
#: was cut out and read as a three beside it, seed 23300097 with the table's nadir)
SIDE_TOP_SPOTS = 2  # spots beyond a read face, away from the nadir, that may be its top face's
BLACK = 30.0  # a camera's black level and flare, a grey level per channel: faces both below it
#: are not told apart by their brightness
F_MIN = 0.55  # the shortest focal length taken, in the frame's longer sides (about 85 degrees)
SIDE_SQUARER = 0.1  # a region's aspect (shorter over longer side) is measured this well
CORNERS_FILL = 0.87  # a face's region fills this much of its least rectangle: a die's face has
#: corners, a disc fills 0.785 (a patch of a speckled ground between its grains, read as a two
#: 0.96 sure: 0.80; faces read right with little edge round them on 120 dev frames: 0.907+)
GROUND_RING = 3.0  # the ground round a spot beyond a face is sampled this many radii out: clear
#: of its blurred edge (at RING, 2, a light pip's glow turned a blue face's ground grey: hue off
#: by 0.105, dev frame 23400008; at 2.5-4 radii it is the face's)
EMPTY_CORNER_NEAR = 0.4  # a two's or a three's empty corners looked at this far round (spacings)
EMPTY_CORNER_PIP = 0.7  # and a pip seen there when this far from the body to the pips' level
#: (measured: right twos and threes of 270 dev frames 0.51 at most; a five read as a three, 1.04)


@dataclass
class _Pip:
    x: float
    y: float
    r: float
    light: bool  # a light pip on a dark body
    centre: float  # smoothed grey at the centre (0..1)
    body: float  # median of the ring
    strength: float
    elong: float = 1.0  # the spot's longer over its shorter axis (a top face's pips are round)
    minor: float = 0.0  # the direction of its shorter axis (radians)
    shaped: bool = False  # elong and minor measured (`_shape`)


@dataclass
class _Face:
    level: int
    center: tuple[float, float]  # level pixels
    side: float
    angle: float
    hull: np.ndarray
    body: float
    light: bool
    pips: list[_Pip]
    square: bool = True  # False: an oblong region, a top face with more beside it
    colour: tuple[float, float, float] = (0.0, 0.0, 0.0)  # the body's BGR (0..255)
    aspect: float = 1.0  # the region's shorter side over its longer (1: not foreshortened)
    around: np.ndarray | None = None  # (x, y, r, centre, body) of the level's spots near it
    around_pips: list[_Pip] | None = None  # the same spots
    image: np.ndarray | None = None  # the level's BGR picture
    walls: Callable[[], np.ndarray] | None = None  # the level's `_wall_map`, made when asked
    smooth: np.ndarray | None = None  # the level's smoothed grey (0..1)


def _ring_offsets(n: int = N_RING) -> np.ndarray:
    a = np.arange(n) * 2 * math.pi / n
    return np.stack([np.cos(a), np.sin(a)], 1)


_RING = _ring_offsets()


def _sample(img: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Nearest-pixel values at (xs, ys), clipped to the image."""
    h, w = img.shape[:2]
    xi = np.clip(np.rint(xs).astype(np.int32), 0, w - 1)
    yi = np.clip(np.rint(ys).astype(np.int32), 0, h - 1)
    return img[yi, xi]


def _candidates(grey: np.ndarray) -> tuple[list[_Pip], np.ndarray]:
    """Pip candidates of one level (grey uint8); also the lightly smoothed grey (float 0..1)."""
    blurred = [cv2.GaussianBlur(grey, (0, 0), SIGMAS[0])]
    for a, b in zip(SIGMAS[:-1], SIGMAS[1:], strict=True):  # each from the last: smaller kernels
        blurred.append(cv2.GaussianBlur(blurred[-1], (0, 0), math.sqrt(b * b - a * a)))
    smooth = blurred[0].astype(np.float32) * (1 / 255)
    found: list[_Pip] = []
    kernel = np.ones((3, 3), np.uint8)
    for k in range(len(SIGMAS) - 1):
        mag = cv2.absdiff(blurred[k], blurred[k + 1])
        r = math.sqrt(SIGMAS[k] * SIGMAS[k + 1]) * 1.45
        peak = cv2.bitwise_and(cv2.compare(mag, cv2.dilate(mag, kernel), cv2.CMP_GE),
                               cv2.compare(mag, DOG_MIN, cv2.CMP_GT))
        pts = cv2.findNonZero(peak)
        if pts is None:
            continue
        pts = pts.reshape(-1, 2)
        xs, ys = pts[:, 0], pts[:, 1]
        rx = xs[:, None] + _RING[None, :, 0] * RING * r
        ry = ys[:, None] + _RING[None, :, 1] * RING * r
        ring = _sample(smooth, rx, ry)
        med = np.median(ring, 1)
        c = smooth[ys, xs]
        con = c - med
        acon = np.abs(con)
        rel = acon / np.maximum(np.maximum(c, med), 0.05)
        close = np.mean(np.abs(ring - med[:, None]) < 0.3 * acon[:, None], 1)
        sign = np.sign(blurred[k][ys, xs].astype(np.int16) - blurred[k + 1][ys, xs])
        # a spot, not a line or a corner: the curvature is alike both ways (Hessian test)
        b = blurred[k + 1]
        hs = max(1.0, r)

        def at(dx: float, dy: float, b: np.ndarray = b, xs: np.ndarray = xs,
               ys: np.ndarray = ys) -> np.ndarray:
            return _sample(b, xs + dx, ys + dy).astype(np.float32)

        c0 = at(0, 0)
        dxx = at(hs, 0) + at(-hs, 0) - 2 * c0
        dyy = at(0, hs) + at(0, -hs) - 2 * c0
        dxy = (at(hs, hs) + at(-hs, -hs) - at(hs, -hs) - at(-hs, hs)) / 4
        det = dxx * dyy - dxy * dxy
        tr = dxx + dyy
        blob = (det > 0) & (tr * tr < HESSIAN_RATIO * det)
        keep = blob & (rel > 0.28) & (acon > 0.035) & (close >= 0.6) & (np.sign(con) == sign)
        for i in np.nonzero(keep)[0]:
            found.append(_Pip(float(xs[i]), float(ys[i]), r, bool(con[i] > 0), float(c[i]),
                              float(med[i]), float(mag[ys[i], xs[i]] / 255 / max(0.02, acon[i]))))
    # one candidate per spot: the strongest of those in one blob (the midway point is pip)
    found.sort(key=lambda p: -abs(p.centre - p.body))
    kept: list[_Pip] = []
    cell = 2.4 * math.sqrt(SIGMAS[-2] * SIGMAS[-1]) * 1.45
    grid: dict[tuple[int, int], list[_Pip]] = {}
    for p in found:
        gx, gy = int(p.x // cell), int(p.y // cell)
        near = [q for i in (-1, 0, 1) for j in (-1, 0, 1) for q in grid.get((gx + i, gy + j), ())]
        if not any(_same_spot(p, q, smooth) for q in near):
            kept.append(p)
            grid.setdefault((gx, gy), []).append(p)
    _refine(kept, smooth)
    # two candidates that settled on one spot are one
    out: list[_Pip] = []
    cell = max(1.0, 0.6 * max((p.r for p in kept), default=1.0))
    cells: dict[tuple[int, int], list[_Pip]] = {}
    for p in kept:
        gx, gy = int(p.x // cell), int(p.y // cell)
        near = [q for i in (-1, 0, 1) for j in (-1, 0, 1) for q in cells.get((gx + i, gy + j), ())]
        if all((p.x - q.x) ** 2 + (p.y - q.y) ** 2 > (0.6 * max(p.r, q.r)) ** 2 or
               p.light != q.light for q in near):
            out.append(p)
            cells.setdefault((gx, gy), []).append(p)
    return out, smooth


def _same_spot(p: _Pip, q: _Pip, smooth: np.ndarray) -> bool:
    """Whether two candidates lie in one spot (close, or pip-coloured midway)."""
    if p.light != q.light:
        return False
    d2 = (p.x - q.x) ** 2 + (p.y - q.y) ** 2
    if d2 > (2.4 * max(p.r, q.r)) ** 2:
        return False
    if d2 <= (1.1 * max(p.r, q.r)) ** 2:
        return True
    mid = float(_sample(smooth, np.array([(p.x + q.x) / 2]), np.array([(p.y + q.y) / 2]))[0])
    return abs(mid - q.centre) < 0.5 * abs(q.centre - q.body)


def _refine(pips: list[_Pip], smooth: np.ndarray) -> None:
    """Centre each candidate on its spot (the centroid of pip-coloured pixels near it),
    the candidates of one radius at once."""
    h, w = smooth.shape
    for r in {p.r for p in pips}:
        group = [p for p in pips if p.r == r]
        rad = int(math.ceil(2.2 * r))
        dy, dx = np.mgrid[-rad:rad + 1, -rad:rad + 1].reshape(2, -1)
        px = np.array([p.x for p in group])
        py = np.array([p.y for p in group])
        xx = px.astype(np.int64)[:, None] + dx  # (n, k): each candidate's window
        yy = py.astype(np.int64)[:, None] + dy
        inside = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
        win = smooth[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]
        body = np.array([p.body for p in group], np.float32)[:, None]
        span = np.array([p.centre - p.body for p in group], np.float32)[:, None]
        wgt = np.clip((win - body) / span * 2 - 1, 0, 1)
        wgt *= inside & (((xx - px[:, None]) ** 2 + (yy - py[:, None]) ** 2) <= rad * rad)
        tot = wgt.sum(1)
        cx = (wgt * xx).sum(1) / np.maximum(tot, 1e-12)
        cy = (wgt * yy).sum(1) / np.maximum(tot, 1e-12)
        for i, p in enumerate(group):
            if tot[i] > 0:
                p.x, p.y = float(cx[i]), float(cy[i])
                p.r = max(p.r * 0.5, math.sqrt(float(tot[i]) / math.pi) * 1.15)


def _shape(p: _Pip, smooth: np.ndarray) -> None:
    """The spot's elongation and the direction of its shorter axis, from the second moments
    of its own pip-coloured pixels (the connected spot at its centre, not its neighbours)."""
    if p.shaped:
        return
    p.shaped = True
    h, w = smooth.shape
    rad = int(math.ceil(2.0 * p.r)) + 1
    x0, y0 = max(0, int(p.x) - rad), max(0, int(p.y) - rad)
    x1, y1 = min(w, int(p.x) + rad + 1), min(h, int(p.y) + rad + 1)
    t = (smooth[y0:y1, x0:x1] - p.body) / (p.centre - p.body)
    blob = (t > 0.45).astype(np.uint8)
    n, lab = cv2.connectedComponents(blob, connectivity=4)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    # the spot: the pip-coloured one at the centre (the strongest pixel within a pixel of it)
    near = np.where((xx - p.x) ** 2 + (yy - p.y) ** 2 <= 2.0, t, -np.inf)
    cy, cx = np.unravel_index(int(np.argmax(near)), near.shape)
    if lab[cy, cx] == 0:
        return
    wgt = np.where(lab == lab[cy, cx], np.clip(t, 0, 1), 0.0)
    tot = float(wgt.sum())
    mx, my = float((wgt * xx).sum() / tot), float((wgt * yy).sum() / tot)
    dx, dy = xx - mx, yy - my
    sxx, syy, sxy = (float((wgt * v).sum() / tot) for v in (dx * dx, dy * dy, dx * dy))
    tr, det = sxx + syy, sxx * syy - sxy * sxy
    disc = math.sqrt(max(0.0, tr * tr / 4 - det))
    lo, hi = max(tr / 2 - disc, 1e-6), tr / 2 + disc
    p.elong = math.sqrt(hi / lo)
    p.minor = 0.5 * math.atan2(2 * sxy, sxx - syy) + math.pi / 2


def _fill_tolerance(colour: np.ndarray) -> float:
    """How far (per channel, 0..255) a die's body may differ from its colour at a point and
    still be one face: a fifth of its brightest channel, and a little more."""
    return float(np.clip(0.2 * colour.max() + 6, 8, 45))


def _grow_face(bgr: np.ndarray, smooth: np.ndarray, pip: _Pip, visited: np.ndarray,
               walls: Callable[[], np.ndarray]) -> tuple | None:
    """The face round a pip: (hull, body grey, (centre, side, angle, square), body BGR) in
    level pixels, or None when no face-shaped region of the body's colour holds it. An
    oblong region (a top face with a side face, or two touching dice, of one colour) is
    returned only when no tighter colour range gives a square one. When every range runs
    into the surround (a die of nearly the table's colour: white on white paper), the fills
    are tried again walled in by the level's edges (`walls`, `_wall_map`). A region that
    fails is marked in `visited`, and a seed inside one is not grown again."""
    h, w = smooth.shape
    rx = pip.x + _RING[:, 0] * RING * pip.r
    ry = pip.y + _RING[:, 1] * RING * pip.r
    vals = _sample(smooth, rx, ry)
    i = int(np.argmin(np.abs(vals - pip.body)))
    sx, sy = int(round(rx[i])), int(round(ry[i]))
    if not (0 <= sx < w and 0 <= sy < h) or visited[sy, sx]:
        return None
    half = int(pip.r / 0.03) + 2
    x0, y0 = max(0, sx - half), max(0, sy - half)
    x1, y1 = min(w, sx + half + 1), min(h, sy + half + 1)
    win = bgr[y0:y1, x0:x1]
    seed = win[sy - y0, sx - x0].astype(np.float32)
    tol0 = _fill_tolerance(seed)
    oblong = None
    leaked = True
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for walled in (False, True):
        if walled:  # only when every range leaked; seeded off the walls (a pip's own edge
            if not leaked:  # reaches past the ring)
                break
            m = np.zeros_like(m)  # a leak marks nothing visited: the walls may part it
            wall = walls()
            on = [k for k in np.argsort(np.abs(vals - pip.body))
                  if 0 <= rx[k] < w - 0.5 and 0 <= ry[k] < h - 0.5
                  and not wall[int(round(ry[k])), int(round(rx[k]))]]
            if not on:
                break
            sx, sy = int(round(rx[on[0]])), int(round(ry[on[0]]))
            if not (x0 <= sx < x1 and y0 <= sy < y1):
                break
        # tighter when the body runs into its surround
        tols = [t for t in (tol0, tol0 * 0.6, tol0 * 0.36) if t >= 4]
        # the tightest range first: its region lies inside every looser range's, so when it
        # leaks they all do (most fills of a textured ground leak: one fill, not three)
        wall = walls()[y0:y1, x0:x1] if walled else None
        tightest = _flood(win, wall, (sx - x0, sy - y0), tols[-1]) if len(tols) > 1 else None
        if tightest is not None and tightest[1]:
            m = tightest[0]
            continue
        for tol in tols:
            m, leak = tightest if tightest is not None and tol == tols[-1] else _flood(
                win, wall, (sx - x0, sy - y0), tol)
            if leak:
                continue
            leaked = False
            m = _closed(m, walled)
            cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if not cs:
                continue
            c = max(cs, key=cv2.contourArea)
            hull = cv2.convexHull((c.reshape(-1, 2) + [x0, y0]).astype(np.float32))
            shape = _face_shape(hull, pip.r, min(h, w))
            if shape is None:
                if _too_small(hull, pip.r):  # a tighter range grows a part of this region,
                    # smaller still (most fills on a patterned cloth end here); what is marked
                    # visited is the tightest range's region, as when every range was tried
                    if tightest is not None and tol != tols[-1]:
                        m = _closed(tightest[0], walled)
                    break
                continue
            body = float(np.median(smooth[y0:y1, x0:x1][m > 0]))
            found = hull, body, shape, tuple(float(v) for v in np.median(win[m > 0], 0))
            if shape[3]:
                return found
            oblong = oblong or found
        if oblong is not None:
            return oblong
    visited[y0:y1, x0:x1] |= m > 0
    return None


def _closed(m: np.ndarray, walled: bool) -> np.ndarray:
    """A fill's region (uint8 0/1) closed by a pixel; a walled fill first grown by a pixel
    (it stops a pixel short of the wall: the wall's inner half is the face's too)."""
    if walled:
        m = cv2.dilate(m, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))


def _flood(win: np.ndarray, wall: np.ndarray | None, seed: tuple[int, int], tol: float
           ) -> tuple[np.ndarray, bool]:
    """The region of `win` (BGR) filled from `seed` within a fixed range of `tol` per
    channel, walled in by `wall` (uint8 0/1) when given: (its mask, uint8 0/1; whether it
    touches the window, a leak into the surround, or at the frame's edge a die cut by the
    frame, not read)."""
    h, w = win.shape[:2]
    mask = np.zeros((h + 2, w + 2), np.uint8)
    if wall is not None:
        mask[1:-1, 1:-1] = wall
    cv2.floodFill(win, mask, seed, 0, (tol,) * 3, (tol,) * 3,
                  4 | cv2.FLOODFILL_FIXED_RANGE | cv2.FLOODFILL_MASK_ONLY | (255 << 8))
    m = (mask[1:-1, 1:-1] == 255).view(np.uint8)
    return m, bool(m[:, 0].any() or m[:, -1].any() or m[0].any() or m[-1].any())


def _wall_map(bgr: np.ndarray) -> np.ndarray:
    """Where a level's colour (BGR uint8) steps from one pixel to the next by more than its
    own texture does (WALL times the level's median step, at least WALL_MIN grey levels a
    pixel, in any channel; the step is |d/dx| + |d/dy|): a die's outline all round (its
    rim's shade and bevel, its side faces, its shadow) where its body differs from the
    table too little for a fill to stop (white on white paper). uint8 0/1."""
    ax = cv2.convertScaleAbs(cv2.Sobel(bgr, cv2.CV_16S, 1, 0, ksize=3), alpha=1 / 8)
    ay = cv2.convertScaleAbs(cv2.Sobel(bgr, cv2.CV_16S, 0, 1, ksize=3), alpha=1 / 8)
    b, g, r = cv2.split(cv2.add(ax, ay))
    step = cv2.max(cv2.max(b, g), r)
    level = max(WALL * float(np.median(step[::3, ::3])), WALL_MIN)
    return (step > level).view(np.uint8)


def _fill(hull: np.ndarray) -> float:
    """How much of its least rectangle a region's hull fills (a square 1, a disc 0.785)."""
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    return float(cv2.contourArea(hull)) / max(rw * rh, 1e-9)


def _too_small(hull: np.ndarray, r: float) -> bool:
    """Whether a region is too small for a face of pips of radius r (`_face_shape`'s pip
    radius over 0.22 of the side, square or oblong), it and every region inside it: the
    least rectangle of a part has no more area than the whole's."""
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    return rw * rh < (r / 0.22) ** 2


def _face_shape(hull: np.ndarray, r: float, frame: int
                ) -> tuple[tuple[float, float], float, float, bool] | None:
    """Centre, side, angle and squareness of a region that can be a die's face (compact,
    square, the pips' size, under 0.4 of the frame's shorter side), or a top face with more
    beside it (oblong up to 2.2:1, its shorter side the pips' size), else None."""
    area = cv2.contourArea(hull)
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(hull)
    if rw < 3 or rh < 3:
        return None
    side = math.sqrt(rw * rh)
    if side > 0.4 * frame:
        return None
    if (max(rw, rh) / min(rw, rh) <= MAX_ASPECT and area / (rw * rh) >= 0.78
            and 0.045 <= r / side <= 0.22):
        return (cx, cy), side, ang % 90.0, True
    if (max(rw, rh) / min(rw, rh) <= 2.2 and area / (rw * rh) >= 0.7
            and 0.045 <= r / min(rw, rh) <= 0.22):
        return (cx, cy), side, ang % 90.0, False
    return None


def _fit_grid(pips: list[_Pip], n: int, angle0: float, side: float
              ) -> tuple[tuple[float, float], float, float, float]:
    """Centre, turn (deg), spacing and relative residual of count n's layout on the pips."""
    pts = np.array([[p.x, p.y] for p in pips], np.float64)
    if n == 1:
        return (float(pts[0, 0]), float(pts[0, 1])), angle0, 0.22 * side, 0.0
    c = pts.mean(0)
    d = pts - c
    lay = np.array(LAYOUTS[n], np.float64)
    # every turn at once: the layout turned (A, n, 2), each pip to its nearest layout point
    turns = angle0 + np.arange(-90.0, 90.0, 1.5)  # 2, 3 and 6 repeat only after half turns
    a = np.radians(turns)
    ca, sa = np.cos(a)[:, None], np.sin(a)[:, None]
    q = np.stack([lay[None, :, 0] * ca - lay[None, :, 1] * sa,
                  lay[None, :, 0] * sa + lay[None, :, 1] * ca], 2)
    s0 = math.sqrt(np.mean(np.sum(d ** 2, 1)) / np.mean(np.sum(lay ** 2, 1)))
    dist = np.linalg.norm(d[None, :, None, :] - s0 * q[:, None, :, :], axis=3)  # (A, n, n)
    j = np.argmin(dist, 2)
    distinct = np.all(np.diff(np.sort(j, 1), axis=1) != 0, 1)
    qa = np.take_along_axis(q, j[:, :, None], 1)  # (A, n, 2)
    s = np.sum(d[None] * qa, (1, 2)) / np.maximum(np.sum(qa * qa, (1, 2)), 1e-9)
    res = np.sqrt(np.mean(np.sum((d[None] - s[:, None, None] * qa) ** 2, 2), 1)) / np.maximum(
        s, 1e-6)
    res[~distinct | (s <= 0)] = np.inf
    k = int(np.argmin(res))
    best = (float(res[k]), float(turns[k]), float(s[k]))
    return (float(c[0]), float(c[1])), best[1], best[2], best[0]


def _anisotropy(pips: list[_Pip], n: int, centre: tuple[float, float], angle: float,
                s: float) -> float:
    """How square the pips' grid is (1 = square): the smaller over the larger singular value
    of the linear map from count n's layout to the pips. A side face seen at a slant is
    squeezed along one direction; a top face, parallel to the picture, is not."""
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    q = (np.array(LAYOUTS[n], np.float64) * s) @ rot.T
    d = np.array([[p.x - centre[0], p.y - centre[1]] for p in pips])
    j = np.argmin(np.linalg.norm(d[:, None, :] - q[None, :, :], axis=2), 1)
    qa = q[j]
    m, *_ = np.linalg.lstsq(qa, d, rcond=None)
    sv = np.linalg.svd(m, compute_uv=False)
    return float(sv[-1] / max(sv[0], 1e-9))


def _grid_values(smooth: np.ndarray, centre: tuple[float, float], angle: float, s: float,
                 r: float) -> np.ndarray:
    """Mean smoothed grey in a small disc at each of the 9 grid points."""
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    rr = max(0.8, 0.45 * r)
    gx = centre[0] + s * (_GRID[:, 0] * ca - _GRID[:, 1] * sa)
    gy = centre[1] + s * (_GRID[:, 0] * sa + _GRID[:, 1] * ca)
    vals = _sample(smooth, gx[:, None] + _DISC[None, :, 0] * rr, gy[:, None] + _DISC[None, :, 1] * rr)
    return vals.mean(1, dtype=np.float64)


def _empty_corner_pip(smooth: np.ndarray, centre: tuple[float, float], angle: float,
                      s: float, r: float, body: float, span: float) -> float:
    """How much like a pip (0: body, 1: the pips' level) the most pip-like spot is near
    either corner a two's or a three's layout leaves empty (the corners where a four's and a
    five's pips are): within EMPTY_CORNER_NEAR spacings of the grid point, not only on it.
    A face seen at a slant (a tilted camera) is foreshortened along one way, and the square
    grid fitted to its diagonal pips misses its other corners by a third of a spacing (a
    five read as a three 0.75 sure, two of its corner pips not found as spots, dev frame
    23400086)."""
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    k = np.linspace(-EMPTY_CORNER_NEAR, EMPTY_CORNER_NEAR, 5)
    du, dv = (g.ravel() for g in np.meshgrid(k, k))
    inside = du * du + dv * dv <= EMPTY_CORNER_NEAR ** 2
    du, dv = du[inside], dv[inside]
    rr = max(0.8, 0.45 * r)
    u = np.concatenate([1.0 + du, -1.0 + du]) * s
    v = np.concatenate([-1.0 + dv, 1.0 + dv]) * s
    gx = centre[0] + u * ca - v * sa
    gy = centre[1] + u * sa + v * ca
    vals = _sample(smooth, gx[:, None] + _DISC[None, :, 0] * rr,
                   gy[:, None] + _DISC[None, :, 1] * rr).mean(1, dtype=np.float64)
    return float(np.max((vals - body) / span))


def _occupancy(n: int, angle_turns: int = 0) -> np.ndarray:
    """1 where count n's layout has a pip, per GRID point (turned by quarter turns)."""
    occ = np.zeros(9)
    for i, j in LAYOUTS[n]:
        for _ in range(angle_turns):
            i, j = -j, i
        occ[GRID.index((i, j))] = 1
    return occ


_OCC = np.array([[_occupancy(m, k) for k in range(4)] for m in range(1, 7)])  # (6, 4, 9)


def _judge_first(face: _Face, smooth: np.ndarray) -> tuple:
    """(label, confidence, why, grid centre, grid angle, grid spacing) of a face read from
    all its spots; when it fails, `_judge_again` looks further."""
    first = _judge_spots(face, face.pips, smooth)
    if not face.square:
        first = (None, 0.3, "the face runs into another", *first[3:])
    return first


def _judge_again(face: _Face, smooth: np.ndarray, mid: tuple[float, float], first: tuple
                 ) -> tuple[str | None, float, str, tuple, float, float, float]:
    """(label, confidence, why, grid centre, grid angle, grid spacing, face side) of a face
    whose spots all together are not a die's layout (`first`, from `_judge_first`).

    When the face's spots are not a die's layout, some may not be the top face's:

    - a die's side faces, when the region grew over them (a dark die, whose faces differ
      little): they lie beyond the top face's edges on the side towards the picture's middle
      (`mid`). The top face is then the outermost square block of spots: the spots on the
      outer side of one or two cut lines along the face's edges, which must make a layout
      the nine grid points confirm, with the face's own outer edges (the region's) where
      that layout puts them and every spot cut off beyond the top face's edge. A lone pip
      (or a two or three whose cut spots fall on its own grid) is cut out only when every
      spot cut off is squeezed across the edge it lies beyond: a side face seen at a slant
      (a top face is parallel to the picture, its pips round);
    - one or two strays (a speck, a side face's pip at the rim): the spots left must make a
      layout of four to six pips that the grid confirms, with the strays off the grid.

    Every such choice must agree on the count, or the face is abstained on."""
    alts = [(*a, face.side) for a in _strays_set_aside(face, smooth)]
    alts += _top_face_cut(face, smooth, mid)
    if len({a[0] for a in alts}) != 1:
        return (*first, face.side)
    return max(alts, key=lambda a: a[1])


def _split_touching(face: _Face, smooth: np.ndarray) -> list[tuple[_Face, tuple]]:
    """Two touching dice of one colour grown into one oblong region (about 2:1): each half
    read as a face of its own, (half face, reading) for the halves read surely; none when
    a spot is squeezed (the region is a top face with its side face, not two dice)."""
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(face.hull)
    long_, short = max(rw, rh), min(rw, rh)
    if not 1.6 <= long_ / short <= 2.4:
        return []
    a = math.radians(ang if rw >= rh else ang + 90)
    ux, uy = math.cos(a), math.sin(a)
    for p in face.pips:
        _shape(p, smooth)
        if p.elong >= SQUEEZED:
            return []
    out = []
    for sg in (-1, 1):
        spots = [p for p in face.pips if sg * ((p.x - cx) * ux + (p.y - cy) * uy) > 0]
        if not spots:
            continue
        c = (cx + sg * ux * long_ / 4, cy + sg * uy * long_ / 4)
        hw, hh = long_ / 4, short / 2
        hull = np.array([[c[0] + i * hw * ux - j * hh * uy, c[1] + i * hw * uy + j * hh * ux]
                         for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))], np.float32)
        half = replace(face, center=c, side=math.sqrt(long_ / 2 * short), hull=hull.reshape(-1, 1, 2),
                       pips=spots, square=True)
        judged = _judge_spots(half, spots, smooth)
        if judged[0] is not None and judged[1] >= CUT_MIN_CONF:
            out.append((half, judged))
    return out


def _strays_set_aside(face: _Face, smooth: np.ndarray) -> list[tuple]:
    """Readings of the face with one or two stray spots set aside (see `_judge_again`)."""
    if len(face.pips) > 9 or not face.square:
        return []
    alts: list[tuple] = []
    for k in (1, 2):
        for drop in combinations(range(len(face.pips)), k):
            spots = [p for i, p in enumerate(face.pips) if i not in drop]
            if not 4 <= len(spots) <= 6:  # only a rich layout checks itself well enough
                continue
            alt = _judge_spots(face, spots, smooth)
            if alt[0] is None:
                continue
            # a stray lies off the face's grid; a pip of the face would lie on it
            (cx, cy), sp = alt[3], alt[5]
            if all(math.hypot(face.pips[i].x - cx, face.pips[i].y - cy) > 1.7 * sp
                   for i in drop):
                alts.append(alt)
        if alts:
            break
    return alts


def _top_face_cut(face: _Face, smooth: np.ndarray, mid: tuple[float, float]) -> list[tuple]:
    """Readings of the face's outermost square block of spots, the rest being side faces
    beyond its inner edges (see `_judge_again`)."""
    a = math.radians(face.angle)
    axes = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    pts = np.array([[p.x, p.y] for p in face.pips])
    rel = (pts - face.center) @ axes.T  # (k, 2): along the face's two edges
    for p in face.pips:
        _shape(p, smooth)
    o = np.array([face.center[0] - mid[0], face.center[1] - mid[1]]) @ axes.T
    on = float(np.hypot(*o))
    if on < 1e-6:
        return []
    o /= on
    # the sides a side face can show on: those not turned away from the picture's middle
    sides = [(ax, sg) for ax in (0, 1) for sg in (1, -1) if sg * o[ax] < 0.3]
    cuts = []
    for ax, sg in sides:
        proj = np.sort(np.unique(sg * rel[:, ax]))
        cuts.append([(ax, sg, t) for t in ((proj[1:] + proj[:-1]) / 2).tolist()] + [None])
    hull = face.hull.reshape(-1, 2).astype(np.float64)
    seen: set[frozenset[int]] = set()
    out: list[tuple] = []
    # each cut as the bit mask of the spots it keeps (bit i: spot i)
    masks = [[sum(1 << i for i in np.nonzero(c[1] * rel[:, c[0]] < c[2])[0].tolist())
              if c is not None else (1 << len(face.pips)) - 1 for c in side] for side in cuts]
    for keep in dict.fromkeys(_and(c) for c in _product(masks)):  # in order, once
        idx = frozenset(i for i in range(len(face.pips)) if keep >> i & 1)
        if (not 1 <= len(idx) <= 6 or (len(idx) == len(face.pips) and face.square)
                or idx in seen):
            continue  # (what is judged below depends on idx alone)
        cut = [face.pips[i] for i in range(len(face.pips)) if i not in idx]
        # every spot cut off is squeezed across the edge it lies beyond: a side face's pip
        # (a top face's pips are round: the top face is parallel to the picture)
        squeezed = bool(cut) and all(_squeezed(p, a, axis) for p, axis in zip(
            cut, np.argmax(np.abs(rel[[i for i in range(len(face.pips)) if i not in idx]]), 1),
            strict=True))
        # ... and more squeezed than the spots kept: a tilted camera sees the top face at a
        # slant too, but the top face is the least foreshortened of a die's faces
        squeezed = squeezed and min(p.elong for p in cut) >= MORE_SQUEEZED * max(
            (face.pips[i].elong for i in idx), default=1.0)
        # a lone pip does not fix a face (a corner pip of a face partly hidden would do),
        # unless what is cut off is plainly side faces' pips
        if len(idx) == 1 and not squeezed:
            continue
        # the spots kept, the top face's, are no more squeezed than those cut off: two grains
        # of a speckled ground, both oval, cut from a rounder one, read as a two 0.77 sure
        # where there is no die (a dev frame, seed 23300269)
        if cut and float(np.median([face.pips[i].elong for i in idx])) > max(p.elong for p in cut):
            continue
        seen.add(idx)
        alt = _cut_reading(face, [face.pips[i] for i in sorted(idx)], cut, axes, hull, sides,
                           smooth, squeezed)
        if alt is not None:
            out.append(alt)
    return out


def _turned(grid_angle: float, face_angle: float) -> bool:
    """Whether a grid of pips is turned against the face's edges by more than SQUARE_TURN
    (a die's layout is square with its edges; two spots of a pattern lie at any angle)."""
    return abs((grid_angle - face_angle + 45) % 90 - 45) > SQUARE_TURN


def _squeezed(p: _Pip, face_angle: float, axis: int) -> bool:
    """Whether a spot is squeezed (a pip of a side face seen at a slant) along the face's
    edge direction `axis` (0: the face's angle, 1: square to it)."""
    if p.elong < SQUEEZED:
        return False
    d = face_angle + axis * math.pi / 2
    return abs((p.minor - d + math.pi / 2) % math.pi - math.pi / 2) < math.radians(25)


def _and(masks: tuple[int, ...]) -> int:
    """The bits set in every mask."""
    out = -1
    for m in masks:
        out &= m
    return out


def _product(lists: list[list]) -> list[tuple]:
    """Every choice of one item from each list."""
    out: list[tuple] = [()]
    for items in lists:
        out = [t + (x,) for t in out for x in items]
    return out


def _cut_reading(face: _Face, spots: list[_Pip], cut: list[_Pip], axes: np.ndarray,
                 hull: np.ndarray, sides: list[tuple[int, int]], smooth: np.ndarray,
                 squeezed: bool = False) -> tuple | None:
    """The reading of `spots` as the top face with `cut` beyond its inner edges, or None."""
    n = len(spots)
    c = np.array([[p.x, p.y] for p in spots]).mean(0)  # the grid's centre (`_fit_grid`'s)
    rc = (np.array([[p.x, p.y] for p in cut]).reshape(-1, 2) - c) @ axes.T
    # which sides the cut spots lie beyond: they must be sides a side face can show on
    cut_sides = set()
    for du, dv in rc:
        ax = 0 if abs(du) >= abs(dv) else 1
        cut_sides.add((ax, 1 if (du, dv)[ax] > 0 else -1))
    if not cut_sides <= set(sides):
        return None
    # the face's outer edges (the region's extremes on the sides not cut) fix its side; a
    # side the region runs on far past is cut too (a side face that shows no pips)
    hr = (hull - c) @ axes.T
    for ax, sg in sides:
        if np.max(sg * hr[:, ax]) > 1.2 * np.max(-sg * hr[:, ax]):
            cut_sides.add((ax, sg))
    ext = [float(np.max(sg * hr[:, ax])) for ax in (0, 1) for sg in (1, -1)
           if (ax, sg) not in cut_sides]
    if not ext or {ax for ax in (0, 1) for sg in (1, -1) if (ax, sg) not in cut_sides} != {0, 1}:
        return None  # one edge of each direction must be seen
    half = float(np.median(ext))
    if half <= 0 or max(abs(e - half) for e in ext) > 0.25 * half:
        return None
    # (the checks above need only the grid's centre; the grid itself is fitted last)
    _, turn, s, res = _fit_grid(spots, n, face.angle, face.side)
    if res > 0.22 or _turned(turn, face.angle):
        return None  # not a layout, or not square with the die's edges
    side = 2 * half
    if n == 1:
        s = 0.3 * side  # a lone pip fixes no spacing (the grid check tries every one)
    if not 0.215 * side <= s <= 0.36 * side:
        return None
    # pips narrower than their spacing (a corner and the centre are not a two's pips)
    r = float(np.median([p.r for p in spots]))
    if r > 0.45 * s:
        return None
    # a diagonal layout (two, three) may be a corner and the centre of a richer face, whose
    # other pips, cut, then lie on the same grid: a cut spot on it is not a side face's
    g = rc / s
    if (n <= 3 and not squeezed
            and np.any((np.max(np.abs(g - np.round(g)), 1) < 0.3) & (np.max(np.abs(g), 1) < 3.3))):
        return None
    # a two may be a corner and the centre of a richer face seen at a slant (its grid
    # foreshortened, so its other pips lie off the two's grid carried on): the face's
    # opposite corner then lies where the two's diagonal runs on, a spacing past a pip (a
    # side face's pips lie beyond an edge, not there: session 14, a five read as a two)
    if n == 2:
        a, b = (np.array([p.x, p.y]) for p in spots)
        cut_at = np.array([[p.x, p.y] for p in cut]).reshape(-1, 2)
        ends = np.stack([2 * a - b, 2 * b - a])
        if len(cut_at) and np.min(np.linalg.norm(cut_at[:, None, :] - ends[None], axis=2)) < (
                DIAGONAL_ON * float(np.linalg.norm(a - b))):
            return None
    # every cut spot beyond the top face's edge (by half a pip at least)
    if np.any(np.max(np.abs(rc), 1) < half + 0.5 * r):
        return None
    alt = _judge_spots(face, spots, smooth, side=side, centred=False)
    if alt[0] is None or alt[1] < CUT_MIN_CONF:
        return None
    return (*alt, side)


def _judge_spots(face: _Face, spots: list[_Pip], smooth: np.ndarray,
                 side: float | None = None, centred: bool = True
                 ) -> tuple[str | None, float, str, tuple, float, float]:
    """_judge for one choice of the face's spots: the top face's side (the region's unless
    given) and whether the pips must be in the middle of the region."""
    n = len(spots)
    side = face.side if side is None else side
    if not 1 <= n <= 6:
        return None, 0.2, f"{n} spots on the face", face.center, face.angle, 0.0
    if n == 1:  # a lone spot must be a pip: round (not a crescent of shade or light in a
        # dimpled pip, not a corner or a crossing of a cloth's pattern)
        _shape(spots[0], smooth)
        if spots[0].elong >= SQUEEZED:
            return None, 0.3, "the one spot is not round", face.center, face.angle, 0.0
    if n == 2:  # a face's pips are seen alike (one paint, one slant): a spot squeezed more
        # than the other by MORE_SQUEEZED is a side face's pip beside a top face's (dev frame
        # 23401101: a one and its side face's pip read as a two 0.70) or two grains of a
        # speckled ground (23400014, a two 0.73 where there is no die); right twos of 80 dev
        # frames: 1.18 times at most
        for p in spots:
            _shape(p, smooth)
        el = sorted(p.elong for p in spots)
        if el[1] >= SQUEEZED and el[1] >= MORE_SQUEEZED * el[0]:
            return None, 0.3, "a two's pips not alike (a side face's pip?)", face.center, \
                face.angle, 0.0
        # nor of two sizes (one mould, one slant): a grain and a speck of a speckled ground
        # beside a die, cut out of a region that ran over the die's edge (dev frame 23402037)
        rs = sorted(p.r for p in spots)
        if rs[1] > TWO_PIPS_SIZE * rs[0]:
            return None, 0.3, "a two's pips of two sizes", face.center, face.angle, 0.0
    centre, angle, s, res = _fit_grid(spots, n, face.angle, side)
    if res > 0.22:
        return None, 0.3, f"{n} spots not in a die's layout", face.center, face.angle, 0.0
    if not 0.17 * side <= s <= 0.42 * side:
        return None, 0.3, "pip spacing does not fit the face", centre, angle, s
    if n >= 2 and _turned(angle, face.angle):  # a die's pips are square with its edges
        return None, 0.3, "the pips are not square with the face's edges", centre, angle, s
    off = math.hypot(centre[0] - face.center[0], centre[1] - face.center[1]) / side
    if centred and off > (MAX_OFF if n <= 3 else 2 * MAX_OFF):  # a sparse layout is checked less
        return None, 0.3, "the pips are not in the middle of the face", centre, angle, s
    if n >= 4 and _anisotropy(spots, n, centre, angle, s) < MIN_ISOTROPY:
        return None, 0.2, "a side face seen at a slant", centre, angle, s
    r = float(np.median([p.r for p in spots]))
    vals = _grid_values(smooth, centre, angle, s, min(r, 0.4 * s))
    # the pips' level as the same sampler sees it, on the layout's own points
    pip_v = float(np.median(vals[_OCC[n - 1, 0] > 0])) if n != 1 else float(vals[4])
    grids = [vals]
    if n == 1:  # one pip does not fix the grid's spacing: every spacing a die may have
        grids += [_grid_values(smooth, centre, angle, f * side, min(r, 0.4 * s))
                  for f in (0.27, 0.32, 0.37)]
    # the body's level where the layout has no pip, as the same sampler sees it (the
    # region's median takes in its rim and bevel, shaded otherwise than the face's middle)
    body = float(np.median(np.concatenate([g[_OCC[n - 1, 0] == 0] for g in grids])))
    span = pip_v - body
    if abs(span) < 0.03 or (span > 0) != face.light:
        return None, 0.2, "pips too faint", centre, angle, s
    ts = [(g - body) / span for g in grids]
    # per count and quarter turn, the worst grid point at every spacing tried; at the
    # spacings a lone pip is checked at besides its own, only the corners (where a three's or
    # a five's pips would be: the counts with a centre pip) and the centre are looked at: the
    # middles of the sides tell no such count from a one, and at the widest spacing they lie
    # on the rounded edge, where a glossy die's light is
    look = np.ones((len(ts), 9))
    look[1:, 1::2] = 0.0  # GRID's odd points are the sides' middles
    worst = np.max(np.abs(np.array(ts)[None, None, :, :] - _OCC[:, :, None, :]) * look,
                   3)  # (6, 4, t)
    errs = {m + 1: float(v) for m, v in enumerate(np.min(np.max(worst, 2), 1))}
    order = sorted(errs, key=errs.get)
    best, second = order[0], order[1]
    err = errs[best]
    if best != n or err > MAX_GRID_ERR:
        return None, 0.3, f"{n} spots found but the face reads as {best} (off by {err:.2f})", \
            centre, angle, s
    if n in (2, 3) and _empty_corner_pip(smooth, centre, angle, s, min(r, 0.4 * s), body,
                                         span) > EMPTY_CORNER_PIP:
        return None, 0.3, f"a pip near a corner a {n} leaves empty (a four or a five?)", \
            centre, angle, s
    conf = 0.5 + 0.5 * min(1.0, (MAX_GRID_ERR - err) / MAX_GRID_ERR + 0.1 * (
        errs[second] - err))
    return str(n), float(min(1.0, conf)), "", centre, angle, s


def _faces_at_level(bgr: np.ndarray, grey: np.ndarray, level: int) -> tuple[list[_Face], np.ndarray]:
    """Faces found at one pyramid level."""
    pips, smooth = _candidates(grey)
    faces: list[_Face] = []
    visited = np.zeros(grey.shape, bool)
    wall_map: list[np.ndarray] = []

    def walls() -> np.ndarray:  # made once a level, when a fill first needs them
        if not wall_map:
            wall_map.append(_wall_map(bgr))
        return wall_map[0]

    reach = 0.6 * max((p.r for p in pips), default=0.0)  # a spot this near a face is on it
    boxes = np.empty((len(pips), 4))  # the faces' bounding boxes, + reach (x0, y0, x1, y1)
    for p in pips:
        pt = (p.x, p.y)
        b = boxes[:len(faces)]
        if any(cv2.pointPolygonTest(faces[i].hull, pt, True) > -0.6 * p.r for i in np.nonzero(
                (b[:, 0] <= p.x) & (p.x <= b[:, 2]) & (b[:, 1] <= p.y) & (p.y <= b[:, 3]))[0]):
            continue
        grown = _grow_face(bgr, smooth, p, visited, walls)
        if grown is None:
            continue
        hull, body, (centre, side, ang, square), colour = grown
        (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
        faces.append(_Face(level, centre, side, ang, hull, body, p.light, [], square, colour,
                           min(rw, rh) / max(rw, rh, 1e-6)))
        lo, hi = hull.reshape(-1, 2).min(0) - reach, hull.reshape(-1, 2).max(0) + reach
        boxes[len(faces) - 1] = (lo[0], lo[1], hi[0], hi[1])
    spots = {light: np.array([[p.x, p.y, p.r, p.centre, p.body] for p in pips
                              if p.light == light]).reshape(-1, 5)
             for light in (False, True)}
    of = {light: [p for p in pips if p.light == light] for light in (False, True)}
    for f, (x0, y0, x1, y1) in zip(faces, boxes[:len(faces)].tolist(), strict=True):
        xyr = spots[f.light]
        inbox = np.nonzero((xyr[:, 0] >= x0) & (xyr[:, 0] <= x1) & (xyr[:, 1] >= y0)
                           & (xyr[:, 1] <= y1))[0]
        for i in inbox:
            p = of[f.light][i]
            if cv2.pointPolygonTest(f.hull, (p.x, p.y), True) > -0.6 * p.r:
                f.pips.append(p)
        near = np.nonzero(np.hypot(xyr[:, 0] - f.center[0], xyr[:, 1] - f.center[1])
                          < 2.5 * f.side)[0]
        f.around, f.around_pips = xyr[near], [of[f.light][i] for i in near]
        f.smooth = smooth
        f.image = bgr
        f.walls = walls
    return faces, smooth


def _in_a_pattern(f: _Face, judged: tuple) -> bool:
    """Whether spots like the face's pips run on past the face, beyond at least three of its
    four edges: a cloth's checks or dots, not a die (beyond a die's edges lie its side faces,
    on two sides at most, and the table). Spots of the pips' polarity and size count when they
    lie on the face's own grid carried on (pip spacings 2 and 3 from its middle); round a lone
    pip, which fixes no grid, any such spot within two sides of it counts. A spot is like the
    pips when its size and its own grey are the pips' and the colour round it is the face's
    body's, within the tolerance the face was grown with (a die on a checked cloth: the
    cloth's spots lie on the cloth's ground, not on the die's body)."""
    _, _, _, centre, angle, s, fside = judged
    xyr = f.around
    if xyr is None or not len(xyr) or not f.pips:
        return False
    r = float(np.median([p.r for p in f.pips]))
    a = math.radians(angle)
    dx, dy = xyr[:, 0] - centre[0], xyr[:, 1] - centre[1]
    u, v = dx * math.cos(a) + dy * math.sin(a), -dx * math.sin(a) + dy * math.cos(a)
    pc = float(np.median([p.centre for p in f.pips]))
    pb = float(np.median([p.body for p in f.pips]))
    tol = 0.25 * abs(pc - pb) + 0.02
    alike = ((xyr[:, 2] > 0.67 * r) & (xyr[:, 2] < 1.5 * r) & (np.abs(xyr[:, 3] - pc) < tol)
             & (np.abs(xyr[:, 4] - pb) < tol))
    if alike.any() and f.image is not None:  # the ground round each spot: the face's body
        k = np.nonzero(alike)[0]
        ring = _sample(f.image, xyr[k, None, 0] + _RING[None, ::2, 0] * RING * xyr[k, None, 2],
                       xyr[k, None, 1] + _RING[None, ::2, 1] * RING * xyr[k, None, 2])
        ground = np.median(ring.astype(np.float32), 1)  # (k, 3)
        body = np.array(f.colour, np.float32)
        alike[k] = np.max(np.abs(ground - body), 1) < _fill_tolerance(body)
    if len(f.pips) == 1 or s <= 0:
        m = np.maximum(np.abs(u), np.abs(v)) / fside
        sel = alike & (m > 0.6) & (m < 2.0)
    else:
        u, v = u / s, v / s
        m = np.maximum(np.abs(u), np.abs(v))
        sel = (alike & (m > 1.75) & (m < 3.25) & (np.abs(u - np.round(u)) < 0.25)
               & (np.abs(v - np.round(v)) < 0.25))
    big_u = np.abs(u[sel]) >= np.abs(v[sel])
    sides = set(zip(big_u.tolist(), np.sign(np.where(big_u, u[sel], v[sel])).tolist(), strict=True))
    return len(sides) >= 3


def _a_part_of_a_face(f: _Face, judged: tuple) -> bool:
    """Whether a lone pip's face is a part of a larger face: a spot like its pip (its
    polarity, size and grey) lies beyond the region, within 2.5 of its sides, and the body's
    colour runs on to it, within the fill's tolerance, with no die's edge between (a rim, a
    bevel, a side face lit otherwise). A die showing one has only its rim, its side faces and
    the table round it; the pips of a die touching it lie past two rims. A spot squeezed
    across the face's edge it lies beyond (and 1.3 times as squeezed as the lone pip) is a
    side face's pip seen at a slant, however its bevel is lit, and does not count."""
    _, _, _, centre, angle, _, fside = judged
    xyr = f.around
    if xyr is None or not len(xyr) or f.image is None or len(f.pips) != 1:
        return False
    p = f.pips[0]
    tol_grey = 0.25 * abs(p.centre - p.body) + 0.02
    d = np.hypot(xyr[:, 0] - centre[0], xyr[:, 1] - centre[1])
    near = np.nonzero((d > 0.6 * fside) & (d < 2.5 * fside) & (xyr[:, 2] > 0.67 * p.r)
                      & (xyr[:, 2] < 1.5 * p.r) & (np.abs(xyr[:, 3] - p.centre) < tol_grey))[0]
    body = np.array(f.colour, np.float32)
    tol = _fill_tolerance(body)
    t = np.linspace(0.0, 1.0, 32)
    for k in near:
        x, y = xyr[k, :2]
        if f.around_pips is not None and f.smooth is not None:
            q = f.around_pips[k]
            _shape(q, f.smooth)
            _shape(p, f.smooth)
            # squeezed across the face's edge it lies beyond (as in `_top_face_cut`)
            towards = math.atan2(y - centre[1], x - centre[0]) - math.radians(angle)
            axis = int(abs(math.sin(towards)) > abs(math.cos(towards)))
            if _squeezed(q, math.radians(angle), axis) and q.elong >= MORE_SQUEEZED * p.elong:
                continue  # a side face's pip seen at a slant past the edge, not the face's
        line = _sample(f.image, centre[0] + t * (x - centre[0]),
                       centre[1] + t * (y - centre[1])).astype(np.float32)
        # the two pips at the ends of the line set aside (the samples nearer their colour
        # than the body's, and two pixels of blurred edge): what lies between them
        pip_like = (np.linalg.norm(line - line[0], axis=1)
                    < np.linalg.norm(line - body, axis=1))
        edge = int(math.ceil(2.0 * 31 / max(1.0, float(np.hypot(x - centre[0], y - centre[1])))))
        lead = int(np.argmin(pip_like)) + edge
        trail = len(t) - int(np.argmin(pip_like[::-1])) - edge
        if trail - lead < 3:
            continue
        if np.max(np.abs(line[lead:trail] - body)) < tol:
            return True
    return False


def _edge_round(f: _Face, judged: tuple, steps: bool = False) -> float:
    """The share of a face's outline where the body's colour ends: a die's face has its
    edge all round (its rim, then its side faces or the table, or the rim's shade on a table
    of the body's own colour), while a patch of a mottled surface (stone, a speckled or
    printed cloth) ends where its colour drifts past the fill's tolerance, here and there.
    An outline point counts when, anywhere from the region's edge to a quarter of a side
    beyond it, the colour differs from the body's by more than the fill's tolerance. (A die
    on a table of nearly its colour shows little of it: white on white paper, blurred.)
    steps: a point counts also where the level's colour steps (`_wall_map`: a die's outline
    all round, where its colour runs on into the table's)."""
    _, _, _, centre, angle, _, fside = judged
    if f.image is None:
        return 1.0
    body = np.array(f.colour, np.float32)
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    t = (np.arange(12) + 0.5) / 12 * 2 - 1  # along a side, -1..1
    u = np.concatenate([t, np.ones(12), -t, -np.ones(12)])
    v = np.concatenate([-np.ones(12), t, np.ones(12), -t])
    step = np.zeros(len(u), bool)
    tol = _fill_tolerance(body)
    for k in (0.95, 1.0, 1.1, 1.2, 1.3):
        half = fside / 0.88 / 2 * k
        xs = centre[0] + half * (u * ca - v * sa)
        ys = centre[1] + half * (u * sa + v * ca)
        vals = _sample(f.image, xs, ys).astype(np.float32)
        step |= np.max(np.abs(vals - body), 1) > tol
        if steps and f.walls is not None:
            step |= _sample(f.walls(), xs, ys) > 0
    return float(step.mean())


def _reading(f: _Face, judged: tuple) -> tuple[float, ObjectReading, _Face]:
    """(confidence, reading in image pixels, the face) of a judged face."""
    label, conf, why, centre, angle, _, fside = judged
    if label is not None:
        edge = _edge_round(f, judged)
        if edge < EDGE_NONE and _edge_round(f, judged, steps=True) < EDGE_ROUND:
            label, conf, why = None, 0.3, "no die's edge round the face (a patch of the table)"
        elif conf < EDGE_SURE and edge < EDGE_ROUND:
            label, conf, why = None, 0.3, "little of a die's edge round the face and its layout not sure"
        elif edge < EDGE_ROUND and fside == f.side and _fill(f.hull) < CORNERS_FILL:
            # however sure: a patch of a speckled ground between its grains is round, a die's
            # face has corners (a two 0.96 sure on a speckled ground where there is no die,
            # its colour ending round 0.35 of its outline, filling 0.80 of its rectangle;
            # dev frame 23401076)
            label, conf, why = None, 0.3, "little of a die's edge round the face and no corners"
    if label is not None and _in_a_pattern(f, judged):
        label, conf, why = None, 0.3, "spots like its pips run on past the face (a pattern)"
    if label == "1" and _a_part_of_a_face(f, judged):
        label, conf, why = None, 0.3, "a pip like its own on its body beyond it (a part of a face)"
    scale = 2 ** f.level
    c = ((centre[0] + 0.5) * scale - 0.5, (centre[1] + 0.5) * scale - 0.5)
    a = math.radians(angle)
    half = fside / 0.88 / 2 * scale
    corners = [[c[0] + half * (u * math.cos(a) - v * math.sin(a)),
                c[1] + half * (u * math.sin(a) + v * math.cos(a))]
               for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return conf, ObjectReading("pips", label, conf, c, corners, angle, fside / 0.88 * scale,
                               why), f


def read_pips(image: np.ndarray, nadir: Nadir | None = None) -> list[ObjectReading]:
    """Every pip die's top face in a BGR frame: label "1".."6", or None when unsure. nadir:
    the camera's nadir when it is known (a calibrated table's, `vision.nadir.Nadir`): a
    die's side faces lie towards it, wherever it is; without it the picture's middle stands
    for it, and a face beside a read face is told from its top face by both cues (`_beside_a_top_face`)."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise BadImage("expected a BGR colour image of 8-bit pixels (as cv2.imread gives)")
    bgr = image
    found: list[tuple[float, ObjectReading]] = []
    # every level's faces read from all their spots first; a face that fails is read again
    # (strays and side faces set aside) only where no level read that face already, surely
    again: list[tuple] = []
    for level in range(LEVELS):
        if level:
            bgr = cv2.pyrDown(bgr)
        if min(bgr.shape[:2]) < MIN_SIDE:
            break
        smooth_bgr = cv2.GaussianBlur(bgr, (3, 3), 0.8) if level == 0 else bgr
        grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        faces, smooth = _faces_at_level(smooth_bgr, grey, level)
        if nadir is None:
            mid = (bgr.shape[1] / 2 - 0.5, bgr.shape[0] / 2 - 0.5)
        else:  # the nadir in this level's pixels
            mid = ((nadir.point[0] + 0.5) / 2 ** level - 0.5, (nadir.point[1] + 0.5) / 2 ** level - 0.5)
        for f in faces:
            first = _judge_first(f, smooth)
            if first[0] is None and 2 <= len(f.pips) <= 16:
                again.append((f, smooth, mid, first))
            else:
                found.append(_reading(f, (*first, f.side)))
    for f, smooth, mid, first in again:
        scale = 2 ** f.level
        cx, cy = (f.center[0] + 0.5) * scale - 0.5, (f.center[1] + 0.5) * scale - 0.5
        if any(rd.label is not None and rd.confidence >= 0.99
               and 0.6 < rd.size_px * 0.88 / (f.side * scale) < 1.6
               and math.hypot(rd.center[0] - cx, rd.center[1] - cy) < 0.3 * rd.size_px
               for _, rd, _ in found):
            continue  # read at another level
        halves = [] if f.square else _split_touching(f, smooth)
        if halves:
            found += [_reading(h, (*judged, h.side)) for h, judged in halves]
        else:
            found.append(_reading(f, _judge_again(f, smooth, mid, first)))
    # the same face at two levels: keep the surer reading, and abstain when another level
    # read it otherwise (a part of the face grown at one level, the whole at another); a face
    # much smaller than another and within it is a part of it, set aside when read less
    # surely than the whole
    found.sort(key=lambda t: -t[0])
    kept: list[ObjectReading] = []
    kept_faces: list[_Face] = []  # the faces of kept
    at = np.empty((len(found), 3))  # centre and size of the kept readings
    for _, rd, face in found:
        d = np.hypot(at[:len(kept), 0] - rd.center[0], at[:len(kept), 1] - rd.center[1])
        size = np.maximum(at[:len(kept), 2], rd.size_px)
        same = next((kept[i] for i in np.nonzero(d <= 0.6 * size)[0]
                     if d[i] <= (0.4 if _alike(rd, kept[i]) else 0.6) * size[i]), None)
        if same is None or (rd.label is not None and rd.size_px * PIP_OF_FACE > same.size_px):
            at[len(kept)] = (rd.center[0], rd.center[1], rd.size_px)
            kept.append(rd)  # (a read face round a smaller one: that one is its pip, below)
            kept_faces.append(face)
        elif (None not in (rd.label, same.label) and rd.label != same.label
              and (_alike(rd, same) or same.size_px < rd.size_px)):
            # a part read surer than the whole it lies in is no reading of the die (a dark
            # die's top face grown only in part at one level, two of its three pips cut out
            # as a two 0.99 sure, the whole read as a three 0.975 at the next); a part read
            # less surely than the whole is the whole's, and is set aside
            same.why = f"read as {same.label} and as {rd.label} at two scales"
            same.label, same.confidence = None, 0.3
    # a face at most a pip's size within a read face is a pip of it (a glossy or dimpled
    # pip, its spot of light or shade taken for a pip), however surely read
    pip = [any(o.label is not None and rd.size_px < PIP_OF_FACE * o.size_px and math.hypot(
        o.center[0] - rd.center[0], o.center[1] - rd.center[1]) < 0.5 * o.size_px for o in kept)
        for rd in kept]
    kept = [rd for rd, p in zip(kept, pip, strict=True) if not p]
    kept_faces = [c for c, p in zip(kept_faces, pip, strict=True) if not p]
    _not_of_the_set(kept)
    view = _View(image.shape[1], image.shape[0], nadir)
    side = _side_faces(kept, view, kept_faces)
    for rd, face in zip(kept, kept_faces, strict=True):
        if rd.label is not None and _top_face_cut_by_frame(image, rd, face.colour, view):
            rd.label, rd.confidence = None, 0.3
            rd.why = "may be the side face of a die the frame cuts"
    _beside_a_top_face(kept, kept_faces, side, view)
    for i, (rd, face) in enumerate(zip(kept, kept_faces, strict=True)):
        if rd.label is not None and i not in side and _pips_beyond(rd, face, kept, view):
            rd.label, rd.confidence = None, 0.3
            rd.why = "pips beyond its edge away from the nadir (a side face, its top face not found?)"
    return [rd for i, rd in enumerate(kept) if i not in side]


def _not_of_the_set(kept: list[ObjectReading]) -> None:
    """Dice of one set: a read face a pip's size beside the read dice near it (within four
    of their sides) is a pip of a die not found, one more than twice their size is not a
    die of the set (a cloth's cell with spots in it); both are abstained on. Each face is
    measured against the readings as they came, not as this leaves them (of a die and a
    grain a fifth of its size beside it, the die set aside first left the grain with no
    read die near it, read as a one 0.55-0.57: dev frames 23401068, 23401073). A face near
    it that is itself so far off the size of the frame's other read faces (those two set
    aside) is not counted: the frame's other dice say which of the two is not of the set;
    with none, neither is read. No size is assumed, only a relative one."""
    read = [rd for rd in kept if rd.label is not None]

    def off(o: ObjectReading, rd: ObjectReading) -> bool:
        others = [q.size_px for q in read if q is not o and q is not rd]
        if not others:
            return False
        m = float(np.median(others))
        return o.size_px < PIP_OF_FACE * m or o.size_px * PIP_OF_FACE > m

    verdicts = []
    for rd in read:
        near = [o.size_px for o in read if o is not rd
                and math.hypot(o.center[0] - rd.center[0], o.center[1] - rd.center[1])
                < 4 * max(o.size_px, rd.size_px) and not off(o, rd)]
        if not near:
            continue
        if rd.size_px < PIP_OF_FACE * float(np.median(near)):
            verdicts.append((rd, "a pip's size beside the dice near it (a pip of a die not found?)"))
        elif rd.size_px * PIP_OF_FACE > float(np.median(near)):
            verdicts.append((rd, "more than twice the size of the dice near it"))
    for rd, why in verdicts:
        rd.label, rd.confidence, rd.why = None, 0.3, why


def _alike(a: ObjectReading, b: ObjectReading) -> bool:
    """Whether two readings are of faces of about one size (not one a part of the other)."""
    return min(a.size_px, b.size_px) >= 0.6 * max(a.size_px, b.size_px)


@dataclass(frozen=True)
class _View:
    """What a frame tells of its camera: the point its dice's side faces lie towards (the
    nadir when known, else the picture's middle standing for it) and how deep a side face
    may be at a point (`depth`)."""

    width: int
    height: int
    nadir: Nadir | None = None
    #: a side face's depth bounded as without the nadir, where the nadir tells only which way
    #: side faces lie (the numeral dice's reader: the bound over the nadir, looser, dropped
    #: touching dice's top faces, 2 of 60 dev frames)
    depth_by_middle: bool = False

    @property
    def ref(self) -> tuple[float, float]:
        """The nadir, or the picture's middle standing for it."""
        return self.nadir.point if self.nadir is not None else (self.width / 2, self.height / 2)

    def depth(self, p: tuple[float, float]) -> float:
        """How deep (in die sides, at most 1) a side face may be at image point p: the tangent
        of the line of sight's angle from the vertical. Without the nadir: the distance from
        the picture's middle over 0.55 of its longer side (a lens as wide as 90 degrees across,
        looking straight down); with it, the angle between the rays through p and through
        the nadir, the focal length the camera's (`Nadir.focal`) or the shortest it may have
        (F_MIN of the longer side, or `Nadir.focal_min` when longer), the principal point
        in the picture's middle."""
        longer = max(self.width, self.height)
        if self.nadir is None or self.depth_by_middle:
            return min(1.0, math.hypot(p[0] - self.width / 2, p[1] - self.height / 2)
                       / (F_MIN * longer))
        return min(1.0, math.tan(self.sight(p)))

    def sight(self, p: tuple[float, float]) -> float:
        """The most the line of sight to image point p may be from the vertical (radians),
        at focal lengths of F_MIN and more (`Nadir.sight_most`), over the nadir's point and
        spread, not a calibrated table's cameras: bounded over those (the d20's way), a side
        face near the frame's edge was taken for a top face (dev 400 with the table's nadir:
        3 confident errors, none over the point). Only with the nadir known."""
        assert self.nadir is not None
        return self.nadir.sight_most(p, (self.width, self.height), F_MIN, over_cameras=False)

    def may_be_side(self, f: _Face, p: tuple[float, float]) -> bool:
        """Whether a face seen at image point p may be a side face, by its shape: a side
        face, upright, is seen squashed along the way to the nadir to at most the sine of
        its line of sight's angle from the vertical (`sight`) of its breadth (a side face
        turned from the nadir is sheared too, and is no square region); a face squarer
        than that by SIDE_SQUARER is a top face. Without the nadir, not told (True)."""
        return self.nadir is None or f.aspect <= math.sin(self.sight(p)) + SIDE_SQUARER

    def nearer(self, a: tuple[float, float], b: tuple[float, float]) -> bool | None:
        """Whether image point a is nearer the nadir than b is, wherever within its spread
        the nadir is (None when that is not told: the two points' bisector passes within
        the spread); without the nadir, nearer the picture's middle."""
        r = self.ref
        da, db = math.hypot(a[0] - r[0], a[1] - r[1]), math.hypot(b[0] - r[0], b[1] - r[1])
        if self.nadir is None:
            return da < db
        ab = math.hypot(b[0] - a[0], b[1] - a[1])
        if ab < 1e-9:
            return None
        # the nadir's distance past the bisector, on a's side
        past = ((r[0] - (a[0] + b[0]) / 2) * (a[0] - b[0]) + (r[1] - (a[1] + b[1]) / 2)
                * (a[1] - b[1])) / ab
        return None if abs(past) <= self.nadir.spread else past > 0



def _side_faces(faces: list, view: _View | tuple[float, float],
                made: list[_Face] | None = None) -> set[int]:
    """Faces that are another die's side face, not a top face.

    A die away from the middle of the picture shows side faces next to its top face, on the
    side towards the middle, as deep as the die's distance from the middle over the lens's
    focal length (up to about a whole side at the edge of a wide lens's picture). Touching
    dice stand at least a side apart, centre to centre; a top face and its own side face are
    closer: half a side plus half that depth. Of two faces that close (the outer one read)
    and of one die's colour (`_one_die_colour`, where the faces `made` are given), the one
    nearer the middle is a side face. (A side face showing four or more pips is also
    told by its squeezed grid, in `_judge`.) `view`: the frame's (`_View`: the nadir's when
    known, see `_View.nearer`), or the picture's middle alone (the numeral dice's reader).
    """
    if not isinstance(view, _View):  # the picture's middle (the numeral dice's reader)
        view = _View(round(2 * view[0]), round(2 * view[1]))
    centre = view.ref
    out: set[int] = set()
    for i, a in enumerate(faces):
        for j, b in enumerate(faces):
            if (b is a or b.label is None or not 0.5 < a.size_px / b.size_px < 1.5
                    or (made is not None and not _one_die_colour(made[i], made[j]))):
                continue
            # the deepest side face a lens as wide as 90 degrees across shows there
            depth = view.depth(b.center)
            near = min(0.97, max(0.8, 0.55 + 0.5 * depth))
            if math.hypot(b.center[0] - a.center[0], b.center[1] - a.center[1]) >= near * b.size_px:
                continue
            if made is not None and not view.may_be_side(made[i], a.center):
                continue  # squarer than a side face there is: touching dice's top faces
            told = view.nearer(a.center, b.center)
            if told or (told is None and math.hypot(a.center[0] - centre[0], a.center[1]
                                                    - centre[1]) < math.hypot(
                    b.center[0] - centre[0], b.center[1] - centre[1])):
                out.add(i)
    return out


def _beside_a_top_face(kept: list[ObjectReading], faces: list[_Face], side: set[int],
                       view: _View) -> None:
    """Abstain on a read face that may be the side face of the die of a face beside it.

    Two faces of one colour closer than touching dice can be (see `_side_faces`) are one
    die's top and side faces. Below a camera that looks straight down the side face is the
    one nearer the picture's middle, but a tilted camera shows side faces towards the point
    below it, which may be anywhere, even outside the picture; the top face is then told by
    being the less foreshortened of the two (a square seen nearly square). As deep as a
    side face may be there (it is not told by the middle), the two faces' centres are closer
    than NEAR of a die's side (touching dice stand a side apart), or NEAR_LIT when the two are
    lit otherwise (LIT_OTHERWISE: touching dice's top faces face the lamp alike). A read face is
    kept only when both agree that it is the top face: the face beside it (read or not) is
    nearer the middle and no squarer than it. With the nadir known (`view`), it is the cue:
    a die's side faces lie towards the nadir from its top face, wherever the nadir is, so a
    read face is kept when the face beside it is the nearer to the nadir, however square
    (wherever within its spread the nadir is: else both cues, as without it). Where the
    nadir does not tell, the lamp and the shapes agreeing keep it too (`_lit_top_face`)."""
    middle = view.ref
    for i, rd in enumerate(kept):
        if rd.label is None or i in side:
            continue
        fa = faces[i]
        dm = math.hypot(rd.center[0] - middle[0], rd.center[1] - middle[1])
        for j, o in enumerate(kept):
            if j == i or j in side or not 0.5 < o.size_px / rd.size_px < 2.0:
                continue
            d = math.hypot(o.center[0] - rd.center[0], o.center[1] - rd.center[1]) / max(
                rd.size_px, o.size_px)
            if d >= NEAR_LIT or (d >= NEAR and _brightness_ratio(fa, faces[j]) < LIT_OTHERWISE):
                continue  # touching dice: their top faces are lit alike
            if not _one_die_colour(fa, faces[j]):
                continue  # another thing's colour (a face's side is lit otherwise, not so much)
            fo = faces[j]
            told = view.nearer(o.center, rd.center)
            if view.nadir is not None and told is not None:
                if not told and view.may_be_side(fa, rd.center):  # the face beside it is
                    rd.label, rd.confidence = None, 0.3
                    # farther from the nadir: its top face
                    rd.why = "a side face of the die beside it (the camera's nadir)"
                    break
                continue
            if _lit_top_face(fa, fo):
                continue  # the face beside it is its side face, wherever the middle is
            nearer = math.hypot(o.center[0] - middle[0], o.center[1] - middle[1]) < dm
            if not nearer or fo.aspect > fa.aspect + 0.1:
                rd.label, rd.confidence = None, 0.3
                rd.why = "may be a side face of the die beside it (a tilted camera)"
                break


def _lit_top_face(top: _Face, other: _Face) -> bool:
    """Whether both the lamp and the shapes tell `top` from the face beside it as the top
    face, wherever the nadir is: a top face faces the lamp over the table, a side face is
    turned from it (LIT_OTHERWISE darker; near black, BLACK, a ratio says nothing), and the
    top face is the less foreshortened (squarer by SIDE_SQUARER: the face beside it is a
    side face seen at a slant, or a region that ran on into more than a face)."""
    lt, lo = sum(top.colour), sum(other.colour)
    return (lt > lo and lt > 3 * BLACK and _brightness_ratio(top, other) >= LIT_OTHERWISE
            and other.aspect < top.aspect - SIDE_SQUARER)


def _one_die_colour(a: _Face, b: _Face) -> bool:
    """Whether two faces may be faces of one die: one hue, and brightness within ONE_DIE_LIT
    times (a side face is lit otherwise than the top face: turned from the lamp, by the
    room's light alone)."""
    # near black, a ratio or a hue of a few grey levels says nothing (a black die's side face
    # at 5 beside its top face at 28; one at (10, 11, 12) beside its top at (20, 15, 14), a
    # dev frame's side face read as a six, seed 23300166): two faces both within BLACK of it
    # may be one die's
    if max(sum(a.colour), sum(b.colour)) <= 3 * BLACK:
        return True
    return (_same_hue(np.array(a.colour), np.array(b.colour))
            and _brightness_ratio(a, b) <= ONE_DIE_LIT)


def _brightness_ratio(a: _Face, b: _Face) -> float:
    """The brighter face's brightness over the other's (BGR sums, above a floor of 3)."""
    la, lb = sum(a.colour) + 3.0, sum(b.colour) + 3.0
    return max(la, lb) / min(la, lb)


def _same_hue(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two BGR colours (0..255) have one hue: their shares of B, G and R within 0.06
    (a face lit otherwise keeps them)."""
    a, b = np.asarray(a, np.float64) + 1.0, np.asarray(b, np.float64) + 1.0
    return bool(np.max(np.abs(a / a.sum() - b / b.sum())) <= 0.06)


def _pips_beyond(rd: ObjectReading, f: _Face, kept: list[ObjectReading], view: _View) -> bool:
    """Whether a read face may be the side face of a die whose top face was not found (a
    white die's top face on white paper, its side face in shade read). A die's side faces
    lie towards the nadir from its top face (`_View`), so a side face's top face lies beyond
    its edge away from the nadir, within a side: when SIDE_TOP_SPOTS spots or more of the
    face's pips' polarity and size, half as strong or more, on ground of the face's hue and
    at least as bright (the top face faces the lamp over the table; the side face read was
    in shade), lie there, and no other read die's face holds them, the face is not read. A
    top face has only the table (or a die touching it) there: its own side faces lie towards
    the nadir. (Without the brightness, five dice of the dev bench were lost, each on a
    speckled or checked ground darker than the die.)"""
    if f.around is None or f.image is None or not f.pips:
        return False
    if view.depth(rd.center) < 0.3:
        return False  # side faces there are too shallow to show pips
    scale = 2 ** f.level
    ref = ((view.ref[0] + 0.5) / scale - 0.5, (view.ref[1] + 0.5) / scale - 0.5)
    ox, oy = f.center[0] - ref[0], f.center[1] - ref[1]
    on = math.hypot(ox, oy)
    if on < 1e-6:
        return False
    ux, uy = ox / on, oy / on
    side = f.side / 0.88  # the die's side (the region stops at its rim)
    r = float(np.median([p.r for p in f.pips]))
    con = float(np.median([abs(p.centre - p.body) for p in f.pips]))
    xyr = f.around
    dx, dy = xyr[:, 0] - f.center[0], xyr[:, 1] - f.center[1]
    along, across = dx * ux + dy * uy, -dx * uy + dy * ux
    sel = np.nonzero((along > 0.5 * side) & (along < 1.5 * side) & (np.abs(across) < 0.5 * side)
                     & (xyr[:, 2] > 0.67 * r) & (xyr[:, 2] < 1.5 * r)
                     & (np.abs(xyr[:, 3] - xyr[:, 4]) > 0.5 * con))[0]
    if not len(sel):
        return False
    ring = _sample(f.image, xyr[sel, None, 0] + _RING[None, :, 0] * GROUND_RING * xyr[sel, None, 2],
                   xyr[sel, None, 1] + _RING[None, :, 1] * GROUND_RING * xyr[sel, None, 2])
    ground = np.median(ring.astype(np.float32), 1)
    n = lit = 0
    for k, g in zip(sel, ground, strict=True):
        if not _same_hue(g, np.array(f.colour)) or float(g.sum()) < sum(f.colour):
            continue  # not the face's hue, or darker: a top face faces the lamp over the table
        at = ((xyr[k, 0] + 0.5) * scale - 0.5, (xyr[k, 1] + 0.5) * scale - 0.5)
        if any(o is not rd and o.label is not None
               and math.hypot(o.center[0] - at[0], o.center[1] - at[1]) < 0.6 * o.size_px
               for o in kept):
            continue  # a pip of another die read
        n += 1
        lit += float(g.sum()) + 3.0 >= LIT_OTHERWISE * (sum(f.colour) + 3.0)
    # one spot is enough on ground lit otherwise (LIT_OTHERWISE brighter: the top face facing
    # the lamp, the face read in shade; touching dice's tops are lit alike): a top face
    # showing a one (dev frame 23400008: a dark blue die's side face read as a two 0.99, its
    # top face, a one twice as bright, found only round its pip)
    return n >= SIDE_TOP_SPOTS or lit > 0


def _top_face_cut_by_frame(image: np.ndarray, rd: ObjectReading,
                           colour: tuple[float, float, float], view: _View) -> bool:
    """Whether a face may be the side face of a die whose top face the frame cuts.

    A side face deep enough to show its pips lies where the die is far from the picture's
    middle (see `_side_faces`); its top face lies beyond it, away from the middle. When the
    frame's edge cuts where that top face would be, and what lies there inside the frame is
    a region of the face's own hue (the same die, lit otherwise) that the frame's edge
    bounds, the face is not read."""
    h, w = image.shape[:2]
    cx, cy = rd.center
    ox, oy = cx - view.ref[0], cy - view.ref[1]
    depth = view.depth(rd.center)
    if depth < 0.3:
        return False  # side faces there are too shallow to show pips
    # the face's edge direction most nearly away from the middle
    a = math.radians(rd.angle_deg)
    axes = [(math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))]
    ex, ey = max(((sg * ux, sg * uy) for ux, uy in axes for sg in (1, -1)),
                 key=lambda e: e[0] * ox + e[1] * oy)
    side = rd.size_px
    # a point of where the top face would be: just past the side face's outer edge
    t = depth / 2 + 0.25
    px, py = int(round(cx + ex * t * side)), int(round(cy + ey * t * side))
    if not (0 <= px < w and 0 <= py < h):
        return True
    # that top face, cut by the frame, is a region of one colour that the frame's edge
    # bounds within a side and a half; the table beyond a top face runs on further
    half = int(1.6 * side)
    x0, y0, x1, y1 = max(0, px - half), max(0, py - half), min(w, px + half), min(h, py + half)
    if x0 > 0 and y0 > 0 and x1 < w and y1 < h:
        return False
    win = np.ascontiguousarray(image[y0:y1, x0:x1])
    seed = win[py - y0, px - x0].astype(np.float32)
    if not _same_hue(seed, np.array(colour, np.float32)):
        return False  # not the face's hue: another thing
    tol = (_fill_tolerance(seed),) * 3
    mask = np.zeros((y1 - y0 + 2, x1 - x0 + 2), np.uint8)
    cv2.floodFill(win, mask, (px - x0, py - y0), 0, tol, tol,
                  4 | cv2.FLOODFILL_FIXED_RANGE | cv2.FLOODFILL_MASK_ONLY | (255 << 8))
    m = mask[1:-1, 1:-1] > 0
    if m.sum() < 0.1 * side * side:
        return False
    edges = [(m[:, 0], x0 == 0), (m[:, -1], x1 == w), (m[0], y0 == 0), (m[-1], y1 == h)]
    if not (all(frame for e, frame in edges if e.any()) and any(e.any() for e, _ in edges)):
        return False
    # as wide as a die along the face's outer edge (a cell of a checked cloth need not be)
    ys, xs = np.nonzero(m)
    along = (xs + x0) * -ey + (ys + y0) * ex
    return bool(0.7 * side <= float(along.max() - along.min()) <= 1.25 * side)
