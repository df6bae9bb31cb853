"""Roche and House Rugen in a real browser (Debian's chromium, headless, by Playwright): chips
on the layout, the card dealt and the die's face tapped by hand, the settlement. Screenshots
go to artifacts/web/."""

from __future__ import annotations

import pytest
from test_web_browser import (  # noqa: F401 (the browser fixture)
    DATA_DIRS,
    LANDSCAPE,
    SMALL_TARGETS,
    act,
    browser,
    new_page,
    pytestmark,
    serve_app,
    setup_banker,
    shot,
    tap_spot,
)

from tests.web.support import PASSWORD, open_table, setup_code


@pytest.fixture
def serve(tmp_path):
    """The dashboard of a table of `mode` (Ann and Bob, 100 coins each) on a free port."""
    from web import Services, create_app

    running = []

    def start(mode):
        table = open_table(tmp_path / f"{mode}.sqlite3", mode=mode, players=("Ann", "Bob"),
                           coins=100)
        app = create_app({"DATA_DIR": tmp_path / "web", "CONFIG_PATH": tmp_path / "f.toml",
                          "SSE_KEEPALIVE": 0.5, "SSE_MAX_SECONDS": 60}, Services(table=table))
        url, stop = serve_app(app, tmp_path / "web")
        running.append((stop, table))
        return url, table

    yield start
    for stop, table in running:
        stop()
        table.journal.close()


def test_a_roche_deal_by_hand(browser, serve):  # noqa: F811 (the shared fixture)
    url, table = serve("roche")
    page = new_page(browser, LANDSCAPE)
    setup_banker(page, url)
    page.click(".chip[data-chip='2']")
    tap_spot(page, "Ann", "cut:3")
    page.wait_for_selector(".felt-seat[data-player='Ann'] [data-spot='cut:3'] .stake:text('2')")
    tap_spot(page, "Bob", "day:2")
    page.wait_for_selector(".felt-seat[data-player='Bob'] [data-spot='day:2'] .stake:text('2')")
    assert page.evaluate(SMALL_TARGETS) == []
    act(page, table, "button.no-more-bets")
    # The spots are greyed now; a tap says why.
    tap_spot(page, "Ann", "cut:4", greyed=True)
    page.wait_for_selector("#toast:has-text('no more bets')")
    for card in ("REALM-3-DAY-01", "MAGES-2-DAY-01", "REALM-3-NIGHT-02", "REALM-3-DAY-03"):
        page.select_option(".deal-form select[name=card]", card)
        act(page, table, ".deal-form button[type=submit]")
    page.wait_for_selector("#last-cut")
    assert "Realm" in page.inner_text("#last-cut")
    shot(page, "roche-cut")
    assert table.state.ledger.players() == {"Ann": 107, "Bob": 98}  # 7 for 2 at 7:2; Day 2 lost


def test_a_house_rugen_roll_by_hand(browser, serve):  # noqa: F811
    url, table = serve("house-rugen")
    page = new_page(browser, LANDSCAPE)
    setup_banker(page, url)
    page.click(".chip[data-chip='3']")
    tap_spot(page, "Ann", "center:3")
    page.wait_for_selector(".felt-seat[data-player='Ann'] [data-spot='center:3'] .stake:text('3')")
    tap_spot(page, "Bob", "center:4")  # a chip of 3 on a spot taking multiples of 4
    page.wait_for_selector("#toast:has-text('multiple of 4')")
    assert page.evaluate(SMALL_TARGETS) == []
    act(page, table, "button.face-btn:text-is('3d')")
    page.wait_for_selector("#chain:text('3d')")
    shot(page, "house-rugen-roll")
    assert table.state.ledger.players() == {"Ann": 107, "Bob": 100}


def test_the_wizard_chooses_house_rugen_and_settings_switch_to_grand_roche_between_rounds(
        browser, serve):  # noqa: F811
    url, table = serve("fortunes-winds")
    page = new_page(browser, LANDSCAPE)
    page.goto(url + "/")
    page.fill("input[name=setup_code]", setup_code(DATA_DIRS[url]))
    page.fill("input[name=name]", "boss")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.select_option("select[name=mode]", "house-rugen")
    page.click("#setup-form button[type=submit]")
    page.wait_for_url(url + "/")
    assert table.state.mode == "house-rugen" and table.state.seats == ("Ann", "Bob")
    page.click(".chip[data-chip='5']")
    tap_spot(page, "Ann", "chain:3")
    page.wait_for_selector(".felt-seat[data-player='Ann'] [data-spot='chain:3'] .stake:text('5')")
    act(page, table, "button.face-btn:text-is('4d')")  # a chain under way: a marker on 4

    def switch_to_grand_roche():
        page.goto(url + "/settings/")
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        page.select_option("select[name='table.mode']", "grand-roche")
        page.click("#settings-form button[type=submit]")
        page.wait_for_selector("select[name='table.mode'] option[selected]:text-is('grand-roche')",
                               state="attached")
        page.click("#apply-form button[type=submit]")

    switch_to_grand_roche()
    page.wait_for_selector("#settings-error:has-text('between rounds')")
    assert table.state.mode == "house-rugen"
    page.goto(url + "/")
    act(page, table, "button.face-btn:text-is('1d')")  # 1 breaks the chain: the round is over
    assert not table.state.ledger.accounts("bet")
    switch_to_grand_roche()
    page.wait_for_selector(".flash:has-text('The table took the settings.')")
    assert table.state.mode == "grand-roche" and table.state.seats == ("Ann", "Bob")
    page.goto(url + "/")
    page.wait_for_selector(".felt-seat[data-player='Bob'] [data-spot='cavalry']")
    shot(page, "grand-roche-after-switch")
    assert table.state.ledger.players() == {"Ann": 95, "Bob": 100}
