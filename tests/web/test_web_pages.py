"""The pages: the table (each mode's page in the shared frame), money, settings, calibration."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from tests.web.support import open_table


def test_fortunes_and_winds_page_shows_the_felt_and_greys_what_is_refused(client, banker):
    html = client.get("/").text
    assert "Banker sits here" in html
    for words in ("Win: bet 2 to win 3", "Standard Bet", "Bet for Lord Moon",
                  "Lose: bet 3 to win 2", "3 rolls: bet 1 to win 1"):
        assert words in html
    # The shooter may not make side bets: greyed, the reason as tooltip.
    assert "the shooter may not make side bets" in html
    # No roll before the shooter's standard bet: the confirm button says why.
    assert 'id="confirm-roll"' in html and "lays a standard bet" in html
    assert 'data-cmd=\'{"kind": "pass"}\'' in html and "winning turn" in html


def test_a_turn_on_the_page_settles_and_passes_the_dice(client, banker, table):
    assert banker.command("bet", player="Ginawa", bet="standard", amount=2).status_code == 201
    assert banker.command("bet", player="Sanzo", bet="hungry-moon", amount=2).status_code == 201
    html = client.get("/table/panel").text
    assert 'data-row="MOON"' in html and "lays a standard bet" not in html
    response = banker.command("roll", faces=["EARTH", "WATER", "FIRE", "AIR", "SUN"])
    assert response.status_code == 201
    html = client.get("/table/panel").text
    assert 'id="settlement"' in html and "The Lady&#39;s Tears won · 1 roll</p>" in html
    assert "Lord Moon money" in html and "Hungry Moon" in html
    # A winner may pass the dice: the pass button is live now.
    assert 'class="cmd pass"' in html
    assert banker.command("pass").status_code == 201
    assert table.state.shooter == "Sanzo"
    # The next turn's betting: last turn's dice are off the felt (the viewer's screen shows
    # the same panel); how that turn ended stays in the settlement card.
    html = client.get("/table/panel").text
    felt = html.split('class="dice-row"')[1].split("</div>")[0]
    assert felt.count('data-value=""') == 5 and "EARTH" not in felt, felt
    assert "The Lady&#39;s Tears won" in html


def test_set_aside_and_the_advisor_hint(client, banker):
    banker.command("bet", player="Ginawa", bet="standard", amount=1)
    banker.command("roll", faces=["NORTH", "EAST", "FIRE", "BIRD", "VOID"])
    html = client.get("/table/panel").text
    assert 'id="advice"' in html and "NORTH, EAST" in html
    assert 'class="die white pickable"' in html
    assert banker.command("set-aside", dice=["NORTH", "EAST"]).status_code == 201
    html = client.get("/table/panel").text
    assert 'data-row="EARTH"' not in html.split('id="confirm"')[1]  # not rolled again


@pytest.fixture
def hazard_client(make_app, hazard_table, auth):
    auth.client = make_app(hazard_table).test_client()
    auth.setup()
    return auth


def test_hazard_page_the_main_the_chance_the_bets_and_losses(hazard_client, hazard_table):
    auth = hazard_client
    html = auth.client.get("/").text
    assert "Call the main" in html and "Losses in a row" in html
    assert "bets open once the caster has called a main" in html
    assert auth.command("call-main", main=7).status_code == 201
    assert auth.command("bet", player="Bob", bet="caster-loses", amount=20).status_code == 201
    assert auth.command("throw", dice=[2, 2]).status_code == 201
    html = auth.client.get("/table/panel").text
    assert '<dd id="chance">4</dd>' in html and '<dd id="main">7</dd>' in html
    assert auth.command("throw", dice=[3, 4]).status_code == 201  # the main: the caster loses
    html = auth.client.get("/table/panel").text
    assert "the caster loses" in html and "caster loses" in html
    assert "1 / 3" in html  # Ann's losses in a row
    assert "(−1)" in html  # the commission on Bob's win


def test_a_mode_without_a_page_gets_the_generic_one(hazard_client, monkeypatch):
    import dataclasses

    from controller import modes

    hazard = dataclasses.replace(modes.find_mode("hazard"), page_ref="")
    monkeypatch.setattr(modes, "_modes", {**modes.modes(), "hazard": hazard})
    html = hazard_client.client.get("/").text
    assert 'data-kind="call-main"' in html and 'data-kind="throw"' in html
    assert 'name="dice" data-type="list"' in html
    assert hazard_client.command("call-main", main=6).status_code == 201


def test_the_viewer_page_has_no_controls(client, viewer):
    html = client.get("/").text
    assert "data-cmd" not in html and 'class="chip"' not in html and 'id="join-form"' not in html


# -- money -----------------------------------------------------------------------------------


def play_a_turn(banker):
    banker.command("bet", player="Ginawa", bet="standard", amount=1)
    banker.command("bet", player="Ujikeme", bet="daikoku-against", amount=3)
    banker.command("roll", faces=["NORTH", "EAST", "FIRE", "AIR", "MOON"])


def test_money_page_players_statements_house_chart_and_odds(client, banker):
    play_a_turn(banker)
    html = client.get("/money/").text
    assert 'data-player="Ginawa"' in html and 'data-kind="buy-in"' in html
    assert 'class="house-line"' in html
    # Statements: Ginawa lost 1 (standard) and 1 (Lord Moon); Ujikeme won 2.
    assert "Ujikeme</td><td class=\"num\">20</td>" in html
    # The odds: every mode's bets; those favouring the player stand out.
    assert "Fortunes and Winds" in html and "Hazard" in html
    assert "these bets favour the player in some play" in html and 'class="favours"' in html
    # In words, under which play (no internal ids, no unexplained column).
    assert "Favours the player when the shooter sets dice aside to make this bet win" in html
    assert re.search(r">[^<]*caster-(wins|loses):", html) is None and "Worst edge" not in html
    assert "caster wins · main 5" in html
    assert "bets at true odds (no house edge)" in html
    # Modes without bets show what their odds are: Risque's chance of reaching 10 by pool
    # and Mises, Namaste's totals.
    risque = re.search(r'<table class="grid odds odds-table" data-game="risque">.*?</table>',
                       html, re.S).group(0)
    assert "Chance of reaching 10 with a pool of dice after the Mises" in risque
    assert re.search(r'<th scope="row">3</th><td class="num" title="5/8">62.50%</td>', risque)
    assert 'data-game="namaste"' in html and "Risque has no bets and no house" in html


def test_journal_filter_and_exports(client, banker, table):
    play_a_turn(banker)
    html = client.get("/money/?kind=roll").text
    assert "roll faces" in html and "bet player" not in html
    # A list reads as words, not as Python's ['NORTH', ...].
    assert "roll faces NORTH EAST FIRE AIR MOON" in html and "[&#39;" not in html
    html = client.get("/money/?player=Ujikeme").text
    assert "bet player Ujikeme · bet Daikoku&#39;s Belly (against the shooter) · amount 3" in html
    jsonl = client.get("/money/journal.jsonl")
    assert jsonl.headers["Content-Disposition"] == "attachment; filename=journal.jsonl"
    lines = [json.loads(line) for line in jsonl.text.splitlines()]
    assert len(lines) == len(table.journal) and lines[0]["kind"] == "open"
    only = client.get("/money/journal.jsonl?kind=bet").text.splitlines()
    assert len(only) == 2
    rows = list(csv.reader(io.StringIO(client.get("/money/journal.csv").text)))
    assert rows[0][:5] == ["seq", "at", "source", "id", "kind"]
    assert any(r[4] == "roll" and r[7] == "bank" for r in rows[1:])
    assert client.get("/money/?limit=abc").status_code == 400
    assert client.get("/money/journal.csv?limit=0").status_code == 400


def test_csv_cells_cannot_become_spreadsheet_formulas(client, banker):
    banker.command("join", id="=HYPERLINK(1)", player="Mallory")
    rows = list(csv.reader(io.StringIO(client.get("/money/journal.csv").text)))
    assert ["'=HYPERLINK(1)"] == [r[3] for r in rows if r[4] == "join" and "Mallory" in r[5]]


def test_statements_page_is_printable(client, banker):
    play_a_turn(banker)
    html = client.get("/money/statements").text
    assert "print-now" in html and "<h2>Ujikeme</h2>" in html and "print-page" in html


def test_money_on_a_table_with_no_players(make_app, tmp_path, auth):
    table = open_table(tmp_path / "empty.sqlite3", players=())
    auth.client = make_app(table).test_client()
    auth.setup()
    html = auth.client.get("/money/").text
    assert "no players yet" in html
    assert auth.client.get("/money/statements").status_code == 200


# -- settings ---------------------------------------------------------------------------------


def test_settings_page_lists_every_key_with_what_it_accepts(client, banker):
    html = client.get("/settings/").text
    for key in ("table.name", "web.language", "web.port", "games.hazard.commission_percent",
                "games.fortunes-winds.daikoku_against"):
        assert f'name="{key}"' in html
    assert "a pay rate X:Y" in html


def test_settings_are_validated_and_written(client, banker, app):
    path = app.config["CONFIG_PATH"]
    response = client.post("/settings/", data={"csrf_token": banker.token, "table.name": "Felt 2",
                                               "games.hazard.commission_percent": "4",
                                               "web.language": "en"})
    assert response.status_code == 302
    text = path.read_text()
    assert 'name = "Felt 2"' in text and "commission_percent = 4" in text
    assert "language" not in text  # a default that was not set stays out of the file
    assert "Felt 2" in client.get("/").text


@pytest.mark.parametrize("form,words", [
    ({"web.port": "eighty"}, "web.port"),
    ({"web.port": "70000"}, "web.port"),
    ({"games.hazard.caster_wins_pays": "lots"}, "caster_wins_pays"),
    ({"games.hazard.min_bet": "50", "games.hazard.max_bet": "10"}, "above max_bet"),
    ({"web.secure_cookies": "maybe"}, "true or false"),
    ({"no.such.key": "1"}, "unknown setting"),
    ({"table.mode": "poker"}, "table.mode"),
])
def test_bad_settings_are_refused_with_a_clear_error_and_nothing_written(client, banker, app,
                                                                          form, words):
    response = client.post("/settings/", data={"csrf_token": banker.token, **form})
    assert response.status_code == 422
    assert words in response.text and 'id="settings-error"' in response.text
    assert not app.config["CONFIG_PATH"].exists()


def test_apply_takes_the_settings_to_the_table(client, banker, table):
    client.post("/settings/", data={"csrf_token": banker.token,
                                    "games.fortunes-winds.max_bet": "50"})
    assert client.post("/settings/apply", data={"csrf_token": banker.token}).status_code == 302
    assert table.state.settings["max_bet"] == 50
    # Another mode: the table opens it (between rounds), keeping seats and money.
    client.post("/settings/", data={"csrf_token": banker.token, "table.mode": "hazard"})
    client.post("/settings/apply", data={"csrf_token": banker.token})
    assert table.state.mode == "hazard" and table.state.seats == ("Ginawa", "Sanzo", "Ujikeme")


def test_apply_in_the_middle_of_a_turn_says_why_not(client, banker, table):
    banker.command("bet", player="Ginawa", bet="standard", amount=1)
    client.post("/settings/", data={"csrf_token": banker.token,
                                    "games.fortunes-winds.max_bet": "50"})
    response = client.post("/settings/apply", data={"csrf_token": banker.token})
    assert response.status_code == 422 and "no bets lie on the table" in response.text
    assert table.state.settings["max_bet"] == 1000


def test_calibration_page_without_a_service_says_how_to_calibrate(client, banker):
    html = client.get("/calibration/").text
    assert "feltbank calibrate --captures DIR --out PROFILE" in html
    response = client.post("/calibration/learn", headers={"X-CSRF-Token": banker.token}, json={})
    assert response.status_code == 404 and "feltbank calibrate" in response.json["error"]


class FakeCalibrator:
    """The calibration service's interface, in memory."""

    target = 2

    def __init__(self):
        self._counts = {}
        self.state = {"state": "idle", "fraction": 0.0, "message": "", "report": None}
        self._versions = {"active": "v001", "versions": ["v001"]}

    def labels(self):
        return ["EARTH", "NORTH", "RICE"]

    def counts(self):
        return dict(self._counts)

    def capture(self, label):
        if label == "RICE" and self._counts.get("NORTH", 0) == 0:
            raise ValueError("no die is on the felt")
        self._counts[label] = self._counts.get(label, 0) + 1
        return self._counts[label]

    def learn(self):
        if any(self._counts.get(label, 0) < self.target for label in self.labels()):
            raise ValueError("every label needs 2 captures first")
        self.state = {"state": "done", "fraction": 1.0, "message": "learned",
                      "report": {"accuracy": 0.97, "per_label": {"EARTH": 1.0, "NORTH": 0.91,
                                                                 "RICE": 1.0},
                                 "confused": [["NORTH", "EARTH", 2]]}}
        self._versions = {"active": "v001", "versions": ["v001", "v002"]}

    def progress(self):
        return self.state

    def versions(self):
        return self._versions

    def activate(self, version):
        self._versions = {**self._versions, "active": version}

    def rollback(self):
        self._versions = {**self._versions, "active": "v001"}
        return "v001"


