"""Every word the templates translate has its French."""

from __future__ import annotations

import re
from pathlib import Path

from web.i18n import FRENCH, SCRIPT_WORDS
from web.modes import RESULT_WORDS
from web.modes.fortunes_winds import FELT
from web.modes.hazard import BET_WORDS

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"


def test_every_literal_the_templates_translate_has_french():
    words = set()
    for path in TEMPLATES.rglob("*.html"):
        words |= set(re.findall(r"""\bt\((['"])(.+?)\1\)""", path.read_text()))
    literals = {w for _, w in words}
    literals |= set(SCRIPT_WORDS) | set(RESULT_WORDS.values()) | set(BET_WORDS.values())
    literals |= {words for row in FELT for _, words in row}
    assert len(literals) > 60  # the pattern finds them
    missing = sorted(w for w in literals if w not in FRENCH)
    assert missing == []
