"""Namaste's and Risque's pages through the dashboard (no browser): a player's read-only sheet by
the signed link the banker shares, with the legal circles of the current total lit; Risque's
secret Mises shown as "•" on every screen until revealed, the page in French by default, and the
chance of reaching 10 before the roll."""

from __future__ import annotations

import html as html_lib
import re

from itsdangerous import URLSafeSerializer

from controller.games.base import Command
from tests.web.support import open_table
from web.modes import SHARED_SALT, shared_link


def text(response) -> str:
    return html_lib.unescape(response.text)


def sheet_of(page: str, player: str) -> str:
    return re.search(rf'<div class="nm-sheet[^"]*" data-player="{player}">(.*?)'
                     r'<div class="nm-spaces', page, re.S).group(1)


def test_a_players_sheet_by_the_link_the_banker_shares(tmp_path, make_app, auth):
    table = open_table(tmp_path / "namaste.sqlite3", mode="namaste",
                       players=("Magdalena", "Daniel"), coins=0)
    try:
        app = make_app(table)
        client = app.test_client()
        auth.client = client
        auth.setup()
        assert auth.command("start", first="Magdalena").status_code == 201
        assert auth.command("roll", turquoise="4", white=["1/7", "2"]).status_code == 201
        assert auth.command("enter", player="Magdalena", circle=13, total=13).status_code == 201
        panel = text(client.get("/table/panel"))
        links = dict(re.findall(r'<div class="nm-sheet[^"]*" data-player="(\w+)">.*?'
                                r'class="nm-link" href="([^"]+)"', panel, re.S))
        assert set(links) == {"Magdalena", "Daniel"}
        assert all(link.startswith("/shared/") for link in links.values())
        # The phone is not logged in: the link alone opens Daniel's sheet, and no button.
        phone = app.test_client()
        assert phone.get("/").status_code == 302  # the dashboard itself asks for a login
        response = phone.get(links["Daniel"])
        page = text(response)
        assert 'data-player="Daniel"' in page and 'data-player="Magdalena"' not in page
        assert "data-cmd" not in page and response.headers["Refresh"] == "5"
        # Daniel may enter 3 or 9 (the white dice alone): their legal circles are lit.
        daniel = sheet_of(page, "Daniel")
        lit = dict(re.findall(r'class="nm-circle[^"]* lit" data-circle="(\d+)">\s*'
                              r'<small class="nm-may">([\d/]+)</small>', daniel))
        assert lit["1"] == "3/9" and lit["25"] == "3/9" and len(lit) == 25
        # The same circles are lit on the banker's page.
        assert sheet_of(panel, "Daniel").count(" lit\"") == 25
        # Magdalena has entered: her sheet shows her 13 and nothing lit.
        magdalena = text(phone.get(links["Magdalena"]))
        assert "<b>13</b>" in magdalena and " lit\"" not in sheet_of(magdalena, "Magdalena")
        # A link no one signed, or one with a forged player, is refused.
        assert phone.get("/shared/not-a-token").status_code == 404
        forged = URLSafeSerializer(b"not the key", salt=SHARED_SALT).dumps(["namaste", "Daniel"])
        assert phone.get(f"/shared/{forged}").status_code == 404
        # A link to a mode no longer on the table is gone.
        with app.test_request_context():
            other = shared_link("risque", "Daniel")
        assert phone.get(other).status_code == 410
    finally:
        table.journal.close()


def risque_table(tmp_path):
    table = open_table(tmp_path / "risque.sqlite3", mode="risque", players=("Ann", "Bob"),
                       coins=0)
    for n, (name, clan, virtue) in enumerate([("Kakita Toshimoko", "Crane", 3),
                                              ("Hida Kisada", "Crab", 4)]):
        table.submit(Command("character", {"name": name, "clan": clan,
                                           "virtues": {"Courage": virtue}}, f"c{n}"))
    return table


