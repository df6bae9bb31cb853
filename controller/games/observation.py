"""What the camera saw once the table settled, and what a game makes of it. Pure data.

The vision side reports every object on the felt with its label (None when it abstains), a
confidence, where it is and which table zone it lies in. A mode's engine turns that into the
commands it means (`Engine.read`), or says why the banker must look.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.errors import IllegalCommand, Words
from controller.protocol import Command

#: Table zones (set in the table geometry): where dice are thrown, where set-aside dice rest.
ZONES = ("rolling", "tray", "outside")
#: Camera labels of standard pip dice (equipment/pip-dice.json), and the value each shows.
PIP_LABELS: Mapping[str, int] = {f"PIP-{d}": d for d in range(1, 7)}


@dataclass(frozen=True)
class Seen:
    """One object on the felt as the recognizer saw it."""

    label: str | None
    confidence: float
    center: tuple[float, float] = (0.0, 0.0)
    zone: str = "rolling"
    cocked: bool = False
    #: "die", or "obstruction" for a hand or anything that is not a die.
    kind: str = "die"
    #: The recognizer's best labels with their scores, best first (for the banker's taps).
    candidates: tuple[tuple[str, float], ...] = ()

    @classmethod
    def from_json(cls, data: Mapping) -> Seen:
        """From the recognizer's JSON object (`feltbank recognize`), with an optional zone."""
        try:
            label = data.get("label")
            zone = data.get("zone") or ("rolling" if data.get("on_felt", True) else "outside")
            seen = cls(
                label=None if label is None else str(label),
                confidence=float(data.get("confidence", 0.0)),
                center=tuple(float(v) for v in data.get("center", (0, 0)))[:2],
                zone=str(zone),
                cocked=bool(data.get("cocked", False)),
                kind=str(data.get("kind", "die")),
                candidates=tuple((str(c[0]), float(c[1])) for c in data.get("candidates", ())),
            )
        except (TypeError, ValueError, IndexError, AttributeError) as exc:
            raise IllegalCommand("an observed object is malformed: %(why)s",
                                 why=str(exc)) from None
        if seen.zone not in ZONES:
            raise IllegalCommand("zone %(zone)s: one of %(zones)s", zone=repr(seen.zone),
                                 zones=ZONES)
        return seen

    def to_json(self) -> dict:
        return {"label": self.label, "confidence": self.confidence, "center": list(self.center),
                "zone": self.zone, "cocked": self.cocked, "kind": self.kind,
                "candidates": [list(c) for c in self.candidates]}


@dataclass(frozen=True)
class Observation:
    """Every object on the settled table."""

    objects: tuple[Seen, ...]

    @classmethod
    def from_json(cls, data: Mapping) -> Observation:
        objects = data.get("objects") if isinstance(data, Mapping) else None
        if not isinstance(objects, list):
            raise IllegalCommand("an observation is {\"objects\": [...]} as `feltbank recognize` "
                                 "prints it")
        return cls(tuple(Seen.from_json(o) for o in objects))

    def to_json(self) -> dict:
        return {"objects": [o.to_json() for o in self.objects]}

    def corrected(self, labels: Mapping[int, str]) -> Observation:
        """The observation with the banker's labels for some objects (by index): certain now."""
        objects = list(self.objects)
        for index, label in labels.items():
            if not 0 <= index < len(objects):
                raise IllegalCommand("there is no object %(index)s in this observation (0 to "
                                     "%(last)s)", index=index, last=len(objects) - 1)
            objects[index] = Seen(label, 1.0, objects[index].center, objects[index].zone,
                                  False, "die", objects[index].candidates)
        return Observation(tuple(objects))

    def dice(self, zone: str | None = None) -> list[Seen]:
        return [o for o in self.objects if o.kind == "die" and (zone is None or o.zone == zone)]


@dataclass(frozen=True)
class Reading:
    """What a game makes of an observation: the commands it means, or why the banker must look.

    `commands` are set only when the observation fits the game and every die is read with
    confidence; then the table may apply them at once. `uncertain` are the indexes (into the
    observation's objects) of dice read without enough confidence: the banker confirms or
    corrects those.
    """

    commands: tuple[Command, ...] = ()
    #: Why the banker must look, in words (`Words`, or plain English strings).
    problems: tuple[Words | str, ...] = ()
    uncertain: tuple[int, ...] = ()
    #: What the dice show as read, for the screens: die name -> label (or None).
    faces: Mapping[str, str | None] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        return bool(self.commands) and not self.problems and not self.uncertain

    def to_json(self) -> dict:
        return {"ready": self.ready, "commands": [c.to_json() for c in self.commands],
                "problems": [str(p) for p in self.problems], "uncertain": list(self.uncertain),
                "faces": dict(self.faces)}


def pip_dice(observation: Observation, min_confidence: float
             ) -> tuple[list[int], dict[str, str], list[str], list[int]]:
    """The pip dice thrown into the rolling area (dice in the tray are set aside): (their
    values, their faces by die {"die-1": "PIP-4", ...}, the problems seen, the indices of
    the objects not read surely enough)."""
    problems: list[str] = []
    uncertain: list[int] = []
    dice: list[int] = []
    for index, seen in enumerate(observation.objects):
        if seen.kind != "die":
            problems.append("something that is not a die is on the felt (a hand?)")
        elif seen.zone != "rolling":
            continue
        elif seen.cocked:
            problems.append(f"a die ({seen.label or 'unread'}) is cocked: it is thrown again")
        elif seen.label is None or seen.confidence < min_confidence:
            uncertain.append(index)
        elif seen.label not in PIP_LABELS:
            problems.append(f"{seen.label} is not a face of a pip die (PIP-1 to PIP-6)")
        else:
            dice.append(PIP_LABELS[seen.label])
    return dice, {f"die-{i + 1}": f"PIP-{d}" for i, d in enumerate(dice)}, problems, uncertain
