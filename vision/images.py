"""Reading frames and calibration capture folders, with errors that name the file."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.errors import BadCaptureFolder, BadImage

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
EMPTY_DIR = "_empty"


def read_image(path: str | os.PathLike) -> np.ndarray:
    """A BGR frame from a file; BadImage if missing, truncated or not an image."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise BadImage(f"{path}: cannot read ({e.strerror or e})") from e
    if not data:
        raise BadImage(f"{path}: empty file; expected a PNG or JPEG frame")
    head = data[:8]
    if head.startswith(b"\xff\xd8") and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        raise BadImage(f"{path}: truncated JPEG (no end-of-image marker)")
    if head.startswith(b"\x89PNG") and b"IEND" not in data[-32:]:
        raise BadImage(f"{path}: truncated PNG (no IEND chunk)")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None or img.ndim != 3 or min(img.shape[:2]) < 64:
        raise BadImage(f"{path}: not a readable image; expected a PNG or JPEG camera frame")
    return img


def _images_in(folder: Path) -> list[Path]:
    """Image files in a folder, sorted by name."""
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)


def load_captures(
    folder: str | os.PathLike, labels: list[str] | None,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[dict[str, list[tuple[str, np.ndarray]]], list[tuple[str, np.ndarray]]]:
    """Read DIR/<LABEL>/*.png (+ optional DIR/_empty/); `labels` None accepts any names.

    progress(fraction, message), when given, is called before each file is read."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BadCaptureFolder(f"{folder}: no such folder; expected one sub-folder per label "
                               "(e.g. NORTH/) holding captures of that face")
    subdirs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not subdirs:
        raise BadCaptureFolder(f"{folder}: holds no label folders; expected one sub-folder "
                               "per label (e.g. NORTH/) holding captures of that face")
    found = {p.name: p for p in subdirs if p.name != EMPTY_DIR}
    if labels is not None:
        unknown = sorted(set(found) - set(labels))
        if unknown:
            raise BadCaptureFolder(f"{folder / unknown[0]}: unknown label {unknown[0]!r}; "
                                   f"this die set's labels are {', '.join(labels)}")
        missing = [lab for lab in labels if lab not in found]
        if missing:
            raise BadCaptureFolder(f"{folder}: no captures for {', '.join(missing)}; every "
                                   f"label needs a folder {folder / missing[0]}/ of captures")
        order = labels
    else:
        order = sorted(found)
        if len(order) < 2:
            raise BadCaptureFolder(f"{folder}: needs at least two label folders")
    files = {lab: _images_in(found[lab]) for lab in order}
    for lab in order:
        if not files[lab]:
            raise BadCaptureFolder(f"{found[lab]}: holds no images (.png or .jpg expected)")
    empty_files = _images_in(folder / EMPTY_DIR) if (folder / EMPTY_DIR).is_dir() else []
    total = sum(map(len, files.values())) + len(empty_files)
    done = [0]

    def read(f: Path) -> tuple[str, np.ndarray]:
        if progress is not None:
            progress(done[0] / total, f"reading {f.parent.name}/{f.name}")
        done[0] += 1
        return str(f), read_image(f)

    captures = {lab: [read(f) for f in files[lab]] for lab in order}
    return captures, [read(f) for f in empty_files]
