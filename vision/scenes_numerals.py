"""Scenes of Namaste numeral dice with ground truth: the numeral reader's test bench.

The dice are those of `equipment/namaste.json` (one turquoise, three white; faces "1/7" and
"2".."6" printed as numerals in dark ink), drawn on the same widely randomized surfaces,
cameras and light as the pip dice (`vision.scenes_pips.dice_scene`). Each die's numerals are
set in one of several fonts, a little turned and off-centre as printing and engraving leave
them. `held_out=True` draws fonts, ink colours and surfaces that development never used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.scenes_pips import TEX, DieMake, PipScene, dice_scene, rounded_face

EQUIPMENT = Path(__file__).resolve().parent.parent / "equipment" / "namaste.json"
#: the face values 1..6 as the dice print them (opposite faces: 1/7-6, 2-5, 3-4)
FACE_LABELS = {1: "1/7", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6"}
#: (OpenCV Hershey font, stroke weight as a share of the text height)
DEV_FONTS = ((cv2.FONT_HERSHEY_SIMPLEX, 0.11), (cv2.FONT_HERSHEY_DUPLEX, 0.13),
             (cv2.FONT_HERSHEY_COMPLEX, 0.1), (cv2.FONT_HERSHEY_TRIPLEX, 0.14))
HELD_OUT_FONTS = ((cv2.FONT_HERSHEY_PLAIN, 0.1), (cv2.FONT_HERSHEY_COMPLEX_SMALL, 0.12),
                  (cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC, 0.12),
                  (cv2.FONT_HERSHEY_TRIPLEX | cv2.FONT_ITALIC, 0.1))
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
    font: int
    weight: float
    height: float  # a digit's height over the face's side
    turn: float  # degrees
    offset: tuple[float, float]  # of the side
    rounding: float


def sample_numeral_style(rng: np.random.Generator, die: NamasteDie, held_out: bool
                         ) -> NumeralStyle:
    """One die's make: its set colour, lightly varied, in one of the split's fonts."""
    fonts = HELD_OUT_FONTS if held_out else DEV_FONTS
    font, weight = fonts[int(rng.integers(len(fonts)))]
    body = np.clip(np.array(die.body_bgr) / 255 * rng.uniform(0.9, 1.05, 3), 0, 1)
    ink = (HELD_OUT_INKS[int(rng.integers(len(HELD_OUT_INKS)))] if held_out and rng.random() < 0.5
           else tuple(np.array(die.ink_bgr) / 255))
    return NumeralStyle(tuple(float(c) for c in body), tuple(float(c) for c in ink), font,
                        float(weight * rng.uniform(0.8, 1.25)), float(rng.uniform(0.4, 0.55)),
                        float(rng.uniform(-6, 6)), tuple(float(v) for v in rng.uniform(-0.04, 0.04, 2)),
                        float(rng.uniform(0.06, 0.16)))


def render_text(text: str, font: int, height_px: float, weight: float) -> np.ndarray:
    """The text as a float mask (1 = ink), cropped to its ink; its digits height_px tall."""
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
    return rounded_face(tex, style.rounding)


def make_numeral_scene(seed: int, held_out: bool = False, hard: bool | None = None,
                       n_dice: int | None = None) -> PipScene:
    """One frame of one to four Namaste dice (the turquoise one in most); from the seed."""
    dice = namaste_dice()
    by_colour = {d.colour: d for d in dice}
    count = [0]

    def new_die(rng: np.random.Generator) -> DieMake:
        count[0] += 1
        first = count[0] == 1 and rng.random() < 0.8
        die = by_colour["turquoise"] if first else by_colour["white"]
        style = sample_numeral_style(rng, die, held_out)
        return DieMake(lambda v: numeral_texture(v, style), FACE_LABELS.__getitem__, die.colour)

    return dice_scene(seed, held_out, hard, n_dice, 4, new_die, (14, 22))
