"""The synthetic table: real-looking camera frames of labelled dice on felt, with ground truth.

A test instrument, deterministic from a seed: dice are 3D cubes under a perspective camera
56-70 cm above the felt (side faces show away from the image centre), stickers sit slightly
rotated and off-centre, a lamp gives light direction, colour and soft shadows, and the camera
adds glare, defocus, sensor noise and JPEG. The recognizer must never be tuned to it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.art import DEFAULT_STYLE, LabelStyle, render_label
from vision.labels import FORTUNES_AND_WINDS, DieSet

FRAME_W, FRAME_H = 1640, 1232
DIE_MM = 16.0
TEX = 128  # face texture side in pixels
SS = 3  # supersampling of each die's region
ARUCO_DICT = cv2.aruco.DICT_4X4_50
MARKER_MM = 36.0


@dataclass(frozen=True)
class DieSpec:
    """Where one die lies (table mm), which label is up, and how it rests or moves."""

    label: str
    x_mm: float
    y_mm: float
    yaw_deg: float
    cocked_deg: float = 0.0  # tilt about a bottom edge: a die leaning on something
    motion_px: tuple[float, float] = (0.0, 0.0)  # blur streak of a moving die


@dataclass(frozen=True)
class SceneParams:
    """Everything random about a scene; `sample_params` draws it from a seed."""

    camera_height_mm: float = 620.0
    die_px: float = 50.0
    tilt_deg: tuple[float, float] = (0.0, 0.0)
    roll_deg: float = 0.0
    principal_offset: tuple[float, float] = (0.0, 0.0)
    felt_mm: tuple[float, float] = (520.0, 390.0)
    felt_bgr: tuple[float, float, float] = (0.16, 0.42, 0.12)
    wood_bgr: tuple[float, float, float] = (0.12, 0.25, 0.42)
    lamp_mm: tuple[float, float, float] = (150.0, 250.0, 900.0)
    light_bgr: tuple[float, float, float] = (0.85, 0.95, 1.0)
    exposure: float = 1.0
    ambient: float = 0.35
    shadow_strength: float = 0.55
    glare: float = 0.0
    defocus_sigma: float = 0.6
    noise: float = 0.012
    jpeg_quality: int = 90
    sticker_rot_deg: float = 3.0
    sticker_offset: float = 0.03
    sticker_scale: float = 0.86
    markers: bool = False
    hand: bool = False
    # the wide world (see sample_world); the defaults leave a frame as before
    distortion: float = 0.0  # radial lens distortion k (barrel > 0) at the half diagonal
    distortion_centre: tuple[float, float] = (0.0, 0.0)  # px from the frame's centre
    tint_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)  # the camera's white balance error
    light_gradient: float = 0.0  # uneven light: brightness slope across the frame
    gradient_angle_deg: float = 0.0
    vignette: float = 0.25
    shake_px: tuple[float, float] = (0.0, 0.0)  # motion blur of the whole frame (camera shake)
    edge_margin_px: float = 40.0  # how close to the frame's edge a die may lie


@dataclass
class DieTruth:
    """Ground truth for one die in a rendered scene."""

    label: str
    top_center: tuple[float, float]  # image px of the top face's centre
    base_center: tuple[float, float]
    yaw_deg: float
    cocked: bool
    moving: bool
    top_quad: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((4, 2)))


@dataclass
class Camera:
    """A pinhole camera above the felt (world: mm, Z up, felt at Z=0)."""

    K: np.ndarray
    R: np.ndarray
    C: np.ndarray

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Image px of world points (N, 3)."""
        pc = (self.R @ (np.asarray(pts, float) - self.C).T).T
        uv = (self.K @ pc.T).T
        return uv[:, :2] / uv[:, 2:3]

    def felt_homography(self) -> np.ndarray:
        """Homography from felt-plane mm (X, Y) to image px."""
        t = -self.R @ self.C
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], t])


@dataclass
class Scene:
    """A rendered frame and what is really on the table."""

    image: np.ndarray
    dice: list[DieTruth]
    camera: Camera
    params: SceneParams
    felt_corners: np.ndarray  # image px, 4x2, of the felt rectangle's corners
    marker_corners: dict[int, np.ndarray]


