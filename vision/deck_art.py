"""Card art drawn with cv2: the printed Roche deck (what `feltbank print deck` prints) and
standard-looking poker faces in many styles (what the card scenes lay on the table).

The printed Roche deck is 54 distinct cards at poker size (63 x 88 mm), read from
`equipment/roche.json` (the file the rules read): each card shows its rank in two
corners (the second turned 180 degrees) with the suit's symbol, a large suit symbol in a
medallion (light for Day, a dark night disc for Night), a row of dots counting the card's
place in its half (1..rank), its name, and a border: a thin double line for Day, a thick
single line for Night. Everything a reader needs to tell two cards apart is coarse (symbol,
medallion, dots, border), so the deck reads at a small size; the name is for people.

Poker faces are drawn in a `PokerStyle` (index font and size, pip shape and size, face-card
design, colours, a border or not): real decks differ, so the scenes never show one art.
Labels follow the one convention: rank then suit, `2S` .. `AS` (ranks 2-9 T J Q K A, suits
S H D C).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.labels import EQUIPMENT

CARD_MM = (63.0, 88.0)  # poker size, width x height
CORNER_MM = 3.2  # corner radius
RANKS = "23456789TJQKA"
SUITS = "SHDC"
POKER_LABELS = tuple(r + s for s in SUITS for r in RANKS)
RED_SUITS = "HD"
ROCHE_FILE = "roche"
#: suit colours of the printed deck (BGR 0..255)
ROCHE_COLOURS = {"MAGES": (120, 40, 110), "REALM": (20, 120, 170), "WORLD": (50, 120, 30),
                 "VALOR": (40, 40, 170), "KIN": (150, 80, 20), "COMMONS": (40, 70, 110)}
PAPER = (236, 244, 248)  # the printed deck's cream
NIGHT_DISC = (70, 30, 25)


@dataclass(frozen=True)
class RocheCard:
    """One card of the printed deck, as equipment/roche.json gives it (its suit as the label's
    first part, MAGES)."""

    label: str
    suit: str
    rank: int
    half: str
    name: str
    number: int  # its place in its half, 1..rank


@functools.cache
def roche_deck() -> tuple[RocheCard, ...]:
    """The printed deck's 54 cards, in the file's order."""
    data = json.loads((EQUIPMENT / f"{ROCHE_FILE}.json").read_text(encoding="utf-8"))
    return tuple(RocheCard(c["label"], c["label"].split("-", 1)[0], int(c["rank"]), c["half"],
                           c["name"],
                           int(c["label"].rsplit("-", 1)[1])) for c in data["cards"])


@functools.cache
def roche_suit_names() -> dict[str, str]:
    """Suit id -> its printed name (MAGES -> Mages)."""
    data = json.loads((EQUIPMENT / f"{ROCHE_FILE}.json").read_text(encoding="utf-8"))
    return {s["key"].upper(): s["suit"] for s in data["suits"]}


def roche_labels() -> tuple[str, ...]:
    """The printed deck's labels, as `feltbank print deck --list` prints them."""
    return tuple(c.label for c in roche_deck())


def roche_card(label: str) -> RocheCard:
    """The printed deck's card `label`; ValueError saying what labels look like."""
    for c in roche_deck():
        if c.label == label:
            return c
    raise ValueError(f"{label!r} is not a card of the printed Roche deck; its labels run "
                     f"{roche_deck()[0].label} .. {roche_deck()[-1].label}")


# -- symbols ------------------------------------------------------------------------------------


def _poly(img: np.ndarray, pts: np.ndarray, colour: tuple, s: float) -> None:
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def _circle(img: np.ndarray, c: tuple[float, float], r: float, colour: tuple,
            thick: int = -1) -> None:
    cv2.circle(img, (int(round(c[0] * 16)), int(round(c[1] * 16))), int(round(r * 16)), colour,
               thick, cv2.LINE_AA, shift=4)


def _heart(n: int = 40, fat: float = 1.0) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3 * fat
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    pts = np.stack([x, y], 1) / 34.0
    return pts - [0, pts[:, 1].mean() - 0.03]


