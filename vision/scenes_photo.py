"""The independent judge's photo-like scenes: pip dice, poker cards, the d20 and Namaste
numeral dice rendered physically, with each object's truth.

Not one of the recognizers' generators and not to be tuned on (see docs/vision.md,
"independent judge"). Method (vision/photo_world.py has the camera, surfaces and sensor):

- every pixel is a ray from a pinhole camera 30-120 cm above the table, tilted 0-25 degrees,
  any roll, a phone's or a Pi camera's field of view, radial distortion in the lens;
- dice are signed distance fields sphere-traced per die (numpy over the die's box of
  pixels): a rounded cube whose pips are spherical dimples cut into it and painted, a sharp
  icosahedron with a number on each face (TrueType fonts, vision/ttf.py), a rounded cube
  with a numeral on each face; Lambert and Blinn-Phong shading from one or two lamps, soft
  shadows on the table and on the dice;
- cards are gently bent surfaces over the table, stacked, with a face design of the judge's
  own (indices rank over suit in a TrueType font, its own pip layout and court panels);
- the table is wood, cloth, paper or felt of any colour, made from noise in millimetres.

`make_photo_scene(kind, seed)` returns the photo, every object's truth (label, centre of
the top face or card in pixels, size in pixels, whether it is wholly seen and so scored) and
an object-id image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np

from vision.photo_world import SURFACES, Camera, develop, sample_camera, surface_texture
from vision.ttf import text_mask

KINDS = ("pips", "cards", "d20", "numerals")
FONTS = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "LiberationSerif-Bold.ttf",
         "DejaVuSerif-Bold.ttf", "DejaVuSans.ttf", "LiberationSerif-Regular.ttf")
EPS = 0.02  # mm: a ray has hit a surface


@dataclass
class Truth:
    """One object as it is: what the bench compares readings with."""

    oid: int
    kind: str
    label: str
    center: tuple[float, float]  # pixel of the top face's (card's) centre
    side_px: float  # the die's edge (card's width) in pixels there
    in_frame: bool = True  # wholly in view and uncovered: scored
    colour: str = ""
    why_unscored: str = ""


@dataclass
class PhotoScene:
    """A photo and its truth."""

    image: np.ndarray
    objects: list[Truth]
    ids: np.ndarray  # object id per pixel (-1: table)
    info: dict = field(default_factory=dict)

    @property
    def dice(self) -> list[Truth]:
        """The objects (the name vision.bench_kinds.score reads)."""
        return self.objects


# -- lamps and shading ---------------------------------------------------------------------


@dataclass
class Lamp:
    pos: np.ndarray
    colour: np.ndarray  # linear BGR
    power: float
    radius: float  # soft shadow width (mm of lamp)


def sample_lamps(rng: np.random.Generator, target: np.ndarray, hard: bool) -> tuple[list[Lamp], np.ndarray]:
    """One or two lamps over the table and the room's ambient light."""
    lamps = []
    warm = np.array([0.55, 0.8, 1.0])
    cool = np.array([1.0, 0.95, 0.9])
    for i in range(1 if rng.random() < 0.55 else 2):
        h = rng.uniform(350, 900) if hard else rng.uniform(600, 1600)
        off = rng.uniform(0, 0.9 if hard else 0.6) * h
        a = rng.uniform(0, 2 * math.pi)
        pos = target + np.array([off * math.cos(a), off * math.sin(a), h])
        mix = rng.random()
        col = (warm * mix + cool * (1 - mix)).astype(np.float32)
        power = float(np.linalg.norm(pos - target) ** 2) * (1.0 if i == 0 else rng.uniform(0.3, 0.8))
        lamps.append(Lamp(pos, col, power, rng.uniform(5, 60)))
    amb = (rng.uniform(0.04, 0.15) if hard else rng.uniform(0.12, 0.35))
    amb_col = np.array([1.0, 0.97, 0.93], np.float32) * amb
    return lamps, amb_col


# -- bodies: signed distance fields in the body's own frame (mm) ---------------------------


def _frame_to(n: np.ndarray) -> np.ndarray:
    """A rotation taking unit vector n to +z."""
    a = np.array([1.0, 0, 0]) if abs(n[0]) < 0.9 else np.array([0, 1.0, 0])
    a = a - (a @ n) * n
    a /= np.linalg.norm(a)
    return np.stack([a, np.cross(n, a), n])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _rounded_box(p: np.ndarray, b: float, r: float) -> np.ndarray:
    q = np.abs(p) - (b - r)
    return (np.linalg.norm(np.maximum(q, 0), axis=-1) + np.minimum(q.max(-1), 0) - r)


#: the six faces of a cube: (outward normal, "right" tangent, "up" tangent)
CUBE_FACES = [(np.array(n, float), np.array(t, float), np.cross(n, t).astype(float))
              for n, t in (((0, 0, 1), (1, 0, 0)), ((0, 0, -1), (-1, 0, 0)),
                           ((1, 0, 0), (0, 1, 0)), ((-1, 0, 0), (0, -1, 0)),
                           ((0, 1, 0), (0, 0, 1)), ((0, -1, 0), (0, 0, -1)))]
PIP_FACE_VALUES = (1, 6, 2, 5, 3, 4)  # opposite faces sum to 7
LAYOUTS = {1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
           4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
           5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
           6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1))}


