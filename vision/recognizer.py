"""Reading dice: top-face descriptors, matching against calibrated templates, abstaining.

A face is read from its rectified top face, in all four orientations, against templates
learned from captures (augmented with small shifts and turns, because hand-applied stickers
sit a little off). The margin between the best label and the runner-up decides: below the
threshold calibrated on held-out captures the recognizer abstains (label None).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.dice import (
    PATCH,
    Blob,
    FeltModel,
    TopFace,
    blob_angle,
    chroma,
    die_outline,
    extents,
    find_blobs,
    fit_top_face,
    lean,
    learn_felt,
    rectify,
    touching_faces,
)
from vision.errors import BadCaptureFolder, CalibrationRefused, VisionError
from vision.geometry import TableGeometry, detect_markers, marker_papers

GRID = 16  # descriptor grid side
MARGIN = 1.25  # stored patches cover this many face sides, for augmentation
STORE = int(round(PATCH * MARGIN))
AUG_TURNS = (-4.0, 0.0, 4.0)
SEARCH_SHIFTS = (-4, -2, 0, 2, 4)
WHITEN_DIMS = 48  # main axes of the templates kept for whitening
WHITEN_SHRINK = 0.5  # pull of the within-label scatter towards the identity (6+ captures)
INK_WEIGHT = 0.05  # score lost per spread of ink-colour distance beyond two
COCKED_RESIDUAL = 0.2
# a die leaning on something (cocked), see Recognizer.lean_evidence; in face sides. Its top face
# is looked for up to LEAN_REACH towards the nadir along either face axis, LEAN_BACK away from
# it and LEAN_ACROSS across (the flat fit's size can be off)
LEAN_REACH, LEAN_BACK, LEAN_ACROSS = 0.42, 0.2, 0.1
LEAN_LOPSIDED = 0.15  # outline lopsided about the found top face by more than this: leaning
LEAN_MATCH = 0.5  # a top face matched below this is placed less surely ...
LEAN_LOPSIDED_UNSURE = 0.25  # ... and must be this lopsided
LEAN_STRETCH = 0.09  # one axis longer than a flat die's by this much more than the other
MIN_MARGIN = 0.25  # relative margin (see decide)
MAX_MARGIN = 0.6  # a held-out misreading needing more than this: faces too alike
MIN_SCORE = 0.45
# (turn in degrees, scale): the fitted face's angle can be off, or its size (a washed-out or
# dim, blurred outline); one at a time
SECOND_LOOK_POSES = ((0.0, 1.0), (-4.0, 1.0), (4.0, 1.0), (0.0, 0.94), (0.0, 1.06))
SECOND_LOOK_SHIFTS = (-6, -4, -2, 0, 2, 4, 6)  # px, wider than SEARCH_SHIFTS
# a face whose blob a flat die explains worse than the first look's search reach (in face
# sides) may be placed off by more than that search: it gets the second look too
POSE_UNSURE = max(SEARCH_SHIFTS) / PATCH
# a first reading this close to the threshold (confidence 0.5 is at it) gets the second look
SURE_AT_FIRST_LOOK = 0.6
DISAGREE_FACTOR = 2.0  # a second look overruling the first needs this many times the margin
INK_RELIABILITY_FLOOR = 0.5  # a washed-out or dim ink still weighs at least this much


@dataclass
class Geometry:
    """How big a top face looks and how far side faces reach (grows with nadir distance)."""

    side_px: float
    k_side: float
    nadir: tuple[float, float]
    frame: tuple[int, int] | None = None  # (width, height) of the calibration frames

    def die_area(self, x: float, y: float) -> float:
        """Expected blob area of one flat die whose blob centre is at (x, y)."""
        r = math.hypot(x - self.nadir[0], y - self.nadir[1])
        return self.side_px**2 + self.side_px * self.k_side * r * 1.27


@dataclass
class Profile:
    """What calibration learned: felt colour, geometry, templates and thresholds."""

    die_set: str
    labels: list[str]
    felt: FeltModel
    geometry: Geometry
    patches: np.ndarray  # (N, STORE, STORE, 3) uint8 rectified top faces with margin
    patch_labels: np.ndarray  # (N,) int index into labels
    min_margin: float = MIN_MARGIN
    min_score: float = MIN_SCORE
    report: dict = field(default_factory=dict)
    camera_controls: dict | None = None
    _matcher: Matcher | None = field(default=None, repr=False)
    _ink: InkModel | None = field(default=None, repr=False)

    def ink(self) -> InkModel:
        """The labels' ink colours, learned from the stored patches once."""
        if self._ink is None:
            cols = np.array([ink_colour(p) for p in self.patches])
            contrast = np.array([ink_contrast(p) for p in self.patches])
            self._ink = learn_ink(cols, self.patch_labels, len(self.labels), contrast)
        return self._ink

    def matcher(self) -> Matcher:
        """The templates, augmented and whitened, built once."""
        if self._matcher is None:
            t, lab, _ = build_templates(self.patches, self.patch_labels)
            self._matcher = make_matcher(t, lab, len(self.labels))
        return self._matcher