def _rot(axis: str, deg: float) -> np.ndarray:
    """A 3x3 rotation about a world axis."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def make_camera(p: SceneParams) -> Camera:
    """The camera for these parameters: height, focal length from die size, tilt."""
    f = p.die_px * (p.camera_height_mm - DIE_MM) / DIE_MM
    cx = FRAME_W / 2 + p.principal_offset[0]
    cy = FRAME_H / 2 + p.principal_offset[1]
    K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])
    R0 = np.diag([1.0, -1.0, -1.0])
    R = _rot("z", p.roll_deg) @ _rot("x", p.tilt_deg[0]) @ _rot("y", p.tilt_deg[1]) @ R0
    return Camera(K, R, np.array([0.0, 0.0, p.camera_height_mm]))


def sample_table(rng: np.random.Generator, tilted: bool = False) -> dict[str, object]:
    """Draw an installed table: camera height, lens, tilt, felt (fixed across its frames)."""
    hue_shift = rng.uniform(-0.04, 0.04)
    tilt = (rng.uniform(-5, 5), rng.uniform(-5, 5)) if tilted else (
        rng.normal(0, 1.0), rng.normal(0, 1.0))
    return dict(
        camera_height_mm=rng.uniform(560, 700),
        die_px=rng.uniform(46, 54),
        tilt_deg=tilt,
        roll_deg=rng.uniform(-3, 3),
        principal_offset=(rng.normal(0, 15), rng.normal(0, 15)),
        felt_mm=(rng.uniform(480, 540), rng.uniform(360, 400)),
        felt_bgr=(0.14 + hue_shift + rng.uniform(-0.03, 0.03), rng.uniform(0.33, 0.48),
                  rng.uniform(0.08, 0.16)),
    )


def sample_params(rng: np.random.Generator, hard: bool = False,
                  table: dict[str, object] | None = None) -> SceneParams:
    """Draw a frame's conditions on a table; `hard` adds low light or strong glare."""
    tab = sample_table(rng)
    if table is not None:
        tab.update(table)
    warm = rng.uniform(-1, 1)
    light = (1.0 - 0.12 * warm, 1.0 - 0.03 * abs(warm), 1.0 + 0.08 * warm)
    m = max(light)
    light = tuple(c / m for c in light)
    lamp_r = rng.uniform(0, 350)
    lamp_a = rng.uniform(0, 2 * math.pi)
    lamp = (lamp_r * math.cos(lamp_a), lamp_r * math.sin(lamp_a), rng.uniform(700, 1200))
    params = SceneParams(
        **tab,  # type: ignore[arg-type]
        lamp_mm=lamp,
        light_bgr=light,
        exposure=rng.uniform(0.8, 1.1),
        ambient=rng.uniform(0.3, 0.45),
        shadow_strength=rng.uniform(0.35, 0.65),
        glare=rng.uniform(0.0, 0.4) if rng.random() < 0.4 else 0.0,
        defocus_sigma=rng.uniform(0.3, 1.0),
        noise=rng.uniform(0.006, 0.018),
        jpeg_quality=int(rng.integers(75, 96)),
        sticker_rot_deg=4.0,
        sticker_offset=0.04,
        sticker_scale=rng.uniform(0.82, 0.9),
    )
    if hard:
        if rng.random() < 0.5:  # low light: dim lamp, more noise, softer focus
            params = replace(params, exposure=rng.uniform(0.3, 0.45),
                             noise=rng.uniform(0.015, 0.025),
                             defocus_sigma=rng.uniform(0.6, 1.3))
        else:  # strong glare
            params = replace(params, glare=rng.uniform(0.6, 1.0))
    return params


FELT_COLOURS: dict[str, tuple[float, float, float]] = {  # BGR, 0..1
    "green": (0.15, 0.42, 0.12), "blue": (0.45, 0.24, 0.08), "red": (0.1, 0.1, 0.42),
    "grey": (0.3, 0.3, 0.3), "black": (0.07, 0.07, 0.075),
}
HARD_KINDS = ("dim", "noisy", "tinted", "off-centre lens")


@dataclass(frozen=True)
class World:
    """One installed table of the wide world: camera, lens, light, felt and label art."""

    table: dict = field(hash=False)  # SceneParams fields fixed for every frame of the table
    style: LabelStyle
    hard: tuple[str, ...] = ()  # which of HARD_KINDS this table is
    felt: str = "green"

    def describe(self) -> str:
        """A short description for reports."""
        t = self.table
        return (f"{self.felt} felt, die {t['die_px']:.0f} px, lens k {t['distortion']:+.2f}"
                + (f", hard: {'/'.join(self.hard)}" if self.hard else ""))


def sample_style(rng: np.random.Generator, split: str = "dev") -> LabelStyle:
    """Label art drawn at random: glyph and word fonts, layout, frame, sticker and ink colours.

    The held-out split also draws art that the development split never shows: inverted
    stickers (light ink on a dark sticker) and sans words with serif glyphs and no frame.
    """
    glyph = str(rng.choice(["sans", "serif"]))
    word_font = [None, "hershey", "sans", "serif"][int(rng.integers(0, 4))]
    if split == "dev" and glyph == "serif" and word_font == "sans":
        word_font = "hershey"
    layout = str(rng.choice(["below", "above", "none"]))
    border = bool(rng.random() < 0.5)
    if split == "dev" and glyph == "serif" and word_font in (None, "serif"):
        border = True
    sticker = tuple(int(v) for v in rng.uniform(195, 250, 3))
    inverted = split != "dev" and bool(rng.random() < 0.25)
    ink_from_die = bool(rng.random() < 0.5)
    ink = tuple(int(v) for v in rng.uniform(10, 90, 3))
    return LabelStyle(glyph_font=glyph, word_font=word_font, sticker_bgr=sticker,  # type: ignore[arg-type]
                      ink_from_die=ink_from_die, ink_bgr=ink,  # type: ignore[arg-type]
                      glyph_scale=float(rng.uniform(0.5, 0.66)), word=layout, border=border,
                      inverted=inverted)


