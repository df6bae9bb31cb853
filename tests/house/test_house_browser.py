"""The house's dashboard in a real browser (Debian's chromium, headless, Playwright) over the
house's HTTPS: the wizard, a table's row updated live as entries arrive, the statements and
the charts. Screenshots go to artifacts/house/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import playwright.sync_api as playwright_api
import pytest

from controller.outbox import HouseClient
from house.testbed import HouseProcess
from tests.house.conftest import played_journal

CHROMIUM = os.environ.get("FELTBANK_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "house"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.environ.get("CI"),
                       reason=f"no chromium at {CHROMIUM}"),
]


def shot(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_the_house_dashboard_live_in_a_browser(house, house_url, tmp_path):
    proc = HouseProcess(house_url, tmp_path / "house")
    proc.start()
    tokens = {t: house.add_table(t, f"Table {t[1]}") for t in ("t1", "t2")}
    journals = {t: played_journal(tmp_path / f"{t}.sqlite3", 60, mode=mode, seed=n)
                for n, (t, mode) in enumerate((("t1", "hazard"), ("t2", "fortunes-winds")))}
    clients = {t: HouseClient(proc.url, t, tokens[t], str(proc.ca)) for t in tokens}
    try:
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            # The throwaway CA is not the browser's: the certificate is checked by the tables.
            page = browser.new_page(viewport={"width": 1280, "height": 800},
                                    ignore_https_errors=True)
            page.set_default_timeout(15_000)
            page.goto(proc.url + "/")
            page.wait_for_url("**/setup")
            code = (proc.folder / "data" / "setup-code").read_text().strip()
            page.fill("input[name=setup_code]", code)
            page.fill("input[name=name]", "boss")
            page.fill("input[name=password]", "house-pass-1")
            page.fill("input[name=password2]", "house-pass-1")
            page.click("#setup-form button[type=submit]")
            page.wait_for_url(proc.url + "/")
            row = page.locator("tr[data-table=t1] [data-field=seq]")
            playwright_api.expect(row).to_have_text("0")
            # Entries arrive: the row changes without a reload.
            clients["t1"].ship(list(journals["t1"].chained(limit=25)))
            playwright_api.expect(row).to_have_text("25")
            for t, client in clients.items():
                client.ship(list(journals[t].chained(after=25 if t == "t1" else 0)))
            playwright_api.expect(row).to_have_text("60")
            bank = journals["t1"].verify().balances.get("bank", 0)
            playwright_api.expect(
                page.locator("tr[data-table=t1] [data-field=house_result]")).to_have_text(
                str(bank))
            shot(page, "01-tables")
            page.click("nav a[href='/statements']")
            page.wait_for_url("**/statements")
            playwright_api.expect(page.locator("tr.total[data-player=P1]")).to_have_count(1)
            shot(page, "02-statements")
            page.click("nav a[href='/results']")
            page.wait_for_url("**/results")
            playwright_api.expect(page.locator("#by-mode rect")).to_have_count(2)
            shot(page, "03-results")
            browser.close()
    finally:
        proc.stop()
        for j in journals.values():
            j.close()
