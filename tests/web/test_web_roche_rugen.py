"""The Roche and Rugen pages: the layout with its spots, the deal or the die by hand, the
settlement, the reasons of what is refused now."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from tests.web.support import open_table


@pytest.fixture
def page_of(make_app, auth, tmp_path):
    """A banker's client at a table of `mode` with Ann and Bob seated (100 coins each)."""
    tables = []

    def make(mode, **settings):
        table = open_table(tmp_path / f"{mode}.sqlite3", mode=mode, players=("Ann", "Bob"),
                           coins=100, settings=settings)
        tables.append(table)
        auth.client = make_app(table).test_client()
        auth.setup()
        return auth, table

    yield make
    for t in tables:
        t.journal.close()


def test_roche_page_layout_deal_by_hand_and_the_cut(page_of):
    auth, table = page_of("roche")
    html = auth.client.get("/").text
    assert 'data-spot="cut:3"' in html and 'data-spot="night:7"' in html
    assert 'data-spot="cavalry"' not in html and "Card bet" not in html
    assert "the dealer calls no more bets before dealing the first card" in html
    assert 'option value="KIN-6-DAY-03"' in html
    assert auth.command("bet", player="Ann", bet="cut:2", amount=4).status_code == 201
    assert auth.command("no-more-bets").status_code == 201
    html = auth.client.get("/table/panel").text
    assert "no more bets: the deal is under way" in html  # the spots greyed, with the reason
    for card in ("MAGES-2-DAY-01", "KIN-6-DAY-03", "MAGES-2-NIGHT-02"):
        assert auth.command("deal", card=card).status_code == 201
    html = auth.client.get("/table/panel").text
    assert 'id="last-cut"' in html and "Mages" in html
    assert "Mages (2s) to cut" in html  # the settlement says the bet in words
    assert table.state.ledger.players()["Ann"] == 108
    # so does the journal, though the command names the bet by its id ("cut:2")
    assert "bet Mages (2s) to cut · amount 4" in auth.client.get("/money/").text


def test_grand_roche_page_has_the_card_bets_and_cavalry(page_of):
    auth, table = page_of("grand-roche")
    html = auth.client.get("/").text
    assert 'data-spot="cavalry"' in html and 'data-spot="starlight:4"' in html
    # A card bet is chosen by its words (the bet's name and the card), sent by its id.
    assert ('<option value="terminus:COMMONS-7-NIGHT-07">Terminus bet: COMMONS-7-NIGHT-07'
            '</option>') in html
    assert auth.command("bet", player="Bob", bet="single:KIN-6-DAY-03", amount=2).status_code \
        == 201
    assert "Single Card bet: KIN-6-DAY-03: 2" in auth.client.get("/table/panel").text


def test_grand_roche_on_four_poker_decks_takes_no_card_bets(page_of):
    auth, _ = page_of("grand-roche", deck="poker")
    html = auth.client.get("/").text
    assert "Card bet" not in html and 'data-spot="cavalry"' in html
    assert 'option value="7H"' in html


def test_house_rugen_page_spots_markers_and_the_faces(page_of):
    auth, table = page_of("house-rugen")
    html = auth.client.get("/").text
    assert 'data-spot="chain-night:4"' in html and '"face": "3d"' in html
    assert auth.command("bet", player="Ann", bet="center:3", amount=3).status_code == 201
    assert auth.command("roll", face="3d").status_code == 201
    html = auth.client.get("/table/panel").text
    assert '<dd id="chain">3d</dd>' in html
    assert "chain bet is taken at the start of a chain" in html
    assert table.state.ledger.players()["Ann"] == 107
    assert "bet Center bet on 3 · amount 3" in auth.client.get("/money/").text


def test_house_rugen_page_on_a_d20_table(page_of):
    auth, _ = page_of("house-rugen", die="d20")
    html = auth.client.get("/").text
    assert '"d20": 20' in html and "20 · 4n" in html
    assert auth.command("roll", d20=14).status_code == 201
    assert '<dd id="chain">4d</dd>' in auth.client.get("/table/panel").text


def test_street_rugen_page_point_bets_and_the_die_passing(page_of):
    auth, table = page_of("street-rugen")
    html = auth.client.get("/").text
    assert "the shooter (Ann) throws his point first" in html and "Side bet" in html
    assert auth.command("roll", face="2n").status_code == 201
    assert auth.command("bet", player="Ann", number=2, amount=10).status_code == 201
    html = auth.client.get("/table/panel").text
    assert '<dd id="point">2</dd>' in html and '<dd id="multiplier">2</dd>' in html
    assert '"amount": 16' in html  # Bob's spot on 1: 8 x 2
    assert auth.command("bet", player="Bob", number=1, amount=16).status_code == 201
    assert auth.command("roll", face="1d").status_code == 201
    assert table.state.shooter == "Bob" and table.state.ledger.players()["Bob"] == 110


