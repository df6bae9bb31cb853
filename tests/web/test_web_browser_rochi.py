"""Rochi and Captain's Rochi in a real browser (Debian's chromium, headless, by Playwright):
the first-run wizard chooses Rochi, a hand is seeded and played by tapping the card buttons
to its settlement, and Settings switches the table to Captain's Rochi between hands.
Screenshots go to artifacts/web/."""

from __future__ import annotations

from test_web_browser import (  # noqa: F401 (the browser and server fixtures)
    LANDSCAPE,
    act,
    browser,
    new_page,
    pytestmark,
    server,
    setup_banker,
    shot,
)

SEEDS = ["KIN-6-DAY-01", "COMMONS-7-DAY-01", "COMMONS-7-DAY-02", "MAGES-2-DAY-01",
         "MAGES-2-NIGHT-01", "REALM-3-DAY-01"]


def command(kind: str, card: str | None = None) -> str:
    """The selector of the page's button that sends `kind` (for `card`)."""
    if card:
        return f"button.{kind}-card[data-cmd*='\"{card}\"']"
    return f"button.cmd[data-cmd*='\"{kind}\"']"


def test_rochi_chosen_in_the_wizard_played_and_switched_in_settings(browser, server):  # noqa: F811
    url, table = server["url"], server["table"]
    page = new_page(browser, LANDSCAPE)
    setup_banker(page, url, mode="rochi")
    assert table.state.mode == "rochi"
    page.wait_for_selector(".rochi-suit[data-suit='kin']")
    act(page, table, command("start-hand"))
    for card in SEEDS:
        act(page, table, command("deal", card))
    # The seeds cut Mages: locked; Kin shows its count against its cut and its price.
    assert "locked" in page.inner_text(".rochi-suit[data-suit='mages'] .badges")
    assert page.inner_text(".rochi-suit[data-suit='kin'] .count") == "1 / 6"
    assert page.inner_text(".rochi-suit[data-suit='kin'] .price") == "Price 2"
    act(page, table, command("play", "KIN-6-DAY-02"))
    assert page.inner_text(".rochi-suit[data-suit='kin'] .owner") == "Ginawa"
    assert page.inner_text(".rochi-player[data-player='Ginawa'] .owns") == "Kin"
    # A second play is greyed; a tap says why.
    page.click(command("play", "KIN-6-DAY-03"), force=True)
    page.wait_for_selector("#toast:has-text('played a card this turn')")
    shot(page, "rochi-01-kin-bought")
    act(page, table, command("end-turn"))
    act(page, table, command("fold"))
    act(page, table, command("fold"))
    # Ginawa is the last player standing with one suit: Kin wins its pot at once.
    result = page.inner_text("#rochi-result")
    assert "the last player standing wins" in result and "Winner: Ginawa · Kin · Pot 2" in result
    assert page.inner_text("#coins-moved tbody").split() == ["Ginawa", "+2"]
    shot(page, "rochi-02-settled")
    assert table.state.ledger.players()["Ginawa"] == 20
    # Between hands, Settings takes the table to Captain's Rochi.
    page.goto(url + "/settings/")
    page.select_option("select[name='table.mode']", "captains-rochi")
    page.click("#settings-form button[type=submit]")
    page.wait_for_load_state()
    page.click("#apply-form button[type=submit]")
    page.wait_for_url(url + "/**")
    assert table.state.mode == "captains-rochi"
    assert table.state.seats == ("Ginawa", "Sanzo", "Ujikeme")
    page.goto(url + "/")
    act(page, table, command("start-game"))
    assert page.inner_text("#deck") == "40" and table.state.game.held == (7, 7)
    shot(page, "rochi-03-captains-game")
    page.close()
