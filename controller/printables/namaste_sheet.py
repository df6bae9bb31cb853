"""`feltbank print namaste-sheet`: a Namaste score pad page (A4 PDF), in English or French.

Namaste's printable, named in its record (`Mode.printables`).

The sheet is drawn from the rules core's own sheet (`controller.games.namaste`: the 25
circles, the lines and their spaces), so the paper and the dashboard number the same circles.
`layout()` is the geometry alone (what the tests check); `write_sheet_pdf()` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from controller.errors import FeltbankError
from controller.games.namaste import CIRCLES, KARMA_SPACES, LINES

#: The sheet's words, by language (the dashboard's catalogs will take them over).
WORDS = {
    "en": {"name": "Name", "first": "I'm first", "karma": "Bad karma", "total": "Total",
           "full": "full", "half": "half", "symbol": "Symbol spaces: first to fill the line "
           "scores its pink circle, later players half (rounded up).",
           "truth": "Truth spaces (turquoise): top and left full, bottom and right half."},
    "fr": {"name": "Nom", "first": "Je commence", "karma": "Mauvais karma", "total": "Total",
           "full": "plein", "half": "moitié", "symbol": "Cases symbole : le premier à remplir "
           "la ligne marque son cercle rose, les suivants la moitié (arrondie au-dessus).",
           "truth": "Cases vérité (turquoise) : en haut et à gauche pleines, en bas et à "
           "droite à moitié."},
}
LANGUAGES = tuple(WORDS)

PAGE_W, PAGE_H = 210.0, 297.0
#: Grid pitch and circle diameter, in mm.
PITCH, CIRCLE, SPACE = 21.0, 16.0, 11.0
CENTRE = (PAGE_W / 2, 128.0)
PINK, TURQUOISE, GREEN, WHITE = (244, 182, 204), (64, 200, 192), (120, 190, 110), (255, 255, 255)


@dataclass(frozen=True)
class Shape:
    """Something drawn: a circle or a space (square), its centre and size in mm."""

    kind: str  # "circle", "symbol", "truth", "karma", "first"
    label: str
    x: float
    y: float
    size: float

    def box(self) -> tuple[float, float, float, float]:
        h = self.size / 2
        return (self.x - h, self.y - h, self.x + h, self.y + h)


def _at(row: float, col: float) -> tuple[float, float]:
    return CENTRE[0] + (col - 3) * PITCH, CENTRE[1] + (row - 3) * PITCH


#: Where each truth space sits, one grid step off its single circle.
TRUTH_STEP = {"top": (-1, 0), "left": (0, -1), "right": (1, 0), "bottom": (0, -1)}


def space_cell(line) -> tuple[int, int]:
    """The grid cell of a line's space, on the ring just outside the diamond: each of the four
    edges holds one family (upper rows' spaces on the right, lower rows' on the left, left
    columns' above, right columns' below), so no two spaces meet."""
    if line.space != "symbol":
        r, c = CIRCLES[line.circles[0] - 1]
        dr, dc = TRUTH_STEP[line.space]
        return r + dr, c + dc
    k = int(line.name.split("-")[1]) - 1
    if line.name.startswith("row"):
        r, c = CIRCLES[line.circles[-1 if k <= 3 else 0] - 1]
        return r, c + (1 if k <= 3 else -1)
    r, c = CIRCLES[line.circles[0 if k < 3 else -1] - 1]
    return r + (-1 if k < 3 else 1), c


def layout() -> list[Shape]:
    """Every shape of the sheet: 25 circles (pink on the centre lines), the 10 symbol spaces
    and 4 truth spaces around the diamond, 4 bad karma spaces and the "I'm first" box."""
    shapes = []
    for n, (r, c) in enumerate(CIRCLES, start=1):
        pink = r == 3 or c == 3
        shapes.append(Shape("circle", f"{n}{'*' if pink else ''}", *_at(r, c), CIRCLE))
    for line in LINES:
        if line.space == "symbol":
            shapes.append(Shape("symbol", line.name, *_at(*space_cell(line)), SPACE))
        else:
            shapes.append(Shape("truth", f"{line.name}:{'full' if line.full_points else 'half'}",
                                *_at(*space_cell(line)), SPACE))
    y = CENTRE[1] + 5 * PITCH
    for k in range(KARMA_SPACES):
        shapes.append(Shape("karma", f"karma-{k + 1}", CENTRE[0] + (k - 1.5) * 16, y, SPACE))
    shapes.append(Shape("first", "first", 150.0, 30.0, 7.0))
    return shapes


def write_sheet_pdf(out: Path, lang: str = "en", pages: int = 1) -> int:
    """Write `pages` score sheets, one an A4 page; the number of shapes on a sheet."""
    if lang not in WORDS:
        raise FeltbankError(f"--lang {lang}: expected one of {', '.join(LANGUAGES)}")
    if not 1 <= pages <= 100:
        raise FeltbankError(f"--pages {pages}: expected 1 to 100")
    try:
        from fpdf import FPDF
    except ImportError as e:  # pragma: no cover - a dependency of the package
        raise FeltbankError("printing needs the fpdf2 package (pip install fpdf2)") from e
    words = WORDS[lang]
    shapes = layout()
    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_creator("feltbank")
    pdf.set_title("Namaste")
    for _ in range(pages):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 28)
        pdf.text(20, 28, "NAMASTE")
        pdf.set_font("Helvetica", size=12)
        pdf.text(20, 42, f"{words['name']}: ________________________")
        first = next(s for s in shapes if s.kind == "first")
        pdf.text(first.x + 6, first.y + 1.5, words["first"])
        pdf.set_line_width(0.4)
        for s in shapes:
            x0, y0, x1, y1 = s.box()
            if s.kind == "circle":
                pdf.set_fill_color(*(PINK if s.label.endswith("*") else WHITE))
                pdf.ellipse(x0, y0, s.size, s.size, style="FD")
                pdf.set_font("Helvetica", size=6)
                pdf.set_text_color(140)
                pdf.text(x0 + 1, y0 + 3, s.label.rstrip("*"))
                pdf.set_text_color(0)
                continue
            fill = {"symbol": WHITE, "truth": TURQUOISE, "karma": GREEN, "first": WHITE}[s.kind]
            pdf.set_fill_color(*fill)
            pdf.rect(x0, y0, s.size, s.size, style="FD")
            if s.kind == "truth":
                pdf.set_font("Helvetica", size=6)
                pdf.text(x0 + 0.8, y1 - 1, words["full" if s.label.endswith("full")
                                                  else "half"])
            elif s.kind == "karma":
                pdf.set_font("Helvetica", "B", 10)
                pdf.text(x0 + 1, y0 + 4.5, "-")
        karma = next(s for s in shapes if s.kind == "karma")
        pdf.set_font("Helvetica", size=10)
        pdf.text(karma.x - 8 - pdf.get_string_width(words["karma"]), karma.y + 1.5,
                 words["karma"])
        pdf.set_font("Helvetica", "B", 12)
        pdf.text(20, 262, f"{words['total']}: ________")
        pdf.set_font("Helvetica", size=8)
        pdf.text(20, 274, words["symbol"])
        pdf.text(20, 279, words["truth"])
    pdf.output(str(out))
    return len(shapes)


def print_sheet(out: Path, lang: str = "en", pages: int = 1) -> str:
    """`feltbank print namaste-sheet`: write the sheets; what was written, in words."""
    write_sheet_pdf(out, lang, pages)
    return f"{out}: {pages} Namaste score sheet{'s' * (pages != 1)} ({lang})"
