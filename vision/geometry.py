"""Table geometry: image pixels to a top-down table frame in millimetres, and zones.

The felt's corners come from four ArUco markers (ids 0-3: top-left, top-right,
bottom-right, bottom-left, as `feltbank print markers` prints them) or from four corners
set by hand. Zones (rolling area, set-aside tray…) are polygons in table millimetres.
`Lens` is the camera lens's radial distortion (image pixels to ideal pixels and back), which
calibration measures and the die reader fits top faces through.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.errors import VisionError

ARUCO_DICT = cv2.aruco.DICT_4X4_50
# A printed marker is 6 cells with a white quiet zone of one cell round it (8 cells), cut by
# hand: the paper it lies on spans up to this many times the detected black square.
MARKER_PAPER = 1.6


def detect_markers(img: np.ndarray) -> dict[int, np.ndarray]:
    """ArUco markers in a frame: id -> 4x2 corners (OpenCV 4.6's API and 4.7+'s)."""
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    if hasattr(cv2.aruco, "ArucoDetector"):
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        detector = cv2.aruco.ArucoDetector(dictionary, params)
        corners, ids, _ = detector.detectMarkers(gray)
    else:  # OpenCV < 4.7 (Debian Bookworm's python3-opencv 4.6)
        params = cv2.aruco.DetectorParameters_create()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        corners, ids, _ = cv2.aruco.detectMarkers(gray, dictionary, parameters=params)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners,
                                                                        strict=True)}


def marker_papers(found: dict[int, np.ndarray]) -> list[np.ndarray]:
    """Image-px quads of the paper each detected marker is printed on (not objects on the felt)."""
    return [c.mean(0) + (c - c.mean(0)) * MARKER_PAPER for c in found.values()]


@dataclass
class TableGeometry:
    """The homography from image px to table mm, the felt's size and named zones."""

    H: np.ndarray  # 3x3, image px -> table mm
    size_mm: tuple[float, float]
    zones: dict[str, np.ndarray] = field(default_factory=dict)  # name -> (N, 2) mm polygon
    ignore: list[np.ndarray] = field(default_factory=list)  # image px: the markers' papers
    # markers lie on the felt's corners, so the felt reaches at least half a marker's paper
    # beyond their centres (the felt's own edge is told by its colour)
    margin_mm: float = 0.0

    @classmethod
    def from_corners(cls, corners_px: np.ndarray, size_mm: tuple[float, float],
                     zones: dict[str, list[tuple[float, float]]] | None = None
                     ) -> TableGeometry:
        """From the felt's four corners in the image (top-left, top-right, bottom-right,
        bottom-left) and the felt's width and depth in mm."""
        c = np.asarray(corners_px, np.float64).reshape(4, 2)
        w, h = size_mm
        if w <= 0 or h <= 0:
            raise VisionError(f"table size {size_mm}: expected positive width and depth in mm")
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        area = cv2.contourArea(c.astype(np.float32))
        if area < 100 or not cv2.isContourConvex(c.astype(np.float32)):
            raise VisionError("table corners: expected four corners of a convex felt area, "
                              "clockwise from top-left")
        H = cv2.getPerspectiveTransform(c.astype(np.float32), dst.astype(np.float32))
        return cls(H, (float(w), float(h)),
                   {k: np.asarray(v, np.float64) for k, v in (zones or {}).items()})

    @classmethod
    def from_markers(cls, img: np.ndarray, size_mm: tuple[float, float],
                     zones: dict[str, list[tuple[float, float]]] | None = None
                     ) -> TableGeometry:
        """From the four corner markers in a frame; size_mm is between marker centres."""
        found = detect_markers(img)
        missing = [i for i in range(4) if i not in found]
        if missing:
            raise VisionError(f"corner markers {missing} not seen; print them with "
                              "`feltbank print markers` and lay ids 0-3 clockwise from "
                              "top-left on the felt's corners")
        centres = np.array([found[i].mean(0) for i in range(4)])
        geometry = cls.from_corners(centres, size_mm, zones)
        geometry.ignore = marker_papers(found)
        geometry.margin_mm = max(float(np.ptp(geometry.to_table(q), axis=0).max()) / 2
                                 for q in geometry.ignore)
        return geometry

    def to_table(self, pts_px: np.ndarray) -> np.ndarray:
        """Table mm of image points (N, 2)."""
        p = np.asarray(pts_px, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.H).reshape(-1, 2)

    def to_image(self, pts_mm: np.ndarray) -> np.ndarray:
        """Image px of table points (N, 2)."""
        p = np.asarray(pts_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, np.linalg.inv(self.H)).reshape(-1, 2)

    def on_felt(self, pt_mm: np.ndarray) -> bool:
        """Whether a table point lies on the felt (as far as the geometry can tell)."""
        x, y = pt_mm
        m = self.margin_mm
        return bool(-m <= x <= self.size_mm[0] + m and -m <= y <= self.size_mm[1] + m)

    def zone_of(self, pt_mm: np.ndarray) -> str | None:
        """The first zone containing a table point, or None."""
        for name, poly in self.zones.items():
            if cv2.pointPolygonTest(poly.astype(np.float32), (float(pt_mm[0]),
                                                              float(pt_mm[1])), False) >= 0:
                return name
        return None

    def top_down(self, img: np.ndarray, px_per_mm: float = 2.0) -> np.ndarray:
        """The felt warped to a top-down image (for the dashboard)."""
        S = np.diag([px_per_mm, px_per_mm, 1.0])
        size = (int(self.size_mm[0] * px_per_mm), int(self.size_mm[1] * px_per_mm))
        return cv2.warpPerspective(img, S @ self.H, size)


