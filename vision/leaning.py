"""The leaning-die check: is a lone die flat, or cocked against something?

A die leaning away from the nadir can show an outline just like a flat die's; where its top
face lies tells. The top face is found by appearance (the profile's average face) near the
flat fit, and the die's outline around it is compared with a flat die's (see dice.lean).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.descriptors import STORE, _dog, _gray
from vision.dice import PATCH, Blob, FeltModel, TopFace, die_outline, lean, rectify
from vision.model import Geometry, Thresholds

# where a leaning die's top face is looked for, in face sides: up to LEAN_REACH towards the
# nadir along either face axis, LEAN_BACK away from it and LEAN_ACROSS across (the flat
# fit's size can be off)
LEAN_REACH, LEAN_BACK, LEAN_ACROSS = 0.42, 0.2, 0.1


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
    big = face.grown(size / PATCH)
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


def is_leaning(lopsided: float, stretch: float, match: float, th: Thresholds,
               shift: float | None = None) -> bool:
    """Whether lean evidence (see Recognizer.lean_evidence) says the die is cocked.

    Cocked when the outline is lopsided about the found top face by more than
    th.lean_lopsided (th.lean_lopsided_unsure when the face matched below th.lean_match), or
    one axis is longer than a flat die's by th.lean_stretch more than the other. A die is
    leaning only if no flat top face fits: a lopsided outline round a top face found where
    the flat fit put it (within th.lean_shift face sides: `shift`) is a flat die whose
    outline took in its shadow or a blurred rim, not one leaning away from the nadir (whose
    top face lies nearer the nadir than a flat die's).
    """
    limit = th.lean_lopsided if match >= th.lean_match else th.lean_lopsided_unsure
    flat_fits = shift is not None and match >= th.lean_match and shift <= th.lean_shift
    return bool(stretch > th.lean_stretch or (lopsided > limit and not flat_fits))


def lean_evidence(img: np.ndarray, face: TopFace, blob: Blob, felt: FeltModel,
                  geometry: Geometry, template: np.ndarray
                  ) -> tuple[float, float, float, float] | None:
    """(lopsided, stretch, match, shift): how a lone die's outline and top face differ
    from flat (shift: face sides between the top face found and the flat fit's).

    The outline's extents alone cannot tell a die leaning away from the nadir: its raised
    side face, past the top face, can look just like a flat die's side faces on the other
    side. Where its top face lies tells: found by appearance (`template`, the table's
    average top face, see face_template; `match` is how well), the outline around it is
    measured against a flat die's (see dice.lean). None when the outline cannot be measured.
    """
    g = geometry
    lens = g.lens()
    theta = lens.ideal_angle(face.angle_deg, face.center)
    outline = die_outline(img, blob, felt, theta, lens)
    if outline is None:
        return None
    top, match = find_top_face(img, face, template,
                               tuple(lens.to_image(np.array([g.nadir]))[0]))
    top_id = lens.to_ideal(np.array([top]))[0]
    lopsided, stretch = lean(outline, (float(top_id[0]), float(top_id[1])),
                             g.side_at((top_id[0], top_id[1])), g.k_side, g.nadir, theta,
                             g.rim_px or 0.0)
    shift = float(np.hypot(top[0] - face.center[0], top[1] - face.center[1])) / face.side
    return lopsided, stretch, match, shift


def is_cocked(img: np.ndarray, face: TopFace, blob: Blob, felt: FeltModel,
              geometry: Geometry, template: np.ndarray, th: Thresholds) -> bool:
    """Whether the reader takes a die for cocked, and does not read it: its blob a flat die
    explains badly (residual above th.cocked_residual), or, a lone die wholly on the felt,
    its outline and top face say it leans (lean_evidence, is_leaning). Calibration asks the
    same of its captures (a capture play would not read has its face fitted off)."""
    if face.residual > th.cocked_residual:
        return True
    if blob.touches_edge:
        return False
    evidence = lean_evidence(img, face, blob, felt, geometry, template)
    return evidence is not None and is_leaning(*evidence[:3], th, evidence[3])
