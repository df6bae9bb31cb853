"""Calibration learns the table, not the captures: what play will show that six captures don't.

Six captures of a face show it in six places under one lamp. At play the same face is seen
elsewhere in the frame (another foreshortening and lens stretch, a top face fitted a little
off), slightly blurred (focus, a die still rocking), in dimmer or brighter light, with more
sensor noise, JPEG, and a glare spot. `augment` makes copies of a rectified capture with that
variation, drawn from a fixed seed (a profile's templates are the same every time they are
built), so the templates cover it and the matcher's whitening learns to discount it.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.dice import PATCH

COPIES = 4  # augmented copies of each capture
CORNER_JITTER = 0.03  # of a face side: each corner of the face placed this far off
STRETCH = 0.08  # a lens or tilt stretching the face along one axis by up to this share
TURN_DEG = 5.0
SHIFT = 0.05  # of a face side
BLUR_SIGMA = (0.0, 1.3)  # px at the rectified patch's scale
EXPOSURE = (0.45, 1.25)  # brightness factor
NOISE = (0.0, 7.0)  # grey levels
GLARE = 0.3  # share of copies with a glare spot
JPEG = 0.3  # share of copies re-encoded as JPEG


def _pose(rng: np.random.Generator, size: int) -> np.ndarray:
    """A small perspective warp of a patch about its centre (a face fitted or seen off)."""
    c = (size - 1) / 2
    h = PATCH / 2
    src = np.array([[c - h, c - h], [c + h, c - h], [c + h, c + h], [c - h, c + h]], np.float32)
    t = np.radians(rng.uniform(-TURN_DEG, TURN_DEG))
    a = rng.uniform(0, np.pi)
    s = 1 + rng.uniform(-STRETCH, STRETCH)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    u = np.array([np.cos(a), np.sin(a)])
    S = np.eye(2) + (s - 1) * np.outer(u, u)  # stretched along u
    d = (src - c) @ (R @ S).T * rng.uniform(0.96, 1.04)
    d += rng.uniform(-SHIFT, SHIFT, 2) * PATCH
    d += rng.uniform(-CORNER_JITTER, CORNER_JITTER, (4, 2)) * PATCH
    return cv2.getPerspectiveTransform(src, (d + c).astype(np.float32))


def augment(patch: np.ndarray, rng: np.random.Generator, copies: int = COPIES
            ) -> list[np.ndarray]:
    """Copies of a rectified BGR patch as play may show it (pose, blur, light, noise, glare)."""
    size = patch.shape[0]
    out = []
    for _ in range(copies):
        img = cv2.warpPerspective(patch, _pose(rng, size), (size, size),
                                  flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        f = img.astype(np.float32)
        sigma = rng.uniform(*BLUR_SIGMA)
        if sigma > 0.3:
            f = cv2.GaussianBlur(f, (0, 0), sigma)
        f *= rng.uniform(*EXPOSURE) * rng.uniform(0.92, 1.08, 3).astype(np.float32)  # a tint
        if rng.random() < GLARE:
            yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
            cx, cy = rng.uniform(0, size, 2)
            r = rng.uniform(0.3, 0.8) * PATCH
            f += rng.uniform(60, 160) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2)
                                               / (2 * r * r))[..., None]
        f += rng.normal(0, rng.uniform(*NOISE), f.shape).astype(np.float32)
        img = np.clip(f + 0.5, 0, 255).astype(np.uint8)
        if rng.random() < JPEG:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY,
                                                 int(rng.integers(55, 90))])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        out.append(img)
    return out