@dataclass(frozen=True)
class Lens:
    """A camera lens's radial distortion: image pixels to ideal (pinhole) pixels and back.

    An image point at distance d from the distortion's centre shows the ideal point at
    d * (1 + k * |d|^2 / R^2) (R: the frame's half diagonal): k > 0 is barrel distortion,
    which shrinks things towards the frame's corners (more along the radius than across
    it). In ideal pixels a flat die's top face is a square of one size and its side faces
    reach straight away from the nadir; calibration measures k and the centre (see
    vision.training._measure_geometry). k = 0 is a lens without distortion.
    """

    k: float = 0.0
    centre: tuple[float, float] = (0.0, 0.0)
    radius: float = 1.0  # R, the frame's half diagonal

    @classmethod
    def for_frame(cls, k: float, frame: tuple[int, int] | None,
                  centre: tuple[float, float] | None = None) -> Lens:
        """The lens of a w x h frame, centred on `centre` (the frame's middle by default)."""
        if frame is None or not k:
            return cls()
        w, h = frame
        c = centre if centre is not None else (w / 2, h / 2)
        return cls(float(k), (float(c[0]), float(c[1])), math.hypot(w, h) / 2)

    @property
    def identity(self) -> bool:
        return self.k == 0.0

    def to_ideal(self, pts: np.ndarray) -> np.ndarray:
        """Ideal pixels of image points (N, 2)."""
        p = np.asarray(pts, np.float64)
        if self.identity:
            return p.copy()
        d = p - self.centre
        return self.centre + d * (1 + self.k / self.radius**2 * (d * d).sum(-1, keepdims=True))

    def to_image(self, pts: np.ndarray) -> np.ndarray:
        """Image pixels of ideal points (N, 2) (the inverse of to_ideal, by iteration)."""
        p = np.asarray(pts, np.float64)
        if self.identity:
            return p.copy()
        u = p - self.centre
        d = u.copy()
        for _ in range(30):
            d = u / (1 + self.k / self.radius**2 * (d * d).sum(-1, keepdims=True))
        return self.centre + d

    def jacobian(self, pt: tuple[float, float]) -> np.ndarray:
        """The 2x2 derivative of to_ideal at an image point."""
        if self.identity:
            return np.eye(2)
        d = np.asarray(pt, np.float64) - self.centre
        q = self.k / self.radius**2
        return np.eye(2) * (1 + q * float(d @ d)) + 2 * q * np.outer(d, d)

    def ideal_angle(self, theta: float, pt: tuple[float, float]) -> float:
        """The angle (degrees, mod 90) in ideal pixels of a square's edges seen at `theta`
        (mod 90) in the image at `pt`: both edge directions mapped, their 4-fold mean."""
        if self.identity:
            return theta
        J = self.jacobian(pt)
        t = math.radians(theta)
        z = 0j
        for a in (t, t + math.pi / 2):
            e = J @ np.array([math.cos(a), math.sin(a)])
            z += complex(math.cos(4 * math.atan2(e[1], e[0])), math.sin(4 * math.atan2(e[1], e[0])))
        return float(math.degrees(math.atan2(z.imag, z.real)) / 4 % 90)