def test_guided_calibration_capture_learn_activate_rollback(make_app, table, auth):
    cal = FakeCalibrator()
    auth.client = make_app(table, calibrator=cal).test_client()
    auth.setup()
    headers = {"X-CSRF-Token": auth.token}
    html = auth.client.get("/calibration/").text
    assert 'id="next-face"' in html and "<strong>EARTH</strong>" in html
    for label in ("EARTH", "EARTH", "NORTH"):
        assert auth.client.post("/calibration/capture", headers=headers,
                                json={"label": label}).status_code == 200
    assert "<strong>RICE</strong>" in auth.client.get("/calibration/").text
    bad = auth.client.post("/calibration/capture", headers=headers, json={"label": "FISH"})
    assert bad.status_code == 400 and "EARTH, NORTH, RICE" in bad.json["error"]
    early = auth.client.post("/calibration/learn", headers=headers, json={})
    assert early.status_code == 422 and "2 captures" in early.json["error"]
    for label in ("NORTH", "RICE", "RICE"):
        auth.client.post("/calibration/capture", headers=headers, json={"label": label})
    assert auth.client.post("/calibration/learn", headers=headers, json={}).status_code == 200
    status = auth.client.get("/calibration/status").json
    assert status["progress"]["state"] == "done" and status["next"] is None
    html = auth.client.get("/calibration/").text
    assert "97.0%" in html and "NORTH ↔ EARTH: 2" in html and "Every face has its captures" in html
    assert auth.client.post("/calibration/activate", headers=headers,
                            json={"version": "v002"}).status_code == 200
    assert cal.versions()["active"] == "v002"
    # Every profile version is listed, the active one marked, the others each activatable.
    versions = re.search(r'<ul class="versions" id="versions">(.*?)</ul>',
                         auth.client.get("/calibration/").text, re.S).group(1)
    assert re.findall(r'data-version="(v\d+)"', versions) == list(
        reversed(cal.versions()["versions"]))
    assert re.search(r'data-version="v002"><span translate="no">v002</span> <strong>\(active',
                     versions)
    assert auth.client.post("/calibration/activate", headers=headers,
                            json={"version": "../x"}).status_code == 400
    assert auth.client.post("/calibration/rollback", headers=headers, json={}).json == {
        "ok": True, "result": "v001"}


