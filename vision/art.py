"""Label artwork drawn with cv2 from the committed glyph outlines (no font engine needed)."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.labels import Die, DieSet

ARTWORK_DIR = Path(__file__).resolve().parent / "artwork"
SUPERSAMPLE = 4


@dataclass(frozen=True)
class LabelStyle:
    """How a label is drawn: glyph font, colours and layout (varied to test unseen art)."""

    glyph_font: str = "sans"  # "sans" or "serif" (committed outlines) or "hershey"
    word_font: str | None = None  # None: same as glyph_font; or "hershey"
    sticker_bgr: tuple[int, int, int] | None = (236, 240, 242)  # None: no sticker, ink on body
    ink_from_die: bool = True
    ink_bgr: tuple[int, int, int] = (25, 25, 25)
    glyph_scale: float = 0.62  # kanji height / sticker side
    word: str = "below"  # "below", "above" or "none"
    border: bool = True  # a thin ink frame inside the sticker edge
    inverted: bool = False  # light ink on a dark sticker


DEFAULT_STYLE = LabelStyle()


@functools.lru_cache(maxsize=1)
def _glyph_data() -> dict:
    """The committed glyph outlines (font units) for every style."""
    return json.loads((ARTWORK_DIR / "glyphs.json").read_text(encoding="utf-8"))


def _draw_outline_text(
    canvas: np.ndarray, text: str, font: str | dict, center: tuple[float, float], height: float,
    colour: tuple[int, int, int], max_width: float,
) -> None:
    """Draw text from glyph outlines so its em box is `height` px, centred at `center`; font:
    a style of glyphs.json, or a face's outlines in its shape (artwork/numeral_glyphs.json)."""
    data = font if isinstance(font, dict) else _glyph_data()[font]
    upm = data["units_per_em"]
    glyphs = data["glyphs"]
    width_units = sum(glyphs[ch]["advance"] for ch in text if ch in glyphs)
    scale = height / upm
    if width_units * scale > max_width:
        scale = max_width / width_units
    # vertical: glyph outlines span roughly [-120, 880] units for CJK; centre the em box
    x = center[0] - width_units * scale / 2
    baseline = center[1] + 0.38 * upm * scale
    polys = []
    for ch in text:
        g = glyphs.get(ch)
        if g is None:
            continue
        for contour in g["contours"]:
            pts = np.asarray(contour, dtype=np.float64)
            px = x + pts[:, 0] * scale
            py = baseline - pts[:, 1] * scale
            polys.append(np.round(np.stack([px, py], 1) * 16).astype(np.int32))
        x += g["advance"] * scale
    if polys:
        cv2.fillPoly(canvas, polys, colour, lineType=cv2.LINE_AA, shift=4)


def _draw_hershey_text(
    canvas: np.ndarray, text: str, center: tuple[float, float], height: float,
    colour: tuple[int, int, int], max_width: float,
) -> None:
    """Draw text with OpenCV's Hershey font, fitted into height and width."""
    face = cv2.FONT_HERSHEY_DUPLEX
    thick = max(1, int(round(height / 9)))
    (w, h), _ = cv2.getTextSize(text, face, 1.0, thick)
    scale = min(height / max(h, 1), max_width / max(w, 1))
    (w, h), _ = cv2.getTextSize(text, face, scale, thick)
    org = (int(round(center[0] - w / 2)), int(round(center[1] + h / 2)))
    cv2.putText(canvas, text, org, face, scale, colour, thick, cv2.LINE_AA)


def render_label(
    die_set: DieSet, label: str, size_px: int, style: LabelStyle = DEFAULT_STYLE
) -> np.ndarray:
    """The printed sticker of one label as a BGR image size_px square."""
    die: Die = die_set.die_of(label)
    big = size_px * SUPERSAMPLE
    bg = style.sticker_bgr if style.sticker_bgr is not None else die.body_bgr
    ink = die.ink_bgr if style.ink_from_die else style.ink_bgr
    if style.inverted:
        bg, ink = ink, bg
    canvas = np.empty((big, big, 3), np.uint8)
    canvas[:] = bg
    if style.border:
        m = int(big * 0.05)
        cv2.rectangle(canvas, (m, m), (big - m, big - m), ink, max(1, big // 60), cv2.LINE_AA)
    glyph = die_set.glyphs[label]
    gh = big * style.glyph_scale
    word_h = big * 0.13
    if style.word == "below":
        gy, wy = big * 0.42, big * 0.80
    elif style.word == "above":
        gy, wy = big * 0.58, big * 0.20
    else:
        gy, wy = big * 0.5, 0.0
    if style.glyph_font == "hershey":
        _draw_hershey_text(canvas, glyph, (big / 2, gy), gh * 0.8, ink, big * 0.8)
    else:
        _draw_outline_text(canvas, glyph, style.glyph_font, (big / 2, gy), gh, ink, big * 0.8)
    if style.word != "none":
        word_font = style.word_font or style.glyph_font
        if word_font == "hershey":
            _draw_hershey_text(canvas, label, (big / 2, wy), word_h * 0.8, ink, big * 0.78)
        else:
            _draw_outline_text(canvas, label, word_font, (big / 2, wy), word_h * 1.3, ink,
                               big * 0.78)
    return cv2.resize(canvas, (size_px, size_px), interpolation=cv2.INTER_AREA)