def sample_world(rng: np.random.Generator, split: str = "dev", hard: bool | None = None
                 ) -> World:
    """Draw an installed table from the wide world (see docs/vision.md, "The wide world").

    Camera 45-100 cm up, dice 35-90 px, tilted up to 7 degrees, any roll, a lens with radial
    distortion, felt of five colours reaching the frame's corners or not, label art from
    sample_style. A share of tables is hard: dim, noisy, tinted, or a lens whose centre is
    well off the frame's (one or more of them).
    """
    if split not in ("dev", "heldout"):
        raise ValueError(f"split {split!r}: 'dev' or 'heldout'")
    hard = bool(rng.random() < 0.35) if hard is None else hard
    kinds: tuple[str, ...] = ()
    if hard:
        n = 1 + int(rng.random() < 0.4)
        kinds = tuple(sorted(rng.choice(len(HARD_KINDS), n, replace=False)))
        kinds = tuple(HARD_KINDS[i] for i in kinds)
    height = rng.uniform(450, 1000)
    die_px = rng.uniform(35, 90)
    f = die_px * (height - DIE_MM) / DIE_MM
    view_w, view_h = FRAME_W * height / f, FRAME_H * height / f  # felt mm the frame shows
    felt = str(rng.choice(list(FELT_COLOURS)))
    base = np.array(FELT_COLOURS[felt])
    felt_bgr = tuple(float(v) for v in np.clip(base * rng.uniform(0.8, 1.2, 3), 0.03, 0.9))
    tilted = rng.random() < 0.25
    tilt = (rng.uniform(-7, 7), rng.uniform(-7, 7)) if tilted else (
        rng.normal(0, 1.5), rng.normal(0, 1.5))
    off = "off-centre lens" in kinds
    table: dict[str, object] = dict(
        camera_height_mm=height, die_px=die_px, tilt_deg=tilt,
        roll_deg=rng.uniform(-180, 180),
        principal_offset=tuple(rng.uniform(80, 160) * rng.choice([-1, 1], 2)) if off
        else (rng.normal(0, 15), rng.normal(0, 15)),
        distortion=rng.uniform(0.08, 0.18) if off else rng.uniform(-0.03, 0.08),
        distortion_centre=tuple(rng.uniform(80, 160) * rng.choice([-1, 1], 2)) if off
        else (rng.normal(0, 15), rng.normal(0, 15)),
        felt_mm=(view_w * rng.uniform(0.8, 1.4), view_h * rng.uniform(0.8, 1.4)),
        felt_bgr=felt_bgr,
        vignette=rng.uniform(0.1, 0.5),
        exposure=rng.uniform(0.3, 0.5) if "dim" in kinds else rng.uniform(0.75, 1.1),
        noise=rng.uniform(0.02, 0.035) if "noisy" in kinds else (
            rng.uniform(0.014, 0.024) if "dim" in kinds else rng.uniform(0.006, 0.018)),
        tint_bgr=tuple(rng.uniform(0.7, 1.3, 3)) if "tinted" in kinds
        else tuple(rng.uniform(0.92, 1.08, 3)),
        sticker_rot_deg=rng.uniform(2, 7), sticker_offset=rng.uniform(0.02, 0.06),
        edge_margin_px=4.0,
    )
    return World(table, sample_style(rng, split), kinds, felt)


def world_params(rng: np.random.Generator, world: World) -> SceneParams:
    """One frame's conditions on a table of the wide world: lamp, blur, glare, JPEG."""
    t = world.table
    framewise = ("exposure", "noise", "sticker_rot_deg", "sticker_offset")
    p = sample_params(rng, table={k: v for k, v in t.items() if k not in framewise})
    return replace(
        p,
        sticker_rot_deg=float(t["sticker_rot_deg"]),  # type: ignore[arg-type]
        sticker_offset=float(t["sticker_offset"]),  # type: ignore[arg-type]
        exposure=float(t["exposure"]) * rng.uniform(0.9, 1.1),  # type: ignore[arg-type]
        noise=float(t["noise"]) * rng.uniform(0.85, 1.15),  # type: ignore[arg-type]
        defocus_sigma=rng.uniform(0.3, 1.6),
        shake_px=tuple(rng.uniform(-3, 3, 2)) if rng.random() < 0.2 else (0.0, 0.0),
        glare=rng.uniform(0.0, 0.8) if rng.random() < 0.4 else 0.0,
        jpeg_quality=int(rng.integers(55, 96)),
        light_gradient=rng.uniform(0.0, 0.45),
        gradient_angle_deg=rng.uniform(0, 360),
    )


