"""Cards lying face up: find each card's outline, rectify it, and read it against the faces a
deck was learned from (the printed Roche deck, or the table's own poker decks).

Nothing here knows the cloth's colour. Steps:

1. **Outlines.** Edges (Canny on the colour frame, shrunk so its shorter side is 480 px)
   closed into rings; every closed region is a candidate. A card's outline is a closed ring
   of edges whatever the cloth, and the region inside it is the card (the art inside
   touches the ring at most here and there). The region's hull is fitted with four lines
   (the contour's points along each side, away from the rounded corners), so the corners
   are where a sharp card's would be, under perspective too.
2. **Is it a card, and on top?** The quadrilateral must be card-shaped (short over long
   sides 0.55-0.9 for 63 x 88 mm under a tilted camera), fill its region, and show a
   plain paper rim: the band 0.5-2 mm inside its edge is one colour. The top card of a stack
   has one; a card partly covered has the covering card's edge across its rim, a region
   spanning two cards has cloth in it. A card-shaped frame inside a card (a court card's
   picture, the Roche border) lies inside a card with a rim and is not a card. Each side
   is snapped to the card's edge first (`_snap`: paper inside, not paper outside; on a
   cloth as light as the card, the outermost step with paper inside), and a card found is
   refined at full resolution (`_refine`), so its corner indices are cut where they are.
3. **Rectify** to 60 x 84 px, portrait, white-balanced on the card's own paper (its
   brightest tenth), so lamp colour and exposure drop out.
4. **Read.** First look: normalized cross-correlation of the grey face against every
   learned face, searched over +/-4 px shifts and both ways up (a card lies upside down as
   often as not), less a colour term (the index corners' ink: red against black, the Roche
   suits' inks). Second look at twice the resolution (FINE, 2 px a millimetre: a club's
   lobes, a spade's point) over the first look's best labels names the card. The best
   label must beat every other by the pair test (see `_pair_test`): below the threshold the
   reader abstains (label null): no confident error. A card showing its back is reported
   unread ("face down"). A poker card's corners are read too (rank glyph, suit sign, ink
   colour), and its suit must be told from the other suit of its colour by its shapes (the
   corner suit sign, the big pips: `_suit_decide`).

A deck is learned from as little as one capture per card (`learn`, `feltbank calibrate
--kind cards`); the printed Roche deck can also be read from its own art (`roche_model`),
with no capture at all.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.deck_art import (
    CARD_MM,
    POKER_LABELS,
    RED_SUITS,
    render_back,
    render_card,
    roche_card,
    roche_deck,
    roche_labels,
)
from vision.errors import BadImage, VisionError
from vision.objects import ObjectReading

CANON = (60, 84)  # rectified card, width x height (px)
INNER = 4  # the query's margin: shifts of +/-INNER px are searched
FINE = (120, 168)  # the second look's rectified card (2 px a millimetre): pips' shapes
FINE_INNER = 2 * INNER + 3  # its margin: the first look's shift, doubled, +/-3 px
TOP_LABELS = 5  # labels the first look keeps for the second, each way up
DETECT_SIDE = 480  # outlines are found on a frame shrunk to this shorter side
CARD_RATIO = 63 / 88
ASPECT = (0.55, 0.9)  # short over long side of a card's quadrilateral
MIN_CARD = 0.07  # a card's short side, as a share of the frame's shorter side, at least
MAX_CARD = 0.75
MIN_FILL = 0.86  # the region's area over its quadrilateral's
MIN_SUPPORT = 0.6  # share of each side along which the card's edge shows
MAX_SKEW = 40.0  # a card's quad has no corner further than this from square (degrees)
BUSY_EDGES = 0.12  # a cloth with more of its pixels on edges than this is textured (`_busy`)
BUSY_BLUR = 2.0  # px (at DETECT_SIDE): a textured cloth's grey is also searched for edges blurred
#                  this much (a light wood's fine grain broke the cards' rings or ran into them:
#                  26 -> 17 of 101 dev `--elsewhere` wood-table cards not found; 1.5: 23, 2.5:
#                  20, 3.5: 25; session 18, the cloth's texture measured outside the cards
#                  found, `_busy`: 25 -> 16)
EDGE_NOISE = 2.5  # a card's edge changes the grey by this many times the frame's noise ...
EDGE_STEP_MIN = 3.0  # ... and by this many grey levels at least (see `_edge_step`)
RIM_MM = (0.7, 1.9)  # the plain paper band inside a card's edge
RIM_PLAIN = 0.65  # share of the rim that must be paper
RIM_SURE = 0.75  # a card found by the first search with a rim this plain is not searched again on
#                  the blurred grey (over a stack its quads take in the card below, rims plainer
#                  than the top card's own: seed 778's wood stack tops 0.79 lost to 0.92; a
#                  card found 14% off, rim 0.67-0.68, is found right there, 0.74-0.99)
RIM_RETRY = 0.3  # a quad whose rim is less plain than RIM_PLAIN, but this plain, is refined at
#                  full size and its rim measured again (a card on wood grain found 2 px inside
#                  its edge: 0.45, its true outline's 0.9)
GAP_CLOSE = 5  # px (at DETECT_SIDE): gaps in a card's edge this wide are closed, where the
#                narrower closing found no card
PAPER_TINT = 0.4  # an outline found with the wider closing is paper: its tint (`_tint`) at most
STEP_TINT = 0.25  # a quad whose sides may be placed by their grey step alone (`_snap`), or
#                 found with the wider closing: its median colour's tint at most (card paper
#                 under a lamp 0.2; wood 0.3-0.6)
SAME_QUAD_PX = 2.5  # two outlines whose corners are all this close (px at DETECT_SIDE) are one
REFINE_REACH = 0.08  # a found card's sides are refined at full size this far (share of its
#                      width; 0.05 before: a side fitted askew along a wood's seam was out of reach)
REFINE_TOL = 1.5  # px: a refined side's edge points lie this close to its line ...
REFINE_SHARE = 0.6  # ... this many of them, or the side stays
REFINE_INSIDE_PX = 2.0  # px inside a card's edge, its paper: within REFINE_PAPER of the card's
REFINE_PAPER = 0.15  # paper level (its 75th percentile)
REFINE_PEAK = 0.25  # a step of the card's edge: this share of its profile's strongest at least
#                     (0.7 before: on cloth the border's ink outstepped the edge; median corner
#                     error on dev cloth 5.7% of a width -> 0.6%)
REFINE_STRONGEST = 0.7  # the other reading of a step: this share of its profile's strongest
REFINE_RIM_TIE = 0.02  # the edge's outline is kept over the strongest steps' unless their rim is
#                        plainer by this much
LINE_POINTS = 60  # a side's line is fitted through at most this many of its contour's points
FRAME_RATIO = 2.0  # a quad inside a card and this much smaller is a picture's frame
HOLDER_PAPER = 0.5  # ... and the card's face round it mostly its paper: the share of it within the
#                     rim's tolerance of the card's paper colour (a court card's margin round its
#                     picture: 0.66-0.88 on 27 of our poker court cards; rings of a light wood's
#                     grain round a card on dev frames 0.06-0.48). Such a ring, 3 times a card's
#                     area, its rim plain (1.0), beat the card in it: 29 -> 26 of 101 dev
#                     `--elsewhere` wood-table cards not found
INK_WEIGHT = 2.0  # the index corners' ink colour against the chroma maps'
INK_TOL = 0.06  # an ink colour difference this small is noise (light, blur, glare)
INK_APART = 0.12  # two suits whose index inks differ this much are told by colour
INDEX_MM = (11, 24)  # a card's corner index (rank over suit sign) lies within this, mm
COLOUR_WEIGHT = 1.5  # how much a colour difference costs (score units per unit of chroma)
BAND_PX = 4.0  # the grey face is band-passed: what is finer than this many px
MIN_SCORE = 0.3  # below this a face is nothing learned
PAIR_FLOOR = 0.03  # two faces this alike are told apart only by a difference well above noise
MIN_MARGIN = 0.4  # how surely the best label must beat each runner-up (see _score)
BACK = "back"
MODEL_FILE = "cards-model.npz"
LEARN_BLURS = (0.7, 1.3)  # each capture is also learned this much blurred (px of CANON)
INDEX_BOX_MM = (1.2, 1.2, 15.0, 26.0)  # the corner index's box (x0, y0, x1, y1), mm
INDEX_PX_MM = 4.0  # the corner look's resolution (px a millimetre)
INDEX_SHIFT = 8  # the corner look searches +/- this many px (2 mm: a bent card, a rough quad)
INDEX_RIVALS = 5  # the labels closest to the faces' best that the corner look weighs too
INDEX_MARGIN = 0.4  # how surely the corners' best label must beat each other close label
INDEX_READABLE = 0.8  # the card's two corner indices must be this alike for the corners to
#                       be read (else the faces alone decide)
INDEX_SAME = 0.02  # two learned corner indices this alike (1 - correlation) are the same
INDEX_MIN_FIT = 0.95  # ... and how well its corner indices must fit the card's
INDEX_AGREE = 0.7  # the faces may favour their best label over the corners' this much at most
INDEX_OWN_SLACK = 0.03  # a learned index fits the card's at most this much less than the
#                         card's own other corner index does
INDEX_LOCAL_MM = 5.0  # the corner look's local test: windows this wide
INDEX_LOCAL_SLACK = 0.15  # a learned index may disagree locally this much more than the
#                            card's own two indices disagree with each other
COURT = "JQK"  # ranks whose picture may be the same in every suit of a deck
PART_PAD = 4  # px round a corner index's rank glyph or suit sign when it is matched alone
PART_SLACK = 0.1  # a rank glyph or suit sign fits the best learned one at most this much less
#                   than it fits the card's own other corner's (else no learned one is it)
PART_SURE = 0.6  # how surely a rank and a suit read alone must beat every other to name a
#                  card the whole corner index hesitated over
PART_REPS = 3  # learned cards a rank glyph or suit sign is matched against, per rank or suit
INK_DARK = 0.35  # a corner index's pixel is ink when it is this much darker than the paper
INK_MIN_PX = 12  # ... and a corner with fewer ink pixels than this shows no colour
INK_NEAR_MM = 1.0  # the ink's colour is summed over the ink and this far round it
RED_BELOW = 0.72  # the ink is red when its red channel darkens this little against the others
BLACK_ABOVE = 0.8  # ... and black when this much (see `ink_colour`)
PIP_MM = (5.0, 15.0)  # a number card's big pip is this tall (mm; its stalk included)
PIP_SHIFT = 3  # px (at FINE) a pip's window is searched round the pip's middle
PIP_MIN = 2  # pips a card must show for its pips to tell its suit
SUIT_SURE = 0.4  # how surely a card's suit must beat the other suit of its colour (pair test)


class BadDeck(VisionError):
    """Captures that do not make a deck (unknown card names, no card, two cards)."""


@dataclass
class CardModel:
    """Learned faces: per face, its label, grey face (CANON, float) and chroma map."""

    deck: str  # "roche", "poker" or "mixed"
    labels: list[str]
    grey: np.ndarray  # (N, H, W) float32, zero-mean unit-norm
    chroma: np.ndarray  # (N, h, w, 2) float32
    min_margin: float = MIN_MARGIN
    report: dict = field(default_factory=dict)
    fine: np.ndarray | None = None  # (N, FINE h, FINE w) float32: the second look's faces
    index: np.ndarray | None = None  # (N, 2, h, w) float32: each face's two corner indices

    def inks(self) -> np.ndarray:
        """The learned faces' index corners' ink colours (see `_corner_ink`), computed once."""
        if "_inks" not in self.__dict__:
            self.__dict__["_inks"] = _corner_ink(self.chroma)
        return self.__dict__["_inks"]

    def parts(self) -> np.ndarray:
        """Where each learned face's corner index has its rank glyph and its suit sign (see
        `index_parts`): (N, 2, 4) boxes x0, y0, x1, y1, all -1 where not found; computed once."""
        if "_parts" not in self.__dict__:
            n = len(self.labels)
            self.__dict__["_parts"] = (np.stack([index_parts(self.index[i][0]) for i in range(n)])
                                       if self.index is not None else np.full((n, 2, 4), -1))
        return self.__dict__["_parts"]

    def pip_templates(self) -> tuple[dict[str, np.ndarray], int]:
        """Each learned suit's big pip (the mean of its number cards' pips, upright, at FINE;
        see `_pip_blobs`) and the pips' window side (px); computed once. Empty for a deck with
        no learned poker number card."""
        if "_pips" not in self.__dict__:
            found: dict[str, list] = {}
            for i, lab in enumerate(self.labels):
                if self.fine is not None and lab in POKER_LABELS and lab[0] in "23456789T":
                    found.setdefault(lab[1], []).append((self.fine[i], _pip_blobs(self.fine[i])))
            sides = [max(b[2], b[3]) for fl in found.values() for _f, blobs in fl for b in blobs]
            side = int(round(1.3 * float(np.median(sides)))) | 1 if sides else 0
            out = {}
            for suit, fl in found.items():
                pats = [p for f, blobs in fl for p in _pip_patches(f, blobs, side, 0)]
                if pats:
                    out[suit] = _norm(np.mean([_norm(p) for p in pats], 0))
            self.__dict__["_pips"] = (out, side)
        return self.__dict__["_pips"]

    def part_apart(self, i: int, j: int, k: int) -> float:
        """How unlike learned face j's rank glyph (k=0) or suit sign (k=1) is to face i's
        corner index where it fits best (1 - correlation; see `_part_fit`), computed once."""
        cache = self.__dict__.setdefault("_apart", {})
        if (i, j, k) not in cache:
            assert self.index is not None
            cache[i, j, k] = 1.0 - _part_fit(self.index[i][0], self.index[j][0],
                                             self.parts()[j, k])[0]
        return cache[i, j, k]

    def only(self, keep: set[str]) -> CardModel:
        """The model of the faces of labels `keep` alone."""
        idx = [i for i, lab in enumerate(self.labels) if lab in keep]
        return CardModel(self.deck, [self.labels[i] for i in idx], self.grey[idx],
                         self.chroma[idx], self.min_margin,
                         fine=None if self.fine is None else self.fine[idx],
                         index=None if self.index is None else self.index[idx])

    def save(self, folder: Path) -> Path:
        """Write the model into `folder` (made if missing); returns the file."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / MODEL_FILE
        extra = {} if self.fine is None else {"fine": self.fine.astype(np.float16)}
        if self.index is not None:
            extra["index"] = self.index.astype(np.float16)
        np.savez_compressed(path, labels=np.array(self.labels), grey=self.grey,
                            chroma=self.chroma, deck=np.array(self.deck),
                            min_margin=np.array(self.min_margin), **extra)
        (folder / "cards-report.json").write_text(json.dumps(self.report, indent=1) + "\n",
                                                  encoding="utf-8")
        return path

    @classmethod
    def load(cls, folder: Path) -> CardModel:
        """A model written by `save`; BadDeck naming the file when it is not one."""
        path = Path(folder)
        path = path / MODEL_FILE if path.is_dir() else path
        try:
            with np.load(path, allow_pickle=False) as z:
                fine = z["fine"].astype(np.float32) if "fine" in z.files else None
                index = z["index"].astype(np.float32) if "index" in z.files else None
                return cls(str(z["deck"]), [str(s) for s in z["labels"]],
                           z["grey"].astype(np.float32), z["chroma"].astype(np.float32),
                           float(z["min_margin"]), fine=fine, index=index)
        except (OSError, KeyError, ValueError) as e:
            raise BadDeck(f"{path}: not a card model written by `feltbank calibrate --kind "
                          f"cards` ({e})") from e


