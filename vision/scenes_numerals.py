"""Scenes of Namaste numeral dice with ground truth: the numeral reader's test bench.

The dice are those of `equipment/namaste.json` (one turquoise, three white; faces "1/7" and
"2".."6" printed as numerals in dark ink), drawn on the same widely randomized surfaces,
cameras and light as the pip dice (`vision.scenes_pips.dice_scene` with `real`: patterned
cloths, a tilted camera's perspective, a Bayer sensor's noise and JPEG), as solids shaded
under the lamp (rounded edges bright towards it, a glossy highlight). Each die's numerals
are set in one of many faces, a little turned and off-centre as printing and engraving leave
them, bolder or lighter: OpenCV's Hershey fonts and TrueType faces (DejaVu, Liberation, Noto:
outlines committed in vision/artwork, drawn with cv2). `held_out=True` draws faces, ink
colours and surfaces that development never used.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.art import ARTWORK_DIR, _draw_outline_text, _glyph_data
from vision.scenes_pips import TEX, DieMake, PipScene, dice_scene, face_relief, rounded_face

EQUIPMENT = Path(__file__).resolve().parent.parent / "equipment" / "namaste.json"
#: the face values 1..6 as the dice print them (opposite faces: 1/7-6, 2-5, 3-4)
FACE_LABELS = {1: "1/7", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6"}
#: (OpenCV Hershey font, stroke weight as a share of the text height)
DEV_FONTS = ((cv2.FONT_HERSHEY_SIMPLEX, 0.11), (cv2.FONT_HERSHEY_DUPLEX, 0.13),
             (cv2.FONT_HERSHEY_COMPLEX, 0.1), (cv2.FONT_HERSHEY_TRIPLEX, 0.14))
HELD_OUT_FONTS = ((cv2.FONT_HERSHEY_PLAIN, 0.1), (cv2.FONT_HERSHEY_COMPLEX_SMALL, 0.12),
                  (cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC, 0.12),
                  (cv2.FONT_HERSHEY_TRIPLEX | cv2.FONT_ITALIC, 0.1))
#: TrueType faces (artwork/numeral_glyphs.json; "noto_sans" and "noto_serif" from
#: glyphs.json), with how much bolder (> 0) or lighter their strokes may be drawn, as a share
#: of the digits' height
DEV_FACES = (("noto_sans", 0.0), ("dejavusans", 0.0), ("dejavusans_bold", 0.0),
             ("dejavusans_oblique", 0.0), ("dejavusansmono", 0.0), ("liberationsans_regular", 0.0),
             ("liberationserif_regular", 0.0), ("liberationserif_bold", 0.0))
HELD_OUT_FACES = (("noto_serif", 0.0), ("dejavusans_extralight", 0.0),
                  ("dejavusanscondensed_boldoblique", 0.0), ("dejavusansmono_bold", 0.0),
                  ("dejavuserif", 0.0), ("dejavuserif_bold", 0.0),
                  ("dejavuserifcondensed_italic", 0.0), ("liberationsans_bold", 0.0),
                  ("liberationsansnarrow_regular", 0.0), ("liberationsansnarrow_bolditalic", 0.0),
                  ("liberationserif_italic", 0.0), ("liberationmono_regular", 0.0),
                  ("liberationmono_bold", 0.0))
#: the share of development frames on a rough textile (fibre felt, woven cloth whose threads
#: show: `vision.scenes_common.ROUGH_SURFACES`): the judge's felts and cloths are rougher
#: than the plain ones
ROUGH_SHARE = 0.35
#: the share of development frames seen from farther (`_farther`): the table's camera sees a
#: 16 mm die about 50 px across, and photographs often show dice smaller still, where a
#: cloth's weave and a felt's fibres are as fine as the numerals' strokes
FAR_SHARE = 0.3
#: the share of hard development frames under a veil of glare (`_veiled`): a lamp's
#: reflection or haze lifts the print's black with the body's, as the judge's glare does
VEIL_SHARE = 0.5
#: the share of development dice whose print is faded (`_faded`): worn or grey ink, its
#: contrast with the body FADE of the dark ink's; under a dim lamp on a small die such a print
#: is 20-35 grey levels deep, as deep as a felt's or a cloth's texture (the judge's misses)
FADED_SHARE = 0.3
FADE = (0.3, 0.6)
#: the share of hard development frames taken under a lamp too bright for the exposure
#: (`_overexposed`: the light GAIN times what the exposure was set for, the sensor clipped):
#: a white die's body, and the turquoise's too at four times and more, is (255, 255, 255),
#: its colour left in its darker parts only (the print's blurred rim, the rounded edges).
#: A hard frame's light, as the veil: a frame in ordinary light (hard=False: a calibration
#: capture) is never overexposed. 0.4 of the hard three tenths: 12% of all frames
OVEREXPOSED_SHARE = 0.4
GAIN = (1.5, 5.0)
HELD_OUT_INKS = ((0.35, 0.12, 0.05), (0.05, 0.05, 0.4), (0.1, 0.25, 0.1))  # BGR 0..1


@dataclass(frozen=True)
class NamasteDie:
    """One die of the set: its colour name and body and ink colours (BGR 0..255)."""

    colour: str
    body_bgr: tuple[int, int, int]
    ink_bgr: tuple[int, int, int]


@cache
def namaste_dice() -> tuple[NamasteDie, ...]:
    """The set's dice, from equipment/namaste.json (the one place they are defined)."""
    data = json.loads(EQUIPMENT.read_text())
    return tuple(NamasteDie(d["colour"], tuple(d["body_bgr"]), tuple(d["ink_bgr"]))
                 for d in data["dice"])


