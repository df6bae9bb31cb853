"""Finding dice on the felt: felt mask, blobs, touching dice split, precise top-face fit.

The felt is told apart by chromaticity (colour divided by brightness), so shadows, which
only darken the felt, stay felt. Every non-felt blob inside the felt is a die, several
touching dice, or an obstruction (a hand, a marker). A die's blob holds its top face plus the
side faces that show towards the image's nadir; the top face is the square of the learned
size at the blob's far side from the nadir, on the die's own axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.geometry import Lens

DETECT_SCALE = 4  # blobs are found on a frame shrunk this much; faces are fitted at full size
PATCH = 48  # side of the rectified top face, px
ROI_BLUR = 1.0  # blur before classifying full-resolution pixels
# the least share of a frame the felt fills (a camera that also sees the rail, a hand over
# the felt): the felt's colour noise is judged on that share
FELT_SHARE = 0.4
ON_FELT_SHARE = 0.85  # of a face's area inside the felt: a die at the edge is still on it
MIN_THICKNESS = 0.6  # of a face's side: a thinner object on the felt is not a die
LEVEL_CELLS = 24  # the felt's local brightness is measured on a grid this many cells wide
BRIGHTER, BRIGHTER_PLUS = 1.6, 15.0  # brighter than this times the local felt, plus this: not felt
#: robust z-score (median / MAD of the felt's brightness relative to the felt round it, on
#: the frame shrunk DETECT_SCALE times) above which a pixel is brighter than the felt's own
#: texture and noise allow: part of an object, whatever its colour. On a neutral felt a pale
#: sticker shares the felt's chromaticity and stands out only by brightness; shrunk, its ink
#: mixes with it to 1.2-1.6 times the felt, under BRIGHTER. Measured on the captures of dev
#: tables 0, 3, 6, 16 and 29 of the wide world: the felt's spread 0.03-0.045 (grey felt),
#: 0.04-0.09 (black, dim); its 99.9th percentile 1.09-1.10 on grey felt
BRIGHT_Z = 6.0
#: of a face's side: an object the felt's colour alone finds this thick (holes filled) is
#: whole, and what only brightness finds does not join it (see _objects). The strokes of a
#: dark die's sticker on grey felt (dev table 29's captures, searched with the 24 px guess
#: of calibration) are at most 0.64 of that guess thick (1.9 small px from their middle to
#: their edge); a coloured die, top and sides, 1 or more
WHOLE_THICKNESS = 0.8
#: of a face's side: two top faces a blob was cut into whose centres lie closer than this
#: overlap, so the blob is one die's, larger than a die's (side faces a lens shows wider
#: than the camera's fit says), not touching dice (see touching_faces). Touching dice lie a
#: side apart or more (0.97-1.0 of the fitted side, squeezed by a lens alike); dev table 6
#: of the wide world (off-centre lens k 0.12, fitted without one) cut one die near the
#: frame's edge into two faces 0.55 of a side apart
TOUCH_APART = 0.75


@dataclass
class FeltModel:
    """The felt's chromaticity as a 2D Gaussian (opponent colours over brightness)."""

    mean: np.ndarray  # (2,)
    icov: np.ndarray  # (2, 2)
    max_d2: float = 20.0
    dark_fraction: float = 0.3  # below this share of the felt's brightness: not sure, not felt

    def to_json(self) -> dict:
        """A JSON-able form for the profile manifest."""
        return {"mean": self.mean.tolist(), "icov": self.icov.tolist(), "max_d2": self.max_d2,
                "dark_fraction": self.dark_fraction}

    @classmethod
    def from_json(cls, d: dict) -> FeltModel:
        """Read back what to_json wrote."""
        return cls(np.array(d["mean"], float), np.array(d["icov"], float), float(d["max_d2"]),
                   float(d["dark_fraction"]))


