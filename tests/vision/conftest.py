"""Shared fixtures for the vision tests: the shipped profile and an unseen label set."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from vision.art import LabelStyle
from vision.default_profile import NOMINAL_TABLE
from vision.labels import Die, DieSet
from vision.profile import load_profile
from vision.recognizer import Profile, calibrate
from vision.synthetic import make_capture

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "calibration" / "fortunes-and-winds"

# A label set and art the recognizer was never developed on: other words, serif kanji,
# Hershey lettering above the sign, no frame, cream stickers, other die colours.
SEASONS = DieSet(
    name="test-seasons",
    dice=(
        Die("GROVE", (90, 120, 60), (40, 40, 140),
            ("SPRING", "SPRING", "SUMMER", "SUMMER", "AUTUMN", "WINTER")),
        Die("SKY", (150, 90, 120), (110, 40, 30), ("STAR", "STAR", "STAR", "CLOUD", "CLOUD", "RAIN")),
    ),
    glyphs={"SPRING": "東", "SUMMER": "陽", "AUTUMN": "米", "WINTER": "北", "STAR": "空",
            "CLOUD": "風", "RAIN": "魚"},
)
SEASONS_STYLE = LabelStyle(glyph_font="serif", word_font="hershey", word="above", border=False,
                           sticker_bgr=(200, 228, 245), glyph_scale=0.58)
SEASONS_TABLE = dict(NOMINAL_TABLE, camera_height_mm=650.0, die_px=48.0, tilt_deg=(1.5, -1.0),
                     felt_bgr=(0.35, 0.3, 0.1))  # a blue-green felt


@pytest.fixture(scope="session")
def shipped_profile() -> Profile:
    """The default profile shipped in calibration/."""
    return load_profile(SHIPPED)


@pytest.fixture(scope="session")
def seasons_captures() -> dict:
    """Generated captures of the unseen label set: 5 per label."""
    cv2.setNumThreads(1)
    return {lab: [(f"{lab}/{j}.png",
                   make_capture(900 + 10 * i + j, lab, SEASONS_STYLE, SEASONS,
                                table=SEASONS_TABLE).image) for j in range(5)]
            for i, lab in enumerate(SEASONS.labels)}


@pytest.fixture(scope="session")
def seasons_profile(seasons_captures) -> tuple[Profile, object]:
    """A profile calibrated on the unseen label set, with its report."""
    return calibrate(seasons_captures, SEASONS.name)