def draw_symbol(img: np.ndarray, kind: str, cx: float, cy: float, size: float, colour: tuple,
                flip: bool = False, variant: int = 0) -> None:
    """Draw a suit symbol `kind` (S H D C or a Roche suit id) about `size` px tall at (cx, cy);
    `flip` turns it 180 degrees (pips in a poker card's lower half); `variant` changes the
    poker pips' proportions (decks differ)."""
    sgn = -1.0 if flip else 1.0

    def tf(p: np.ndarray) -> np.ndarray:
        return np.stack([cx + sgn * p[:, 0] * size, cy + sgn * p[:, 1] * size], 1)

    v = variant % POKER_PIP_VARIANTS
    fat = (1.0, 1.12, 0.9, 1.25, 0.82, 1.05)[v]
    stem_w = (0.16, 0.16, 0.16, 0.1, 0.22, 0.12)[v]  # a spade's and a club's foot, half width
    if kind == "H":
        _poly(img, tf(_heart(fat=fat)), colour, size)
    elif kind == "S":
        h = _heart(fat=fat) * [1, -1] + [0, -0.08]
        _poly(img, tf(h), colour, size)
        stem = np.array([[0, 0.12], [-stem_w, 0.46], [stem_w, 0.46]])
        _poly(img, tf(stem), colour, size)
    elif kind == "D":
        w = (0.36, 0.4, 0.32, 0.44, 0.28, 0.38)[v]
        t = np.linspace(0, 1, 9)[:-1, None]
        bow = 0.05 if v == 5 else 0.0  # sides bowed in (some decks' diamonds)
        ends = np.array([[0, -0.5], [w, 0], [0, 0.5], [-w, 0], [0, -0.5]])
        sides = []
        for a, b in zip(ends[:-1], ends[1:], strict=True):
            mid = (a + b) / 2
            sides.append(a + t * (b - a) - bow * np.sin(t * math.pi) * mid / np.linalg.norm(mid))
        _poly(img, tf(np.concatenate(sides)), colour, size)
    elif kind == "C":
        r = (0.2, 0.22, 0.18, 0.24, 0.17, 0.21)[v] * size
        spread = (0.22, 0.22, 0.22, 0.25, 0.2, 0.22)[v]
        for dx, dy in ((0, -0.2), (-spread, 0.08), (spread, 0.08)):
            p = tf(np.array([[dx, dy]]))[0]
            _circle(img, (p[0], p[1]), r, colour)
        foot = stem_w - 0.01
        _poly(img, tf(np.array([[0, 0.0], [-foot, 0.48], [foot, 0.48]])), colour, size)
    elif kind == "MAGES":  # a five-pointed star
        a = np.arange(10) * math.pi / 5 - math.pi / 2
        r = np.where(np.arange(10) % 2 == 0, 0.52, 0.22)
        _poly(img, tf(np.stack([r * np.cos(a), r * np.sin(a) + 0.04], 1)), colour, size)
    elif kind == "REALM":  # a crown
        crown = np.array([[-0.45, 0.3], [-0.45, -0.3], [-0.22, 0.0], [0, -0.42], [0.22, 0.0],
                          [0.45, -0.3], [0.45, 0.3]])
        _poly(img, tf(crown), colour, size)
    elif kind == "WORLD":  # a globe: a ring with a meridian and an equator
        t = max(1, int(round(size * 0.09)))
        _circle(img, (cx, cy), size * 0.42, colour, t)
        cv2.ellipse(img, (int(cx * 16), int(cy * 16)), (int(size * 0.18 * 16), int(size * 0.42 * 16)),
                    0, 0, 360, colour, t, cv2.LINE_AA, shift=4)
        cv2.line(img, (int((cx - size * 0.42) * 16), int(cy * 16)),
                 (int((cx + size * 0.42) * 16), int(cy * 16)), colour, t, cv2.LINE_AA, shift=4)
    elif kind == "VALOR":  # a shield
        sh = np.array([[-0.4, -0.45], [0.4, -0.45], [0.4, 0.0], [0.0, 0.5], [-0.4, 0.0]])
        _poly(img, tf(sh), colour, size)
    elif kind == "KIN":  # three heads
        for dx, dy, rr in ((0, -0.22, 0.17), (-0.27, 0.2, 0.15), (0.27, 0.2, 0.15)):
            p = tf(np.array([[dx, dy]]))[0]
            _circle(img, (p[0], p[1]), rr * size, colour)
    elif kind == "COMMONS":  # a house
        house = np.array([[-0.42, 0.45], [-0.42, -0.05], [0, -0.45], [0.42, -0.05], [0.42, 0.45]])
        _poly(img, tf(house), colour, size)
    else:
        raise ValueError(f"no symbol {kind!r}")