class CornerCalibrator(FakeCalibrator):
    """A calibrator whose camera takes the felt's corners (the real one hands them to the rig)."""

    def __init__(self):
        super().__init__()
        self.corners = None

    def set_corners(self, corners):
        if corners and corners[2][0] <= corners[0][0]:
            raise ValueError("table corners: expected four corners of a convex felt area")
        self.corners = corners


def test_felt_corners_tapped_on_the_picture_are_used_and_kept(make_app, table, auth, tmp_path):
    cal = CornerCalibrator()
    app = make_app(table, calibrator=cal)
    auth.client = app.test_client()
    auth.setup()
    headers = {"X-CSRF-Token": auth.token}
    html = auth.client.get("/calibration/").text
    assert "Felt corners" in html and "the corner markers" in html and 'id="corners-save"' in html
    tapped = [[150.5, 113], [1490, 113.2], [1490, 1118], [150, 1118]]
    r = auth.client.post("/calibration/corners", headers=headers, json={"corners": tapped})
    assert r.status_code == 200 and cal.corners == tapped
    import tomllib

    kept = tomllib.loads(app.config["CONFIG_PATH"].read_text())
    assert kept["camera"]["corners"] == tapped
    assert app.extensions["feltbank.config"]["camera.corners"] == tapped
    assert "[[150.5, 113]" in auth.client.get("/calibration/").text
    # refused: not four points, not numbers, not a felt's corners: nothing changes
    saved = app.config["CONFIG_PATH"].read_text()
    for bad in ([[1, 2]], [[0, 0], [9, 0], [9, 9], ["x", 9]], "here", None,
                [[900, 0], [1000, 0], [100, 900], [0, 900]]):
        r = auth.client.post("/calibration/corners", headers=headers, json={"corners": bad})
        assert r.status_code == 422, bad
        assert cal.corners == tapped and app.config["CONFIG_PATH"].read_text() == saved
    # back to the markers
    r = auth.client.post("/calibration/corners", headers=headers, json={"corners": []})
    assert r.status_code == 200 and cal.corners == []
    assert app.extensions["feltbank.config"]["camera.corners"] == []


