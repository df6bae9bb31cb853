"""The reader of a running table, chosen from its mode's equipment: one seam for every kind.

    labels    labelled dice read with a calibration profile (vision.recognizer)
    pips      standard pip dice, no calibration (vision.pips)
    numerals  the Namaste numeral dice, the turquoise die by colour (vision.numerals)
    d20       the Rugen die, a d20 read to its Rugen face, no calibration (vision.d20)
    cards     the printed Roche deck from its own art, or a learned deck (vision.cards)

A mode's `equipment/NAME.json` says which (`"reader"`; a deck is read as cards, dice without
it are labelled dice). Every reader turns a frame into the camera loop's object dicts (the
shape `feltbank recognize --json` prints, with the labels the engines read: "PIP-3",
"TURQUOISE-1-7", "3d", a card's label) and the table zone each lies in.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from controller.errors import ConfigError

log = logging.getLogger(__name__)

#: Every kind a running table reads, and what the dashboard's camera panel says of it.
KINDS = {
    "labels": "labelled dice",
    "pips": "pip dice",
    "numerals": "numeral dice",
    "d20": "the Rugen die",
    "cards": "the cards",
}


def reader_kind(equipment_name: str) -> str:
    """The kind of reader for `equipment/NAME.json`; ConfigError when there is none."""
    import equipment

    if not equipment_name:
        raise ConfigError("camera: this mode names no dice or deck (its Mode's equipment), "
                          "so the camera has nothing to read; set camera.source = \"none\"")
    try:
        data = equipment.load(equipment_name)
    except ValueError as exc:
        raise ConfigError(f"camera: {exc}") from None
    kind = data.get("reader") or ("cards" if data["kind"] == "deck" else "labels")
    if kind not in KINDS:
        raise ConfigError(f"camera: equipment/{equipment_name}.json says \"reader\": {kind!r}; "
                          f"a table reads {', '.join(KINDS)}")
    return kind


def place_objects(objects: list[dict], geometry) -> list[dict]:
    """The objects with the table zone each lies in (by its centre) when the felt is known."""
    if geometry is None:
        return objects
    for obj in objects:
        mm = geometry.to_table(np.array([obj["center"]], np.float64))[0]
        obj["table_mm"] = [round(float(mm[0]), 1), round(float(mm[1]), 1)]
        obj["on_felt"] = geometry.on_felt(mm)
        obj["zone"] = geometry.zone_of(mm)
    return objects


@dataclass
class KindReader:
    """A reader needing no labelled-dice profile: pips, numerals, the d20, cards."""

    kind: str
    #: What it reads with, for /healthz and the panel: a profile path or "shipped ...".
    profile_path: str
    _read: object = field(repr=False, default=None)
    labels: tuple[str, ...] = ()
    #: These readers abstain themselves (label None, confidence under 0.5) when unsure: a
    #: label they give is their confident reading.
    min_confidence: float = 0.5

    #: Whether its reader takes the camera's nadir (`nadir=`, a `vision.nadir.Nadir` or None):
    #: a reader told the vertical tells a die's top face from its sides.
    takes_nadir: bool = False
    #: (geometry, frame size, its nadir): computed once per table geometry, not per frame
    _nadir: tuple = field(repr=False, default=(None, None, None))

    @property
    def words(self) -> str:
        return KINDS[self.kind]

    def read(self, img, geometry) -> list[dict]:
        if self.takes_nadir:
            found = self._read(img, nadir=self.nadir(geometry, (img.shape[1], img.shape[0])))
        else:
            found = self._read(img)
        return place_objects([self._object(r) for r in found], geometry)

    def nadir(self, geometry, frame: tuple[int, int]):
        """The camera's nadir by the table's geometry (its markers' homography,
        `vision.nadir.from_homography`), None when the felt is not known yet or its geometry
        is no camera's view; the same geometry and frame size give it again without work."""
        known, size, nadir = self._nadir
        if geometry is known and size == frame:
            return nadir
        nadir = None
        if geometry is not None:
            from vision.nadir import from_homography

            try:
                nadir = from_homography(geometry, frame)
            except ValueError as exc:
                log.warning("camera: no nadir from the table's geometry: %s", exc)
        self._nadir = (geometry, frame, nadir)
        return nadir

    def _object(self, reading) -> dict:
        obj = reading.to_json()
        label = obj["label"]
        if self.kind == "pips":
            obj["label"] = None if label is None else f"PIP-{label}"
        elif self.kind == "numerals":
            colour = getattr(reading, "colour", None)
            if label is None or colour is None:
                obj["label"] = None
                obj["confidence"] = min(obj["confidence"], 0.49)
            else:
                obj["label"] = f"{colour.upper()}-{label.replace('/', '-')}"
                obj["confidence"] = round(min(reading.confidence,
                                              reading.colour_confidence), 4)
        if self.kind != "cards":
            obj["kind"] = "die"
        return obj


