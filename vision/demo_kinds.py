"""The demo table's felt for the kinds read without a labelled-dice profile: pip dice, the
Namaste numeral dice, the d20 and cards (the printed Roche deck or a poker deck).

One fixed installation (a camera straight above a green felt, a soft lamp), drawn with the
same parts as the readers' test scenes (`vision.scenes_*`): the real readers read these frames
as they read a camera's. `KindScene.render(things, seed)` draws the objects (`DieSpec`s: a
label, where it lies in the renderer's table mm, its yaw) and finishes the frame as a camera
would; `felt_corners` are where the felt's corners are in the image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

from vision.deck_art import CARD_MM, PokerStyle, card_alpha, render_card
from vision.errors import VisionError
from vision.scenes_common import View, cast_shadow, cube_faces, noise_field, paste_quad
from vision.synthetic import DieSpec

#: What the demo table can lay, by reader kind.
KINDS = ("pips", "numerals", "d20", "cards")
#: The frame and the felt (mm): the felt fills most of a 1024 x 768 frame (1.9 px a mm).
FRAME = (1024, 768)
FELT_MM = (510.0, 380.0)
HEIGHT_MM = 620.0
F_PX = 1178.0
#: Object sizes (mm): a pip die, a Namaste die, a d20 (between opposite faces).
PIP_MM, NUMERAL_MM, D20_MM = 18.0, 20.0, 50.0
#: The d20's numbers: font, stroke weight and height (of a face's height).
D20_FONT = (cv2.FONT_HERSHEY_SIMPLEX, 0.14, 0.25)
CARD_TEX_MM = 5.0  # card art resolution (px a mm)
#: The lamp and the camera's small imperfections: fixed, soft, no glare (`finish`'s keys).
LIGHT = {"lamp_dir": (0.35, -0.45), "lamp_height": 2.2, "exposure": 1.0,
         "tint": np.array([1.0, 1.0, 1.0], np.float32), "gradient": (0.06, -0.04),
         "vignette": 0.12, "glare": 0.0, "blur": 0.3, "noise": 0.006, "jpeg": 92,
         "ambient": 0.45, "shadow": 0.35}
FELT_BGR = (0.15, 0.42, 0.12)


def _labels_of(kind: str) -> tuple[str, ...]:
    """The labels the demo lays for `kind` (as the table's engines name them)."""
    if kind == "pips":
        return tuple(f"PIP-{n}" for n in range(1, 7))
    if kind == "numerals":
        from vision.scenes_numerals import namaste_dice

        return tuple(f"{d.colour.upper()}-{f}" for d in namaste_dice()
                     for f in ("1-7", "2", "3", "4", "5", "6"))
    if kind == "d20":
        from vision.scenes_d20 import rugen_faces

        return tuple(dict.fromkeys(rugen_faces()))
    raise VisionError(f"no labels for {kind!r}")


@dataclass
class KindScene:
    """The demo table's felt and camera for one kind of object."""

    kind: str
    #: For cards: the look of the table's poker decks (poker labels: 7H, KS...); the printed
    #: Roche deck's cards are drawn from its own art.
    poker: PokerStyle = field(default_factory=PokerStyle)
    view: View = field(default_factory=lambda: View(FRAME[0], FRAME[1], F_PX, HEIGHT_MM,
                                                    (FRAME[0] / 2, FRAME[1] / 2)))

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise VisionError(f"the demo table lays no {self.kind!r}; it lays "
                              f"{', '.join(KINDS)}")
        w, h = FELT_MM
        corners = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0],
                            [-w / 2, h / 2, 0]])
        #: The felt's corners in the image: top-left, top-right, bottom-right, bottom-left.
        self.felt_corners = self.view.project(corners).astype(np.float32)
        self.felt_mm = FELT_MM

    @cached_property
    def felt(self) -> np.ndarray:
        """The empty felt (BGR float 0..1): a green cloth with a little grain, the table's
        wood round it."""
        rng = np.random.default_rng(7)
        shape = (FRAME[1], FRAME[0])
        img = np.empty((*shape, 3), np.float32)
        img[:] = (0.18, 0.3, 0.42)  # wood
        img *= (1 + 0.06 * noise_field(rng, shape, 40))[:, :, None]
        mask = np.zeros(shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(self.felt_corners).astype(np.int32), 1)
        cloth = np.empty_like(img)
        cloth[:] = FELT_BGR
        cloth *= (1 + 0.04 * noise_field(rng, shape, 6))[:, :, None]
        img[mask > 0] = cloth[mask > 0]
        return img

    def labels(self) -> tuple[str, ...]:
        """Every label this scene can lay."""
        if self.kind == "cards":
            from vision.deck_art import POKER_LABELS, roche_labels

            return (*roche_labels(), *POKER_LABELS)
        return _labels_of(self.kind)

    def check(self, labels: list[str]) -> None:
        """VisionError naming a label this scene cannot lay, and the labels it can."""
        known = self.labels()
        bad = [x for x in labels if x not in known]
        if bad:
            raise VisionError(f"the demo table has no {bad[0]!r} to lay; it lays "
                              f"{', '.join(known[:12])}{' ...' if len(known) > 12 else ''}")

    def render(self, things: list[DieSpec], seed: int) -> np.ndarray:
        """The frame (BGR uint8) with these objects, in their order (a later card lies on an
        earlier one)."""
        img = self.felt.copy()
        draw = {"pips": self._die, "numerals": self._die, "d20": self._d20,
                "cards": self._card}[self.kind]
        rng = np.random.default_rng(seed)
        for thing in things:
            draw(img, thing, rng)
        blur = [t.motion_px for t in things if t.motion_px != (0.0, 0.0)]
        if blur:  # something moves: the frame is smeared along its motion
            dx, dy = blur[0]
            n = int(min(15, max(3, math.hypot(dx, dy)))) | 1
            ker = np.zeros((n, n), np.float32)
            cv2.line(ker, (n // 2 - int(n / 2 * dx / (abs(dx) + abs(dy) + 1e-6)),
                           n // 2 - int(n / 2 * dy / (abs(dx) + abs(dy) + 1e-6))),
                     (n // 2 + int(n / 2 * dx / (abs(dx) + abs(dy) + 1e-6)),
                      n // 2 + int(n / 2 * dy / (abs(dx) + abs(dy) + 1e-6))), 1.0)
            img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1.0))
        # the lamp's uneven light and the lens's vignette (the demo camera adds the sensor's
        # noise to each frame)
        return np.clip(img * self.light_map * 255 + 0.5, 0, 255).astype(np.uint8)

    @cached_property
    def light_map(self) -> np.ndarray:
        """The exposure across the frame: a gentle ramp and vignette (h, w, 1)."""
        w, h = FRAME
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        gx, gy = LIGHT["gradient"]
        ramp = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
        vig = 1 - LIGHT["vignette"] * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2) * 2
        return (LIGHT["exposure"] * ramp * vig)[:, :, None].astype(np.float32)

    # -- the objects ------------------------------------------------------------------------

    @staticmethod
    def _world(thing: DieSpec) -> tuple[float, float]:
        """The renderer's table mm (y away from us) as the camera's world (y down the image)."""
        return thing.x_mm, -thing.y_mm

    def _lamp(self) -> tuple[np.ndarray, np.ndarray]:
        d = np.array([LIGHT["lamp_dir"][0], LIGHT["lamp_dir"][1], LIGHT["lamp_height"]])
        d /= np.linalg.norm(d)
        return d, d * self.view.height_mm * 2

    def _shade(self, normal: np.ndarray, lamp_d: np.ndarray) -> float:
        return LIGHT["ambient"] + (1 - LIGHT["ambient"]) * max(0.0, float(normal @ lamp_d))

    def _die_texture(self, label: str):
        """(texture(value) -> (tex, alpha), the value on top) of a six-sided die's label."""
        if self.kind == "pips":
            from vision.scenes_pips import PipStyle, face_texture

            style = PipStyle((0.93, 0.93, 0.92), (0.05, 0.05, 0.05), (0.05, 0.05, 0.05),
                             0.09, 0.09, 0.26, 0.1)
            try:
                top = int(label.removeprefix("PIP-"))
            except ValueError:
                top = 0
            if not 1 <= top <= 6:
                raise VisionError(f"{label!r} is no pip die's face: PIP-1 .. PIP-6")
            return (lambda v: face_texture(v, style)), top
        from vision.scenes_numerals import NumeralStyle, namaste_dice, numeral_texture

        colour, _, face = label.partition("-")
        dice = {d.colour.upper(): d for d in namaste_dice()}
        values = {"1-7": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6}
        if colour not in dice or face not in values:
            raise VisionError(f"{label!r} is no Namaste die's face: "
                              f"{', '.join(_labels_of('numerals'))}")
        die = dice[colour]
        style = NumeralStyle(tuple(c / 255 for c in die.body_bgr),
                             tuple(c / 255 for c in die.ink_bgr),
                             cv2.FONT_HERSHEY_DUPLEX, 0.13, 0.5, 0.0, (0.0, 0.0), 0.1)
        return (lambda v: numeral_texture(v, style)), values[face]

    def _die(self, img: np.ndarray, thing: DieSpec, rng: np.random.Generator) -> None:
        from vision.scenes_pips import side_faces

        texture, top = self._die_texture(thing.label)
        side = PIP_MM if self.kind == "pips" else NUMERAL_MM
        x, y = self._world(thing)
        lamp_d, lamp = self._lamp()
        faces = cube_faces(side, x, y, thing.yaw_deg)
        cast_shadow(img, self.view, np.concatenate([f[1] for f in faces]), lamp + [x, y, 0],
                    LIGHT["shadow"], 2.0)
        sides = side_faces(rng, top)
        cam = np.array([0.0, 0.0, self.view.height_mm])
        for name, pts, normal in sorted(faces, key=lambda f: f[0] == "top"):
            if np.dot(cam - pts.mean(0), normal) <= 0:
                continue
            tex, alpha = texture(top if name == "top" else sides[name])
            paste_quad(img, tex, self.view.project(pts), alpha, self._shade(normal, lamp_d))

    def _d20(self, img: np.ndarray, thing: DieSpec, rng: np.random.Generator) -> None:
        from vision.scenes_d20 import (
            d20_pose,
            d20_texture,
            icosahedron,
            rugen_faces,
        )

        _, _, numbers = icosahedron()
        tops = [i for i, n in enumerate(numbers) if rugen_faces()[n - 1] == thing.label]
        if not tops:
            raise VisionError(f"{thing.label!r} is no face of the Rugen die: "
                              f"{', '.join(_labels_of('d20'))}")
        top = tops[int(rng.integers(len(tops)))]
        x, y = self._world(thing)
        lamp_d, lamp = self._lamp()
        faces = d20_pose(top, thing.yaw_deg, D20_MM, x, y)
        cast_shadow(img, self.view, np.concatenate([p for _, p, _ in faces]), lamp + [x, y, 0],
                    LIGHT["shadow"], 2.0)
        cam = np.array([0.0, 0.0, self.view.height_mm])
        seen = [f for f in faces if np.dot(cam - f[1].mean(0), f[2]) > 0]
        seen.sort(key=lambda f: f[2][2])  # the most tilted first, the top face last
        for i, p, normal in seen:
            tex, alpha = d20_texture(str(numbers[i]), (0.93, 0.93, 0.93), (0.08, 0.08, 0.08),
                                     *D20_FONT)
            apex, right, left = p[0], p[1], p[2]
            quad3 = np.array([apex - (right - left) / 2, apex + (right - left) / 2, right, left])
            paste_quad(img, tex, self.view.project(quad3), alpha, self._shade(normal, lamp_d))

    def _card_face(self, label: str) -> tuple[np.ndarray, np.ndarray]:
        """A card's art and alpha, drawn once (a dealt card is drawn in every frame after)."""
        cache = self.__dict__.setdefault("_faces", {})
        if label not in cache:
            from vision.deck_art import POKER_LABELS

            style = self.poker if label in POKER_LABELS else None
            face = render_card(label, style, CARD_TEX_MM).astype(np.float32) / 255
            alpha = card_alpha(face.shape[1], face.shape[0], CARD_TEX_MM)
            edge = cv2.erode(alpha, np.ones((3, 3), np.uint8), iterations=1)
            cache[label] = face * (1 - 0.2 * (alpha - edge))[:, :, None], alpha
        return cache[label]

    def captures(self, labels: list[str]) -> dict[str, list[tuple[str, np.ndarray]]]:
        """One capture per card, alone on the felt (what `feltbank calibrate` learns a deck
        from): {label: [(name, image)]}."""
        return {label: [(f"demo/{label}", self.render([DieSpec(label, -60.0, 20.0, 4.0)], k))]
                for k, label in enumerate(labels)}

    def _card(self, img: np.ndarray, thing: DieSpec, rng: np.random.Generator) -> None:
        face, alpha = self._card_face(thing.label)
        x, y = self._world(thing)
        hw, hh = CARD_MM[0] / 2, CARD_MM[1] / 2
        c, s = math.cos(math.radians(thing.yaw_deg)), math.sin(math.radians(thing.yaw_deg))
        local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
        pts = local @ np.array([[c, s], [-s, c]]) + [x, y]
        quad = self.view.project(np.concatenate([pts, np.full((4, 1), 0.3)], 1))
        # a soft shadow away from the lamp, then the card with its cut edge a little darker
        sq = quad + [-LIGHT["lamp_dir"][0] * 2.5, -LIGHT["lamp_dir"][1] * 2.5]
        x0, y0 = np.maximum(np.floor(sq.min(0)).astype(int) - 8, 0)
        x1, y1 = np.minimum(np.ceil(sq.max(0)).astype(int) + 8, img.shape[1::-1])
        if x1 > x0 and y1 > y0:
            m = np.zeros((y1 - y0, x1 - x0), np.float32)
            cv2.fillConvexPoly(m, np.round((sq - [x0, y0]) * 4).astype(np.int32), 1.0,
                               cv2.LINE_AA, shift=2)
            img[y0:y1, x0:x1] *= (1 - LIGHT["shadow"] * 0.6
                                  * cv2.GaussianBlur(m, (0, 0), 2.0))[:, :, None]
        paste_quad(img, face, quad.astype(np.float32), alpha, 0.95)
