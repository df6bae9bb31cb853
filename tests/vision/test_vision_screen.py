"""Pictures for the banker's screen: outlines drawn, crops and frames as JPEG."""

from __future__ import annotations

import cv2
import numpy as np

from vision.screen import annotate, crop, jpeg, reading_pictures

OBJECTS = [
    {"label": "NORTH", "confidence": 0.98, "center": [100, 100],
     "corners": [[80, 80], [120, 80], [120, 120], [80, 120]], "kind": "die"},
    {"label": None, "confidence": 0.2, "center": [300, 200], "corners": [], "kind": "die"},
]


def test_annotate_draws_read_and_unread_dice_in_their_colours():
    img = np.full((400, 500, 3), 40, np.uint8)
    out = annotate(img, OBJECTS)
    assert (img == 40).all()  # the frame itself is untouched
    assert tuple(out[80, 100]) == (60, 200, 60)  # a read die's outline: green
    assert tuple(out[200, 328]) == (0, 170, 255)  # an abstention's ring: amber


def test_reading_pictures_are_jpeg_frames_and_crops():
    img = np.full((600, 800, 3), 90, np.uint8)
    pictures = reading_pictures(img, OBJECTS, width=400)
    frame = cv2.imdecode(np.frombuffer(pictures["frame_jpeg"], np.uint8), cv2.IMREAD_COLOR)
    assert frame.shape == (300, 400, 3)
    assert len(pictures["crops"]) == 2
    first = cv2.imdecode(np.frombuffer(pictures["crops"][0], np.uint8), cv2.IMREAD_COLOR)
    assert first.shape == (88, 88, 3)  # 2.2 times the die's 40 px side
    assert crop(img, (0, 0), 64).shape == (64, 64, 3)  # padded at the frame's edge
    assert jpeg(img)[:2] == b"\xff\xd8"
