"""The dashboard's side of the shared mode harness: every registered mode's page, played.

For each mode the registry finds: its page is its own `web.modes.ModePage` (or the generic
one when the record names none), and a table of that mode, driven through the dashboard's
command API with seeded random play, renders the table page and its panel after every
accepted command, with the mode's words for how each round that settled bets ended.
"""

from __future__ import annotations

import html as html_lib
import itertools

import pytest
from conftest import open_table

from controller.games.play import random_play
from controller.modes import find_mode, modes
from web.modes import ModePage, generic, page_for

MODES = sorted(modes())
#: Accepted commands driven through the dashboard per mode.
ACCEPTED = 60


@pytest.mark.parametrize("name", MODES)
def test_the_page_is_the_modes_own(name):
    page = page_for(name)
    assert isinstance(page, ModePage)
    if find_mode(name).page_ref:
        assert page.mode == name and page is not generic
    else:
        assert page is generic


@pytest.mark.parametrize("name", MODES)
def test_the_dashboard_plays_the_mode(name, tmp_path, make_app, auth):
    table = open_table(tmp_path / f"{name}.sqlite3", mode=name, players=(), coins=0)
    try:
        client = make_app(table).test_client()
        auth.client = client
        auth.setup()
        words = find_mode(name).result_words
        ended = 0
        steps = (s for s in random_play(name, seed=5, players=3, coins=500)
                 if s.events is not None and s.command.kind != "open")
        for step in itertools.islice(steps, ACCEPTED):
            args = dict(step.command.args)
            response = auth.command(step.command.kind, **args)
            assert response.status_code == 201, (step.command, response.text)
            panel = html_lib.unescape(client.get("/table/panel").text)
            settled = any(e.kind == "bet-settled" for e in step.events)
            for event in step.events:
                if settled and event.kind.endswith("-ended") and "result" in event.data:
                    ended += 1
                    assert words[event.data["result"]] in panel, (event, panel[:400])
        assert client.get("/").status_code == 200
        assert ended, f"no round of {name} ended in {ACCEPTED} commands"
    finally:
        table.journal.close()
