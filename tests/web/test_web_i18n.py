"""The dashboard in French: every word marked for translation has its French in the catalog,
the compiled catalog is current, and a page rendered in French keeps no English text."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from controller.config import schema
from controller.games.base import Command
from controller.games.fortunes_winds import COMBINATIONS
from controller.games.hazard import BET_WORDS
from controller.modes import find_mode, modes
from controller.odds.fortunes_winds import STRATEGY_WORDS
from controller.settings import Name
from tests.web.support import csrf_of
from web.i18n import SCRIPT_WORDS, TRANSLATIONS
from web.modes import BET_RESULTS, RESULT_WORDS, page_for
from web.modes.fortunes_winds import FELT

ROOT = Path(__file__).resolve().parents[2]
PO = TRANSLATIONS / "fr" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")
KEYWORDS = {"t": None, "N_": None, "tn": (1, 2)}
METHODS = [("web/**.py", "python"), ("web/templates/**.html", "jinja2"),
           ("controller/**.py", "python")]


def french():
    with PO.open("rb") as f:
        return read_po(f)


def phrase_words(words) -> set[str]:
    """The words a screen translates of a text or a (template, values) phrase: the template
    and its word values, not its names (`Name`) or numbers."""
    if not isinstance(words, tuple):
        return {words}
    template, values = words
    return {template} | {v for v in values.values()
                         if isinstance(v, str) and not isinstance(v, Name)}


def marked_words() -> set[str]:
    words = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), METHODS, keywords=KEYWORDS, comment_tags=()):
        # A plural's entry is found by its singular (and holds the plural forms).
        words.add(message[0] if isinstance(message, tuple) else message)
    words |= set(SCRIPT_WORDS) | set(RESULT_WORDS.values()) | set(BET_WORDS.values())
    words |= {w for row in FELT for _, name, text in row for w in (name, text)}
    words |= set(BET_RESULTS.values())
    for mode in modes().values():
        for w in mode.bet_words.values():
            words |= phrase_words(w)
    words |= {c.name for c in COMBINATIONS} | set(STRATEGY_WORDS.values())
    for setting in schema().values():  # what the settings page shows of each
        words |= {setting.accepts} if setting.accepts else set()
        words |= phrase_words(setting.words or setting.help)
    return {w for w in words if w}


def test_every_marked_word_has_french():
    catalog = french()
    words = marked_words()
    assert len(words) > 150  # the extraction finds them
    missing = sorted(w for w in words
                     if not (catalog.get(w) and catalog.get(w).string))
    assert missing == [], f"{len(missing)} words have no French in {PO.relative_to(ROOT)}"


def literals(path: Path) -> set[str]:
    return {w for _, w in re.findall(r"""\bt\((['"])(.+?)\1\)""", path.read_text())}


@pytest.mark.parametrize("name", sorted(modes()))
def test_every_word_of_each_modes_page_has_french(name):
    """A mode's own words: its page's template, its result words (a mode with no page of its
    own uses the generic page, in English until it has one)."""
    page, mode = page_for(name), find_mode(name)
    if not mode.page_ref:
        pytest.skip("the generic page")
    words = set(mode.result_words.values()) | literals(ROOT / "web" / "templates" / page.template)
    catalog = french()
    missing = sorted(w for w in words if not (catalog.get(w) and catalog.get(w).string))
    assert missing == [], f"{name}: no French in {PO.relative_to(ROOT)}"


def _key(text):
    return tuple(text) if isinstance(text, list | tuple) else text


def test_the_compiled_catalog_is_the_po():
    with MO.open("rb") as f:
        compiled = {_key(m.id): _key(m.string) for m in read_mo(f) if m.id}
    source = {_key(m.id): _key(m.string) for m in french()
              if m.id and m.string and not m.fuzzy}
    assert compiled == source, "run: pybabel compile -d web/translations"


def test_plurals_follow_the_language(app):
    from web.i18n import tn

    with app.test_request_context():
        assert tn("%(num)d roll", "%(num)d rolls", 1) == "1 roll"
        assert tn("%(num)d roll", "%(num)d rolls", 3) == "3 rolls"
    with app.test_request_context():
        from flask import session

        session["lang"] = "fr"
        # French takes the singular for 0 and 1.
        assert tn("%(num)d roll", "%(num)d rolls", 0) == "0 lancer"
        assert tn("%(num)d roll", "%(num)d rolls", 2) == "2 lancers"


# --- no English on a French page ----------------------------------------------------------

#: Words written the same in both languages, and names that are never translated.
SAME = {"table", "journal", "mode", "position", "total", "minimum", "maximum", "source",
        "normal", "bonus", "stop", "net", "csv", "jsonl", "id", "ok", "feltbank", "réglages",
        "fortunes", "winds", "hazard", "moon", "lord", "sun", "lady", "tea", "daikoku",
        "ginawa", "sanzo", "ujikeme", "boss", "screen", "english", "français", "seq", "at",
        "kind", "banker", "viewer", "info", "fps", "jpeg", "px", "gpio", "cups", "usb", "serial",
        "escpos", "sqlite", "api", "pi", "de", "en", "le", "la", "console"}


class Text(HTMLParser):
    """The text nodes a person sees (no scripts, styles, or parts marked translate="no")."""

    def __init__(self):
        super().__init__()
        self.nodes: list[str] = []
        self.skip = 0
        self.stack: list[bool] = []

    VOID = {"br", "img", "input", "meta", "link", "hr", "source", "wbr"}

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        attrs = dict(attrs)
        hidden = (tag in ("script", "style", "code", "svg") or attrs.get("translate") == "no"
                  or attrs.get("lang") == "ja")
        self.stack.append(hidden)
        self.skip += hidden

    def handle_endtag(self, tag):
        if tag in self.VOID or not self.stack:
            return
        self.skip -= self.stack.pop()

    def handle_data(self, data):
        text = " ".join(data.split())
        if text and not self.skip:
            self.nodes.append(text)


def pieces(nodes):
    """Each text node, and each sentence or part of it (after ". ", "; ", "· "): a sentence
    left in English beside a translated one is English left too."""
    for node in nodes:
        yield node
        yield from (p for p in re.split(r"(?<=[.;!?·])\s+", node) if p != node)


def alike() -> set[str]:
    """The words of the catalog's entries that French writes as English does ("Phase")."""
    return {w.lower() for m in french() if isinstance(m.id, str) and m.id == m.string
            for w in re.findall(r"[A-Za-zÀ-ÿ']+", m.id)}


def english_left(english_html: str, french_html: str, names=()) -> list[str]:
    """Text nodes of the French page that are the English page's too and hold an English
    word (not a name, a face label, a number, a word both languages write alike, or one of
    `names`: words the players typed, a name or a character's aspect)."""
    en, fr = Text(), Text()
    en.feed(english_html)
    fr.feed(french_html)
    same = SAME | alike() | {w.lower() for w in names}
    english = set(pieces(en.nodes))
    left = []
    for node in dict.fromkeys(pieces(fr.nodes)):
        if node not in english:
            continue
        words = [w for w in re.findall(r"[A-Za-zÀ-ÿ']+", node)
                 if len(w) > 1 and not w.isupper() and w.lower() not in same]
        if words:
            left.append(node)
    return left


@pytest.fixture
def played(table):
    """One whole Fortunes and Winds turn, settled, and the next turn's bets, sent from where
    commands come from (the journal page names each source)."""
    for n, (kind, args, source) in enumerate((
            ("bet", {"player": "Ginawa", "bet": "standard", "amount": 1}, "dashboard:boss"),
            ("bet", {"player": "Ujikeme", "bet": "daikoku-against", "amount": 3}, "console"),
            ("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}, "camera"),
            ("set-aside", {"player": "Ginawa", "dice": ["NORTH", "EAST"]}, "dashboard:boss"),
            ("roll", {"faces": ["WEST", "AIR", "SUN"]}, "camera, corrected by boss"),
            ("set-aside", {"player": "Ginawa", "dice": ["WEST"]}, "button"),
            ("roll", {"faces": ["AIR", "FORTUNES"]}, "config"))):
        table.submit(Command(kind, args, f"played-{n}"), source=source)
    return table


PAGES = ("/", "/money/", "/money/statements", "/settings/", "/calibration/", "/users")


@pytest.mark.parametrize("path", PAGES)
def test_no_english_left_on_a_french_page(client, banker, played, path):
    english = client.get(path)
    assert english.status_code == 200, english.text
    client.post("/language/fr", data={"csrf_token": banker.token})
    french_page = client.get(path)
    assert french_page.status_code == 200
    assert 'lang="fr"' in french_page.text
    left = english_left(english.text, french_page.text)
    assert not left, "English left on the French page:\n" + "\n".join(left)


def test_no_english_left_on_the_wizard_and_the_login_page(client, auth):
    """The pages before anyone is logged in: the first-run wizard, then the login page."""
    for path in ("/setup", "/login"):
        if path == "/login":
            auth.setup()
            auth.logout()
        english = client.get(path)
        assert english.status_code == 200, english.text
        client.post("/language/fr", data={"csrf_token": csrf_of(english.text)})
        french_page = client.get(path).text
        assert 'lang="fr"' in french_page
        left = english_left(english.text, french_page)
        assert not left, f"English left on the French {path}:\n" + "\n".join(left)
        client.post("/language/en", data={"csrf_token": csrf_of(french_page)})
