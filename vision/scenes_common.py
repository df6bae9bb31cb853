"""Shared parts of the widely randomized scene generators (pip dice, numeral dice, cards).

A test instrument, deterministic from a seed, deliberately unlike the felt table of
`vision.synthetic`: any surface (felt of any colour, wood, woven cloth, paper, stone, a
checked cloth; gingham and striped cloths of any scale), any frame size, objects from small
to large in the frame, a pinhole camera at any height with its principal point off-centre
(tilted, with `tilt_view`), a lamp from anywhere (Lambert shading, soft cast shadows), uneven
light, defocus, noise (or a Bayer sensor's, demosaiced and sharpened: `light["bayer"]`) and
JPEG. Readers must not be tuned to it:
the benchmarks hold some surfaces and colours out of development (`held_out=True`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

#: frame sizes (w, h) a phone, a webcam or the Pi camera give
FRAME_SIZES = ((640, 480), (800, 600), (1024, 768), (1280, 720), (1280, 960), (1640, 1232),
               (1920, 1080), (960, 1280), (1600, 1200))
#: surfaces drawn during development; the held-out ones are kept for the benchmark
DEV_SURFACES = ("felt", "wood", "cloth", "paper")
HELD_OUT_SURFACES = ("stone", "checked", "felt", "wood")
#: woven patterns (gingham, stripes) of any scale, from a pip's size to a die's
PATTERNED_SURFACES = ("gingham", "striped")
#: mottled and speckled surfaces (granite, terrazzo, speckled laminate): spots of any size and
#: shade on a ground whose colour drifts, so a patch of ground with spots in it can look like
#: a die's face
MOTTLED_SURFACES = ("speckled",)
#: rough textiles as photographs show them: felt of loose fibres (streaks at every angle,
#: pixel noise, pilling, a lamp's pool of light on it) and woven cloth whose threads show
#: (plain or twill weave, each thread shaded round, slubbed, in a tartan's colours or one)
ROUGH_SURFACES = ("fibre_felt", "woven")


def noise_field(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """A smooth random field of about unit spread at the given feature size (px)."""
    gh, gw = max(2, int(shape[0] / cell) + 2), max(2, int(shape[1] / cell) + 2)
    small = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC) * 0.7


def random_colour(rng: np.random.Generator, lo: float = 0.05, hi: float = 0.9) -> np.ndarray:
    """A BGR colour in 0..1 (float32)."""
    return rng.uniform(lo, hi, 3).astype(np.float32)


def surface(rng: np.random.Generator, kind: str, shape: tuple[int, int],
            scale_px: float) -> np.ndarray:
    """A background of the given kind, BGR float32 0..1; scale_px sets its texture's grain."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "felt":
        base = random_colour(rng, 0.05, 0.75)
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        img *= (1 + 0.05 * noise_field(rng, shape, scale_px * 0.3))[:, :, None]
    elif kind == "wood":
        base = np.array([rng.uniform(0.1, 0.35), rng.uniform(0.2, 0.5), rng.uniform(0.35, 0.8)],
                        np.float32) * rng.uniform(0.6, 1.2)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        warp = noise_field(rng, shape, scale_px * 3) * scale_px * 0.8
        period = scale_px * rng.uniform(0.15, 0.6)
        grain = np.sin((v + warp) / period * 2 * math.pi + 0.3 * np.sin(u / (scale_px * 2)))
        fine = noise_field(rng, shape, max(1.5, scale_px * 0.05))
        tone = 1 + rng.uniform(0.08, 0.25) * grain + 0.05 * fine
        img = base[None, None, :] * tone[:, :, None]
        if rng.random() < 0.5:  # planks
            plank = scale_px * rng.uniform(2, 5)
            seam = np.abs(((v + plank / 2) % plank) - plank / 2) < max(1.0, scale_px * 0.02)
            img[seam] *= 0.45
    elif kind == "cloth":
        base = random_colour(rng, 0.1, 0.85)
        period = max(2.0, scale_px * rng.uniform(0.04, 0.12))
        weave = np.sin(xx / period * math.pi) * np.sin(yy / period * math.pi)
        img = base[None, None, :] * (1 + 0.12 * weave + 0.06 * noise_field(rng, shape, scale_px))[
            :, :, None]
    elif kind == "paper":
        base = np.full(3, rng.uniform(0.7, 0.95), np.float32) * rng.uniform(0.93, 1.0, 3).astype(
            np.float32)
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        img *= (1 + 0.02 * noise_field(rng, shape, 2.0))[:, :, None]
        if rng.random() < 0.4:  # ruled lines
            gap = scale_px * rng.uniform(0.5, 1.0)
            lines = (yy % gap) < max(1.0, scale_px * 0.015)
            img[lines] *= np.array([1.0, 0.85, 0.75], np.float32)
    elif kind == "stone":
        base = random_colour(rng, 0.3, 0.8)
        veins = np.abs(noise_field(rng, shape, scale_px * 1.5) + 0.5 * noise_field(
            rng, shape, scale_px * 0.4))
        img = base[None, None, :] * (0.75 + 0.25 * np.clip(veins * 2, 0, 1))[:, :, None]
        img *= (1 + 0.04 * noise_field(rng, shape, 2.0))[:, :, None]
    elif kind == "checked":
        a, b = random_colour(rng, 0.5, 0.95), random_colour(rng, 0.1, 0.6)
        cell = scale_px * rng.uniform(0.6, 2.0)
        chk = ((xx // cell + yy // cell) % 2).astype(np.float32)[:, :, None]
        img = a * chk + b * (1 - chk)
    elif kind in PATTERNED_SURFACES:
        base, ink = random_colour(rng, 0.45, 0.95), random_colour(rng, 0.05, 0.6)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        period = scale_px * rng.uniform(0.15, 1.2)
        duty = rng.uniform(0.25, 0.6)
        soft = max(0.5, period * 0.03)
        across = np.clip((duty * period - (u % period)) / soft + 0.5, 0, 1)
        if kind == "gingham":  # stripes both ways, half ink each, full ink where they cross
            down = np.clip((duty * period - (v % period)) / soft + 0.5, 0, 1)
            cover = 0.5 * (across + down)
        else:
            cover = across
        img = base[None, None, :] * (1 - cover[:, :, None]) + ink[None, None, :] * cover[:, :, None]
        weave = max(1.5, scale_px * rng.uniform(0.03, 0.08))
        img *= (1 + 0.06 * np.sin(xx / weave * math.pi) * np.sin(yy / weave * math.pi)
                + 0.04 * noise_field(rng, shape, scale_px))[:, :, None]
    elif kind == "speckled":
        base = random_colour(rng, 0.3, 0.85)
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        img *= (1 + 0.15 * noise_field(rng, shape, scale_px * rng.uniform(0.3, 2)))[:, :, None]
        n = min(40000, int(h * w / (scale_px * scale_px) * rng.uniform(2, 30)))
        other = rng.random(n) >= 0.8  # a grain of another colour; most are the ground's, shaded
        shades = np.where(other[:, None], rng.uniform(0, 1, (n, 3)),
                          base[None, :] * rng.uniform(0.1, 1.6, (n, 1)))
        radii = scale_px * rng.uniform(0.02, 0.12, n)
        xs, ys = rng.uniform(0, w, n), rng.uniform(0, h, n)
        squash, turns = rng.uniform(0.5, 1, n), rng.uniform(0, 180, n)
        for i in range(n):
            cv2.ellipse(img, (int(xs[i]), int(ys[i])),
                        (max(1, int(radii[i])), max(1, int(radii[i] * squash[i]))), turns[i],
                        0, 360, tuple(float(c) for c in np.clip(shades[i], 0, 1)), -1, cv2.LINE_AA)
    elif kind == "fibre_felt":
        img = _fibre_felt(rng, shape, scale_px)
    elif kind == "woven":
        img = _woven(rng, shape, scale_px)
    else:
        known = set(DEV_SURFACES) | set(HELD_OUT_SURFACES) | set(PATTERNED_SURFACES) | set(
            MOTTLED_SURFACES) | set(ROUGH_SURFACES)
        raise ValueError(f"unknown surface {kind!r}; expected one of {sorted(known)}")
    return np.clip(img, 0, 1).astype(np.float32)


def _lamp_pool(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """A lamp's pool of light on the table: brightest round a point, falling off by up to
    half towards the far corners (h x w factor)."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(-0.2, 1.2) * w, rng.uniform(-0.2, 1.2) * h
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / float(w * w + h * h)
    return 1 - rng.uniform(0.1, 0.5) * np.clip(r2 * 1.5, 0, 1)


def _fibre_felt(rng: np.random.Generator, shape: tuple[int, int], scale_px: float
                ) -> np.ndarray:
    """Felt of loose fibres: streaks at every angle a few pixels to a third of a die long,
    pixel noise partly of its own colour per channel, pilling, under a lamp's pool."""
    h, w = shape
    base = random_colour(rng, 0.05, 0.75)
    streaks = np.zeros(shape, np.float32)
    for _ in range(3):
        length = int(max(3, scale_px * rng.uniform(0.08, 0.35))) | 1
        k = np.zeros((length, length), np.float32)
        a = rng.uniform(0, math.pi)
        c = length // 2
        cv2.line(k, (int(round(c - c * math.cos(a))), int(round(c - c * math.sin(a)))),
                 (int(round(c + c * math.cos(a))), int(round(c + c * math.sin(a)))), 1.0)
        k /= math.sqrt(float((k * k).sum()))
        streaks += cv2.filter2D(rng.standard_normal(shape).astype(np.float32), -1, k)
    streaks /= math.sqrt(3)
    grain = rng.uniform(0.03, 0.12)
    tone = (1 + rng.uniform(0.04, 0.14) * streaks
            + rng.uniform(0.03, 0.12) * noise_field(rng, shape, scale_px * rng.uniform(0.2, 0.8)))
    per = (1 + grain * rng.standard_normal((h, w, 3)).astype(np.float32)
           * rng.uniform(0.2, 1.0)) if grain else 1.0
    img = base[None, None, :] * (tone * _lamp_pool(rng, shape))[:, :, None] * per
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 0.8))


def _woven(rng: np.random.Generator, shape: tuple[int, int], scale_px: float) -> np.ndarray:
    """Woven cloth whose threads show: warp and weft over and under each other (plain weave
    or twill), each thread shaded round (dark between threads), its brightness slubbed
    along it, the threads in a tartan's colours (stripes of a few threads each way) or
    one colour, the weave at any turn, under a lamp's pool."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, math.pi)
    u = xx * math.cos(ang) + yy * math.sin(ang)
    v = -xx * math.sin(ang) + yy * math.cos(ang)
    p = max(2.5, scale_px * rng.uniform(0.03, 0.16))  # a thread's width
    i, j = np.floor(u / p).astype(np.int32), np.floor(v / p).astype(np.int32)
    fu, fv = u / p - i, v / p - j
    twill = rng.random() < 0.5
    warp_up = ((i - j) % 4 < 2) if twill else ((i + j) % 2 == 0)
    n_col = int(rng.integers(1, 4))
    cols = [random_colour(rng, 0.08, 0.9) for _ in range(n_col)]
    sett = rng.integers(0, n_col, 8)  # the tartan's stripes, a few threads each
    width = int(rng.integers(2, 12))
    warp_c = np.stack(cols)[sett[(i // width) % 8]]
    weft_c = np.stack(cols)[sett[(j // width) % 8]]
    depth = rng.uniform(0.1, 0.4)  # how dark the gaps between threads are
    round_u = 1 - depth * (2 * fu - 1) ** 2  # a warp thread runs along v: shaded across u
    round_v = 1 - depth * (2 * fv - 1) ** 2
    slub = rng.uniform(0.02, 0.1)
    slub_i = 1 + slub * rng.standard_normal(int(i.max() - i.min()) + 2).astype(np.float32)
    slub_j = 1 + slub * rng.standard_normal(int(j.max() - j.min()) + 2).astype(np.float32)
    warp = warp_c * (round_u * slub_i[i - i.min()])[:, :, None]
    weft = weft_c * (round_v * slub_j[j - j.min()])[:, :, None]
    img = np.where(warp_up[:, :, None], warp, weft)
    img *= (_lamp_pool(rng, shape) * (1 + 0.03 * noise_field(rng, shape, scale_px)))[:, :, None]
    return cv2.GaussianBlur(img.astype(np.float32), (0, 0), rng.uniform(0.3, 0.7))


@dataclass(frozen=True)
class View:
    """A pinhole camera looking straight down from height_mm; world mm, z up, origin below it."""

    width: int
    height: int
    f_px: float
    height_mm: float
    principal: tuple[float, float]
    turn: np.ndarray | None = None  # a tilted camera: its turn from looking straight down

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Image points (N, 2) of world points (N, 3) in mm."""
        q = np.stack([pts[:, 0], pts[:, 1], self.height_mm - pts[:, 2]], 1)
        if self.turn is not None:
            q = q @ self.turn.T
        return np.stack([self.principal[0] + self.f_px * q[:, 0] / q[:, 2],
                         self.principal[1] + self.f_px * q[:, 1] / q[:, 2]], 1)

    def ground(self, u: float, v: float) -> tuple[float, float]:
        """The point on the table (z = 0) seen at image point (u, v)."""
        if self.turn is None:
            return ((u - self.principal[0]) * self.height_mm / self.f_px,
                    (v - self.principal[1]) * self.height_mm / self.f_px)
        ray = self.turn.T @ np.array([(u - self.principal[0]) / self.f_px,
                                      (v - self.principal[1]) / self.f_px, 1.0])
        t = self.height_mm / ray[2]
        return float(ray[0] * t), float(ray[1] * t)


def sample_view(rng: np.random.Generator, size: tuple[int, int], object_mm: float,
                object_px: tuple[float, float]) -> View:
    """A camera for a frame of `size` in which an object of object_mm spans object_px px."""
    w, h = size
    # a real lens: a field of view from a phone's or a webcam's (about 90 degrees across the
    # longer side) to a narrow one; the camera's height follows from the object's size
    f = rng.uniform(0.55, 1.6) * max(w, h)
    height = f * object_mm / rng.uniform(*object_px)
    pp = (w / 2 + rng.uniform(-0.1, 0.1) * w, h / 2 + rng.uniform(-0.1, 0.1) * h)
    return View(w, h, float(f), float(height), (float(pp[0]), float(pp[1])))


def tilt_view(rng: np.random.Generator, view: View, most_deg: float) -> View:
    """The camera tipped up to most_deg from looking straight down, towards any side (a hand-
    held phone's or a stand's real perspective: the far part of the table smaller)."""
    tilt = math.radians(rng.uniform(0, most_deg))
    a = rng.uniform(0, 2 * math.pi)
    axis = np.array([math.cos(a), math.sin(a), 0.0])
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    turn = np.eye(3) + math.sin(tilt) * k + (1 - math.cos(tilt)) * (k @ k)  # Rodrigues
    return replace(view, turn=turn)


def rot_z(deg: float) -> np.ndarray:
    """Rotation about the vertical axis."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], float)


def rot_x(deg: float) -> np.ndarray:
    """Rotation about the x axis (a die tipped over an edge)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], float)