def _blend(img: np.ndarray, mask: np.ndarray, x0: int, y0: int, colour: tuple) -> None:
    """Ink `colour` laid on img through the float mask (1 = ink) whose top-left is (x0, y0);
    the part of the mask past the image's edge is left off."""
    th_, tw_ = mask.shape
    cx0, cy0 = max(0, -x0), max(0, -y0)
    cx1, cy1 = min(tw_, img.shape[1] - x0), min(th_, img.shape[0] - y0)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    a = mask[cy0:cy1, cx0:cx1, None]
    roi = img[y0 + cy0:y0 + cy1, x0 + cx0:x0 + cx1]
    roi[:] = (roi * (1 - a) + np.asarray(colour, np.float32) * a).astype(np.uint8)


def _text(img: np.ndarray, text: str, cx: float, cy: float, height: float, colour: tuple,
          font: int | str = cv2.FONT_HERSHEY_DUPLEX, max_w: float | None = None,
          thick: float = 0.12, flip: bool = False, weight: float = 0.0) -> None:
    """Text centred at (cx, cy) about `height` px tall (capitals), fitted into max_w. font: a
    Hershey font, or a TrueType face's name (`vision.scenes_numerals.outline_faces`: digits
    and A J K Q T; `weight` makes its strokes bolder, > 0, or lighter by that share of the
    height)."""
    if isinstance(font, str):
        from vision.scenes_numerals import render_text

        mask = render_text(text, font, height, weight)
        if max_w and mask.shape[1] > max_w:
            f = max_w / mask.shape[1]
            mask = cv2.resize(mask, (max(1, round(mask.shape[1] * f)),
                                     max(1, round(mask.shape[0] * f))),
                              interpolation=cv2.INTER_AREA)
        if flip:
            mask = mask[::-1, ::-1]
        _blend(img, mask, int(round(cx - mask.shape[1] / 2)), int(round(cy - mask.shape[0] / 2)),
               colour)
        return
    scale = height / 22.0
    th = max(1, int(round(height * thick)))
    (w, h), _ = cv2.getTextSize(text, font, scale, th)
    if max_w and w > max_w:
        scale *= max_w / w
        (w, h), _ = cv2.getTextSize(text, font, scale, th)
    if not flip:
        cv2.putText(img, text, (int(cx - w / 2), int(cy + h / 2)), font, scale, colour, th,
                    cv2.LINE_AA)
        return
    pad = th + 2
    mask = np.zeros((h + 2 * pad + 6, w + 2 * pad), np.uint8)
    cv2.putText(mask, text, (pad, h + pad), font, scale, 255, th, cv2.LINE_AA)
    mask = mask[::-1, ::-1]
    th_, tw_ = mask.shape
    # the tile's padding may reach past the card's edge: the part on the card is drawn
    _blend(img, mask.astype(np.float32) / 255, int(cx - tw_ / 2), int(cy - th_ / 2 - 3), colour)