def sample_dice(
    rng: np.random.Generator, params: SceneParams, labels: list[str], n: int,
    touching: float = 0.0, cocked: float = 0.0, die_set: DieSet = FORTUNES_AND_WINDS,
) -> list[DieSpec]:
    """Place n dice on the felt without overlap; a share touch a neighbour or lean (cocked)."""
    fx, fy = params.felt_mm[0] / 2 - 22, params.felt_mm[1] / 2 - 22
    specs: list[DieSpec] = []
    used_dice: set[str] = set()
    tries = 0
    while len(specs) < n and tries < 5000:
        tries += 1
        label = labels[int(rng.integers(0, len(labels)))]
        die_name = die_set.die_of(label).name
        if die_name in used_dice and len(used_dice) < len(die_set.dice):
            continue
        yaw = rng.uniform(0, 360)
        if specs and rng.random() < touching:
            base = specs[int(rng.integers(0, len(specs)))]
            dyaw = rng.uniform(-3, 3)
            d = DIE_MM * (math.cos(math.radians(dyaw)) + abs(math.sin(math.radians(dyaw)))) + 0.3
            side = int(rng.integers(0, 4)) * 90 + base.yaw_deg
            lat = rng.uniform(-4, 4)
            a = math.radians(side)
            x = base.x_mm + d * math.cos(a) - lat * math.sin(a)
            y = base.y_mm + d * math.sin(a) + lat * math.cos(a)
            yaw = base.yaw_deg + dyaw
            min_d = 16.0
        else:
            x, y = rng.uniform(-fx, fx), rng.uniform(-fy, fy)
            min_d = 28.0
        if abs(x) > fx + 8 or abs(y) > fy + 8:
            continue
        if any(math.hypot(x - s.x_mm, y - s.y_mm) < min_d for s in specs):
            continue
        if min_d < 20 and sum(math.hypot(x - s.x_mm, y - s.y_mm) < 28 for s in specs) > 1:
            continue
        if not _in_view(params, x, y, params.edge_margin_px):
            continue
        tilt = rng.uniform(15, 35) if rng.random() < cocked else 0.0
        specs.append(DieSpec(label, x, y, yaw, tilt))
        used_dice.add(die_name)
    return specs


def _in_view(params: SceneParams, x: float, y: float, margin_px: float = 40.0) -> bool:
    """Whether a die at (x, y) mm shows wholly inside the frame."""
    pts = np.array([[x, y, 0.0], [x, y, DIE_MM]])
    if margin_px < 40:  # a die near the frame's edge: all of it, whatever its yaw, in view
        h = DIE_MM / 2 * 1.42
        pts = np.array([[x + dx, y + dy, z] for dx in (-h, h) for dy in (-h, h)
                        for z in (0.0, DIE_MM)])
    uv = make_camera(params).project(pts)
    if params.distortion:
        uv = distort_points(params, uv)
    return bool(((uv >= margin_px) & (uv <= [FRAME_W - margin_px, FRAME_H - margin_px])).all())


@functools.lru_cache(maxsize=256)
def _label_art(die_set: DieSet, label: str, style: LabelStyle) -> np.ndarray:
    """Cached sticker art at texture resolution (float32 BGR 0..1)."""
    return render_label(die_set, label, TEX, style).astype(np.float32) / 255.0


def _face_texture(
    die_set: DieSet, label: str, style: LabelStyle, rng: np.random.Generator, p: SceneParams
) -> np.ndarray:
    """A die face: body colour, rounded-edge darkening, the sticker slightly misplaced."""
    body = np.array(die_set.die_of(label).body_bgr, np.float32) / 255.0
    tex = np.empty((TEX, TEX, 3), np.float32)
    tex[:] = body
    art = _label_art(die_set, label, style)
    scale = p.sticker_scale * TEX / art.shape[0]
    ang = rng.uniform(-p.sticker_rot_deg, p.sticker_rot_deg) + 90 * int(rng.integers(0, 4))
    off = rng.uniform(-p.sticker_offset, p.sticker_offset, 2) * TEX
    c = art.shape[0] / 2
    M = cv2.getRotationMatrix2D((c, c), ang, scale)
    M[:, 2] += (TEX / 2 - c) + off
    warped = cv2.warpAffine(art, M, (TEX, TEX), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(-1, -1, -1))
    inside = warped[:, :, :1] >= 0
    tex = np.where(inside, warped, tex)
    # rounded edges: the die's corners are radiused and catch less light
    r = np.minimum(np.arange(TEX), np.arange(TEX)[::-1]).astype(np.float32) / TEX
    edge = np.minimum(r[:, None], r[None, :])
    tex *= (0.7 + 0.3 * np.clip(edge / 0.07, 0, 1))[:, :, None]
    return tex


def _cube(spec: DieSpec) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """World corners of each face (tl, tr, br, bl seen from outside) and its outward normal."""
    h = DIE_MM / 2
    faces_local = {
        "top": ([(-h, h, h), (h, h, h), (h, -h, h), (-h, -h, h)], (0, 0, 1)),
        "bottom": ([(-h, -h, -h), (h, -h, -h), (h, h, -h), (-h, h, -h)], (0, 0, -1)),
        "px": ([(h, h, h), (h, -h, h), (h, -h, -h), (h, h, -h)], (1, 0, 0)),
        "nx": ([(-h, -h, h), (-h, h, h), (-h, h, -h), (-h, -h, -h)], (-1, 0, 0)),
        "py": ([(-h, h, h), (h, h, h), (h, h, -h), (-h, h, -h)], (0, 1, 0)),
        "ny": ([(h, -h, h), (-h, -h, h), (-h, -h, -h), (h, -h, -h)], (0, -1, 0)),
    }
    Rm = _rot("z", spec.yaw_deg) @ _rot("x", spec.cocked_deg)
    out = []
    allpts = []
    for pts, n in faces_local.values():
        w = (Rm @ np.array(pts, float).T).T
        out.append((w, Rm @ np.array(n, float)))
        allpts.append(w)
    zmin = np.concatenate(allpts)[:, 2].min()
    shift = np.array([spec.x_mm, spec.y_mm, -zmin])
    return shift, [(w + shift, n) for w, n in out]