def test_pages_in_french(client, banker):
    client.post("/language/fr", data={"csrf_token": banker.token})
    html = client.get("/").text
    assert "Mise standard" in html and "Le banquier est assis ici" in html
    assert "Confirmer le lancer" in html
    assert "Cotes et avantage de la maison" in client.get("/money/").text


def test_a_table_never_opened_says_so(make_app, tmp_path, auth):
    from controller.journal import Journal
    from controller.table import Table

    table = Table(Journal(tmp_path / "new.sqlite3"))
    auth.client = make_app(table).test_client()
    auth.setup()
    html = auth.client.get("/").text
    assert "The table is not open yet" in html
    assert auth.client.get("/api/state").json["open"] is False
    assert auth.client.get("/money/").status_code == 200
    response = auth.command("open", mode="hazard")
    assert response.status_code == 201 and table.state.mode == "hazard"


def test_a_refused_setting_keeps_what_was_typed_and_marks_the_key(client, banker):
    response = client.post("/settings/", data={"csrf_token": banker.token, "web.port": "eighty",
                                               "table.name": "Felt 9"})
    assert response.status_code == 422
    assert 'value="eighty"' in response.text and 'value="Felt 9"' in response.text
    assert 'class="setting bad"' in response.text
    assert "<option >hazard</option>" in response.text  # the modes to choose from


