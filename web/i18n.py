"""The dashboard's languages, with gettext message catalogs (Babel and Flask-Babel).

English is the source language: every word a user sees is written in English in the code and
marked for translation (`t("...")` in templates and Python, `tn(one, many, n)` for plurals,
`N_("...")` for words kept in tables and translated later; the rules' refusals are literal
templates with named values, `IllegalCommand("...%(name)s...", name=...)` and `Words(...)`,
translated by `refusal`). The French lives in `web/translations/fr/LC_MESSAGES/messages.po`,
compiled to `messages.mo` beside it; every mode's words are there too.

To add or change words (docs/dashboard.md, "Languages"):
    pybabel extract -F web/babel.cfg -k t -k N_ -k tn:1,2 -o /tmp/messages.pot .
    pybabel update -i /tmp/messages.pot -d web/translations
    (translate the new entries in the .po)
    pybabel compile -d web/translations
`tests/web/test_web_i18n.py` fails while any marked word has no French, or while the .mo is
older than the .po.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from flask import current_app, has_request_context, session
from flask_babel import Babel, format_decimal, gettext, ngettext

from controller.errors import Words, fill
from controller.settings import Name

LANGUAGES = ("en", "fr")
TRANSLATIONS = Path(__file__).resolve().parent / "translations"

#: Words the scripts need (handed to app.js already translated).
SCRIPT_WORDS = ("Live", "Reconnecting…", "uncertain", "Confirm",
                "Tap the face of each uncertain die, even if it is right:",
                "no answer from the table: check the network", "tap the face of the")


def N_(text: str) -> str:  # noqa: N802 - the gettext convention's name
    """Mark `text` for the catalog without translating it now (it is translated where shown)."""
    return text


#: The journal's words for command, argument and event names (ids in the journal).
JOURNAL_WORDS = {
    # commands
    "open": N_("open the table"), "join": N_("join"), "leave": N_("leave"),
    "buy-in": N_("buy in"), "cash-out": N_("cash out"), "configure": N_("change the settings"),
    "bet": N_("bet"), "roll": N_("roll"), "set-aside": N_("set aside"),
    "pass": N_("pass the dice"), "call-main": N_("call a main"), "throw": N_("throw"),
    # arguments
    "player": N_("player"), "amount": N_("amount"), "faces": N_("faces"), "dice": N_("dice"),
    "mode": N_("game"), "main": N_("main"),
    # events
    "opened": N_("table opened"), "joined": N_("joined"), "left": N_("left"),
    "bought-in": N_("bought in"), "cashed-out": N_("cashed out"),
    "configured": N_("settings changed"), "bet-placed": N_("bet placed"),
    "bet-settled": N_("bet settled"), "rolled": N_("rolled"), "dice-passed": N_("dice passed"),
    "turn-ended": N_("turn ended"), "round-ended": N_("round ended"),
    "main-called": N_("main called"), "thrown": N_("thrown"),
}


#: Where the camera saw a die (controller/games/observation.py ZONES), in words.
ZONE_WORDS = {"rolling": N_("rolling area"), "tray": N_("tray"), "outside": N_("off the felt")}


def word(key: str) -> str:
    """A command, argument or event name of the journal in the page's language."""
    return t(JOURNAL_WORDS.get(key) or mode_journal_words().get(key, key))


#: Who or what sends commands (the journal's `source`, before any ":user"), in words.
SOURCE_WORDS = {"dashboard": N_("dashboard"), "camera": N_("camera"), "console": N_("console"),
                "button": N_("button"), "config": N_("settings file")}


def source_words(source: str) -> str:
    """Who or what sent a command, in words: "dashboard:boss" is "dashboard · boss"."""
    if source.startswith("camera, corrected by "):
        return t("camera, corrected by %(who)s") % {"who": source[len("camera, corrected by "):]}
    where, _, who = source.partition(":")
    where = t(SOURCE_WORDS.get(where, where))
    return f"{where} · {who}" if who else where


def language() -> str:
    """The page's language: the screen's choice, else the table's mode's own (Risque speaks
    French, `ModePage.default_language`), else the dashboard's setting."""
    lang = None
    if has_request_context():
        lang = session.get("lang")
    lang = lang or _mode_language() or current_app.config.get("LANGUAGE", "en")
    return lang if lang in LANGUAGES else "en"


def _mode_language() -> str:
    table = current_app.extensions.get("feltbank.table")
    state = table.state if table is not None else None
    if state is None:
        return ""
    from web.modes import page_for

    return page_for(state.mode).default_language


def init_app(app) -> None:
    Babel(app, locale_selector=language, default_translation_directories=str(TRANSLATIONS))


def t(text: str) -> str:
    """`text` in the session's language (unchanged when the catalog has no entry)."""
    if not text or not has_request_context():
        return text  # outside a page (a thread, a test): the English
    return gettext(text)


def say(words) -> str:
    """Words in the page's language: a plain text, or a template and its values
    (`controller.settings.phrase`, or `controller.errors.Words`) translated apart: words
    translated, names (`Name`) and numbers left as they are, a list item by item, Words within
    as Words."""
    if isinstance(words, Words):
        return fill(words.template, words.values, _word)
    if not isinstance(words, tuple):
        return t(words)
    template, values = words
    return fill(template, values, _word)


def _word(text: str) -> str:
    return text if isinstance(text, Name) else t(text)


@cache
def mode_journal_words() -> dict[str, str]:
    """Every mode page's journal words (`ModePage.journal_words`)."""
    from controller.modes import modes
    from web.modes import page_for

    words: dict[str, str] = {}
    for name in modes():
        words.update(page_for(name).journal_words)
    return words


def refusal(exc: Exception) -> str:
    """Why a command was refused, in the page's language: a rules' template and its values
    are translated apart (a name, a bet, a face; a list item by item; `Words` within)."""
    template = getattr(exc, "template", None)
    if template is None:
        return t(str(exc))
    try:
        return say((template, getattr(exc, "values", None) or {}))
    except (KeyError, TypeError, ValueError):  # a translation that lost a placeholder
        return str(exc)


def tn(singular: str, plural: str, n: int) -> str:
    """`n` and a noun in the session's language, singular or plural as the language wants
    (`%(num)d` in the texts is replaced by `n`): tn("%(num)d roll", "%(num)d rolls", 1)."""
    if not has_request_context():
        return (singular if n == 1 else plural) % {"num": n}
    return ngettext(singular, plural, n)


def number(n) -> str:
    """A number written as the session's language writes it (1,250 / 1 250)."""
    return format_decimal(n)


def script_words() -> dict[str, str]:
    return {w: t(w) for w in SCRIPT_WORDS}
