"""The dashboard's side of the shared mode harness: every registered mode's page, played.

For each mode the registry finds: its page is its own `web.modes.ModePage` (or the generic
one when the record names none), and a table of that mode, driven through the dashboard's
command API with seeded random play, renders the table page and its panel after every
accepted command, with the mode's words for how each round that settled bets ended.
"""

from __future__ import annotations

import html as html_lib
import itertools
import re

import pytest
from test_web_i18n import english_left

from controller.games.base import RoundEnded
from controller.games.play import random_play
from controller.modes import find_mode, modes
from tests.web.support import Auth, open_table
from web.modes import ModePage, generic, page_for

MODES = sorted(modes())
#: Accepted commands driven through the dashboard per mode.
ACCEPTED = 60
#: The page is compared in English and French after every this many commands.
FRENCH_EVERY = 4


@pytest.mark.parametrize("name", MODES)
def test_the_page_is_the_modes_own(name):
    page = page_for(name)
    assert isinstance(page, ModePage)
    if find_mode(name).page_ref:
        assert page.mode == name and page is not generic
    else:
        assert page is generic


def typed(value) -> set[str]:
    """The words a player typed into a command (names, a character's aspects): no language
    translates them."""
    if isinstance(value, str):
        return set(re.findall(r"[A-Za-zÀ-ÿ']+", value))
    if isinstance(value, dict):
        return set().union(*map(typed, value), *map(typed, value.values()), set())
    if isinstance(value, list | tuple):
        return set().union(*map(typed, value), set())
    return set()


@pytest.mark.parametrize("name", MODES)
def test_the_dashboard_plays_the_mode(name, tmp_path, make_app, auth):
    """The mode played through the dashboard, its page rendered after every command, and
    shown in French with no English left: every few commands the page in French beside the
    same page in English (a word shown untranslated fails)."""
    table = open_table(tmp_path / f"{name}.sqlite3", mode=name, players=(), coins=0)
    try:
        app = make_app(table)
        client = app.test_client()
        auth.client = client
        auth.setup()
        auth.client.post("/language/en", data={"csrf_token": auth.token})
        french = Auth(app.test_client())
        french.login()
        french.client.post("/language/fr", data={"csrf_token": french.token})
        words = find_mode(name).result_words
        ended = 0
        names: set[str] = set()
        steps = (s for s in random_play(name, seed=5, players=3, coins=500)
                 if s.events is not None and s.command.kind != "open")
        for n, step in enumerate(itertools.islice(steps, ACCEPTED)):
            args = dict(step.command.args)
            response = auth.command(step.command.kind, **args)
            assert response.status_code == 201, (step.command, response.text)
            names |= typed(args)
            if n % FRENCH_EVERY == 0:
                left = english_left(client.get("/").text, french.client.get("/").text, names)
                assert left == [], f"English left on the French {name} page: {left}"
            panel = html_lib.unescape(client.get("/table/panel").text)
            settled = any(e.kind == "bet-settled" for e in step.events)
            end = RoundEnded.among(step.events)
            if end is not None:
                # Every mode's rounds end; the settlement card shows how a round that settled
                # bets ended (a mode without bets, e.g. Namaste, has no such card).
                ended += 1
                if settled:
                    assert words[end.result] in panel, (end, panel[:400])
        assert client.get("/").status_code == 200
        assert ended, f"no round of {name} ended in {ACCEPTED} commands"
    finally:
        table.journal.close()
