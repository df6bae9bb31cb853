"""Every word the templates translate has its French: the shared words, each mode's own."""

from __future__ import annotations

import re
from pathlib import Path

from controller.modes import find_mode, modes
from web.i18n import FRENCH, SCRIPT_WORDS, mode_words
from web.modes import page_for
from web.modes.fortunes_winds import FELT

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"


def literals(path: Path) -> set[str]:
    return {w for _, w in re.findall(r"""\bt\((['"])(.+?)\1\)""", path.read_text())}


def test_every_literal_the_shared_templates_translate_has_french():
    words = set(SCRIPT_WORDS)
    for path in TEMPLATES.rglob("*.html"):
        if path.parent.name != "modes":
            words |= literals(path)
    assert len(words) > 60  # the pattern finds them
    assert sorted(w for w in words if w not in FRENCH) == []


def test_every_word_of_each_modes_page_has_french():
    for name in modes():
        page, mode = page_for(name), find_mode(name)
        if not mode.page_ref:
            continue  # the generic page: a mode's first step, in English until it has a page
        words = set(mode.result_words.values()) | literals(TEMPLATES / page.template)
        if name == "fortunes-winds":
            words |= {words for row in FELT for _, words in row}
        known = FRENCH | page.french
        assert sorted(w for w in words if w not in known) == [], name
        assert mode_words().items() >= page.french.items()