class Body:
    """A solid resting on the table: world = rot @ local + centre."""

    kind = "body"

    def __init__(self, oid: int, centre: np.ndarray, rot: np.ndarray, bound: float) -> None:
        self.oid, self.centre, self.rot, self.bound = oid, centre, rot, bound

    def local(self, p: np.ndarray) -> np.ndarray:
        return (p - self.centre) @ self.rot

    def sdf(self, p: np.ndarray) -> np.ndarray:  # local points
        raise NotImplementedError

    def hull(self, p: np.ndarray) -> np.ndarray:
        """A cheaper field for shadows (no dimples or ink)."""
        return self.sdf(p)

    def _lay_cube(self, oid: int, rng: np.random.Generator, xy: np.ndarray, b: float,
                  face: int) -> None:
        """Lay a cube of half side b flat at xy, CUBE_FACES[face] up, turned at random."""
        rot = _rot_z(rng.uniform(0, 2 * math.pi)) @ _frame_to(CUBE_FACES[face][0])
        Body.__init__(self, oid, np.array([xy[0], xy[1], b]), rot, b * math.sqrt(3) + 0.5)

    def paint(self, p: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(albedo N x 3, specular strength N) at local surface points."""
        raise NotImplementedError

    def top_face(self, p: np.ndarray) -> np.ndarray:
        """Which local surface points belong to the face the truth is about."""
        raise NotImplementedError


class PipDie(Body):
    kind = "pips"

    def __init__(self, oid: int, rng: np.random.Generator, xy: np.ndarray, side: float,
                 up: int, style: dict) -> None:
        b = side / 2
        face = PIP_FACE_VALUES.index(up)
        self._lay_cube(oid, rng, xy, b, face)
        self.b, self.side, self.up, self.style = b, side, up, style
        self.r = side * style["round"]
        a = side * style["pip"]
        depth = a * style["depth"]
        g = side * style["spacing"]
        centres, spheres, radii, values = [], [], [], []
        for (n, t1, t2), v in zip(CUBE_FACES, PIP_FACE_VALUES, strict=True):
            for i, j in LAYOUTS[v]:
                c = b * n + g * (i * t1 + j * t2)
                rs = (a * a + depth * depth) / (2 * depth)
                centres.append(c)
                spheres.append(c + (rs - depth) * n)
                radii.append(rs)
                values.append(v)
        self.pc, self.sc = np.array(centres), np.array(spheres)
        self.rs, self.pv = np.array(radii), np.array(values)
        self.rim = math.sqrt(a * a + depth * depth) * 1.03

    def hull(self, p):
        return _rounded_box(p, self.b, self.r)

    def sdf(self, p):
        box = _rounded_box(p, self.b, self.r)
        d = np.sqrt(((p[:, None, :] - self.sc[None]) ** 2).sum(-1)) - self.rs[None]
        return np.maximum(box, -d.min(1))

    def paint(self, p, n):
        st = self.style
        alb = np.broadcast_to(st["body"], (len(p), 3)).copy()
        d = np.sqrt(((p[:, None, :] - self.pc[None]) ** 2).sum(-1))
        k = d.argmin(1)
        inside = d[np.arange(len(p)), k] < self.rim
        if st.get("painted", True):
            red = np.isin(self.pv[k], st.get("red_faces", ()))
            alb[inside] = st["pip"+"_colour"]
            alb[inside & red] = st["red"]
        spec = np.full(len(p), st["gloss"], np.float32)
        return alb, spec

    def top_face(self, p):
        return p @ self.rot[2] > self.b - self.r * 0.5  # the local axis that points up


def pip_style(rng: np.random.Generator, held_out: bool = False) -> dict:
    """A set of dice as a shop sells them: light with dark pips or dark with light pips,
    sometimes red ones and fours, rounder or sharper, pips larger or smaller."""
    light = rng.random() < 0.6
    if light:
        body = np.array(rng.choice([[0.80, 0.82, 0.82], [0.62, 0.76, 0.80], [0.45, 0.70, 0.80],
                                    [0.70, 0.60, 0.85], [0.70, 0.80, 0.60]]))
        pipc = np.array(rng.choice([[0.02, 0.02, 0.02], [0.20, 0.05, 0.02], [0.03, 0.10, 0.03]]))
    else:
        body = np.array(rng.choice([[0.02, 0.02, 0.02], [0.03, 0.03, 0.35], [0.25, 0.04, 0.02],
                                    [0.03, 0.18, 0.03], [0.20, 0.03, 0.15], [0.30, 0.15, 0.03]]))
        pipc = np.array(rng.choice([[0.80, 0.80, 0.80], [0.80, 0.80, 0.80], [0.25, 0.55, 0.70]]))
    body = body * rng.uniform(0.85, 1.1)
    return {"body": body.astype(np.float32), "pip_colour": pipc.astype(np.float32),
            "red": np.array([0.03, 0.03, 0.55], np.float32),
            "red_faces": (1, 4) if light and rng.random() < 0.3 else (),
            "round": rng.uniform(0.08, 0.2), "pip": rng.uniform(0.075, 0.1),
            "depth": rng.uniform(0.25, 0.6), "spacing": rng.uniform(0.24, 0.3),
            "gloss": rng.uniform(0.05, 0.5), "shine": rng.uniform(60, 400), "light": light}


# -- the d20 -------------------------------------------------------------------------------


@cache
def icosahedron() -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """(unit face normals 20x3, vertices 12x3 (in-radius 1), faces 20x3 vertex indices,
    the number on each face: opposite faces sum to 21)."""
    phi = (1 + 5 ** 0.5) / 2
    v = []
    for a in (-1, 1):
        for b in (-phi, phi):
            v += [(0, a, b), (a, b, 0), (b, 0, a)]
    v = np.array(v, float)
    faces = []
    for i in range(12):
        for j in range(i + 1, 12):
            for k in range(j + 1, 12):
                if all(abs(np.linalg.norm(v[x] - v[y]) - 2) < 1e-6
                       for x, y in ((i, j), (j, k), (i, k))):
                    faces.append((i, j, k))
    faces = np.array(faces)
    normals = v[faces].mean(1)
    inr = float(np.linalg.norm(normals[0]))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    v = v / inr
    order = np.random.default_rng(20).permutation(len(faces))
    numbers = [0] * 20
    n = 1
    for f in order:
        if numbers[f]:
            continue
        opp = int(np.argmin(normals @ normals[f]))
        numbers[f], numbers[opp] = n, 21 - n
        n += 1
    return normals, v, faces, numbers


@cache
def rugen_faces() -> tuple[str, ...]:
    """The Rugen number of each standard d20 number 1..20 (equipment/rugen-die.json)."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / "equipment" / "rugen-die.json")
                      .read_text())
    return tuple(data["dice"][0]["faces"])


