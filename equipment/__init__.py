"""The dice and decks of the game modes, as data: one JSON file per set, read by everyone.

The rules (`controller/games/`), the recognizer (`vision/labels.py`, by its own small reader:
vision imports nothing of `controller/`) and the dashboard read the same file, so a face, a
colour or a glyph is written once. A file is `equipment/NAME.json`:

    {"name": NAME, "kind": "dice", "title": ..., "reader": "pips" | "numerals" | "d20" (the
     camera's reader, app/readers.py; none: labelled dice), "dice": [{"name", "colour",
     "faces", "body_bgr", "ink_bgr"}...], "glyphs": {LABEL: SIGN}}
    {"name": NAME, "kind": "deck", "title": ..., "cards": [{"label", ...}...]}

This package holds data and this reader only: no rules, no I/O beyond reading its own files.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

KINDS = ("dice", "deck")


def names() -> list[str]:
    """Every set shipped here, by name."""
    return sorted(p.name[:-5] for p in resources.files(__name__).iterdir()
                  if p.name.endswith(".json"))


@cache
def _read(name: str) -> str:
    return (resources.files(__name__) / f"{name}.json").read_text(encoding="utf-8")


def load(name: str) -> dict:
    """The set called `name` as a fresh dict; ValueError naming the sets there are."""
    if not isinstance(name, str) or name not in names():
        raise ValueError(f"no dice or deck called {name!r}; sets: {', '.join(names())}")
    data = json.loads(_read(name))
    if data.get("name") != name or data.get("kind") not in KINDS:
        raise ValueError(f"equipment/{name}.json must say \"name\": {name!r} and \"kind\": "
                         f"one of {', '.join(KINDS)}")
    return data
