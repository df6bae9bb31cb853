"""Scenes of ordinary pip dice on any surface, with ground truth: the pip reader's test bench.

Widely randomized (see `vision.scenes_common`): one to ten dice of 12-25 mm, 24-170 px across,
light dice with dark pips and dark dice with light pips, pips of any colour (a red 1, and a
red 4 with it, sometimes), pips of 6-12%
of the face at a spacing of 22-30%, side faces showing away from the camera's axis, touching
dice, on felt, wood, cloth (plain, gingham, striped), paper or a speckled surface (granite,
terrazzo). The dice are solids, shaded
under the lamp: rounded edges (a bevel bright on the lamp's side, dark away from it, a glossy
highlight) and pips as painted dimples (a bowl whose wall towards the lamp is in shade). The
camera may be tilted up to 30 degrees (real perspective) and may be a colour sensor's Bayer
mosaic, demosaiced and sharpened, before JPEG. `held_out=True` draws die colours and
surfaces (stone, a checked cloth) that development never used.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.pips import LAYOUTS
from vision.scenes_common import (
    DEV_SURFACES,
    FRAME_SIZES,
    HELD_OUT_SURFACES,
    MOTTLED_SURFACES,
    PATTERNED_SURFACES,
    ROUGH_SURFACES,
    cast_shadow,
    cube_faces,
    finish,
    paste_quad,
    photo_paper,
    sample_light,
    sample_view,
    surface,
    tilt_view,
)

TEX = 96  # face texture side (px)
# (body, pips) BGR 0..1
DEV_COLOURS = (
    ((0.95, 0.95, 0.95), (0.08, 0.08, 0.08)),  # white, black pips
    ((0.82, 0.9, 0.93), (0.1, 0.1, 0.1)),  # ivory
    ((0.15, 0.15, 0.75), (0.95, 0.95, 0.95)),  # red, white pips
    ((0.08, 0.08, 0.08), (0.92, 0.92, 0.92)),  # black, white pips
    ((0.6, 0.25, 0.1), (0.95, 0.95, 0.95)),  # blue, white pips
    ((0.2, 0.55, 0.15), (0.95, 0.95, 0.95)),  # green, white pips
    ((0.2, 0.8, 0.9), (0.05, 0.05, 0.05)),  # yellow, black pips
    ((0.93, 0.93, 0.9), (0.12, 0.1, 0.7)),  # white, red pips
    ((0.1, 0.08, 0.08), (0.25, 0.7, 0.85)),  # black, gold pips
)
HELD_OUT_COLOURS = (
    ((0.6, 0.6, 0.6), (0.05, 0.05, 0.05)),  # grey, black pips
    ((0.75, 0.7, 0.95), (0.1, 0.1, 0.1)),  # pink, black pips
    ((0.45, 0.1, 0.4), (0.3, 0.75, 0.9)),  # purple, gold pips
    ((0.95, 0.95, 0.95), (0.55, 0.2, 0.05)),  # white, blue pips
    ((0.2, 0.35, 0.55), (0.92, 0.92, 0.9)),  # brown, white pips
    ((0.05, 0.3, 0.05), (0.1, 0.85, 0.95)),  # dark green, yellow pips
)
RED_ONE = (0.1, 0.1, 0.75)


@dataclass(frozen=True)
class PipStyle:
    """How one die is made: colours, pip size and spacing (fractions of a side), rounding."""

    body: tuple[float, float, float]
    pips: tuple[float, float, float]
    one: tuple[float, float, float]
    pip_r: float
    one_r: float
    spacing: float
    rounding: float
    four: tuple[float, float, float] | None = None  # red on some dice, as the one is
    relief: bool = False  # shaded as a solid under the lamp (`face_relief`), not painted dark
    dimple: float = 0.0  # the pips' bowls: their wall's slope at the rim (0: flat pips)


@dataclass(frozen=True)
class PipTruth:
    """One die in a scene: its top face and where that face's centre is in the image."""

    label: str
    center: tuple[float, float]
    side_px: float
    touching: bool
    in_frame: bool = True  # the top face wholly in the picture (else not scored)
    colour: str = ""  # the die's colour, where the reader tells dice by colour