def _noise_field(rng: np.random.Generator, shape: tuple[int, int], cell: int) -> np.ndarray:
    """Smooth random field in [-1, 1] at the given feature size."""
    small = rng.standard_normal((shape[0] // cell + 2, shape[1] // cell + 2)).astype(np.float32)
    big = cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return big / 2.0


def _marker_image(marker_id: int, px: int) -> np.ndarray:
    """An ArUco marker with a white quiet zone."""
    d = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    if hasattr(cv2.aruco, "generateImageMarker"):
        m = cv2.aruco.generateImageMarker(d, marker_id, px)
    else:  # OpenCV < 4.7
        m = cv2.aruco.drawMarker(d, marker_id, px)
    pad = px // 6
    return cv2.copyMakeBorder(m, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)


def render_scene(
    params: SceneParams,
    dice: list[DieSpec],
    seed: int = 0,
    style: LabelStyle = DEFAULT_STYLE,
    die_set: DieSet = FORTUNES_AND_WINDS,
) -> Scene:
    """Render one frame of these dice under these conditions (deterministic from seed)."""
    rng = np.random.default_rng(seed)
    p = params
    cam = make_camera(p)
    # a barrel lens shows more of the table than the pinhole frame: the scene is drawn with
    # that much more round it (`lens_pad`), in a camera moved by it (`view`); ground truth stays
    # in the frame's own pixels (`cam`)
    lens_pad = _lens_pad(p)
    to_pad = np.array([[1, 0, lens_pad], [0, 1, lens_pad], [0, 0, 1]], float)
    view = Camera(to_pad @ cam.K, cam.R, cam.C)
    Hf = view.felt_homography()
    W, H = FRAME_W + 2 * lens_pad, FRAME_H + 2 * lens_pad
    # --- table: wood around a felt rectangle, both with texture --------------------------
    fw, fh = p.felt_mm[0] / 2, p.felt_mm[1] / 2
    felt_world = np.array([[-fw, fh, 0], [fw, fh, 0], [fw, -fh, 0], [-fw, -fh, 0]])
    felt_img = cam.project(felt_world)
    felt_mask = np.zeros((H, W), np.uint8)
    cv2.fillConvexPoly(felt_mask, np.round((felt_img + lens_pad) * 16).astype(np.int32), 255,
                       cv2.LINE_AA, 4)
    fm = felt_mask.astype(np.float32) * (1 / 255.0)
    # the textures are drawn for the frame and mirrored into the margin (the same draws
    # with a lens as without)
    grain = _padded(_noise_field(rng, (FRAME_H, FRAME_W), 6), lens_pad)
    fibre = _padded(_noise_field(rng, (FRAME_H, FRAME_W), 3) * 0.5
                    + _noise_field(rng, (FRAME_H, FRAME_W), 40), lens_pad)
    # texture as one brightness factor, blended felt/wood per channel (2-D ops are cheap)
    tex = fm * (1 + 0.06 * fibre) + (1 - fm) * (1 + 0.15 * grain)
    img = cv2.merge([tex * (fm * fc + (1 - fm) * wc)
                     for fc, wc in zip(p.felt_bgr, p.wood_bgr, strict=True)])
    # markers lie on the felt, in its corners
    marker_corners: dict[int, np.ndarray] = {}
    if p.markers:
        for i, (sx, sy) in enumerate([(-1, 1), (1, 1), (1, -1), (-1, -1)]):
            mpx = 120
            mimg = _marker_image(i, mpx).astype(np.float32) / 255.0
            full = MARKER_MM * mimg.shape[0] / mpx
            cx, cy = sx * (fw - full / 2 - 4), sy * (fh - full / 2 - 4)
            # marker image px -> felt mm (image y down = world y down)
            A = np.array([[full / mimg.shape[1], 0, cx - full / 2],
                          [0, -full / mimg.shape[0], cy + full / 2], [0, 0, 1]])
            Hm = Hf @ A
            warped = cv2.warpPerspective(mimg, Hm, (W, H), flags=cv2.INTER_LINEAR,
                                         borderValue=-1)
            on = warped >= 0
            img[on] = (warped[on] * 0.85 + 0.05)[:, None]
            pad = mpx // 6
            sq = np.array([[pad, pad], [pad + mpx, pad], [pad + mpx, pad + mpx],
                           [pad, pad + mpx]], np.float64)
            sqh = np.column_stack([sq, np.ones(4)]) @ Hm.T
            marker_corners[i] = sqh[:, :2] / sqh[:, 2:3] - lens_pad
    # --- lamp: falloff over the felt plane ------------------------------------------------
    lamp = np.array(p.lamp_mm)
    gy, gx = np.mgrid[0:H:8, 0:W:8].astype(np.float64)
    Hinv = np.linalg.inv(Hf)
    pts = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)], 1) @ Hinv.T
    wx, wy = pts[:, 0] / pts[:, 2], pts[:, 1] / pts[:, 2]
    d2 = (wx - lamp[0]) ** 2 + (wy - lamp[1]) ** 2 + lamp[2] ** 2
    irr = ((lamp[2] / np.sqrt(d2)) * (lamp[2] ** 2 / d2)).reshape(gx.shape)
    o = lens_pad // 8  # the frame's cells: where it is brightest is 1
    frame = (slice(o, o + -(-FRAME_H // 8)), slice(o, o + -(-FRAME_W // 8)))
    irr = (irr / irr[frame].max()).astype(np.float32)
    irr = cv2.resize(irr, (W, H), interpolation=cv2.INTER_LINEAR)
    # --- shadows: each die's silhouette cast from the lamp onto the felt ------------------
    shadow = np.zeros((H, W), np.float32)
    contact = np.zeros((H, W), np.float32)
    cubes = [_cube(s) for s in dice]
    for _, faces in cubes:
        corners = np.concatenate([w for w, _ in faces])
        t = lamp[2] / (lamp[2] - corners[:, 2])
        proj = lamp + (corners - lamp) * t[:, None]
        proj[:, 2] = 0
        poly = view.project(proj)
        hull = cv2.convexHull(np.round(poly * 16).astype(np.int32))
        cv2.fillConvexPoly(shadow, hull, 1.0, cv2.LINE_AA, 4)
        base = corners[corners[:, 2] < 1.0]
        if len(base) >= 2:
            b = view.project(np.vstack([base, base.mean(0, keepdims=True)]))
            bh = cv2.convexHull(np.round(b * 16).astype(np.int32))
            cv2.fillConvexPoly(contact, bh, 1.0, cv2.LINE_AA, 4)
    blur = p.die_px * 0.12 * lamp[2] / 900
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, blur))
    contact = cv2.GaussianBlur(cv2.dilate(contact, np.ones((5, 5), np.uint8)), (0, 0), 2.5)
    light = np.array(p.light_bgr, np.float32)
    shade = p.ambient + (1 - p.ambient) * irr * (1 - p.shadow_strength * shadow)
    shade *= 1 - 0.45 * contact
    img = cv2.multiply(img, cv2.merge([shade * float(c) for c in light]))
    # --- dice, farthest from the camera first ----------------------------------------------
    truths: list[DieTruth | None] = [None] * len(dice)
    order = sorted(range(len(dice)), key=lambda i: -np.hypot(dice[i].x_mm, dice[i].y_mm))
    for i in order:
        spec = dice[i]
        shift, faces = cubes[i]
        die = die_set.die_of(spec.label)
        pool = list(die.faces)
        pool.remove(spec.label)
        rng.shuffle(pool)
        face_labels = [spec.label, pool.pop()] + pool  # top, bottom, sides
        allc = np.concatenate([w for w, _ in faces])
        proj_all = view.project(allc)
        mx, my = abs(spec.motion_px[0]) + 4, abs(spec.motion_px[1]) + 4
        x0 = int(math.floor(proj_all[:, 0].min() - mx))
        y0 = int(math.floor(proj_all[:, 1].min() - my))
        x1 = int(math.ceil(proj_all[:, 0].max() + mx))
        y1 = int(math.ceil(proj_all[:, 1].max() + my))
        rx0, ry0, rx1, ry1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if rx1 <= rx0 or ry1 <= ry0:
            continue
        rw, rh = x1 - x0, y1 - y0
        col = np.zeros((rh * SS, rw * SS, 3), np.float32)
        alpha = np.zeros((rh * SS, rw * SS), np.float32)
        top_quad = cam.project(faces[0][0])
        top_normal = faces[0][1]
        for (wpts, n), label in zip(faces, face_labels, strict=True):
            centre = wpts.mean(0)
            if n @ (cam.C - centre) <= 0:
                continue
            ldir = lamp - centre
            ldir /= np.linalg.norm(ldir)
            lam = p.ambient + (1 - p.ambient) * max(0.0, float(n @ ldir)) * 1.1
            tex = _face_texture(die_set, label, style, rng, p) * lam
            q = (view.project(wpts) - [x0, y0]) * SS
            src = np.float32([[0, 0], [TEX, 0], [TEX, TEX], [0, TEX]])
            M = cv2.getPerspectiveTransform(src, q.astype(np.float32))
            warped = cv2.warpPerspective(tex, M, (rw * SS, rh * SS), flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_REPLICATE)
            m = np.zeros((rh * SS, rw * SS), np.float32)
            cv2.fillConvexPoly(m, np.round(q * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
            col = col * (1 - m[:, :, None]) + warped * m[:, :, None]
            alpha = np.maximum(alpha, m)
            if n is top_normal and p.glare > 0:
                gpos = q.mean(0) + rng.uniform(-0.25, 0.25, 2) * (q.max(0) - q.min(0))
                sig = rng.uniform(0.08, 0.2) * p.die_px * SS
                yy, xx = np.mgrid[0:rh * SS, 0:rw * SS]
                spot = np.exp(-((xx - gpos[0]) ** 2 + (yy - gpos[1]) ** 2) / (2 * sig * sig))
                col += (p.glare * spot * m)[:, :, None].astype(np.float32)
        col = cv2.resize(col * light, (rw, rh), interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, (rw, rh), interpolation=cv2.INTER_AREA)
        col *= alpha[:, :, None]
        moving = spec.motion_px != (0.0, 0.0)
        if moving:
            L = max(2, int(round(math.hypot(*spec.motion_px))))
            k = np.zeros((2 * L + 1, 2 * L + 1), np.float32)
            ang = math.atan2(spec.motion_px[1], spec.motion_px[0])
            cv2.line(k, (int(L - L * math.cos(ang)), int(L - L * math.sin(ang))),
                     (int(L + L * math.cos(ang)), int(L + L * math.sin(ang))), 1.0, 1)
            k /= k.sum()
            col = cv2.filter2D(col, -1, k)
            alpha = cv2.filter2D(alpha, -1, k)
        sub = (slice(ry0 - y0, ry1 - y0), slice(rx0 - x0, rx1 - x0))
        roi = img[ry0:ry1, rx0:rx1]
        roi[:] = roi * (1 - alpha[sub][:, :, None]) + col[sub]
        top_c = cam.project(faces[0][0].mean(0, keepdims=True))[0]
        base_c = cam.project(np.array([[spec.x_mm, spec.y_mm, 0.0]]))[0]
        truths[i] = DieTruth(spec.label, (float(top_c[0]), float(top_c[1])),
                             (float(base_c[0]), float(base_c[1])), spec.yaw_deg,
                             spec.cocked_deg > 0, moving, top_quad)
    if p.hand:
        inner = (slice(lens_pad, lens_pad + FRAME_H), slice(lens_pad, lens_pad + FRAME_W))
        img[inner] = _draw_hand(img[inner], rng, p)
    # --- camera: vignette, defocus, exposure, noise, JPEG -------------------------------------
    if p.distortion:
        img = _distort(img, p, lens_pad)
    W, H = FRAME_W, FRAME_H
    yy, xx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
    r2 = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / (W * W / 4 + H * H / 4)
    gain = 1 - p.vignette * r2
    if p.light_gradient:
        a = math.radians(p.gradient_angle_deg)
        ramp = ((xx - W / 2) * math.cos(a) + (yy - H / 2) * math.sin(a)) / (W / 2)
        gain = gain * np.clip(1 + p.light_gradient * ramp, 0.2, None)
    vig = cv2.resize(gain.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    img = cv2.multiply(img, cv2.merge([vig * (p.exposure * float(t)) for t in p.tint_bgr]))
    if p.defocus_sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), p.defocus_sigma)
    if p.shake_px != (0.0, 0.0):
        img = cv2.filter2D(img, -1, _streak(p.shake_px))
    # sensor noise: read noise plus shot noise growing with the signal
    sig = cv2.sqrt(cv2.max(img, 0.0) * (0.02 * p.noise) + p.noise**2)
    gauss = np.empty_like(img)
    cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
    cv2.randn(gauss, 0.0, 1.0)
    img = cv2.add(img, cv2.multiply(gauss, sig))
    out = cv2.convertScaleAbs(img, alpha=255.0, beta=0.5)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, p.jpeg_quality])
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    found = [t for t in truths if t is not None]
    if p.distortion:  # ground truth where the lens puts it
        for t in found:
            t.top_center = tuple(distort_points(p, np.array([t.top_center]))[0])
            t.base_center = tuple(distort_points(p, np.array([t.base_center]))[0])
            t.top_quad = distort_points(p, t.top_quad)
        felt_img = distort_points(p, felt_img)
        marker_corners = {i: distort_points(p, c) for i, c in marker_corners.items()}
    return Scene(out, found, cam, p, felt_img, marker_corners)