# -- outlines ---------------------------------------------------------------------------------


def _order(quad: np.ndarray) -> np.ndarray:
    """Corners tl, tr, br, bl of a portrait card: the short sides on top and at the bottom
    (which of them is the top is left to the reader, who tries both)."""
    c = quad.mean(0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # clockwise in image coordinates (y down)
    s01 = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])
    s12 = np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])
    if s01 > s12:  # q0-q1 is a long side: start one corner later
        q = np.roll(q, -1, 0)
    return q.astype(np.float32)


def _line_fit(pts: np.ndarray) -> np.ndarray | None:
    if len(pts) < 4:
        return None
    vx, vy, x0, y0 = cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([vx, vy, x0, y0], float)


def _intersect(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    m = np.array([[a[0], -b[0]], [a[1], -b[1]]])
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    t = np.linalg.solve(m, [b[2] - a[2], b[3] - a[3]])
    return np.array([a[2] + t[0] * a[0], a[3] + t[0] * a[1]])


def _fit_quad(contour: np.ndarray) -> np.ndarray | None:
    """Four corners of a card-like region: a coarse polygon, then a line through the
    contour's points along each side (its middle 70%), the corners where they meet."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    approx = None
    for eps in (0.02, 0.03, 0.045, 0.06):
        a = cv2.approxPolyDP(hull, eps * peri, True)
        if len(a) == 4:
            approx = a.reshape(4, 2).astype(float)
            break
        if len(a) < 4:
            break
    if approx is None:
        return None
    pts = contour.reshape(-1, 2).astype(float)
    lines = []
    for k in range(4):
        p, q = approx[k], approx[(k + 1) % 4]
        d = q - p
        n = np.linalg.norm(d)
        if n < 4:
            return None
        u = d / n
        rel = pts - p
        t = rel @ u
        dist = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        sel = pts[(t > 0.15 * n) & (t < 0.85 * n) & (dist < max(2.0, 0.04 * n))]
        line = _line_fit(sel[::max(1, len(sel) // LINE_POINTS)])
        if line is None:
            line = np.array([u[0], u[1], p[0], p[1]])
        lines.append(line)
    corners = []
    for k in range(4):
        c = _intersect(lines[k - 1], lines[k])
        if c is None:
            return None
        corners.append(c)
    out = np.array(corners)
    if np.linalg.norm(out - approx, axis=1).max() > 0.15 * math.sqrt(cv2.contourArea(
            approx.astype(np.float32))):
        return approx
    return out


def _corner_quads(contour: np.ndarray, min_side: float) -> list[np.ndarray]:
    """Card-shaped quads hypothesised at the square corners of a region's outline (a stack's
    outline shows the top card's corners and two or three of its sides whole)."""
    peri = cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, 0.015 * peri, True).reshape(-1, 2).astype(float)
    n = len(poly)
    out = []
    if n < 4 or n > 14:
        return out
    ratio = CARD_RATIO
    for i in range(n):
        p, a, b = poly[i], poly[i - 1], poly[(i + 1) % n]
        e1, e2 = a - p, b - p
        l1, l2 = float(np.linalg.norm(e1)), float(np.linalg.norm(e2))
        if min(l1, l2) < min_side * 0.5:
            continue
        u, v = e1 / l1, e2 / l2
        if abs(float(u @ v)) > 0.26:  # not within 15 degrees of square
            continue
        for la, lb in ((l1, l1 / ratio), (l1, l1 * ratio), (l2 / ratio, l2), (l2 * ratio, l2)):
            if min(la, lb) < min_side:
                continue
            out.append(np.array([p, p + la * u, p + la * u + lb * v, p + lb * v]))
    return out


def _skew(quad: np.ndarray) -> float:
    """How far the quad's corners are from square, the worst (degrees): a card seen from a
    camera tilted even 30 degrees is a few tens of degrees off at most; a sliver of wood
    grain or a weave's lozenge, much more."""
    worst = 0.0
    for k in range(4):
        a, b = quad[k - 1] - quad[k], quad[(k + 1) % 4] - quad[k]
        cos = float(a @ b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-6)
        worst = max(worst, abs(math.degrees(math.acos(max(-1.0, min(1.0, cos)))) - 90.0))
    return worst


def _aspect(q: np.ndarray) -> float:
    short = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    long_ = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    return float(short / max(long_, 1e-6))