@dataclass
class PipScene:
    """A generated frame and what is on it; nadir: where its camera images the point of the
    table straight below it (image px, outside the frame under a camera tilted far), and
    table_h what a table calibrated by four markers near the frame's corners knows of its
    camera (the homography image px -> table mm, the markers found 0.5 px off): given to a
    reader only with `bench_kinds --nadir`."""

    image: np.ndarray
    dice: list[PipTruth]
    hard: bool
    surface: str
    nadir: tuple[float, float] = (0.0, 0.0)
    table_h: np.ndarray | None = None


def sample_style(rng: np.random.Generator, held_out: bool, relief: bool = False) -> PipStyle:
    """One die's make (with relief: a solid whose edges and dimpled pips the lamp shades)."""
    colours = HELD_OUT_COLOURS if held_out else DEV_COLOURS
    body, pips = colours[int(rng.integers(len(colours)))]
    jitter = rng.uniform(0.92, 1.05, 3)
    body = tuple(float(c) for c in np.clip(np.array(body) * jitter, 0, 1))
    pip_r = float(rng.uniform(0.065, 0.11))
    one = RED_ONE if (rng.random() < 0.25 and np.mean(body) > 0.5) else pips
    four = RED_ONE if (one is RED_ONE and rng.random() < 0.5) else pips
    one_r = pip_r * (rng.uniform(1.2, 1.9) if rng.random() < 0.4 else 1.0)
    style = PipStyle(body, tuple(pips), tuple(one), pip_r, float(one_r),
                     float(rng.uniform(0.23, 0.29)), float(rng.uniform(0.06, 0.16)), tuple(four))
    if relief:  # from sharp casino edges to well rounded ones; pips flat to deep bowls
        style = replace(style, rounding=float(rng.uniform(0.04, 0.24)), relief=True,
                        dimple=float(rng.uniform(0.0, 1.6)))
    return style


def face_texture(n: int, style: PipStyle) -> tuple[np.ndarray, np.ndarray]:
    """The face showing n pips (BGR float 0..1) and its alpha (rounded corners)."""
    ss = 4
    big = TEX * ss
    tex = np.empty((big, big, 3), np.float32)
    tex[:] = style.body
    colour = style.one if n == 1 else (style.four or style.pips) if n == 4 else style.pips
    rad = (style.one_r if n == 1 else style.pip_r) * big
    for cx, cy in LAYOUTS[n]:
        x = big / 2 + cx * style.spacing * big
        y = big / 2 + cy * style.spacing * big
        rim = tuple(float(c) * 0.7 for c in colour)
        cv2.circle(tex, (int(x), int(y)), int(rad), rim, -1, cv2.LINE_AA)
        cv2.circle(tex, (int(x), int(y)), int(rad * 0.82), colour, -1, cv2.LINE_AA)
    tex = cv2.resize(tex, (TEX, TEX), interpolation=cv2.INTER_AREA)
    return rounded_face(tex, style.rounding, dark_edges=not style.relief)


def face_relief(n: int, style: PipStyle) -> np.ndarray:
    """The face's surface normals (TEX x TEX x 3, texture x right, y down, z out of the face):
    its rounded edges turn outwards (up to 45 degrees at the edge, where the side face's
    rounding takes over) and each pip is a bowl (a paraboloid whose wall meets the face at
    the style's dimple slope), turned inwards."""
    c = (np.arange(TEX, dtype=np.float32) + 0.5) / TEX
    band = max(style.rounding, 1e-3)
    grad = np.zeros((TEX, TEX, 2), np.float32)  # the surface's height slope, d/dx and d/dy
    for ax in (0, 1):
        e = np.minimum(c, 1 - c)
        sin_t = np.clip(1 - e / band, 0, 1) * math.sqrt(0.5)
        slope = -np.sign(c - 0.5) * sin_t / np.sqrt(1 - sin_t ** 2)  # falls away outwards
        grad[:, :, ax] += slope[None, :] if ax == 0 else slope[:, None]
    if style.dimple > 0:
        yy, xx = np.mgrid[0:TEX, 0:TEX].astype(np.float32) + 0.5
        rad = (style.one_r if n == 1 else style.pip_r) * TEX
        for cx, cy in LAYOUTS[n]:
            dx = xx - (TEX / 2 + cx * style.spacing * TEX)
            dy = yy - (TEX / 2 + cy * style.spacing * TEX)
            inside = (dx * dx + dy * dy) < rad * rad
            grad[:, :, 0] += np.where(inside, style.dimple * dx / rad, 0)
            grad[:, :, 1] += np.where(inside, style.dimple * dy / rad, 0)
    nrm = np.dstack([-grad[:, :, 0], -grad[:, :, 1], np.ones((TEX, TEX), np.float32)])
    return nrm / np.linalg.norm(nrm, axis=2, keepdims=True)


