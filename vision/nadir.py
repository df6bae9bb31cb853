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

A table calibrated by its corner markers knows its nadir without any die (`from_homography`):
the markers' homography fixes the camera's focal length and its tilt, and so the vertical's
vanishing point.
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
    """Where the nadir is (image px, possibly outside the frame), how sure: `spread` (px,
    along the worse direction) is its standard error from `locate`, the most it may be off
    from `from_homography`; from `locate`, `dice` how many dice's lines agree and `lines`
    the indices of the lines that agree (a calibrated table's nadir has none, but may know
    the camera's `focal` length)."""

    point: tuple[float, float]
    spread: float = 0.0
    dice: int = 0
    lines: tuple[int, ...] = ()
    #: the camera's focal length (px) when known with it (`from_homography`), else None
    focal: float | None = None
    #: the shortest focal length (px) the camera can have, when known (`from_homography`)
    focal_min: float | None = None
    #: the cameras allowed, when known (`from_homography`): (principal point x, y, focal
    #: length, the nadir's x, y, how far that nadir may be off), px each; a reader bounds
    #: angles over them rather than over the point, spread and shortest focal length apart
    cameras: tuple[tuple[float, float, float, float, float, float], ...] = ()

    def sight_most(self, p, frame: tuple[int, int], f_min: float,
                   over_cameras: bool = True) -> float:
        """The most the line of sight to image point p can be from the vertical (radians).
        Where the nadir knows the cameras its table allows (`cameras`) and over_cameras,
        over those with a focal length of f_min frame's longer sides and more: for each, the
        angle between the rays through p and through that camera's own nadir (plus its
        error), the principal point the camera's. Else the angle between the rays through p
        and through the nadir anywhere within its spread, at the shortest focal length
        taken (f_min of the longer side, or `focal_min` when longer) or the camera's own
        when known (`focal`), the principal point in the frame's middle."""
        seen = self._sight_per_camera(p, frame, f_min) if over_cameras else None
        if seen is not None:
            return float((seen[0] + seen[1]).max())
        w, h = frame
        f = self.focal or max(f_min * max(w, h), self.focal_min or 0.0)
        ray_p = np.array([p[0] - w / 2, p[1] - h / 2, f])
        ray_p /= np.linalg.norm(ray_p)
        most = 0.0
        for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            ray_n = np.array([self.point[0] + dx * self.spread - w / 2,
                              self.point[1] + dy * self.spread - h / 2, f])
            ray_n /= np.linalg.norm(ray_n)
            most = max(most, math.acos(float(np.clip(ray_p @ ray_n, -1, 1))))
        return most

    def sight_least(self, p, frame: tuple[int, int], f_min: float) -> float:
        """The least the line of sight to image point p can be from the vertical (radians):
        over the cameras a calibrated table allows (`cameras`, as `sight_most`), less each
        one's nadir's error; 0 where they are not known (a focal length unbounded above
        sees every point along the vertical)."""
        seen = self._sight_per_camera(p, frame, f_min)
        if seen is None:
            return 0.0
        return float(max(0.0, (seen[0] - seen[1]).min()))

    def _sight_per_camera(self, p, frame: tuple[int, int], f_min: float
                          ) -> tuple[np.ndarray, np.ndarray] | None:
        """For each camera allowed (`cameras`) with a focal length of f_min frame's longer
        sides and more: the angle (radians) between the rays through image point p and
        through that camera's own nadir (the principal point its own), and the angle its
        nadir's error makes there; None where no cameras are known."""
        cams = np.asarray(self.cameras, float).reshape(-1, 6)
        cams = cams[cams[:, 2] >= f_min * max(frame)]
        if not len(cams):
            return None
        pp, f, q, err = cams[:, :2], cams[:, 2:3], cams[:, 3:5], cams[:, 5]
        ray_p = np.hstack([np.asarray(p, float) - pp, f])
        ray_n = np.hstack([q - pp, f])
        cos = (ray_p * ray_n).sum(1) / (np.linalg.norm(ray_p, axis=1)
                                         * np.linalg.norm(ray_n, axis=1))
        return np.arccos(np.clip(cos, -1, 1)), np.arctan2(err, f[:, 0])


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


NOISE_PX = 0.5  # how far off a marker's centre is found (px): the homography's own error
F_RANGE = (0.3, 3.0)  # the focal lengths a camera over a table may have, in the frame's
#                       longer sides (about 118 down to 19 degrees across)
PP_SHARE = 0.03  # the principal point within this share of the frame's width and height of
#                  its centre (a camera module's lens off its sensor's middle; a cropped
#                  frame's may be farther: pass pp_share)
PP_STEPS = 11  # principal points tried across that box, each way
F_FIXED = 0.1  # `focal` is given when the focal lengths allowed are within this share of it
CHI2 = 13.8  # a camera is allowed while the two equations miss by at most this chi^2
#              (two degrees of freedom, 99.9%)
CAMERA_STEPS = 5  # focal lengths kept per principal point in `Nadir.cameras`, ends included
FAR_TILT = 80.0  # degrees: a camera tipped this far sees the table edge on