@dataclass
class DieReading:
    """One object on the felt as the recognizer saw it."""

    label: str | None
    confidence: float
    center: tuple[float, float]
    corners: list[list[float]]
    angle_deg: float
    cocked: bool = False
    on_felt: bool = True
    kind: str = "die"  # "die" or "obstruction" (a hand, an unknown thing)
    candidates: list[tuple[str, float]] = field(default_factory=list)
    base: tuple[float, float] | None = None  # image point under the die's centre, on the felt
    table_mm: tuple[float, float] | None = None  # that point in table mm (with a geometry)
    zone: str | None = None  # the table zone it lies in (with a geometry)

    def to_json(self) -> dict:
        """The JSON object `feltbank recognize` prints for this die."""
        return {
            "label": self.label,
            "confidence": round(self.confidence, 4),
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "angle": round(self.angle_deg, 1),
            "cocked": self.cocked,
            "on_felt": self.on_felt,
            "kind": self.kind,
            "candidates": [[lab, round(s, 4)] for lab, s in self.candidates],
            "base": None if self.base is None else [round(self.base[0], 1),
                                                    round(self.base[1], 1)],
            "table_mm": None if self.table_mm is None else [round(self.table_mm[0], 1),
                                                            round(self.table_mm[1], 1)],
            "zone": self.zone,
        }


def _gray(patch: np.ndarray) -> np.ndarray:
    """Luminance of a BGR patch as float32."""
    return cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)


def _dog(g: np.ndarray) -> np.ndarray:
    """Band-passed grey (difference of Gaussians): strokes kept, flat brightness dropped."""
    return cv2.GaussianBlur(g, (0, 0), 1.0) - cv2.GaussianBlur(g, (0, 0), 4.0)


