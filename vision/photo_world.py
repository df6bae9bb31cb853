"""The photo-like judge's world besides its objects: a pinhole camera with a real lens, table
surfaces made from noise, lamps, and the camera's processing from light to JPEG.

Written apart from the recognizers' scene generators (vision/scenes_*.py, synthetic.py) and by
another method: every pixel is a ray from a calibrated camera (focal length from a field of
view, radial distortion in the ray itself), surfaces are textures in millimetres on the table,
light is linear radiance from point lamps, and the picture is made as a sensor makes it
(vignetting, Bayer mosaic, shot and read noise, demosaicing, white balance error, gamma,
sharpening, JPEG).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: cameras a table may have: (name, frame size, horizontal field of view in degrees)
CAMERAS = (
    ("pi-v2", (1640, 1232), 62.2),
    ("pi-v1", (1640, 1232), 53.5),
    ("pi-hq-6mm", (1640, 1232), 63.0),
    ("phone-main", (1632, 1224), 68.0),
    ("phone-wide", (1632, 1224), 78.0),
)
SURFACES = ("felt", "wood", "cloth", "paper")


@dataclass
class Camera:
    """A pinhole camera over the table (z up, millimetres) with radial distortion.

    The lens maps a pixel's distorted normalised position d to the ideal one
    u = d (1 + k1 |d|^2 + k2 |d|^4), so a pixel's ray is direct and a point's pixel is found
    by a fixed-point solve."""

    size: tuple[int, int]
    f: float
    centre: tuple[float, float]  # the distortion centre (principal point), pixels
    k1: float
    k2: float
    pos: np.ndarray  # camera centre in the world
    rot: np.ndarray  # world-from-camera (columns: camera x right, y down, z forward)

    @classmethod
    def looking_down(cls, size: tuple[int, int], hfov_deg: float, height: float, tilt: float,
                     roll: float, yaw: float, target: tuple[float, float] = (0.0, 0.0),
                     k1: float = 0.0, k2: float = 0.0,
                     centre_shift: tuple[float, float] = (0.0, 0.0)) -> Camera:
        """A camera `height` mm above the table, its axis `tilt` degrees off vertical, turned
        `roll` degrees about its axis and `yaw` about the vertical, aimed at `target`."""
        w, h = size
        f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
        down = np.array([[1.0, 0, 0], [0, -1, 0], [0, 0, -1]]).T  # looking straight down
        t, r, y = (math.radians(a) for a in (tilt, roll, yaw))
        rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
        rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
        ry = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
        rot = ry @ down @ rx @ rz
        axis = rot[:, 2]
        dist = height / -axis[2]
        pos = np.array([target[0], target[1], 0.0]) - dist * axis
        c = (w / 2 - 0.5 + centre_shift[0] * w, h / 2 - 0.5 + centre_shift[1] * h)
        return cls(size, f, c, k1, k2, pos, rot)

    def rays(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """World directions (unit, ...x3) of pixels (xs, ys)."""
        dx = ((xs - self.centre[0]) / self.f).astype(np.float32)
        dy = ((ys - self.centre[1]) / self.f).astype(np.float32)
        r2 = dx * dx + dy * dy
        g = 1 + self.k1 * r2 + self.k2 * r2 * r2
        cam = np.stack([dx * g, dy * g, np.ones_like(dx)], -1)
        d = cam @ self.rot.T.astype(cam.dtype)
        return d / np.sqrt((d * d).sum(-1, keepdims=True))

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Pixels (N x 2) of world points (N x 3)."""
        c = (np.asarray(pts, float) - self.pos) @ self.rot
        ux, uy = c[:, 0] / c[:, 2], c[:, 1] / c[:, 2]
        dx, dy = ux.copy(), uy.copy()
        for _ in range(30):
            r2 = dx * dx + dy * dy
            g = 1 + self.k1 * r2 + self.k2 * r2 * r2
            dx, dy = ux / g, uy / g
        return np.stack([dx * self.f + self.centre[0], dy * self.f + self.centre[1]], 1)

    def mm_per_px(self, pt: np.ndarray) -> float:
        """About how many millimetres one pixel spans at a world point."""
        return float(np.linalg.norm(np.asarray(pt) - self.pos)) / self.f


def sample_camera(rng: np.random.Generator, object_mm: float, object_px: float,
                  size: tuple[int, int] | None = None) -> tuple[Camera, str]:
    """A random table camera that shows an object of object_mm about object_px across at
    the middle of the frame (height kept within 30-120 cm)."""
    name, full, hfov = CAMERAS[int(rng.integers(len(CAMERAS)))]
    size = size or full
    f = (size[0] / 2) / math.tan(math.radians(hfov) / 2)
    tilt = float(rng.uniform(0, 25))
    dist = object_mm * f / object_px
    height = float(np.clip(dist * math.cos(math.radians(tilt)), 300, 1200))
    k1 = float(rng.uniform(-0.04, 0.14))
    cam = Camera.looking_down(size, hfov, height, tilt, roll=float(rng.uniform(-180, 180)),
                              yaw=float(rng.uniform(-180, 180)), k1=k1,
                              k2=float(rng.uniform(-0.02, 0.04)),
                              centre_shift=tuple(rng.uniform(-0.03, 0.03, 2)))
    return cam, name