def cube_faces(side: float, x: float, y: float, yaw: float, tip: float = 0.0
               ) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, world corners tl/tr/br/bl seen from outside, outward normal) of a cube's faces."""
    h = side / 2
    local = {
        "top": ([(-h, -h, h), (h, -h, h), (h, h, h), (-h, h, h)], (0, 0, 1)),
        "px": ([(h, -h, h), (h, h, h), (h, h, -h), (h, -h, -h)], (1, 0, 0)),
        "nx": ([(-h, h, h), (-h, -h, h), (-h, -h, -h), (-h, h, -h)], (-1, 0, 0)),
        "py": ([(h, h, h), (-h, h, h), (-h, h, -h), (h, h, -h)], (0, 1, 0)),
        "ny": ([(-h, -h, h), (h, -h, h), (h, -h, -h), (-h, -h, -h)], (0, -1, 0)),
    }
    rm = rot_z(yaw) @ rot_x(tip)
    out = []
    for name, (pts, n) in local.items():
        wpts = (rm @ np.array(pts, float).T).T
        out.append((name, wpts, rm @ np.array(n, float)))
    lift = -min(p[:, 2].min() for _, p, _ in out)  # resting on the table, z = 0
    shift = np.array([x, y, lift])
    return [(name, p + shift, n) for name, p, n in out]