def test_secret_mises_show_as_a_dot_on_every_screen_until_revealed(tmp_path, make_app, auth):
    table = risque_table(tmp_path)
    try:
        client = make_app(table).test_client()
        auth.client = client
        auth.setup()
        assert auth.command("risque", characters=["Kakita Toshimoko", "Hida Kisada"],
                            about="the bridge").status_code == 201
        for who in ("Kakita Toshimoko", "Hida Kisada"):
            assert auth.command("pool", character=who, virtue="Courage").status_code == 201
        assert auth.command("mise", character="Kakita Toshimoko", mises=2).status_code == 201
        panel = text(client.get("/table/panel"))
        # French by default, with the game's own terms.
        assert "Réserve d'Honneur" in panel and "Chance d'atteindre 10" in panel
        row = re.search(r'<tr data-character="Kakita Toshimoko".*?</tr>', panel, re.S).group(0)
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        assert ">•<" in cells[2] and "2" not in re.sub(r"<[^>]+>", "", cells[2])
        # What is greyed says why, in French too: the Mises are revealed together.
        reveal = re.search(r'<button[^>]*rq-reveal[^>]*>', panel).group(0)
        assert 'aria-disabled="true"' in reveal
        assert "les Mises sont dévoilées ensemble" in reveal and "en attente de Hida Kisada" in reveal
        # So does the refusal of a command sent anyway.
        refused = auth.command("reveal")
        assert refused.status_code == 422
        assert refused.json["error"].startswith("les Mises sont dévoilées ensemble")
        # The chance of reaching 10 with 3 dice, for 0, 1 and 2 Mises, before the roll.
        assert "0: 62%" in cells[3] and "1: 17%" in cells[3] and "2: 0%" in cells[3]
        assert "5/8" in cells[3]  # exact, in the tooltip
        # The journal on the table page and on the money page: the Mises as "•".
        tail = re.findall(r'<span class="seq">#\d+</span> ([^<]*)</li>', panel)
        money = re.findall(r"<td>([^<]*)</td>\s*<td><small>", text(client.get("/money/")))
        for lines in (tail, money):
            staked = [x for x in lines if "Kakita Toshimoko" in x and "•" in x]
            assert len(staked) == 1, lines
            assert "2" not in staked[0].replace("Kakita Toshimoko", ""), staked
        # Revealed together: now the number shows.
        assert auth.command("mise", character="Hida Kisada", mises=1).status_code == 201
        assert auth.command("reveal").status_code == 201
        panel = text(client.get("/table/panel"))
        row = re.search(r'<tr data-character="Kakita Toshimoko".*?</tr>', panel, re.S).group(0)
        assert re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)[2] == "2"
        # English is there for who asks for it.
        auth.client.post("/language/en", data={"csrf_token": auth.token, "next": "/"})
        assert "Honour Reserve" in text(client.get("/table/panel"))
        refused = auth.command("reveal")
        assert refused.status_code == 422 and refused.json["error"].startswith("not now")
    finally:
        table.journal.close()


def test_the_modes_are_switched_between_rounds_from_settings(client, banker, table):
    """Settings takes the table to Rochi, Captain's Rochi, Namaste and Risque between rounds
    (seats and money kept), and refuses while a round is under way, saying why."""
    html = client.get("/settings/").text
    for key in ("games.rochi.joining_fee", "games.rochi.markers", "games.captains-rochi.max_seats",
                "games.namaste.max_seats", "games.risque.max_pool"):
        assert f'name="{key}"' in html, key
    for mode in ("rochi", "captains-rochi", "namaste", "risque"):
        client.post("/settings/", data={"csrf_token": banker.token, "table.mode": mode})
        response = client.post("/settings/apply", data={"csrf_token": banker.token})
        assert response.status_code == 302, (mode, response.text)
        assert table.state.mode == mode and table.state.seats == ("Ginawa", "Sanzo", "Ujikeme")
        assert table.state.ledger.players() == dict.fromkeys(table.state.seats, 20)
    # A Namaste game under way: no switching until it is over.
    client.post("/settings/", data={"csrf_token": banker.token, "table.mode": "namaste"})
    client.post("/settings/apply", data={"csrf_token": banker.token})
    assert banker.command("start", first="Ginawa").status_code == 201
    client.post("/settings/", data={"csrf_token": banker.token, "table.mode": "rochi"})
    response = client.post("/settings/apply", data={"csrf_token": banker.token})
    assert response.status_code == 422 and table.state.mode == "namaste"
    assert "the game changes between rounds" in text(response)
