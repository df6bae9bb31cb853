"""Pictures for the banker's screen: frames and crops of each die as JPEG."""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import VisionError


def jpeg(img: np.ndarray, quality: int = 80, width: int | None = None) -> bytes:
    """`img` as JPEG bytes, scaled down to `width` pixels across when it is wider."""
    if width and img.shape[1] > width:
        scale = width / img.shape[1]
        img = cv2.resize(img, (width, round(img.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise VisionError("the frame could not be encoded as JPEG")
    return data.tobytes()


def annotate(img: np.ndarray, objects: list[dict]) -> np.ndarray:
    """A copy of `img` with each read object's outline, label and confidence drawn on it:
    green when read, amber when the recognizer abstained, red for what is not a die or a card."""
    out = img.copy()
    for obj in objects:
        if obj.get("kind", "die") not in ("die", "card"):
            colour = (40, 40, 220)
        elif obj.get("label") is None:
            colour = (0, 170, 255)
        else:
            colour = (60, 200, 60)
        corners = np.asarray(obj.get("corners") or [], np.int32)
        x, y = (round(v) for v in obj["center"])
        if corners.size:
            cv2.polylines(out, [corners.reshape(-1, 1, 2)], True, colour, 2, cv2.LINE_AA)
        else:
            cv2.circle(out, (x, y), 28, colour, 2, cv2.LINE_AA)
        text = f"{obj.get('label') or '?'} {float(obj.get('confidence', 0)):.0%}"
        cv2.putText(out, text, (x - 30, y - 34), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4,
                    cv2.LINE_AA)
        cv2.putText(out, text, (x - 30, y - 34), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2,
                    cv2.LINE_AA)
    return out


def crop(img: np.ndarray, center: tuple[float, float], size: int) -> np.ndarray:
    """A `size`-pixel square of `img` around `center`, padded where it leaves the frame."""
    half = size // 2
    x, y = round(center[0]), round(center[1])
    padded = cv2.copyMakeBorder(img, half, half, half, half, cv2.BORDER_CONSTANT)
    return padded[y:y + size, x:x + size]


def reading_pictures(img: np.ndarray, objects: list[dict], width: int = 960) -> dict:
    """The settled frame and a crop of every object (in their order), for the dashboard."""
    crops = []
    for obj in objects:
        corners = np.asarray(obj.get("corners") or [], float)
        side = float(np.ptp(corners[:, 0])) if corners.size else 50.0
        crops.append(jpeg(crop(img, tuple(obj["center"]), max(64, round(side * 2.2)))))
    return {"frame_jpeg": jpeg(annotate(img, objects), width=width), "crops": crops}