def _streak(motion: tuple[float, float]) -> np.ndarray:
    """A motion-blur kernel: a line along the motion, normalised."""
    L = max(1, int(round(math.hypot(*motion))))
    k = np.zeros((2 * L + 1, 2 * L + 1), np.float32)
    ang = math.atan2(motion[1], motion[0])
    cv2.line(k, (int(L - L * math.cos(ang)), int(L - L * math.sin(ang))),
             (int(L + L * math.cos(ang)), int(L + L * math.sin(ang))), 1.0, 1)
    return k / k.sum()


def _lens(p: SceneParams) -> tuple[np.ndarray, float]:
    """The distortion's centre (image px) and its radius unit (the half diagonal)."""
    c = np.array([FRAME_W / 2 + p.distortion_centre[0], FRAME_H / 2 + p.distortion_centre[1]])
    return c, math.hypot(FRAME_W, FRAME_H) / 2


def _lens_pad(p: SceneParams) -> int:
    """How far past the frame (px, a multiple of 8) a barrel lens shows the table: the scene
    is drawn that much larger all round (see _distort). 0 without a barrel lens."""
    if p.distortion <= 0:
        return 0
    c, R = _lens(p)
    d = np.array([[0, 0], [FRAME_W, 0], [0, FRAME_H], [FRAME_W, FRAME_H]], float) - c
    reach = float((np.linalg.norm(d, axis=1) ** 3).max()) * p.distortion / (R * R)
    return 8 * int(math.ceil((reach + 4) / 8))