@dataclass
class Cards:
    """Reads cards with the model of the deck the table deals now (Roche's `deck` setting:
    the printed Roche deck, or four poker decks), learned when first needed if it can be."""

    readers: dict
    #: Which deck the table deals now ("roche", "poker").
    deck: Callable[[], str] = lambda: "roche"
    #: Learns a deck's model when none is there (the demo table: from its own captures).
    learn: Callable[[str], object] | None = None

    def read(self, img) -> list:
        deck = self.deck()
        if deck not in self.readers and self.learn is not None:
            from vision.cards import CardReader

            self.readers[deck] = CardReader(self.learn(deck))
        reader = self.readers.get(deck)
        if reader is not None:
            return reader.read(img)
        # the cards are there, but no one taught the table this deck: the banker reads them
        found = self.readers["roche"].read(img)
        for r in found:
            r.label, r.confidence = None, min(r.confidence, 0.3)
            r.why = (f"the {deck} deck is not learned: `feltbank calibrate --captures DIR`, "
                     "then camera.profile = the model's folder")
        return found


def kind_reader(kind: str, equipment_name: str, profile: str = "",
                store: Path | None = None, deck: Callable[[], str] = lambda: "roche",
                learn: Callable[[str], object] | None = None) -> KindReader:
    """The reader of `kind` (not "labels"), with the profile at `profile` (camera.profile),
    else the table's own in `store/EQUIPMENT/`, else the shipped default; ConfigError when a
    profile is missing or corrupt, or the kind needs one and none is there. Cards: `deck()`
    says which deck the table deals now, `learn(deck)` learns one no profile gives."""
    from vision.errors import VisionError

    path = Path(profile) if profile else None
    if path is None and store is not None:
        # the table's own: a numeral die set's colours or a learned deck, in profiles/EQUIPMENT/
        from vision.cards import MODEL_FILE

        own = store / equipment_name / {"numerals": "numerals.json",
                                         "cards": MODEL_FILE}.get(kind, "")
        path = own if own.is_file() else None
    try:
        if kind == "pips":
            from vision.pips import read_pips

            return KindReader(kind, "none needed", read_pips,
                              tuple(f"PIP-{n}" for n in range(1, 7)))
        if kind == "d20":
            from vision.d20 import read_d20
            from vision.scenes_d20 import rugen_faces

            return KindReader(kind, "none needed", read_d20, tuple(dict.fromkeys(rugen_faces())),
                              takes_nadir=True)
        if kind == "numerals":
            from vision.numerals import default_profile, load_numeral_profile, read_numerals

            if path is None:
                numerals, where = default_profile(), f"shipped (equipment/{equipment_name}.json)"
            else:
                file = path / "numerals.json" if path.is_dir() else path
                numerals, where = load_numeral_profile(file), str(file)
            return KindReader(kind, where, lambda img: read_numerals(img, numerals),
                              tuple(f"{c.upper()}-{f}" for c in numerals.colours
                                    for f in ("1-7", "2", "3", "4", "5", "6")))
        if kind == "cards":
            from vision.cards import CardModel, CardReader

            if path is None:
                if equipment_name != "roche":
                    raise ConfigError(f"camera: the {equipment_name} cards are read once the "
                                      "deck is learned: `feltbank calibrate --captures DIR`, "
                                      "then camera.profile = the model's folder")
                readers, where = {}, "shipped (the printed Roche deck's art)"
            else:
                model = CardModel.load(path)
                readers, where = {model.deck: CardReader(model)}, str(path)
            readers.setdefault("roche", CardReader())  # the printed deck, from its own art
            cards = Cards(readers, deck, learn)
            return KindReader(kind, where, cards.read,
                              tuple(x for r in readers.values() for x in r.model.labels))
    except VisionError as exc:
        raise ConfigError(f"camera: {exc}") from None
    raise ConfigError(f"camera: no reader of {kind!r}; a table reads {', '.join(KINDS)}")
