"""The stored model: what calibration learned about one table and what reading it needs.

A `Profile` holds the felt's colour, the camera's geometry (face size, side-face reach, nadir),
the rectified capture patches (templates are rebuilt from them) and the `Thresholds` it was
calibrated with. `vision.profile` writes and reads it on disk.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from vision.classifier import FaceClassifier, train
from vision.descriptors import ink_colour, ink_contrast
from vision.dice import FeltModel
from vision.geometry import Lens
from vision.matcher import InkModel, Matcher, build_templates, learn_ink, make_matcher


@dataclass
class Thresholds:
    """The decision thresholds a profile reads with (calibration sets the first two).

    min_margin: least relative margin (s1 - s2) / (1 - s2) of the best label over the runner-
    up (calibration raises it above any held-out misreading's); min_score: least score of the
    best label. sure_at_first_look: a first reading less confident gets the second look;
    disagree_factor: a second look overruling the first needs this many times min_margin.
    class_margin: least log-probability margin of the learned classifier's best label over
    its runner-up (vision.classifier; calibration raises it above held-out misreadings the
    matcher agreed with); alone_margin: the matcher's least margin to read a face alone,
    when the classifier is unsure of it (calibration raises it above every held-out
    misreading of the matcher's). See vision.reader.decide_both.
    cocked_residual: a blob a flat die explains worse than this (face sides) is cocked;
    lean_*: see vision.leaning.is_leaning.
    """

    min_margin: float = 0.25
    min_score: float = 0.45
    sure_at_first_look: float = 0.6
    disagree_factor: float = 2.0
    cocked_residual: float = 0.2
    lean_lopsided: float = 0.15
    # the top face found by appearance is trusted (lean_lopsided, lean_shift) from this match
    # up; below it the outline must be lopsided by lean_lopsided_unsure. Measured with the rim
    # at the captures' median (session 14, shipped profile, 161 flat dice: test_vision_cocked's
    # spots, the marked table of test_cli_camera, 120 anywhere with a third in low light or
    # glare): every flat die lopsided over 0.15 matched 0.44-0.52 (the face found was not a
    # face), while dice cocked 10-20 degrees lopsided 0.15-0.25 matched 0.56-0.70 but one
    # (0.51); at 0.5 the marked table's flat die (lopsided 0.164, match 0.522) was flagged
    lean_match: float = 0.55
    lean_lopsided_unsure: float = 0.25
    # between a flat die in low light (up to 0.092: a blurred rim) and a die cocked 15 degrees
    # whose top face lies where a flat one's would (0.102) in test_vision_cocked's scenes:
    # a narrow gap, measured on the shipped profile
    lean_stretch: float = 0.097
    class_margin: float = 1.0
    alone_margin: float = 0.25
    lean_shift: float = 0.06

    def to_json(self) -> dict:
        """The manifest's "thresholds" object."""
        return asdict(self)

    @classmethod
    def from_json(cls, d: object) -> Thresholds:
        """Read a manifest's thresholds; names missing (older profiles) take the defaults.

        ValueError names an unknown key or a value that is not a finite number.
        """
        if not isinstance(d, dict):
            raise ValueError(f"thresholds must be an object, not {type(d).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown thresholds {unknown}; known: {sorted(known)}")
        out = {}
        for k, v in d.items():
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                raise ValueError(f"threshold {k} = {v!r} is not a finite number")
            out[k] = float(v)
        return cls(**out)


@dataclass
class Geometry:
    """The camera as calibration measured it, in ideal (undistorted) pixels.

    side_px: a top face's side at the nadir; k_side: how far side faces reach per pixel from
    the nadir; nadir: the ideal image point straight below the camera; frame: (width, height)
    of the calibration frames; lens_k, lens_centre: the lens's radial distortion (see
    vision.geometry.Lens; centre None: the frame's middle); side_slope: how a face's side
    grows per ideal pixel from the nadir along x and y (a camera not quite above the felt).
    """

    side_px: float
    k_side: float
    nadir: tuple[float, float]
    frame: tuple[int, int] | None = None  # (width, height) of the calibration frames
    lens_k: float = 0.0
    lens_centre: tuple[float, float] | None = None
    side_slope: tuple[float, float] = (0.0, 0.0)
    #: how far (image px) a die's edge lies inside its blob's outline on this table (the
    #: captures' median of vision.dice.outline_inset, vision.training.RIM_QUANTILE):
    #: side_px leaves it out, and every face's fit takes it off its blob's extents; None: a
    #: profile from before it was measured
    rim_px: float | None = None

    def lens(self) -> Lens:
        """The lens that maps this camera's image pixels to ideal ones."""
        return Lens.for_frame(self.lens_k, self.frame, self.lens_centre)

    def side_at(self, ideal: tuple[float, float]) -> float:
        """A top face's side (ideal px) at an ideal image point."""
        return self.side_px + (self.side_slope[0] * (ideal[0] - self.nadir[0])
                               + self.side_slope[1] * (ideal[1] - self.nadir[1]))

    def die_area(self, x: float, y: float) -> float:
        """Expected blob area (image px) of one flat die whose blob centre is at (x, y)."""
        lens = self.lens()
        p = lens.to_ideal(np.array([[x, y]]))[0]
        r = math.hypot(p[0] - self.nadir[0], p[1] - self.nadir[1])
        s = self.side_at((p[0], p[1])) + 2 * (self.rim_px or 0.0)  # the blob's outline
        ideal = s**2 + s * self.k_side * r * 1.27
        return ideal / abs(float(np.linalg.det(lens.jacobian((x, y)))))


@dataclass
class Profile:
    """What calibration learned: felt colour, geometry, templates, the learned face
    classifier and thresholds."""

    die_set: str
    labels: list[str]
    felt: FeltModel
    geometry: Geometry
    patches: np.ndarray  # (N, STORE, STORE, 3) uint8 rectified top faces with margin
    patch_labels: np.ndarray  # (N,) int index into labels
    thresholds: Thresholds = field(default_factory=Thresholds)
    report: dict = field(default_factory=dict)
    camera_controls: dict | None = None
    face_classifier: FaceClassifier | None = field(default=None, repr=False)
    _matcher: Matcher | None = field(default=None, repr=False)
    _ink: InkModel | None = field(default=None, repr=False)

    @property
    def min_margin(self) -> float:
        return self.thresholds.min_margin

    @property
    def min_score(self) -> float:
        return self.thresholds.min_score

    def ink(self) -> InkModel:
        """The labels' ink colours, learned from the stored patches once."""
        if self._ink is None:
            cols = np.array([ink_colour(p) for p in self.patches])
            contrast = np.array([ink_contrast(p) for p in self.patches])
            self._ink = learn_ink(cols, self.patch_labels, len(self.labels), contrast)
        return self._ink

    def classifier(self) -> FaceClassifier:
        """The learned face classifier: stored by calibration, or learnt from the stored
        patches once (a profile written before the classifier existed)."""
        if self.face_classifier is None:
            self.face_classifier = train(self.patches, self.patch_labels, len(self.labels))
        return self.face_classifier

    def matcher(self) -> Matcher:
        """The templates, augmented and whitened, built once."""
        if self._matcher is None:
            t, lab, _, aug = build_templates(self.patches, self.patch_labels)
            self._matcher = make_matcher(t, lab, len(self.labels), aug)
        return self._matcher