def band_pass(stored: np.ndarray) -> np.ndarray:
    """Feature maps of a stored patch: band-passed grey and four edge-orientation channels.

    The band-pass (difference of Gaussians) keeps strokes and drops the sticker's flat
    brightness, which all faces share; the orientation channels (edge strength at 0, 45,
    90 and 135 degrees) shrug off smooth light changes such as a glare spot's slope.
    """
    g = _gray(stored) if stored.ndim == 3 else stored.astype(np.float32)
    dog = _dog(g)
    s = cv2.GaussianBlur(g, (0, 0), 0.7)
    gx = cv2.Sobel(s, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(s, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    ang = (np.arctan2(gy, gx) % np.pi) * (4 / np.pi)  # orientation in bins of 45 degrees
    chans = [dog]
    for b in range(4):
        w = np.clip(1 - np.abs((ang - b + 2) % 4 - 2), 0, None)
        chans.append(cv2.GaussianBlur(mag * w, (0, 0), 1.0))
    return np.stack(chans, 0)


def _unit_rows(d: np.ndarray) -> np.ndarray:
    """Each row made zero-mean and unit-norm."""
    d = d - d.mean(1, keepdims=True)
    n = np.linalg.norm(d, axis=1, keepdims=True)
    return d / np.maximum(n, 1e-6)


def _window(maps: np.ndarray, dx: int, dy: int) -> tuple[np.ndarray, np.ndarray]:
    """The face's inner window, shifted by (dx, dy) px: band-pass grid and orientation grids.

    The window skips the face's rim (12% a side): the die body and the sticker's edge are
    shared by every face and the rim is where a misplaced sticker differs most.
    """
    inner = PATCH - 2 * int(round(PATCH * 0.12))
    o = (maps.shape[1] - inner) // 2
    w = maps[:, o + dy:o + dy + inner, o + dx:o + dx + inner]
    dog = cv2.resize(w[0], (GRID, GRID), interpolation=cv2.INTER_AREA)
    grad = np.stack([cv2.resize(c, (GRID // 2, GRID // 2), interpolation=cv2.INTER_AREA)
                     for c in w[1:]])
    return dog, grad


def _descriptors(dog: np.ndarray, grad: np.ndarray, k: int) -> np.ndarray:
    """Unit descriptors of N windows, (N, G, G) and (N, 4, G/2, G/2), turned k quarters."""
    n = len(dog)
    d = np.rot90(dog, k, axes=(1, 2)).reshape(n, -1)
    g = np.rot90(grad, k, axes=(2, 3))
    if k % 2:  # a quarter turn swaps the 0/90 and 45/135 degree channels
        g = g[:, [2, 3, 0, 1]]
    g = np.sqrt(np.maximum(g.reshape(n, -1), 0.0))
    return np.concatenate([_unit_rows(d), _unit_rows(g)], 1) * np.float32(0.7071)


def query_descriptors(stored: np.ndarray, shifts: tuple[int, ...] = SEARCH_SHIFTS
                      ) -> np.ndarray:
    """Descriptors of a face under the search shifts and all four turns, (S*4, D)."""
    maps = band_pass(stored)
    wins = [_window(maps, dx, dy) for dy in shifts for dx in shifts]
    dog = np.stack([w[0] for w in wins])
    grad = np.stack([w[1] for w in wins])
    per_turn = [_descriptors(dog, grad, k) for k in range(4)]
    return np.stack(per_turn, 1).reshape(len(wins) * 4, -1).astype(np.float32)


def _turned(stored: np.ndarray, turn: float) -> np.ndarray:
    """A stored patch turned a few degrees about its centre."""
    if turn == 0:
        return stored
    c = (stored.shape[1] - 1) / 2
    M = cv2.getRotationMatrix2D((c, c), turn, 1.0)
    return cv2.warpAffine(stored, M, stored.shape[1::-1], flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def build_templates(patches: np.ndarray, labels: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Descriptors of every stored patch under small turns (label-sorted).

    Returns the descriptors, their label indices and the index of the patch each came from.
    """
    descs, labs, src = [], [], []
    for i, (p, lab) in enumerate(zip(patches, labels, strict=True)):
        for turn in AUG_TURNS:
            dog, grad = _window(band_pass(_turned(p, turn)), 0, 0)
            descs.append(_descriptors(dog[None], grad[None], 0)[0])
            labs.append(int(lab))
            src.append(i)
    labs_a = np.asarray(labs, np.int32)
    order = np.argsort(labs_a, kind="stable")
    return np.asarray(descs, np.float32)[order], labs_a[order], np.asarray(src)[order]


def ink_colour(stored: np.ndarray) -> np.ndarray:
    """Shadow-invariant colours of a face: its ink, and the die body round the sticker.

    Ink: chromaticity of the darkest fifth of the inner window. Body: median chromaticity
    of the face's outer ring (the last 6% of the face on each side), where the die shows.
    """
    inner = PATCH - 2 * int(round(PATCH * 0.12))
    o = (stored.shape[0] - inner) // 2
    inten, o1, o2 = chroma(cv2.GaussianBlur(stored[o:o + inner, o:o + inner], (0, 0), 1.0))
    sel = inten <= np.percentile(inten, 20)
    f0 = (stored.shape[0] - PATCH) // 2
    ring_w = max(1, int(round(PATCH * 0.06)))
    face = stored[f0:f0 + PATCH, f0:f0 + PATCH]
    _, r1, r2 = chroma(face)
    ring = np.ones((PATCH, PATCH), bool)
    ring[ring_w:PATCH - ring_w, ring_w:PATCH - ring_w] = False
    return np.array([o1[sel].mean(), o2[sel].mean(), np.median(r1[ring]),
                     np.median(r2[ring])], np.float32)


def ink_contrast(stored: np.ndarray) -> float:
    """How far the ink stands below the sticker, in grey levels (the colours' signal).

    Chromaticity is a ratio of colour differences to brightness: on a dim face its noise
    grows as the ink's brightness falls, and glare (white light added, clipped at
    saturation) pulls the ink's colour towards the lamp's. Both shrink this contrast.
    """
    inner = PATCH - 2 * int(round(PATCH * 0.12))
    o = (stored.shape[0] - inner) // 2
    g = _gray(cv2.GaussianBlur(stored[o:o + inner, o:o + inner], (0, 0), 1.0))
    lo, hi = np.percentile(g, [20, 80])
    return float(hi - g[g <= lo].mean())


@dataclass
class InkModel:
    """Each label's ink colour (mean) and the spread of it between captures (pooled)."""

    mean: np.ndarray  # (L, 4): ink and body chromaticities
    spread: np.ndarray  # (4,)
    contrast: float | None = None  # typical ink contrast of the captures (grey levels)

    def penalty(self, colour: np.ndarray, contrast: float | None = None) -> np.ndarray:
        """Score penalty per label for a face of this ink colour (none within three spreads).

        A face whose ink contrast is below the captures' measures its colours less surely:
        the distance is scaled down by that ratio (as if the spread grew in proportion).
        """
        z = ((colour - self.mean) / self.spread) ** 2
        if contrast is not None and self.contrast:
            r = float(np.clip(contrast / self.contrast, INK_RELIABILITY_FLOOR, 1.0))
            z[:, :2] *= r * r  # the ink's two chromaticities; the body's ring is many pixels
        d = np.sqrt(z.sum(1))
        return np.clip(INK_WEIGHT * (d - 3.0), 0.0, 0.3).astype(np.float32)


def learn_ink(cols: np.ndarray, labels: np.ndarray, n_labels: int,
              contrast: np.ndarray | None = None) -> InkModel:
    """Per-label ink colours from the ink colours (and ink contrasts) of stored patches."""
    mean = np.zeros((n_labels, cols.shape[1]), np.float32)
    resid = []
    for li in range(n_labels):
        c = cols[labels == li]
        if len(c):
            mean[li] = c.mean(0)
            resid.append(c - mean[li])
    r = np.concatenate(resid) if resid else np.zeros((1, cols.shape[1]))
    spread = np.maximum(np.sqrt((r**2).mean(0)), 0.05).astype(np.float32)
    typical = float(np.median(contrast)) if contrast is not None and len(contrast) else None
    return InkModel(mean, spread, typical)


def score_labels(desc: np.ndarray, templates: np.ndarray, tlabels: np.ndarray, n_labels: int
                 ) -> np.ndarray:
    """Best similarity per label over templates, shifts and the four orientations."""
    sims = (desc @ templates.T).max(0)
    best = np.full(n_labels, -1.0, np.float32)
    if len(tlabels) == 0:
        return best
    # templates are sorted by label: reduce each label's run
    starts = np.flatnonzero(np.r_[True, tlabels[1:] != tlabels[:-1]])
    best[tlabels[starts]] = np.maximum.reduceat(sims, starts)
    return best


@dataclass
class Matcher:
    """Templates in a whitened space where the variation within a label is damped.

    Misplaced stickers, small turns and blur move a face's descriptor in directions that
    calibration sees within each label; whitening by that within-label scatter (on the
    main axes of all templates, shrunk towards the identity) lets the differences between
    labels, not those nuisances, decide the match.
    """

    W: np.ndarray  # (D, d)
    T: np.ndarray  # (M, d) unit rows, sorted by label
    labels: np.ndarray
    n_labels: int

    def scores(self, desc: np.ndarray) -> np.ndarray:
        """Best similarity per label for query descriptors (rows)."""
        q = desc @ self.W
        q /= np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-9)
        return score_labels(q, self.T, self.labels, self.n_labels)


def make_matcher(templates: np.ndarray, tlabels: np.ndarray, n_labels: int) -> Matcher:
    """Whiten templates by their within-label scatter (see Matcher)."""
    t = templates.astype(np.float64)
    means = np.zeros((n_labels, t.shape[1]))
    for li in np.unique(tlabels):
        means[li] = t[tlabels == li].mean(0)
    dev = t - means[tlabels]
    _, vecs = np.linalg.eigh(np.cov(t.T))
    basis = vecs[:, -min(WHITEN_DIMS, t.shape[1]):]
    dw = dev @ basis
    sw = dw.T @ dw / max(1, len(dw))
    # fewer captures per label: a rougher scatter estimate, trusted less
    per_label = len(tlabels) / max(1, len(np.unique(tlabels))) / len(AUG_TURNS)
    shrink = float(np.clip(1.0 - per_label / 12.0, WHITEN_SHRINK, 0.9))
    sw = (1 - shrink) * sw + shrink * np.trace(sw) / len(sw) * np.eye(len(sw))
    ev, v = np.linalg.eigh(sw)
    W = (basis @ v @ np.diag(1.0 / np.sqrt(np.maximum(ev, 1e-12))) @ v.T).astype(np.float32)
    tp = templates @ W
    tp /= np.maximum(np.linalg.norm(tp, axis=1, keepdims=True), 1e-9)
    return Matcher(W, tp.astype(np.float32), tlabels, n_labels)


def face_template(patches: np.ndarray) -> np.ndarray:
    """What any top face looks like: the stored faces, band-passed, averaged in four turns.

    The labels differ, but every face is a sticker on a die's face, edged and lettered; their
    average keeps that common layout, which finds a top face in a die's image without
    knowing its label (the matcher's descriptors are built to ignore where a face sits).
    """
    o = (STORE - PATCH) // 2
    maps = [_dog(_gray(p))[o:o + PATCH, o:o + PATCH] for p in patches]
    return np.mean([np.rot90(m, k) for m in maps for k in range(4)], 0).astype(np.float32)


def _peak(a: float, b: float, c: float) -> float:
    """Sub-pixel offset of a peak b between its neighbours a and c (parabola)."""
    den = a - 2 * b + c
    return 0.0 if den >= 0 else float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))


def find_top_face(img: np.ndarray, face: TopFace, template: np.ndarray,
                  nadir: tuple[float, float]) -> tuple[tuple[float, float], float]:
    """Where the top face lies by appearance, near the flat fit, and how well it matched.

    A flat die's face is where the flat fit put it; a die leaning away from the nadir has its
    top face nearer the nadir than that (the far end of its blob is its raised side face), so
    the face is looked for up to LEAN_REACH towards the nadir along either face axis.
    """
    pad = int(round(PATCH * (LEAN_REACH + 0.03)))  # a px more: the peak's neighbours
    size = PATCH + 2 * pad
    big = TopFace(face.center, face.angle_deg, face.side * size / PATCH, face.residual)
    res = cv2.matchTemplate(_dog(_gray(rectify(img, big, size))), template,
                            cv2.TM_CCOEFF_NORMED)
    t = math.radians(face.angle_deg)
    u = np.array([math.cos(t), math.sin(t)])
    v = np.array([-math.sin(t), math.cos(t)])
    r = np.asarray(face.center) - nadir
    off = (np.arange(res.shape[0]) - pad) / PATCH  # face sides from the flat fit
    du = off[None, :] * (-1.0 if r @ u > 0 else 1.0)  # towards the nadir: positive
    dv = off[:, None] * (-1.0 if r @ v > 0 else 1.0)
    ok = (((du >= -LEAN_BACK) & (du <= LEAN_REACH) & (np.abs(dv) <= LEAN_ACROSS))
          | ((dv >= -LEAN_BACK) & (dv <= LEAN_REACH) & (np.abs(du) <= LEAN_ACROSS)))
    y, x = np.unravel_index(int(np.argmax(np.where(ok, res, -2.0))), res.shape)
    n = res.shape[0]
    fx = x + (_peak(res[y, x - 1], res[y, x], res[y, x + 1]) if 0 < x < n - 1 else 0.0)
    fy = y + (_peak(res[y - 1, x], res[y, x], res[y + 1, x]) if 0 < y < n - 1 else 0.0)
    k = face.side / PATCH  # image px per patch px
    c = np.asarray(face.center) + ((fx - pad) * u + (fy - pad) * v) * k
    return (float(c[0]), float(c[1])), float(res[y, x])


def is_leaning(lopsided: float, stretch: float, match: float) -> bool:
    """Whether lean evidence (see Recognizer.lean_evidence) says the die is cocked."""
    limit = LEAN_LOPSIDED if match >= LEAN_MATCH else LEAN_LOPSIDED_UNSURE
    return stretch > LEAN_STRETCH or lopsided > limit


def decide(scores: np.ndarray, labels: list[str], min_margin: float, min_score: float
           ) -> tuple[str | None, float, list[tuple[str, float]]]:
    """Label (or None to abstain), confidence and the top candidates from label scores.

    The margin is taken relative to what the runner-up left unexplained, (s1 - s2) / (1 - s2):
    a blurred or washed-out face lifts every label's score and shrinks raw margins alike.
    """
    order = np.argsort(-scores)
    s1 = float(scores[order[0]])
    s2 = float(scores[order[1]]) if len(order) > 1 else -1.0
    margin = (s1 - s2) / max(1e-6, 1.0 - s2)
    # confidence 0.5 sits exactly at the calibrated threshold; 1.0 at twice the margin
    conf_m = margin / (2 * min_margin)
    conf_s = 0.5 + (s1 - min_score) / (2 * (1 - min_score))
    conf = float(np.clip(min(conf_m, conf_s), 0.0, 1.0))
    cands = [(labels[int(i)], float(scores[int(i)])) for i in order[:3]]
    if margin < min_margin or s1 < min_score:
        return None, min(conf, 0.49), cands
    return labels[int(order[0])], max(conf, 0.5), cands


class Recognizer:
    """Reads every die in a frame with a calibrated profile."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.matcher = profile.matcher()
        self.ink = profile.ink()

    def find_faces(self, img: np.ndarray, ignore: Sequence[np.ndarray] = ()
                   ) -> list[tuple[TopFace | None, Blob, bool]]:
        """Every die's top face (None for obstructions) with its blob and a cocked flag.

        Cocked: a blob a flat die explains badly (residual above COCKED_RESIDUAL), or a lone
        die on the felt whose outline and top face say it leans (see lean_evidence).
        `ignore`: image-px polygons of what belongs on the felt (the corner markers' papers).
        """
        g = self.profile.geometry
        blobs, _, _ = find_blobs(img, self.profile.felt, g.side_px, ignore)
        out: list[tuple[TopFace | None, Blob, bool]] = []
        for blob in blobs:
            ys, xs = np.nonzero(blob.mask)
            cx, cy = xs.mean() + blob.origin[0], ys.mean() + blob.origin[1]
            ratio = blob.area / g.die_area(cx, cy)
            if ratio > 5.5:
                out.append((None, blob, False))
                continue
            if ratio >= 1.25:
                theta = blob_angle(img, blob.mask, blob.origin)
                faces = touching_faces(blob.mask, blob.origin, g.side_px, g.k_side, g.nadir,
                                       theta)
                if len(faces) >= 2:
                    out.extend((f, blob, False) for f in faces)
                    continue
            theta = blob_angle(img, blob.mask, blob.origin)
            face = fit_top_face(blob.mask, blob.origin, g.side_px, g.k_side, g.nadir, theta)
            if face is not None:
                cocked = face.residual > COCKED_RESIDUAL
                if not cocked and not blob.touches_edge:
                    evidence = self.lean_evidence(img, face, blob)
                    cocked = evidence is not None and is_leaning(*evidence)
                out.append((face, blob, cocked))
        return out

    @functools.cached_property
    def face_template(self) -> np.ndarray:
        """The profile's average top face (see face_template), built once."""
        return face_template(self.profile.patches)

    def lean_evidence(self, img: np.ndarray, face: TopFace, blob: Blob
                      ) -> tuple[float, float, float] | None:
        """(lopsided, stretch, match): how a lone die's outline and top face differ from flat.

        The outline's extents alone cannot tell a die leaning away from the nadir: its raised
        side face, past the top face, can look just like a flat die's side faces on the other
        side. Where its top face lies tells: found by appearance (the profile's average top
        face; `match` is how well), the outline around it is measured against a flat die's
        (see dice.lean). None when the outline cannot be measured.
        """
        g = self.profile.geometry
        outline = die_outline(img, blob, self.profile.felt, face.angle_deg)
        if outline is None:
            return None
        top, match = find_top_face(img, face, self.face_template, g.nadir)
        lopsided, stretch = lean(outline, top, g.side_px, g.k_side, g.nadir, face.angle_deg)
        return lopsided, stretch, match

    def second_look(self, img: np.ndarray, face: TopFace) -> np.ndarray:
        """Label scores of an uncertain face under a wider, slower pose search.

        The first look trusts the fitted face's angle and size and searches +/-4 px. A face
        in glare or dim light is fitted less precisely (a washed-out or noisy outline), so
        the few faces the first look is unsure of are re-rectified at a few turns and scales
        (SECOND_LOOK_POSES) and searched over wider shifts; each label keeps its best score.
        """
        best = None
        for turn, scale in SECOND_LOOK_POSES:
            big = TopFace(face.center, face.angle_deg + turn, face.side * MARGIN * scale,
                          face.residual)
            stored = rectify(img, big, STORE)
            s = self.matcher.scores(query_descriptors(stored, SECOND_LOOK_SHIFTS)) - \
                self.ink.penalty(ink_colour(stored), ink_contrast(stored))
            best = s if best is None else np.maximum(best, s)
        assert best is not None
        return best

    def read_face(self, img: np.ndarray, face: TopFace
                  ) -> tuple[str | None, float, list[tuple[str, float]]]:
        """Label (None: abstain), confidence and candidates of one top face.

        A face the first look abstains on gets a second look (see second_look) under the
        same calibrated thresholds, and so does a face whose blob a flat die explains worse
        than the first look's search reaches (residual > POSE_UNSURE face sides: a badly cut
        pair of touching dice), however sure the first look was, and a face the first look
        reads barely over the threshold (confidence under SURE_AT_FIRST_LOOK: in dim light
        RICE loses the two dots that tell it from TREE). When the second look's
        winner is not the first look's, the two looks disagree about the face's pose or
        content, so the second look must clear DISAGREE_FACTOR times the margin (full
        confidence) to overrule the first; short of that, the face is abstained on. When it
        agrees with a barely sure first reading, that reading stands (searching more poses
        lifts the runners-up too).
        """
        p = self.profile
        big = TopFace(face.center, face.angle_deg, face.side * MARGIN, face.residual)
        stored = rectify(img, big, STORE)
        scores = self.matcher.scores(query_descriptors(stored)) - self.ink.penalty(
            ink_colour(stored), ink_contrast(stored))
        label, conf, cands = decide(scores, p.labels, p.min_margin, p.min_score)
        barely = label is not None and face.residual <= POSE_UNSURE
        if barely and conf >= SURE_AT_FIRST_LOOK:
            return label, conf, cands
        first_reading = label, conf, cands
        first = cands[0][0]
        scores = np.maximum(scores, self.second_look(img, face))
        label, conf, cands = decide(scores, p.labels, p.min_margin, p.min_score)
        if barely and cands[0][0] == first:
            return first_reading
        if label is not None and label != first:
            s1, s2 = cands[0][1], cands[1][1] if len(cands) > 1 else -1.0
            if (s1 - s2) / max(1e-6, 1.0 - s2) < DISAGREE_FACTOR * p.min_margin:
                label, conf = None, min(conf, 0.49)
        return label, conf, cands

    def read(self, img: np.ndarray, geometry: TableGeometry | None = None
             ) -> list[DieReading]:
        """Read every object on the felt of a BGR frame (placed on the table if geometry)."""
        p = self.profile
        frame = p.geometry.frame
        if frame is not None and (img.shape[1], img.shape[0]) != tuple(frame):
            raise VisionError(f"frame is {img.shape[1]}x{img.shape[0]}, but the profile was "
                              f"calibrated on {frame[0]}x{frame[1]} frames; set the camera "
                              "to that size or recalibrate")
        readings: list[DieReading] = []
        for face, blob, cocked in self.find_faces(img, geometry.ignore if geometry else ()):
            if face is None:
                ys, xs = np.nonzero(blob.mask)
                c = (float(xs.mean() + blob.origin[0]), float(ys.mean() + blob.origin[1]))
                readings.append(DieReading(None, 0.0, c, [], 0.0, False, not blob.touches_edge,
                                           "obstruction"))
                continue
            label, conf, cands = self.read_face(img, face)
            if blob.outside and label is None:
                # off the felt, a die-sized thing that shows no face we know (a player's
                # arm on the rail, a chip): not the game's business
                continue
            if cocked:
                label, conf = None, min(conf, 0.2)
            # the top face sits one die higher than the felt: pull it back towards the nadir
            n = p.geometry.nadir
            f = 1.0 / (1.0 + p.geometry.k_side)
            base = (n[0] + (face.center[0] - n[0]) * f, n[1] + (face.center[1] - n[1]) * f)
            reading = DieReading(label, conf, face.center, face.corners.tolist(),
                                 face.angle_deg, cocked, not blob.touches_edge, "die", cands,
                                 base)
            if geometry is not None:
                mm = geometry.to_table(np.array([base]))[0]
                reading.table_mm = (float(mm[0]), float(mm[1]))
                reading.zone = geometry.zone_of(mm)
                reading.on_felt = reading.on_felt and geometry.on_felt(mm)
            readings.append(reading)
        return readings


# --------------------------------------------------------------------------- calibration


@dataclass
class CalibrationReport:
    """What calibration measured on held-out captures."""

    per_label: dict[str, float]
    accuracy: float
    abstained: float
    confused: list[tuple[str, str, int]]
    closest: list[tuple[str, str, float]]
    seconds: float

    def to_json(self) -> dict:
        """JSON-able form for the manifest and the CLI."""
        return {
            "per_label": self.per_label, "accuracy": self.accuracy,
            "abstained": self.abstained,
            "confused": [list(c) for c in self.confused],
            "closest": [[a, b, round(s, 4)] for a, b, s in self.closest],
            "seconds": round(self.seconds, 3),
        }


def _measure_geometry(blobs: list[tuple[np.ndarray, Blob]], centre: tuple[float, float]
                      ) -> Geometry:
    """Face side, side-face factor and nadir that best explain single-die blob extents.

    A flat die's blob spans side + k * (distance from the nadir) along each face axis; the
    nadir (the image point straight below the camera) is searched on a grid.
    """
    ext, pos, axes = [], [], []
    for img, b in blobs:
        ys, xs = np.nonzero(b.mask)
        theta = blob_angle(img, b.mask, b.origin)
        th = math.radians(theta)
        px, py = xs + b.origin[0], ys + b.origin[1]
        u0, u1, v0, v1 = extents(px, py, theta)
        for ax, e in (((math.cos(th), math.sin(th)), u1 - u0),
                      ((-math.sin(th), math.cos(th)), v1 - v0)):
            ext.append(e)
            pos.append((px.mean(), py.mean()))
            axes.append(ax)
    e, P, A = np.asarray(ext), np.asarray(pos), np.asarray(axes)

    def solve(n: tuple[float, float]) -> tuple[float, float, float]:
        r = np.abs(((P - n) * A).sum(1))
        M = np.column_stack([np.ones_like(r), r])
        sol, *_ = np.linalg.lstsq(M, e, rcond=None)
        res = float(np.abs(M @ sol - e).mean())
        return res, float(sol[0]), float(max(0.0, sol[1]))

    best = (solve(centre), centre)
    for step in (60.0, 20.0, 6.0):
        c0 = best[1]
        for dy in (-3, -2, -1, 0, 1, 2, 3):
            for dx in (-3, -2, -1, 0, 1, 2, 3):
                n = (c0[0] + dx * step, c0[1] + dy * step)
                if math.hypot(n[0] - centre[0], n[1] - centre[1]) > 400:
                    continue
                cand = solve(n)
                if cand[0] < best[0][0] - 1e-9:
                    best = (cand, n)
    (_, side, k), nadir = best
    return Geometry(side, k, (float(nadir[0]), float(nadir[1])))


def calibrate(
    captures: dict[str, list[tuple[str, np.ndarray]]],
    die_set: str,
    empty: Iterable[tuple[str, np.ndarray]] = (),
    folds: int = 3,
) -> tuple[Profile, CalibrationReport]:
    """Learn a profile from labelled captures (one die each); refuse if faces are confused."""
    t0 = time.perf_counter()
    labels = list(captures)
    few = [lab for lab, items in captures.items() if len(items) < 2]
    if len(labels) < 2 or few:
        raise BadCaptureFolder(f"captures for {', '.join(few) or 'one label only'}: need at "
                               "least two labels and two captures of each (six recommended)")
    all_imgs = [img for items in captures.values() for _, img in items]
    empty = list(empty)
    felt = learn_felt([img for _, img in empty] + all_imgs[:: max(1, len(all_imgs) // 24)])
    h, w = all_imgs[0].shape[:2]
    nadir = (w / 2, h / 2)
    # first pass: one blob per capture, measured with a generous size guess
    singles: list[tuple[str, str, np.ndarray, Blob]] = []
    for label, items in captures.items():
        for name, img in items:
            if img.shape[:2] != (h, w):
                raise BadCaptureFolder(f"{name}: frame is {img.shape[1]}x{img.shape[0]}, the "
                                       f"other captures are {w}x{h}; use one camera mode")
            blobs, _, _ = find_blobs(img, felt, 24.0)
            blobs = [b for b in blobs if b.area > 300]
            if len(blobs) > 1:  # the table's corner markers may be in the frame
                blobs, _, _ = find_blobs(img, felt, 24.0, marker_papers(detect_markers(img)))
                blobs = [b for b in blobs if b.area > 300]
            if not blobs:
                raise BadCaptureFolder(f"{name}: no die found on the felt; each capture must "
                                       "show exactly one die")
            if len(blobs) > 1:
                big = sorted(b.area for b in blobs)
                if big[-2] > 0.4 * big[-1]:
                    raise BadCaptureFolder(f"{name}: {len(blobs)} objects found on the felt; "
                                           "each capture must show exactly one die")
                blobs = [max(blobs, key=lambda b: b.area)]
            singles.append((label, name, img, blobs[0]))
    geometry = _measure_geometry([(img, b) for _, _, img, b in singles], nadir)
    geometry.frame = (w, h)
    side, k_side, nadir = geometry.side_px, geometry.k_side, geometry.nadir
    for label, name, _, b in singles:
        ys, xs = np.nonzero(b.mask)
        ratio = b.area / geometry.die_area(xs.mean() + b.origin[0], ys.mean() + b.origin[1])
        if ratio > 1.7:
            raise BadCaptureFolder(f"{name}: the object is {ratio:.1f} times a die's size; each "
                                   f"capture must show exactly one die, flat ({label})")
    patches, plabels = [], []
    for label, name, img, b in singles:
        theta = blob_angle(img, b.mask, b.origin)
        face = fit_top_face(b.mask, b.origin, side, k_side, nadir, theta)
        if face is None:
            raise BadCaptureFolder(f"{name}: could not find the die's top face")
        big = TopFace(face.center, face.angle_deg, face.side * MARGIN, face.residual)
        patches.append(rectify(img, big, STORE))
        plabels.append(labels.index(label))
    patches_a = np.asarray(patches, np.uint8)
    plabels_a = np.asarray(plabels, np.int32)
    return learn_templates(die_set, labels, felt, geometry, patches_a, plabels_a, folds, t0)


def learn_templates(die_set: str, labels: list[str], felt: FeltModel, geometry: Geometry,
                    patches_a: np.ndarray, plabels_a: np.ndarray, folds: int = 3,
                    t0: float | None = None) -> tuple[Profile, CalibrationReport]:
    """Templates, thresholds and the held-out report from rectified capture patches."""
    t0 = time.perf_counter() if t0 is None else t0
    plabels = [int(x) for x in plabels_a]
    # held-out: each capture read by templates from the other folds
    idx_in_label: list[int] = []
    counters: dict[int, int] = {}
    for lab in plabels:
        idx_in_label.append(counters.get(lab, 0))
        counters[lab] = counters.get(lab, 0) + 1
    fold_of = np.asarray(idx_in_label) % folds
    all_t, all_l, all_src = build_templates(patches_a, plabels_a)
    tfold = fold_of[all_src]
    ink_cols = np.array([ink_colour(p) for p in patches_a])
    ink_con = np.array([ink_contrast(p) for p in patches_a])
    results = []  # (truth, best, s1, margin)
    fold_matchers = {f: make_matcher(all_t[tfold != f], all_l[tfold != f], len(labels))
                     for f in np.unique(fold_of)}
    for i in range(len(patches_a)):
        sel = tfold != fold_of[i]
        d4 = query_descriptors(patches_a[i])
        rest = fold_of != fold_of[i]
        ink = learn_ink(ink_cols[rest], plabels_a[rest], len(labels), ink_con[rest])
        sc = fold_matchers[fold_of[i]].scores(d4) - ink.penalty(ink_cols[i], ink_con[i])
        sc = np.where(np.isin(np.arange(len(labels)), all_l[sel]), sc, -1.0)
        o = np.argsort(-sc)
        results.append((int(plabels_a[i]), int(o[0]), float(sc[o[0]]),
                        float((sc[o[0]] - sc[o[1]]) / max(1e-6, 1 - sc[o[1]]))))
    wrong_margins = [m for t, b, _, m in results if t != b]
    min_margin = max(MIN_MARGIN, (max(wrong_margins) + 0.05) if wrong_margins else 0.0)
    right_scores = [s for t, b, s, _ in results if t == b]
    min_score = min(MIN_SCORE, float(np.percentile(right_scores, 1)) - 0.05) \
        if right_scores else MIN_SCORE
    per_label = {}
    confused: dict[tuple[str, str], int] = {}
    abstained = 0
    for li, lab in enumerate(labels):
        rows = [r for r in results if r[0] == li]
        ok = sum(1 for t, b, s, m in rows if t == b and m >= min_margin and s >= min_score)
        per_label[lab] = ok / len(rows) if rows else 0.0
        for t, b, s, m in rows:
            if t != b:
                key = (labels[t], labels[b])
                confused[key] = confused.get(key, 0) + 1
            elif m < min_margin or s < min_score:
                abstained += 1
    accuracy = sum(per_label[lab] * counters[li] for li, lab in enumerate(labels)) / len(results)
    # which pairs of faces are closest: mean best cross-similarity of their captures
    means = []
    for li in range(len(labels)):
        means.append(all_t[all_l == li])
    closest = []
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            sim = float((means[a] @ means[b].T).max())
            closest.append((labels[a], labels[b], sim))
    closest.sort(key=lambda x: -x[2])
    report = CalibrationReport(per_label, accuracy, abstained / len(results),
                               sorted(((a, b, n) for (a, b), n in confused.items()),
                                      key=lambda x: -x[2]), closest[:5],
                               time.perf_counter() - t0)
    profile = Profile(die_set, labels, felt, geometry, patches_a, plabels_a, min_margin,
                      min_score, report.to_json())
    profile._matcher = make_matcher(all_t, all_l, len(labels))
    misread = {lab: sum(1 for t, b, _, _ in results if t == li and b != li) / counters[li]
               for li, lab in enumerate(labels)}
    wrong_rate = sum(1 for t, b, _, _ in results if t != b) / len(results)
    bad = [lab for lab, share in misread.items() if share >= 0.5]
    if wrong_rate > 0.1 or bad or closest[0][2] > 0.985 or min_margin > MAX_MARGIN:
        pairs = ", ".join(f"{a} read as {b} ({n}x)" for a, b, n in report.confused[:5]) or \
            f"{closest[0][0]}/{closest[0][1]} (similarity {closest[0][2]:.3f})"
        raise CalibrationRefused(
            f"calibration cannot tell the faces apart: {wrong_rate:.0%} of held-out captures "
            f"misread; labels misread half the time: {', '.join(bad) or 'none'}; confused: "
            f"{pairs}. Recapture the confused labels (sharper, well lit), or make their art "
            "more different; no profile written")
    return profile, report
