"""Descriptor maths of a rectified top face: band-passed grey and edge orientations.

A stored patch is the top face rectified upright with a margin (MARGIN face sides, STORE px);
its descriptor is the inner window (the rim skipped) as a grid of band-passed grey plus four
edge-orientation channels, zero-mean and unit-norm. Also the face's ink and body colours.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.dice import PATCH, chroma

GRID = 16  # descriptor grid side
MARGIN = 1.25  # stored patches cover this many face sides, for augmentation
STORE = int(round(PATCH * MARGIN))
AUG_TURNS = (-4.0, 0.0, 4.0)
SEARCH_SHIFTS = (-4, -2, 0, 2, 4)


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


@functools.lru_cache(maxsize=16)
def _area(n_in: int, n_out: int, size: int, offsets: tuple[int, ...]) -> np.ndarray:
    """(len(offsets), n_out, size): each row averages the n_in pixels from an offset down to
    n_out by their areas' overlap, as cv2.resize's INTER_AREA does, as a matrix."""
    s = n_in / n_out
    A = np.zeros((len(offsets), n_out, size), np.float32)
    for k, off in enumerate(offsets):
        for i in range(n_out):
            a, b = i * s, (i + 1) * s
            for j in range(int(np.floor(a)), int(np.ceil(b))):
                A[k, i, off + j] = (min(b, j + 1) - max(a, j)) / s
    return A


def _windows(maps: np.ndarray, shifts: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """`_window` at every shift (dy outer, dx inner): (S*S, G, G) and (S*S, 4, G/2, G/2).

    The shrinking is a product of area matrices (one per shift and axis), so all shifts
    cost a few matrix products instead of a resize each.
    """
    inner = PATCH - 2 * int(round(PATCH * 0.12))
    o = (maps.shape[1] - inner) // 2
    offs = tuple(o + d for d in shifts)
    a1 = _area(inner, GRID, maps.shape[1], offs)
    a2 = _area(inner, GRID // 2, maps.shape[1], offs)
    dog = np.matmul((a1 @ maps[0])[:, None], a1.transpose(0, 2, 1)[None])
    grad = np.matmul(np.matmul(a2[None], maps[1:, None])[:, :, None],
                     a2.transpose(0, 2, 1)[None, None])  # (4, dy, dx, G/2, G/2)
    return (dog.reshape(-1, GRID, GRID),
            grad.transpose(1, 2, 0, 3, 4).reshape(-1, 4, GRID // 2, GRID // 2))


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
    dog, grad = _windows(band_pass(stored), tuple(shifts))
    per_turn = [_descriptors(dog, grad, k) for k in range(4)]
    return np.stack(per_turn, 1).reshape(len(dog) * 4, -1).astype(np.float32)


def _turned(stored: np.ndarray, turn: float) -> np.ndarray:
    """A stored patch turned a few degrees about its centre."""
    if turn == 0:
        return stored
    c = (stored.shape[1] - 1) / 2
    M = cv2.getRotationMatrix2D((c, c), turn, 1.0)
    return cv2.warpAffine(stored, M, stored.shape[1::-1], flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


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
