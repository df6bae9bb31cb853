"""Dev-time tool: the outlines of the digits, "/" and the letters A J K Q T in several TrueType
faces (numeral dice; poker cards' corner indices).

Run once (needs fontTools and Debian's fonts-dejavu-core/-extra and fonts-liberation):
    python vision/artwork/make_numeral_glyphs.py
It writes ``numeral_glyphs.json`` next to itself, in the shape of ``glyphs.json`` (one entry
per face: units_per_em and each character's advance and contours), so the numeral dice's
scene generator (`vision.scenes_numerals`) and templates (`vision.numerals`) draw these faces
with cv2 only, as `vision.art` draws the label glyphs; the poker decks of the card scenes
(`vision.deck_art`) print their corner indices in these faces too. Only these sixteen
characters' outlines are kept; the faces' copyright and licence names are kept with them
(DejaVu: the Bitstream Vera licence, free to modify and redistribute; Liberation: SIL OFL 1.1).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEJAVU = "/usr/share/fonts/truetype/dejavu/"
LIBERATION = "/usr/share/fonts/truetype/liberation/"
TEXT = "0123456789/AJKQT"
#: face name -> font file (faces upright, bold, condensed, monospaced, slanted and light)
FACES = {f.removesuffix(".ttf").replace("-", "_").lower(): d + f for d, files in (
    (DEJAVU, ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-ExtraLight.ttf",
              "DejaVuSans-Oblique.ttf", "DejaVuSansCondensed-BoldOblique.ttf",
              "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSerif.ttf",
              "DejaVuSerif-Bold.ttf", "DejaVuSerifCondensed-Italic.ttf")),
    (LIBERATION, ("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf",
                  "LiberationSansNarrow-Regular.ttf", "LiberationSansNarrow-BoldItalic.ttf",
                  "LiberationSerif-Regular.ttf", "LiberationSerif-Bold.ttf",
                  "LiberationSerif-Italic.ttf", "LiberationMono-Regular.ttf",
                  "LiberationMono-Bold.ttf"))) for f in files}


def main() -> None:
    """Write numeral_glyphs.json next to this script."""
    from fontTools.ttLib import TTFont

    sys.path.insert(0, str(HERE))
    from make_artwork import _flatten_pen_class, glyph_outlines

    pen_class = _flatten_pen_class()
    out: dict[str, dict] = {}
    for face, path in FACES.items():
        font = TTFont(path)
        glyphs = glyph_outlines(font, TEXT, pen_class)
        names = font["name"]
        out[face] = {"font": Path(path).name, "units_per_em": font["head"].unitsPerEm,
                     "copyright": names.getDebugName(0), "licence": names.getDebugName(13) or "",
                     "glyphs": glyphs}
    (HERE / "numeral_glyphs.json").write_text(json.dumps(out, separators=(",", ":")),
                                              encoding="utf-8")


if __name__ == "__main__":
    main()
