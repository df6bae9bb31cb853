"""Dev-time tool: subset the OFL Noto CJK fonts to our glyphs and extract their outlines.

Run once (needs fontTools and Debian's fonts-noto-cjk):
    python vision/artwork/make_artwork.py
It writes, next to itself, the subset fonts (for the PDF printables), the outlines as
polygons in ``glyphs.json`` (so the renderer in vision/ draws glyphs with cv2 only) and the
OFL text. Importing this module imports nothing beyond the stdlib.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The kanji the dice carry, as their equipment files give them (equipment/*.json "glyphs";
#: the other glyphs are ASCII, in LATIN).
KANJI = "".join(dict.fromkeys(
    ch for f in sorted((HERE.parents[1] / "equipment").glob("*.json"))
    for g in json.loads(f.read_text(encoding="utf-8")).get("glyphs", {}).values()
    for ch in g if not ch.isascii()))
LATIN = "".join(chr(c) for c in range(32, 127))  # printable ASCII
SOURCES = {
    "sans": ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", "NotoSansCJKjp-Bold-feltbank.otf"),
    "serif": (
        "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc",
        "NotoSerifCJKjp-Bold-feltbank.otf",
    ),
}
COPYRIGHT_FILE = "/usr/share/doc/fonts-noto-cjk/copyright"
CURVE_STEPS = 6


def _flatten_pen_class():  # noqa: ANN202 - built lazily so fontTools is a dev-only import
    from fontTools.pens.basePen import BasePen

    class FlattenPen(BasePen):
        """Records glyph contours as polylines, curves sampled at fixed steps."""

        def __init__(self, glyphset):  # noqa: ANN001
            super().__init__(glyphset)
            self.contours: list[list[tuple[float, float]]] = []
            self.current: list[tuple[float, float]] = []

        def _moveTo(self, pt):  # noqa: ANN001, N802
            self.current = [pt]

        def _lineTo(self, pt):  # noqa: ANN001, N802
            self.current.append(pt)

        def _curveToOne(self, p1, p2, p3):  # noqa: ANN001, N802
            p0 = self.current[-1]
            for i in range(1, CURVE_STEPS + 1):
                t = i / CURVE_STEPS
                a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t**3
                self.current.append(
                    (
                        a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0],
                        a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1],
                    )
                )

        def _qCurveToOne(self, p1, p2):  # noqa: ANN001, N802
            p0 = self.current[-1]
            for i in range(1, CURVE_STEPS + 1):
                t = i / CURVE_STEPS
                a, b, c = (1 - t) ** 2, 2 * t * (1 - t), t * t
                self.current.append(
                    (a * p0[0] + b * p1[0] + c * p2[0], a * p0[1] + b * p1[1] + c * p2[1])
                )

        def _closePath(self):  # noqa: N802
            if len(self.current) > 2:
                self.contours.append(self.current)
            self.current = []

        _endPath = _closePath

    return FlattenPen


def glyph_outlines(font, text: str, pen_class) -> dict[str, dict]:
    """Each character of `text` in the fontTools `font`: its advance and its outline flattened
    to polygons (`_flatten_pen_class`'s pen), in font units."""
    glyphset = font.getGlyphSet()
    cmap = font.getBestCmap()
    glyphs = {}
    for ch in text:
        name = cmap[ord(ch)]
        pen = pen_class(glyphset)
        glyphset[name].draw(pen)
        glyphs[ch] = {
            "advance": glyphset[name].width,
            "contours": [[[round(x), round(y)] for x, y in c] for c in pen.contours],
        }
    return glyphs


def main() -> None:
    """Write the subset fonts, glyphs.json and OFL.txt next to this script."""
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    pen_class = _flatten_pen_class()
    text = KANJI + LATIN
    out: dict[str, dict] = {}
    for style, (ttc, out_name) in SOURCES.items():
        font = TTCollection(ttc).fonts[0]  # index 0 = the Japanese (JP) variant
        options = subset.Options()
        options.name_IDs = ["*"]
        options.layout_features = []
        options.notdef_outline = True
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=text)
        subsetter.subset(font)
        font.save(HERE / out_name)
        glyphs = glyph_outlines(font, text, pen_class)
        out[style] = {
            "font": out_name,
            "units_per_em": font["head"].unitsPerEm,
            "ascender": font["hhea"].ascent,
            "descender": font["hhea"].descent,
            "copyright": font["name"].getDebugName(0),
            "glyphs": glyphs,
        }
    (HERE / "glyphs.json").write_text(json.dumps(out, separators=(",", ":")), encoding="utf-8")
    lic = Path(COPYRIGHT_FILE).read_text(encoding="utf-8")
    body = lic[lic.index("License: SIL-1.1\n -----") + len("License: SIL-1.1\n") :]
    body = body[: body.index("OTHER DEALINGS IN THE FONT SOFTWARE.") + 36]
    body = "\n".join(re.sub(r"^ \.?", "", line) for line in body.splitlines())
    header = "\n".join(f"{v['font']}: {v['copyright']}" for v in out.values())
    (HERE / "OFL.txt").write_text(header + "\n\n" + body.strip() + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
