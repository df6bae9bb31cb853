"""The table's protocol: commands in, events out, pay rates, and how a round ends. Pure data.

Everyone speaks it: the engines (`controller/games/`), the camera's reading
(`controller/games/observation.py`), the journal, the table service, the dashboard and the
devices. It imports nothing of the engines, so no import cycle runs through it.

    Command("bet", {"player": "Ann", "bet": "odds", "amount": 4}, "c7")   # in
    Event("bet-placed", {...}, entries)                                   # out
    RoundEnded("caster-wins", "Ann", {"main": 7, "chance": 4}).event()    # a round's end

Every mode ends a round with ONE `round-ended` event of one shape: `result` (a key of its
`Mode.result_words`), `holder` (who held the dice or the deal, or None) and `details` (the
mode's own facts). Journals written before this shape (Fortunes and Winds' `turn-ended`,
Hazard's flat `round-ended`) are read as it (`Event.from_json`), so they replay unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd
from types import MappingProxyType
from typing import Any

from controller.errors import IllegalCommand
from controller.ledger import Entry

__all__ = ["MAX_INT", "MAX_JSON_DEPTH", "MAX_PAYS", "MAX_STAKE", "RESERVED_KEYS", "ROUND_ENDED",
           "Command", "Event", "IllegalCommand", "Pays", "RoundEnded", "loads_object"]

#: The largest whole number a command takes: beyond it no money makes sense, and JSON and
#: SQLite would not keep it exactly.
MAX_INT = 10**12
#: The largest stake any limit setting may allow, and the largest pay rate (X:Y, X and Y at
#: most this; Roche's own Day/Night pays go to 10000:1): a win is then at most
#: 10**6 * 10**5 * 10 (a multiplier), far within SQLite's 64-bit integers.
MAX_STAKE = 1_000_000
MAX_PAYS = 100_000

#: Keys of a command's JSON form that are not arguments.
RESERVED_KEYS = frozenset({"id", "kind", "at", "source", "seq", "events", "reading"})

#: JSON nested deeper than this is refused before it is read (a command is two deep).
MAX_JSON_DEPTH = 32


def loads_object(text: str) -> dict:
    """The JSON object in `text`; IllegalCommand for anything else, whatever the text holds
    (too deep, numbers of thousands of digits, not JSON, not an object)."""
    depth = 0
    quoted = escaped = False
    for ch in text:
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise IllegalCommand(f"the JSON is nested more than {MAX_JSON_DEPTH} deep")
        elif ch in "]}":
            depth -= 1
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise IllegalCommand(f"not a JSON object (not valid JSON: {exc.msg} at column "
                             f"{exc.colno})") from None
    except ValueError as exc:
        # Python's own limit on the digits of a whole number (4,300), or NaN/Infinity.
        raise IllegalCommand(f"not a JSON object this table reads: {exc}") from None
    if not isinstance(data, dict):
        raise IllegalCommand("a command is a JSON object with 'kind' and its arguments, e.g. "
                             '{"kind": "buy-in", "player": "Ann", "amount": 20}')
    return data


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON accepts")


@dataclass(frozen=True)
class Command:
    """What someone asks the table to do: a kind, its arguments, and a client-made id."""

    kind: str
    args: Mapping[str, Any] = field(default_factory=dict)
    id: str = ""

    def to_json(self) -> dict:
        return {"id": self.id, "kind": self.kind, **self.args}

    @classmethod
    def from_json(cls, data: Mapping) -> Command:
        """The command of a flat JSON object `{"id": ..., "kind": ..., ARG: VALUE...}`."""
        if not isinstance(data, Mapping):
            raise IllegalCommand("a command is a JSON object with 'kind' and its arguments")
        kind = data.get("kind")
        if not isinstance(kind, str) or not kind:
            raise IllegalCommand("a command needs 'kind', e.g. {\"kind\": \"buy-in\", ...}")
        cid = data.get("id", "")
        if not isinstance(cid, str) or len(cid) > 128:
            raise IllegalCommand("a command's 'id' is a string of at most 128 characters")
        args = {k: v for k, v in data.items() if k not in RESERVED_KEYS}
        return cls(kind, args, cid)

    @classmethod
    def parse(cls, text: str) -> tuple[Command, dict]:
        """The command of one JSON line, and the whole object (a hand history's line carries
        its events too); IllegalCommand says what is wrong with any text at all."""
        return cls.from_json(data := loads_object(text)), data

    def same_as(self, other: Command) -> bool:
        """True when `other` asks for the same thing (ids aside)."""
        return self.kind == other.kind and dict(self.args) == dict(other.args)


@dataclass(frozen=True)
class Event:
    """Something that happened, with the ledger entries it posted."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    entries: tuple[Entry, ...] = ()

    def to_json(self) -> dict:
        out = {"kind": self.kind, **self.data}
        if self.entries:
            out["entries"] = [e.to_json() for e in self.entries]
        return out

    @classmethod
    def from_json(cls, data: Mapping) -> Event:
        rest = {k: v for k, v in data.items() if k not in ("kind", "entries")}
        entries = tuple(Entry.from_json(e) for e in data.get("entries", ()))
        kind, rest = _upgrade(str(data["kind"]), rest)
        return cls(kind, rest, entries)