def card_alpha(w: int, h: int, px_mm: float) -> np.ndarray:
    """The card's shape (rounded corners) as float alpha 0..1."""
    a = np.zeros((h, w), np.uint8)
    r = int(round(CORNER_MM * px_mm))
    cv2.rectangle(a, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return a.astype(np.float32) / 255


def _blank(px_mm: float, colour: tuple) -> tuple[np.ndarray, float]:
    w, h = int(round(CARD_MM[0] * px_mm)), int(round(CARD_MM[1] * px_mm))
    img = np.empty((h, w, 3), np.uint8)
    img[:] = colour
    return img, px_mm


# -- the printed Roche deck -----------------------------------------------------------------


def medallion(number: int, cx: float, cy: float, r: float) -> np.ndarray:
    """The outline (N x 2 px) of the medallion of a card's place `number` (1..7) in its half."""
    if number == 1:
        n, start, radii = 48, 0.0, (1.0,)
    elif number == 2:
        n, start, radii = 4, 45.0, (1.18,)
    elif number == 3:
        n, start, radii = 4, 0.0, (1.25,)
    elif number == 4:
        n, start, radii = 6, 0.0, (1.08,)
    elif number == 5:
        n, start, radii = 3, -90.0, (1.3,)
    elif number == 6:  # a cross
        k = 0.42
        pts = np.array([[-k, -1.1], [k, -1.1], [k, -k], [1.1, -k], [1.1, k], [k, k], [k, 1.1],
                        [-k, 1.1], [-k, k], [-1.1, k], [-1.1, -k], [-k, -k]]) * r
        return pts + [cx, cy]
    else:
        n, start, radii = 16, -90.0, (1.2, 0.8)
    a = np.radians(start + np.arange(n) * 360.0 / n)
    rr = np.array([radii[k % len(radii)] for k in range(n)]) * r
    return np.stack([cx + rr * np.cos(a), cy + rr * np.sin(a)], 1)



@functools.lru_cache(maxsize=256)
def render_roche(label: str, px_mm: float = 6.0) -> np.ndarray:
    """The printed deck's card `label` (BGR uint8, 63 x 88 mm at px_mm pixels a millimetre)."""
    card = roche_card(label)
    img, m = _blank(px_mm, PAPER)
    ink = ROCHE_COLOURS[card.suit]
    w, h = img.shape[1], img.shape[0]
    if card.half == "day":  # thin double border
        for inset in (3.0, 4.6):
            cv2.rectangle(img, (int(inset * m), int(inset * m)),
                          (int(w - inset * m), int(h - inset * m)), ink,
                          max(1, int(round(0.45 * m))), cv2.LINE_AA)
    else:  # thick single border
        t = max(2, int(round(1.8 * m)))
        i = 3.0 * m + t / 2
        cv2.rectangle(img, (int(i), int(i)), (int(w - i), int(h - i)), ink, t, cv2.LINE_AA)
    # corner indices: rank over a small symbol, and the same turned 180 degrees
    for flip in (False, True):
        def at(x: float, y: float, flip: bool = flip) -> tuple[float, float]:
            return ((w - x * m, h - y * m) if flip else (x * m, y * m))

        x, y = at(10.5, 12.5)
        _text(img, str(card.rank), x, y, 7.0 * m, ink, cv2.FONT_HERSHEY_TRIPLEX, flip=flip,
              thick=0.14)
        x, y = at(10.5, 21.0)
        draw_symbol(img, card.suit, x, y, 5.5 * m, ink, flip=flip)
    # the medallion: its shape tells the card's place in its half (1 a circle, 2 a square,
    # 3 a diamond, 4 a hexagon, 5 a triangle, 6 a cross, 7 an eight-pointed
    # star); light with sun rays for Day, filled as a night sky for Night
    cx, cy = w / 2, 38.0 * m
    shape = medallion(card.number, cx, cy, 16.0 * m)
    if card.half == "night":
        _poly(img, shape, NIGHT_DISC, m)
        sym = tuple(int(0.55 * c + 0.45 * 255) for c in ink)
        for k in range(5):  # stars of the night
            a = math.radians(200 + 28 * k)
            _circle(img, (cx + 19.5 * m * math.cos(a), cy + 19.5 * m * math.sin(a)), 0.8 * m,
                    NIGHT_DISC)
    else:
        cv2.polylines(img, [np.round(shape * 16).astype(np.int32)], True, ink,
                      max(1, int(round(1.0 * m))), cv2.LINE_AA, shift=4)
        sym = ink
    draw_symbol(img, card.suit, cx, cy + (2.5 * m if card.number == 5 else 0),
                14.0 * m, sym)
    # the card's place in its half, as dots
    gap = 5.2 * m
    x0 = cx - gap * (card.number - 1) / 2
    for k in range(card.number):
        _circle(img, (x0 + k * gap, 61.0 * m), 1.7 * m, ink)
    _text(img, card.name, cx, 70.0 * m, 4.2 * m, (40, 40, 40), cv2.FONT_HERSHEY_COMPLEX,
          max_w=42 * m, thick=0.1)
    half = "Day" if card.half == "day" else "Night"
    _text(img, f"{roche_suit_names()[card.suit]} - {half}", cx, 76.5 * m, 2.6 * m, ink,
          cv2.FONT_HERSHEY_SIMPLEX, max_w=36 * m, thick=0.1)
    return img


@functools.lru_cache(maxsize=4)
def render_back(px_mm: float = 6.0) -> np.ndarray:
    """The printed deck's back: a dark red lattice round an oval, the same both ways up."""
    img, m = _blank(px_mm, (40, 30, 120))
    w, h = img.shape[1], img.shape[0]
    step = 6.0 * m
    gold = (80, 170, 210)
    for k in range(-20, 40):
        o = k * step
        cv2.line(img, (int(o), 0), (int(o + h), h), gold, max(1, int(0.3 * m)), cv2.LINE_AA)
        cv2.line(img, (int(o), 0), (int(o - h), h), gold, max(1, int(0.3 * m)), cv2.LINE_AA)
    cv2.rectangle(img, (int(3 * m), int(3 * m)), (int(w - 3 * m), int(h - 3 * m)), PAPER,
                  max(1, int(1.2 * m)), cv2.LINE_AA)
    cv2.ellipse(img, (w // 2, h // 2), (int(17 * m), int(26 * m)), 0, 0, 360, PAPER, -1,
                cv2.LINE_AA)
    cv2.ellipse(img, (w // 2, h // 2), (int(15 * m), int(24 * m)), 0, 0, 360, (40, 30, 120),
                max(1, int(0.6 * m)), cv2.LINE_AA)
    _text(img, "ROCHE", w / 2, h / 2, 5.0 * m, (40, 30, 120), cv2.FONT_HERSHEY_TRIPLEX,
          max_w=26 * m)
    return img


# -- poker faces ------------------------------------------------------------------------------

#: Hershey fonts for the corner index; the held-out styles use the last ones
DEV_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX)
HELD_OUT_FONTS = (cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_TRIPLEX)
#: TrueType faces for the corner index (artwork/numeral_glyphs.json: digits and A J K Q T), most
#: decks' indices; the held-out styles use faces the dev styles never do
DEV_FACES = ("dejavusans", "dejavusans_bold", "dejavusans_oblique", "dejavusansmono",
             "liberationsans_regular", "liberationserif_regular", "liberationserif_bold")
HELD_OUT_FACES = ("dejavusans_extralight", "dejavusanscondensed_boldoblique",
                  "dejavusansmono_bold", "dejavuserif", "dejavuserif_bold",
                  "dejavuserifcondensed_italic", "liberationsans_bold",
                  "liberationsansnarrow_regular", "liberationsansnarrow_bolditalic",
                  "liberationserif_italic", "liberationmono_regular", "liberationmono_bold")
#: pip shapes (proportions of the heart, the spade's foot, the diamond, the club's lobes): the
#: dev styles draw the first three, the held-out ones the others
POKER_PIP_VARIANTS = 6
TRUETYPE_SHARE = 0.7  # of the decks drawn, those whose index is printed in a TrueType face


@dataclass(frozen=True)
class PokerStyle:
    """One poker deck's look."""

    font: int | str = cv2.FONT_HERSHEY_DUPLEX  # a Hershey font or a TrueType face's name
    weight: float = 0.0  # a TrueType index's strokes bolder (> 0) or lighter, share of height
    index_mm: float = 7.0  # height of the corner rank
    index_x_mm: float = 5.5
    index_y_mm: float = 7.5
    corner_pip_mm: float = 4.5
    pip_mm: float = 10.0
    pip_variant: int = 0  # the pips' shape, 0..POKER_PIP_VARIANTS - 1
    red: tuple[int, int, int] = (30, 30, 190)
    black: tuple[int, int, int] = (25, 25, 25)
    paper: tuple[int, int, int] = (245, 248, 250)
    border: bool = False
    face_colours: tuple[tuple[int, int, int], ...] = ((40, 60, 180), (160, 90, 30), (40, 160, 210))
    face_pattern: int = 0  # how the court cards' picture is drawn
    ten: str = "10"  # what the ten's index shows ("10" in most decks)


def sample_poker_style(rng: np.random.Generator, held_out: bool = False) -> PokerStyle:
    """A deck's look drawn at random; held-out decks use fonts and proportions the dev decks
    never do."""
    fonts = HELD_OUT_FONTS if held_out else DEV_FONTS
    # what the first styles did not draw (a TrueType index, cream paper) comes from a
    # generator of its own, seeded by rng's state without advancing it: the rest of a
    # table (cloth, camera) draws as before
    more = np.random.default_rng([int(rng.bit_generator.state["state"]["state"]) % (1 << 63),
                                  19])
    faces = HELD_OUT_FACES if held_out else DEV_FACES
    face_name = (str(faces[int(more.integers(len(faces)))])
                 if more.random() < TRUETYPE_SHARE else None)
    weight = float(more.uniform(-0.02, 0.04))
    cream = more.random() < 0.35
    red = (int(rng.integers(10, 70)), int(rng.integers(10, 60)), int(rng.integers(150, 225)))
    face = tuple(tuple(int(v) for v in rng.integers(20, 220, 3)) for _ in range(3))
    font = int(fonts[int(rng.integers(len(fonts)))])
    style = PokerStyle(
        font=face_name or font, weight=weight,
        index_mm=float(rng.uniform(5.5, 8.5) if not held_out else rng.uniform(4.8, 9.0)),
        index_x_mm=float(rng.uniform(4.5, 6.5)), index_y_mm=float(rng.uniform(6.5, 9.0)),
        corner_pip_mm=float(rng.uniform(3.5, 5.5)),
        pip_mm=float(rng.uniform(8.0, 11.5) if not held_out else rng.uniform(7.0, 12.5)),
        pip_variant=int(rng.integers(3)) + (3 if held_out else 0),
        red=red, black=tuple(int(v) for v in rng.integers(10, 45, 3)),
        paper=tuple(int(v) for v in rng.integers(228, 252, 3)),
        border=bool(rng.random() < 0.3), face_colours=face,  # type: ignore[arg-type]
        face_pattern=int(rng.integers(2, 4) if held_out else rng.integers(0, 2)),
        ten="10" if rng.random() < 0.8 else "T",
    )
    if cream:  # cream or ivory card stock: less blue, a little less green
        b, g, r = style.paper
        style = dataclasses.replace(style, paper=(b - int(more.integers(12, 36)),
                                                  g - int(more.integers(2, 12)), r))
    return style


_L, _C, _R = -1.0, 0.0, 1.0
#: pip places (column, row) with rows 0 (top) .. 1 (bottom) of the pip area
PIP_PLACES: dict[str, tuple[tuple[float, float], ...]] = {
    "2": ((_C, 0), (_C, 1)),
    "3": ((_C, 0), (_C, 0.5), (_C, 1)),
    "4": ((_L, 0), (_R, 0), (_L, 1), (_R, 1)),
    "5": ((_L, 0), (_R, 0), (_C, 0.5), (_L, 1), (_R, 1)),
    "6": ((_L, 0), (_R, 0), (_L, 0.5), (_R, 0.5), (_L, 1), (_R, 1)),
    "7": ((_L, 0), (_R, 0), (_C, 0.25), (_L, 0.5), (_R, 0.5), (_L, 1), (_R, 1)),
    "8": ((_L, 0), (_R, 0), (_C, 0.25), (_L, 0.5), (_R, 0.5), (_C, 0.75), (_L, 1), (_R, 1)),
    "9": ((_L, 0), (_R, 0), (_L, 1 / 3), (_R, 1 / 3), (_C, 0.5), (_L, 2 / 3), (_R, 2 / 3),
          (_L, 1), (_R, 1)),
    "T": ((_L, 0), (_R, 0), (_C, 1 / 6), (_L, 1 / 3), (_R, 1 / 3), (_L, 2 / 3), (_R, 2 / 3),
          (_C, 5 / 6), (_L, 1), (_R, 1)),
}


def _court(img: np.ndarray, rank: str, suit: str, style: PokerStyle, m: float,
           ink: tuple) -> None:
    """A court card's picture: a frame, a figure in the deck's colours, the letter."""
    w, h = img.shape[1], img.shape[0]
    x0, y0, x1, y1 = int(12 * m), int(15 * m), int(w - 12 * m), int(h - 15 * m)
    cv2.rectangle(img, (x0, y0), (x1, y1), ink, max(1, int(0.5 * m)), cv2.LINE_AA)
    c1, c2, c3 = style.face_colours
    k = "JQK".index(rank)
    cx, cy = w / 2, h / 2
    for flip in (False, True):
        s = -1 if flip else 1
        # body: a robe whose shape and colour differ by rank
        body = np.array([[-14, 0], [14, 0], [10 - 3 * k, -18], [-10 + 3 * k, -18]], float)
        body = np.stack([cx + s * body[:, 0] * m, cy + s * body[:, 1] * m], 1)
        _poly(img, body, (c1, c2, c3)[k], m)
        hy = cy - s * 24 * m
        _circle(img, (cx, hy), 5.2 * m, (150, 190, 230))
        if style.face_pattern % 2 == 0:
            for j in range(k + 1):  # a crown's points or a cap's feathers
                px = cx + (j - k / 2) * 3.2 * m
                tri = np.array([[px - 1.5 * m, hy - s * 4.5 * m], [px + 1.5 * m, hy - s * 4.5 * m],
                                [px, hy - s * 9 * m]])
                _poly(img, tri, c3 if k != 2 else c1, m)
        else:
            cv2.rectangle(img, (int(cx - 6 * m), int(hy - s * 5 * m)),
                          (int(cx + 6 * m), int(hy - s * (7 + 2 * k) * m)), c2, -1, cv2.LINE_AA)
        stripes = 2 + k + style.face_pattern
        for j in range(stripes):
            yy = cy - s * (3 + j * 14 / stripes) * m
            cv2.line(img, (int(cx - 9 * m), int(yy)), (int(cx + 9 * m), int(yy)), c3,
                     max(1, int(0.6 * m)), cv2.LINE_AA)
        draw_symbol(img, suit, cx + s * 9 * m, cy - s * 27 * m, 5 * m, ink, flip=flip,
                    variant=style.pip_variant)
    _text(img, rank, x0 + 4.5 * m, y0 + 5.5 * m, 6 * m, ink, style.font, weight=style.weight)
    _text(img, rank, x1 - 4.5 * m, y1 - 5.5 * m, 6 * m, ink, style.font, flip=True,
          weight=style.weight)


@functools.lru_cache(maxsize=512)
def render_poker(label: str, style: PokerStyle = PokerStyle(), px_mm: float = 6.0) -> np.ndarray:
    """A poker card `label` (rank then suit, e.g. 'TS') in `style` (BGR uint8)."""
    if len(label) != 2 or label[0] not in RANKS or label[1] not in SUITS:
        raise ValueError(f"{label!r} is not a poker card label; labels are rank then suit: "
                         f"ranks {' '.join(RANKS)}, suits {' '.join(SUITS)} (e.g. 7H, TS, AC)")
    rank, suit = label
    img, m = _blank(px_mm, style.paper)
    ink = style.red if suit in RED_SUITS else style.black
    w, h = img.shape[1], img.shape[0]
    if style.border:
        cv2.rectangle(img, (int(2.5 * m), int(2.5 * m)), (int(w - 2.5 * m), int(h - 2.5 * m)), ink,
                      max(1, int(0.3 * m)), cv2.LINE_AA)
    shown = style.ten if rank == "T" else rank
    for flip in (False, True):
        def at(x: float, y: float, flip: bool = flip) -> tuple[float, float]:
            return ((w - x * m, h - y * m) if flip else (x * m, y * m))

        x, y = at(style.index_x_mm, style.index_y_mm)
        _text(img, shown, x, y, style.index_mm * m, ink, style.font, max_w=8.5 * m, flip=flip,
              thick=0.13, weight=style.weight)
        x, y = at(style.index_x_mm, style.index_y_mm + style.index_mm / 2 + 1.5
                  + style.corner_pip_mm / 2)
        draw_symbol(img, suit, x, y, style.corner_pip_mm * m, ink, flip=flip,
                    variant=style.pip_variant)
    if rank == "A":
        draw_symbol(img, suit, w / 2, h / 2, (style.pip_mm * 2.4 if suit == "S" else
                                             style.pip_mm * 1.8) * m, ink,
                    variant=style.pip_variant)
    elif rank in "JQK":
        _court(img, rank, suit, style, m, ink)
    else:
        top, bottom = 18.0 * m, h - 18.0 * m
        for col, row in PIP_PLACES[rank]:
            x = w / 2 + col * 13.0 * m
            y = top + row * (bottom - top)
            draw_symbol(img, suit, x, y, style.pip_mm * m, ink, flip=row > 0.5,
                        variant=style.pip_variant)
    return img


def render_card(label: str, style: PokerStyle | None = None, px_mm: float = 6.0) -> np.ndarray:
    """A card's face: a poker card when `style` is given, else the printed Roche deck's."""
    if label == "back":
        return render_back(px_mm)
    return render_poker(label, style, px_mm) if style is not None else render_roche(label, px_mm)