@dataclass(frozen=True)
class NumeralStyle:
    """How one die is made: body and ink, font, text size, the print's turn and offset."""

    body: tuple[float, float, float]
    ink: tuple[float, float, float]
    font: int | str  # a Hershey font, or a TrueType face's name (`outline_faces`)
    weight: float  # Hershey: the stroke's width; a face: bolder (> 0) or lighter, of the height
    height: float  # a digit's height over the face's side
    turn: float  # degrees
    offset: tuple[float, float]  # of the side
    rounding: float
    relief: bool = False  # shaded as a solid under the lamp (`face_relief`), not painted dark
    dimple: float = 0.0  # no pip bowls: `face_relief` shades the rounded edges only


def sample_numeral_style(rng: np.random.Generator, die: NamasteDie, held_out: bool
                         ) -> NumeralStyle:
    """One die's make: its set colour, lightly varied, in one of the split's fonts (a
    Hershey font in one die of three, else a TrueType face), a solid with rounded edges."""
    fonts = HELD_OUT_FONTS if held_out else DEV_FONTS
    faces = HELD_OUT_FACES if held_out else DEV_FACES
    if rng.random() < 1 / 3:
        font, weight = fonts[int(rng.integers(len(fonts)))]
        weight = weight * rng.uniform(0.8, 1.25)
    else:
        font, weight = faces[int(rng.integers(len(faces)))]
        weight = weight + rng.uniform(-0.012, 0.03)
    body = np.clip(np.array(die.body_bgr) / 255 * rng.uniform(0.9, 1.05, 3), 0, 1)
    ink = (HELD_OUT_INKS[int(rng.integers(len(HELD_OUT_INKS)))] if held_out and rng.random() < 0.5
           else tuple(np.array(die.ink_bgr) / 255))
    return NumeralStyle(tuple(float(c) for c in body), tuple(float(c) for c in ink), font,
                        float(weight), float(rng.uniform(0.4, 0.55)),
                        float(rng.uniform(-6, 6)), tuple(float(v) for v in rng.uniform(-0.04, 0.04, 2)),
                        float(rng.uniform(0.04, 0.22)), relief=True)


@cache
def outline_faces() -> dict[str, dict]:
    """The TrueType faces' outlines by name: artwork/numeral_glyphs.json's and glyphs.json's
    Noto faces ("noto_sans", "noto_serif")."""
    faces = json.loads((ARTWORK_DIR / "numeral_glyphs.json").read_text(encoding="utf-8"))
    faces.update({f"noto_{k}": v for k, v in _glyph_data().items()})
    return faces


