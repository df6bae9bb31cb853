"""Scenes of d20s with ground truth: the d20 reader's test bench.

A regular icosahedron resting on a face, at any turn, seen by the randomized cameras, lamps
and surfaces of `vision.scenes_common`: the face on top (parallel to the table) and the
faces round it, tilted, each with its number printed upright towards one corner (6 and 9
underlined, as d20s do). Either a standard d20 (1..20, opposite faces summing to 21) or a
printed Rugen die, whose faces carry the Rugen numbers of `equipment/rugen-die.json`.
`held_out=True` draws fonts, die colours and surfaces development never used.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.scenes_common import (
    DEV_SURFACES,
    FRAME_SIZES,
    HELD_OUT_SURFACES,
    PATTERNED_SURFACES,
    cast_shadow,
    finish,
    paste_quad,
    rot_z,
    sample_light,
    sample_view,
    surface,
    tilt_view,
)
from vision.scenes_numerals import (
    DEV_FACES,
    DEV_FONTS,
    HELD_OUT_FACES,
    HELD_OUT_FONTS,
    render_text,
)
from vision.scenes_pips import PipScene, PipTruth, shade_relief


@dataclass
class D20Scene(PipScene):
    """A frame of d20s; nadir: where its camera images the point of the table straight
    below it (image px; outside the frame under a camera tilted far): what a calibrated
    table knows of its camera."""

    nadir: tuple[float, float] = (0.0, 0.0)
    #: what a table calibrated by four corner markers knows of its camera: the homography
    #: image px -> table mm, the markers (near the frame's corners) found 0.5 px off
    table_h: np.ndarray | None = None


EQUIPMENT = Path(__file__).resolve().parent.parent / "equipment" / "rugen-die.json"
PHI = (1 + 5 ** 0.5) / 2
# (body, ink) BGR 0..1
DEV_COLOURS = (((0.93, 0.93, 0.93), (0.08, 0.08, 0.08)), ((0.2, 0.2, 0.75), (0.95, 0.95, 0.95)),
               ((0.1, 0.1, 0.1), (0.95, 0.95, 0.95)), ((0.7, 0.35, 0.1), (0.95, 0.95, 0.95)),
               ((0.82, 0.9, 0.93), (0.1, 0.1, 0.1)), ((0.2, 0.55, 0.15), (0.95, 0.95, 0.95)),
               ((0.2, 0.8, 0.9), (0.05, 0.05, 0.05)), ((0.1, 0.08, 0.08), (0.25, 0.7, 0.85)))
HELD_OUT_COLOURS = (((0.55, 0.85, 0.95), (0.1, 0.1, 0.1)), ((0.2, 0.5, 0.15), (0.1, 0.85, 0.95)),
                    ((0.5, 0.1, 0.45), (0.95, 0.95, 0.95)))
TEX_W, TEX_H = 120, 104  # a face's art: the triangle, apex up, in this rectangle


@cache
def rugen_faces() -> tuple[str, ...]:
    """The Rugen numbers of a standard d20's faces 1..20 (the seed's transposing table)."""
    data = json.loads(EQUIPMENT.read_text())
    faces = tuple(data["dice"][0]["faces"])
    if len(faces) != 20:
        raise ValueError(f"{EQUIPMENT}: expected 20 faces, found {len(faces)}")
    return faces


@cache
def icosahedron() -> tuple[np.ndarray, tuple[tuple[int, int, int], ...], tuple[int, ...]]:
    """(vertices (12, 3) of unit circumradius, faces as outward-wound vertex triples, the
    standard number 1..20 of each face: opposite faces sum to 21)."""
    v = []
    for a in (-1, 1):
        for b in (-1, 1):
            v += [(0, a, b * PHI), (a, b * PHI, 0), (b * PHI, 0, a)]
    verts = np.array(v, float)
    verts /= np.linalg.norm(verts[0])
    edge = min(np.linalg.norm(verts[0] - verts[j]) for j in range(1, 12))
    faces = []
    for i in range(12):
        for j in range(i + 1, 12):
            for k in range(j + 1, 12):
                if all(abs(np.linalg.norm(verts[p] - verts[q]) - edge) < 1e-6
                       for p, q in ((i, j), (j, k), (i, k))):
                    n = np.cross(verts[j] - verts[i], verts[k] - verts[i])
                    faces.append((i, j, k) if n @ verts[i] > 0 else (i, k, j))
    centres = np.array([verts[list(f)].mean(0) for f in faces])
    numbers = [0] * 20
    nxt = 1
    for i in range(20):
        if numbers[i]:
            continue
        opp = int(np.argmin(np.linalg.norm(centres + centres[i], axis=1)))
        numbers[i], numbers[opp] = nxt, 21 - nxt
        nxt += 1
    return verts, tuple(faces), tuple(numbers)


def face_text(number: int, printed_rugen: bool) -> str:
    """What a face shows: its number (`d20_texture` bars 6 and 9 beneath), or the Rugen
    number for a printed Rugen die."""
    return rugen_faces()[number - 1] if printed_rugen else str(number)


def d20_texture(text: str, body: tuple, ink: tuple, font: int | str, weight: float,
                height: float, dark_edges: bool = True, rounding: float = 0.0
                ) -> tuple[np.ndarray, np.ndarray]:
    """A face's art (BGR float 0..1) in TEX_W x TEX_H and its alpha: the triangle (apex up)
    with the text upright at its centre; 6 and 9 with a bar beneath. font: a Hershey font or
    a TrueType face (`vision.scenes_numerals.render_text`). dark_edges: the edges painted
    darker (a flat-shaded die; a die shaded by `d20_relief` is not); rounding: the corners
    cut round by this share of the face's height (the surround shows there)."""
    ss = 4
    w, h = TEX_W * ss, TEX_H * ss
    tex = np.empty((h, w, 3), np.float32)
    tex[:] = body
    tri = np.array([[w / 2, 0], [w, h], [0, h]], np.float32)
    mask = render_text(text, font, height * h, weight)
    if text in ("6", "9"):
        bar = np.zeros((max(2, mask.shape[0] // 8), mask.shape[1]), np.float32)
        bar[:] = 1
        mask = np.vstack([mask, np.zeros((mask.shape[0] // 8 + 1, mask.shape[1]), np.float32),
                          bar])
    if mask.shape[1] > 0.5 * w:
        f = 0.5 * w / mask.shape[1]
        mask = cv2.resize(mask, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    mh, mw = mask.shape
    cx, cy = w / 2, h * 2 / 3
    y0, x0 = int(cy - mh / 2), int(cx - mw / 2)
    tex[y0:y0 + mh, x0:x0 + mw] = (tex[y0:y0 + mh, x0:x0 + mw] * (1 - mask[:, :, None])
                                   + np.array(ink, np.float32) * mask[:, :, None])
    # the edges are rounded a little and catch less light
    dist = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(dist, np.round(tri).astype(np.int32), 255, cv2.LINE_AA)
    d = cv2.distanceTransform((dist > 127).astype(np.uint8), cv2.DIST_L2, 3) / h
    if dark_edges:
        tex *= (0.7 + 0.3 * np.clip(d / 0.05, 0, 1))[:, :, None]
    tex = cv2.resize(tex, (TEX_W, TEX_H), interpolation=cv2.INTER_AREA)
    if rounding > 0:  # the corners rounded: the triangle less what lies beyond a corner's arc
        rc = rounding * h  # the arc's radius; its centre on the bisector, 2 rc from the corner
        cen = tri.mean(0)
        inner = np.array([p + (cen - p) / np.linalg.norm(cen - p) * 2 * rc for p in tri])
        keep = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(keep, np.round(inner).astype(np.int32), 255)
        r = max(1, int(round(rc)))
        keep = cv2.dilate(keep, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2))
        dist = np.minimum(dist, keep)
    alpha = cv2.resize(dist.astype(np.float32) / 255, (TEX_W, TEX_H), interpolation=cv2.INTER_AREA)
    return tex, alpha


#: half the angle between a d20's neighbouring faces' normals (41.8 degrees): a rounded
#: edge's surface turns this far from each face's normal at the edge's middle
EDGE_TURN = math.radians(20.9)


@cache
def d20_relief(rounding: float) -> np.ndarray:
    """A face's surface normals (TEX_H x TEX_W x 3: texture x right, y down, z out of the
    face), its edges rounded: within `rounding` (share of the face's height) of an edge the
    surface turns outwards, up to EDGE_TURN at the edge, where the neighbour's rounding takes
    over (the shade then runs smoothly from face to face)."""
    yy, xx = np.mgrid[0:TEX_H, 0:TEX_W].astype(np.float32) + 0.5
    tri = np.array([[TEX_W / 2, 0], [TEX_W, TEX_H], [0, TEX_H]], np.float32)
    cen = tri.mean(0)
    nrm = np.zeros((TEX_H, TEX_W, 3), np.float32)
    nrm[:, :, 2] = 1
    band = max(rounding, 1e-3) * TEX_H
    for k in range(3):
        a, b = tri[(k + 1) % 3], tri[(k + 2) % 3]
        e = (b - a) / np.linalg.norm(b - a)
        out = np.array([e[1], -e[0]], np.float32)
        if out @ (a - cen) < 0:
            out = -out
        dist = (a - cen) @ out - ((xx - cen[0]) * out[0] + (yy - cen[1]) * out[1])
        turn = EDGE_TURN * np.clip(1 - dist / band, 0, 1) ** 1.5
        # tilt the normal outwards by `turn` (the edges' tilts add near a corner)
        nrm[:, :, 0] += np.tan(turn) * out[0]
        nrm[:, :, 1] += np.tan(turn) * out[1]
    return nrm / np.linalg.norm(nrm, axis=2, keepdims=True)


@dataclass(frozen=True)
class D20Style:
    """How one die is made."""

    body: tuple[float, float, float]
    ink: tuple[float, float, float]
    font: int | str  # a Hershey font or a TrueType face (`vision.scenes_numerals.render_text`)
    weight: float
    height: float
    printed_rugen: bool
    rounding: float = 0.0  # the edges' rounding (share of a face's height; 0: flat, sharp)
    gloss: float = 0.0  # a glossy highlight's strength


def sample_d20_style(rng: np.random.Generator, held_out: bool, printed_rugen: bool) -> D20Style:
    """One die's make: the split's colours, a Hershey font in one die of three, else a
    TrueType face (a printed Rugen die's letters: the Noto faces only), numbers 0.2-0.34 of a
    face's height, rounded edges and some gloss."""
    colours = HELD_OUT_COLOURS if held_out else DEV_COLOURS
    body, ink = colours[int(rng.integers(len(colours)))]
    fonts = HELD_OUT_FONTS if held_out else DEV_FONTS
    faces = HELD_OUT_FACES if held_out else DEV_FACES
    if printed_rugen:  # the digits-only faces have no d or n
        faces = tuple(f for f in faces if f[0].startswith("noto_"))
    if rng.random() < 1 / 3 or not faces:
        font, weight = fonts[int(rng.integers(len(fonts)))]
        weight = float(weight * rng.uniform(0.85, 1.2))
    else:
        font, weight = faces[int(rng.integers(len(faces)))]
        weight = float(weight + rng.uniform(-0.012, 0.03))
    return D20Style(tuple(float(c) for c in np.clip(np.array(body) * rng.uniform(0.92, 1.05, 3),
                                                      0, 1)),
                    ink, font, weight, float(rng.uniform(0.2, 0.34)), printed_rugen,
                    float(rng.uniform(0.03, 0.16)), float(rng.uniform(0, 0.5)))


def d20_pose(top_face: int, yaw: float, size_mm: float, x: float, y: float
             ) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(face index, world corners apex/right/left as printed, outward normal) of a die resting
    on the face opposite top_face, turned by yaw; size_mm is the distance between opposite
    faces."""
    verts, faces, _ = icosahedron()
    cen = verts[list(faces[top_face])].mean(0)
    n = cen / np.linalg.norm(cen)
    # the rotation taking n to +z
    z = np.array([0.0, 0.0, 1.0])
    v = np.cross(n, z)
    c = float(n @ z)
    if np.linalg.norm(v) < 1e-9:
        r = np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    else:
        vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        r = np.eye(3) + vx + vx @ vx / (1 + c)
    r = rot_z(yaw) @ r
    scale = size_mm / (2 * np.linalg.norm(cen))
    pts = (r @ verts.T).T * scale
    pts[:, 2] -= pts[:, 2].min()
    pts[:, :2] += (x, y)
    out = []
    for i, f in enumerate(faces):
        p = pts[list(f)]
        nn = np.cross(p[1] - p[0], p[2] - p[0])
        out.append((i, p, nn / np.linalg.norm(nn)))
    return out


def make_d20_scene(seed: int, held_out: bool = False, hard: bool | None = None,
                   n_dice: int | None = None, printed_rugen: bool | None = None) -> D20Scene:
    """One frame of one to three d20s; deterministic from the seed. A truth's label is the
    Rugen number of the top face (the standard number transposed, or the one printed).
    As the pip and numeral dice's scenes (`vision.scenes_pips.dice_scene` with real): the
    camera tilted up to 30 degrees in two frames of three, a Bayer sensor in half,
    patterned cloths in development; the dice solid, their faces shaded per pixel under the
    lamp (rounded edges, a glossy highlight, the light falling off across a face)."""
    from vision.scenes_pips import place_dice

    rng = np.random.default_rng(seed)
    hard = bool(rng.random() < 0.3) if hard is None else hard
    w, h = FRAME_SIZES[int(rng.integers(len(FRAME_SIZES)))]
    size_mm = float(rng.uniform(16, 24))
    n = int(n_dice or rng.integers(1, 4))
    most = min(220.0, math.sqrt(w * h / (n * 9.0)))
    view = sample_view(rng, (w, h), size_mm, (min(45.0, most * 0.8), most))
    kinds = HELD_OUT_SURFACES if held_out else DEV_SURFACES + PATTERNED_SURFACES
    if rng.random() < 2 / 3:
        view = tilt_view(rng, view, 30.0)
    kind = kinds[int(rng.integers(len(kinds)))]
    die_px = view.f_px * size_mm / view.height_mm
    img = surface(rng, kind, (h, w), die_px)
    light = sample_light(rng, hard)
    light["bayer"] = bool(rng.random() < 0.5)
    light["sharpen"] = float(rng.uniform(0, 0.8))
    corners = np.array([view.ground(u, v) for u, v in ((0, 0), (w, 0), (w, h), (0, h))])
    (gx0, gy0), (gx1, gy1) = corners.min(0), corners.max(0)
    m = size_mm * 1.3

    def in_view(x: float, y: float) -> bool:  # the die's top well inside the frame
        u, v = view.project(np.array([[x, y, size_mm]]))[0]
        mu = die_px * 1.2
        return mu <= u <= w - mu and mu <= v <= h - mu

    places = place_dice(rng, n, size_mm * 1.25, (gx0 + m, gy0 + m, gx1 - m, gy1 - m), 0.0,
                        in_view if view.turn is not None else None)
    lamp_d = np.array([light["lamp_dir"][0], light["lamp_dir"][1], light["lamp_height"]])
    lamp_d /= np.linalg.norm(lamp_d)
    lamp = lamp_d * view.height_mm * 2
    _, _, numbers = icosahedron()
    poses = [(x, y, float(rng.uniform(0, 360)), int(rng.integers(20))) for x, y, _, _ in places]
    for x, y, yaw, top in poses:
        pts = np.concatenate([p for _, p, _ in d20_pose(top, yaw, size_mm, x, y)])
        cast_shadow(img, view, pts, lamp + [x, y, 0], light["shadow"], max(1.0, die_px * 0.08))
    truths = []
    cam = np.array([0.0, 0.0, view.height_mm])
    for x, y, yaw, top in poses:
        rugen = bool(rng.random() < 0.3) if printed_rugen is None else printed_rugen
        style = sample_d20_style(rng, held_out, rugen)
        faces = d20_pose(top, yaw, size_mm, x, y)
        _body_underlay(img, view, faces, style, light["ambient"], lamp_d)
        seen = [f for f in faces if np.dot(cam - f[1].mean(0), f[2]) > 0]
        seen.sort(key=lambda f: f[2][2])  # the most tilted first, the top face last
        falloff = rng.uniform(-0.15, 0.15, 2)  # the light falling off across each face
        for i, p, normal in seen:
            tex, alpha = d20_texture(face_text(numbers[i], rugen), style.body, style.ink,
                                     style.font, style.weight, style.height, dark_edges=False,
                                     rounding=style.rounding * 0.6)
            apex, right, left = p[0], p[1], p[2]
            ux = (right - left) / np.linalg.norm(right - left)
            uy = (right + left) / 2 - apex
            uy /= np.linalg.norm(uy)
            centre = p.mean(0)
            eye = (cam - centre) / np.linalg.norm(cam - centre)
            to_lamp = lamp + [x, y, 0] - centre
            tex = shade_relief(tex, d20_relief(round(style.rounding, 3)), 0,
                               np.array([ux, uy, normal]), to_lamp / np.linalg.norm(to_lamp),
                               eye, light["ambient"], style.gloss)
            yy, xx = np.mgrid[0:TEX_H, 0:TEX_W].astype(np.float32)
            ramp = 1 + falloff[0] * (xx / TEX_W - 0.5) + falloff[1] * (yy / TEX_H - 0.5)
            tex = tex * ramp[:, :, None]
            quad3 = np.array([apex - (right - left) / 2, apex + (right - left) / 2, right, left])
            paste_quad(img, tex, view.project(quad3), alpha, 1.0)
        top_pts = faces[top][1]
        c = view.project(top_pts.mean(0, keepdims=True))[0]
        corners = view.project(top_pts)
        inside = bool(np.all((corners >= 0) & (corners < [w, h])))
        label = rugen_faces()[numbers[top] - 1]
        truths.append(PipTruth(label, (float(c[0]), float(c[1])), float(die_px), False, inside))
    nadir = view.project(np.zeros((1, 3)))[0]
    return D20Scene(finish(img, rng, light), truths, hard, kind,
                    (float(nadir[0]), float(nadir[1])), _markers_homography(view, seed))


def _markers_homography(view, seed: int) -> np.ndarray:
    """The homography (image px -> table mm) four markers near the frame's corners give,
    each found 0.5 px off (its own random stream: the scene is drawn as without it)."""
    w, h = view.width, view.height
    seen = np.array([[0.05 * w, 0.05 * h], [0.95 * w, 0.05 * h], [0.95 * w, 0.95 * h],
                     [0.05 * w, 0.95 * h]])
    table = np.array([view.ground(u, v) for u, v in seen])
    found = seen + np.random.default_rng(seed + 1).normal(0, 0.5, seen.shape)
    return cv2.getPerspectiveTransform(found.astype(np.float32), table.astype(np.float32))


def _body_underlay(img: np.ndarray, view, faces: list, style: D20Style, ambient: float,
                   lamp_d: np.ndarray) -> None:
    """The die's outline filled with its body's colour, its corners rounded, before its faces
    are painted: where the faces' rounded corners leave a gap, the body shows, not the table."""
    pts = view.project(np.concatenate([p for _, p, _ in faces]))
    hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
    x0, y0 = np.floor(hull.min(0)).astype(int) - 2
    x1, y1 = np.ceil(hull.max(0)).astype(int) + 3
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(img.shape[1], x1), min(img.shape[0], y1)
    if x1 <= x0 or y1 <= y0:
        return
    ss = 4
    mask = np.zeros(((y1 - y0) * ss, (x1 - x0) * ss), np.uint8)
    cv2.fillConvexPoly(mask, np.round((hull - [x0, y0]) * ss).astype(np.int32), 255)
    side = float(np.linalg.norm(pts[0] - pts[1])) if len(pts) > 1 else 1.0
    r = max(1, int(style.rounding * side * 0.6 * ss))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k)
    a = cv2.resize(mask.astype(np.float32) / 255, (x1 - x0, y1 - y0),
                   interpolation=cv2.INTER_AREA)[:, :, None]
    shade = ambient + (1 - ambient) * max(0.0, float(lamp_d[2])) * 0.8
    region = img[y0:y1, x0:x1]
    region[:] = region * (1 - a) + np.array(style.body, np.float32) * shade * a
