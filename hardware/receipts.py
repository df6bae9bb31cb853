"""Receipt layouts: small line templates (Jinja text plus @-directives) drawn with python-escpos.

A template is a text file named after the receipt kind (`bet-slip.txt`). A game mode adds
its own layout by placing `templates/MODE/KIND.txt`; it wins over the shared one. Each line
may start with directives:

    @center @left @right   alignment        @bold @double   emphasis for the line
    @rule                  a full-width line
    @pair LABEL | VALUE    label on the left, value on the right (on two lines if long)
    @qr TEXT               a QR code          @cut   feed and cut
    @wrap TEXT             text wrapped at the paper's width (other lines are cut there)

Receipts speak the printer's language (`printer.language`): every word of a layout is
marked `{{ _("Stake") }}` (jinja2's i18n extension) and found in the gettext catalog of the
`receipts` domain, `CATALOGS/LANG/LC_MESSAGES/receipts.mo`, loaded by path: the running table
hands the folder (the dashboard's `web/translations`, where `receipts.po` sits beside the
dashboard's `messages.po`; hardware/ imports nothing of web/). Words that arrive as data (a
round's result in words, a bet's result) are looked up in the same catalog when printed; a
bet in words arrives as its template and values apart (`bet_words`, printed by `say`).
`tests/hardware/test_hardware_receipts.py` fails while a receipt word has no French; to add
words see docs/hardware.md, "Receipts in French".
"""

from __future__ import annotations

import gettext
import textwrap
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).with_name("templates")
#: Characters per line in font A.
COLUMNS = {58: 32, 80: 48}
_STYLE = ("@center", "@left", "@right", "@bold", "@double")
#: The languages a receipt can be printed in (English is the layouts' own).
LANGUAGES = ("en", "fr")
#: The gettext domain of the receipts' words.
DOMAIN = "receipts"


def N_(text: str) -> str:  # noqa: N802 - the gettext convention's name
    """Mark `text` for the receipts catalog; it is translated where it is printed."""
    return text


#: Words printed from code or data rather than a layout.
COPY = N_("*** COPY ***")
#: A settled bet's result (the `bet-settled` event's `result`), as the payout slip prints it.
BET_RESULTS = {"win": N_("won"), "lose": N_("lost"), "push": N_("stake returned")}


@cache
def translations(language: str = "en", catalogs: str = "") -> gettext.NullTranslations:
    """The receipts' words in `language`, from the catalog folder `catalogs`."""
    if language not in LANGUAGES:
        raise ValueError(f"receipts are printed in {', '.join(LANGUAGES)}, not {language!r}")
    if language == "en":
        return gettext.NullTranslations()
    found = gettext.find(DOMAIN, catalogs, [language]) if catalogs else None
    if not found:
        raise ValueError(f"no {language} receipts catalog: expected "
                         f"{catalogs or 'CATALOGS'}/{language}/LC_MESSAGES/{DOMAIN}.mo "
                         "(compile it with pybabel compile -D receipts)")
    with open(found, "rb") as f:
        return gettext.GNUTranslations(f)


@cache
def environment(language: str = "en", catalogs: str = "") -> jinja2.Environment:
    """The layouts' Jinja environment with the receipts' words in `language`."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(translations(language, catalogs), newstyle=True)
    return env


def say(phrase: Mapping[str, Any], words: gettext.NullTranslations) -> str:
    """Words that arrive as data with their template apart (a bet in words: `template`,
    `values`, and `names`, the values printed as they are) in the receipt's language."""
    values = {k: v if k in phrase["names"] or not isinstance(v, str) else words.gettext(v)
              for k, v in phrase["values"].items()}
    return words.gettext(phrase["template"]) % values


def template_name(kind: str, mode: str | None = None) -> str:
    """The template file for `kind`: the mode's own if it has one."""
    if mode and (TEMPLATES / mode / f"{kind}.txt").is_file():
        return f"{mode}/{kind}.txt"
    if not (TEMPLATES / f"{kind}.txt").is_file():
        raise ValueError(f"no receipt layout {kind!r}: layouts are "
                         + ", ".join(sorted(p.stem for p in TEMPLATES.glob("*.txt"))))
    return f"{kind}.txt"


def kinds() -> list[str]:
    return sorted(p.stem for p in TEMPLATES.glob("*.txt"))


def draw(printer, kind: str, data: Mapping[str, Any], *, paper_mm: int = 80,
         mode: str | None = None, copy: bool = False, language: str = "en",
         catalogs: str | Path = "") -> None:
    """Draw receipt `kind` with `data` on a python-escpos printer object, in `language`
    (the catalog read from the folder `catalogs`)."""
    width = COLUMNS[paper_mm]
    words = translations(language, str(catalogs))
    text = environment(language, str(catalogs)).get_template(
        template_name(kind, mode)).render(**data, bet_result=lambda r: words.gettext(
            BET_RESULTS.get(r, r)), say=lambda w: say(w, words))
    if copy:
        printer.set(align="center", bold=True, double_height=True, double_width=True)
        printer.textln(words.gettext(COPY))
    for line in text.splitlines():
        style = {"align": "left", "bold": False, "double_height": False, "double_width": False}
        while True:
            word = line.split(" ", 1)[0]
            if word not in _STYLE:
                break
            line = line[len(word):].lstrip(" ")
            if word == "@bold":
                style["bold"] = True
            elif word == "@double":
                style["double_height"] = style["double_width"] = True
            else:
                style["align"] = word[1:]
        columns = width // 2 if style["double_width"] else width
        printer.set(**style)
        if line.startswith("@rule"):
            printer.textln("-" * columns)
        elif line.startswith("@pair "):
            label, _, value = line[6:].partition("|")
            label, value = label.strip(), value.strip()
            if len(label) + 1 + len(value) <= columns:
                printer.textln(f"{label}{' ' * (columns - len(label) - len(value))}{value}")
            else:  # too long for one line: the label, then the value to the right below it
                for part in textwrap.wrap(label, columns):
                    printer.textln(part)
                for part in textwrap.wrap(value, columns):
                    printer.textln(part.rjust(columns))
        elif line.startswith("@qr "):
            printer.set(align="center")
            printer.qr(line[4:].strip(), size=6, native=True)
        elif line.startswith("@wrap "):
            for part in textwrap.wrap(line[6:].strip(), columns) or [""]:
                printer.textln(part)
        elif line.startswith("@cut"):
            printer.cut()
        else:
            printer.textln(line[:columns] if len(line) > columns else line)
    printer.set(align="left", bold=False, double_height=False, double_width=False)


def render(kind: str, data: Mapping[str, Any], *, paper_mm: int = 80, mode: str | None = None,
           copy: bool = False, profile: str | None = None, language: str = "en",
           catalogs: str | Path = "") -> bytes:
    """The ESC/POS bytes of a receipt, drawn on python-escpos's Dummy printer."""
    from escpos.printer import Dummy

    dummy = Dummy(profile=profile or None)
    draw(dummy, kind, data, paper_mm=paper_mm, mode=mode, copy=copy, language=language,
         catalogs=catalogs)
    return dummy.output
