"""Settle detection: read a roll only once the table has been still for a while.

Frames are compared at low resolution; any change beyond sensor noise (a die tumbling, a
hand reaching in) is motion. The table is EMPTY when nothing but felt is on it, MOVING while
anything changes, and SETTLED once it has been still for `still_s` seconds.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.dice import FeltModel, find_blobs


class TableState(enum.Enum):
    """What the settle detector reports."""

    EMPTY = "empty"
    MOVING = "moving"
    SETTLED = "settled"


@dataclass
class SettleDetector:
    """Tracks motion between frames; SETTLED after `still_s` seconds without any.

    Whether a still table is EMPTY is looked at once per still spell (the felt searched for
    objects), not on every frame: nothing comes or goes without motion, and a camera loop
    idling over a still table would otherwise search the whole frame ten times a second.
    It is looked at again when the felt model, die size or markers' papers are set anew.
    """

    still_s: float = 2.0
    scale: int = 8  # frames are compared this much smaller
    diff_level: float = 10.0  # grey levels a pixel must change by (above noise)
    moving_share: float = 0.0005  # share of pixels that must change to call it motion
    felt: FeltModel | None = None  # with a felt model, an object-free table is EMPTY
    side_px: float = 50.0
    ignore: list[np.ndarray] = field(default_factory=list)  # image px: the markers' papers

    def __setattr__(self, name: str, value: object) -> None:
        # a new felt model or markers' papers (the table recalibrated): look again
        if name in ("felt", "side_px", "ignore"):
            object.__setattr__(self, "_empty", None)
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        self._prev: np.ndarray | None = None
        self._still_since: float | None = None
        self._empty: bool | None = None  # this still spell's table: empty? (None: not looked)
        self.state = TableState.MOVING

    def _small(self, img: np.ndarray) -> np.ndarray:
        """Blurred, shrunk grey frame for comparison."""
        g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
        h, w = g.shape
        g = cv2.resize(g, (w // self.scale, h // self.scale), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(g, (3, 3), 0).astype(np.int16)

    def update(self, img: np.ndarray, t: float) -> TableState:
        """Feed a frame taken at time t (seconds); returns the table's state."""
        small = self._small(img)
        moving = True
        if self._prev is not None and self._prev.shape == small.shape:
            changed = np.abs(small - self._prev) > self.diff_level
            moving = bool(changed.mean() > self.moving_share)
        self._prev = small
        if moving:
            self._still_since = None
            self._empty = None
            self.state = TableState.MOVING
            return self.state
        if self._still_since is None:
            self._still_since = t
        if t - self._still_since < self.still_s:
            self.state = TableState.MOVING
            return self.state
        if self._empty is None:
            self._empty = (self.felt is not None
                           and not find_blobs(img, self.felt, self.side_px, self.ignore)[0])
        self.state = TableState.EMPTY if self._empty else TableState.SETTLED
        return self.state
