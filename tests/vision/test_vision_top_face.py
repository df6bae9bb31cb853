"""The top face from its four corners: the lens model, the homography and the camera fit,
on dice drawn here with plain OpenCV polygons (not the synthetic renderer)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.dice import (
    Blob,
    TopFace,
    fit_top_face,
    outline_inset,
    rectify,
    touching_faces,
)
from vision.geometry import Lens
from vision.training import _measure_geometry

FRAME = (1640, 1232)


def test_lens_maps_image_to_ideal_and_back():
    lens = Lens.for_frame(0.15, FRAME, (900.0, 500.0))
    pts = np.array([[0.0, 0.0], [1639.0, 1231.0], [820.0, 616.0], [100.0, 1100.0]])
    back = lens.to_image(lens.to_ideal(pts))
    assert np.abs(back - pts).max() < 1e-6
    # barrel distortion: a corner of the frame shows a point farther out
    assert np.linalg.norm(lens.to_ideal(pts[:1]) - lens.centre) > np.linalg.norm(
        pts[0] - lens.centre)
    # the derivative matches a finite difference
    p, eps = np.array([1500.0, 1100.0]), 1e-3
    num = np.column_stack([(lens.to_ideal((p + d)[None]) - lens.to_ideal((p - d)[None]))[0]
                           / (2 * eps) for d in (np.array([eps, 0]), np.array([0, eps]))])
    assert np.allclose(num, lens.jacobian(tuple(p)), atol=1e-5)
    assert Lens.for_frame(0.0, FRAME).identity


def _pattern(n: int = 48) -> np.ndarray:
    """An asymmetric test card: a bright square with an L and a dot (tells any turn)."""
    p = np.full((n, n, 3), 60, np.uint8)
    cv2.rectangle(p, (3, 3), (n - 4, n - 4), (235, 235, 235), -1)
    cv2.rectangle(p, (10, 10), (16, 38), (20, 20, 20), -1)
    cv2.rectangle(p, (10, 32), (34, 38), (20, 20, 20), -1)
    cv2.circle(p, (34, 14), 4, (20, 20, 200), -1)
    return p


def test_rectify_undoes_perspective_from_the_four_corners():
    card = _pattern()
    n = card.shape[0]
    quad = np.array([[400.0, 300.0], [452.0, 310.0], [445.0, 352.0], [398.0, 345.0]])
    lo, hi = -0.5, n - 0.5
    H = cv2.getPerspectiveTransform(np.float32([[lo, lo], [hi, lo], [hi, hi], [lo, hi]]),
                                    quad.astype(np.float32))
    big = cv2.resize(card, None, fx=4, fy=4, interpolation=cv2.INTER_LINEAR)
    S = np.diag([0.25, 0.25, 1.0])  # from the 4x card to the card's px
    S[:2, 2] = 0.25 * 0.5 - 0.5
    img = cv2.warpPerspective(big, H @ S, (800, 600), flags=cv2.INTER_AREA,
                              borderValue=(30, 90, 30))
    face = TopFace(tuple(quad.mean(0)), 10.0, 50.0, 0.0, quad)
    out = rectify(img, face, n)
    err = np.abs(out[4:-4, 4:-4].astype(float) - card[4:-4, 4:-4].astype(float)).mean()
    assert err < 12
    # an affine square of the same size would not have matched as well
    square = TopFace(tuple(quad.mean(0)), 10.0, 50.0, 0.0)
    off = np.abs(rectify(img, square, n)[4:-4, 4:-4].astype(float)
                 - card[4:-4, 4:-4].astype(float)).mean()
    assert off > 1.5 * err


def test_grown_face_keeps_its_shape_about_its_centre():
    quad = np.array([[0.0, 0.0], [10.0, 1.0], [11.0, 11.0], [1.0, 10.0]])
    f = TopFace((5.5, 5.5), 5.7, 10.0, 0.0, quad)
    g = f.grown(2.0)
    assert np.allclose(g.corners - (5.5, 5.5), 2 * (quad - (5.5, 5.5)))
    assert math.isclose(g.side, 20.0)
    t = f.grown(1.0, 90.0)
    assert np.allclose(np.sort(np.linalg.norm(t.corners - (5.5, 5.5), axis=1)),
                       np.sort(np.linalg.norm(quad - (5.5, 5.5), axis=1)))


def _die(img: np.ndarray, centre: np.ndarray, side: float, angle: float, reach: np.ndarray,
         lens: Lens, top=(230, 230, 230), body=(120, 120, 150)) -> np.ndarray:
    """Draw a die in ideal px through the lens: its side faces (the top face swept by
    `reach`), then its top face; return the top face's image corners."""
    t = math.radians(angle)
    u, v = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
    h = side / 2
    sq = np.array([centre + a * h * u + b * h * v for a, b in ((-1, -1), (1, -1), (1, 1),
                                                               (-1, 1))])
    hull = cv2.convexHull(np.vstack([sq, sq + reach]).astype(np.float32))[:, 0]
    dense = lambda q: np.vstack([q[i] + (q[(i + 1) % len(q)] - q[i]) * s  # noqa: E731
                                 for i in range(len(q)) for s in np.linspace(0, 1, 12)[:-1]])
    cv2.fillPoly(img, [np.round(lens.to_image(dense(hull)) * 16).astype(np.int32)], body,
                 cv2.LINE_AA, 4)
    quad = lens.to_image(sq)
    cv2.fillPoly(img, [np.round(lens.to_image(dense(sq)) * 16).astype(np.int32)], top,
                 cv2.LINE_AA, 4)
    return quad