def test_capital_rugen_page_prices_and_the_house_cover(page_of):
    auth, table = page_of("capital-rugen")
    html = auth.client.get("/").text
    assert "Player price" in html and "8 5 4 3" in html and "7 4 3 2" in html
    assert auth.command("bet", player="Ann", number=4, amount=3).status_code == 201
    assert auth.command("roll", face="1n").status_code == 201
    assert table.state.ledger.players()["Ann"] == 97


def test_settings_switch_the_table_to_roche_and_rugen_modes(client, banker, table):
    html = client.get("/settings/").text
    for mode in ("roche", "grand-roche", "street-rugen", "house-rugen", "capital-rugen"):
        assert f"<option >{mode}</option>" in html
    assert "games.capital-rugen.player_prices" in html
    client.post("/settings/", data={"csrf_token": banker.token, "table.mode": "grand-roche",
                                    "games.grand-roche.deck": "poker"})
    assert client.post("/settings/apply", data={"csrf_token": banker.token}).status_code == 302
    assert table.state.mode == "grand-roche" and table.state.settings["deck"] == "poker"
    assert table.state.seats == ("Ginawa", "Sanzo", "Ujikeme")
    assert 'option value="7H"' in client.get("/").text


@pytest.mark.parametrize("mode", ["roche", "grand-roche", "street-rugen", "house-rugen",
                                  "capital-rugen"])
def test_the_first_run_wizard_chooses_the_game(client, app, table, mode):
    from tests.web.support import PASSWORD, csrf_of, setup_code

    page = client.get("/setup").text
    assert f'<option value="{mode}"' in page and 'value="fortunes-winds" selected' in page
    form = {"name": "boss", "password": PASSWORD, "password2": PASSWORD,
            "csrf_token": csrf_of(page), "setup_code": setup_code(client)}
    refused = client.post("/setup", data={**form, "mode": "roulette"})
    assert refused.status_code == 422 and "not a game" in refused.text
    assert table.state.mode == "fortunes-winds" and client.get("/setup").status_code == 200
    assert client.post("/setup", data={**form, "mode": mode}).status_code == 302
    assert table.state.mode == mode and table.state.seats == ("Ginawa", "Sanzo", "Ujikeme")
    assert app.extensions["feltbank.config"]["table.mode"] == mode  # saved for the next start
    assert f"mode-{mode}" in client.get("/").text


def test_the_money_page_marks_the_street_numbers_that_favour_the_player(page_of):
    auth, _ = page_of("street-rugen")
    html = auth.client.get("/money/").text
    assert "At the house&#39;s pays, these bets favour the player in some play:" in html
    for spot in ("street:2", "street:4"):
        assert f'<tr class="favours" data-bet="{spot}">' in html, spot
    assert "cavalry" in html and "chain-day:4" in html and "capital:3" in html


@contextmanager
def camera_table(make_app, auth, path, mode):
    """A table of `mode` (Ann holding 100 coins) behind a LiveTable, its dashboard signed in
    on `auth.client`: yields (table, the LiveTable), closes the journal after."""
    from controller.live import LiveTable

    table = open_table(path, mode=mode, players=("Ann",), coins=100)
    try:
        door = LiveTable(table)
        auth.client = make_app(table, live=door).test_client()
        auth.setup()
        yield table, door
    finally:
        table.journal.close()


def correct_reading(auth, pending, face):
    """The banker corrects the first object of the `pending` reading to `face`."""
    response = auth.client.post("/api/live/confirm", json={
        "pending": pending.id, "corrections": {"0": face}},
        headers={"X-CSRF-Token": auth.token})
    assert response.status_code == 200, response.text


def test_an_unsure_camera_reading_is_corrected_by_the_banker(make_app, auth, tmp_path):
    from controller.games.observation import Observation, Seen

    with camera_table(make_app, auth, tmp_path / "cam.sqlite3", "grand-roche") as (table, door):
        assert auth.command("bet", player="Ann", bet="cut:2", amount=2).status_code == 201
        pending = door.observe(Observation((Seen("KIN-6-DAY-03", 0.55, kind="card"),)))
        html = auth.client.get("/table/panel").text
        assert 'data-face="KIN-6-NIGHT-06"' in html  # its suit's cards offered first
        correct_reading(auth, pending, "MAGES-2-DAY-01")
        assert table.state.dealt == ("MAGES-2-DAY-01",) and table.state.phase == "dealing"


