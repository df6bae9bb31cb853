"""The demo table: the synthetic table as a camera, whose dice are thrown on request.

Dice lie still until `throw()`; then the next frames show them tumbling (motion-blurred) and
coming to rest where the throw put them, and the frames after that show the resting dice.
Dice kept aside lie in the set-aside tray. The real recognizer reads these frames, exactly as
it reads a real camera's: the demo only replaces the felt, the dice and the lens.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from vision.camera import CameraSource, CameraState, Frame
from vision.errors import VisionError
from vision.geometry import TableGeometry
from vision.labels import DieSet
from vision.synthetic import DieSpec, SceneParams, render_scene

#: The installation the shipped profile was calibrated on (vision.default_profile).
NOMINAL_TABLE: dict[str, object] = {
    "camera_height_mm": 620.0, "die_px": 50.0, "tilt_deg": (0.0, 0.0), "roll_deg": 0.0,
    "principal_offset": (0.0, 0.0), "felt_mm": (510.0, 380.0), "felt_bgr": (0.15, 0.42, 0.12),
}
#: Where dice are thrown and where kept dice rest, in table mm (origin: the felt's top-left).
ZONES: dict[str, list[tuple[float, float]]] = {
    "rolling": [(0, 0), (420, 0), (420, 380), (0, 380)],
    "tray": [(420, 0), (510, 0), (510, 380), (420, 380)],
}
TRAY_SLOTS = ((465.0, 70.0), (465.0, 160.0), (465.0, 250.0), (465.0, 330.0))
#: Dice are thrown at least this far apart (mm), centre to centre, inside this margin.
SPACING_MM, MARGIN_MM = 42.0, 35.0
#: Cards: the step between places (mm; a card is 63 x 88), where a dealt card slides in from
#: (table x, mm), and how long a landed card lies still before the next of one deal.
CARD_STEP_MM, CARD_FROM_X, CARD_STILL_S = (78.0, 112.0), 560.0, 1.0


class DemoCamera(CameraSource):
    """A camera source showing the demo table; `throw()` rolls the dice."""

    name = "demo"

    def __init__(self, die_set: DieSet | None = None, seed: int = 0, fps: float = 10.0,
                 tumble_frames: int = 4, table: dict[str, object] | None = None,
                 zones: dict[str, list[tuple[float, float]]] | None = None,
                 clock: Callable[[], float] = time.monotonic, scene=None) -> None:
        super().__init__(clock)
        #: The dice thrown (equipment/NAME.json, as vision.labels reads it): the table's mode's,
        #: which the running table finds through the mode's record (its `equipment`).
        self.die_set = die_set
        #: Or the felt of another kind (`vision.demo_kinds.KindScene`: pip, numeral and d20
        #: dice, cards), which draws its objects itself.
        self.scene = scene
        if (die_set is None) == (scene is None):
            raise VisionError("the demo table throws labelled dice (a die set) or lays another "
                              "kind (a scene), one of the two")
        self.kind = "labels" if scene is None else scene.kind
        self.params = replace(SceneParams(), **(table or NOMINAL_TABLE))
        if scene is not None:
            self.params = replace(self.params, felt_mm=scene.felt_mm)
        self.zones = zones or ZONES
        self.rng = np.random.default_rng(seed)
        self.period = 1.0 / fps
        self.tumble_frames = tumble_frames
        self.dice: list[DieSpec] = []
        self._queue: list[list[DieSpec]] = []
        self._still: np.ndarray | None = None
        self._next_t = 0.0
        self._index = 0
        self._seed = seed
        self._noisy: list[np.ndarray] = []
        #: When the thrown dice came to rest: the first frame showing them still.
        self.rested_at: float | None = None
        self._lock = threading.Lock()
        corners = (scene.felt_corners if scene is not None
                   else render_scene(self.params, [], seed=seed, die_set=die_set).felt_corners)
        self.geometry = TableGeometry.from_corners(corners, self.params.felt_mm, self.zones)
        self._still = self._render([], seed)
        #: The cards lying face up (a deck's demo): (label, table xy, yaw), in the order laid.
        self.cards: list[tuple[str, tuple[float, float], float]] = []
        self.state = CameraState.OK

    def _render(self, dice: list[DieSpec], seed: int) -> np.ndarray:
        if self.scene is not None:
            return self.scene.render(dice, seed)
        return render_scene(self.params, dice, seed=seed, die_set=self.die_set).image

    def _spec(self, label: str, table_xy: tuple[float, float], yaw: float,
              motion: tuple[float, float] = (0.0, 0.0)) -> DieSpec:
        w, h = self.params.felt_mm
        # The renderer's die positions are centred on the felt, y pointing away from us.
        return DieSpec(label, table_xy[0] - w / 2, h / 2 - table_xy[1], yaw, motion_px=motion)

    def _places(self, n: int) -> list[tuple[float, float]]:
        """`n` resting places in the rolling area, apart from each other."""
        poly = np.asarray(self.zones["rolling"], float)
        lo, hi = poly.min(0) + MARGIN_MM, poly.max(0) - MARGIN_MM
        places: list[tuple[float, float]] = []
        for _ in range(10_000):
            if len(places) == n:
                return places
            p = tuple(self.rng.uniform(lo, hi))
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) >= SPACING_MM for q in places):
                places.append(p)
        raise VisionError(f"no room for {n} dice in the rolling area")

    def throw(self, rolled: list[str], kept: list[str] = (), tumble: bool = True) -> None:
        """Throw dice showing `rolled` (they land in the rolling area) and lay `kept` in the
        tray; the frames that follow show the throw (unless not `tumble`: the dice are laid
        down), then the dice at rest."""
        if self.scene is not None:
            self.scene.check([*rolled, *kept])
        if self.kind == "cards":
            self._deal(list(rolled), list(kept), tumble)
            return
        if len(kept) > len(TRAY_SLOTS):
            raise VisionError(f"the tray holds {len(TRAY_SLOTS)} dice, not {len(kept)}")
        rest = [self._spec(label, xy, float(self.rng.uniform(0, 90)))
                for label, xy in zip(rolled, self._places(len(rolled)), strict=True)]
        tray = [self._spec(label, xy, float(self.rng.uniform(-8, 8)))
                for label, xy in zip(kept, TRAY_SLOTS, strict=False)]
        frames = []
        for k in range(self.tumble_frames if tumble else 0, 0, -1):
            frames.append(tray + [replace(d, x_mm=d.x_mm - 12 * k, y_mm=d.y_mm + 7 * k,
                                          yaw_deg=d.yaw_deg + 30 * k,
                                          motion_px=(8.0 * k, -5.0 * k)) for d in rest])
        frames.append(tray + rest)
        with self._lock:
            self._queue = frames
            self.dice = tray + rest

    def _deal(self, new: list[str], laid: list[str], tumble: bool) -> None:
        """Cards: `laid` lie face up where they were (laid afresh in their places when the
        table's cards changed, e.g. gathered after a cut), then each of `new` slides in from
        the right and lands in the next place; the frames show one card landing at a time."""
        if [c[0] for c in self.cards] != laid:
            self.cards = []
            for label in laid:
                self.cards.append((label, self._card_place(len(self.cards)),
                                   self._card_yaw(len(self.cards))))
        frames = []
        for i, label in enumerate(new):
            place = self._card_place(len(self.cards))
            yaw = self._card_yaw(len(self.cards))
            still = [self._spec(c, xy, y) for c, xy, y in self.cards]
            for k in range(self.tumble_frames if tumble else 0, 0, -1):
                # sliding in over the felt from the dealer's side, slowing down as it lands
                x = place[0] + (CARD_FROM_X - place[0]) * (k / self.tumble_frames) ** 2
                frames.append(still + [self._spec(label, (x, place[1]), yaw + 9 * k,
                                                  motion=(-4.0 * k, 0.0))])
            self.cards.append((label, place, yaw))
            # landed: it lies still long enough to be read before the next card comes
            landed = [self._spec(c, xy, y) for c, xy, y in self.cards]
            frames += [landed] * (1 if i == len(new) - 1 else self._still_frames())
        if not frames:
            frames.append([self._spec(c, xy, y) for c, xy, y in self.cards])
        with self._lock:
            self._queue = frames
            self.dice = frames[-1]

    def _still_frames(self) -> int:
        """Frames a landed card lies still before the next is dealt: the settle window."""
        return max(2, int(round(CARD_STILL_S / self.period)) + 2)

    def _card_yaw(self, n: int) -> float:
        """The `n`th card's turn (degrees): a little askew; squarely on the card it covers."""
        places = [c[1] for c in self.cards]
        place = self._card_place(n)
        if place in places:
            return self.cards[places.index(place)][2]
        return float(self.rng.uniform(-6, 6))

    def _card_place(self, n: int) -> tuple[float, float]:
        """The `n`th card's place on the felt: rows of cards in the rolling area; past the
        last place, a card lands squarely on an earlier one (the top of a stack)."""
        poly = np.asarray(self.zones["rolling"], float)
        lo, hi = poly.min(0), poly.max(0)
        cols = max(1, int((hi[0] - lo[0] - 10) // CARD_STEP_MM[0]))
        rows = max(1, int((hi[1] - lo[1] - 10) // CARD_STEP_MM[1]))
        k = n % (cols * rows)
        return (lo[0] + 10 + CARD_STEP_MM[0] * (k % cols + 0.5),
                lo[1] + 10 + CARD_STEP_MM[1] * (k // cols + 0.5))

    def read(self) -> Frame | None:
        now = self.clock()
        if now < self._next_t:
            return None
        self._next_t = now + self.period
        with self._lock:
            dice = self._queue.pop(0) if self._queue else None
            resting = dice is not None and not self._queue
        if dice is not None:
            self._seed += 1
            self._still = self._render(dice, self._seed)
            self._noisy = []
            if resting:
                self.rested_at = now
                # A real sensor's frames differ by noise even when nothing moves.
                noise_rng = np.random.default_rng(self._seed)
                self._noisy = [np.clip(self._still + noise_rng.normal(0, 1.5, self._still.shape),
                                       0, 255).astype(np.uint8) for _ in range(3)]
        self._index += 1
        image = self._noisy[self._index % len(self._noisy)] if self._noisy else self._still
        return Frame(image, now, self._index)