def _form_as_shown(html: str) -> dict:
    """Every input and select of the settings form with the value the page shows."""
    import html as html_lib

    form = {}
    for name, value in re.findall(r'<input name="([^"]+)" value="([^"]*)"', html):
        form[name] = html_lib.unescape(value)
    for name, body in re.findall(r'<select name="([^"]+)"[^>]*>(.*?)</select>', html, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected', body) or re.search(
            r"<option[^>]*selected[^>]*>([^<]*)</option>", body)
        if chosen:
            form[name] = html_lib.unescape(chosen.group(1))
    return form


def test_the_settings_form_saves_as_shown_and_with_lists_changed(client, banker, app):
    # a browser posts every field: the page's own values must be accepted as they are shown,
    # lists of numbers and lists of points included
    form = _form_as_shown(client.get("/settings/").text)
    assert {"camera.felt_mm", "zones.rolling", "camera.corners"} <= set(form)
    response = client.post("/settings/", data={"csrf_token": banker.token, **form})
    assert response.status_code == 302, response.text[:2000]
    form["camera.felt_mm"] = "440, 330"
    form["camera.corners"] = "[[150, 113], [1490, 113], [1490, 1118], [150, 1118]]"
    form["zones.tray"] = "[[400, 0], [440, 0], [440, 330], [400, 330]]"
    response = client.post("/settings/", data={"csrf_token": banker.token, **form})
    assert response.status_code == 302, response.text[:2000]
    saved = app.extensions["feltbank.config"]
    assert saved["camera.felt_mm"] == [440.0, 330.0]
    assert saved["camera.corners"] == [[150, 113], [1490, 113], [1490, 1118], [150, 1118]]
    assert saved["zones.tray"][1] == [440, 0]
    shown = _form_as_shown(client.get("/settings/").text)
    assert shown["camera.felt_mm"] == "440.0, 330.0"
    assert shown["camera.corners"].startswith("[[150, 113]")
    form["zones.tray"] = "[[400, 0], [440, 0"
    response = client.post("/settings/", data={"csrf_token": banker.token, **form})
    assert response.status_code == 422 and "zones.tray" in response.text