def _render_outline(text: str, face: str, height_px: float, weight: float) -> np.ndarray:
    """render_text's mask in a TrueType face; weight: the strokes bolder (> 0) or lighter by
    that share of the digits' height."""
    data = outline_faces()[face]
    ys = [p[1] for c in data["glyphs"]["0"]["contours"] for p in c]
    ss = 2  # drawn at twice the size, so a stroke grows or thins by part of a pixel
    em = ss * height_px * data["units_per_em"] / (max(ys) - min(ys))
    grow = int(round(abs(weight) * height_px * ss))
    pad = grow + 4
    width = sum(data["glyphs"][ch]["advance"] for ch in text) * em / data["units_per_em"]
    canvas = np.zeros((int(2 * em) + 2 * pad, int(width) + 2 * pad), np.uint8)
    _draw_outline_text(canvas, text, data, (canvas.shape[1] / 2, canvas.shape[0] / 2), em,
                       (255,), math.inf)
    if grow:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
        canvas = (cv2.dilate if weight > 0 else cv2.erode)(canvas, k)
    ys, xs = np.nonzero(canvas)
    crop = canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32) / 255
    return cv2.resize(crop, (max(1, round(crop.shape[1] / ss)), max(1, round(crop.shape[0] / ss))),
                      interpolation=cv2.INTER_AREA)