def paste_quad(img: np.ndarray, tex: np.ndarray, quad: np.ndarray, alpha_tex: np.ndarray | None,
               shade: float | np.ndarray) -> None:
    """Warp a texture (float BGR) onto an image quad (tl, tr, br, bl), in place, anti-aliased."""
    th, tw = tex.shape[:2]
    x0, y0 = np.floor(quad.min(0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, img.shape[1]), min(y1, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
    m = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_AREA if tw > 2 * size[0]
                                 else cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = alpha_tex if alpha_tex is not None else np.ones((th, tw), np.float32)
    aw = cv2.warpPerspective(a, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    region = img[y0:y1, x0:x1]
    region[:] = region * (1 - aw[:, :, None]) + warped * shade * aw[:, :, None]


def cast_shadow(img: np.ndarray, view: View, pts3: np.ndarray, lamp: np.ndarray,
                strength: float, blur_px: float) -> None:
    """Darken the table where an object's points (N, 3) shade it from a point lamp, in place."""
    ground = []
    for p in pts3:
        t = lamp[2] / max(1e-6, lamp[2] - p[2])
        ground.append(lamp + (p - lamp) * t)
    g = np.array(ground)
    g[:, 2] = 0
    poly = cv2.convexHull(view.project(g).astype(np.float32)).reshape(-1, 2)
    mask = np.zeros(img.shape[:2], np.float32)
    cv2.fillConvexPoly(mask, np.round(poly * 4).astype(np.int32), 1.0, cv2.LINE_AA, shift=2)
    k = int(blur_px * 3) | 1
    mask = cv2.GaussianBlur(mask, (k, k), blur_px)
    img *= (1 - strength * mask)[:, :, None]


def finish(img: np.ndarray, rng: np.random.Generator, light: dict) -> np.ndarray:
    """Uneven light, defocus, glare, noise and JPEG: the camera's part. Returns BGR uint8."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = light["gradient"]
    ramp = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    vig = 1 - light["vignette"] * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2) * 2
    out = img * (light["exposure"] * ramp * vig)[:, :, None] * light["tint"][None, None, :]
    if light["glare"] > 0:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        rad = rng.uniform(0.1, 0.35) * max(w, h)
        g = np.exp(-(((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * rad ** 2)))
        out = out + light["glare"] * g[:, :, None]
    if light["blur"] > 0.3:
        k = int(light["blur"] * 3) * 2 + 1
        out = cv2.GaussianBlur(out, (k, k), light["blur"])
    if light.get("bayer"):
        u8 = _bayer_sensor(out, rng, light["noise"], light.get("sharpen", 0.0))
    else:
        out = out + rng.normal(0, light["noise"], out.shape).astype(np.float32) * np.sqrt(
            np.clip(out, 0.02, 1))
        u8 = np.clip(out * 255 + 0.5, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, int(light["jpeg"])])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else u8


def _bayer_sensor(img: np.ndarray, rng: np.random.Generator, noise: float,
                  sharpen: float) -> np.ndarray:
    """A colour sensor's picture (BGR uint8) of a scene (BGR float 0..1): one colour a
    photosite (RGGB Bayer mosaic) with shot noise, interpolated back to three colours (the
    zipper and colour fringes of demosaicing), then sharpened as phones and webcams do."""
    h, w = img.shape[:2]
    mos = np.empty((h, w), np.float32)
    mos[0::2, 0::2] = img[0::2, 0::2, 2]  # red
    mos[0::2, 1::2] = img[0::2, 1::2, 1]  # green
    mos[1::2, 0::2] = img[1::2, 0::2, 1]
    mos[1::2, 1::2] = img[1::2, 1::2, 0]  # blue
    mos += rng.normal(0, noise, mos.shape).astype(np.float32) * np.sqrt(np.clip(mos, 0.02, 1))
    raw = np.clip(mos * 255 + 0.5, 0, 255).astype(np.uint8)
    out = cv2.cvtColor(raw, cv2.COLOR_BayerBG2BGR)  # OpenCV names RGGB by its second row
    if sharpen > 0:
        soft = cv2.GaussianBlur(out, (0, 0), 1.2)
        out = cv2.addWeighted(out, 1 + sharpen, soft, -sharpen, 0)
    return out


def sample_light(rng: np.random.Generator, hard: bool) -> dict:
    """The lamp and the camera's imperfections; hard scenes are dimmer, glarier and blurrier."""
    dim = hard and rng.random() < 0.5
    return {
        "lamp_dir": (rng.uniform(-1, 1), rng.uniform(-1, 1)),
        "lamp_height": rng.uniform(0.8, 3.0),
        "exposure": rng.uniform(0.35, 0.6) if dim else rng.uniform(0.75, 1.15),
        "tint": rng.uniform(0.8, 1.0, 3).astype(np.float32),
        "gradient": tuple(rng.uniform(-0.5, 0.5, 2)) if hard else tuple(rng.uniform(-0.25, 0.25, 2)),
        "vignette": rng.uniform(0, 0.5),
        "glare": rng.uniform(0.15, 0.35) if hard and not dim else rng.uniform(0, 0.08),
        "blur": rng.uniform(0.8, 1.6) if hard else rng.uniform(0.0, 0.9),
        "noise": rng.uniform(0.02, 0.045) if dim else rng.uniform(0.004, 0.02),
        "jpeg": rng.uniform(60, 85) if hard else rng.uniform(75, 95),
        "ambient": rng.uniform(0.3, 0.6),
        "shadow": rng.uniform(0.25, 0.6),
    }


def photo_paper(rng: np.random.Generator, img: np.ndarray, die_px: float) -> np.ndarray:
    """Paper (from `surface`, its ruled lines kept) as photographs show it: white to off-white
    (cream, bluish, grey), as bright as a white die's top or brighter, with its fibres and
    its cockling (a sheet that does not lie quite flat shades unevenly); die_px: the
    size of what lies on it (a die's side, a share of a card), the cockling's scale."""
    tints = ((1.0, 1.0, 1.0), (0.82, 0.93, 1.0), (1.0, 0.97, 0.9), (0.92, 0.95, 0.93))
    tint = np.array(tints[int(rng.integers(len(tints)))], np.float32)
    level = float(rng.uniform(0.78, 1.02))
    h, w = img.shape[:2]
    fibre = noise_field(rng, (h, w), float(rng.uniform(1.2, 3.0))) * rng.uniform(0.01, 0.035)
    cockle = noise_field(rng, (h, w), die_px * float(rng.uniform(1.0, 4.0))) * rng.uniform(0.0, 0.05)
    out = img * (level / max(1e-3, float(img.mean()))) * tint[None, None, :]
    return out * (1 + fibre + cockle)[:, :, None]