def shade_relief(tex: np.ndarray, normals: np.ndarray, turn: int, frame: np.ndarray,
                 lamp: np.ndarray, eye: np.ndarray, ambient: float, gloss: float) -> np.ndarray:
    """A face's art (already turned by `turn` quarter turns) lit per pixel: Lambert shading of
    its normals (turned with it) under the lamp's direction, plus a glossy highlight towards
    the eye. frame: the face's texture x, y and normal axes in the world (rows)."""
    nrm = np.rot90(normals, turn)
    for _ in range(turn % 4):  # a quarter turn of the picture turns its vectors too
        nrm = np.dstack([nrm[:, :, 1], -nrm[:, :, 0], nrm[:, :, 2]])
    lt, et = frame @ lamp, frame @ eye
    half = (lt + et) / max(1e-9, float(np.linalg.norm(lt + et)))
    lam = np.clip(nrm @ lt, 0, None)
    spec = gloss * np.clip(nrm @ half, 0, None) ** 40
    return tex * (ambient + (1 - ambient) * lam)[:, :, None] + spec[:, :, None]


def rounded_face(tex: np.ndarray, rounding: float, dark_edges: bool = True
                 ) -> tuple[np.ndarray, np.ndarray]:
    """A face's art (TEX x TEX) with rounded edges, which catch less light (unless shaded
    by `shade_relief`), and its alpha (rounded corners show what is behind)."""
    ss = 4
    big = TEX * ss
    r = np.minimum(np.arange(TEX), np.arange(TEX)[::-1]).astype(np.float32) / TEX
    edge = np.minimum(r[:, None], r[None, :])
    if dark_edges:
        tex = tex * (0.6 + 0.4 * np.clip(edge / max(rounding, 1e-3), 0, 1))[:, :, None]
    alpha = np.zeros((big, big), np.float32)
    rc = int(rounding * big)
    cv2.rectangle(alpha, (rc, 0), (big - rc, big), 1.0, -1)
    cv2.rectangle(alpha, (0, rc), (big, big - rc), 1.0, -1)
    for cx, cy in ((rc, rc), (big - rc, rc), (rc, big - rc), (big - rc, big - rc)):
        cv2.circle(alpha, (cx, cy), rc, 1.0, -1, cv2.LINE_AA)
    alpha = cv2.resize(alpha, (TEX, TEX), interpolation=cv2.INTER_AREA)
    return tex, alpha


def side_faces(rng: np.random.Generator, top: int) -> dict[str, int]:
    """The numbers on the four side faces of a standard die (opposite faces sum to 7)."""
    rest = [k for k in (1, 2, 3, 4, 5, 6) if k not in (top, 7 - top)]
    a = int(rng.choice(rest))
    b = int(rng.choice([k for k in rest if k not in (a, 7 - a)]))
    return {"px": a, "nx": 7 - a, "py": b, "ny": 7 - b}


def place_dice(rng: np.random.Generator, n: int, side_mm: float, area: tuple[float, float, float, float],
               touching_share: float, inside: Callable[[float, float], bool] | None = None
               ) -> list[tuple[float, float, float, bool]]:
    """(x, y, yaw, touching) of n dice inside the ground rectangle (and where `inside` says,
    when given: what a tilted camera sees of it), none overlapping."""
    x0, y0, x1, y1 = area
    out: list[tuple[float, float, float, bool]] = []
    clear = side_mm * 0.75
    tries = 0
    while len(out) < n and tries < 2000:
        tries += 1
        if out and rng.random() < touching_share:
            bx, by, byaw, _ = out[int(rng.integers(len(out)))]
            k = int(rng.integers(4))
            ang = math.radians(byaw + 90 * k)
            gap = side_mm * rng.uniform(1.0, 1.04)
            slide = side_mm * rng.uniform(-0.3, 0.3)
            x = bx + gap * math.cos(ang) - slide * math.sin(ang)
            y = by + gap * math.sin(ang) + slide * math.cos(ang)
            yaw = byaw + rng.uniform(-4, 4)
            touching = True
            min_d = side_mm * 0.98
        else:
            x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
            yaw = rng.uniform(0, 90)
            touching = False
            min_d = 2 * clear + side_mm * 0.2
            bx = by = math.inf
        if not (x0 <= x <= x1 and y0 <= y <= y1) or (inside is not None and not inside(x, y)):
            continue
        # a touching die keeps clear of every die but the one it touches
        if all(math.hypot(x - ox, y - oy) >= (min_d if touching and abs(ox - bx) + abs(oy - by) < 1e-9
                                             else 2 * clear + side_mm * 0.2)
               for ox, oy, _, _ in out):
            out.append((x, y, yaw, touching))
    return out


