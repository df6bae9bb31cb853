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


class DemoCamera(CameraSource):
    """A camera source showing the demo table; `throw()` rolls the dice."""

    name = "demo"

    def __init__(self, die_set: DieSet, seed: int = 0, fps: float = 10.0,
                 tumble_frames: int = 4, table: dict[str, object] | None = None,
                 zones: dict[str, list[tuple[float, float]]] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock)
        #: The dice thrown (equipment/NAME.json, as vision.labels reads it): the table's mode's,
        #: which the running table finds through the mode's record (its `equipment`).
        self.die_set = die_set
        self.params = replace(SceneParams(), **(table or NOMINAL_TABLE))
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
        scene = render_scene(self.params, [], seed=seed, die_set=die_set)
        self.geometry = TableGeometry.from_corners(scene.felt_corners, self.params.felt_mm,
                                                   self.zones)
        self._still = scene.image
        self.state = CameraState.OK

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
            self._still = render_scene(self.params, dice, seed=self._seed,
                                       die_set=self.die_set).image
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
