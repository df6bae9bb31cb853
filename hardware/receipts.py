"""Receipt layouts: small line templates (Jinja text plus @-directives) drawn with python-escpos.

A template is a text file named after the receipt kind (`bet-slip.txt`). A game mode adds
its own layout by placing `templates/MODE/KIND.txt`; it wins over the shared one. Each line
may start with directives:

    @center @left @right   alignment        @bold @double   emphasis for the line
    @rule                  a full-width line
    @pair LABEL | VALUE    label on the left, value on the right
    @qr TEXT               a QR code          @cut   feed and cut
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).with_name("templates")
#: Characters per line in font A.
COLUMNS = {58: 32, 80: 48}
_STYLE = ("@center", "@left", "@right", "@bold", "@double")

_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(TEMPLATES)),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    autoescape=False,
)


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
         mode: str | None = None, copy: bool = False) -> None:
    """Draw receipt `kind` with `data` on a python-escpos printer object."""
    width = COLUMNS[paper_mm]
    text = _env.get_template(template_name(kind, mode)).render(**data)
    if copy:
        printer.set(align="center", bold=True, double_height=True, double_width=True)
        printer.textln("*** COPY ***")
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
            gap = max(1, columns - len(label) - len(value))
            printer.textln(f"{label}{' ' * gap}{value}")
        elif line.startswith("@qr "):
            printer.set(align="center")
            printer.qr(line[4:].strip(), size=6, native=True)
        elif line.startswith("@cut"):
            printer.cut()
        else:
            printer.textln(line[:columns] if len(line) > columns else line)
    printer.set(align="left", bold=False, double_height=False, double_width=False)


def render(kind: str, data: Mapping[str, Any], *, paper_mm: int = 80, mode: str | None = None,
           copy: bool = False, profile: str | None = None) -> bytes:
    """The ESC/POS bytes of a receipt, drawn on python-escpos's Dummy printer."""
    from escpos.printer import Dummy

    dummy = Dummy(profile=profile or None)
    draw(dummy, kind, data, paper_mm=paper_mm, mode=mode, copy=copy)
    return dummy.output