def from_homography(geometry, frame_size: tuple[int, int], noise_px: float = NOISE_PX,
                    pp_share: float = PP_SHARE) -> Nadir | None:
    """The nadir of a calibrated table's camera: `geometry` is a `vision.geometry.
    TableGeometry` (or its H alone: image px -> table mm), `frame_size` (width, height) the
    frame's it was measured in.

    Assumed: square pixels, no skew, no lens distortion, a focal length within F_RANGE and
    the principal point within `pp_share` of the frame's width and height of its centre. For
    a principal point (cx, cy), the table-to-image map H^-1 is K [r1 r2 t] up to scale,
    K = [[f, 0, cx], [0, f, cy], [0, 0, 1]]: its columns K^-1 h1, K^-1 h2 are orthogonal
    and of equal norm, two equations linear in 1 / f^2. The nadir, K r3 with r3 = r1 x r2,
    is the pole of the table's horizon h1 x h2 under K K^T: (cx, cy) + f^2 (l1, l2) / l3
    for the horizon (l1, l2, l3) in px from (cx, cy). So its direction from the principal
    point is known without f, and its distance (f tan tilt) grows with f^2: a camera looking
    nearly straight down does not fix f (the two equations tend to 0 = 0), but its nadir is
    then near the principal point.

    The markers' centres are taken as found `noise_px` off (the table's four corners, or for
    a bare H the table seen at the frame's corners, moved one coordinate at a time). Every
    camera (principal point on a PP_STEPS grid over its box, focal length in F_RANGE) whose
    two equations miss by no more than that noise explains (CHI2) is allowed; `point` is the
    middle of the nadirs they give, `spread` (px) how far the farthest lies from it (the
    horizon's own error, three standard errors, and half a grid step of the principal point
    added), `focal` f (px) when the focal lengths allowed are within F_FIXED of it, else
    None, `focal_min` the shortest allowed. None when no camera is allowed (no pinhole
    camera's view of a flat table);
    ValueError for a homography that is no camera's view of a table (not finite, singular,
    edge on)."""
    size = getattr(geometry, "size_mm", None)
    h_px_mm = np.asarray(getattr(geometry, "H", geometry), float)
    if h_px_mm.shape != (3, 3) or not np.all(np.isfinite(h_px_mm)):
        raise ValueError("a table's homography is a finite 3x3 matrix (image px -> table mm)")
    w_px, h_px = (int(v) for v in frame_size)
    if w_px <= 0 or h_px <= 0:
        raise ValueError(f"frame size {frame_size}: expected a positive width and height")
    if abs(np.linalg.det(h_px_mm / np.abs(h_px_mm).max())) < 1e-12:
        raise ValueError("the table's homography is singular: no camera's view of a table")
    scale = float(max(w_px, h_px))
    # the four points measured: the table's corners, else the table seen at the frame's corners
    if size is not None:
        table = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], float)
    else:
        table = _apply(h_px_mm, np.array([[0, 0], [w_px, 0], [w_px, h_px], [0, h_px]], float))
    seen = _apply(np.linalg.inv(h_px_mm), table)
    f_all = np.geomspace(*F_RANGE, 400)
    w_all = f_all ** -2
    steps = np.linspace(-pp_share, pp_share, PP_STEPS) if pp_share > 0 else np.zeros(1)
    nadirs, radii, focals, cameras = [], [], [], []
    half = np.array([w_px, h_px]) * (steps[1] - steps[0] if len(steps) > 1 else 0.0) / 2
    for sx in steps:
        for sy in steps:
            pp = np.array([w_px * (0.5 + sx), h_px * (0.5 + sy)])
            base = _equations(seen, table, pp, scale)
            jac = np.zeros((6, 8))  # d(equations' terms, horizon) / d(a marker's coordinate)
            for i in range(8):
                moved = seen.copy()
                moved[i // 2, i % 2] += noise_px
                jac[:, i] = (_equations(moved, table, pp, scale) - base) / noise_px
            # and by the principal point anywhere in its grid cell (half a step either way)
            jac_pp = np.zeros((6, 2))
            for i in range(2):
                if half[i] > 0:
                    moved_pp = pp.copy()
                    moved_pp[i] += half[i]
                    jac_pp[:, i] = _equations(seen, table, moved_pp, scale) - base
            c1, d1, c2, d2, l1, l2 = base
            # the misses c w + d of every focal length, weighed by their covariance
            miss = np.stack([c1 * w_all + d1, c2 * w_all + d2], 1)
            j = np.concatenate([
                np.stack([w_all[:, None] * jac[0] + jac[1], w_all[:, None] * jac[2] + jac[3]],
                         1) * noise_px,
                np.stack([w_all[:, None] * jac_pp[0] + jac_pp[1],
                          w_all[:, None] * jac_pp[2] + jac_pp[3]], 1)], 2)
            cov = j @ j.transpose(0, 2, 1) + np.eye(2) * 1e-24
            chi2 = np.einsum("ni,ni->n", miss, np.linalg.solve(cov, miss[:, :, None])[:, :, 0])
            ok = np.nonzero(chi2 <= CHI2)[0]
            if len(ok) == 0:
                continue
            # out to the next focal lengths tried, not allowed: the range lies within
            near = f_all[max(ok[0] - 1, 0)]
            far = f_all[min(ok[-1] + 1, len(f_all) - 1)]
            v = np.array([l1, l2])
            if math.degrees(math.atan(float(np.hypot(*v)) * near)) > FAR_TILT:
                raise ValueError(f"the table's homography shows it more than {FAR_TILT:.0f} "
                                 "degrees from the camera's axis: edge on")
            sd_v = math.sqrt(max(float(np.linalg.eigvalsh(jac[4:] @ jac[4:].T).max()), 0.0))
            for f in (near, far):
                nadirs.append(pp + scale * v * f ** 2)
                radii.append(scale * 3 * sd_v * noise_px * f ** 2)
            focals += [near, far]
            # the cameras of this principal point: focal lengths across its range, each with
            # its own nadir (they move together: the nadir's distance grows with f^2), off by
            # the horizon's error and the principal point's half grid step
            for f in np.geomspace(near, far, CAMERA_STEPS):
                q = pp + scale * v * f ** 2
                cameras.append((float(pp[0]), float(pp[1]), float(scale * f), float(q[0]),
                                float(q[1]), float(scale * 3 * sd_v * noise_px * f ** 2
                                                   + np.hypot(*half))))
    if not nadirs:
        return None
    pts = np.array(nadirs)
    point = (pts.min(0) + pts.max(0)) / 2
    spread = float(max(np.hypot(*(p - point)) + r for p, r in zip(pts, radii, strict=True))
                   + np.hypot(*half))
    f_lo, f_hi = min(focals), max(focals)
    f_mid = (f_lo + f_hi) / 2
    return Nadir((float(point[0]), float(point[1])), spread,
                 focal=scale * f_mid if f_hi - f_lo <= 2 * F_FIXED * f_mid else None,
                 focal_min=scale * f_lo, cameras=tuple(cameras))


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (N, 2) through the 3x3 projective map m."""
    q = np.c_[pts, np.ones(len(pts))] @ m.T
    if np.any(np.abs(q[:, 2]) < 1e-12):
        raise ValueError("the table's homography sends a point to infinity: no camera's view")
    return q[:, :2] / q[:, 2:3]


def _four_point_map(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The 3x3 projective map taking four points src (4, 2) to dst, in float64: not
    `cv2.getPerspectiveTransform`, which takes float32 points, too coarse for the 0.5 px
    finite differences of `from_homography` (38 of the 54 nadir tests fail with it)."""
    a, rhs = np.zeros((8, 8)), np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(src, dst, strict=True)):
        a[2 * i] = (x, y, 1, 0, 0, 0, -u * x, -u * y)
        a[2 * i + 1] = (0, 0, 0, x, y, 1, -v * x, -v * y)
        rhs[2 * i], rhs[2 * i + 1] = u, v
    try:
        return np.append(np.linalg.solve(a, rhs), 1.0).reshape(3, 3)
    except np.linalg.LinAlgError:
        raise ValueError("the table's four points are degenerate (three in a line)") from None


def _equations(seen: np.ndarray, table: np.ndarray, centre: np.ndarray, scale: float
               ) -> np.ndarray:
    """(c1, d1, c2, d2, l1, l2): the two equations c w + d = 0 in w = 1 / f^2 (f in `scale`
    units) that the table-to-image map through four points must meet, and its horizon's
    (l1, l2) / l3; image px taken from `centre` in `scale` units."""
    m = _four_point_map(table, (seen - centre) / scale)
    m = m / np.linalg.norm(m[:, :2])
    a, b = m[:, 0], m[:, 1]
    # (K^-1 a).(K^-1 b) = 0 and |K^-1 a|^2 = |K^-1 b|^2, with K^-1 = diag(1/f, 1/f, 1)
    horizon = np.cross(a, b)
    if abs(horizon[2]) < 1e-12:
        raise ValueError("the table's horizon passes through the picture's centre: the table "
                         "is seen edge on")
    return np.array([a[0] * b[0] + a[1] * b[1], a[2] * b[2],
                     a[0] ** 2 + a[1] ** 2 - b[0] ** 2 - b[1] ** 2, a[2] ** 2 - b[2] ** 2,
                     horizon[0] / horizon[2], horizon[1] / horizon[2]])
