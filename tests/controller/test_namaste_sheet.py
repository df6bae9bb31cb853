"""`feltbank print namaste-sheet`: the score pad page's geometry and the PDF it writes."""

from __future__ import annotations

import itertools
import re

import pytest

from controller.cli import main
from controller.games.namaste import CIRCLES, LINE
from controller.printables.namaste_sheet import PAGE_H, PAGE_W, PITCH, layout


def test_the_sheet_has_every_circle_and_space_and_nothing_overlaps():
    shapes = layout()
    kinds = [s.kind for s in shapes]
    assert (kinds.count("circle"), kinds.count("symbol"), kinds.count("truth"),
            kinds.count("karma"), kinds.count("first")) == (25, 10, 4, 4, 1)
    for a, b in itertools.combinations(shapes, 2):
        ax0, ay0, ax1, ay1 = a.box()
        bx0, by0, bx1, by1 = b.box()
        assert ax1 <= bx0 or bx1 <= ax0 or ay1 <= by0 or by1 <= ay0, (a.label, b.label)
    for s in shapes:
        x0, y0, x1, y1 = s.box()
        assert 10 <= x0 and x1 <= PAGE_W - 10 and 10 <= y0 and y1 <= PAGE_H - 10, s.label
    # The pink circles are the lines' middles.
    pink = {int(s.label[:-1]) for s in shapes if s.kind == "circle" and s.label.endswith("*")}
    assert pink == {line.middle for line in LINE.values()}


def test_each_space_sits_one_step_from_an_end_of_its_line():
    by_label = {s.label.split(":")[0]: s for s in layout()}
    circles = {n: by_label[str(n)] if str(n) in by_label else by_label[f"{n}*"]
               for n in range(1, len(CIRCLES) + 1)}
    for name, line in LINE.items():
        space = by_label[name]
        ends = {line.circles[0], line.circles[-1]}
        assert min(abs(space.x - circles[n].x) + abs(space.y - circles[n].y)
                   for n in ends) == pytest.approx(PITCH), name


@pytest.mark.parametrize("lang, pages", [("en", 1), ("fr", 3)])
def test_print_namaste_sheet_writes_a_pdf(tmp_path, capsys, lang, pages):
    out = tmp_path / "sheet.pdf"
    code = main(["print", "namaste-sheet", "--out", str(out), "--lang", lang,
                 "--pages", str(pages)])
    assert code == 0 and f"{pages} Namaste score sheet" in capsys.readouterr().out
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    assert len(re.findall(rb"/Type /Page\b", data)) == pages


@pytest.mark.parametrize("args, words", [
    (["--lang", "de"], "--lang de: expected one of en, fr"),
    (["--pages", "0"], "--pages 0: expected 1 to 100"),
])
def test_print_namaste_sheet_refuses_bad_options(tmp_path, capsys, args, words):
    out = tmp_path / "sheet.pdf"
    assert main(["print", "namaste-sheet", "--out", str(out), *args]) == 1
    assert words in capsys.readouterr().err and not out.exists()