@dataclass(frozen=True)
class Pays:
    """A pay rate: `win` coins for every `per` staked, besides the stake ("3:2", "4:1")."""

    win: int
    per: int = 1

    def __post_init__(self) -> None:
        if type(self.win) is not int or type(self.per) is not int or self.win < 0 or self.per < 1:
            raise ValueError(f"{self.win}:{self.per} is not a pay rate: expected X:Y, whole X >= 0, Y >= 1")

    @classmethod
    def parse(cls, text: str) -> Pays:
        """Read "3:2" or "4:1" (or "4 to 1")."""
        parts = str(text)[:64].replace(" to ", ":").split(":")
        try:
            win, per = (int(p) for p in parts) if len(parts) == 2 else (None, None)
            pays = cls(win, per)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(f"{str(text)[:64]!r} is not a pay rate: write it as X:Y, e.g. "
                             "\"3:2\"") from None
        if pays.win > MAX_PAYS or pays.per > MAX_PAYS:
            raise ValueError(f"{str(text)[:64]!r} is not a pay rate from 0:1 to {MAX_PAYS}:1: "
                             f"X from 0 to {MAX_PAYS}, Y from 1 to {MAX_PAYS}")
        return pays

    def __str__(self) -> str:
        return f"{self.win}:{self.per}"

    @property
    def ratio(self) -> Fraction:
        return Fraction(self.win, self.per)

    @property
    def unit(self) -> int:
        """Stakes must be a multiple of this for the winnings to be whole coins."""
        return self.ratio.denominator

    def winnings(self, stake: int) -> int:
        """Coins won on `stake`, besides the stake itself."""
        won = self.ratio * stake
        if won.denominator != 1:
            raise IllegalCommand(f"a stake of {stake} does not pay whole coins at {self}")
        return int(won)

    def times(self, factor: int) -> Pays:
        g = gcd(self.win * factor, self.per)
        return Pays(self.win * factor // g, self.per // g)


# -- the end of a round ----------------------------------------------------------------------

#: The kind of the one event that ends a round, in every mode.
ROUND_ENDED = "round-ended"
#: End-of-round event kinds older journals hold (read as ROUND_ENDED).
LEGACY_ROUND_ENDED = frozenset({"turn-ended"})
#: Keys older end-of-round events named the holder by.
LEGACY_HOLDER_KEYS = ("shooter", "caster")


@dataclass(frozen=True)
class RoundEnded:
    """How a round ended: the same shape for every mode."""

    #: A key of the mode's `Mode.result_words` ("win", "caster-loses"...).
    result: str
    #: The player who held the dice (the shooter, the caster) or the deal; None if nobody.
    holder: str | None = None
    #: The mode's own facts of the round (the main and the chance; the combination...).
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.result, str) or not self.result:
            raise ValueError(f"a round's result is a word, not {self.result!r}")
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))

    def event(self) -> Event:
        return Event(ROUND_ENDED, {"result": self.result, "holder": self.holder,
                                   "details": dict(self.details)})

    @classmethod
    def of(cls, event: Event) -> RoundEnded | None:
        """The end of round `event` says, or None for any other event."""
        if event.kind != ROUND_ENDED:
            return None
        return cls(event.data["result"], event.data.get("holder"),
                   event.data.get("details") or {})

    @classmethod
    def among(cls, events) -> RoundEnded | None:
        """The end of round among `events` (a command's), or None when no round ended."""
        for event in events:
            ended = cls.of(event)
            if ended is not None:
                return ended
        return None


def _upgrade(kind: str, data: dict) -> tuple[str, dict]:
    """An event as older feltbank wrote it, in today's shape (the end of round's)."""
    if kind in LEGACY_ROUND_ENDED or (kind == ROUND_ENDED and "details" not in data):
        rest = dict(data)
        holder = next((rest.pop(k) for k in LEGACY_HOLDER_KEYS if k in rest), None)
        result = rest.pop("result")
        return ROUND_ENDED, {"result": result, "holder": holder, "details": rest}
    return kind, data
