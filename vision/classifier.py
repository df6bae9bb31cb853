"""A face classifier learned at calibration time from the table's own captures.

Six captures of a face are few; what play shows differs from them (the face elsewhere in the
frame, blurred, dimmer, noisier, JPEG, the sticker fitted a little off). The classifier learns
from the captures' augmented copies (vision.augment): each capture is first turned to its
label's orientation (the die lay at any angle; `align`), then copied COPIES times with that
variation; its features are the matcher's descriptor (band-passed grey and edge orientations,
vision.descriptors) plus the face's colours on a coarse grid (the die's body and the ink tell
dice apart when the lettering blurs). The model is a linear discriminant projection (what
varies within a label damped, what tells labels apart kept) followed by multinomial logistic
regression, with one more class, "turned": the same copies a quarter, half or three quarters
turned, so that a face read in a wrong orientation is not taken for another label. A query is
described under the four quarter turns and small shifts; each label keeps its best
log-probability over them, and the margin between the best label and the runner-up (a log
likelihood ratio) is what calibration thresholds.

Only numpy (training here, at calibration, takes a few seconds on one core; reading is a few
small matrix products).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.augment import augment
from vision.descriptors import (
    SEARCH_SHIFTS,
    _descriptors,
    _window,
    band_pass,
    query_descriptors,
)
from vision.dice import PATCH, chroma

COPIES = 16  # augmented copies of each capture learnt from
SEED = 3141  # the copies' seed stream (apart from the matcher's and the held-out check's)
COLOUR_GRID = 4  # the face's colours on a COLOUR_GRID x COLOUR_GRID grid
COLOUR_WEIGHT = 1.0  # of the colour part against the unit-norm descriptor
SHRINK = 0.1  # pull of the within-label scatter towards the identity
L2 = 1e-2  # weight decay of the logistic regression
ITERATIONS, RATE = 300, 0.5  # gradient steps of the logistic regression


def colours(stored: np.ndarray) -> np.ndarray:
    """The face's two opponent chromaticities on a coarse grid, (2, G, G): body and ink."""
    o = (stored.shape[0] - PATCH) // 2
    face = cv2.GaussianBlur(stored[o:o + PATCH, o:o + PATCH], (0, 0), 1.5)
    _, o1, o2 = chroma(face)
    g = (COLOUR_GRID, COLOUR_GRID)
    return np.stack([cv2.resize(o1, g, interpolation=cv2.INTER_AREA),
                     cv2.resize(o2, g, interpolation=cv2.INTER_AREA)])


def _colour_rows(stored: np.ndarray) -> np.ndarray:
    """The colour grid under the four quarter turns, (4, 2*G*G), weighted."""
    c = colours(stored)
    return np.stack([np.clip(np.rot90(c, k, axes=(1, 2)).reshape(-1), -1.5, 1.5)
                     for k in range(4)]).astype(np.float32) * np.float32(COLOUR_WEIGHT)