ENGINES = ("controller/games/roche.py", "controller/games/roche_deck.py",
           "controller/games/rugen.py")


def test_every_refusal_of_roche_and_rugen_is_a_template_with_french(app):
    """Each IllegalCommand of the Roche and Rugen engines is a literal template with named
    values, the French catalog has it, and a refusal reads in French on a French page."""
    import ast
    from pathlib import Path

    from babel.messages.pofile import read_po
    from flask import session

    from controller.games import find_game
    from controller.games.base import Command
    from controller.games.roche import BET_NAMES
    from controller.games.rugen import HOUSE_NAMES
    from web.i18n import TRANSLATIONS, refusal

    root = Path(__file__).resolve().parents[2]
    with (TRANSLATIONS / "fr" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = {m.id: m.string for m in read_po(f) if m.id}
    templates = []
    for path in ENGINES:
        for node in ast.walk(ast.parse((root / path).read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "IllegalCommand":
                first = node.args[0]
                assert isinstance(first, ast.Constant), f"{path}:{node.lineno} not a literal"
                templates.append(first.value)
    assert len(templates) > 40
    missing = [t for t in (*templates, *BET_NAMES.values(), *HOUSE_NAMES.values())
               if not catalog.get(t)]
    assert not missing, missing
    house = find_game("house-rugen")
    state = house.new_state()
    state, _ = house.apply(state, Command("join", {"player": "Ann"}))
    try:
        house.apply(state, Command("bet", {"player": "Ann", "bet": "day:3", "amount": 3}))
    except Exception as exc:  # noqa: BLE001 - the refusal under test
        refused = exc
    with app.test_request_context():
        session["lang"] = "fr"
        assert refusal(refused) == "Ann a 0 pièces ; pari de Jour de 3 : c'est plus"
    assert str(refused) == "Ann holds 0 coins; a Day bet of 3 is more"


def test_the_last_settlement_says_each_bet_in_words_and_belongs_to_this_game(page_of):
    auth, table = page_of("street-rugen")
    for cmd in ({"kind": "side-bet", "player": "Ann", "group": "g", "number": 2, "amount": 5},
                {"kind": "side-bet", "player": "Bob", "group": "g", "number": 4, "amount": 3}):
        assert auth.command(**cmd).status_code == 201
    for cmd in ({"kind": "roll", "face": "2d"}, {"kind": "bet", "player": "Ann", "number": 2,
                                                  "amount": 5},
                {"kind": "bet", "player": "Bob", "number": 4, "amount": 3},
                {"kind": "roll", "face": "2n"}, {"kind": "roll", "face": "2n"}):
        assert auth.command(**cmd).status_code == 201
    html = auth.client.get("/table/panel").text
    assert "2 to break the chain (side bet) · 5" in html and "side.g.2" not in html
    assert "2 to break the chain · 5" in html
    # Another game now: the last settlement was Street Rugen's, not this game's.
    assert auth.command("open", mode="house-rugen", settings={}).status_code == 201
    html = auth.client.get("/table/panel").text
    assert 'id="settlement"' not in html and "break the chain" not in html


def test_the_journal_says_each_games_bets_in_that_games_words(page_of):
    auth, _ = page_of("house-rugen")
    assert auth.command("bet", player="Ann", bet="day:3", amount=3).status_code == 201
    assert auth.command("roll", face="1d").status_code == 201
    assert auth.command("open", mode="roche", settings={}).status_code == 201
    assert auth.command("bet", player="Ann", bet="day:3", amount=1).status_code == 201
    for text in (auth.client.get("/table/panel").text, auth.client.get("/money/").text):
        assert "bet Day bet on 3 · amount 3" in text  # House Rugen's one-roll Day bet
        assert "bet Realm (3s) all Day · amount 1" in text  # Roche's


def test_an_unsure_rugen_die_waits_for_the_banker_and_is_corrected(make_app, auth, tmp_path):
    from controller.games.observation import Observation, Seen

    with camera_table(make_app, auth, tmp_path / "rugen-cam.sqlite3",
                      "house-rugen") as (table, door):
        assert auth.command("bet", player="Ann", bet="center:4", amount=4).status_code == 201
        pending = door.observe(Observation((Seen("3d", 0.55, zone="rolling"),)))
        html = auth.client.get("/table/panel").text
        assert 'data-face="4n"' in html  # the die's eight faces offered
        assert table.state.chain == ()  # nothing applied before the banker's word
        correct_reading(auth, pending, "4n")
        assert table.state.chain == ("4n",)
        assert table.state.ledger.players()["Ann"] == 100 + 5  # Center 4 on a Night 4: 5 per 4