# -- surfaces ------------------------------------------------------------------------------


def _noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """Smooth noise, zero mean, unit-ish spread, features about `cell` texels across."""
    gh, gw = max(2, int(shape[0] / cell) + 2), max(2, int(shape[1] / cell) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _noise_at(rng: np.random.Generator, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Smooth noise sampled at (u, v) in grid cells (anisotropic textures stretch u or v)."""
    u0, v0 = float(u.min()), float(v.min())
    gw, gh = int(u.max() - u0) + 4, int(v.max() - v0) + 4
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.remap(grid, (u - u0 + 1).astype(np.float32), (v - v0 + 1).astype(np.float32),
                     cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)


def _fbm(rng: np.random.Generator, shape: tuple[int, int], cell: float, octaves: int = 4
         ) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    for o in range(octaves):
        out += _noise(rng, shape, max(1.5, cell / 2 ** o)) / 2 ** o
    return out / 1.9


def _hsv_colour(rng: np.random.Generator, sat: tuple[float, float], val: tuple[float, float]
                ) -> np.ndarray:
    """A linear BGR reflectance of a random hue."""
    hsv = np.uint8([[[rng.integers(0, 180), int(255 * rng.uniform(*sat)),
                      int(255 * rng.uniform(*val))]]])
    srgb = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0] / 255.0
    return (srgb ** 2.2).astype(np.float32)


def surface_texture(rng: np.random.Generator, kind: str, shape: tuple[int, int], texel_mm: float
                    ) -> np.ndarray:
    """A table surface's reflectance (linear BGR float32), texel_mm millimetres a texel."""
    h, w = shape
    yy, xx = np.meshgrid(np.arange(h, dtype=np.float32) * texel_mm,
                         np.arange(w, dtype=np.float32) * texel_mm, indexing="ij")
    if kind == "felt":
        base = _hsv_colour(rng, (0.25, 0.9), (0.15, 0.75))
        mottle = 1 + 0.08 * _fbm(rng, shape, 30 / texel_mm)
        fibre = 1 + 0.10 * _noise(rng, shape, max(1.2, 0.4 / texel_mm))
        return base * (mottle * fibre)[..., None]
    if kind == "wood":
        light = np.array([0.30, 0.45, 0.62]) * rng.uniform(0.5, 1.2)
        dark = light * rng.uniform(0.55, 0.8)
        ang = rng.uniform(0, math.pi)
        along = xx * math.cos(ang) + yy * math.sin(ang)
        across = -xx * math.sin(ang) + yy * math.cos(ang)
        warp = rng.uniform(4, 15) * _noise_at(rng, along / 180, across / 35)
        period = rng.uniform(2, 7)
        rings = 0.5 + 0.5 * np.sin(2 * math.pi * (across + warp) / period)
        rings = rings ** rng.uniform(2, 5)
        streak = _noise_at(rng, along / 6, across / 0.35)
        mix = np.clip(rings * rng.uniform(0.5, 1) + 0.12 * streak, 0, 1)[..., None]
        tex = light * (1 - mix) + dark * mix
        plank = rng.uniform(90, 200)
        seam = np.abs(((across + plank / 2) % plank) - plank / 2) < 0.4
        tex[seam] *= 0.45
        return (tex * (1 + 0.06 * _fbm(rng, shape, 40 / texel_mm)[..., None])).astype(np.float32)
    if kind == "cloth":
        a = _hsv_colour(rng, (0.2, 0.8), (0.3, 0.85))
        b = a * rng.uniform(0.4, 0.8) if rng.random() < 0.5 else _hsv_colour(rng, (0, 0.3),
                                                                             (0.6, 0.95))
        thread = rng.uniform(0.5, 1.4)
        wx = 0.5 + 0.5 * np.sin(2 * math.pi * xx / thread)
        wy = 0.5 + 0.5 * np.sin(2 * math.pi * yy / thread)
        over = ((xx // thread + yy // thread) % 2).astype(np.float32)
        weave = 0.82 + 0.18 * (over * wx + (1 - over) * wy)
        if rng.random() < 0.5:  # gingham or stripes in bands of threads
            band = rng.uniform(4, 14)
            cx = (xx // band) % 2
            cy = (yy // band) % 2 if rng.random() < 0.6 else np.zeros_like(xx)
            m = ((cx + cy) / 2)[..., None]
            col = a * (1 - m) + b * m
        else:
            col = np.broadcast_to(a, (h, w, 3))
        return (col * weave[..., None] * (1 + 0.05 * _fbm(rng, shape, 25 / texel_mm))[..., None]
                ).astype(np.float32)
    # paper: near white, fibres, sometimes ruled or squared
    base = np.array([0.80, 0.84, 0.86]) * rng.uniform(0.85, 1.0)
    tex = np.broadcast_to(base, (h, w, 3)) * (1 + 0.03 * _fbm(rng, shape, 3 / texel_mm))[..., None]
    tex = tex.astype(np.float32)
    if rng.random() < 0.5:
        pitch = rng.choice([5.0, 7.0, 8.0])
        ink = np.array([0.55, 0.35, 0.25], np.float32)
        line = np.abs(((yy + pitch / 2) % pitch) - pitch / 2) < 0.15
        if rng.random() < 0.5:
            line |= np.abs(((xx + pitch / 2) % pitch) - pitch / 2) < 0.15
        tex[line] = tex[line] * ink
    return tex


# -- the camera's processing ---------------------------------------------------------------


def _srgb(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0, 1)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def develop(radiance: np.ndarray, rng: np.random.Generator, hard: bool) -> tuple[np.ndarray, dict]:
    """A linear BGR radiance image through lens and sensor to an 8-bit BGR JPEG-decoded photo;
    also what was done (for people looking at failures)."""
    h, w = radiance.shape[:2]
    img = radiance.astype(np.float32)
    info: dict = {}
    # optics: the lens's own spread (it also smooths the renderer's hard edges), then focus
    # or motion blur
    img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.5, 0.8)))
    r = rng.random()
    if r < (0.45 if hard else 0.2):
        s = float(rng.uniform(0.6, 2.2 if hard else 1.3))
        img = cv2.GaussianBlur(img, (0, 0), s)
        info["focus_blur"] = round(s, 2)
    elif r < (0.75 if hard else 0.35):
        n = int(rng.integers(3, 10 if hard else 6))
        k = np.zeros((n, n), np.float32)
        a = rng.uniform(0, math.pi)
        c = (n - 1) / 2
        for t in np.linspace(-c, c, 4 * n):
            k[int(round(c + t * math.sin(a))), int(round(c + t * math.cos(a)))] = 1
        img = cv2.filter2D(img, -1, k / k.sum())
        info["motion_blur"] = n
    # vignetting
    yy, xx = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32),
                         indexing="ij")
    rr = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    vig = float(rng.uniform(0.05, 0.5))
    img *= (1 - vig * rr)[..., None]
    # exposure and white balance error (the camera's gains are not the lamp's colour)
    expo = float(rng.uniform(0.55, 0.95) if not hard else rng.uniform(0.25, 1.1))
    img *= expo / max(1e-6, float(np.percentile(img[::3, ::3], 99)))
    wb = rng.uniform(0.8, 1.2, 3).astype(np.float32) if hard else rng.uniform(0.9, 1.1, 3)
    img *= wb.astype(np.float32)
    info.update(vignetting=round(vig, 2), exposure=round(expo, 2), wb=[round(float(x), 2) for x in wb])
    # Bayer mosaic (R G / G B), shot and read noise, 10-bit
    raw = np.empty((h, w), np.float32)
    raw[0::2, 0::2] = img[0::2, 0::2, 2]
    raw[0::2, 1::2] = img[0::2, 1::2, 1]
    raw[1::2, 0::2] = img[1::2, 0::2, 1]
    raw[1::2, 1::2] = img[1::2, 1::2, 0]
    well = float(rng.uniform(800, 6000) if hard else rng.uniform(3000, 12000))
    e = np.clip(raw, 0, 1.2) * well
    e = e + rng.standard_normal(e.shape).astype(np.float32) * np.sqrt(np.maximum(e, 0))
    read = float(rng.uniform(1.5, 6.0) if hard else rng.uniform(0.5, 3))
    dn = e / well * 1023 + rng.standard_normal(e.shape).astype(np.float32) * read
    raw16 = np.clip(np.round(dn + 16), 0, 1023).astype(np.uint16)  # a black level of 16
    info.update(full_well=int(well), read_noise=round(read, 1))
    bgr = cv2.cvtColor(raw16, cv2.COLOR_BayerBG2BGR).astype(np.float32)  # OpenCV names RGGB BG
    lin = np.clip((bgr - 16) / (1023 - 16), 0, 1)
    out = _srgb(lin).astype(np.float32)
    # sharpening (unsharp mask), as phone and Pi pipelines do
    amt = float(rng.uniform(0.0, 1.2))
    if amt > 0.05:
        out = out + amt * (out - cv2.GaussianBlur(out, (0, 0), 1.2))
    u8 = np.clip(out * 255 + 0.5, 0, 255).astype(np.uint8)
    q = int(rng.integers(50, 96))
    ok, buf = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, q])
    info.update(sharpen=round(amt, 2), jpeg=q)
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), info