def face_rows(stored: np.ndarray, shifts: tuple[int, ...] = SEARCH_SHIFTS) -> np.ndarray:
    """Features of a stored face under the shifts and the four turns, (S*4, D + colours).

    The first columns are the matcher's descriptors (vision.descriptors.query_descriptors,
    row s*4 + k is shift s, turn k); the colour grid of the same turn follows.
    """
    d = query_descriptors(stored, shifts)
    return np.concatenate([d, np.tile(_colour_rows(stored), (len(d) // 4, 1))], 1)


def _turns(stored: np.ndarray) -> np.ndarray:
    """Features of a face unshifted under the four turns, (4, D + colours)."""
    dog, grad = _window(band_pass(stored), 0, 0)
    d = np.concatenate([_descriptors(dog[None], grad[None], k) for k in range(4)])
    return np.concatenate([d, _colour_rows(stored)], 1).astype(np.float32)


def _agreement(M: np.ndarray, k: np.ndarray) -> float:
    """How well a label's captures agree, turned by k: the sum over pairs (a, b) of
    M[a, b, (k_a - k_b) % 4] (see align)."""
    n = len(k)
    return float(M[np.arange(n)[:, None], np.arange(n)[None, :],
                   (k[:, None] - k[None, :]) % 4].sum())


def align(patches: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """How many quarter turns bring each capture to its label's orientation, (N,).

    The die lay at any angle in each capture. The turns are chosen together, so that the
    captures of a label agree best with each other pairwise (each pair's similarity taken at
    the best of the search shifts: two captures' faces are fitted a few px apart); a label's
    orientation is then its first capture's. Matching each capture against the first alone
    (before) turned a blurred or misplaced capture's face wrongly whenever the first was
    blurred or misplaced too: on dev table 0 of the wide world (36 px dice) EAST's six
    captures came out in three orientations.
    """
    rows = [q.reshape(len(q) // 4, 4, -1) for q in map(query_descriptors, patches)]  # (S, 4, D)
    still = np.stack([r[len(r) // 2, 0] for r in rows])  # unshifted, as captured
    ks = np.zeros(len(patches), int)
    for lab in np.unique(labels):
        idx = np.flatnonzero(labels == lab)
        n = len(idx)
        # M[a, b, k]: capture a turned k against capture b as captured, best over shifts
        M = np.stack([(rows[a] @ still[idx].T).max(0).T for a in idx])  # (n, n, 4)
        M = (M + np.roll(M[:, :, ::-1], 1, axis=2).transpose(1, 0, 2)) / 2  # symmetric
        # start from the capture that agrees best with the others turned to it, then turn
        # one capture at a time while the label's captures agree better
        starts = [np.argmax(M[:, r], 1) for r in range(n)]
        k = max(starts, key=lambda k: _agreement(M, k))
        for _ in range(n):
            changed = False
            for a in range(n):
                o = np.arange(n) != a
                gain = [M[a, o, (t - k[o]) % 4].sum() for t in range(4)]
                t = int(np.argmax(gain))
                if t != k[a] and gain[t] > gain[k[a]] + 1e-9:
                    k[a], changed = t, True
            if not changed:
                break
        ks[idx] = (k - k[0]) % 4
    return ks


def _lda(X: np.ndarray, Y: np.ndarray, n: int) -> np.ndarray:
    """Projection on the n-1 directions that best separate the labels (Fisher)."""
    X = X.astype(np.float64)
    mu = X.mean(0)
    means = np.stack([X[Y == c].mean(0) if np.any(Y == c) else mu for c in range(n)])
    dev = X - means[Y]
    sw = dev.T @ dev / len(X)
    sw = (1 - SHRINK) * sw + SHRINK * np.trace(sw) / len(sw) * np.eye(len(sw))
    sb = (means - mu).T @ (means - mu) / n
    li = np.linalg.inv(np.linalg.cholesky(sw))
    _, v = np.linalg.eigh(li @ sb @ li.T)
    return (li.T @ v[:, -(n - 1):]).astype(np.float32)


@dataclass
class FaceClassifier:
    """A learned face classifier: projection, standardisation and logistic weights.

    W: (D, d) discriminant projection; mu, sd: (d,) standardisation of the projected
    features; B: (d + 1, L + 1) logistic weights (the last row a bias; the last column the
    "turned" class); n_labels: L.
    """

    W: np.ndarray
    mu: np.ndarray
    sd: np.ndarray
    B: np.ndarray
    n_labels: int

    def log_probs(self, rows: np.ndarray) -> np.ndarray:
        """Log-probability of each label (and "turned", last) for feature rows, (R, L + 1)."""
        z = (rows @ self.W - self.mu) / self.sd
        lg = z @ self.B[:-1] + self.B[-1]
        lg -= lg.max(1, keepdims=True)
        return lg - np.log(np.exp(lg).sum(1, keepdims=True))

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """Each label's log-probability at the face's pose, (L,): the row (turn, shift) where
        the classifier is surest of some label. (Each label's best over all rows would let a
        runner-up borrow a wrong turn's or shift's support.)"""
        lp = self.log_probs(rows)[:, :self.n_labels]
        return lp[int(np.argmax(lp.max(1)))]

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The arrays a profile stores (classifier.npz)."""
        return {"W": self.W, "mu": self.mu, "sd": self.sd, "B": self.B}

    @classmethod
    def from_arrays(cls, z: dict[str, np.ndarray], n_labels: int) -> FaceClassifier:
        """A stored classifier; ValueError when the arrays do not fit each other."""
        W, mu, sd, B = (np.asarray(z[k], np.float32) for k in ("W", "mu", "sd", "B"))
        d = W.shape[1] if W.ndim == 2 else -1
        if (W.ndim != 2 or mu.shape != (d,) or sd.shape != (d,) or B.shape != (d + 1, n_labels + 1)
                or not all(np.isfinite(a).all() for a in (W, mu, sd, B)) or (sd <= 0).any()):
            raise ValueError(f"classifier arrays do not fit {n_labels} labels "
                             f"(W {W.shape}, mu {mu.shape}, sd {sd.shape}, B {B.shape})")
        return cls(W, mu, sd, B, n_labels)


def margin(scores: np.ndarray) -> float:
    """Log-probability margin of the best label over the runner-up."""
    o = np.sort(scores)[::-1]
    return float(o[0] - o[1]) if len(o) > 1 else float("inf")


def views(patches: np.ndarray, labels: np.ndarray, copies: int = COPIES, seed: int = SEED,
          turns: np.ndarray | None = None,
          progress: Callable[[float], None] | None = None) -> np.ndarray:
    """Features of each capture and its augmented copies under the four turns,
    (N, copies + 1, 4, D): turn 0 is the label's orientation (see align). The copies are
    drawn per capture from a fixed seed, so the same every time; a classifier is fitted on
    any subset of the captures' views (see fit), so calibration describes each view once for
    every held-out fold's classifier and the profile's. progress(fraction) is called after
    each capture."""
    ks = align(patches, labels) if turns is None else turns
    out = []
    for i, p in enumerate(patches):
        up = np.ascontiguousarray(np.rot90(p, int(ks[i])))
        out.append([_turns(v) for v in [up, *augment(up, np.random.default_rng([seed, i]),
                                                        copies)]])
        if progress is not None:
            progress((i + 1) / len(patches))
    return np.asarray(out, np.float32)


def fit(feats: np.ndarray, labels: np.ndarray, n_labels: int) -> FaceClassifier:
    """Learn a classifier from captures' views, (N, V, 4, D) as `views` gives them: every
    view in its label's orientation, and a third of them in the other three turns as the
    "turned" class."""
    X = feats[:, :, 0].reshape(-1, feats.shape[-1])
    Ya = np.repeat(np.asarray(labels, np.int64), feats.shape[1])
    R = feats[:, ::3, 1:].reshape(-1, feats.shape[-1])  # a third of the views, turned
    W = _lda(X, Ya, n_labels)
    Xall = np.concatenate([X, R])
    Yall = np.concatenate([Ya, np.full(len(R), n_labels)])
    Z = Xall @ W
    mu, sd = Z.mean(0), Z.std(0) + 1e-6
    Z = np.c_[(Z - mu) / sd, np.ones(len(Z))].astype(np.float64)
    T = np.eye(n_labels + 1)[Yall]
    B = np.zeros((Z.shape[1], n_labels + 1))
    for _ in range(ITERATIONS):
        lg = Z @ B
        lg -= lg.max(1, keepdims=True)
        p = np.exp(lg)
        p /= p.sum(1, keepdims=True)
        B -= RATE * (Z.T @ (p - T) / len(Z) + L2 * B)
    return FaceClassifier(W, mu.astype(np.float32), sd.astype(np.float32),
                          B.astype(np.float32), n_labels)


def train(patches: np.ndarray, labels: np.ndarray, n_labels: int, copies: int = COPIES,
          seed: int = SEED, turns: np.ndarray | None = None) -> FaceClassifier:
    """Learn a classifier from stored capture patches (see views and fit). turns: the
    captures' alignment (see align) when already known."""
    return fit(views(patches, labels, copies, seed, turns), labels, n_labels)