@cache
def _number_decal(text: str, font_name: str, px: int, bar: bool = True) -> np.ndarray:
    """A number's ink mask; 6 and 9 with a bar under them (where a die has both)."""
    m = text_mask(text, font_name, px)
    if bar and text in ("6", "9"):
        bar = np.zeros((max(2, px // 4), m.shape[1]), np.float32)
        bar[-max(1, px // 8):, :] = 1
        m = np.vstack([m, bar])
    return m


def remap_points(img: np.ndarray, mx: np.ndarray, my: np.ndarray, border: int) -> np.ndarray:
    """img sampled (bilinear) at N points: cv2.remap on maps folded into rows of 1024 (a map
    may not have 32767 rows)."""
    n = len(mx)
    rows = max(1, -(-n // 1024))
    fx = np.full(rows * 1024, -10, np.float32)
    fy = np.full(rows * 1024, -10, np.float32)
    fx[:n], fy[:n] = mx.reshape(-1), my.reshape(-1)
    out = cv2.remap(img, fx.reshape(rows, 1024), fy.reshape(rows, 1024), cv2.INTER_LINEAR,
                    borderMode=border, borderValue=0)
    return out.reshape(rows * 1024, *img.shape[2:])[:n]


class Decal:
    """Ink on a face: a mask placed in face coordinates (mm, right and up)."""

    def __init__(self, mask: np.ndarray, height_mm: float, offset=(0.0, 0.0), turn=0.0) -> None:
        self.mask = mask
        self.mm = height_mm / mask.shape[0]  # mm per mask texel
        self.offset, self.turn = offset, turn

    def sample(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        c, s = math.cos(self.turn), math.sin(self.turn)
        a, b = a - self.offset[0], b - self.offset[1]
        a, b = c * a + s * b, -s * a + c * b
        h, w = self.mask.shape
        mx = (a / self.mm + w / 2 - 0.5).astype(np.float32)
        my = (-b / self.mm + h / 2 - 0.5).astype(np.float32)
        return remap_points(self.mask, mx, my, cv2.BORDER_CONSTANT)


class D20(Body):
    kind = "d20"

    def __init__(self, oid: int, rng: np.random.Generator, xy: np.ndarray, size: float,
                 style: dict) -> None:
        normals, verts, faces, numbers = icosahedron()
        self.r_in = size / 2
        bottom = int(rng.integers(20))
        rot = _rot_z(rng.uniform(0, 2 * math.pi)) @ _frame_to(-normals[bottom])
        super().__init__(oid, np.array([xy[0], xy[1], self.r_in]), rot,
                         self.r_in * 1.26 + 0.5)
        self.normals, self.numbers, self.style = normals, numbers, style
        self.verts = verts * self.r_in
        edge = float(np.linalg.norm(self.verts[faces[0][0]] - self.verts[faces[0][1]]))
        self.up, self.right, self.decals = [], [], []
        for f in range(20):
            n = normals[f]
            u = self.verts[faces[f][0]] - self.verts[faces[f]].mean(0)
            u -= (u @ n) * n
            u /= np.linalg.norm(u)
            self.up.append(u)
            self.right.append(np.cross(u, n))
            self.decals.append(Decal(_number_decal(str(numbers[f]), style["font"], 48),
                                     edge * style["ink_h"] * (1 if numbers[f] < 10 else 0.9),
                                     (0.0, edge * 0.03)))
        self.up, self.right = np.array(self.up), np.array(self.right)
        self.top = int(np.argmax((normals @ rot.T)[:, 2]))  # the face up (world z)

    def sdf(self, p):
        return (p @ self.normals.T).max(1) - self.r_in

    def paint(self, p, n):
        st = self.style
        f = (p @ self.normals.T).argmax(1)
        ink = np.zeros(len(p), np.float32)
        for k in np.unique(f):
            m = f == k
            c = self.normals[k] * self.r_in
            q = p[m] - c
            ink[m] = self.decals[k].sample(q @ self.right[k], q @ self.up[k])
        alb = st["body"][None] * (1 - ink[:, None]) + st["ink"][None] * ink[:, None]
        return alb.astype(np.float32), np.full(len(p), st["gloss"], np.float32)

    def top_face(self, p):
        return (p @ self.normals.T).argmax(1) == self.top


def d20_style(rng: np.random.Generator) -> dict:
    light = rng.random() < 0.6
    if light:
        body = np.array(rng.choice([[0.8, 0.8, 0.8], [0.55, 0.75, 0.8], [0.75, 0.55, 0.45]]))
        ink = np.array(rng.choice([[0.02, 0.02, 0.02], [0.35, 0.05, 0.02]]))
    else:
        body = np.array(rng.choice([[0.02, 0.02, 0.02], [0.25, 0.04, 0.02], [0.02, 0.02, 0.3],
                                    [0.04, 0.2, 0.04]]))
        ink = np.array(rng.choice([[0.8, 0.8, 0.8], [0.1, 0.55, 0.75]]))
    return {"body": body.astype(np.float32), "ink": ink.astype(np.float32),
            "font": str(rng.choice(FONTS)), "ink_h": rng.uniform(0.26, 0.36),
            "gloss": rng.uniform(0.1, 0.6), "shine": rng.uniform(80, 500), "light": light}


# -- Namaste numeral dice ------------------------------------------------------------------

NUMERAL_GLYPHS = ("1/7", "6", "2", "5", "3", "4")  # on CUBE_FACES, opposite faces sum to 7


class NumeralDie(Body):
    kind = "numerals"

    def __init__(self, oid: int, rng: np.random.Generator, xy: np.ndarray, side: float,
                 up: str, style: dict) -> None:
        b = side / 2
        face = NUMERAL_GLYPHS.index(up)
        self._lay_cube(oid, rng, xy, b, face)
        self.b, self.r, self.up, self.style = b, side * style["round"], up, style
        self.decals = [Decal(_number_decal(g, style["font"], 48, bar=False),
                             side * style["ink_h"] * (0.8 if "/" in g else 1.0), (0, 0),
                             rng.uniform(-0.08, 0.08)) for g in NUMERAL_GLYPHS]

    def sdf(self, p):
        return _rounded_box(p, self.b, self.r)

    def paint(self, p, n):
        st = self.style
        normals = np.array([f[0] for f in CUBE_FACES])
        f = (p @ normals.T).argmax(1)
        ink = np.zeros(len(p), np.float32)
        for k in np.unique(f):
            m = f == k
            _, t1, t2 = CUBE_FACES[k]
            ink[m] = self.decals[k].sample(p[m] @ t1, p[m] @ t2)
        alb = st["body"][None] * (1 - ink[:, None]) + st["ink"][None] * ink[:, None]
        return alb.astype(np.float32), np.full(len(p), st["gloss"], np.float32)

    def top_face(self, p):
        return p @ self.rot[2] > self.b - self.r * 0.5  # the local axis that points up


def numeral_style(rng: np.random.Generator, colour: str) -> dict:
    """A Namaste die of a colour (equipment/namaste.json's body colours, as sRGB paint)."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / "equipment" / "namaste.json")
                      .read_text())
    die = next(d for d in data["dice"] if d["colour"] == colour)
    body = (np.array(die["body_bgr"], float) / 255) ** 2.2
    ink = (np.array(die["ink_bgr"], float) / 255) ** 2.2
    return {"body": (body * rng.uniform(0.9, 1.05)).astype(np.float32),
            "ink": ink.astype(np.float32), "font": str(rng.choice(FONTS)),
            "ink_h": rng.uniform(0.4, 0.55), "round": rng.uniform(0.08, 0.16),
            "gloss": rng.uniform(0.05, 0.4), "shine": rng.uniform(60, 400), "light": True}


# -- cards ---------------------------------------------------------------------------------

CARD_MM = (63.0, 88.0)
RANKS = "23456789TJQKA"
SUITS = "SHDC"
SUIT_CHAR = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
PX_MM = 6  # card face texels per mm


def deck_style(rng: np.random.Generator) -> dict:
    """One deck's design (the table's own deck): fonts, inks, paper, court panel colour."""
    font = str(rng.choice(("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf",
                           "LiberationSerif-Bold.ttf", "DejaVuSerif-Bold.ttf")))
    return {"font": font,
            "suit_font": str(rng.choice(("DejaVuSans.ttf", "LiberationSans-Regular.ttf"))),
            "red": np.array([0.08, 0.05, rng.uniform(0.45, 0.7)], np.float32),
            "black": np.array([0.03, 0.03, 0.03], np.float32) * rng.uniform(0.5, 1.5),
            "paper": np.array([0.80, 0.84, 0.85], np.float32) * rng.uniform(0.9, 1.05),
            "panel": np.array(rng.choice([[0.45, 0.75, 0.85], [0.80, 0.65, 0.55],
                                          [0.55, 0.80, 0.60]]), np.float32),
            "frame": bool(rng.random() < 0.6), "gloss": rng.uniform(0.05, 0.35)}


def _stamp(tex: np.ndarray, mask: np.ndarray, centre: tuple[float, float], height_mm: float,
           colour: np.ndarray, turn180: bool = False) -> None:
    """Ink `mask` onto a card face texture, centred at centre (mm), height_mm tall."""
    h = max(2, int(round(height_mm * PX_MM)))
    w = max(2, int(round(mask.shape[1] * h / mask.shape[0])))
    m = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)
    if turn180:
        m = m[::-1, ::-1]
    x0 = int(round(centre[0] * PX_MM - w / 2))
    y0 = int(round(centre[1] * PX_MM - h / 2))
    H, W = tex.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if xa >= xb or ya >= yb:
        return
    sub = m[ya - y0: yb - y0, xa - x0: xb - x0][..., None]
    tex[ya:yb, xa:xb] = tex[ya:yb, xa:xb] * (1 - sub) + colour * sub


#: where a count's pips lie on the judge's own cards (mm from the card's top-left)
def _pip_places(n: int) -> list[tuple[float, float]]:
    cx, lf, r = 31.5, 20.5, 42.5
    rows = {2: [(cx, 22), (cx, 66)], 3: [(cx, 22), (cx, 44), (cx, 66)],
            4: [(lf, 22), (r, 22), (lf, 66), (r, 66)],
            5: [(lf, 22), (r, 22), (cx, 44), (lf, 66), (r, 66)],
            6: [(lf, 22), (r, 22), (lf, 44), (r, 44), (lf, 66), (r, 66)],
            7: [(lf, 22), (r, 22), (cx, 33), (lf, 44), (r, 44), (lf, 66), (r, 66)],
            8: [(lf, 22), (r, 22), (cx, 33), (lf, 44), (r, 44), (cx, 55), (lf, 66), (r, 66)],
            9: [(lf, 21), (r, 21), (lf, 36), (r, 36), (cx, 44), (lf, 52), (r, 52), (lf, 67),
                (r, 67)],
            10: [(lf, 21), (r, 21), (cx, 29), (lf, 36), (r, 36), (lf, 52), (r, 52), (cx, 59),
                 (lf, 67), (r, 67)]}
    return rows[n]


def card_face(label: str, deck: dict) -> np.ndarray:
    """The judge's own poker face of `label` (e.g. "TH") as a linear BGR texture, PX_MM a mm."""
    w, h = (int(CARD_MM[0] * PX_MM), int(CARD_MM[1] * PX_MM))
    tex = np.empty((h, w, 3), np.float32)
    tex[:] = deck["paper"]
    rank, suit = label[0], label[1]
    ink = deck["red"] if suit in "HD" else deck["black"]
    sm = text_mask(SUIT_CHAR[suit], deck["suit_font"], 64)
    shown = "10" if rank == "T" else rank
    rm = text_mask(shown, deck["font"], 64)
    if deck["frame"]:
        fr = np.zeros((h, w), np.float32)
        cv2.rectangle(fr, (int(2.5 * PX_MM), int(2.5 * PX_MM)),
                      (w - int(2.5 * PX_MM), h - int(2.5 * PX_MM)), 1.0, 1)
        tex[:] = tex * (1 - 0.6 * fr[..., None]) + deck["panel"] * 0.6 * fr[..., None]
    for turn in (False, True):
        x, y = (5.5, 6.5), (5.5, 14.5)
        if turn:
            x, y = (CARD_MM[0] - x[0], CARD_MM[1] - x[1]), (CARD_MM[0] - y[0], CARD_MM[1] - y[1])
        _stamp(tex, rm, x, 6.5, ink, turn)
        _stamp(tex, sm, y, 4.5, ink, turn)
    if rank in "JQK":
        x0, y0, x1, y1 = (int(v * PX_MM) for v in (12, 12, CARD_MM[0] - 12, CARD_MM[1] - 12))
        tex[y0:y1, x0:x1] = deck["panel"]
        cv2.rectangle(tex, (x0, y0), (x1, y1), tuple(float(c) for c in ink), 2)
        _stamp(tex, rm, (CARD_MM[0] / 2, CARD_MM[1] / 2), 24, ink)
        _stamp(tex, sm, (CARD_MM[0] / 2, 22), 9, ink)
        _stamp(tex, sm, (CARD_MM[0] / 2, CARD_MM[1] - 22), 9, ink, True)
    elif rank == "A":
        _stamp(tex, sm, (CARD_MM[0] / 2, CARD_MM[1] / 2), 26, ink)
    else:
        n = 10 if rank == "T" else int(rank)
        for x, y in _pip_places(n):
            _stamp(tex, sm, (x, y), 9.5, ink, y > CARD_MM[1] / 2 + 1)
    return tex


@dataclass
class Card:
    oid: int
    label: str
    xy: np.ndarray
    yaw: float
    z: float  # height of its edges above the table
    bend: float  # mm of arch (negative: the long edges curl up)
    along: int  # 0: bent across the width, 1: along the length
    tex: np.ndarray

    def height(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        s = (u / (CARD_MM[0] / 2)) if self.along == 0 else (v / (CARD_MM[1] / 2))
        s2 = np.clip(s, -1, 1) ** 2
        if self.bend >= 0:  # arched: the middle lifted
            return self.z + self.bend * (1 - s2)
        return self.z - self.bend * s2  # cupped: the edges lifted

    def slope(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.along == 0:
            return -2 * self.bend * u / (CARD_MM[0] / 2) ** 2, np.zeros_like(v)
        return np.zeros_like(u), -2 * self.bend * v / (CARD_MM[1] / 2) ** 2

    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return np.array([c, s]), np.array([-s, c])


# -- rendering -----------------------------------------------------------------------------


class Frame:
    """Radiance, depth and ids of one picture being rendered."""

    def __init__(self, cam: Camera, rng: np.random.Generator, surface: str, hard: bool,
                 target: np.ndarray) -> None:
        self.cam, self.rng = cam, rng
        w, h = cam.size
        ys, xs = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32),
                             indexing="ij")
        self.dirs = cam.rays(xs, ys).astype(np.float32)
        t = -cam.pos[2] / np.minimum(self.dirs[..., 2], -1e-4)
        self.table = cam.pos[None, None].astype(np.float32) + t[..., None] * self.dirs
        self.depth = t.astype(np.float32)
        self.ids = np.full((h, w), -1, np.int32)
        self.top = np.zeros((h, w), bool)
        self.lamps, self.ambient = sample_lamps(rng, target, hard)
        self.surface = surface
        self.bodies: list[Body] = []
        self.shine: dict[int, float] = {}
        # the table's reflectance from a texture in mm
        texel = cam.mm_per_px(target) / 1.3
        tx, ty = self.table[..., 0], self.table[..., 1]
        rim = np.concatenate([self.table[0], self.table[-1], self.table[:, 0],
                              self.table[:, -1]])[:, :2]  # the frame's edge bounds the table
        lo, hi = rim.min(0) - 5, rim.max(0) + 5
        while np.any((hi - lo) / texel > 2400):
            texel *= 1.25
        shape = tuple(int(v) + 1 for v in ((hi - lo) / texel)[::-1])
        tex = surface_texture(rng, surface, shape, texel)
        mx = ((tx - lo[0]) / texel).astype(np.float32)
        my = ((ty - lo[1]) / texel).astype(np.float32)
        self.albedo = cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        self.normal = np.zeros((h, w, 3), np.float32)
        self.normal[..., 2] = 1
        self.gloss = np.full((h, w), 0.02 if surface != "paper" else 0.05, np.float32)
        self.shininess = np.full((h, w), 8.0, np.float32)
        self.shadow = np.ones((len(self.lamps), h, w), np.float32)

    def clone(self) -> Frame:
        """A copy to draw into (the table, camera and lamps shared, the buffers copied)."""
        import copy

        out = copy.copy(self)
        for name in ("depth", "ids", "top", "albedo", "normal", "gloss", "shininess", "shadow"):
            setattr(out, name, getattr(self, name).copy())
        out.bodies = []
        return out

    def bbox(self, pts: np.ndarray, pad: int = 2) -> tuple[int, int, int, int] | None:
        px = self.cam.project(pts)
        w, h = self.cam.size
        x0, y0 = np.floor(px.min(0)).astype(int) - pad
        x1, y1 = np.ceil(px.max(0)).astype(int) + pad
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        return None if x0 >= x1 or y0 >= y1 else (x0, y0, x1, y1)

    # -- dice
    def add_body(self, body: Body) -> tuple[int, int]:
        """Trace a body into the frame; (its top-face pixels, those left after occlusion)."""
        self.bodies.append(body)
        c, r = body.centre, body.bound
        corners = c + r * np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1)
                                    for z in (-1, 1)], float)
        box = self.bbox(corners)
        if box is None:
            return 0, 0
        x0, y0, x1, y1 = box
        d = self.dirs[y0:y1, x0:x1].reshape(-1, 3).astype(np.float64)
        o = self.cam.pos
        oc = o - c
        bq = d @ oc
        disc = bq * bq - (oc @ oc - r * r)
        idx = np.nonzero(disc > 0)[0]
        t = -bq[idx] - np.sqrt(disc[idx])
        dl = d[idx] @ body.rot
        ol = (o - c) @ body.rot
        alive = np.ones(len(idx), bool)
        hit = np.zeros(len(idx), bool)
        for _ in range(96):
            a = np.nonzero(alive)[0]
            if not len(a):
                break
            s = body.sdf(ol + t[a, None] * dl[a])
            t[a] += s * 0.95
            hit[a[s < EPS]] = True
            alive[a[(s < EPS) | (t[a] > -bq[idx[a]] + np.sqrt(disc[idx[a]]) + 1)]] = False
        if not hit.any():
            return 0, 0
        idx, t, dl = idx[hit], t[hit], dl[hit]
        p = ol + t[:, None] * dl
        yy, xx = np.divmod(idx, x1 - x0)
        yy, xx = yy + y0, xx + x0
        top = body.top_face(p)
        own_top = int(top.sum())
        nearer = t < self.depth[yy, xx]
        yy, xx, p, t, top = yy[nearer], xx[nearer], p[nearer], t[nearer], top[nearer]
        # normal from the field's gradient (tetrahedron), to the world
        e = 0.01
        k = np.array([[1, -1, -1], [-1, -1, 1], [-1, 1, -1], [1, 1, 1]], float)
        nl = sum(kk[None] * body.sdf(p + e * kk)[:, None] for kk in k)
        nl /= np.maximum(np.linalg.norm(nl, axis=1, keepdims=True), 1e-9)
        alb, spec = body.paint(p, nl)
        self.depth[yy, xx] = t
        self.ids[yy, xx] = body.oid
        self.top[yy, xx] = top
        self.albedo[yy, xx] = alb
        self.normal[yy, xx] = nl @ body.rot.T
        self.gloss[yy, xx] = spec
        self.shininess[yy, xx] = body.style.get("shine", 40)
        return own_top, int(top.sum())

    def cast_shadows(self) -> None:
        """Soft shadows of the bodies on the table and on each other (marching to each lamp
        against the bodies near the point)."""
        if not self.bodies:
            return
        h, w = self.ids.shape
        for body in self.bodies:
            reach = body.bound * 3.0
            c = body.centre
            sq = np.array([[c[0] + x * reach, c[1] + y * reach, z] for x in (-1, 1)
                           for y in (-1, 1) for z in (0, 2 * body.bound)])
            box = self.bbox(sq)
            if box is None:
                continue
            x0, y0, x1, y1 = box
            depth = self.depth[y0:y1, x0:x1]
            pts = (self.cam.pos[None, None] + depth[..., None] * self.dirs[y0:y1, x0:x1]
                   ).reshape(-1, 3).astype(np.float64)
            near = np.linalg.norm(pts[:, :2] - c[:2], axis=1) < reach
            ids = self.ids[y0:y1, x0:x1].reshape(-1)
            near &= ids != body.oid
            if not near.any():
                continue
            pn = pts[near]
            for li, lamp in enumerate(self.lamps):
                to = lamp.pos - pn
                dist = np.linalg.norm(to, axis=1)
                ldir = to / dist[:, None]
                # only rays towards the lamp that pass within the body's bound can darken
                oc = c - pn
                along = (oc * ldir).sum(1)
                miss = (oc * oc).sum(1) - along ** 2 > (body.bound + 1) ** 2
                res = np.ones(len(pn))
                live = np.nonzero(~miss & (along > 0))[0]
                if len(live):
                    q0, ld = pn[live], ldir[live]
                    stop = along[live] + body.bound + 1
                    r = np.ones(len(live))
                    t = np.full(len(live), 0.3)
                    soft = 8.0 * np.clip(dist[live] / lamp.radius, 2, 40) / 20
                    for _ in range(40):
                        act = np.nonzero(t < stop)[0]
                        if not len(act):
                            break
                        sd = body.hull(body.local(q0[act] + t[act, None] * ld[act]))
                        r[act] = np.minimum(r[act], np.clip(soft[act] * sd / t[act], 0, 1))
                        t[act] += np.clip(sd, 0.2, 4.0)
                    res[live] = r
                sub = self.shadow[li, y0:y1, x0:x1].reshape(-1)
                vals = sub[near]
                sub[near] = np.minimum(vals, res * res * (3 - 2 * res))
                self.shadow[li, y0:y1, x0:x1] = sub.reshape(y1 - y0, x1 - x0)

    # -- cards
    def add_card(self, card: Card) -> None:
        """Draw a card (a bent sheet) into the frame (cards are drawn bottom to top)."""
        hw, hh = CARD_MM[0] / 2, CARD_MM[1] / 2
        ex, ey = card.axes()
        top_z = card.z + abs(card.bend) + 0.01
        corners = np.array([[*(card.xy + sx * hw * ex + sy * hh * ey), z]
                            for sx in (-1, 1) for sy in (-1, 1) for z in (card.z, top_z)])
        box = self.bbox(corners)
        if box is None:
            return
        x0, y0, x1, y1 = box
        d = self.dirs[y0:y1, x0:x1].reshape(-1, 3).astype(np.float64)
        o = self.cam.pos
        z = np.full(len(d), card.z + abs(card.bend) / 2)
        for _ in range(4):
            t = (z - o[2]) / d[:, 2]
            p = o + t[:, None] * d
            rel = p[:, :2] - card.xy
            u, v = rel @ ex, rel @ ey
            z = card.height(u, v)
        t = (z - o[2]) / d[:, 2]
        cr = 3.0
        qx, qy = np.maximum(np.abs(u) - (hw - cr), 0), np.maximum(np.abs(v) - (hh - cr), 0)
        inside = (np.abs(u) <= hw) & (np.abs(v) <= hh) & (qx * qx + qy * qy <= cr * cr)
        yy, xx = np.divmod(np.arange(len(d)), x1 - x0)
        yy, xx = yy + y0, xx + x0
        # a card lies on the cards drawn before it (a bent lower card never pokes through
        # it), so it covers them wherever it lies: drawn in order, not by depth
        ok = inside
        yy, xx, u, v, t = yy[ok], xx[ok], u[ok], v[ok], t[ok]
        mx = ((u + hw) * PX_MM - 0.5).astype(np.float32)
        my = ((v + hh) * PX_MM - 0.5).astype(np.float32)
        alb = remap_points(card.tex, mx, my, cv2.BORDER_REPLICATE)
        du, dv = card.slope(u, v)
        n3 = np.stack([-du, -dv, np.ones_like(du)], 1)
        n3 /= np.linalg.norm(n3, axis=1, keepdims=True)
        nw = np.stack([n3[:, 0] * ex[0] + n3[:, 1] * ey[0], n3[:, 0] * ex[1] + n3[:, 1] * ey[1],
                       n3[:, 2]], 1)
        self.depth[yy, xx] = t
        self.ids[yy, xx] = card.oid
        self.top[yy, xx] = True
        self.albedo[yy, xx] = alb.reshape(-1, 3)
        self.normal[yy, xx] = nw
        self.gloss[yy, xx] = self.card_gloss
        self.shininess[yy, xx] = 60.0
        # cards are drawn bottom to top: no card below casts a shadow on this one
        self.shadow[:, yy, xx] = 1.0
        # the card's own thin shadow on what is below it, to the side away from each lamp
        for li, lamp in enumerate(self.lamps):
            away = card.xy - lamp.pos[:2]
            away = away / max(1e-6, np.linalg.norm(away)) * (card.z + 0.6 + abs(card.bend))
            rim = np.array([[*(card.xy + away + sx * hw * ex + sy * hh * ey), card.z]
                            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
            poly = np.round(self.cam.project(rim) * 4).astype(np.int32)
            m = np.zeros(self.ids.shape, np.uint8)
            cv2.fillConvexPoly(m, poly, 1, cv2.LINE_AA, shift=2)
            m[yy, xx] = 0
            sel = m > 0
            self.shadow[li][sel] *= 0.75

    card_gloss = 0.15

    def shade(self) -> np.ndarray:
        """Linear radiance of every pixel."""
        pts = self.cam.pos[None, None] + self.depth[..., None] * self.dirs
        view = -self.dirs
        out = self.albedo * self.ambient[None, None]
        for li, lamp in enumerate(self.lamps):
            to = (lamp.pos[None, None] - pts).astype(np.float32)
            d2 = (to * to).sum(-1)
            ldir = to / np.sqrt(d2)[..., None]
            irr = lamp.power / d2 * np.maximum((self.normal * ldir).sum(-1), 0) * self.shadow[li]
            half = ldir + view
            half /= np.linalg.norm(half, axis=-1, keepdims=True)
            nh = np.maximum((self.normal * half).sum(-1), 0)
            # a lamp's highlight: at most `gloss` of its light (a sharp lobe: a flat facet
            # lights up whole only near the mirror direction)
            spec = self.gloss * nh ** self.shininess
            out = out + (self.albedo * irr[..., None] + (spec * irr)[..., None]) * lamp.colour
        return out.astype(np.float32)


# -- scenes --------------------------------------------------------------------------------


def _spots(rng: np.random.Generator, fr: Frame, n: int, gap_mm: float, margin_px: float,
           cluster: bool) -> list[np.ndarray]:
    """n table points in view, at least gap_mm apart (clustered like a throw, or spread)."""
    w, h = fr.cam.size
    out: list[np.ndarray] = []
    centre = None
    for _ in range(400 * n):
        if len(out) == n:
            break
        if cluster and centre is not None:
            p = centre + rng.normal(0, gap_mm * 1.3, 2)
            px = fr.cam.project(np.array([[p[0], p[1], 0]]))[0]
            if not (margin_px < px[0] < w - margin_px and margin_px < px[1] < h - margin_px):
                continue
        else:
            x, y = rng.uniform(margin_px, w - margin_px), rng.uniform(margin_px, h - margin_px)
            p = fr.table[int(y), int(x), :2].astype(float)
        if all(np.linalg.norm(p - q) >= gap_mm for q in out):
            out.append(p)
            centre = p if centre is None else centre
    return out


def _finish(fr: Frame, rng: np.random.Generator, hard: bool, objects: list[Truth],
            info: dict) -> PhotoScene:
    fr.cast_shadows()
    radiance = fr.shade()
    image, dev = develop(radiance, rng, hard)
    info.update(dev)
    return PhotoScene(image, objects, fr.ids, info)


def _die_truth(fr: Frame, body: Body, label: str, side: float, seen: tuple[int, int],
               colour: str = "") -> Truth:
    if isinstance(body, D20):
        top_c = body.centre + body.rot @ (body.normals[body.top] * body.r_in)
    else:
        top_c = body.centre + np.array([0, 0, side / 2])
    px = fr.cam.project(top_c[None])[0]
    side_px = side / fr.cam.mm_per_px(top_c)
    corners = body.centre + body.bound * np.array(
        [[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) / math.sqrt(3)
    cp = fr.cam.project(corners)
    w, h = fr.cam.size
    inside = bool((cp.min(0) >= 1).all() and cp[:, 0].max() < w - 1 and cp[:, 1].max() < h - 1)
    why = "" if inside else "cut by the frame"
    if inside and seen[0] and seen[1] < 0.97 * seen[0]:
        why = f"top face {seen[1] / seen[0]:.0%} seen (another object in front)"
    if inside and not seen[0]:
        why = "top face not seen"
    return Truth(body.oid, body.kind, label, (float(px[0]), float(px[1])), float(side_px),
                 not why, colour, why)


def make_photo_scene(kind: str, seed: int, hard: bool | None = None,
                     size: tuple[int, int] | None = None, n: int | None = None,
                     table: int | None = None, deck: dict | None = None) -> PhotoScene:
    """A photo-like frame of one kind of object (KINDS), its truth and id image; the same
    seed always gives the same picture. `size` renders a smaller frame (tests); cards only:
    `table` deals on that card table (as card_capture's), `deck` in that deck's design."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: expected one of {', '.join(KINDS)}")
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    hard = bool(rng.random() < 0.3) if hard is None else hard
    surface = SURFACES[int(rng.integers(len(SURFACES)))]
    if kind == "cards":
        return _card_scene(rng, seed, hard, surface, size, n, deck, table=table)
    if kind == "pips":
        side = float(rng.uniform(12, 19))
        style = pip_style(rng)
        count = n or int(rng.integers(1, 11))
    elif kind == "d20":
        side = float(rng.uniform(16, 24))
        style = d20_style(rng)
        count = n or int(rng.integers(1, 4))
    else:
        side = float(rng.uniform(14, 18))
        count = n or int(rng.integers(1, 5))
    scale = (size[0] / 1640) if size else 1.0
    px = rng.uniform(55, 110) if kind == "d20" else rng.uniform(34, 90)
    cam, cam_name = sample_camera(rng, side, px * scale, size)
    target = np.zeros(3)
    fr = Frame(cam, rng, surface, hard, target)
    info = {"kind": kind, "seed": seed, "hard": hard, "surface": surface, "camera": cam_name,
            "height_mm": round(float(cam.pos[2]), 0), "k1": round(cam.k1, 3)}
    spots = _spots(rng, fr, count, side * (1.8 if kind == "d20" else 1.5),
                   margin_px=rng.uniform(0, 40) * scale, cluster=rng.random() < 0.5)
    objects = []
    for i, xy in enumerate(spots):
        if kind == "pips":
            up = int(rng.integers(1, 7))
            body = PipDie(i, rng, xy, side, up, style)
            label, colour = str(up), ""
        elif kind == "d20":
            body = D20(i, rng, xy, side, style)
            label, colour = "", ""
        else:
            colour = "turquoise" if i == 0 else "white"
            glyph = str(rng.choice(NUMERAL_GLYPHS))
            body = NumeralDie(i, rng, xy, side, glyph, numeral_style(rng, colour))
            label = glyph
        seen = fr.add_body(body)
        if kind == "d20":
            label = _d20_label(fr, body)
        objects.append((body, label, colour, seen))
    truths = []
    for body, label, colour, seen in objects:
        t = _die_truth(fr, body, label, side, seen, colour)
        if kind == "d20" and label is None:
            t.label, t.in_frame, t.why_unscored = "", False, "two faces face the camera alike"
        truths.append(t)
    return _finish(fr, rng, hard, truths, info)


def _d20_label(fr: Frame, body: D20) -> str | None:
    """The Rugen number of the face most nearly facing the camera (None when two faces come
    within 4 degrees of it)."""
    to = fr.cam.pos - body.centre
    to /= np.linalg.norm(to)
    cosines = (body.normals @ body.rot.T) @ to
    order = np.argsort(-cosines)
    a, b = (math.degrees(math.acos(min(1.0, cosines[i]))) for i in order[:2])
    if b - a < 4:
        return None
    body.top = int(order[0])
    return rugen_faces()[body.numbers[body.top] - 1]


_TABLES: dict = {}  # the last calibration table's frame, before any card is laid


def _table_frame(table: int, size: tuple[int, int] | None) -> tuple[Frame, str, str]:
    """The frame of one card table (felt, cloth or wood; camera and lamps fixed by `table`),
    before any card is laid: made once, cloned for each picture."""
    key = (table, size)
    if key not in _TABLES:
        trng = np.random.default_rng([table, 7])
        surface = ("felt", "cloth", "wood")[int(trng.integers(3))]  # a card table, not paper
        scale = (size[0] / 1640) if size else 1.0
        cam, cam_name = sample_camera(trng, CARD_MM[0], trng.uniform(170, 300) * scale, size)
        _TABLES.clear()
        _TABLES[key] = (Frame(cam, trng, surface, False, np.zeros(3)), cam_name, surface)
    fr, cam_name, surface = _TABLES[key]
    return fr.clone(), cam_name, surface


def _card_scene(rng: np.random.Generator, seed: int, hard: bool, surface: str,
                size: tuple[int, int] | None, n: int | None, deck: dict | None = None,
                labels: list[str] | None = None, place: bool = False, table: int | None = None
                ) -> PhotoScene:
    """Cards dealt on a table: a random one, or the card table `table` (its camera, lamps and
    cloth; the sensor still noisy, blurred or dim in hard frames). With `place` (a
    calibration capture) the one card lies near the middle of the frame."""
    deck = deck or deck_style(np.random.default_rng([seed, 99]))
    scale = (size[0] / 1640) if size else 1.0
    if table is not None:
        fr, cam_name, surface = _table_frame(table, size)
        cam = fr.cam
        card_px = CARD_MM[0] / cam.mm_per_px(np.zeros(3))
    else:
        card_px = rng.uniform(130, 300) * scale
        cam, cam_name = sample_camera(rng, CARD_MM[0], card_px, size)
        fr = Frame(cam, rng, surface, hard, np.zeros(3))
    fr.card_gloss = float(deck["gloss"])
    info = {"kind": "cards", "seed": seed, "hard": hard, "surface": surface,
            "camera": cam_name, "height_mm": round(float(cam.pos[2]), 0), "k1": round(cam.k1, 3)}
    if labels is None:
        count = n or int(rng.integers(1, 7))
        labels = [str(x) for x in rng.choice([r + s for r in RANKS for s in SUITS], count,
                                             replace=False)]
    stacks = []  # each a list of cards from the bottom
    if not place:
        bases = _spots(rng, fr, len(labels), 80.0 if rng.random() < 0.5 else 100.0,
                       margin_px=card_px * rng.uniform(0.6, 0.85), cluster=False)
    else:
        w, h = cam.size
        x, y = (w / 2 + rng.normal(0, 0.08 * w), h / 2 + rng.normal(0, 0.08 * h))
        bases = [fr.table[int(np.clip(y, 0, h - 1)), int(np.clip(x, 0, w - 1)), :2]]
    k = 0
    while k < len(labels):
        depth = 1 if len(labels) - k == 1 or rng.random() < 0.5 else int(rng.integers(2, 4))
        stacks.append(labels[k: k + depth])
        k += depth
    cards = []
    oid = 0
    for s, stack in enumerate(stacks):
        if s >= len(bases):
            break
        xy = np.array(bases[s], float)
        yaw = rng.uniform(0, 2 * math.pi)
        for j, label in enumerate(stack):
            off = rng.uniform(8, 25, 2) * rng.choice([-1, 1], 2) if j else np.zeros(2)
            xy = xy + off
            yaw += rng.normal(0, 0.15) if j else 0
            bend = float(rng.uniform(-1.0, 2.5 if not hard else 4))
            cards.append(Card(oid, label, xy.copy(), float(yaw), 0.3 * j + 0.05, bend,
                              int(rng.integers(2)), card_face(label, deck)))
            oid += 1
    for c in cards:
        fr.add_card(c)
    truths = []
    w, h = cam.size
    for c in cards:
        ex, ey = c.axes()
        corner_pts = np.array([[*(c.xy + sx * CARD_MM[0] / 2 * ex + sy * CARD_MM[1] / 2 * ey),
                                c.z] for sx in (-1, 1) for sy in (-1, 1)])
        cp = cam.project(corner_pts)
        mid = np.array([[*c.xy, float(c.height(np.zeros(1), np.zeros(1))[0])]])
        px = cam.project(mid)[0]
        poly = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(poly, np.round(cp[[0, 1, 3, 2]]).astype(np.int32), 1)
        full = int(poly.sum())
        seen = int(((fr.ids == c.oid) & (poly > 0)).sum())
        inside = bool((cp.min(0) >= 1).all() and cp[:, 0].max() < w - 1
                      and cp[:, 1].max() < h - 1)
        why = "" if inside else "cut by the frame"
        if inside and seen < 0.97 * full:
            why = f"{seen / max(1, full):.0%} seen (under another card)"
        width_px = CARD_MM[0] / cam.mm_per_px(mid[0])
        truths.append(Truth(c.oid, "card", c.label, (float(px[0]), float(px[1])),
                            float(width_px), not why, "", why))
    return _finish(fr, rng, hard, truths, info)


def card_capture(label: str, table: int, seed: int, deck: dict,
                 size: tuple[int, int] | None = None) -> np.ndarray:
    """A calibration capture: one card of the deck face up near the middle of the card table
    `table` (felt, cloth or wood: white cards are not learned on white paper); `seed` sets the
    card's place, turn and bend, and the sensor's noise; never hard."""
    rng = np.random.default_rng([seed, 8])
    return _card_scene(rng, seed, False, "", size, 1, deck, [label], place=True,
                       table=table).image


def numeral_capture(colour: str, glyph: str, seed: int, size: tuple[int, int] | None = None
                    ) -> np.ndarray:
    """A calibration capture: one Namaste die of `colour` showing `glyph`, alone."""
    rng = np.random.default_rng([seed, 11])
    surface = SURFACES[int(rng.integers(len(SURFACES)))]
    side = float(rng.uniform(14, 18))
    scale = (size[0] / 1640) if size else 1.0
    cam, _ = sample_camera(rng, side, rng.uniform(45, 80) * scale, size)
    fr = Frame(cam, rng, surface, False, np.zeros(3))
    xy = fr.table[cam.size[1] // 2, cam.size[0] // 2, :2].astype(float)
    fr.add_body(NumeralDie(0, rng, xy, side, glyph, numeral_style(rng, colour)))
    return _finish(fr, rng, False, [], {}).image
