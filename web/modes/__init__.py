"""Each mode's page: one small module plugging into the shared frame.

A mode's module makes a `ModePage` named `PAGE`: its fragment template, a `context()` with
what the fragment shows, and a `confirmation()` describing the chance step (the roll) the
banker confirms or enters by hand. The mode's record names it (`Mode.page_ref`,
"web.modes.MODE:PAGE"). A mode with no page gets the generic page, built from
`Engine.command_kinds()`, so a new mode is playable before it has a page of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, url_for
from itsdangerous import URLSafeSerializer

import equipment
from controller.errors import IllegalCommand
from controller.games.base import Command, Engine, RoundEnded, State
from controller.modes import find_mode, result_words
from web.i18n import N_, refusal

#: Chips the banker taps before a bet spot.
CHIPS = (1, 2, 3, 5, 10, 20, 50, 100)


@dataclass(frozen=True)
class PageInput:
    """What a mode's page is made from."""

    engine: Engine
    state: State
    view: dict
    banker: bool = True


@dataclass(frozen=True)
class ModePage:
    mode: str
    template: str
    context: Callable[[PageInput], dict]
    confirmation: Callable[[PageInput], dict | None] = field(default=lambda page: None)
    #: The seat holding the dice (the shooter, the caster), for the frame.
    holder: Callable[[PageInput], str | None] = field(default=lambda page: None)
    #: What the frame calls the holder.
    holder_word: str = "Shooter"
    #: The faces a die read as `label` may show (None: unread), for the banker's correction.
    faces_for: Callable[[str | None], list] = field(default=lambda label: [])
    #: A mark printed beside each face on the buttons (the glyphs of the mode's equipment).
    face_marks: dict = field(default_factory=dict)
    #: The journal's words for the mode's own commands and events (id -> words, `N_` marked),
    #: over web/i18n.py's `JOURNAL_WORDS`.
    journal_words: dict = field(default_factory=dict)
    #: How a round ended, in one line for the last settlement (given the session's `t`).
    ended_line: Callable[[RoundEnded, Callable[[str], str]], str] = field(
        default=lambda ended, t: result_line(ended, t))
    #: A read-only part of the page a player opens by a link the banker shares (Namaste: one
    #: player's sheet): its template and context, given the part's name (web/table.py
    #: `shared_link`); None: the mode shares nothing.
    shared_template: str = ""
    shared: Callable[[PageInput, str], dict] | None = None
    #: The language the mode speaks on a screen that chose none ("fr" for Risque; "": the
    #: dashboard's): a screen that chose no language shows the table in it.
    default_language: str = ""


#: Signs the links to a mode's shared read-only part (a player's phone opens it unlogged).
SHARED_SALT = "feltbank.shared-part"


def shared_signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.secret_key, salt=SHARED_SALT)


def shared_link(mode: str, part: str) -> str:
    """The link to `part` of `mode`'s page, read-only, that the banker shares (signed with the
    dashboard's secret key, so that no one makes one for another part)."""
    return url_for("table.shared", token=shared_signer().dumps([mode, part]))


def reason(engine: Engine, state: State, kind: str, **args: Any) -> str | None:
    """Why `kind` with `args` would be refused now (the tooltip of a greyed control), or None."""
    try:
        engine.verify(state, Command(kind, args, "check"))
    except IllegalCommand as exc:
        return refusal(exc)
    return None


def manual_rows(dice: list[tuple[str, str, list]]) -> list[dict]:
    """Rows of the roll the banker enters by hand: each die (key, title) and its faces."""
    return [{"key": key, "title": title, "faces": faces} for key, title, faces in dice]


def result_line(ended: RoundEnded, t: Callable[[str], str]) -> str:
    """The mode's words for how the round ended (`Mode.result_words`), translated."""
    return t(RESULT_WORDS.get(ended.result, ended.result))


def glyphs(name: str) -> dict[str, str]:
    """The sign printed on each face of the dice `equipment/NAME.json` (empty: none)."""
    return dict(equipment.load(name).get("glyphs", {})) if name else {}


def bet_words(mode: str | None) -> Mapping:
    """The bets of `mode` in words (its record's `Mode.bet_words`); none for an unknown mode."""
    try:
        return find_mode(mode).bet_words if mode else {}
    except IllegalCommand:
        return {}


def page_for(mode: str) -> ModePage:
    """The page of `mode` (its record's `page_ref`), or the generic one."""
    try:
        page = find_mode(mode).page()
    except IllegalCommand:
        page = None
    if page is None:
        return generic
    if not isinstance(page, ModePage) or page.mode != mode:
        raise TypeError(f"the page of {mode!r} must be a web.modes.ModePage for that mode")
    return page


def _generic_context(page: PageInput) -> dict:
    forms = []
    for kind, spec in sorted(page.engine.command_kinds().items()):
        if kind in ("join", "leave", "buy-in", "cash-out", "configure"):
            continue  # the frame and the money page have these
        forms.append({"kind": kind, "args": [
            {"name": name, "type": arg.type.__name__, "optional": arg.optional,
             "choices": list(arg.choices) if arg.choices else None, "minimum": arg.minimum,
             "describe": arg.describe()} for name, arg in spec.items()]})
    return {"forms": forms}


generic = ModePage("*", "modes/generic.html", _generic_context)

#: How rounds end, in words (the events' `result`): every mode's `Mode.result_words`.
RESULT_WORDS = result_words()

#: How a bet came out, in words (the `bet-settled` events' `result`).
BET_RESULTS = {"win": N_("won"), "lose": N_("lost"), "push": N_("stake returned")}