def chroma(img: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Brightness and two opponent chromaticities (shadow-invariant) of a BGR image."""
    f = img.astype(np.float32)
    b, g, r = f[:, :, 0], f[:, :, 1], f[:, :, 2]
    inten = (b + g + r) * (1 / 3) + 1.0
    o1 = (r - g) / inten
    o2 = (r + g - 2 * b) / inten
    return inten, o1, o2


def learn_felt(images: list[np.ndarray], seed: int = 0) -> FeltModel:
    """Learn the felt's colour from frames that are mostly felt (captures or empty frames)."""
    rng = np.random.default_rng(seed)
    samples, middle = [], []
    for img in images:
        # full-resolution pixels (blurred as the detector blurs): the model holds their noise
        h, w = img.shape[:2]
        ys = rng.integers(2, h - 2, 3000)
        xs = rng.integers(2, w - 2, 3000)
        blurred = cv2.GaussianBlur(img, (0, 0), ROI_BLUR)
        samples.append(blurred[ys, xs][None])
        middle.append((np.abs(ys - h / 2) < 0.25 * h) & (np.abs(xs - w / 2) < 0.25 * w))
    _, o1, o2 = chroma(np.concatenate(samples, 1))
    x = np.stack([o1.ravel(), o2.ravel()], 1).astype(np.float64)
    # the camera looks at the felt, so the middle of the frame is felt whatever else the
    # frame shows (the wood round the felt may fill as much of it as the felt does)
    centre = np.median(x[np.concatenate(middle)], 0)
    radius = 0.5
    for _ in range(6):  # the felt is the dominant cluster: trim to it, re-estimate
        d = np.linalg.norm(x - centre, axis=1)
        near = x[d < radius]
        centre = near.mean(0)
        radius = max(0.1, 4 * float(np.sqrt(np.linalg.eigvalsh(np.cov(near.T)).max())))
    cov = np.cov(near.T) + np.eye(2) * 1e-4
    return FeltModel(centre, np.linalg.inv(cov))


def _felt_distance(img: np.ndarray, felt: FeltModel
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Brightness and squared Mahalanobis distance of each pixel's chroma from the felt's."""
    inten, o1, o2 = chroma(img)
    return inten, _mahalanobis(o1, o2, felt.mean.astype(np.float32), felt.icov.astype(np.float32))


def _mahalanobis(o1: np.ndarray, o2: np.ndarray, mean: np.ndarray, icov: np.ndarray
                 ) -> np.ndarray:
    """Squared Mahalanobis distance of chromaticities (o1, o2) from `mean` (in their dtype)."""
    d1 = o1 - mean[0]
    d2 = o2 - mean[1]
    return icov[0, 0] * d1 * d1 + 2 * icov[0, 1] * d1 * d2 + icov[1, 1] * d2 * d2


#: squared Mahalanobis radii of the trimmed medians that find a frame's felt colour
RECENTRE_RADII = (16.0, 9.0, 6.0)


def frame_felt(img: np.ndarray, felt: FeltModel, felt_share: float = FELT_SHARE) -> FeltModel:
    """The felt's colour as this frame shows it: the calibrated model moved to the frame's felt.

    Each frame draws its own lamp (warm or cool) and white balance drifts, so a grey felt's
    chromaticity moves by a good part of the spread the calibration captures showed between
    them. Judged against the captures' mean, every pixel of such a frame looks far off and
    the distance scale widens (felt_noise) until dice pass for felt. The felt fills at least
    `felt_share` of the frame and its colour lies within the calibrated spread, so trimmed
    medians of the pixels near the calibrated colour (RECENTRE_RADII) find where it lies
    now; the calibrated covariance is kept.
    """
    _, o1, o2 = chroma(img[::2, ::2] if img.shape[0] * img.shape[1] > 40_000 else img)
    o1, o2 = o1.ravel().astype(np.float64), o2.ravel().astype(np.float64)
    centre = np.asarray(felt.mean, np.float64)
    for r2 in RECENTRE_RADII:
        near = _mahalanobis(o1, o2, centre, np.asarray(felt.icov, np.float64)) < r2
        if near.sum() < 0.5 * felt_share * len(o1):
            break
        centre = np.array([np.median(o1[near]), np.median(o2[near])])
    return FeltModel(centre, felt.icov, felt.max_d2, felt.dark_fraction)


def felt_noise(maha: np.ndarray, felt_share: float) -> float:
    """How much noisier than at calibration the felt's colour is (1 = as calibrated).

    `felt_share` is a lower bound on how much of the image is felt: the distances at a
    quantile inside that share are compared with the chi-square (2 dof) quantile.
    """
    q = 0.6 * felt_share
    expected = -2.0 * math.log(1.0 - q)
    if maha.size > 40_000:  # a quantile needs no more than every fourth pixel of a frame
        maha = maha[::2, ::2]
    return max(1.0, float(np.percentile(maha, 100 * q)) / expected)


def local_level(inten: np.ndarray, felt_like: np.ndarray) -> np.ndarray:
    """The felt's brightness round each pixel (float32 map, the image's shape).

    Vignetting, a lamp to one side and a dim corner make the felt darker in places; a pixel is
    judged against the felt near it, not the frame's median. The felt-like pixels' brightness
    is averaged over about a tenth of the frame (normalised convolution on a coarse grid);
    where there is little felt near, the frame's median stands in.
    """
    h, w = inten.shape
    glob = float(np.median(inten[felt_like])) if felt_like.any() else 128.0
    cw, ch = max(4, w // LEVEL_CELLS), max(3, h // LEVEL_CELLS)
    wgt = felt_like.astype(np.float32)
    num = cv2.resize(inten * wgt, (cw, ch), interpolation=cv2.INTER_AREA)
    den = cv2.resize(wgt, (cw, ch), interpolation=cv2.INTER_AREA)
    num = cv2.GaussianBlur(num, (0, 0), 1.2)
    den = cv2.GaussianBlur(den, (0, 0), 1.2)
    lev = (num + np.float32(0.05 * glob)) / (den + np.float32(0.05))  # little felt: the median
    return cv2.resize(lev, (w, h), interpolation=cv2.INTER_LINEAR)


def felt_mask(img: np.ndarray, felt: FeltModel, felt_level: float | np.ndarray | None = None,
              felt_share: float = 0.5, max_widen: float = 1e9,
              distance: tuple[np.ndarray, np.ndarray, float] | None = None
              ) -> tuple[np.ndarray, float | np.ndarray]:
    """Boolean mask of felt pixels and the felt's brightness (a map when not given).

    When the felt's colour is noisier than at calibration (a dim lamp, a raised gain) the
    distance scale widens to match, by at most `max_widen`. Without `felt_level` the felt's
    brightness is measured round each pixel (see local_level). `distance`: the image's
    (brightness, distance, felt_noise at felt_share) when measured already (_felt_distance).
    """
    inten, maha, noise = distance if distance is not None else (
        *_felt_distance(img, felt), None)
    if noise is None:
        noise = felt_noise(maha, felt_share)
    maha = maha * np.float32(1.0 / min(max_widen, noise))
    if felt_level is None:
        felt_level = local_level(inten, maha < felt.max_d2)
    # chroma noise grows as the felt darkens (shadows): relax the distance there, but only
    # so far, so a dark neutral die body never passes for felt
    rel = np.clip(inten / np.float32(felt_level), 0.45, 1.0)
    like = maha * (rel * rel) < felt.max_d2
    # a dark felt's colour is noisy, so a pale die can share it: far brighter than the felt
    # round it is not felt either
    bright = inten > np.float32(BRIGHTER) * felt_level + np.float32(BRIGHTER_PLUS)
    return like & (inten > felt.dark_fraction * felt_level) & ~bright, felt_level


def above_felt_noise(img: np.ndarray, fm: np.ndarray, level: float | np.ndarray) -> np.ndarray:
    """Pixels brighter than the felt round them by more than the felt's own spread allows
    (BRIGHT_Z robust z-scores of the felt pixels' brightness relative to that level; `fm`:
    the felt mask, `level`: the felt's brightness, see felt_mask)."""
    f = img.astype(np.float32)
    rel = (cv2.transform(f, np.full((1, 3), 1 / 3, np.float32)) + np.float32(1.0)) / np.asarray(
        level, np.float32)
    v = rel[::2, ::2][fm[::2, ::2]]  # every fourth pixel measures the spread well enough
    if v.size < 100:
        return np.zeros(fm.shape, bool)
    med = float(np.median(v))
    mad = 1.4826 * float(np.median(np.abs(v - med)))
    return rel > med + BRIGHT_Z * mad


@dataclass
class Blob:
    """A non-felt region inside the felt, at full resolution."""

    mask: np.ndarray  # uint8 mask of the ROI
    origin: tuple[int, int]  # ROI top-left in the frame
    area: float
    touches_edge: bool  # reaches the felt's edge or the frame's
    outside: bool = False  # lies wholly off the felt (on the rail or the wood round it)


@dataclass
class TopFace:
    """A die's top face as fitted: its four image corners, centre, angle, side and fit.

    corners: the face's quad in the image, in the order (-u, -v), (+u, -v), (+u, +v),
    (-u, +v) of the face's own axes (a lens or a tilted camera makes it no square); when not
    given, the square of `side` at `center` turned by `angle_deg`.
    """

    center: tuple[float, float]
    angle_deg: float  # of the face's u axis, image coords, in [0, 90)
    side: float
    residual: float  # blob extent unexplained by a flat die, in sides of its outline
    corners: np.ndarray = field(repr=False, default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.corners is None:
            self.corners = square_corners(self.center, self.angle_deg, self.side)
        self.corners = np.asarray(self.corners, np.float64).reshape(4, 2)

    def grown(self, factor: float, turn_deg: float = 0.0) -> TopFace:
        """The face's quad grown `factor` times about its centre and turned (image px)."""
        t = math.radians(turn_deg)
        R = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        c = np.asarray(self.center, np.float64)
        corners = c + ((self.corners - c) * factor) @ R.T
        return TopFace(self.center, (self.angle_deg + turn_deg) % 90, self.side * factor,
                       self.residual, corners)


def square_corners(center: tuple[float, float], angle_deg: float, side: float) -> np.ndarray:
    """The corners of a square face (see TopFace.corners for their order)."""
    t = math.radians(angle_deg)
    u = np.array([math.cos(t), math.sin(t)])
    v = np.array([-math.sin(t), math.cos(t)])
    h = side / 2
    c = np.asarray(center, np.float64)
    return np.array([c + a * h * u + b * h * v for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _face_in_image(centre: np.ndarray, u: np.ndarray, v: np.ndarray, side: float,
                   residual: float, lens: Lens | None) -> TopFace:
    """A top face fitted in ideal pixels (centre, axes, side), as the lens shows it."""
    h = side / 2
    corners = np.array([centre + a * h * u + b * h * v
                        for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    c = centre[None]
    if lens is not None and not lens.identity:
        corners = lens.to_image(corners)
        c = lens.to_image(c)
    e = corners[1] - corners[0]
    angle = math.degrees(math.atan2(e[1], e[0])) % 90
    img_side = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, 0), axis=1)))
    return TopFace((float(c[0, 0]), float(c[0, 1])), angle, img_side, float(residual), corners)


def ignore_mask(shape: tuple[int, int], ignore: Sequence[np.ndarray], scale: int = 1
                ) -> np.ndarray:
    """A uint8 mask (1 inside) of image-px polygons, drawn on a frame shrunk `scale` times."""
    m = np.zeros(shape, np.uint8)
    for poly in ignore:
        cv2.fillPoly(m, [np.round(np.asarray(poly, np.float64) / scale).astype(np.int32)], 1)
    return m


def find_blobs(img: np.ndarray, felt: FeltModel, side_px: float,
               ignore: Sequence[np.ndarray] = ()) -> tuple[list[Blob], np.ndarray, float]:
    """Non-felt blobs on the felt (full-res masks), the felt hull (small scale) and felt level.

    `ignore` are image-px polygons of things that belong on the felt (the corner markers):
    a blob lying mostly inside them is not an object.
    """
    s = DETECT_SCALE
    small = cv2.resize(img, (img.shape[1] // s, img.shape[0] // s), interpolation=cv2.INTER_AREA)
    felt = frame_felt(small, felt)
    fm, level = felt_mask(small, felt, felt_share=FELT_SHARE)
    fm8 = fm.astype(np.uint8)
    # the felt's own region, without specks of noise on the wood round it that pass for
    # felt and would stretch its hull over the wood
    n, labels, stats, _ = cv2.connectedComponentsWithStats(
        cv2.morphologyEx(fm8, cv2.MORPH_OPEN, np.ones((9, 9), np.uint8)), connectivity=8)
    hull_mask = np.zeros_like(fm8)
    if n <= 1:
        return [], hull_mask, level
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    contours, _ = cv2.findContours((labels == biggest).astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    cv2.fillConvexPoly(hull_mask, hull, 1)
    inner = cv2.erode(hull_mask, np.ones((3, 3), np.uint8))
    min_area = 0.3 * (side_px / s) ** 2
    obj, n, labels, stats = _objects(fm8, above_felt_noise(small, fm, level), hull_mask,
                                     side_px / s)
    # how deep inside itself (holes filled: a light sticker on a neutral felt passes for
    # felt) each object pixel lies: a sliver (the felt's blended edge, a crease) is never as
    # thick as a die
    depth = cv2.distanceTransform(_filled(obj), cv2.DIST_L2, 3)
    min_depth = MIN_THICKNESS * side_px / s / 2
    skip = ignore_mask(obj.shape, ignore, s) if len(ignore) else None
    blobs: list[Blob] = []
    H, W = img.shape[:2]
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area < min_area:
            continue
        if _mostly_in(skip, labels, i, (x, y, w, h)):
            continue
        if float((depth[y:y + h, x:x + w] * (labels[y:y + h, x:x + w] == i)).max()) < min_depth:
            continue
        edge = bool(((labels[y:y + h, x:x + w] == i) & (inner[y:y + h, x:x + w] == 0)).any())
        pad = 3
        x0, y0 = max(0, (x - pad) * s), max(0, (y - pad) * s)
        x1, y1 = min(W, (x + w + pad) * s), min(H, (y + h + pad) * s)
        own_small = (labels[max(0, y - pad):y + h + pad, max(0, x - pad):x + w + pad] == i)
        own = cv2.resize(own_small.astype(np.uint8), (x1 - x0, y1 - y0),
                         interpolation=cv2.INTER_NEAREST)
        own = cv2.dilate(own, np.ones((2 * s + 1, 2 * s + 1), np.uint8))
        roi = cv2.GaussianBlur(img[y0:y1, x0:x1], (0, 0), ROI_BLUR)
        # a noisy frame (dim light) is smoothed more rather than judged more loosely, so
        # a die's dark side faces do not pass for felt
        inten, maha = _felt_distance(roi, felt)
        noise = felt_noise(maha, 0.4)
        distance: tuple[np.ndarray, np.ndarray, float] | None = (inten, maha, noise)
        if noise > 2.0:
            roi = cv2.GaussianBlur(img[y0:y1, x0:x1], (0, 0),
                                   ROI_BLUR * min(3.0, math.sqrt(noise / 2.0)))
            distance = None  # measured again on the smoother window
        lev = float(level[min(y + h // 2, small.shape[0] - 1),  # type: ignore[index]
                          min(x + w // 2, small.shape[1] - 1)])
        fm_roi, _ = felt_mask(roi, felt, lev, felt_share=0.4, max_widen=2.0, distance=distance)
        m = ((~fm_roi) & (own > 0)).astype(np.uint8)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        m = _largest_filled(m, min_area * s * s * 0.5)
        if m is None:
            continue
        if edge:
            # a die against the felt's edge picks up the blended edge and the wood beyond
            # it: it is on the felt when its part inside the felt is a whole die
            sl = (slice(max(0, y - pad), y + h + pad), slice(max(0, x - pad), x + w + pad))
            inside = cv2.resize(inner[sl], (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
            on = _largest_filled(m & inside, min_area * s * s * 0.5)
            if on is not None and on.sum() >= ON_FELT_SHARE * side_px ** 2:
                m, edge = on, False
        blobs.append(Blob(m, (x0, y0), float(m.sum()), edge))
    return blobs + rim_blobs(img, small, hull_mask, side_px, skip), hull_mask, level


def _objects(fm8: np.ndarray, bright: np.ndarray, hull_mask: np.ndarray, side: float
             ) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """The objects on the felt (small scale, faces `side` px): their mask and its components.

    An object is what is not felt-coloured, or brighter than the felt's spread allows
    (`bright`, see above_felt_noise: a dark die on a neutral felt shows only its sticker).
    The pixels only the brightness finds join no object the colour finds whole (as thick as
    a die, WHOLE_THICKNESS; holes filled): a dark die's sticker touching a coloured die is
    its own object, not a part of that die's blob, whose size then is no longer a whole
    number of faces (a column of touching dice was cut into faces out of place and misread).
    """
    inside = hull_mask > 0
    opening = np.ones((2, 2), np.uint8)
    coloured = cv2.morphologyEx(((fm8 == 0) & inside).astype(np.uint8), cv2.MORPH_OPEN, opening)
    filled = _filled(coloured)
    n, labels = cv2.connectedComponents(filled, connectivity=8)
    depth = np.zeros(n, np.float32)
    on = labels > 0
    np.maximum.at(depth, labels[on], cv2.distanceTransform(filled, cv2.DIST_L2, 3)[on])
    whole = (depth >= WHOLE_THICKNESS * side / 2)[labels] & on
    rest = (coloured > 0) | (bright & inside)
    rest &= cv2.dilate(whole.astype(np.uint8), np.ones((3, 3), np.uint8)) == 0
    rest = cv2.morphologyEx(rest.astype(np.uint8), cv2.MORPH_OPEN, opening)
    obj = (whole | (rest > 0)).astype(np.uint8)
    # no pixel of the rest is next to a whole object, even diagonally: they stay apart
    n, labels, stats, _ = cv2.connectedComponentsWithStats(obj, connectivity=8)
    return obj, n, labels, stats


RIM_GAP = 3  # small-scale px next to the felt's hull left out (its blended edge)
RIM_Z = 5.0  # robust z-score (median / MAD) that makes a pixel stand out from the rim
RIM_DIE_AREA = (0.35, 3.0)  # blob area as a share of a face's area: a die on its own


def rim_blobs(img: np.ndarray, small: np.ndarray, hull_mask: np.ndarray, side_px: float,
              skip: np.ndarray | None = None) -> list[Blob]:
    """Die-sized objects lying wholly off the felt, on whatever surrounds it in the frame.

    What surrounds the felt (a wooden rail, a cloth) is not calibrated, so it is described
    afresh in each frame by robust statistics (median and MAD) of its chromaticity and of
    its brightness relative to the neighbourhood's (lamp falloff and wood grain); a die
    stands out from them. Only die-sized objects count: a hand or a cup on the rail is not
    the game's business, and whether a die-sized one is a die is for the reader to say.
    """
    s = DETECT_SCALE
    rim = cv2.erode((hull_mask == 0).astype(np.uint8), np.ones((2 * RIM_GAP + 1,) * 2, np.uint8))
    rim[:1, :] = rim[-1:, :] = 0
    rim[:, :1] = rim[:, -1:] = 0
    face = (side_px / s) ** 2
    room = int(0.6 * side_px / s) | 1  # a die lying wholly off the felt needs this much room
    if rim.sum() < 8 * face or not cv2.erode(rim, np.ones((room, room), np.uint8)).any():
        return []
    inten, o1, o2 = chroma(small)
    on = rim > 0
    k = int(4 * side_px / s) | 1
    rimf = rim.astype(np.float32)
    local = cv2.blur(inten * rimf, (k, k)) / np.maximum(cv2.blur(rimf, (k, k)), 1e-3)
    rel = np.log(inten / np.maximum(local, 1.0))
    stats_ = []
    for ch in (o1, o2, rel):
        v = ch[on]
        med = float(np.median(v))
        stats_.append((med, 1.4826 * float(np.median(np.abs(v - med))) + 1e-3))

    def stands_out(parts: tuple[np.ndarray, ...]) -> np.ndarray:
        out = np.zeros(parts[0].shape, bool)
        for ch, (med, mad) in zip(parts, stats_, strict=True):
            out |= np.abs(ch - med) > RIM_Z * mad
        return out

    out = stands_out((o1, o2, rel))
    obj = cv2.morphologyEx((out & on).astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    obj = cv2.morphologyEx(obj, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(obj, connectivity=8)
    H, W = img.shape[:2]
    blobs = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if not RIM_DIE_AREA[0] * face <= area <= RIM_DIE_AREA[1] * face or max(w, h) > 3 * min(w, h):
            continue
        if _mostly_in(skip, labels, i, (x, y, w, h)):
            continue
        # the outline again at full resolution, smoothed about as much as the shrinking did
        xa, ya = max(0, x - 2), max(0, y - 2)
        xb, yb = min(labels.shape[1], x + w + 2), min(labels.shape[0], y + h + 2)
        x0, y0, x1, y1 = xa * s, ya * s, min(W, xb * s), min(H, yb * s)
        size = (x1 - x0, y1 - y0)
        own = cv2.resize((labels[ya:yb, xa:xb] == i).astype(np.uint8), size,
                         interpolation=cv2.INTER_NEAREST)
        own = cv2.dilate(own, np.ones((2 * s + 1, 2 * s + 1), np.uint8))
        fi, f1, f2 = chroma(cv2.GaussianBlur(img[y0:y1, x0:x1], (0, 0), 0.5 * s))
        near = cv2.resize(local[ya:yb, xa:xb], size, interpolation=cv2.INTER_LINEAR)
        fine = stands_out((f1, f2, np.log(fi / np.maximum(near, 1.0)))) & (own > 0)
        fine = cv2.morphologyEx(fine.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        m = _largest_filled(fine, 0.3 * side_px * side_px)
        if m is not None:
            blobs.append(Blob(m, (x0, y0), float(m.sum()), True, outside=True))
    return blobs


def _filled(m: np.ndarray) -> np.ndarray:
    """A uint8 mask with its holes (background not reaching the mask's border) filled."""
    n, lab = cv2.connectedComponents((m == 0).astype(np.uint8), connectivity=4)
    border = np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))
    hole = ~np.isin(lab, border) & (m == 0)
    return (m | hole).astype(np.uint8)


def _mostly_in(skip: np.ndarray | None, labels: np.ndarray, i: int,
               box: tuple[int, int, int, int]) -> bool:
    """Whether component i (in its bounding box) lies mostly inside the `skip` mask."""
    if skip is None:
        return False
    x, y, w, h = box
    return bool(skip[y:y + h, x:x + w][labels[y:y + h, x:x + w] == i].mean() > 0.5)


def _largest_filled(m: np.ndarray, min_area: float) -> np.ndarray | None:
    """Components of a mask above min_area, with their holes filled."""
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    keep = [c for c in contours if cv2.contourArea(c) >= min_area]
    if not keep:
        return None
    out = np.zeros_like(m)
    cv2.drawContours(out, keep, -1, 1, thickness=-1)
    return out


def dominant_angle(gray: np.ndarray, weight: np.ndarray | None = None) -> float:
    """The angle (degrees, mod 90) the edges of a die's image mostly run along.

    A die's outline, its top face's edges, the sticker's edges and lettering strokes are all
    square to the face, so the magnitude-weighted 4-fold orientation of the grey gradients
    gives the face's turn (a mask's outline alone is too ragged for that).
    """
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 0.8)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    if weight is not None:
        mag = mag * weight
    z = complex(float((mag * np.cos(4 * np.arctan2(gy, gx))).sum()),
                float((mag * np.sin(4 * np.arctan2(gy, gx))).sum()))
    return float(np.degrees(np.angle(z)) / 4 % 90)


def blob_angle(img: np.ndarray, mask: np.ndarray, origin: tuple[int, int]) -> float:
    """The face angle of the die whose mask (at origin in img) is given."""
    h, w = mask.shape
    gray = cv2.cvtColor(img[origin[1]:origin[1] + h, origin[0]:origin[0] + w],
                        cv2.COLOR_BGR2GRAY)
    weight = cv2.dilate(mask, np.ones((5, 5), np.uint8)).astype(np.float32)
    return dominant_angle(gray, weight)


def extents(px: np.ndarray, py: np.ndarray, theta: float
            ) -> tuple[float, float, float, float]:
    """How far image points reach along a die's face axes (u from, u to, v from, v to).

    The outermost 0.3% each way are left out (a stray pixel); each pixel is one wide.
    """
    t = math.radians(theta)
    pu = px * math.cos(t) + py * math.sin(t)
    pv = -px * math.sin(t) + py * math.cos(t)
    u0, u1 = np.percentile(pu, [0.3, 99.7])
    v0, v1 = np.percentile(pv, [0.3, 99.7])
    return float(u0 - 0.5), float(u1 + 0.5), float(v0 - 0.5), float(v1 + 0.5)


INSET_MAX = 0.12  # of a face side: the most a die's edge is taken to lie inside its blob
INSET_PAD = 6  # px of felt round a blob judged for the felt's colour (see outline_inset)
INSET_FLOOR = 0.25  # of the steepest rise: a rise below this is noise, not an edge
INSET_FAR = 0.5  # cosine: outline whose outward normal is this near the way away from the nadir


def outline_inset(img: np.ndarray, blob: Blob, side: float,
                  nadir: tuple[float, float] | None = None) -> float | None:
    """How far inside the blob's outline the die's own edge lies (px), or None if unmeasured.

    A blob takes in every pixel that is not quite felt: the blurred rim of the die's edge
    (focus, a shaking camera, the smoothing before the felt test), so fitted as it is, a
    small die's top face comes out 10-15% too large and its rectified face shows the die's
    edge and side faces. The rim is measured where the top face itself meets the felt: on
    the outline facing away from the nadir (`nadir` in image px; None: all round), where no
    side face shows. There the colour's distance from the felt (median over that outline at
    each depth) rises across the die's edge; the edge is the steepest point of the *first*
    rise (a blurred step is steepest at the step), not of the largest: a light sticker on a
    dark body rises more, a few px further in, and taking it shrank the face below the die's
    (4.3 px on 50 px dice). One die's measure is noisy; calibration keeps the median of
    the captures' (vision.training.RIM_QUANTILE, Geometry.rim_px).
    """
    p = INSET_PAD
    m = cv2.copyMakeBorder(blob.mask, p, p, p, p, cv2.BORDER_CONSTANT, value=0)
    x0, y0 = blob.origin[0] - p, blob.origin[1] - p
    x1, y1 = x0 + m.shape[1], y0 + m.shape[0]
    H, W = img.shape[:2]
    roi = img[max(0, y0):min(H, y1), max(0, x0):min(W, x1)]
    if roi.size == 0:
        return None
    roi = cv2.copyMakeBorder(roi, max(0, -y0), max(0, y1 - H), max(0, -x0), max(0, x1 - W),
                             cv2.BORDER_REPLICATE).astype(np.float32)
    din = cv2.distanceTransform(m, cv2.DIST_L2, 5)
    dout = cv2.distanceTransform(1 - m, cv2.DIST_L2, 5)
    depth = np.where(m > 0, din - 0.5, 0.5 - dout)  # 0 on the outline, > 0 inside
    ring = (depth <= -2.5) & (depth >= 0.5 - p)
    if ring.sum() < 20:
        return None
    keep = np.ones(m.shape, bool)
    if nadir is not None:
        ys, xs = np.nonzero(m)
        away = np.array([xs.mean() + x0 - nadir[0], ys.mean() + y0 - nadir[1]])
        if np.hypot(*away) > side:  # nearer, the side faces hardly show
            away /= np.hypot(*away)
            gy, gx = np.gradient(cv2.GaussianBlur(depth, (0, 0), 1.5))  # depth falls outwards
            keep = -(gx * away[0] + gy * away[1]) > INSET_FAR * (np.hypot(gx, gy) + 1e-6)
    dist = np.linalg.norm(roi - np.median(roi[ring], 0), axis=2)
    reach = INSET_MAX * side
    levels = np.arange(-3, int(math.ceil(reach)) + 3)  # level k: depth k to k + 1
    bins = np.floor(depth).astype(np.int32)
    med = np.full(len(levels), np.nan)
    for i, lv in enumerate(levels):
        sel = dist[keep & (bins == lv)]
        if sel.size >= 4:
            med[i] = np.median(sel)
    ok = np.isfinite(med)
    if ok.sum() < 4:
        return None
    med = np.interp(levels, levels[ok], med[ok])
    d = np.diff(med)  # the rise from level i to i + 1: at depth levels[i] + 1
    if d.max() <= 0:
        return None
    for i in range(len(d)):
        if d[i] >= INSET_FLOOR * d.max() and (i + 1 == len(d) or d[i + 1] <= d[i]):
            a = d[i - 1] if i > 0 else d[i]
            b = d[i + 1] if i + 1 < len(d) else d[i]
            den = a - 2 * d[i] + b
            off = 0.5 * (a - b) / den if den < 0 else 0.0
            at = levels[i] + 1.0 + float(np.clip(off, -0.5, 0.5))
            return float(np.clip(at, 0.0, reach))
    return None


def fit_top_face(mask: np.ndarray, origin: tuple[int, int], side: float, k_side: float,
                 nadir: tuple[float, float], theta: float, lens: Lens | None = None,
                 side_slope: tuple[float, float] = (0.0, 0.0), inset: float = 0.0
                 ) -> TopFace | None:
    """Fit the top-face square of one die's mask: far side of the blob from the nadir.

    The fit is made in ideal pixels (`lens` undoes the lens's distortion; nadir, side and
    k_side are in ideal pixels, the side growing by side_slope per pixel from the nadir),
    where a flat die's top face is a square and its side faces reach away from the nadir;
    the square's corners are then mapped back into the image (a quad). inset: how far
    inside the mask's outline the die's edge lies (see outline_inset), taken off each end
    of its extents.
    """
    ys, xs = np.nonzero(mask)
    if len(xs) < 20:
        return None
    pts = np.column_stack([xs + float(origin[0]), ys + float(origin[1])])
    img_c = (float(pts[:, 0].mean()), float(pts[:, 1].mean()))
    if lens is not None and not lens.identity:
        theta = lens.ideal_angle(theta, img_c)
        pts = lens.to_ideal(pts)
    px, py = pts[:, 0], pts[:, 1]
    t = math.radians(theta)
    u = np.array([math.cos(t), math.sin(t)])
    v = np.array([-math.sin(t), math.cos(t)])
    u0, u1, v0, v1 = extents(px, py, theta)
    u0, u1, v0, v1 = u0 + inset, u1 - inset, v0 + inset, v1 - inset
    cx, cy = px.mean(), py.mean()
    side = side + side_slope[0] * (cx - nadir[0]) + side_slope[1] * (cy - nadir[1])
    r = np.array([cx - nadir[0], cy - nadir[1]])
    ru, rv = float(r @ u), float(r @ v)
    ext_u, ext_v = u1 - u0, v1 - v0
    # the side faces add k_side * distance from the nadir along each axis
    su = float(np.clip(ext_u - k_side * abs(ru), 0.85 * side, 1.15 * side))
    sv = float(np.clip(ext_v - k_side * abs(rv), 0.85 * side, 1.15 * side))
    s_loc = 0.5 * (su + sv)
    resid = max(abs(ext_u - (side + k_side * abs(ru))), abs(ext_v - (side + k_side * abs(rv))))
    whole = side + 2 * inset  # the blob's outline reaches `inset` past the die's edge
    area_expect = whole * whole + whole * k_side * (abs(ru) + abs(rv))
    area = float(len(xs))
    if lens is not None and not lens.identity:  # the blob's area in ideal pixels
        area *= abs(float(np.linalg.det(lens.jacobian(img_c))))
    # in sides of the outline (the face and its rim): the cocked limit was set on outlines
    resid = max(resid / whole, abs(area / area_expect - 1.0) * 0.5)
    cu = u1 - s_loc / 2 if ru > 0 else u0 + s_loc / 2
    cv = v1 - s_loc / 2 if rv > 0 else v0 + s_loc / 2
    return _face_in_image(cu * u + cv * v, u, v, s_loc, resid, lens)


def rectify(img: np.ndarray, face: TopFace, size: int = PATCH) -> np.ndarray:
    """The top face's quad warped to a size x size upright square (BGR uint8).

    A homography from the face's four corners: a face seen in perspective, through a lens
    that squeezes it towards the frame's corners, comes out square.
    """
    q = np.asarray(face.corners, np.float64)
    x0 = max(0, int(math.floor(q[:, 0].min())) - 3)
    y0 = max(0, int(math.floor(q[:, 1].min())) - 3)
    x1 = int(math.ceil(q[:, 0].max())) + 4
    y1 = int(math.ceil(q[:, 1].max())) + 4
    roi = img[y0:y1, x0:x1]
    if roi.size == 0:
        return np.zeros((size, size) + img.shape[2:], img.dtype)
    if face.side / size > 1.2:
        roi = cv2.GaussianBlur(roi, (0, 0), 0.45 * face.side / size)
    lo, hi = -0.5, size - 0.5  # the patch's pixel edges: its corners are the face's
    dst = np.float32([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])
    H = cv2.getPerspectiveTransform((q - [x0, y0]).astype(np.float32), dst)
    return cv2.warpPerspective(roi, H, (size, size), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def touching_faces(mask: np.ndarray, origin: tuple[int, int], side: float, k_side: float,
                   nadir: tuple[float, float], theta: float, lens: Lens | None = None,
                   side_slope: tuple[float, float] = (0.0, 0.0)) -> list[TopFace]:
    """Top faces of touching dice in one blob, read off a lattice of face-sized cells.

    Each die's blob is its top face swept towards the nadir by its side faces, so eroding
    the blob by that sweep leaves the top faces. Touching dice touch face to face, so their
    top faces lie on rows and columns of the die's own axes: the eroded blob is cut into
    cells one face side wide, and every well-filled cell is a die, centred on its pixels.
    With a `lens`, the blob is first redrawn in ideal pixels (the lens's local stretch round
    the blob), where side, k_side and nadir are measured (see fit_top_face).
    """
    ys, xs = np.nonzero(mask)
    if len(xs) < 20:
        return []
    cx, cy = xs.mean() + origin[0], ys.mean() + origin[1]
    if lens is not None and not lens.identity:
        mask, origin, theta, (cx, cy) = _ideal_raster(mask, origin, (cx, cy), theta, lens)
    side = side + side_slope[0] * (cx - nadir[0]) + side_slope[1] * (cy - nadir[1])
    dx, dy = -k_side * (cx - nadir[0]), -k_side * (cy - nadir[1])
    # erosion by the segment from p to p + d: p stays when the whole sweep is in the blob
    ax, ay = int(round(abs(dx))), int(round(abs(dy)))
    kernel = np.zeros((ay + 1, ax + 1), np.uint8)
    sx, sy = (0 if dx >= 0 else ax), (0 if dy >= 0 else ay)
    cv2.line(kernel, (sx, sy), (ax - sx, ay - sy), 1, 1)
    tops = cv2.erode(mask, kernel, anchor=(sx, sy), borderValue=0)
    ys, xs = np.nonzero(tops)
    if len(xs) < 20:
        return []
    t = math.radians(theta)
    u = np.array([math.cos(t), math.sin(t)])
    v = np.array([-math.sin(t), math.cos(t)])
    px, py = xs + origin[0] + 0.0, ys + origin[1] + 0.0
    pu, pv = px * u[0] + py * u[1], px * v[0] + py * v[1]
    u0, u1 = np.percentile(pu, [0.5, 99.5])
    v0, v1 = np.percentile(pv, [0.5, 99.5])
    nu = max(1, int(round((u1 - u0) / side)))
    nv = max(1, int(round((v1 - v0) / side)))
    cu, cv = (u1 - u0) / nu, (v1 - v0) / nv
    faces, centres = [], []
    for i in range(nu):
        for j in range(nv):
            lo_u, lo_v = u0 + i * cu, v0 + j * cv
            inside = (pu >= lo_u) & (pu < lo_u + cu) & (pv >= lo_v) & (pv < lo_v + cv)
            if inside.sum() < 0.5 * cu * cv:
                continue
            # centre each face on its own pixels: a slab through the cell's middle, wide
            # enough to hold a die pushed a little out of line with its neighbour
            mu, mv = lo_u + cu / 2, lo_v + cv / 2
            slab_u = (np.abs(pu - mu) < 0.3 * cu) & (np.abs(pv - mv) < 0.5 * cv + 0.3 * side)
            slab_v = (np.abs(pv - mv) < 0.3 * cv) & (np.abs(pu - mu) < 0.5 * cu + 0.3 * side)
            if slab_u.sum() > 10:
                a, b = np.percentile(pv[slab_u], [1, 99])
                if b - a < 1.2 * side:
                    mv = (a + b) / 2
            if slab_v.sum() > 10:
                a, b = np.percentile(pu[slab_v], [1, 99])
                if b - a < 1.2 * side:
                    mu = (a + b) / 2
            centres.append((mu, mv))
            faces.append(_face_in_image(mu * u + mv * v, u, v, side, 0.0, lens))
    c = np.asarray(centres)
    if len(c) >= 2 and (np.hypot(*(c[:, None] - c[None]).transpose(2, 0, 1))
                        + np.eye(len(c)) * side).min() < TOUCH_APART * side:
        return []  # faces that overlap are one die's: not touching dice
    return faces


def _ideal_raster(mask: np.ndarray, origin: tuple[int, int], centre: tuple[float, float],
                  theta: float, lens: Lens
                  ) -> tuple[np.ndarray, tuple[int, int], float, tuple[float, float]]:
    """A blob's mask redrawn in ideal pixels by the lens's local stretch round its centre:
    the mask, its origin, the face angle and the centre, all in ideal pixels."""
    J = lens.jacobian(centre)
    c_id = lens.to_ideal(np.array([centre]))[0]
    h, w = mask.shape
    box = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) + origin - centre
    box = box @ J.T + c_id
    ox, oy = int(math.floor(box[:, 0].min())) - 1, int(math.floor(box[:, 1].min())) - 1
    size = (int(math.ceil(box[:, 0].max())) - ox + 2, int(math.ceil(box[:, 1].max())) - oy + 2)
    # raster (col, row) -> ideal raster: J (col + origin - centre) + c_id - new origin
    t = J @ (np.asarray(origin, np.float64) - centre) + c_id - (ox, oy)
    M = np.column_stack([J, t])
    out = cv2.warpAffine(mask, M, size, flags=cv2.INTER_NEAREST)
    return out, (ox, oy), lens.ideal_angle(theta, centre), (float(c_id[0]), float(c_id[1]))


OUTLINE_BLUR = 2.0  # px: colour smoothed before the die's outline is judged (see die_outline)
OUTLINE_PAD = 12  # px added round a blob's box for its outline: felt to judge the noise on
OUTLINE_FELT_SHARE = 0.5  # of that ROI that is at least felt


def die_outline(img: np.ndarray, blob: Blob, felt: FeltModel, theta: float,
                lens: Lens | None = None) -> tuple[float, float, float, float] | None:
    """The die's extent along its face axes (u from, u to, v from, v to; image px).

    The blob's own outline is judged pixel by pixel: in a dim frame it takes in the die's
    shadow, where the felt's colour is too noisy to tell a single pixel from a die. Here the
    colour is smoothed first, which averages that noise away but not a die's colour, and
    the distance from the felt is scaled to the felt's noise round the blob; only pixels next
    to the blob count. Smoothing widens the outline alike on every side. None when the
    outline found is much smaller than the blob (a die too dark to tell from the felt).
    """
    h, w = blob.mask.shape
    H, W = img.shape[:2]
    x0, y0 = max(0, blob.origin[0] - OUTLINE_PAD), max(0, blob.origin[1] - OUTLINE_PAD)
    x1, y1 = min(W, blob.origin[0] + w + OUTLINE_PAD), min(H, blob.origin[1] + h + OUTLINE_PAD)
    roi = cv2.GaussianBlur(img[y0:y1, x0:x1], (0, 0), OUTLINE_BLUR)
    _, maha = _felt_distance(roi, felt)
    maha *= np.float32(1.0 / felt_noise(maha, OUTLINE_FELT_SHARE))
    near = np.zeros(maha.shape, np.uint8)
    bx, by = blob.origin[0] - x0, blob.origin[1] - y0
    near[by:by + h, bx:bx + w] = blob.mask
    near = cv2.dilate(near, np.ones((5, 5), np.uint8))
    ys, xs = np.nonzero((maha > felt.max_d2) & (near > 0))
    if len(xs) < 0.7 * blob.area:
        return None
    pts = np.column_stack([xs + (x0 + 0.0), ys + (y0 + 0.0)])
    if lens is not None:  # measured in ideal pixels (theta too)
        pts = lens.to_ideal(pts)
    return extents(pts[:, 0], pts[:, 1], theta)


def lean(outline: tuple[float, float, float, float], top: tuple[float, float], side: float,
         k_side: float, nadir: tuple[float, float], theta: float, rim: float = 0.0
         ) -> tuple[float, float]:
    """How far a die's outline, around its top face found by appearance, is from a flat die's.

    Along each face axis a flat die's outline ends with its top face on the side away from
    the nadir and reaches k_side * (distance from the nadir) past it on the near side (its
    side face). A die leaning by t about a bottom edge shows its raised side face (about
    s * sin t) past the top face on one side and hides or shortens the other side face;
    whichever way it leans, the overhang past the top face on the far side less the near
    side's surplus over a flat die's is off by about sin t on the axis it leans along.
    Returns (lopsided, stretch) in face sides: the larger such difference of the two axes,
    and how much more one axis's extent exceeds a flat die's than the other's (a die leaning
    towards the nadir or across it is long on one axis; a uniform growth of the outline,
    smoothing or blur, adds to both and cancels). The outline reaches `rim` past the die's
    edge (Geometry.rim_px), so the outline of a flat die's face is side + 2 rim wide, and
    both are measured in its sides (the cocked and leaning limits were set on outlines).
    """
    t = math.radians(theta)
    side = side + 2 * rim
    lopsided, excess = 0.0, []
    for (lo, hi), ax in zip((outline[:2], outline[2:]),
                            ((math.cos(t), math.sin(t)), (-math.sin(t), math.cos(t))), strict=True):
        c = top[0] * ax[0] + top[1] * ax[1]
        r = c - (nadir[0] * ax[0] + nadir[1] * ax[1])
        far, near = (hi - c, c - lo) if r > 0 else (c - lo, hi - c)
        over_far = far - side / 2
        over_near = near - side / 2 - k_side * abs(r)
        lopsided = max(lopsided, abs(over_far - over_near) / side)
        excess.append((over_far + over_near) / side)
    return lopsided, abs(excess[0] - excess[1])

