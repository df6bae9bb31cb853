"""Scenes of playing cards lying face up on any surface, with ground truth: the card reader's
test bench.

Widely randomized (see `vision.scenes_common`): cards 70-260 px across on light or dark felt,
wood, woven cloth or paper (held out: stone, a checked cloth), seen by a camera tilted up
to 18 degrees (30 in a frame of three; perspective) at any roll, cards at any angle (upside
down too), lamp light with soft shadows, uneven light, glare, defocus, noise (or a Bayer
sensor's, in half the frames) and JPEG; paper as white as the cards, light woods;
overlapping stacks (only the top card is wholly seen). A `CardTable` fixes what a real
table fixes (the deck, the cloth, the camera's height and lens); each frame draws its own
light, tilt and cards, and `capture` makes the one-card frames a table learns its deck from.

Decks: the printed Roche deck (`vision.deck_art.render_roche`) or a poker deck in a
`PokerStyle`; held-out tables draw poker styles (fonts, proportions, court pictures) that
development never used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.deck_art import (
    CARD_MM,
    POKER_LABELS,
    PokerStyle,
    card_alpha,
    render_card,
    roche_labels,
    sample_poker_style,
)
from vision.scenes_common import (
    DEV_SURFACES,
    FRAME_SIZES,
    HELD_OUT_SURFACES,
    View,
    finish,
    paste_quad,
    photo_paper,
    sample_light,
    sample_view,
    surface,
)

TEX_MM = 5.0  # texture resolution of a card in scenes (px a millimetre)


@dataclass(frozen=True)
class CardTruth:
    """One card in a scene: its label, its centre and corners in the image, and whether it
    must be read (the top card of its stack, wholly in the frame) or may be left."""

    label: str
    center: tuple[float, float]
    corners: tuple[tuple[float, float], ...]
    size_px: float  # the card's width in the image
    top: bool = True  # nothing lies on it
    in_frame: bool = True


@dataclass
class CardScene:
    """A generated frame and the cards on it."""

    image: np.ndarray
    cards: list[CardTruth]
    hard: bool
    surface: str


@dataclass
class CardTable:
    """What stays the same at one table: the deck, the cloth, the camera."""

    seed: int
    deck: str  # "roche" or "poker"
    style: PokerStyle | None
    surface: str
    size: tuple[int, int]
    view: View
    held_out: bool
    texture: np.ndarray = field(repr=False)

    @property
    def labels(self) -> tuple[str, ...]:
        return POKER_LABELS if self.deck == "poker" else roche_labels()

    @property
    def card_px(self) -> float:
        return self.view.f_px * CARD_MM[0] / self.view.height_mm


def sample_table(seed: int, held_out: bool = False, deck: str | None = None) -> CardTable:
    """A table drawn at random: its deck (printed Roche or a poker deck's style), its cloth
    and its camera (cards 70-260 px wide)."""
    rng = np.random.default_rng(seed)
    deck = deck or ("roche" if rng.random() < 0.4 else "poker")
    style = sample_poker_style(rng, held_out) if deck == "poker" else None
    w, h = FRAME_SIZES[int(rng.integers(len(FRAME_SIZES)))]
    most = min(260.0, min(w, h) / 3.2)
    view = sample_view(rng, (w, h), CARD_MM[0], (max(70.0, most * 0.45), most))
    kinds = HELD_OUT_SURFACES if held_out else DEV_SURFACES
    kind = kinds[int(rng.integers(len(kinds)))]
    card_px = view.f_px * CARD_MM[0] / view.height_mm
    tex = surface(rng, kind, (h, w), card_px * 0.3)
    # drawn apart (the other tables stay as they were): paper as photographs show it, as
    # white as the cards; on half the wood tables a light wood (maple, birch, pine)
    look = np.random.default_rng([seed, 2])
    if kind == "paper":
        tex = photo_paper(look, tex, card_px * 0.3)
    elif kind == "wood" and look.random() < 0.5:
        tex = _light_wood(look, tex)
    return CardTable(seed, deck, style, kind, (w, h), view, held_out, tex)


def _light_wood(rng: np.random.Generator, tex: np.ndarray) -> np.ndarray:
    """A wood's grain (from `surface`) as a light wood: pale, little coloured, about as
    bright as card paper in the lamp (0.65-0.9), its grain as strong as the wood's or down
    to a quarter of it (a fine-grained maple or birch)."""
    grey = tex.mean(2, keepdims=True)
    tone = 1 + (grey / max(1e-3, float(grey.mean())) - 1) * float(rng.uniform(0.25, 1.0))
    colour = np.array([rng.uniform(0.55, 0.75), rng.uniform(0.75, 0.88), 1.0], np.float32)
    return tone * colour[None, None, :] * float(rng.uniform(0.65, 0.9))


def _tilt(rng: np.random.Generator, view: View, max_deg: float) -> np.ndarray:
    """A homography of the image: the camera turned a little about a random axis."""
    k = np.array([[view.f_px, 0, view.principal[0]], [0, view.f_px, view.principal[1]], [0, 0, 1]])
    a = math.radians(rng.uniform(0, max_deg))
    axis = rng.uniform(0, 2 * math.pi)
    rv = np.array([math.cos(axis) * a, math.sin(axis) * a, math.radians(rng.uniform(-3, 3))])
    r, _ = cv2.Rodrigues(rv)
    return k @ r @ np.linalg.inv(k)


def _corners_mm(x: float, y: float, yaw: float) -> np.ndarray:
    """A card's corners tl, tr, br, bl on the table (mm), turned by yaw degrees."""
    hw, hh = CARD_MM[0] / 2, CARD_MM[1] / 2
    c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    return local @ np.array([[c, s], [-s, c]]) + [x, y]


def _to_image(view: View, hom: np.ndarray, pts_mm: np.ndarray, z: float = 0.0) -> np.ndarray:
    p3 = np.concatenate([pts_mm, np.full((len(pts_mm), 1), z)], 1)
    p = view.project(p3)
    q = cv2.perspectiveTransform(p.reshape(-1, 1, 2).astype(np.float64), hom).reshape(-1, 2)
    return q


def _lay(img: np.ndarray, table: CardTable, label: str, quad: np.ndarray, shade: float,
         light: dict, rng: np.random.Generator, shadow_px: float) -> None:
    """A card's soft shadow, then the card."""
    face = render_card(label, table.style, TEX_MM).astype(np.float32) / 255
    alpha = card_alpha(face.shape[1], face.shape[0], TEX_MM)
    # a soft shadow, offset away from the lamp
    dx, dy = -light["lamp_dir"][0] * shadow_px, -light["lamp_dir"][1] * shadow_px
    sq = quad + [dx, dy]
    x0, y0 = np.floor(sq.min(0)).astype(int) - 12
    x1, y1 = np.ceil(sq.max(0)).astype(int) + 12
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(img.shape[1], x1), min(img.shape[0], y1)
    if x1 > x0 and y1 > y0:
        m = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillConvexPoly(m, np.round((sq - [x0, y0]) * 4).astype(np.int32), 1.0, cv2.LINE_AA,
                           shift=2)
        b = max(1.0, shadow_px)
        m = cv2.GaussianBlur(m, (0, 0), b)
        img[y0:y1, x0:x1] *= (1 - light["shadow"] * 0.6 * m)[:, :, None]
    # a little gloss: the lamp's reflection on some cards
    if rng.random() < 0.15:
        face = face.copy()
        hh, ww = face.shape[:2]
        yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
        cx, cy, r = rng.uniform(0, ww), rng.uniform(0, hh), rng.uniform(0.2, 0.5) * ww
        face += (rng.uniform(0.1, 0.3) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
                 )[:, :, None]
    # the paper's cut edge catches less light: a faint line round the card
    edge = cv2.erode(alpha, np.ones((3, 3), np.uint8), iterations=max(1, int(TEX_MM * 0.25)))
    face = face * (1 - rng.uniform(0.1, 0.3) * (alpha - edge))[:, :, None]
    paste_quad(img, face, quad.astype(np.float32), alpha, shade)


def _spot(rng: np.random.Generator, view: View, hom: np.ndarray, margin_px: float,
          taken: list[tuple[float, float]], clear: float) -> tuple[float, float] | None:
    """A place on the table (mm) seen at least margin_px inside the (tilted) frame, `clear`
    mm from the places taken."""
    inv = np.linalg.inv(hom)
    for _ in range(200):
        u = rng.uniform(margin_px, max(margin_px + 1, view.width - margin_px))
        v = rng.uniform(margin_px, max(margin_px + 1, view.height - margin_px))
        p = cv2.perspectiveTransform(np.array([[[u, v]]], np.float64), inv)[0, 0]
        x, y = view.ground(float(p[0]), float(p[1]))
        if all(math.hypot(x - a, y - b) > clear for a, b in taken):
            return x, y
    return None


def make_card_scene(table: CardTable, seed: int, hard: bool | None = None,
                    n_cards: int | None = None, stack_share: float = 0.35,
                    labels: list[str] | None = None) -> CardScene:
    """One frame at `table`: 1-6 cards, alone or in overlapping stacks; deterministic from
    the seed. `labels` lays those cards (in order, the last on top) instead of random ones."""
    rng = np.random.default_rng(seed)
    hard = bool(rng.random() < 0.3) if hard is None else hard
    w, h = table.size
    view = table.view
    img = table.texture.copy()
    light = sample_light(rng, hard)
    hom = _tilt(rng, view, 18.0 if rng.random() < 0.5 else 6.0)
    # drawn apart (the other frames' cards stay where they were): a camera tilted up to 30
    # degrees in a frame of three, a Bayer sensor's picture (demosaiced, sharpened) in half
    cam = np.random.default_rng([seed, 3])
    if cam.random() < 1 / 3:
        hom = _tilt(cam, view, 30.0)
    light["bayer"] = bool(cam.random() < 0.5)
    light["sharpen"] = float(cam.uniform(0, 0.8))
    n = len(labels) if labels else int(n_cards or rng.integers(1, 7))
    pool = list(labels) if labels else [str(x) for x in rng.permutation(table.labels)[:n]]
    # group the cards: single cards and stacks of 2-3
    groups: list[list[str]] = []
    i = 0
    while i < len(pool):
        k = 1
        if not labels and rng.random() < stack_share and i + 1 < len(pool):
            k = int(rng.integers(2, 4))
        groups.append(pool[i:i + k])
        i += k
    if labels:
        groups = [pool] if len(pool) > 1 and rng.random() < stack_share else [[p] for p in pool]
    taken: list[tuple[float, float]] = []
    lamp_d = np.array([light["lamp_dir"][0], light["lamp_dir"][1], light["lamp_height"]])
    lamp_d /= np.linalg.norm(lamp_d)
    shade = light["ambient"] + (1 - light["ambient"]) * float(lamp_d[2])
    truths: list[CardTruth] = []
    card_px = table.card_px
    for group in groups:
        spot = _spot(rng, view, hom, card_px * 0.75, taken,
                     CARD_MM[1] * (1.25 if len(group) == 1 else 1.7))
        if spot is None:
            continue
        taken.append(spot)
        x, y = spot
        yaw = rng.uniform(0, 360)
        placed: list[tuple[str, np.ndarray]] = []
        for j, label in enumerate(group):
            if j:  # the next card of a stack: shifted 15-45% of a card and turned a little
                d = rng.uniform(0.15, 0.45) * CARD_MM[0]
                a = rng.uniform(0, 2 * math.pi)
                x, y = x + d * math.cos(a), y + d * math.sin(a)
                yaw += rng.uniform(-25, 25)
            quad = _to_image(view, hom, _corners_mm(x, y, yaw), z=0.3 * j)
            _lay(img, table, label, quad, shade, light, rng, card_px * rng.uniform(0.01, 0.04))
            placed.append((label, quad))
        for j, (label, quad) in enumerate(placed):
            inside = bool(np.all((quad >= 2) & (quad < [w - 2, h - 2])))
            c = quad.mean(0)
            truths.append(CardTruth(label, (float(c[0]), float(c[1])),
                                    tuple((float(a), float(b)) for a, b in quad),
                                    float(np.linalg.norm(quad[1] - quad[0])),
                                    top=j == len(placed) - 1, in_frame=inside))
    return CardScene(finish(img, rng, light), truths, hard, table.surface)


def capture(table: CardTable, label: str, seed: int) -> np.ndarray:
    """A calibration capture at `table`: the card `label` alone, in ordinary light, wholly in
    the frame (a person lays it in view: a frame that cuts it is taken again)."""
    for k in range(8):
        scene = make_card_scene(table, seed + 7919 * k, hard=False, labels=[label],
                                stack_share=0.0)
        if all(t.in_frame for t in scene.cards):
            break
    return scene.image


def slide_in(table: CardTable, label: str, seed: int, frames: int = 12,
             still: int = 8) -> list[np.ndarray]:
    """Frames of a card being dealt: it slides in from the frame's edge over `frames` frames
    (blurred by its motion), lands, and lies still for `still` more frames."""
    rng = np.random.default_rng(seed)
    w, h = table.size
    view = table.view
    light = sample_light(rng, False)
    light["glare"] = 0.0
    hom = np.eye(3)
    gx0, gy0 = view.ground(0, 0)
    gx1, gy1 = view.ground(w, h)
    end = ((gx0 + gx1) / 2 + rng.uniform(-0.1, 0.1) * (gx1 - gx0), (gy0 + gy1) / 2)
    start = (gx0 - CARD_MM[1], end[1] + rng.uniform(-20, 20))
    yaw0, yaw1 = rng.uniform(-60, 60), rng.uniform(-20, 20)
    out = []
    noise_seed = int(rng.integers(1 << 30))
    for k in range(frames + still):
        t = min(1.0, k / max(1, frames - 1))
        ease = 1 - (1 - t) ** 2
        x = start[0] + (end[0] - start[0]) * ease
        y = start[1] + (end[1] - start[1]) * ease
        yaw = yaw0 + (yaw1 - yaw0) * ease
        img = table.texture.copy()
        quad = _to_image(view, hom, _corners_mm(x, y, yaw))
        _lay(img, table, label, quad, 0.9, light, np.random.default_rng(1), table.card_px * 0.02)
        if t < 1.0:  # motion blur along the slide
            speed = (end[0] - start[0]) * 2 * (1 - t) / max(1, frames - 1) * view.f_px / view.height_mm
            kl = int(min(31, max(1, abs(speed) * 0.4))) | 1
            ker = np.zeros((kl, kl), np.float32)
            ker[kl // 2, :] = 1.0 / kl
            img = cv2.filter2D(img, -1, ker)
        out.append(finish(img, np.random.default_rng(noise_seed + k), light))
    return out


# -- the benchmark (`feltbank bench vision --kind cards`) ---------------------------------------

MATCH = 0.25  # a reading belongs to a card when its centre is this many card widths away


def learn_table(table: CardTable, seed: int, tries: int = 3):  # noqa: ANN201 (a CardModel)
    """Learn the table's deck from one capture per card, as a person would: a capture the
    calibration refuses (no card, or two, found) is taken again, up to `tries` times; a card
    no capture showed is left out (not learned, and so abstained on)."""
    from vision.cards import BadDeck, learn

    caps = {}
    for i, label in enumerate(table.labels):
        for k in range(tries):
            shot = [(f"{label} (capture {k + 1})", capture(table, label, seed + 1000 * k + i))]
            try:
                learn({label: shot})
            except BadDeck:
                continue
            caps[label] = shot
            break
    return learn(caps)


def score_cards(res, truths: list[CardTruth], readings: list, hard: bool, seed: int) -> None:  # noqa: ANN001
    """Count one frame into a `vision.bench_kinds.KindResult`: the top card of every stack
    wholly in the frame must be read; a card under another may be left unread, but a label
    on it must be right; a label where there is no card is a confident error."""
    import math as _m

    used: set[int] = set()
    for t in sorted(truths, key=lambda t: not t.top):
        best, best_d = None, MATCH * t.size_px
        for i, r in enumerate(readings):
            d = _m.hypot(r.center[0] - t.center[0], r.center[1] - t.center[1])
            d -= 1e6 * (r.label == t.label)  # in a stack, the reading of this very card
            if i not in used and d < best_d:
                best, best_d = i, d
        if best is not None:
            used.add(best)
        must = t.top and t.in_frame
        label = readings[best].label if best is not None else None
        if must:
            res.dice += 1
            res.hard_dice += hard
            if best is None:
                res.missed += 1
        if label is None:
            res.abstained += must
        elif label == t.label:
            res.right += must
            res.hard_right += must and hard
        else:
            res.confident_errors += 1
            res.errors.append(f"scene {seed}: {t.label} read as {label} "
                              f"({readings[best].confidence:.2f}){'' if t.top else ', under'}")
    for i, r in enumerate(readings):
        if i not in used and r.label is not None:
            res.confident_errors += 1
            res.errors.append(f"scene {seed}: {r.label} where there is no card, at "
                              f"({r.center[0]:.0f}, {r.center[1]:.0f})")


def run_cards(n_cards: int, seed: int, held_out: bool, hard_share: float = 0.3,
              per_table: int = 100, elsewhere: bool = False):  # noqa: ANN201 (a KindResult)
    """Read about n_cards cards on generated tables of one split, each table's deck learned
    from one capture per card; latency per frame (reading only) on this thread.
    `elsewhere`: each deck is learned on one table and read on another (the same deck on
    another cloth, under another camera and card size), as a deck learned at home and
    played at a club."""
    import dataclasses
    import time

    from vision.bench_kinds import KindResult
    from vision.cards import CardReader

    cv2.setNumThreads(1)
    res = KindResult("heldout" if held_out else "dev")
    base = seed + (7_000_000 if held_out else 3_000_000)
    tables = max(1, -(-n_cards // per_table))
    f = 0
    for ti in range(tables):
        table = sample_table(base + 100_000 * ti, held_out=held_out)
        reader = CardReader(learn_table(table, base + 100_000 * ti + 50_000))
        if elsewhere:
            other = sample_table(base + 100_000 * ti + 77, held_out=held_out)
            table = dataclasses.replace(other, deck=table.deck, style=table.style)
        goal = n_cards * (ti + 1) // tables
        while res.dice < goal:
            fseed = base + 100_000 * ti + 1 + f
            f += 1
            hard = bool(np.random.default_rng(fseed).random() < hard_share)
            scene = make_card_scene(table, fseed, hard=hard)
            t1, c1 = time.perf_counter(), time.process_time()
            readings = reader.read(scene.image)
            res.cpu_ms.append((time.process_time() - c1) * 1000)
            res.latencies_ms.append((time.perf_counter() - t1) * 1000)
            res.frames += 1
            score_cards(res, scene.cards, readings, hard, fseed)
    return res