def render_text(text: str, font: int | str, height_px: float, weight: float) -> np.ndarray:
    """The text as a float mask (1 = ink), cropped to its ink; its digits height_px tall. font:
    a Hershey font (weight: the stroke's width over the height) or a TrueType face's name
    (`outline_faces`; weight: bolder or lighter, `_render_outline`)."""
    if isinstance(font, str):
        return _render_outline(text, font, height_px, weight)
    scale = 1.0
    (_, th), _ = cv2.getTextSize("0", font, scale, 1)
    scale = height_px / th
    thick = max(1, int(round(weight * height_px)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    pad = thick + 4
    canvas = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(canvas, text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(canvas)
    return canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32) / 255


def numeral_texture(value: int, style: NumeralStyle) -> tuple[np.ndarray, np.ndarray]:
    """The face showing value (1 is "1/7") as BGR float 0..1, and its alpha (rounded corners)."""
    ss = 4
    big = TEX * ss
    tex = np.empty((big, big, 3), np.float32)
    tex[:] = style.body
    text = FACE_LABELS[value]
    h = style.height * big * (0.62 if value == 1 else 1.0)
    mask = render_text(text, style.font, h, style.weight)
    if mask.shape[1] > 0.82 * big:  # "1/7" kept inside the face
        f = 0.82 * big / mask.shape[1]
        mask = cv2.resize(mask, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    mh, mw = mask.shape
    cx = big / 2 + style.offset[0] * big
    cy = big / 2 + style.offset[1] * big
    m = cv2.getRotationMatrix2D((mw / 2, mh / 2), style.turn, 1.0)
    m[:, 2] += (cx - mw / 2, cy - mh / 2)
    placed = cv2.warpAffine(mask, m, (big, big))[:, :, None]
    tex = tex * (1 - placed) + np.array(style.ink, np.float32) * placed
    tex = cv2.resize(tex, (TEX, TEX), interpolation=cv2.INTER_AREA)
    return rounded_face(tex, style.rounding, dark_edges=not style.relief)


def make_numeral_scene(seed: int, held_out: bool = False, hard: bool | None = None,
                       n_dice: int | None = None) -> PipScene:
    """One frame of one to four Namaste dice (the turquoise one in most); from the seed."""
    dice = namaste_dice()
    by_colour = {d.colour: d for d in dice}
    count = [0]
    fade = np.random.default_rng([seed, 6])  # drawn apart: the other dice stay as they were

    def new_die(rng: np.random.Generator) -> DieMake:
        count[0] += 1
        first = count[0] == 1 and rng.random() < 0.8
        die = by_colour["turquoise"] if first else by_colour["white"]
        style = sample_numeral_style(rng, die, held_out)
        if not held_out and fade.random() < FADED_SHARE:
            style = _faded(style, float(fade.uniform(*FADE)))
        return DieMake(lambda v: numeral_texture(v, style), FACE_LABELS.__getitem__, die.colour,
                       lambda v: face_relief(v, style), float(rng.uniform(0, 0.5)))

    scene = dice_scene(seed, held_out, hard, n_dice, 4, new_die, (14, 22), real=True,
                       rough=ROUGH_SHARE)
    far = np.random.default_rng([seed, 4])  # drawn apart: the other frames stay as they were
    if not held_out and far.random() < FAR_SHARE:
        scene = _farther(scene, far)
    veil = np.random.default_rng([seed, 5])  # drawn apart too
    if not held_out and scene.hard and veil.random() < VEIL_SHARE:
        scene = _veiled(scene, veil)
    bright = np.random.default_rng([seed, 7])  # drawn apart too
    if not held_out and scene.hard and bright.random() < OVEREXPOSED_SHARE:
        scene = _overexposed(scene, bright)
    return scene


def _faded(style: NumeralStyle, keep: float) -> NumeralStyle:
    """The die's print faded (worn, or a grey ink): its contrast with the body keep of its
    ink's."""
    body, ink = np.asarray(style.body), np.asarray(style.ink)
    return replace(style, ink=tuple(float(c) for c in body + keep * (ink - body)))


def _veiled(scene: PipScene, rng: np.random.Generator) -> PipScene:
    """The frame under a veil of glare: in a pool of light (its spread 0.3-0.6 of the frame's
    longer side) the picture's contrast falls to 0.45-0.7 and 70-110 grey levels are added
    (the print's black is lifted as much as its body); a sensor's noise and JPEG again."""
    h, w = scene.image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    rad = rng.uniform(0.3, 0.6) * max(w, h)
    pool = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * rad ** 2))[:, :, None]
    keep, lift = rng.uniform(0.45, 0.7), rng.uniform(70, 110)
    img = scene.image.astype(np.float32) * (1 - (1 - keep) * pool) + lift * pool
    return replace(scene, image=_noise_and_jpeg(img, rng, 3))


def _overexposed(scene: PipScene, rng: np.random.Generator) -> PipScene:
    """The frame under a lamp too bright for its exposure: GAIN times the light (drawn
    evenly on a log scale), a sensor's noise at that light, clipped at its top, and JPEG."""
    gain = math.exp(rng.uniform(*np.log(GAIN)))
    return replace(scene, image=_noise_and_jpeg(scene.image.astype(np.float32) * gain, rng, 3))


def _noise_and_jpeg(img: np.ndarray, rng: np.random.Generator, most: float) -> np.ndarray:
    """A float frame through a sensor again: noise of 1 to `most` grey levels, JPEG at
    quality 75-92 (BGR uint8)."""
    img = img + rng.normal(0, rng.uniform(1, most), img.shape).astype(np.float32)
    _, buf = cv2.imencode(".jpg", np.clip(img + 0.5, 0, 255).astype(np.uint8),
                          [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 93))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _farther(scene: PipScene, rng: np.random.Generator) -> PipScene:
    """The frame as a camera farther away sees it: smaller by 0.45-0.8 (averaged over the
    pixels, so the numerals' strokes and the cloth's threads shrink alike), a sensor's noise
    and JPEG again."""
    f = float(rng.uniform(0.45, 0.8))
    h, w = scene.image.shape[:2]
    size = (max(1, round(w * f)), max(1, round(h * f)))
    fx, fy = size[0] / w, size[1] / h
    img = _noise_and_jpeg(cv2.resize(scene.image, size, interpolation=cv2.INTER_AREA)
                          .astype(np.float32), rng, 4)
    dice = [replace(t, center=((t.center[0] + 0.5) * fx - 0.5, (t.center[1] + 0.5) * fy - 0.5),
                    side_px=t.side_px * math.sqrt(fx * fy)) for t in scene.dice]
    # the camera's nadir and the markers' homography (image px -> table mm) in the smaller
    # frame's pixels
    to_small = np.array([[fx, 0, 0.5 * fx - 0.5], [0, fy, 0.5 * fy - 0.5], [0, 0, 1]])
    table_h = None if scene.table_h is None else scene.table_h @ np.linalg.inv(to_small)
    nadir = ((scene.nadir[0] + 0.5) * fx - 0.5, (scene.nadir[1] + 0.5) * fy - 0.5)
    return replace(scene, image=img, dice=dice, nadir=nadir, table_h=table_h)
