"""The die sets the recognizer knows by name: faces, labels and the art's text."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

#: The dice and decks as data (the `equipment` package's files): the rules and the dashboard
#: read the same files. Read here by path: vision imports nothing but numpy and cv2.
EQUIPMENT = Path(__file__).resolve().parents[1] / "equipment"


@dataclass(frozen=True)
class Die:
    """One physical die: its name, body colour, ink colour and six face labels."""

    name: str
    body_bgr: tuple[int, int, int]
    ink_bgr: tuple[int, int, int]
    faces: tuple[str, str, str, str, str, str]


@dataclass(frozen=True)
class DieSet:
    """A set of labelled dice with the text printed on each label."""

    name: str
    dice: tuple[Die, ...]
    # label -> the big sign printed on it (a kanji, a digit…)
    glyphs: dict[str, str] = field(hash=False, compare=False)

    @property
    def labels(self) -> list[str]:
        """Every distinct label, in die order."""
        out: list[str] = []
        for die in self.dice:
            for face in die.faces:
                if face not in out:
                    out.append(face)
        return out

    def die_of(self, label: str) -> Die:
        """The die that carries this label."""
        for die in self.dice:
            if label in die.faces:
                return die
        raise KeyError(label)


def _equipment(name: str) -> dict:
    return json.loads((EQUIPMENT / f"{name}.json").read_text(encoding="utf-8"))


def read_die_set(name: str) -> DieSet:
    """The die set `equipment/NAME.json`, the file the rules and the dashboard read too."""
    data = _equipment(name)
    dice = tuple(Die(d["name"], tuple(d["body_bgr"]), tuple(d["ink_bgr"]), tuple(d["faces"]))
                 for d in data["dice"])
    return DieSet(name=data["name"], dice=dice, glyphs=dict(data.get("glyphs", {})))


FORTUNES_AND_WINDS = read_die_set("fortunes-and-winds")

#: Every labelled die set in equipment/ (dice whose labels have printed colours), by name.
DIE_SETS = {p.stem: read_die_set(p.stem) for p in sorted(EQUIPMENT.glob("*.json"))
            if all("body_bgr" in d for d in _equipment(p.stem).get("dice") or [{}])}
