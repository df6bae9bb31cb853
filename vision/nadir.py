"""The camera's nadir in one picture: the image point straight below the camera.

Every vertical line on the table (a die's upright edge, the line from a resting die's top
face down through its middle) is imaged as a line through the nadir: the nadir is the
vanishing point of the vertical. Under a camera looking straight down it is the principal
point (near the picture's middle); under a tilted camera it is far from the middle, often
outside the frame (f * tan(tilt) from the principal point). Readers that need to know which
of a die's faces is the top (the face whose normal is the vertical) need it, and a die alone
does not show it: a die seen along one direction looks the same whichever face is on top.

This module knows no die: a reader gives it lines (`Line`), each the image of a vertical
through one die (`segment` for an upright edge seen whole, `toward` for a point known to lie
below another on one vertical, or a `Line` of its own), grouped by die, and `locate`
intersects them robustly. With fewer than two dice agreeing, or lines too near parallel to
meet within `MAX_SPREAD` of their distance, the nadir is unknown (None): the caller then
abstains rather than guesses. Short lines carry their direction loosely (a line's angular
uncertainty is its endpoints' noise over its length): a camera straight down shows only
short ones near its nadir, and they count for little.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

MIN_SIGMA = math.radians(1.0)  # no line's direction is trusted closer than this
INLIER = 3.0  # a line agrees with a point when it misses it by at most this many sigmas
MIN_CROSS = math.radians(3.0)  # two lines meeting at less than this do not fix a point
MAX_SPREAD = 0.5  # the point's standard error over its mean distance from the dice: beyond,
#                   the lines are too near parallel for the point to mean anything


@dataclass(frozen=True)
class Line:
    """The image of one vertical through a die: through `point`, along the unit `direction`
    (towards the nadir when `signed`; either way when not), its direction known within
    `sigma` radians; `group`: the die it comes from (lines of one die are nearly parallel
    and count as one die's evidence)."""

    point: tuple[float, float]
    direction: tuple[float, float]
    signed: bool
    sigma: float
    group: int


@dataclass(frozen=True)
class Nadir:
    """Where the nadir is (image px, possibly outside the frame), how sure: `spread` is its
    standard error (px, along the worse direction); from `locate`, `dice` how many dice's
    lines agree and `lines` the indices of the lines that agree (a nadir known otherwise, a
    calibrated table's, has none)."""

    point: tuple[float, float]
    spread: float = 0.0
    dice: int = 0
    lines: tuple[int, ...] = ()


def segment(p0, p1, group: int, noise_px: float = 1.0) -> Line:
    """An upright edge seen from p0 to p1 (its ends to within noise_px): which end is the
    lower is not told, so the line is unsigned."""
    return _through(p0, p1, False, group, noise_px, "an edge's two ends are the same point")


def toward(upper, lower, group: int, noise_px: float = 1.0) -> Line:
    """From a point to one below it on the same vertical (a resting die's top face's centre
    to its body's middle: its silhouette reaches from the top face towards the nadir): the
    nadir lies beyond `lower`, seen from `upper`."""
    return _through(upper, lower, True, group, noise_px,
                    "the two points are the same: no direction")


def _through(p0, p1, signed: bool, group: int, noise_px: float, same: str) -> Line:
    """The line from p0 through p1 (`same`: the error when they coincide)."""
    a, b = np.asarray(p0, float), np.asarray(p1, float)
    d = b - a
    n = float(np.hypot(*d))
    if n < 1e-9:
        raise ValueError(same)
    return Line((float(a[0]), float(a[1])), (float(d[0] / n), float(d[1] / n)), signed,
                _sigma(n, noise_px), group)


def _sigma(length: float, noise_px: float) -> float:
    """A line's angular uncertainty from its ends' noise over its length."""
    return max(MIN_SIGMA, math.atan2(math.sqrt(2) * noise_px, length))


def _residuals(lines: list[Line], q: np.ndarray) -> np.ndarray:
    """Each line's miss of point q, in its own sigmas (inf where a signed line points away)."""
    out = np.empty(len(lines))
    for i, ln in enumerate(lines):
        v = q - np.asarray(ln.point)
        r = float(np.hypot(*v))
        if r < 1e-9:
            out[i] = 0.0
            continue
        d = np.asarray(ln.direction)
        cos = float(v @ d) / r
        if ln.signed and cos <= 0:
            out[i] = np.inf
            continue
        out[i] = math.acos(min(1.0, abs(cos))) / ln.sigma
    return out


def _meet(a: Line, b: Line) -> np.ndarray | None:
    """Where two lines meet (None when near parallel, or behind a signed line)."""
    da, db = np.asarray(a.direction), np.asarray(b.direction)
    cross = float(da[0] * db[1] - da[1] * db[0])
    if abs(cross) < math.sin(MIN_CROSS):
        return None
    pa, pb = np.asarray(a.point), np.asarray(b.point)
    t = float((pb - pa)[0] * db[1] - (pb - pa)[1] * db[0]) / cross
    q = pa + t * da
    if (a.signed and t <= 0) or (b.signed and float((q - pb) @ db) <= 0):
        return None
    return q


def _refine(lines: list[Line], q: np.ndarray, use: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(point, 2x2 information) minimising the used lines' angular misses (in their sigmas):
    each line's perpendicular miss over its distance from the point, a few reweighted steps."""
    info = np.eye(2)
    for _ in range(6):
        a_m, b_v = np.zeros((2, 2)), np.zeros(2)
        for ln, u in zip(lines, use, strict=True):
            if not u:
                continue
            p, d = np.asarray(ln.point), np.asarray(ln.direction)
            n = np.array([-d[1], d[0]])
            r = max(float(np.hypot(*(q - p))), 1.0)
            w = 1.0 / (r * ln.sigma) ** 2
            a_m += w * np.outer(n, n)
            b_v += w * n * float(n @ p)
        info = a_m
        if np.linalg.cond(a_m) > 1e12:
            break
        q = np.linalg.solve(a_m, b_v)
    return q, info


def locate(lines: list[Line]) -> Nadir | None:
    """The point where the lines of at least two dice meet, robustly: every two lines of
    different dice meet at a candidate; the candidate the most dice's lines agree with
    (within INLIER sigmas; fewest misses on a tie) is refined by least squares of the
    agreeing lines' angular misses. None when fewer than two dice agree or the point is not
    fixed within MAX_SPREAD of the dice's distance from it."""
    if len({ln.group for ln in lines}) < 2:
        return None
    best, best_key = None, None
    for a, b in itertools.combinations(lines, 2):
        if a.group == b.group:
            continue
        q = _meet(a, b)
        if q is None:
            continue
        res = _residuals(lines, q)
        ok = res <= INLIER
        dice = len({ln.group for ln, u in zip(lines, ok, strict=True) if u})
        key = (dice, int(ok.sum()), -float(np.minimum(res, INLIER).sum()))
        if best_key is None or key > best_key:
            best, best_key = q, key
    if best is None or best_key[0] < 2:
        return None
    q = best
    for _ in range(2):  # refit, then take again the lines that agree with the refined point
        use = _residuals(lines, q) <= INLIER
        if len({ln.group for ln, u in zip(lines, use, strict=True) if u}) < 2:
            return None
        q, info = _refine(lines, q, use)
    use = _residuals(lines, q) <= INLIER
    groups = {ln.group for ln, u in zip(lines, use, strict=True) if u}
    if len(groups) < 2:
        return None
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        return None
    spread = math.sqrt(max(float(np.linalg.eigvalsh(cov).max()), 0.0))
    dist = float(np.mean([np.hypot(*(q - np.asarray(ln.point)))
                          for ln, u in zip(lines, use, strict=True) if u]))
    if not math.isfinite(spread) or spread > MAX_SPREAD * max(dist, 1.0):
        return None
    return Nadir((float(q[0]), float(q[1])), spread, len(groups),
                 tuple(int(i) for i in np.nonzero(use)[0]))