def test_learn_waits_for_enough_captures_and_a_capture_pauses_the_readings(make_app, table,
                                                                            auth):
    """Learn is greyed, saying which faces want captures, until every face has enough; a
    capture during play leaves no reading on the table: the camera's readings wait until the
    banker is done calibrating."""
    from controller.games.observation import Observation, Seen
    from controller.live import LiveTable

    cal = FakeCalibrator()
    door = LiveTable(table)
    auth.client = make_app(table, calibrator=cal, live=door).test_client()
    auth.setup()
    headers = {"X-CSRF-Token": auth.token}
    html = auth.client.get("/calibration/").text
    assert re.search(r'id="learn"[^>]*disabled', html)
    assert "still to capture: EARTH (0/2), NORTH (0/2), RICE (0/2)" in html
    assert auth.client.post("/calibration/capture", headers=headers,
                            json={"label": "EARTH"}).status_code == 200
    # The die shown to the camera is seen: it is not a roll.
    shown = Observation((Seen("EARTH", 0.99, (100.0, 100.0), "rolling"),))
    door.observe(shown)
    assert door.pending is None and door.paused
    assert 'id="calibrating"' in auth.client.get("/table/panel").text
    for label in ("EARTH", "NORTH", "NORTH", "RICE", "RICE"):
        auth.client.post("/calibration/capture", headers=headers, json={"label": label})
    html = auth.client.get("/calibration/").text
    assert not re.search(r'id="learn"[^>]*disabled', html) and "learn-refusal" not in html
    done = auth.client.post("/calibration/done", headers=headers, json={})
    assert done.status_code == 200 and "reads the rolls again" in done.json["message"]
    assert not door.paused and door.take_read_again()
    assert 'id="calibrating"' not in auth.client.get("/table/panel").text


def test_settings_are_grouped_explained_and_say_where_they_are_written(client, banker, app):
    html = client.get("/settings/").text
    groups = re.findall(r'<details class="settings-group" id="group-([a-z]+)"', html)
    assert groups == ["table", "games", "camera", "lights", "printer", "dashboard", "house"]
    assert "the table&#39;s name, printed on slips and screens" in html  # each key in words
    assert "a whole number from 1 to 65,535" in html  # what it accepts, numbers as people write
    path = str(app.config["CONFIG_PATH"])
    assert "no settings file yet" in html and path in html
    client.post("/settings/", data={"csrf_token": banker.token, "table.name": "Felt 3"})
    html = client.get("/settings/").text
    assert "Saved in the file the table reads:" in html and path in html


def test_the_house_result_shows_its_current_figure(client, banker, table):
    play_a_turn(banker)
    html = client.get("/money/").text
    # Ginawa lost 2 (standard and Lord Moon), Ujikeme's bet against won 2: the house is even.
    figure = re.search(r'id="house-now">([^<]*)<', html).group(1)
    assert figure == "0", figure
    # The next turn (Sanzo shoots, Ginawa bets on Hungry Moon) moves the bank: the figure
    # follows it, with its sign.
    for kind, args in (("bet", {"player": "Sanzo", "bet": "standard", "amount": 1}),
                       ("bet", {"player": "Ginawa", "bet": "hungry-moon", "amount": 2}),
                       ("roll", {"faces": ["EARTH", "WATER", "FIRE", "AIR", "SUN"]})):
        response = banker.command(kind, **args)
        assert response.status_code == 201, response.text
    bank = table.state.ledger.balance("bank")
    assert bank != 0
    figure = re.search(r'id="house-now">([^<]*)<', client.get("/money/").text).group(1)
    assert figure == f"{bank:+d}", (figure, bank)
