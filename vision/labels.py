"""The die sets the recognizer knows by name: faces, labels and the art's text."""

from __future__ import annotations

from dataclasses import dataclass, field


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


FORTUNES_AND_WINDS = DieSet(
    name="fortunes-and-winds",
    dice=(
        Die("EARTH", (60, 150, 200), (30, 60, 110),
            ("EARTH", "EARTH", "EARTH", "NORTH", "NORTH", "RICE")),
        Die("WATER", (170, 110, 40), (140, 70, 10),
            ("WATER", "WATER", "WATER", "EAST", "EAST", "FISH")),
        Die("FIRE", (50, 50, 190), (30, 30, 170),
            ("FIRE", "FIRE", "FIRE", "WEST", "WEST", "TREE")),
        Die("AIR", (225, 228, 230), (90, 110, 40),
            ("AIR", "AIR", "AIR", "SOUTH", "SOUTH", "BIRD")),
        Die("MOON", (28, 26, 26), (20, 20, 20),
            ("VOID", "VOID", "FORTUNES", "FORTUNES", "SUN", "MOON")),
    ),
    glyphs={
        "EARTH": "土", "NORTH": "北", "RICE": "米",
        "WATER": "水", "EAST": "東", "FISH": "魚",
        "FIRE": "火", "WEST": "西", "TREE": "木",
        "AIR": "風", "SOUTH": "南", "BIRD": "鳥",
        "VOID": "空", "FORTUNES": "運", "SUN": "陽", "MOON": "月",
    },
)

DIE_SETS = {FORTUNES_AND_WINDS.name: FORTUNES_AND_WINDS}
