"""A game mode is one `Mode` record, found through one registry built on entry points.

    [project.entry-points."feltbank.modes"]          # pyproject.toml (of any package)
    hazard = "controller.games.hazard:MODE"

    find_mode("hazard").engine.apply(state, command)
    find_mode("hazard").odds(settings)                # None fields: the mode has no such part

The record names everything the rest of the program asks of a mode: the engine (with its
`read` of the camera's observation, `demo_throw`, `light` and `chance_step`), the exact odds,
the simulation, the dice or deck (`equipment/NAME.json`), the dashboard page, the words for
how a round ends, and its receipt layouts. Parts outside `controller/` (the page) and heavy
parts (odds, simulation) are named by "module:attr" strings, imported only when asked for:
`controller/` imports nothing of `web/` or `hardware/`.

Nothing outside a mode's own files names a mode: the CLI, the dashboard, the camera and the
printer ask this registry. See docs/adding-a-mode.md.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from controller.errors import IllegalCommand
from controller.protocol import Event, RoundEnded

if TYPE_CHECKING:
    from controller.games.base import Engine

#: The entry-point group a mode is declared in.
GROUP = "feltbank.modes"


def resolve_ref(ref: str) -> Any:
    """The object a "package.module:attr" string names (imported now)."""
    module, _, attr = ref.partition(":")
    if not module or not attr:
        raise ValueError(f"{ref!r} is not a reference: expected 'package.module:attr'")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Mode:
    """Everything the table, the CLI, the camera, the dashboard and the printer need of a mode.

    Only `engine` is required; a mode grows the other parts as it gets them.
    """

    #: The rules: a pure `Engine` (its `name` is the mode's name, its `title` the mode's title).
    engine: Engine
    #: The dice or deck the mode is played with: `equipment/NAME.json` (read by the engine,
    #: the recognizer and the dashboard), and the default calibration `calibration/NAME/`.
    equipment: str = ""
    #: "module:function": `odds(settings) -> dict`, the JSON of `feltbank odds MODE --json`
    #: (settings already resolved by the engine: every key is there).
    odds_ref: str = ""
    #: "module:function": `odds_text(report) -> list[str]`, the same report for people.
    odds_text_ref: str = ""
    #: "module:function": `simulate(turns, rng, settings, strategy) -> controller.simulate.Run`.
    simulate_ref: str = ""
    #: The strategies `feltbank simulate --strategy` offers for this mode (first: default).
    strategies: tuple[str, ...] = ()
    #: "module:function": `advise(roll, roll_number, set_aside, settings) -> dict` and
    #: "module:function": `advice_text(advice) -> list[str]` for `feltbank advise MODE`.
    advise_ref: str = ""
    advice_text_ref: str = ""
    #: "module:attr": the dashboard's `web.modes.ModePage` (imported by web/ only). Empty: the
    #: generic page built from the engine's commands.
    page_ref: str = ""
    #: How a round ends in words, by the end-of-round event's `result` ("caster-wins": ...).
    result_words: Mapping[str, str] = field(default_factory=dict)
    #: Receipt kinds this mode lays out itself, in `hardware/templates/NAME/KIND.txt` (the
    #: printer picks them by the mode's name; listed here so tests render each one).
    receipts: tuple[str, ...] = ()
    #: The mode's printables for `feltbank print NAME`: {NAME: "module:function"}, the
    #: function `(out: Path, lang: str, pages: int) -> str` writes the PDF and says what it
    #: wrote (e.g. Namaste's score sheet).
    printables: Mapping[str, str] = field(default_factory=dict)
    #: The round results that print the end slip ("round-slip": who held the dice or the
    #: deal, the result in words, the round's details); None: every result. Namaste prints
    #: only its final score slip, not one a turn.
    slip_results: tuple[str, ...] | None = None
    #: Each bet spot of the ledger ("cut.3") in words: a plain text or a
    #: `controller.settings.phrase` (template, values), for the receipts and the dashboard.
    bet_words: Mapping[str, Any] = field(default_factory=dict)
    #: The decks the mode may deal, by the names its `deck_setting` gives them (a learned
    #: deck is stored under that name): name -> equipment file. Empty: its `equipment` only.
    decks: Mapping[str, str] = field(default_factory=dict)
    #: The engine's setting naming which of `decks` the table deals now ("": the first).
    deck_setting: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "result_words", MappingProxyType(dict(self.result_words)))
        object.__setattr__(self, "bet_words", MappingProxyType(dict(self.bet_words)))
        object.__setattr__(self, "printables", MappingProxyType(dict(self.printables)))
        object.__setattr__(self, "decks", MappingProxyType(dict(self.decks)))

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def title(self) -> str:
        return self.engine.title

    def _part(self, ref: str, what: str) -> Callable:
        if not ref:
            raise IllegalCommand("%(game)s has no %(what)s; modes with one: %(modes)s",
                                 game=self.title, what=what,
                                 modes=tuple(m.name for m in modes().values()
                                             if getattr(m, _REFS[what])))
        return resolve_ref(ref)

    def odds(self, settings: Mapping[str, Any] | None = None) -> dict:
        """The exact odds report with the house's `settings` over the mode's defaults."""
        values = self.engine.new_state(settings or {}).settings
        return self._part(self.odds_ref, "odds")(values)

    def odds_text(self, report: dict) -> list[str]:
        return list(self._part(self.odds_text_ref, "odds")(report))

    def simulate(self, turns: int, rng, settings: Mapping[str, Any] | None, strategy: str):
        return self._part(self.simulate_ref, "simulation")(turns, rng, settings, strategy)

    def advise(self, *args: Any) -> dict:
        return self._part(self.advise_ref, "advisor")(*args)

    def advice_text(self, advice: dict) -> list[str]:
        return list(self._part(self.advice_text_ref, "advisor")(advice))

    def end_slips(self, events: Iterable[Event]) -> list[dict]:
        """The data of the end slips `events` (one command's) call for, in their order: one
        per end of round (of a hand, of a game) whose result this mode prints a slip for."""
        out = []
        for event in events:
            ended = RoundEnded.of(event)
            if ended is None or (self.slip_results is not None
                                 and ended.result not in self.slip_results):
                continue
            out.append({"game": self.title, "result": ended.result,
                        "words": self.result_words.get(ended.result, ended.result),
                        "holder": ended.holder or "", "details": dict(ended.details)})
        return out

    def deck_dealt(self, settings: Mapping[str, Any]) -> str:
        """The name of the deck the table deals under its `settings` (one of `decks`)."""
        chosen = settings.get(self.deck_setting) if self.deck_setting else None
        return str(chosen) if chosen in self._decks else next(iter(self._decks))

    def deck_file(self, deck: str) -> str:
        """The equipment file of the deck named `deck` (`decks`; the mode's own: itself)."""
        return self._decks.get(deck, deck)

    @property
    def _decks(self) -> Mapping[str, str]:
        """`decks`, or the mode's own equipment as its one deck."""
        return self.decks or {self.equipment: self.equipment}

    def words_of_bet(self, bet: str) -> Any:
        """The words of a bet named by its spot or its id, or None (`words_of_bet`)."""
        return words_of_bet(self.bet_words, bet)

    def page(self) -> Any:
        """The dashboard page object (web side), or None for the generic page."""
        return resolve_ref(self.page_ref) if self.page_ref else None


_REFS = {"odds": "odds_ref", "simulation": "simulate_ref", "advisor": "advise_ref"}


def words_of_bet(words: Mapping[str, Any], bet: str) -> Any:
    """The words (`Mode.bet_words`) of a bet named by its spot ("cut.3") or its id ("cut:3"),
    or None. A spot with a group between its kind and its number (Street Rugen's
    "side.GROUP.3") takes the words of the kind and the number ("side.3")."""
    spot = bet.lower().replace(":", ".")
    parts = spot.split(".")
    return words.get(bet, words.get(spot, words.get(f"{parts[0]}.{parts[-1]}")))

_lock = threading.Lock()
_modes: dict[str, Mode] | None = None


def _load() -> dict[str, Mode]:
    found: dict[str, Mode] = {}
    for ep in entry_points(group=GROUP):
        mode = ep.load()
        if not isinstance(mode, Mode):
            raise TypeError(f"entry point {ep.name} = {ep.value!r} in {GROUP} is not a Mode")
        if ep.name != mode.name:
            raise ValueError(f"entry point {ep.name!r} names the mode {mode.name!r}: "
                             "the entry point's name must be the engine's name")
        if mode.name in found and found[mode.name] is not mode:
            raise ValueError(f"two modes are called {mode.name!r}")
        found[mode.name] = mode
    return dict(sorted(found.items()))


def modes() -> dict[str, Mode]:
    """Every mode installed, by name (loaded once, on first use)."""
    global _modes
    if _modes is None:
        with _lock:
            if _modes is None:
                _modes = _load()
    return dict(_modes)


def find_mode(name: str) -> Mode:
    """The mode called `name`, or IllegalCommand naming the modes there are."""
    found = modes()
    try:
        return found[name]
    except (KeyError, TypeError):
        raise IllegalCommand("%(name)s is not a game mode here; modes: %(modes)s",
                             name=repr(name), modes=tuple(found)) from None


def with_part(part: str) -> list[str]:
    """The names of the modes that have `part` ("odds", "simulation", "advisor")."""
    return [m.name for m in modes().values() if getattr(m, _REFS[part])]


def printables() -> dict[str, str]:
    """Every mode's printable (`feltbank print NAME`): its "module:function", by name."""
    found: dict[str, str] = {}
    for mode in modes().values():
        for name, ref in mode.printables.items():
            if found.get(name, ref) != ref:
                raise ValueError(f"two modes print {name!r}")
            found[name] = ref
    return found


def result_words() -> dict[str, str]:
    """Every mode's words for how a round ends, by result."""
    words: dict[str, str] = {}
    for mode in modes().values():
        words.update(mode.result_words)
    return words
