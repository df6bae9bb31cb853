"""Label set and artwork: the 16 Fortunes and Winds labels, glyph outlines, the font subset."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.art import ARTWORK_DIR, LabelStyle, render_label
from vision.labels import FORTUNES_AND_WINDS

KANJI = "土北米水東魚火西木風南鳥空運陽月"


def test_label_set_matches_the_seed():
    dice = {d.name: d.faces for d in FORTUNES_AND_WINDS.dice}
    assert dice["EARTH"] == ("EARTH",) * 3 + ("NORTH",) * 2 + ("RICE",)
    assert dice["WATER"] == ("WATER",) * 3 + ("EAST",) * 2 + ("FISH",)
    assert dice["FIRE"] == ("FIRE",) * 3 + ("WEST",) * 2 + ("TREE",)
    assert dice["AIR"] == ("AIR",) * 3 + ("SOUTH",) * 2 + ("BIRD",)
    assert sorted(dice["MOON"]) == sorted(("VOID",) * 2 + ("FORTUNES",) * 2 + ("SUN", "MOON"))
    assert len(FORTUNES_AND_WINDS.labels) == 16
    assert "".join(FORTUNES_AND_WINDS.glyphs[lab] for lab in FORTUNES_AND_WINDS.labels) == KANJI


def test_the_artwork_tool_subsets_the_equipment_files_kanji():
    """vision/artwork/make_artwork.py takes its kanji from equipment/*.json, not a copy."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_artwork", ARTWORK_DIR / "make_artwork.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.KANJI == KANJI


def test_font_subset_and_licence_are_committed():
    data = json.loads((ARTWORK_DIR / "glyphs.json").read_text(encoding="utf-8"))
    for style in ("sans", "serif"):
        glyphs = data[style]["glyphs"]
        assert all(glyphs[k]["contours"] for k in KANJI)
        assert (ARTWORK_DIR / data[style]["font"]).stat().st_size < 60_000  # a subset
    assert "SIL OPEN FONT LICENSE Version 1.1" in (ARTWORK_DIR / "OFL.txt").read_text()


def test_labels_render_distinct_and_inked():
    arts = [render_label(FORTUNES_AND_WINDS, lab, 96).astype(np.float32)
            for lab in FORTUNES_AND_WINDS.labels]
    for a in arts:
        assert a.shape == (96, 96, 3)
        assert a.min() < 120 < a.max()  # ink on a light sticker
    diffs = [np.abs(arts[i] - arts[j]).mean() for i in range(16) for j in range(i + 1, 16)]
    assert min(diffs) > 3.0


@pytest.mark.parametrize("style", [LabelStyle(glyph_font="serif"),
                                   LabelStyle(glyph_scale=0.45, word="above"),
                                   LabelStyle(inverted=True, border=False)])
def test_alternative_styles_change_the_art(style):
    base = render_label(FORTUNES_AND_WINDS, "NORTH", 96).astype(np.float32)
    alt = render_label(FORTUNES_AND_WINDS, "NORTH", 96, style).astype(np.float32)
    assert np.abs(base - alt).mean() > 3.0