def test_camera_fit_measures_the_lens_and_the_reach():
    """Dice drawn through a barrel lens all over the frame: the fit finds the lens, the side
    and the side faces' reach that drew them."""
    rng = np.random.default_rng(5)
    lens = Lens.for_frame(0.15, FRAME, (900.0, 560.0))
    side, k, nadir = 50.0, 0.03, np.array([800.0, 640.0])
    blobs = []
    for _ in range(60):
        img = np.full((FRAME[1], FRAME[0], 3), (30, 100, 30), np.uint8)
        c_img = rng.uniform([60, 60], [FRAME[0] - 60, FRAME[1] - 60])
        c = lens.to_ideal(c_img[None])[0]
        _die(img, c, side, rng.uniform(0, 90), -k * (c - nadir), lens)
        mask = (np.abs(img.astype(int) - (30, 100, 30)).sum(2) > 60).astype(np.uint8)
        ys, xs = np.nonzero(mask)
        x0, y0 = xs.min() - 2, ys.min() - 2
        m = mask[y0:ys.max() + 3, x0:xs.max() + 3]
        blobs.append((img, Blob(m, (int(x0), int(y0)), float(m.sum()), False)))
    g = _measure_geometry(blobs, (FRAME[0] / 2, FRAME[1] / 2), FRAME)
    assert abs(g.lens_k - 0.15) < 0.04
    assert abs(g.side_px - side) < 3.5  # the anti-aliased rim counts as die
    assert g.rim_px is not None and g.rim_px < 1.0  # sharp dice: their outline is their edge
    assert abs(g.k_side - k) < 0.01
    assert np.hypot(*(np.array(g.nadir) - nadir)) < 80



def _blurred_die(body, sticker, sigma, side=40, felt=(40, 110, 60), margin=0):
    """A die (a sticker `margin` px inside its edge) on felt, blurred `sigma` px; its blob
    is every pixel a tenth of the way from the felt's colour to the die body's."""
    felt, body = np.array(felt, np.float32), np.array(body, np.float32)
    img = np.empty((160, 160, 3), np.float32)
    img[:] = felt
    img[60:60 + side, 50:50 + side] = body
    if margin:
        img[60 + margin:60 + side - margin, 50 + margin:50 + side - margin] = sticker
    cv2.rectangle(img, (62 + margin, 72 + margin), (77, 88), (30, 30, 40), -1)
    img = cv2.GaussianBlur(img, (0, 0), sigma) if sigma else img
    dist = np.linalg.norm(img - felt, axis=2) / np.linalg.norm(body - felt)
    mask = (dist > 0.1).astype(np.uint8)
    blob = Blob(mask, (0, 0), float(mask.sum()), False)
    wide = (mask.any(0).sum() - side) / 2  # how far the blob reaches past the die's edge
    return np.clip(img + 0.5, 0, 255).astype(np.uint8), blob, wide


def test_the_die_edge_is_found_inside_a_blurred_blob_and_the_face_fitted_to_it():
    # an ivory 40 px die blurred 1.6 px: its blob is 2 px too wide on each side, as a small
    # die's blob is when its rim is blurred
    side = 40
    img, blob, wide = _blurred_die((205, 220, 225), None, 1.6, side)
    assert wide >= 1.5
    inset = outline_inset(img, blob, side)
    assert inset is not None and abs(inset - wide) < 0.75, (inset, wide)
    # fitted with it, the face is the die's own (the nadir under the die: no side faces)
    nadir = (70.0, 80.0)
    face = fit_top_face(blob.mask, (0, 0), side, 0.0, nadir, 0.0, inset=inset)
    assert face is not None and abs(face.side - side) < 1.0
    assert abs(fit_top_face(blob.mask, (0, 0), side, 0.0, nadir, 0.0).side - side) > 2.0


def test_a_light_sticker_on_a_dark_die_is_not_the_die_edge():
    # a black die with a white sticker 4 px inside its edge: the sticker's edge rises more
    # than the die's own; taking it made a 50 px die's face 44.9 px
    for sigma in (0.0, 0.8, 1.4):
        img, blob, wide = _blurred_die((35, 30, 30), (235, 240, 240), sigma, 50, margin=4)
        inset = outline_inset(img, blob, 50, (-400.0, 80.0))  # the nadir far to the left
        assert inset is not None and abs(inset - wide) < 0.75 and inset < 2.5, (sigma, inset)


def test_a_die_longer_than_a_die_is_not_cut_into_overlapping_faces():
    """One die whose blob is half again as long as a die (side faces a lens shows wider than
    the camera's fit says) is not two touching dice: cut into two face-sized cells, their
    faces would lie half a side apart, one over the other (dev table 6 of the wide world:
    a phantom reading). Two dice touching face to face are still cut in two."""
    side = 40.0
    one = np.zeros((60, 100), np.uint8)
    one[10:50, 10:72] = 1  # 1.55 sides long
    assert touching_faces(one, (500, 400), side, 0.0, (820.0, 616.0), 0.0) == []
    two = np.zeros((60, 100), np.uint8)
    two[10:50, 10:90] = 1  # two dice side by side
    faces = touching_faces(two, (500, 400), side, 0.0, (820.0, 616.0), 0.0)
    assert len(faces) == 2
    assert abs(math.dist(faces[0].center, faces[1].center) - side) < 3
