"""Namaste's and Risque's pages in a real browser (Debian's chromium, Playwright): a Namaste
turn entered by taps on the sheets, a player's read-only sheet link, and a Risque from the pool
builder to the Truths, in French. Screenshots go to artifacts/web/."""

from __future__ import annotations

import pytest
from test_web_browser import (
    LANDSCAPE,
    SMALL_TARGETS,
    act,
    browser,  # noqa: F401 (the fixture)
    new_page,
    pytestmark,  # noqa: F401 (slow; skipped off CI without chromium)
    serve_app,
    setup_banker,
    shot,
)

from controller.games.base import Command
from tests.web.support import open_table


@pytest.fixture
def serve(tmp_path, make_app):
    """A function serving the dashboard over a fresh table of `mode`."""
    running = []

    def start(mode, players):
        table = open_table(tmp_path / f"{mode}.sqlite3", mode=mode, players=players, coins=0)
        app = make_app(table, TESTING=False, SSE_KEEPALIVE=0.5, SSE_MAX_SECONDS=60)
        url, stop = serve_app(app, tmp_path / "web")
        running.append((stop, table))
        return url, table

    yield start
    for stop, table in running:
        stop()
        table.journal.close()


def test_a_namaste_turn_by_taps(browser, serve):  # noqa: F811
    url, table = serve("namaste", ("Magdalena", "Daniel"))
    page = new_page(browser, LANDSCAPE)
    setup_banker(page, url)
    act(page, table, "button.nm-start:has-text('Magdalena')")
    # The roll entered by hand: turquoise 4, white 1/7 and 2 (the seed's example).
    page.select_option(".nm-roll select[name=turquoise]", "4")
    page.fill(".nm-roll input[name=white]", "1/7 2")
    act(page, table, ".nm-roll button[type=submit]")
    assert table.state.roll.white == ("1/7", "2")
    sheet = ".nm-sheet[data-player='Magdalena']"
    assert "7 / 13" in page.inner_text(sheet + " .nm-name")
    shot(page, "namaste-1-rolled")
    assert page.evaluate(SMALL_TARGETS) == []
    act(page, table, sheet + " .nm-choice[data-total='13'] button[data-cmd*='\"circle\": 13']")
    act(page, table, ".nm-sheet[data-player='Daniel'] .nm-choice[data-total='9'] "
                     "button[data-cmd*='\"circle\": 4,']")
    assert table.state.sheet("Magdalena").value(13) == 13
    assert table.state.sheet("Daniel").value(4) == 9
    assert table.state.active_player == "Daniel"
    # 13 sits in the centre circle now: a 13 can no longer go in its row or column.
    assert page.inner_text(sheet + " .nm-circle[data-circle='13']") == "13"
    shot(page, "namaste-2-entered")
    # The link the banker shares, opened on a phone (not logged in): that sheet alone, no
    # buttons, the circles of the current total lit.
    link = page.get_attribute(".nm-sheet[data-player='Daniel'] a.nm-link", "href")
    page.close()
    phone = new_page(browser, LANDSCAPE)
    phone.goto(url + link)
    assert phone.locator(".nm-sheet").count() == 1
    assert phone.locator(".nm-sheet[data-player='Daniel']").count() == 1
    assert phone.locator("[data-cmd]").count() == 0
    phone.close()


def test_a_risque_in_french_from_the_pool_builder_to_the_truths(browser, serve):  # noqa: F811
    url, table = serve("risque", ("Ann", "Bob"))
    for n, cmd in enumerate([
            Command("character", {"name": "Kakita Toshimoko", "clan": "Crane",
                                  "virtues": {"Courage": 3}, "aspects": ["Proud"]}),
            Command("character", {"name": "Hida Kisada", "clan": "Crab",
                                  "virtues": {"Courage": 4}, "handicaps": ["Tired"]})]):
        table.submit(Command(cmd.kind, cmd.args, f"c{n}"))
    page = new_page(browser, LANDSCAPE)
    setup_banker(page, url)
    assert "Personnages" in page.inner_text("#panel")  # French by default
    page.click(".rq button[data-pick='rq-chars'][data-value='Kakita Toshimoko']")
    page.click(".rq button[data-pick='rq-chars'][data-value='Hida Kisada']")
    act(page, table, "button.rq-open")
    assert [p.character for p in table.state.risk.participants] == ["Kakita Toshimoko",
                                                                     "Hida Kisada"]
    # Toshimoko's pool: the Clan (+2) and the Aspect Proud (+3) tapped, built on Courage (3).
    builder = ".rq-builder[data-character='Kakita Toshimoko']"
    assert "+3" in page.inner_text(builder + " button[data-value='aspect:Proud']")
    page.click(builder + " button[data-value='clan']")
    page.click(builder + " button[data-value='aspect:Proud']")
    act(page, table, builder + " button.rq-pool")
    assert table.state.risk.get("Kakita Toshimoko").pool.dice == 8
    act(page, table, builder + " button.rq-mise:text-is('2')")
    hida = ".rq-builder[data-character='Hida Kisada']"
    act(page, table, hida + " button.rq-pool-only")
    act(page, table, hida + " button.rq-mise:text-is('1')")
    # Staked, not shown; the chance of 10 for every number of Mises is.
    row = page.inner_text(".rq-risk tr[data-character='Kakita Toshimoko']")
    assert "•" in row and "0: 100%" in row
    journal = page.inner_text(".journal")
    line = next(x for x in journal.splitlines() if "Kakita Toshimoko" in x
                and "engager des Mises" in x)  # the whole table speaks French
    assert "•" in line and "2" not in line.split("#")[-1].split(" ", 1)[1], line
    shot(page, "risque-1-mises-staked")
    act(page, table, "button.rq-reveal")
    page.fill(".rq-roll:has-text('Kakita Toshimoko') input[name=dice]", "6 5 4 3 2 1")
    act(page, table, ".rq-roll:has-text('Kakita Toshimoko') button[type=submit]")
    page.fill(".rq-roll:has-text('Hida Kisada') input[name=dice]", "1 1 2")
    act(page, table, ".rq-roll:has-text('Hida Kisada') button[type=submit]")
    assert table.state.risk.privilege == "Kakita Toshimoko"
    assert "Privilège" in page.inner_text("#panel")
    page.fill(".rq-truth input[name=text]", "Le pont tient")
    act(page, table, ".rq-truth button[type=submit]")
    act(page, table, "button.rq-glory")
    assert table.state.risk is None and table.state.by_name["Kakita Toshimoko"].glory == 1
    shot(page, "risque-2-truths-spoken")
    page.close()