def _padded(a: np.ndarray, pad: int) -> np.ndarray:
    """A texture drawn for the frame, mirrored `pad` px further all round."""
    return cv2.copyMakeBorder(a, pad, pad, pad, pad, cv2.BORDER_REFLECT) if pad else a


def _distort(img: np.ndarray, p: SceneParams, pad: int = 0) -> np.ndarray:
    """The frame as a lens with radial distortion shows it (each pixel looks further out).

    `img` is the pinhole view drawn `pad` px larger all round (see _lens_pad), so a barrel
    lens's edges show the table beyond the pinhole frame, not its border pixels smeared.
    """
    c, R = _lens(p)
    H, W = FRAME_H, FRAME_W
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    dx, dy = xs - np.float32(c[0]), ys - np.float32(c[1])
    f = 1 + np.float32(p.distortion / (R * R)) * (dx * dx + dy * dy)
    mx, my = (np.float32(c[0] + pad) + dx * f), (np.float32(c[1] + pad) + dy * f)
    return cv2.remap(img, mx, my, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def distort_points(p: SceneParams, pts: np.ndarray) -> np.ndarray:
    """Where image points of the ideal (pinhole) camera appear through the lens."""
    c, R = _lens(p)
    u = np.asarray(pts, float) - c
    d = u.copy()
    for _ in range(20):  # solve u = d * (1 + k |d|^2 / R^2) for d
        d = u / (1 + p.distortion * (d**2).sum(1, keepdims=True) / (R * R))
    return d + c


def _draw_hand(img: np.ndarray, rng: np.random.Generator, p: SceneParams) -> np.ndarray:
    """A hand reaching in from one edge of the frame (skin-coloured palm and fingers)."""
    H, W = img.shape[:2]
    layer = np.zeros((H, W), np.float32)
    side = int(rng.integers(0, 4))
    depth = rng.uniform(0.25, 0.5)
    t = rng.uniform(0.25, 0.75)
    if side == 0:
        tip, root = (t * W, depth * H), (t * W, -50)
    elif side == 1:
        tip, root = (t * W, (1 - depth) * H), (t * W, H + 50)
    elif side == 2:
        tip, root = (depth * W, t * H), (-50, t * H)
    else:
        tip, root = ((1 - depth) * W, t * H), (W + 50, t * H)
    tip, root = np.array(tip), np.array(root)
    axis = (tip - root) / np.linalg.norm(tip - root)
    perp = np.array([-axis[1], axis[0]])
    palm = tip - axis * 160
    cv2.line(layer, tuple(int(v) for v in root), tuple(int(v) for v in palm), 1.0, 220)
    cv2.circle(layer, tuple(int(v) for v in palm), 130, 1.0, -1)
    for k in (-1.5, -0.5, 0.5, 1.5):
        base = palm + perp * k * 55
        end = base + axis * rng.uniform(150, 220) + perp * k * 10
        cv2.line(layer, tuple(int(v) for v in base), tuple(int(v) for v in end), 1.0, 44)
    layer = cv2.GaussianBlur(layer, (0, 0), 6)
    skin = np.array([0.45, 0.58, 0.8], np.float32) * np.array(p.light_bgr, np.float32)
    skin_img = skin * (0.8 + 0.2 * layer[:, :, None])
    return img * (1 - layer[:, :, None]) + skin_img * layer[:, :, None]


def make_scene(
    seed: int, n_dice: int = 5, hard: bool = False, touching: float = 0.0,
    cocked: float = 0.0, style: LabelStyle = DEFAULT_STYLE,
    die_set: DieSet = FORTUNES_AND_WINDS, labels: list[str] | None = None,
    table: dict[str, object] | None = None, world: World | None = None, **overrides: object,
) -> Scene:
    """A random scene from a seed: conditions, dice placement and rendering.

    `table` fixes the installation (see sample_table); without it each seed draws its own.
    `world` draws the frame on a table of the wide world (its art replaces `style`).
    """
    rng = np.random.default_rng(seed)
    if world is not None:
        params = world_params(rng, world)
        style = world.style
    else:
        params = sample_params(rng, hard=hard, table=table)
    if overrides:
        params = replace(params, **overrides)  # type: ignore[arg-type]
    dice = sample_dice(rng, params, labels or die_set.labels, n_dice, touching, cocked, die_set)
    return render_scene(params, dice, seed=seed + 7919, style=style, die_set=die_set)


def make_capture(
    seed: int, label: str, style: LabelStyle = DEFAULT_STYLE,
    die_set: DieSet = FORTUNES_AND_WINDS, table: dict[str, object] | None = None,
    world: World | None = None, **overrides: object,
) -> Scene:
    """A calibration capture: one die with `label` up, anywhere on the felt."""
    return make_scene(seed, n_dice=1, style=style, die_set=die_set, labels=[label],
                      table=table, world=world, **overrides)


def make_empty(seed: int, table: dict[str, object] | None = None, **overrides: object
               ) -> Scene:
    """A frame of the empty felt."""
    return make_scene(seed, n_dice=0, table=table, **overrides)