def _warp(img: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The quad's content as a size[0] x size[1] image, shrunk first so it is not aliased."""
    w, h = size
    side = np.linalg.norm(quad[1] - quad[0])
    f = min(1.0, 2.0 * w / max(side, 1.0))
    x0, y0 = np.floor(quad.min(0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 3
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(img.shape[1], x1), min(img.shape[0], y1)
    crop = img[y0:y1, x0:x1]
    q = (quad - [x0, y0]).astype(np.float32)
    if f < 0.99:
        crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        q = (q * float(f)).astype(np.float32)
    dst = np.float32([[0, 0], [2 * w, 0], [2 * w, 2 * h], [0, 2 * h]])
    m = cv2.getPerspectiveTransform(q, dst)
    big = cv2.warpPerspective(crop, m, (2 * w, 2 * h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


def _rim_plain(img: np.ndarray, quad: np.ndarray) -> float:
    """The share of the band RIM_MM inside the card's edge that is plain paper."""
    rw, rh = 63 * 2, 88 * 2  # 2 px a millimetre
    flat = _warp(img, quad, (rw, rh)).astype(np.float32)
    a, b = int(RIM_MM[0] * 2), int(RIM_MM[1] * 2) + 1
    band = np.concatenate([flat[a:b, a:rw - a].reshape(-1, 3), flat[rh - b:rh - a, a:rw - a]
                           .reshape(-1, 3), flat[b:rh - b, a:b].reshape(-1, 3),
                           flat[b:rh - b, rw - b:rw - a].reshape(-1, 3)])
    med = np.median(band, 0)
    dev = np.abs(band - med).max(1)
    return float(np.mean(dev < 0.15 * med.mean() + 12))


@dataclass
class Outline:
    """A card found in a frame: corners tl, tr, br, bl (full-size px), its rim's plainness."""

    quad: np.ndarray
    rim: float

    @property
    def center(self) -> tuple[float, float]:
        c = self.quad.mean(0)
        return float(c[0]), float(c[1])

    @property
    def width(self) -> float:
        return float((np.linalg.norm(self.quad[1] - self.quad[0])
                      + np.linalg.norm(self.quad[2] - self.quad[3])) / 2)


def _paper_distance(small: np.ndarray, quad: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How far each pixel round the quad is from the card's paper colour (the median of the
    card), relative to the paper's brightness; the window's top-left corner; the colour."""
    full = _warp(small, quad, (32, 44)).reshape(-1, 3)
    paper = np.median(full, 0)
    pad = 0.2 * float(np.linalg.norm(quad[1] - quad[0])) + 4
    x0, y0 = np.maximum(np.floor(quad.min(0) - pad), 0).astype(int)
    x1, y1 = np.ceil(quad.max(0) + pad).astype(int)
    win = small[y0:y1, x0:x1]
    diff = cv2.split(cv2.absdiff(win, np.full_like(win, np.round(paper).astype(win.dtype))))
    d = cv2.max(cv2.max(diff[0], diff[1]), diff[2]).astype(np.float32)
    return d * (1.0 / max(float(paper.mean()), 1.0)), np.array([x0, y0], np.float32), paper


def _sides(quad: np.ndarray, us: np.ndarray
           ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Each side of a quad: (its start, its direction, its unit normal pointing out of the
    quad, the points at fractions `us` along it (U, 2))."""
    c = quad.mean(0)
    sides = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        d = b - a
        n = np.array([d[1], -d[0]], np.float32) / max(float(np.linalg.norm(d)), 1e-6)
        if np.dot((a + b) / 2 - c, n) < 0:
            n = -n
        sides.append((a, d, n, a[None, :] + us[:, None] * d[None, :]))
    return sides


def _snap(dist_at: tuple[np.ndarray, np.ndarray, np.ndarray], quad: np.ndarray,
          grey: np.ndarray, step: float) -> np.ndarray:
    """Move each side of a rough quad to the card's edge: the outermost line, within reach,
    with paper inside it and something that is not paper outside (an inner border line has
    paper outside; a shadow has none inside). Where the cloth is as light as the card (white
    paper, a light wood), nothing outside the card's edge is unlike paper: a printed border
    line is then the outermost such line, or there is none; so the side goes on out to the
    outermost line with paper inside where the grey steps (by `step` at least, along
    MIN_SUPPORT of the side; a shadow's far edge has a shadow inside), where the grey steps
    most in that run of lines, if the quad's colour is paper's (its tint at most STEP_TINT: a
    patch of wood grain between two cards has steps all round). A side with neither stays."""
    dist, origin, paper_bgr = dist_at
    paper_like = float(paper_bgr.max() - paper_bgr.min()) <= STEP_TINT * max(
        float(paper_bgr.max()), 1.0)
    quad = quad - origin
    width = float(np.linalg.norm(quad[1] - quad[0]))
    ts = np.arange(-0.07 * width, 0.15 * width, 0.5, dtype=np.float32)
    us = np.linspace(0.12, 0.88, 16, dtype=np.float32)
    lines = []
    for a, d, n, base in _sides(quad, us):

        def at(off: np.ndarray, img: np.ndarray, shift: np.ndarray, fill: float,
               base: np.ndarray = base, n: np.ndarray = n) -> np.ndarray:
            p = base[None, :, :] + off[:, None, None] * n[None, None, :] + shift
            return cv2.remap(img, p[..., 0].astype(np.float32), p[..., 1].astype(np.float32),
                             cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=fill)

        none = np.zeros(2, np.float32)
        inside, outside = at(ts - 1.5, dist, none, 9.0), at(ts + 1.5, dist, none, 9.0)
        score = ((inside < 0.2) & (outside > 0.3)).mean(1)
        shift, first = 0.0, 0
        if score.max() >= 0.4:
            good = np.nonzero(score >= max(0.4, 0.7 * score.max()))[0]
            shift = float(ts[good[-1]])
            first = int(good[-1]) + 4  # beyond that line by 2 px
        if paper_like:
            jump = np.abs(at(ts + 1.5, grey, origin, 0.0) - at(ts - 1.5, grey, origin, 0.0))
            paper = inside < 0.2
            edge = ((jump > step) & paper).mean(1)
            run = np.nonzero(edge[first:] >= MIN_SUPPORT)[0] + first
            if len(run):  # the outermost run of such lines; in it, where the grey steps most
                j = int(run[-1])
                i = j
                while i > first and edge[i - 1] >= MIN_SUPPORT:
                    i -= 1
                strength = np.median(np.where(paper[i:j + 1], jump[i:j + 1], 0.0), 1)
                shift = float(ts[i + int(np.argmax(strength))])
        lines.append((a + shift * n, d))
    out = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        m = np.array([[d1[0], -d2[0]], [d1[1], -d2[1]]], float)
        if abs(np.linalg.det(m)) < 1e-6:
            return quad + origin
        t = np.linalg.solve(m, p2 - p1)
        out.append(p1 + t[0] * d1)
    return np.array(out, np.float32) + origin


def _refine(img: np.ndarray, grey: np.ndarray, step: float, quad: np.ndarray) -> np.ndarray:
    """A found card's corners at the frame's full resolution: along each side (away from the
    rounded corners), within REFINE_REACH of the card's width, the places where the grey
    changes across it; of the lines most of the side's profiles have such a step on
    (`_outermost_line`), the outermost (a wood's grain outside steps here and there, not
    along a line); a line through those points; the corners where the lines meet. A side
    with no such line stays where it was: an outline found at the detection scale is a few
    px off at full size, enough to put the corner index boxes (`_index_quads`) beside the
    card's ink, and a side fitted along a plank's seam cuts a wedge off the card (9-12% of
    its width at a corner).

    Two readings of "a step" give two outlines, and the one whose rim (`_rim_plain`) is the
    plainer is the card's (the first on a tie): steps above the frame's noise (`step`) and
    a quarter of the profile's strongest, with the card's paper just inside them (the
    card's edge: on a light cloth the printed border's ink steps far more than the edge,
    and the 0.7 of the strongest used before session 15 put a Roche card's outline on its
    border); and the strongest steps (0.7 of the profile's strongest: where the cloth is as
    light as the card and its edge barely steps, a faint step outside it may be a
    shadow's)."""
    width = float(np.linalg.norm(quad[1] - quad[0]))
    reach = max(2.0, REFINE_REACH * width)
    ts = np.arange(-reach, reach + 0.25, 0.5, dtype=np.float32)
    us = np.linspace(0.12, 0.88, 32, dtype=np.float32)
    paper = float(np.percentile(_warp(grey, quad, (32, 44)), 75))
    inner = int(round(2 * REFINE_INSIDE_PX))  # samples (0.5 px) from a step to its inside
    rules: list[list] = [[], []]
    for a, d, n, base in _sides(quad.astype(np.float32), us):
        p = base[None, :, :] + ts[:, None, None] * n[None, None, :]
        prof = cv2.remap(grey, p[..., 0], p[..., 1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
        jump = np.abs(prof[2:] - prof[:-2])
        peak = np.zeros_like(jump, bool)
        peak[1:-1] = (jump[1:-1] >= jump[:-2]) & (jump[1:-1] >= jump[2:])
        ins = np.full_like(jump, np.nan)  # the grey REFINE_INSIDE_PX inside each step
        ins[inner:] = prof[1:len(jump) + 1 - inner]
        edge = (peak & (jump >= step) & (jump >= REFINE_PEAK * jump.max(0))
                & (np.abs(ins - paper) <= REFINE_PAPER * paper))
        strongest = peak & (jump >= REFINE_STRONGEST * jump.max(0))
        for lines, strong in zip(rules, (edge, strongest), strict=True):
            lines.append(_side_line(base, n, ts, strong, (a, d)))
    quads = [q for q in (_meet(lines) for lines in rules)
             if q is not None and np.abs(q - quad).max() <= 2 * reach]
    if not quads:
        return quad
    rims = [_rim_plain(img, q) for q in quads]
    return quads[int(np.argmax(np.array(rims) + REFINE_RIM_TIE * (np.arange(len(rims)) == 0)))]


def _side_line(base: np.ndarray, n: np.ndarray, ts: np.ndarray, strong: np.ndarray,
               was: tuple) -> tuple:
    """A side's line (a point, its direction) through its profiles' steps (`strong`: the
    steps taken, (offsets, profiles)) on the outermost line most of them share; `was`
    where none is."""
    at = _outermost_line(np.where(strong, ts[1:-1, None], np.nan))
    pts = (base + at[:, None] * n[None, :])[np.isfinite(at)]
    if len(pts) < REFINE_SHARE * len(base):
        return was
    line = _line_fit(pts)
    if line is None:
        return was
    off = pts - line[2:]
    resid = np.abs(off[:, 0] * line[1] - off[:, 1] * line[0])
    keep = resid < REFINE_TOL
    if keep.mean() < REFINE_SHARE:
        return was
    line = _line_fit(pts[keep]) if keep.sum() >= 4 else line
    return line[2:], line[:2]


def _meet(lines: list[tuple]) -> np.ndarray | None:
    """The corners where four sides' lines (a point, a direction) meet, in turn."""
    out = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        m = np.array([[d1[0], -d2[0]], [d1[1], -d2[1]]], float)
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        t = np.linalg.solve(m, np.asarray(p2, float) - np.asarray(p1, float))
        out.append(np.asarray(p1, float) + t[0] * np.asarray(d1, float))
    return np.array(out, np.float32)


def _outermost_line(pos: np.ndarray) -> np.ndarray:
    """Each profile's candidate (pos: (candidates, U) offsets, NaN where none) on the
    outermost line along the side that REFINE_SHARE of the profiles have a candidate on
    (within REFINE_TOL; lines through a candidate near each end of the side); NaN where a
    profile has none on it, all NaN when no line is so supported."""
    u = pos.shape[1]
    best = np.full(u, np.nan, np.float32)
    rows, cols = np.nonzero(np.isfinite(pos))
    vals = pos[rows, cols]
    first, last = cols < u // 3, cols >= u - u // 3
    if not first.any() or not last.any():
        return best
    ci, cj = np.meshgrid(cols[first], cols[last], indexing="ij")
    pi, pj = np.meshgrid(vals[first], vals[last], indexing="ij")
    ci, cj, pi, pj = ci.ravel(), cj.ravel(), pi.ravel(), pj.ravel()
    x = np.arange(u, dtype=np.float32)
    line = pi[:, None] + (pj - pi)[:, None] * (x[None, :] - ci[:, None]) / (cj - ci)[:, None]
    near = np.zeros(line.shape, bool)
    for c, v in zip(cols, vals, strict=True):
        near[:, c] |= np.abs(line[:, c] - v) <= REFINE_TOL
    ok = near.sum(1) >= REFINE_SHARE * u
    if not ok.any():
        return best
    k = int(np.argmax(np.where(ok, line.mean(1), -np.inf)))
    for c, v in zip(cols, vals, strict=True):
        if abs(line[k, c] - v) <= REFINE_TOL and not abs(best[c] - line[k, c]) <= abs(
                v - line[k, c]):
            best[c] = v
    return best


def _side_support(grey: np.ndarray, quad: np.ndarray, step: float) -> float:
    """The least share, over the four sides, of points along a side where the grey changes
    across it by `step` or more (a step or a line): a card on top has its edge all round; an
    outline that cuts across a card (two cards of a stack taken as one) has a side with none."""
    us = np.linspace(0.1, 0.9, 24, dtype=np.float32)
    least = 1.0
    for _a, _d, n, base in _sides(quad, us):
        offs = np.array([-2.0, -1.0, 0.0, 1.0, 2.0], np.float32)
        p = base[None, :, :] + offs[:, None, None] * n[None, None, :]
        v = cv2.remap(grey, p[..., 0], p[..., 1], cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE)
        contrast = v.max(0) - v.min(0)
        least = min(least, float(np.mean(contrast > step)))
    return least


def _edge_step(grey: np.ndarray) -> float:
    """The grey change across a side that counts as a card's edge (`_side_support`): 3.5% of
    the frame's mean level (plus 2), or, where the frame is quiet, 2.5 times its noise (the
    robust spread of what a blur takes away; 3 grey levels at least): a white card on white paper
    or a light cloth shows its edge as a step of a few grey levels, which a line across
    the card's plain paper does not."""
    g = grey[::2, ::2]
    noise = 1.4826 * float(np.median(np.abs(g - cv2.GaussianBlur(g, (0, 0), 1.5))))
    return min(0.035 * float(g.mean()) + 2.0, max(EDGE_STEP_MIN, EDGE_NOISE * noise))


def _inside(a: np.ndarray, b: np.ndarray) -> float:
    """The share of quad a's area inside quad b."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter / max(cv2.contourArea(a.astype(np.float32)), 1e-6))


def _outlines(c: np.ndarray, small: np.ndarray, grey: np.ndarray, step: float, s: float,
              area_range: tuple[float, float], tried: list, cands: list, img: np.ndarray,
              full_grey: Callable[[], tuple[np.ndarray, float]]) -> None:
    """The card outlines a region's contour gives (at the detection scale `s`), each
    snapped to the card's edge and checked (card-shaped, its edge all round), into `cands`
    (full-size, with its rim's plainness; a rim not plain is measured again on the outline
    refined at full size, `full_grey()`); quads in `tried` are not checked twice."""
    area = cv2.contourArea(c)
    lo, hi = area_range
    if not lo <= area <= hi:
        return
    quads = []
    q = _fit_quad(c)
    if q is not None:
        q = _order(q)
        qa = cv2.contourArea(q.astype(np.float32))
        if qa > 0 and area / qa >= MIN_FILL and ASPECT[0] <= _aspect(q) <= ASPECT[1]:
            quads.append(q)
    if not quads and area >= lo * 1.5:  # cards of a stack, run together: their corners
        quads = _corner_quads(c, math.sqrt(lo / 1.2) * 1.2)
        _checked(quads, small, grey, step, s, tried, cands, img, full_grey)
    elif quads and _checked(quads, small, grey, step, s, tried, cands, img, full_grey) == 0:
        # the region's fitted quad, checked, is no card: a corner of the card cut off where
        # its edge barely steps (a white card on a lined paper, the index's ink run into the
        # ring): the card's quads at the region's square corners
        _checked(_corner_quads(c, math.sqrt(lo / 1.2) * 1.2), small, grey, step, s, tried,
                 cands, img, full_grey)


def _checked(quads: list[np.ndarray], small: np.ndarray, grey: np.ndarray, step: float,
             s: float, tried: list, cands: list, img: np.ndarray,
             full_grey: Callable[[], tuple[np.ndarray, float]]) -> int | None:
    """Each quad (at the detection scale) snapped to the card's edge and checked (`_outlines`)
    into `cands`; how many went in (None when every quad had been tried already)."""
    added, new = 0, False
    for q in quads:
        if (q.min() < 1 or q[:, 0].max() > small.shape[1] - 2 or q[:, 1].max()
                > small.shape[0] - 2 or not cv2.isContourConvex(
                    np.round(q * 8).astype(np.int32))):
            continue
        if any(np.abs(q - t).max() < SAME_QUAD_PX for t in tried):
            continue
        tried.append(q)
        new = True
        q = _order(_snap(_paper_distance(small, q), q, grey, step))
        if not ASPECT[0] <= _aspect(q) <= ASPECT[1] or not cv2.isContourConvex(
                np.round(q * 8).astype(np.int32)) or _skew(q) > MAX_SKEW:
            continue
        if _side_support(grey, q, step) < MIN_SUPPORT:
            continue
        full = (q / s).astype(np.float32)
        rim = _rim_plain(img, full)
        if RIM_RETRY <= rim < RIM_PLAIN:  # a rim not plain: the outline a few px off (its
            # band on the cloth or the edge), or a card partly covered; refined at full size
            fine = _order(_refine(img, *full_grey(), full))
            again = _rim_plain(img, fine)
            if (again > rim and ASPECT[0] <= _aspect(fine) <= ASPECT[1]
                    and _skew(fine) <= MAX_SKEW):
                full, rim = fine, again
        cands.append(Outline(full, rim))
        added += 1
    return added if new else None


def _paper_around(img: np.ndarray, outer: np.ndarray, inner: np.ndarray) -> float:
    """The share of quad outer's face outside quad inner that is outer's paper: within the
    rim's tolerance (`_rim_plain`) of outer's paper colour (its brightest tenth)."""
    x0, y0 = np.maximum(np.floor(outer.min(0)), 0).astype(int)
    x1, y1 = np.ceil(outer.max(0)).astype(int) + 1
    crop = img[y0:y1, x0:x1]
    if crop.size == 0:
        return 1.0
    f = min(1.0, 64.0 / max(crop.shape[:2]))  # the ring's colours, 64 px across at most
    crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA).astype(np.float32)
    mask = np.zeros(crop.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round((outer - [x0, y0]) * f).astype(np.int32), 1)
    cv2.fillConvexPoly(mask, np.round((inner - [x0, y0]) * f).astype(np.int32), 0)
    ring = crop[mask > 0]
    if len(ring) < 8:
        return 1.0
    paper = np.percentile(_warp(img, outer, (32, 44)).reshape(-1, 3).astype(np.float32), 90, 0)
    return float(np.mean(np.abs(ring - paper).max(1) < 0.15 * float(paper.mean()) + 12))


def _busy(edges: np.ndarray, cards: list[np.ndarray]) -> bool:
    """Whether the cloth is textured: more than BUSY_EDGES of its pixels on edges, counted
    outside the cards found already (`cards`, quads at the edges' scale; a little grown). A
    felt laid with thirteen printed cards (the live table's deal) has 13% of the frame on
    edges, nearly all of them the cards' print; its cloth outside them, 0.3%."""
    cloth = np.full(edges.shape, 255, np.uint8)
    for q in cards:
        c = q.mean(0)
        cv2.fillConvexPoly(cloth, np.round(c + (q - c) * 1.1).astype(np.int32), 0)
    free = cv2.countNonZero(cloth)
    return free > 0 and cv2.countNonZero(cv2.bitwise_and(edges, cloth)) > BUSY_EDGES * free


def _on_found(c: np.ndarray, found: list[np.ndarray]) -> bool:
    """Whether a region's contour is centred on a card found already (`found`: quads)."""
    m = cv2.moments(c)
    return m["m00"] <= 0 or any(cv2.pointPolygonTest(
        q.reshape(-1, 1, 2), (m["m10"] / m["m00"], m["m01"] / m["m00"]), False) >= 0
        for q in found)


def find_cards(img: np.ndarray) -> list[Outline]:
    """Every card lying face up (or down) and uncovered in the frame."""
    if not isinstance(img, np.ndarray) or img.ndim != 3 or img.shape[2] != 3 or img.size == 0:
        raise BadImage("expected a colour image (H x W x 3, BGR)")
    h, w = img.shape[:2]
    s = min(1.0, DETECT_SIDE / min(h, w))
    small = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else img
    small = cv2.GaussianBlur(small, (0, 0), 1.0)
    grey8 = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(grey8, 8, 24, L2gradient=True)
    grey = grey8.astype(np.float32)
    step = _edge_step(grey)
    raw = edges
    edges = cv2.morphologyEx(raw, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    short = min(small.shape[:2])
    lo = (MIN_CARD * short) ** 2 * 1.2
    hi = (MAX_CARD * short) ** 2 * 1.6
    grey_at: list = []

    def full_grey() -> tuple[np.ndarray, float]:  # the frame's grey at full size and its
        #                                             edge step (`_edge_step`), made once
        if not grey_at:
            grey_at.append(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32))
            grey_at.append(_edge_step(grey_at[0]))
        return grey_at[0], grey_at[1]

    cands: list[Outline] = []
    tried: list[np.ndarray] = []  # quads snapped already (the inside and outside of one edge
    #                               give the same quad: it is snapped and checked once)
    for c in contours:
        _outlines(c, small, grey, step, s, (lo, hi), tried, cands, img, full_grey)
    found = [o.quad * s for o in cands if o.rim >= RIM_PLAIN]
    sure = [o.quad * s for o in cands if o.rim >= RIM_SURE]
    if _busy(edges, found):
        # a textured cloth (wood grain, a weave, lines): its edges run into the cards' rings;
        # the cards' edges, stronger than the texture's, are also looked for alone, and, where
        # no card was found yet, on the grey blurred (a fine grain fades, a card's edge, a
        # step, stays; over a stack found, its quads take in the card below, rims plainer
        # than the top card's own)
        for more, anywhere in ((cv2.Canny(grey8, 3 * 8, 3 * 24, L2gradient=True), True),
                               (cv2.Canny(cv2.GaussianBlur(grey8, (0, 0), BUSY_BLUR), 8, 24,
                                          L2gradient=True), False)):
            more = cv2.morphologyEx(more, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
            for c in cv2.findContours(more, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)[0]:
                if anywhere or not _on_found(c, sure):
                    _outlines(c, small, grey, step, s, (lo, hi), tried, cands, img,
                              full_grey)
    # a card's edge on a cloth nearly as light as it can break here and there (a ring not
    # closed): the edges closed wider, where no card was found yet; an outline found so must
    # hold paper, mostly (the wider-closed grain of a wood makes card-shaped patches of wood,
    # some of them half over a card)
    wide = cv2.morphologyEx(raw, cv2.MORPH_CLOSE,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (GAP_CLOSE, GAP_CLOSE)))
    found = [o.quad * s for o in cands if o.rim >= RIM_PLAIN]
    known = len(cands)
    for c in cv2.findContours(wide, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)[0]:
        if not lo <= cv2.contourArea(c) <= hi or _on_found(c, found):
            continue
        _outlines(c, small, grey, step, s, (lo, hi), tried, cands, img, full_grey)
    cands[known:] = [o for o in cands[known:]
                     if _tint(img, o) <= PAPER_TINT and _tint(img, o, 50) <= STEP_TINT]
    # overlapping outlines (the inside and outside of one edge, a card's inner border, two
    # cards of a stack taken as one): the one with the plainest rim is the card on top
    cands = [o for o in cands if o.rim >= RIM_PLAIN]
    area = [cv2.contourArea(o.quad) for o in cands]
    # a card-shaped ring far round a card (the grain of a light wood closed about it, its
    # rim on plain cloth) is not a card: round a card-shaped quad well inside it, a card's
    # face is its paper (a court card's margin round its picture), the ring's is cloth
    cands = [k for j, k in enumerate(cands) if not any(
        area[j] >= FRAME_RATIO * area[i] and _inside(o.quad, k.quad) > 0.95
        and _paper_around(img, k.quad, o.quad) < HOLDER_PAPER for i, o in enumerate(cands))]
    # a card-shaped frame well inside a card (a court card's picture) is not a card
    area = [cv2.contourArea(o.quad) for o in cands]
    cands = [o for i, o in enumerate(cands) if not any(
        area[j] >= FRAME_RATIO * area[i] and _inside(o.quad, k.quad) > 0.95
        for j, k in enumerate(cands))]
    cands.sort(key=lambda o: -o.rim)
    out: list[Outline] = []
    for o in cands:
        if any(max(_inside(o.quad, k.quad), _inside(k.quad, o.quad)) > 0.5 for k in out):
            continue
        out.append(o)
    for o in out:
        o.quad = _order(_refine(img, *full_grey(), o.quad))
    return out


# -- faces ------------------------------------------------------------------------------------


def _face(canon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A rectified card (CANON, BGR uint8) as (grey, chroma): white-balanced on its paper."""
    f = canon.astype(np.float32)
    white = np.percentile(f.reshape(-1, 3), 90, axis=0) + 1.0
    f = f / white
    grey = f.mean(2)
    ink = np.clip(0.85 - grey, 0, 1)  # how much ink a pixel holds
    grey = grey - cv2.GaussianBlur(grey, (0, 0), BAND_PX)  # shapes, not shading
    grey = cv2.GaussianBlur(grey, (0, 0), 1.2)
    b, g, r = f[:, :, 0], f[:, :, 1], f[:, :, 2]
    chroma = np.stack([r - g, b - (r + g) / 2, ink], 2)
    chroma = cv2.resize(chroma, (CANON[0] // 4, CANON[1] // 4), interpolation=cv2.INTER_AREA)
    return grey.astype(np.float32), chroma.astype(np.float32)


def _fine_face(canon: np.ndarray) -> np.ndarray:
    """A card rectified at FINE (BGR uint8) as the second look's band-passed grey face."""
    f = canon.astype(np.float32)
    grey = (f / (np.percentile(f.reshape(-1, 3), 90, axis=0) + 1.0)).mean(2)
    grey = grey - cv2.GaussianBlur(grey, (0, 0), 2 * BAND_PX)
    return cv2.GaussianBlur(grey, (0, 0), 1.0).astype(np.float32)


def _index_quads(quad: np.ndarray) -> list[np.ndarray]:
    """The boxes (INDEX_BOX_MM) of a card's two corner indices in the image, the card's corners
    tl, tr, br, bl given: the top-left one, and the bottom-right one turned half round (so
    both read the same way up, whichever way up the card lies)."""
    w, h = CARD_MM
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(src, np.asarray(quad, np.float32))
    x0, y0, x1, y1 = INDEX_BOX_MM
    boxes = np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
                        [[w - x0, h - y0], [w - x1, h - y0], [w - x1, h - y1], [w - x0, h - y1]]])
    return [cv2.perspectiveTransform(b[None], m)[0] for b in boxes]


INDEX_SIZE = (round((INDEX_BOX_MM[2] - INDEX_BOX_MM[0]) * INDEX_PX_MM),
              round((INDEX_BOX_MM[3] - INDEX_BOX_MM[1]) * INDEX_PX_MM))


def _index_face(patch: np.ndarray, blur_mm: float = 0.0) -> np.ndarray:
    """A corner index box (INDEX_SIZE, BGR uint8) as a band-passed grey patch, white-balanced
    on its paper (rank glyph and suit sign: their shapes, not the light)."""
    f = patch.astype(np.float32)
    if blur_mm > 0:
        f = cv2.GaussianBlur(f, (0, 0), blur_mm * INDEX_PX_MM)
    grey = (f / (np.percentile(f.reshape(-1, 3), 90, axis=0) + 1.0)).mean(2)
    grey = grey - cv2.GaussianBlur(grey, (0, 0), 2.0 * INDEX_PX_MM)
    return cv2.GaussianBlur(grey, (0, 0), 1.2).astype(np.float32)


def index_patches(img: np.ndarray, quad: np.ndarray) -> list[np.ndarray]:
    """A card's two corner index boxes (INDEX_SIZE, BGR uint8), both the same way up."""
    return [_warp(img, q, INDEX_SIZE) for q in _index_quads(quad)]


def index_of(img: np.ndarray, quad: np.ndarray, blur_mm: float = 0.0,
             patches: list[np.ndarray] | None = None) -> np.ndarray:
    """A card's two corner indices (2, h, w), both read the same way up (see _index_quads);
    `patches`: the card's `index_patches`, if already cut."""
    return np.stack([_index_face(p, blur_mm) for p in patches or index_patches(img, quad)])


def ink_colour(patches: list[np.ndarray]) -> str | None:
    """The colour of a poker card's corner indices' ink, "red" or "black", from the card's
    two `index_patches`, each measured against its own paper: how much the ink darkens the
    red channel over how much it darkens the green or blue one, each summed over the ink
    and its surround (INK_NEAR_MM) against the paper round it (the median colour of the
    rest of the corner). Red ink (hearts, diamonds) darkens red little (below 0.4), black
    ink all three alike (1), whatever the light's colour or the card stock's (the paper is
    the reference). Summed, not per pixel: a camera's colour is coarser than its
    brightness (a Bayer mosaic, JPEG's halved chroma), so a thin red stroke's colour is
    smeared onto the paper beside it, where a per pixel measure loses it and finds the
    stroke grey; the sum over its surround keeps it. None when a corner shows too little
    ink or paper, its measure falls between the two, or the two corners disagree (an
    outline taking in another card)."""
    seen = set()
    k = max(1, round(INK_NEAR_MM * INDEX_PX_MM))
    grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
    for p in patches:
        f = p.astype(np.float32)
        white = np.percentile(f.reshape(-1, 3), 90, axis=0) + 1.0
        ink = ((1.0 - f / white).max(2) > INK_DARK).astype(np.uint8)
        if int(ink.sum()) < INK_MIN_PX:
            return None
        near = cv2.dilate(ink, grow) > 0
        paper = ~near
        if int(paper.sum()) < INK_MIN_PX:
            return None
        dark = (1.0 - f / (np.median(f[paper], axis=0) + 1.0))[near].sum(0)
        ratio = float(dark[2] / max(float(dark[0]), float(dark[1]), 1e-3))
        seen.add("red" if ratio < RED_BELOW else "black" if ratio > BLACK_ABOVE else None)
    return seen.pop() if len(seen) == 1 else None


def suit_colour(label: str) -> str | None:
    """A poker card's ink colour ("red" for hearts and diamonds, else "black"); None for a
    card of another deck."""
    return None if label not in POKER_LABELS else "red" if label[1] in RED_SUITS else "black"


def index_parts(index: np.ndarray) -> np.ndarray:
    """Where a corner index (band-passed, see `_index_face`) has its rank glyph and, below
    it, its suit sign: boxes (2, 4) x0, y0, x1, y1 (px), -1 where not found. The ink's pieces
    (a line across the box, a border's or a court picture's frame, is none), the topmost
    row of them the rank (a "10" is two pieces side by side); the suit sign is the next
    piece below it, under the rank, with the pieces level with it there. A piece the box's
    inner edges (right, bottom) cut is no part of the index, which lies wholly inside the
    box: a big pip reaching into the box beside the sign (a wide "10")."""
    out = np.full((2, 4), -1, np.int32)
    lo = float(index.min())
    if lo >= 0:
        return out
    mask = (index < 0.35 * lo).astype(np.uint8)
    h, w = mask.shape

    def pieces(tall: float) -> list[tuple[int, ...]]:
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        return sorted((tuple(int(v) for v in stats[i][:4]) for i in range(1, n)
                       if stats[i][2] < 0.7 * w and stats[i][3] < tall * h
                       and stats[i][4] >= 6 and stats[i][0] + stats[i][2] < w
                       and stats[i][1] + stats[i][3] < h), key=lambda c: c[1])

    comps = pieces(0.65)
    if comps:  # a rank glyph run into the suit sign under it (blur): cut at the neck
        x, y, cw, ch = comps[0]
        rows = mask[y:y + ch, x:x + cw].sum(1).astype(np.float32)
        a, b = int(0.3 * ch), int(0.75 * ch)
        if b > a:
            neck = a + int(np.argmin(rows[a:b]))
            if rows[neck] <= 0.25 * float(np.median(rows[rows > 0])):
                mask[y + neck, x:x + cw] = 0
    comps = pieces(0.45)
    if len(comps) < 2:
        return out

    def union(cs: list[tuple[int, ...]]) -> np.ndarray:
        return np.array([min(c[0] for c in cs), min(c[1] for c in cs),
                         max(c[0] + c[2] for c in cs), max(c[1] + c[3] for c in cs)])

    rank = union([c for c in comps if c[1] < comps[0][1] + comps[0][3]])
    rh, rw = rank[3] - rank[1], rank[2] - rank[0]
    below = [c for c in comps if c[1] >= rank[3] - 1 and rank[0] - 0.5 * rw
             <= c[0] + c[2] / 2 <= rank[2] + 0.5 * rw and c[2] * c[3] >= 0.1 * rh * rw]
    if rh < 4 or not below:
        return out
    first = below[0]
    suit = union([first] + [c for c in below[1:] if c[1] < first[1] + first[3]
                            and c[1] + c[3] <= first[1] + 1.5 * rh])
    out[0], out[1] = rank, suit
    return out


def _corner_ink(chroma: np.ndarray) -> np.ndarray:
    """The ink's mean colour in a face's two index corners (rank and suit sign, in the suit's
    colour on every deck; a court card's picture, in the same colours for every suit, is left
    out). chroma: (..., h, w, 3) maps; returns (..., 2)."""
    h, w = chroma.shape[-3:-1]
    ch, cw = -(-INDEX_MM[1] * h // 88), -(-INDEX_MM[0] * w // 63)
    both = np.concatenate([chroma[..., :ch, :cw, :].reshape(*chroma.shape[:-3], -1, 3),
                           chroma[..., h - ch:, w - cw:, :].reshape(*chroma.shape[:-3], -1, 3)],
                          -2)
    ink = both[..., 2:3]
    return (both[..., :2] * ink).sum(-2) / (ink.sum(-2) + 1e-3)


def _colour_distance(model_chroma: np.ndarray, chroma: np.ndarray,
                     inks: np.ndarray | None = None) -> np.ndarray:
    """How unlike each learned face's colours this face's are: the chroma maps' mean
    difference plus the difference of their index corners' ink colour (red against black,
    one suit's ink against another's); `inks`: the learned faces' (`_corner_ink`), if known."""
    maps = 0.5 * np.abs(model_chroma[..., :2] - chroma[None, ..., :2]).mean((1, 2, 3))
    inks = _corner_ink(model_chroma) if inks is None else inks
    ink = np.abs(inks - _corner_ink(chroma)[None]).sum(1)
    return maps + INK_WEIGHT * np.maximum(0.0, ink - INK_TOL)


def _norm(a: np.ndarray) -> np.ndarray:
    a = a - a.mean()
    return (a / (np.linalg.norm(a) + 1e-6)).astype(np.float32)


def face_of(img: np.ndarray, outline: Outline) -> tuple[np.ndarray, np.ndarray]:
    """The (grey, chroma) of a card found in a frame."""
    return _face(_warp(img, outline.quad, CANON))


def _faces(canon_fine: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(grey, chroma, fine grey) of a card rectified at FINE."""
    canon = cv2.resize(canon_fine, CANON, interpolation=cv2.INTER_AREA)
    return (*_face(canon), _fine_face(canon_fine))


def model_from_faces(faces: list[tuple], deck: str) -> CardModel:
    """A model from (label, grey, chroma), (label, grey, chroma, fine grey) or (label, grey,
    chroma, fine grey, corner indices) faces."""
    labels = [f[0] for f in faces]
    grey = np.stack([_norm(f[1]) for f in faces])
    chroma = np.stack([f[2] for f in faces])
    fine = np.stack([_norm(f[3]) for f in faces]) if all(len(f) > 3 for f in faces) else None
    index = np.stack([f[4] for f in faces]) if all(len(f) > 4 for f in faces) else None
    return CardModel(deck, labels, grey, chroma, fine=fine, index=index)


def roche_model() -> CardModel:
    """The printed Roche deck read from its own art (and its back): no capture needed."""
    faces = []
    for label in (*roche_labels(), BACK):
        art = render_back(6.0) if label == BACK else render_card(label, None, 6.0)
        canon = cv2.resize(cv2.GaussianBlur(art, (0, 0), 2.0), CANON, interpolation=cv2.INTER_AREA)
        fine = cv2.resize(cv2.GaussianBlur(art, (0, 0), 1.0), FINE, interpolation=cv2.INTER_AREA)
        h, w = art.shape[:2]
        whole = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        soft = cv2.GaussianBlur(art, (0, 0), 6.0 / INDEX_PX_MM)
        faces.append((label, *_face(canon), _fine_face(fine), index_of(soft, whole)))
    return model_from_faces(faces, "roche")


@dataclass
class _Scores:
    best: str
    s1: float  # its correlation with the face
    second: str  # the label that comes closest to it, told apart by `pair`
    pair: float  # 1: the face is the best label's, 0: half way to `second`'s, -1: `second`'s
    turned: bool
    best_face: int = -1  # the best label's closest face
    close: list = field(default_factory=list)  # [(pair, label, face index)]: runners-up
    rivals: list = field(default_factory=list)  # [(label, face index)]: the closest, first
    query: tuple = ()  # the card's (grey, chroma, fine grey) faces that were scored


def _pair_tests(cand: list[tuple], labels: list[str]) -> dict[str, tuple[float, int]]:
    """How surely the best candidate beats each other label's: {label: (pair, that label's
    face index)} for every other label among the candidates (its best face)."""
    s1, i1, t1, w1, q1, c1 = cand[0][:6]
    out: dict[str, tuple[float, int]] = {}
    for sk, ik, tk, wk, _qk, ck in (c[:6] for c in cand[1:]):
        if labels[ik] == labels[i1]:
            continue
        if tk != t1:  # the other way up: the whole face decides
            p = (s1 - sk) / max(1e-3, 1 - sk)
        else:
            apart = max(1e-3, 1.0 - float((w1 * wk).sum())) + PAIR_FLOOR
            p = (float((q1 * w1).sum()) - float((q1 * wk).sum()) + COLOUR_WEIGHT * (ck - c1)) / (
                apart + COLOUR_WEIGHT * abs(ck - c1))
        if labels[ik] not in out or p < out[labels[ik]][0]:
            out[labels[ik]] = (p, ik)
    return out


def _score(model: CardModel, grey: np.ndarray, chroma: np.ndarray,
           fine: np.ndarray | None = None) -> _Scores:
    """The best label for this face (both ways up, +/-INNER px), and how surely it beats
    each runner-up: the face's correlations with the two, over how different the two faces
    are where they met the query ((c1 - c2) / (1 - t1.t2): 1 when the face is the first's,
    -1 when it is the second's, whatever blur or light took from both).

    First look at CANON: every learned face, its best few labels each way up. Second look,
    when the model and the query have FINE faces: those labels at twice the resolution
    (the pips' and indices' shapes: a club from a spade), searched round the first look's
    shift; the second look names the card and makes the pair test."""
    g0 = _norm(grey)
    labels = model.labels
    ih, iw = CANON[1] - 2 * INNER, CANON[0] - 2 * INNER
    flat = model.grey.reshape(len(labels), -1)
    lab_ids = np.unique(np.array(labels), return_inverse=True)[1]
    second_look = fine is not None and model.fine is not None
    inks = model.inks()
    cand = []  # (score, label, turned, template window, query window, colour distance)
    near: list[tuple[float, str, int]] = []  # the first look's best faces, both ways up
    for turned in (False, True):
        g = np.ascontiguousarray(g0[::-1, ::-1]) if turned else g0
        ch = chroma[::-1, ::-1] if turned else chroma
        cdist = _colour_distance(model.chroma, ch, inks)
        approx = flat @ g.ravel() - COLOUR_WEIGHT * cdist
        inner = _norm(np.ascontiguousarray(g[INNER:-INNER, INNER:-INNER]))
        if second_look:
            gf = np.ascontiguousarray(fine[::-1, ::-1]) if turned else fine
            m = FINE_INNER
            inner_f = _norm(np.ascontiguousarray(gf[m:-m, m:-m]))
            fh, fw = inner_f.shape
        order = np.argsort(-approx)
        for i in order[:4 * INDEX_RIVALS]:
            near.append((float(approx[i]), labels[i], int(i)))
        seen: set[int] = set()
        for i in order:
            if len(seen) >= TOP_LABELS:
                break
            if lab_ids[i] in seen:
                continue
            seen.add(int(lab_ids[i]))
            res = cv2.matchTemplate(model.grey[i], inner, cv2.TM_CCOEFF_NORMED)
            _, ncc, _, (dx, dy) = cv2.minMaxLoc(res)
            if not second_look:
                win = _norm(model.grey[i][dy:dy + ih, dx:dx + iw])
                cand.append((ncc - COLOUR_WEIGHT * float(cdist[i]), int(i), turned, win, inner,
                             float(cdist[i])))
                continue
            # every learned face of this label, at FINE round the first look's shift
            x0, y0 = max(0, 2 * dx - 3), max(0, 2 * dy - 3)
            x1 = min(FINE[0], 2 * dx + 3 + fw + 1)
            y1 = min(FINE[1], 2 * dy + 3 + fh + 1)
            best = None
            for j in np.nonzero(lab_ids == lab_ids[i])[0]:
                res = cv2.matchTemplate(model.fine[j][y0:y1, x0:x1], inner_f,
                                        cv2.TM_CCOEFF_NORMED)
                _, nf, _, (fx, fy) = cv2.minMaxLoc(res)
                sc = nf - COLOUR_WEIGHT * float(cdist[j])
                if best is None or sc > best[0]:
                    win = _norm(model.fine[j][y0 + fy:y0 + fy + fh, x0 + fx:x0 + fx + fw])
                    best = (sc, int(j), turned, win, inner_f, float(cdist[j]))
            cand.append(best)
    cand.sort(key=lambda c: -c[0])
    pairs = _pair_tests(cand, labels)
    pair, k = min(pairs.values()) if pairs else (1.0, -1)
    close = sorted((p, lab, i) for lab, (p, i) in pairs.items())
    best = labels[cand[0][1]]
    rivals = [(lab, i) for _p, lab, i in close]
    for _a, lab, i in sorted(near, reverse=True):
        if lab != best and all(lab != r[0] for r in rivals):
            rivals.append((lab, i))
    return _Scores(best, cand[0][0], labels[k] if k >= 0 else "", pair, cand[0][2],
                   cand[0][1], close, rivals, (grey, chroma, fine))


def _decide(model: CardModel, sc: _Scores) -> tuple[str | None, float, str]:
    thr = model.min_margin
    conf = float(np.clip(0.5 + 0.5 * (sc.pair - thr) / (1 - thr), 0.0, 1.0))
    if sc.best == BACK and sc.s1 >= MIN_SCORE:
        return None, min(conf, 0.49), "face down"
    if sc.s1 < MIN_SCORE:
        return None, min(conf, 0.49), f"not a face learned (best {sc.best}, {sc.s1:.2f})"
    if sc.pair < thr:
        return None, min(conf, 0.49), f"{sc.best} or {sc.second}? ({sc.pair:.2f})"
    return sc.best, conf, ""


def _index_fit(query: np.ndarray, learned: np.ndarray) -> tuple:
    """A query's corner index (its inner part, searched +/-INDEX_SHIFT px) against a learned
    one: (normalized correlation, the query's window, the learned window where it fits, the
    learned index)."""
    m = INDEX_SHIFT
    inner = np.ascontiguousarray(query[m:-m, m:-m])
    res = cv2.matchTemplate(learned, inner, cv2.TM_CCOEFF_NORMED)
    _, ncc, _, (dx, dy) = cv2.minMaxLoc(res)
    ih, iw = inner.shape
    return float(ncc), _norm(inner), _norm(learned[dy:dy + ih, dx:dx + iw]), learned


def _index_fits(query: np.ndarray, learned: np.ndarray) -> list[tuple]:
    """Each of the query's two corner indices against the learned face's two (the closer)."""
    return [max((_index_fit(query[k], learned[c]) for c in range(2)), key=lambda f: f[0])
            for k in range(2)]


def _index_pair(a: tuple, b: tuple) -> tuple[float, float]:
    """The pair test on one corner index: the query against label a's index where it fits,
    and against label b's laid on a's (registered on their common parts: the rank glyph, the
    paper's edge), so the two are weighed on the same places (1: a's, -1: b's); and how unlike
    the two learned indices are there (0: the same index)."""
    _ncc, q, wa, _la = a
    res = cv2.matchTemplate(b[3], wa, cv2.TM_CCOEFF_NORMED)
    _, _, _, (dx, dy) = cv2.minMaxLoc(res)
    h, w = wa.shape
    wb = _norm(b[3][dy:dy + h, dx:dx + w])
    apart = 1.0 - float((wa * wb).sum())
    return (float((q * wa).sum()) - float((q * wb).sum())) / (max(1e-3, apart) + PAIR_FLOOR), apart


def _local_unlike(a: np.ndarray, b: np.ndarray) -> float:
    """How much two aligned patches disagree where they most do: the worst window
    INDEX_LOCAL_MM wide among those holding ink (0 alike, 1 unrelated, 2 opposite). A suit
    sign that is not the learned one shows here even when the rank above it matches."""
    k = max(3, int(INDEX_LOCAL_MM * INDEX_PX_MM))
    diff = cv2.boxFilter((a - b) ** 2, -1, (k, k), normalize=False)
    energy = cv2.boxFilter(a * a + b * b, -1, (k, k), normalize=False)
    inked = energy > 0.3 * float(energy.max())
    return float((diff[inked] / (energy[inked] + 1e-9)).max()) if inked.any() else 1.0


def index_siblings(label: str) -> set[str]:
    """The labels whose cards print the same corner index as `label`'s (itself included). The
    printed deck's index is its suit's sign and its half's size, inside its half's border (a
    Day card's double line, a Night card's thick one): every card of a half shows the same,
    so its corners tell the half, never the card. A poker card's index is its own."""
    if label not in roche_labels():
        return {label}
    c = roche_card(label)
    return {d.label for d in roche_deck() if (d.suit, d.rank, d.half) == (c.suit, c.rank, c.half)}


@functools.cache
def _roche_art() -> CardModel:
    """The printed deck's art as a model (`roche_model`), made once."""
    return roche_model()


def _place_in_half(model: CardModel, query: tuple, label: str) -> tuple[str | None, float, str]:
    """The printed deck's card of `label`'s half that the card's faces `query` (grey, chroma,
    fine grey) show: what tells the cards of a half apart is the medallion's shape and the
    dots, and only the faces show them. Named by the deck's own art (exact, whatever outline
    a capture was learned from: a capture's face learned 3 % off its card told a diamond
    from a square by 0.39), when the art tells it from every other card of the half
    (`_decide`'s pair test) and the learned faces of the half do not say another card as
    surely. (label, confidence, why); `label` itself when it has no sibling learned."""
    half = index_siblings(label) & set(model.labels)
    if len(half) < 2:
        return label, 1.0, ""
    art = _roche_art()
    a = _score(art.only(half), *query)
    name, conf, why = _decide(art, a)
    if name is None:
        return None, min(conf, 0.49), f"{a.best} or {a.second}? (the art, in its half {a.pair:.2f})"
    if model is not art:
        own = _score(model.only(half), *query)
        if own.best != name and own.pair >= model.min_margin:
            return None, 0.3, f"{name} or {own.best}? (the art against the learned faces)"
    return name, conf, ""


def _art_decide(model: CardModel, sc: _Scores, info: dict, label: str | None, conf: float,
                why: str) -> tuple[str | None, float, str]:
    """A printed card the learned faces and corners left unnamed, named by the deck's own art
    (`roche_model`: exact, where a capture's face may have been learned from an outline a few
    % off its card) when the art tells it from every other card and the back (the pair test),
    the learned faces do not prefer another card to it surely, and the corners, where they
    read, do not put another half first surely."""
    art = _roche_art()
    if model is art:
        return label, conf, why
    a = _score(art, *sc.query)
    name, c, _w = _decide(art, a)
    if name is None or name not in model.labels:
        return label, conf, why
    if sc.best != name and any(p >= model.min_margin for p, n, _i in sc.close if n == name):
        return label, conf, why
    if (info.get("own", 0.0) >= INDEX_READABLE and info.get("top") not in index_siblings(name)
            and info.get("pc", 0.0) >= INDEX_MARGIN):
        return label, conf, why
    return name, c, ""


def _index_look(model: CardModel, sc: _Scores, query: np.ndarray
                ) -> tuple[str | None, float, str, dict]:
    """The corner look: the rank glyph and suit sign in the card's two corner indices against
    those of the labels the faces could not rule out (the same rank in the other suit of its
    colour, look-alike pip layouts). The label whose indices fit best must beat each other by
    the pair test (INDEX_MARGIN) on both corners, or agree with a face test that was sure;
    and its indices must not be locally unlike the card's (see `_local_unlike`), by more than
    the card's own two indices are unlike each other: a card the deck never learned is not
    named after its look-alike."""
    thr = model.min_margin
    assert model.index is not None
    names = [(sc.best, sc.best_face)] + [r for r in sc.rivals if r[0] != BACK][:INDEX_RIVALS]
    fits = {lab: _index_fits(query, model.index[i]) for lab, i in names}
    score = {lab: min(f[0] for f in fl) for lab, fl in fits.items()}
    top = max(score, key=lambda lab: score[lab])
    pairs = {lab: [_index_pair(a, b) for a, b in zip(fits[top], fl, strict=True)]
             for lab, fl in fits.items() if lab != top}
    # labels whose corner indices are the same as top's (the printed deck prints its suit's
    # number in every card's corner): the corners cannot tell them, the faces must
    same = {lab for lab, pl in pairs.items() if min(a for _p, a in pl) < INDEX_SAME}
    if sc.best in same:
        top = sc.best
        pairs = {lab: [_index_pair(a, b) for a, b in zip(fits[top], fl, strict=True)]
                 for lab, fl in fits.items() if lab != top}
        same = {lab for lab, pl in pairs.items() if min(a for _p, a in pl) < INDEX_SAME}
    pc, rival = 1.0, ""
    for lab, pl in pairs.items():
        p = min(p for p, _a in pl)
        if lab not in same and p < pc:
            pc, rival = p, lab
    own = _index_fit(query[0], query[1])
    unlike = max(_local_unlike(f[1], f[2]) for f in fits[top])
    own_unlike = _local_unlike(own[1], own[2])
    info = {"top": top, "pc": pc, "rival": rival, "ncc": score[top], "own": own[0],
            "unlike": unlike, "own_unlike": own_unlike}
    face_conf = float(np.clip(0.5 + 0.5 * (sc.pair - thr) / (1 - thr), 0.0, 1.0))
    conf = float(np.clip(0.5 + 0.5 * (pc - INDEX_MARGIN) / (1 - INDEX_MARGIN), 0.0, 1.0))
    if own[0] < INDEX_READABLE:  # the card's two indices unlike: hidden, or the outline off
        label, c, why = _decide(model, sc)
        return label, c, why, info
    if score[top] < own[0] - INDEX_OWN_SLACK or unlike > own_unlike + INDEX_LOCAL_SLACK:
        return None, 0.3, f"its corner index is unlike {top}'s ({score[top]:.2f}, {unlike:.2f})", info
    if top == sc.best and sc.pair >= thr and pc >= 0:  # faces sure, corners not against
        return top, max(conf, face_conf), "", info
    if len(index_siblings(top) & set(model.labels)) > 1 and sc.query:
        # the corners tell the half (a learned sibling's index, read off its capture's
        # outline, may be unlike top's and so not `same`): its faces must tell the card
        lab, c, why = _place_in_half(model, sc.query, top)
        info["placed"] = lab  # the half's place, told once (CardReader.read asks again only
        #                       of a label that came otherwise)
        face_p = 0.0 if lab == sc.best else next((p for p, n, _i in sc.close if n == lab), 0.0)
        if lab is not None and pc >= INDEX_MARGIN and score[top] >= INDEX_MIN_FIT \
                and face_p < INDEX_AGREE:
            return lab, min(conf, c), "", info
        other = next((x for x in (rival, sc.best, sc.second) if x and x != lab), "")
        return None, min(conf, c, 0.49), why or f"{lab} or {other}? (corners {pc:.2f})", info
    if same:
        return None, min(face_conf, 0.49), f"{sc.best} or {sc.second}? (faces {sc.pair:.2f})", info
    face_p = 0.0 if top == sc.best else next((p for p, lab, _i in sc.close if lab == top), 0.0)
    if pc >= INDEX_MARGIN and score[top] >= INDEX_MIN_FIT and face_p < INDEX_AGREE:
        return top, conf, "", info
    return None, min(conf, 0.49), f"{top} or {rival if top == sc.best else sc.best}? " \
        f"(corners {pc:.2f}, faces {sc.pair:.2f})", info


def _part_fit(query: np.ndarray, learned: np.ndarray, box: np.ndarray) -> tuple:
    """A learned corner index's part (its box, padded PART_PAD px) searched in the query's
    index round the same place (+/-INDEX_SHIFT px): (correlation, where it fits (x, y))."""
    h, w = learned.shape
    x0, y0 = max(0, int(box[0]) - PART_PAD), max(0, int(box[1]) - PART_PAD)
    x1, y1 = min(w, int(box[2]) + PART_PAD), min(h, int(box[3]) + PART_PAD)
    sx0, sy0 = max(0, x0 - INDEX_SHIFT), max(0, y0 - INDEX_SHIFT)
    sx1, sy1 = min(w, x1 + INDEX_SHIFT), min(h, y1 + INDEX_SHIFT)
    res = cv2.matchTemplate(query[sy0:sy1, sx0:sx1], learned[y0:y1, x0:x1],
                            cv2.TM_CCOEFF_NORMED)
    _, ncc, _, (dx, dy) = cv2.minMaxLoc(res)
    return float(ncc), (sx0 + dx, sy0 + dy)


def _pip_blobs(fine: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The big pips of a card's band-passed FINE face (`_fine_face`): boxes x, y, w, h of
    its ink pieces PIP_MM tall, pip-shaped, alike in size, outside the four corner indices
    and off the card's middle row (a pip there may be either way up)."""
    h, w = fine.shape
    lo = float(np.percentile(fine, 0.5))
    if lo >= 0:
        return []
    n, _, stats, _ = cv2.connectedComponentsWithStats((fine < 0.4 * lo).astype(np.uint8),
                                                      connectivity=8)
    px_mm = w / CARD_MM[0]
    ix, iy = INDEX_BOX_MM[2] * px_mm, INDEX_BOX_MM[3] * px_mm
    blobs = []
    for x, y, bw, bh, area in (tuple(int(v) for v in st) for st in stats[1:n]):
        cx, cy = x + bw / 2, y + bh / 2
        if (not PIP_MM[0] * px_mm <= bh <= PIP_MM[1] * px_mm or not 0.4 * bh <= bw <= 1.4 * bh
                or ((cx < ix or cx > w - ix) and (cy < iy or cy > h - iy))
                or abs(cy - h / 2) < 0.06 * h):
            continue
        blobs.append((x, y, bw, bh, area))
    if not blobs:
        return []
    mid = float(np.median([b[4] for b in blobs]))
    return [b[:4] for b in blobs if 0.6 * mid <= b[4] <= 1.6 * mid]


def _pip_patches(fine: np.ndarray, blobs: list, side: int, margin: int) -> list[np.ndarray]:
    """Square windows (side + 2 margin px) round each pip's middle, upright: a poker card's
    pips in its lower half are printed turned half round, whichever way up it lies."""
    h = fine.shape[0]
    out = []
    for x, y, bw, bh in blobs:
        c = (x + (bw - 1) / 2, y + (bh - 1) / 2)
        win = cv2.getRectSubPix(fine, (side + 2 * margin, side + 2 * margin), c)
        out.append(np.ascontiguousarray(win[::-1, ::-1]) if c[1] > h / 2 else win)
    return out


def pip_pair(model: CardModel, fine: np.ndarray, a: str, b: str) -> tuple[float, int] | None:
    """How surely a card's big pips are suit a's rather than suit b's (its band-passed FINE
    face; the pair test, 1: a's, -1: b's, the mean over its pips) and how many pips it
    shows; None when it shows fewer than PIP_MIN or either suit has no learned pip."""
    temps, side = model.pip_templates()
    if a not in temps or b not in temps:
        return None
    blobs = _pip_blobs(fine)
    if len(blobs) < PIP_MIN:
        return None
    ta, tb = temps[a], temps[b]
    apart = max(1e-3, 1.0 - float((ta * tb).sum())) + PAIR_FLOOR
    ps = []
    for win in _pip_patches(fine, blobs, side, PIP_SHIFT):
        res = cv2.matchTemplate(win, ta, cv2.TM_CCOEFF_NORMED)
        _, _, _, (dx, dy) = cv2.minMaxLoc(res)
        q = _norm(win[dy:dy + side, dx:dx + side])
        ps.append((float((q * ta).sum()) - float((q * tb).sum())) / apart)
    return float(np.mean(ps)), len(ps)


@dataclass
class _Part:
    """A card's rank glyph or suit sign read from its two corner indices."""

    best: str  # the rank (or suit) whose learned glyph (sign) fits best
    fit: float  # how well (the mean over the two corners)
    own: float  # how well the card's one corner's fits its other corner's
    pairs: dict  # {other rank (suit): the pair test, 1: the best's, -1: the other's}
    every: dict = field(default_factory=dict)  # `pairs` before suits of the other ink
    #                                            colour were ruled out by the ink


def _rank_suit(model: CardModel, query: np.ndarray) -> tuple[_Part, _Part] | None:
    """The rank glyph and the suit sign of a poker card's two corner indices, each against
    those of a few learned cards of every rank (suit): the best, how well it fits against
    how well the card's own two corners fit each other, and the pair test against every
    other rank (suit). None when the model has no poker card's parts."""
    if model.index is None:
        return None
    parts = model.parts()
    reps: dict[tuple[int, str], list[int]] = {}
    seen: set[str] = set()
    for i, lab in enumerate(model.labels):  # a label's first face: its capture, unblurred
        if lab in seen or lab not in POKER_LABELS or parts[i, 1, 0] < 0:
            continue
        seen.add(lab)
        for k in (0, 1):
            faces = reps.setdefault((k, lab[k]), [])
            if len(faces) < PART_REPS:
                faces.append(i)
    if not reps:
        return None
    out = []
    for k in (0, 1):
        fits: dict[str, tuple[float, int, tuple]] = {}
        for (kk, v), faces in reps.items():
            if kk != k:
                continue
            for i in faces:
                f0 = _part_fit(query[0], model.index[i][0], parts[i, k])
                f1 = _part_fit(query[1], model.index[i][0], parts[i, k])
                fit = (f0[0] + f1[0]) / 2
                if v not in fits or fit > fits[v][0]:
                    fits[v] = (fit, i, f0[1])
        best = max(fits, key=lambda v: fits[v][0])
        fit, ib, (x, y) = fits[best]
        box = parts[ib, k]
        pw, ph = box[2] - box[0] + 2 * PART_PAD, box[3] - box[1] + 2 * PART_PAD
        own_box = np.array([x + PART_PAD, y + PART_PAD, x + pw - PART_PAD, y + ph - PART_PAD])
        own = _part_fit(query[1], query[0], own_box)[0]
        pairs = {}
        for v, (fv, iv, _xy) in fits.items():
            if v != best:
                apart = model.part_apart(ib, iv, k)
                pairs[v] = (fit - fv) / (max(1e-3, apart) + PAIR_FLOOR)
        out.append(_Part(best, fit, own, pairs, dict(pairs)))
    return out[0], out[1]


def _index_decide(model: CardModel, sc: _Scores, query: np.ndarray,
                  ink: np.ndarray | None = None) -> tuple[str | None, float, str, dict]:
    """The corner look (`_index_look`), and for a poker card what its corners' rank glyph
    and suit sign allow (`_rank_suit`): a label is not given when its rank or suit is ruled
    out by them, when they are unlike every learned one (a rank or suit never learned), or
    when they leave open a card the deck never learned (JC when only JS was learned: the
    learned faces cannot tell a card they do not have). A court card whose corners cannot be
    read is not named (its picture can be the same in every suit: JH was read as JD). Where
    the whole index hesitated
    (two labels alike but for the suit sign, or its index locally unlike the learned one),
    a rank and a suit both read surely (PART_SURE) name the card, if the faces or the
    whole index put it first. `ink`: the card's index corners' ink colour (`_corner_ink`):
    a suit whose learned cards' ink is unlike it (red against black) is ruled out."""
    label, conf, why, info = _index_look(model, sc, query)
    if (label or sc.best) not in POKER_LABELS:
        return label, conf, why, info
    if info.get("own", 0.0) < INDEX_READABLE:
        if label is not None and label[0] in COURT:  # its picture is the same in each suit
            return None, 0.3, f"{label}? (its corner indices unreadable)", info
        return label, conf, why, info
    rs = _rank_suit(model, query)
    if rs is None:
        return label, conf, why, info
    names = ("rank", "suit sign")
    info["parts"] = [(p.best, round(p.fit, 3), round(p.own, 3), round(min(
        p.pairs.values(), default=1.0), 3)) for p in rs]
    for k, part in enumerate(rs):
        if part.fit < part.own - PART_SLACK:
            return None, 0.3, (f"its corners' {names[k]} is unlike every learned one "
                               f"({part.fit:.2f}, its own {part.own:.2f})"), info
    if ink is not None:  # a suit of another ink colour (red, black) is no rival
        inks = model.inks()
        suit_ink = {v: np.mean([inks[i] for i, lab in enumerate(model.labels)
                                if lab in POKER_LABELS and lab[1] == v], 0)
                    for v in set(rs[1].pairs) | {rs[1].best}}
        apart = {v: float(np.abs(c - ink).sum()) for v, c in suit_ink.items()}
        near = min(apart, key=lambda v: apart[v])

        def other_colour(v: str) -> bool:  # its ink unlike the nearest suit's, and the card's
            gap = float(np.abs(suit_ink[v] - suit_ink[near]).sum())  # nearer that suit's
            return gap >= INK_APART and apart[v] - apart[near] > 0.5 * gap

        rs[1].pairs = {v: pv for v, pv in rs[1].pairs.items() if not other_colour(v)}
    info["rs"] = rs
    possible = [[p.best] + [v for v, pv in p.pairs.items() if pv < INDEX_MARGIN] for p in rs]
    learned = set(model.labels)
    never = sorted(r + s for r in possible[0] for s in possible[1] if r + s not in learned)
    if label is None:
        named = rs[0].best + rs[1].best
        sure = min(min(p.pairs.values(), default=1.0) for p in rs)
        if (sure >= PART_SURE and not never and named in (sc.best, info.get("top"))
                and sc.s1 >= MIN_SCORE):
            return named, float(np.clip(0.5 + 0.5 * (sure - PART_SURE) / (1 - PART_SURE),
                                        0.5, 1.0)), "", info
        return label, conf, why, info
    for k, part in enumerate(rs):
        if label[k] not in possible[k]:
            return None, 0.3, f"{label}? its corners' {names[k]} is {part.best}'s", info
    if never:
        return None, 0.3, f"{label} or {never[0]}? ({never[0]} not learned)", info
    return label, conf, why, info


def _partner(suit: str) -> str:
    """The other poker suit of the same colour (spades and clubs, hearts and diamonds)."""
    return {"S": "C", "C": "S", "H": "D", "D": "H"}[suit]


def _suit_evidence(model: CardModel, card: str, sc: _Scores, rs: tuple | None,
                   fine: np.ndarray, other: str = "") -> list[tuple[str, float]]:
    """What a poker card's shapes say of its suit against another suit (`other`; the other
    suit of its colour by default), as pair tests (1: the suit of `card`, -1: the other):
    its corners' suit sign (`_rank_suit`'s reading, when the corners could be read), a
    number card's big pips (`pip_pair`), an ace's one big pip (the faces' pair test: the pip
    is most of the face). A court card's picture says nothing (it may be the same in every
    suit)."""
    suit = card[1]
    other = other or _partner(suit)
    ev = []
    if card[0] == "A":
        rival = card[0] + other
        close = {lab: p for p, lab, _i in sc.close}
        if sc.best == card:
            ev.append(("faces", float(close.get(rival, 1.0))))
        elif sc.best == rival:
            ev.append(("faces", -float(close.get(card, 1.0))))
    if rs is not None:
        part = rs[1]
        if part.best == suit and other in part.every:
            ev.append(("suit sign", float(part.every[other])))
        elif part.best == other and suit in part.every:
            ev.append(("suit sign", -float(part.every[suit])))
    pp = pip_pair(model, fine, suit, other) if card[0] in "23456789T" else None
    if pp is not None:
        ev.append(("pips", pp[0]))
    return ev


def _suit_told(ev: list[tuple[str, float]], sure: float = SUIT_SURE) -> bool:
    """A suit is told when its shape evidence adds up to `sure` (a suit sign and pips that
    agree, each short of it, tell it together) and no piece is as sure of the other suit
    of its colour."""
    return bool(ev) and sum(p for _k, p in ev) >= sure and min(p for _k, p in ev) > -SUIT_SURE


def _colour_decide(model: CardModel, sc: _Scores, label: str | None, conf: float, why: str,
                   info: dict, fine: np.ndarray, ink: str | None
                   ) -> tuple[str | None, float, str]:
    """A poker reading whose corners' ink is neither clearly red nor black (`ink_colour`:
    dim or tinted light, cream stock, a noisy JPEG) has its colour backed by its shapes:
    its suit sign, big pips or an ace's pip (`_suit_evidence`) against each learned suit
    of the other colour. The label is not given when they say the other colour's suit (the
    sum of their pair tests below 0, or one piece by SUIT_SURE): a 5D whose faces' colour
    term named it 5C on a dim frame. Shapes that say nothing (a court card's corners
    unread) leave the label as the faces and corners gave it."""
    if label not in POKER_LABELS or ink is not None:
        return label, conf, why
    colour = suit_colour(label)
    learned = sorted({lab[1] for lab in model.labels if lab in POKER_LABELS})
    for other in learned:
        if suit_colour(label[0] + other) == colour:
            continue
        ev = _suit_evidence(model, label, sc, info.get("rs"), fine, other)
        if ev and (sum(p for _k, p in ev) < 0 or min(p for _k, p in ev) <= -SUIT_SURE):
            said = ", ".join(f"{k} {p:.2f}" for k, p in ev)
            return None, min(conf, 0.3), (f"{label} or {label[0]}{other}? its ink is neither "
                                          f"red nor black ({said})")
    return label, conf, why


def _suit_decide(model: CardModel, sc: _Scores, label: str | None, conf: float, why: str,
                 info: dict, fine: np.ndarray, ink: str | None) -> tuple[str | None, float, str]:
    """A poker reading's suit, when the deck learned the other suit of its colour too,
    must be told by the card's shapes (`_suit_told`: the corners' suit sign, the big pips,
    one sure of it and none of the other), or the card is abstained on: faces of the two suits (a court
    card's picture, a pip layout) differ too little for a low margin to be a reading (2C
    had been read as 2S at 0.52). And a card the corners and faces left between the two
    suits of its colour, its rank read surely, is named when two of its shapes (its suit
    sign and its big pips) tell the suit: a court card's suit sign alone does not (a
    held-out JS was read as JC at 0.61 by its suit sign alone)."""
    learned = {lab[1] for lab in model.labels if lab in POKER_LABELS}
    rs = info.get("rs")
    if label is not None:
        if label not in POKER_LABELS or _partner(label[1]) not in learned:
            return label, conf, why
        ev = _suit_evidence(model, label, sc, rs, fine)
        if _suit_told(ev):
            return label, conf, why
        said = ", ".join(f"{k} {p:.2f}" for k, p in ev) or "no suit sign or pips read"
        return None, min(conf, 0.3), f"{label} or {label[0]}{_partner(label[1])}? ({said})"
    r = sc.best[0] if sc.best in POKER_LABELS else ""
    if r and rs is None and info.get("own", 1.0) < INDEX_READABLE:
        return _pips_decide(model, sc, label, conf, why, fine, ink)
    if (not r or rs is None or ink is None or sc.s1 < MIN_SCORE
            or info.get("top", sc.best)[0] != r or rs[0].best != r
            or min(rs[0].pairs.values(), default=1.0) < INDEX_MARGIN):
        return label, conf, why
    for suit in sorted(learned):
        name = r + suit
        if name not in model.labels or suit_colour(name) != ink:
            continue
        ev = _suit_evidence(model, name, sc, rs, fine)
        if len(ev) == 2 and _suit_told(ev):
            sure = min(max(p for _k, p in ev), min(rs[0].pairs.values(), default=1.0))
            return name, float(np.clip(0.5 + 0.5 * (sure - SUIT_SURE) / (1 - SUIT_SURE),
                                       0.5, 1.0)), ""
    return label, conf, why


def _pips_decide(model: CardModel, sc: _Scores, label: str | None, conf: float, why: str,
                 fine: np.ndarray, ink: str | None) -> tuple[str | None, float, str]:
    """A number card whose corner indices cannot be read (they do not match each other: a
    corner covered by another card), which the faces left between the two suits of its
    colour and no other card (each other runner-up beaten by the deck's margin), is named
    by its big pips (`pip_pair`, PART_SURE) when its ink is that colour."""
    best, r = sc.best, sc.best[0]
    if (label is not None or r not in "23456789T" or sc.s1 < MIN_SCORE
            or ink != suit_colour(best)):
        return label, conf, why
    partner = r + _partner(best[1])
    if any(p < model.min_margin for p, lab, _i in sc.close if lab != partner):
        return label, conf, why
    pp = pip_pair(model, fine, best[1], partner[1])
    if pp is None or abs(pp[0]) < PART_SURE:
        return label, conf, why
    name = best if pp[0] > 0 else partner
    if name not in model.labels:
        return label, conf, why
    return name, float(np.clip(0.5 + 0.5 * (abs(pp[0]) - PART_SURE) / (1 - PART_SURE),
                               0.5, 1.0)), ""


class CardReader:
    """Reads the cards in frames with one model (the printed deck's art by default)."""

    def __init__(self, model: CardModel | None = None) -> None:
        self.model = model or _roche_art()  # the art, once: `_art_decide` leaves it be

    def read(self, img: np.ndarray) -> list[ObjectReading]:
        """One reading per card found (label None when unsure or face down)."""
        out = []
        for o in find_cards(img):
            grey, chroma, fine = _faces(_warp(img, o.quad, FINE))
            sc = _score(self.model, grey, chroma, fine)
            label, conf, why = _decide(self.model, sc)
            patches = None
            info: dict = {}
            if (self.model.index is not None and sc.best != BACK and sc.s1 >= MIN_SCORE):
                patches = index_patches(img, o.quad)
                label, conf, why, info = _index_decide(
                    self.model, sc, index_of(img, o.quad, patches=patches), _corner_ink(chroma))
            if sc.best in POKER_LABELS:  # red or black: the ink's; and the suit: its shapes'
                ink = ink_colour(patches or index_patches(img, o.quad))
                if label is not None and ink is not None and ink != suit_colour(label):
                    label, conf, why = None, min(conf, 0.3), f"{label}? its corners' ink is {ink}"
                label, conf, why = _colour_decide(self.model, sc, label, conf, why, info, fine,
                                                  ink)
                label, conf, why = _suit_decide(self.model, sc, label, conf, why, info, fine, ink)
            if label is None and sc.best != BACK and sc.query and self.model.deck != "poker":
                label, conf, why = _art_decide(self.model, sc, info, label, conf, why)
            if (label is not None and label != info.get("placed")
                    and len(index_siblings(label) & set(self.model.labels)) > 1):
                place, c, w = _place_in_half(self.model, sc.query, label)
                if place != label:  # the faces sure of a place in the half the art is not
                    label, conf, why = None, min(conf, c, 0.3), w or f"{label} or {place}?"
            q = o.quad[[2, 3, 0, 1]] if sc.turned else o.quad
            d = q[0] - q[3]  # the card's "up", bottom-left to top-left
            angle = math.degrees(math.atan2(d[0], -d[1]))
            out.append(ObjectReading("card", label, conf, o.center,
                                     corners=[[float(x), float(y)] for x, y in q],
                                     angle_deg=angle, size_px=o.width, why=why))
        return out


def read_cards(img: np.ndarray, model: CardModel | None = None) -> list[ObjectReading]:
    """The cards in one frame (see CardReader)."""
    return CardReader(model).read(img)


# -- learning a deck ------------------------------------------------------------------------


def deck_of(labels: list[str]) -> str:
    """Which deck the folder names belong to; BadDeck naming the ones that fit none."""
    roche = set(roche_labels())
    poker = set(POKER_LABELS)
    bad = [x for x in labels if x not in roche and x not in poker and x != BACK]
    if bad:
        hint = ""
        if any(x.upper().startswith("10") for x in bad):
            hint = " (a ten is T: TS, TH, TD, TC)"
        raise BadDeck(f"unknown card names {', '.join(sorted(bad)[:8])}{hint}: name each "
                      "folder after its card, poker cards rank then suit (2S .. 9S, TS, JS, "
                      "QS, KS, AS; suits S H D C) or the printed Roche deck's labels "
                      "(`feltbank print deck --list`), and `back` for the backs")
    names = [x for x in labels if x != BACK]
    if not names:
        raise BadDeck("no card folders: one folder per card, named like 7H or KIN-6-DAY-03")
    kinds = {("poker" if x in poker else "roche") for x in names}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _paper_colour(img: np.ndarray, o: Outline, q: float = 90) -> np.ndarray:
    """A found outline's paper colour: the brightest tenth of its face (BGR); or the q-th
    percentile of its face's colours."""
    return np.percentile(_warp(img, o.quad, (32, 44)).reshape(-1, 3).astype(np.float32), q, 0)


def _tint(img: np.ndarray, o: Outline, q: float = 90) -> float:
    """How coloured a found outline's paper is: 0 grey or white, 1 a pure colour (card
    paper under a lamp, 0.2 at most; wood, 0.6); q=50: its face's median colour's."""
    p = _paper_colour(img, o, q)
    return float((p.max() - p.min()) / max(float(p.max()), 1.0))


def _paperness(img: np.ndarray, o: Outline) -> float:
    """How much a found outline's face looks like card paper: bright and colourless."""
    p = _paper_colour(img, o)
    return max(0.0, float(p.mean() - 0.5 * (p.max() - p.min())))


def learn(captures: dict[str, list[tuple[str, np.ndarray]]]) -> CardModel:
    """A model from captures {label: [(name, image), ...]}, one card in each image; BadDeck
    naming the captures where no card, or more than one, is found."""
    deck = deck_of(list(captures))
    faces = []
    problems = []
    for label, shots in sorted(captures.items()):
        if not shots:
            problems.append(f"{label}: no capture")
            continue
        for name, img in shots:
            found = sorted(find_cards(img), key=lambda o: -_paperness(img, o))
            if len(found) > 1 and _paperness(img, found[1]) < 0.8 * _paperness(img, found[0]):
                found = found[:1]  # the card, and something card-shaped on the cloth
            if len(found) != 1:
                problems.append(f"{name}: {'no card' if not found else f'{len(found)} cards'} "
                                "found (lay one card, face up, wholly in view)")
                continue
            quad = found[0].quad
            canon = _warp(img, quad, FINE)
            faces.append((label, *_faces(canon), index_of(img, quad)))
            for sigma in LEARN_BLURS:  # the same card seen less sharply
                faces.append((label, *_faces(cv2.GaussianBlur(canon, (0, 0), 2 * sigma)),
                              index_of(img, quad, sigma)))
    if problems:
        raise BadDeck("captures to retake: " + "; ".join(problems[:12])
                      + (f" (and {len(problems) - 12} more)" if len(problems) > 12 else ""))
    model = model_from_faces(faces, deck)
    # how close the learned faces come to each other (the deck's weakest pairs)
    closest = []
    n = len(model.labels)
    flat = model.grey.reshape(n, -1)
    sim = flat @ flat.T
    for i in range(n):
        for j in range(i + 1, n):
            if model.labels[i] != model.labels[j]:
                closest.append((float(sim[i, j]), model.labels[i], model.labels[j]))
    closest.sort(reverse=True)
    full = POKER_LABELS if deck == "poker" else roche_labels() if deck == "roche" else ()
    learned = set(model.labels)
    model.report = {
        "deck": deck, "cards": len(learned - {BACK}),
        "captures": len(faces) // (1 + len(LEARN_BLURS)),
        "missing": [x for x in full if x not in learned],
        "closest": [[a, b, round(s, 3)] for s, a, b in closest[:5]],
    }
    return model


def load_captures(folder: Path) -> dict[str, list[tuple[str, np.ndarray]]]:
    """DIR/<CARD>/*.png|jpg as {label: [(path, image), ...]}; BadDeck when it is not."""
    from vision.images import read_image

    folder = Path(folder)
    if not folder.is_dir():
        raise BadDeck(f"{folder}: no such folder (expected one sub-folder per card)")
    out: dict[str, list[tuple[str, np.ndarray]]] = {}
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("_")):
        files = sorted(p for p in sub.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
        out[sub.name] = [(str(p), read_image(str(p))) for p in files]
    if not out:
        raise BadDeck(f"{folder}: no card folders (expected DIR/7H/*.png, DIR/KS/*.png, ...)")
    return out


# -- a dealt card -----------------------------------------------------------------------------


@dataclass
class DealWatcher:
    """Turns a stream of frames into deal events: a card that lands and settles is one event.

    Reads the table only when the settle detector says it has been still (`still_s`), and
    reports the cards whose labels are on the table more often than before; a card sliding
    in, or a hand over the table, is never read.
    """

    reader: CardReader
    still_s: float = 1.0
    min_confidence: float = 0.5

    def __post_init__(self) -> None:
        from vision.settle import SettleDetector, TableState

        self._settle = SettleDetector(still_s=self.still_s)
        self._settled = TableState.SETTLED
        self._was_settled = False
        self.on_table: list[str] = []

    def update(self, img: np.ndarray, t: float) -> list[str]:
        """Feed a frame taken at time t (s); returns the labels newly dealt (usually none)."""
        state = self._settle.update(img, t)
        settled = state == self._settled
        fresh = settled and not self._was_settled
        self._was_settled = settled
        if not fresh:
            return []
        seen = [r.label for r in self.reader.read(img)
                if r.label is not None and r.confidence >= self.min_confidence]
        new = list(seen)
        for label in self.on_table:
            if label in new:
                new.remove(label)
        self.on_table = seen
        return new