def make_pip_scene(seed: int, held_out: bool = False, hard: bool | None = None,
                   n_dice: int | None = None) -> PipScene:
    """One frame of pip dice; deterministic from the seed."""

    def new_die(rng: np.random.Generator) -> DieMake:
        style = sample_style(rng, held_out, relief=True)
        return DieMake(lambda n: face_texture(n, style), str, "",
                       lambda n: face_relief(n, style), float(rng.uniform(0, 0.5)))

    return dice_scene(seed, held_out, hard, n_dice, 10, new_die, real=True, paper_look=True)


@dataclass(frozen=True)
class DieMake:
    """One six-sided die of a scene: its face art for each value 1..6, its label for a value
    (the one `recognize` gives) and its colour name (empty when not read)."""

    texture: Callable[[int], tuple[np.ndarray, np.ndarray]]
    label: Callable[[int], str]
    colour: str
    relief: Callable[[int], np.ndarray] | None = None  # face normals, shaded per pixel
    gloss: float = 0.0  # the highlight's strength, where shaded per pixel


def dice_scene(seed: int, held_out: bool, hard: bool | None, n_dice: int | None,
               most_dice: int, new_die: Callable[[np.random.Generator], DieMake],
               side_mm_range: tuple[float, float] = (12, 25), real: bool = False,
               paper_look: bool = False, rough: float = 0.0) -> PipScene:
    """A frame of one to most_dice six-sided dice made by new_die, on a randomized surface,
    camera and light; deterministic from the seed (the pip and numeral dice's scenes).
    real: more of what real photographs show: patterned cloths (development only), a
    camera tilted up to 30 degrees (two frames in three) and a Bayer sensor (half); rough:
    the share of development frames on a rough textile (`ROUGH_SURFACES`).
    paper_look: paper as photographs show it (`photo_paper`): any white or off-white, as
    bright as a white die or brighter, fibres and cockling, the dice's shadows soft (a large
    lamp) with a contact shadow round each die's foot."""
    rng = np.random.default_rng(seed)
    hard = bool(rng.random() < 0.3) if hard is None else hard
    w, h = FRAME_SIZES[int(rng.integers(len(FRAME_SIZES)))]
    side_mm = float(rng.uniform(*side_mm_range))
    n = int(n_dice or (rng.integers(1, most_dice + 1)))
    # small dice in big frames to large dice in small ones, but ten of them must fit
    most = min(170.0, math.sqrt(w * h / (n * 9.0)))
    px = (min(24.0, most * 0.8), most)
    view = sample_view(rng, (w, h), side_mm, px)
    kinds = HELD_OUT_SURFACES if held_out else DEV_SURFACES
    if real:
        kinds = kinds if held_out else kinds + PATTERNED_SURFACES
        if rng.random() < 2 / 3:
            view = tilt_view(rng, view, 30.0)
    kind = kinds[int(rng.integers(len(kinds)))]
    if real and not held_out and np.random.default_rng([seed, 1]).random() < 1 / 7:
        # a speckled surface in a frame of seven, drawn apart (the other frames stay as they were)
        kind = MOTTLED_SURFACES[0]
    pick = np.random.default_rng([seed, 2])
    if real and not held_out and pick.random() < rough:  # drawn apart too
        kind = ROUGH_SURFACES[int(pick.integers(len(ROUGH_SURFACES)))]
    die_px = view.f_px * side_mm / view.height_mm
    img = surface(rng, kind, (h, w), die_px)
    # paper's look is drawn apart, so the other frames stay as they were
    prng = np.random.default_rng([seed, 2]) if paper_look and kind == "paper" else None
    if prng is not None:
        img = photo_paper(prng, img, die_px)
    light = sample_light(rng, hard)
    if real:
        light["bayer"] = bool(rng.random() < 0.5)
        light["sharpen"] = float(rng.uniform(0, 0.8))
    corners = np.array([view.ground(u, v) for u, v in ((0, 0), (w, 0), (w, h), (0, h))])
    (gx0, gy0), (gx1, gy1) = corners.min(0), corners.max(0)
    m = side_mm * 1.2
    area = (gx0 + m, gy0 + m, gx1 - m, gy1 - m)

    def in_view(x: float, y: float) -> bool:  # the die's top face well inside the frame
        u, v = view.project(np.array([[x, y, side_mm]]))[0]
        mu = die_px * 1.2
        return mu <= u <= w - mu and mu <= v <= h - mu

    places = place_dice(rng, n, side_mm, area, 0.45 if hard else 0.15,
                        in_view if view.turn is not None else None)
    lamp_d = np.array([light["lamp_dir"][0], light["lamp_dir"][1], light["lamp_height"]])
    lamp_d /= np.linalg.norm(lamp_d)
    lamp = lamp_d * view.height_mm * 2
    truths = []
    soft = 0.08 if prng is None else float(prng.uniform(0.08, 0.5))  # shadow's blur, die sides
    contact = 0.0 if prng is None else float(prng.uniform(0.15, 0.5))
    for x, y, yaw, _touching in places:
        solid = np.concatenate([f[1] for f in cube_faces(side_mm, x, y, yaw)])
        cast_shadow(img, view, solid, lamp + [x, y, 0], light["shadow"], max(1.0, die_px * soft))
        if contact:  # the light the die's foot shuts out from every side
            cast_shadow(img, view, solid[solid[:, 2] < 1e-6], np.array([x, y, 1e6]), contact,
                        max(1.0, die_px * 0.12))
    # painted far to near over every die at once (a die's side face must not cover the top
    # face of the die it touches): side faces by their distance from the lens, tops last
    draws: list[tuple[bool, float, np.ndarray, np.ndarray, np.ndarray, float]] = []
    for x, y, yaw, touching in places:
        die = new_die(rng)
        top = int(rng.integers(1, 7))
        sides = side_faces(rng, top)
        faces = cube_faces(side_mm, x, y, yaw)
        cam = np.array([0.0, 0.0, view.height_mm])
        order = sorted(faces, key=lambda f: f[0] == "top")
        for name, pts, normal in order:
            centre = pts.mean(0)
            if np.dot(cam - centre, normal) <= 0:
                continue
            value = top if name == "top" else sides[name]
            tex, alpha = die.texture(value)
            turn = int(rng.integers(4))
            tex, alpha = np.rot90(tex, turn).copy(), np.rot90(alpha, turn).copy()
            shade = light["ambient"] + (1 - light["ambient"]) * max(0.0, float(normal @ lamp_d))
            if die.relief is not None:
                u, v = pts[1] - pts[0], pts[3] - pts[0]
                frame = np.array([u / np.linalg.norm(u), v / np.linalg.norm(v), normal])
                eye = (cam - centre) / np.linalg.norm(cam - centre)
                tex = shade_relief(tex, die.relief(value), turn, frame, lamp_d, eye,
                                   light["ambient"], die.gloss)
                shade = 1.0
            draws.append((name == "top", -float(np.linalg.norm(cam - centre)), tex,
                          view.project(pts), alpha, shade))
        top_pts = faces[0][1]
        c = view.project(top_pts.mean(0, keepdims=True))[0]
        corners = view.project(top_pts)
        inside = bool(np.all((corners >= 0) & (corners < [w, h])))
        side_px = math.sqrt(abs(cv2.contourArea(corners.astype(np.float32)))) if real else die_px
        truths.append(PipTruth(die.label(top), (float(c[0]), float(c[1])), side_px,
                               touching, inside, die.colour))
    for _, _, tex, quad, alpha, shade in sorted(draws, key=lambda d: d[:2]):
        paste_quad(img, tex, quad, alpha, shade)
    from vision.scenes_d20 import _markers_homography  # (it imports this module)

    nadir = view.project(np.zeros((1, 3)))[0]  # drawn from no stream: the frame is unchanged
    return PipScene(finish(img, rng, light), truths, hard, kind,
                    (float(nadir[0]), float(nadir[1])), _markers_homography(view, seed))
