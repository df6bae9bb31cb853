"""Matching descriptors against calibrated templates: whitening, label scores, ink colours.

Templates are the stored faces' descriptors (under small turns and calibration's augmented
copies); the matcher whitens by the scatter within each label, so what varies between views
of one face counts less than what tells faces apart. The ink model scores each label's
ink and die-body colours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.augment import COPIES, augment
from vision.descriptors import AUG_TURNS, _descriptors, _turned, _window, band_pass

WHITEN_DIMS = 48  # main axes of the templates kept for whitening
WHITEN_SHRINK = 0.5  # pull of the within-label scatter towards the identity (6+ captures)
AUGMENT_SEED = 1121  # the augmented copies' seed stream
INK_WEIGHT = 0.05  # score lost per spread of ink-colour distance beyond two
INK_RELIABILITY_FLOOR = 0.5  # a washed-out or dim ink still weighs at least this much


def build_templates(patches: np.ndarray, labels: np.ndarray, copies: int = COPIES
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Descriptors of every stored patch under small turns and `copies` augmented copies
    (see vision.augment; drawn from a seed per patch, so the same every time), label-sorted.

    Returns the descriptors, their label indices, the index of the patch each came from and
    whether each is an augmented copy.
    """
    descs, labs, src, aug = [], [], [], []
    for i, (p, lab) in enumerate(zip(patches, labels, strict=True)):
        views = [_turned(p, turn) for turn in AUG_TURNS]
        views += augment(p, np.random.default_rng([AUGMENT_SEED, i]), copies)
        for k, v in enumerate(views):
            dog, grad = _window(band_pass(v), 0, 0)
            descs.append(_descriptors(dog[None], grad[None], 0)[0])
            labs.append(int(lab))
            src.append(i)
            aug.append(k >= len(AUG_TURNS))
    labs_a = np.asarray(labs, np.int32)
    order = np.argsort(labs_a, kind="stable")
    return (np.asarray(descs, np.float32)[order], labs_a[order], np.asarray(src)[order],
            np.asarray(aug, bool)[order])


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


def make_matcher(templates: np.ndarray, tlabels: np.ndarray, n_labels: int,
                 scatter_only: np.ndarray | None = None) -> Matcher:
    """Whiten templates by their within-label scatter (see Matcher).

    scatter_only: templates (a boolean mask) that teach the scatter but are not matched
    against: the augmented copies say what varies within a label, while the captures' own
    views keep the match sharp (a broadened template set lifts the runners-up too).
    """
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
    per_label = len(tlabels) / max(1, len(np.unique(tlabels))) / (len(AUG_TURNS) + COPIES)
    shrink = float(np.clip(1.0 - per_label / 12.0, WHITEN_SHRINK, 0.9))
    sw = (1 - shrink) * sw + shrink * np.trace(sw) / len(sw) * np.eye(len(sw))
    ev, v = np.linalg.eigh(sw)
    W = (basis @ v @ np.diag(1.0 / np.sqrt(np.maximum(ev, 1e-12))) @ v.T).astype(np.float32)
    keep = np.ones(len(templates), bool) if scatter_only is None else ~scatter_only
    tp = templates[keep] @ W
    tp /= np.maximum(np.linalg.norm(tp, axis=1, keepdims=True), 1e-9)
    return Matcher(W, tp.astype(np.float32), tlabels[keep], n_labels)
