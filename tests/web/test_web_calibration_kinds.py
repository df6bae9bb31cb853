"""The Calibration page for a deck and a numeral die set: guided card by card ("Lay the 5 of
hearts"), each capture's result with what to do, retake, progress, learn, activate, roll back;
in the browser (Playwright + Debian's chromium) and through the test client. The camera is a
double serving generated captures (vision.scenes_cards / vision.scenes_numerals): it lays
the card asked for, or what a test says is laid instead."""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from functools import cache

import numpy as np
import pytest
from test_web_browser import (  # noqa: F401 (the browser fixture)
    CHROMIUM,
    browser,
    frame_jpeg,
    new_page,
    serve_app,
    setup_banker,
    shot,
)

from tests.web.support import open_table
from vision.calibrator_kinds import DeckCalibrator, NumeralCalibrator
from vision.scenes_cards import capture, sample_table

TABLE_SEED = 10  # an 800 x 600 camera over cloth: fast captures

needs_chromium = pytest.mark.skipif(
    not shutil.which(CHROMIUM) and not __import__("os").environ.get("CI"),
    reason=f"no chromium at {CHROMIUM}")


@cache
def table():
    return sample_table(TABLE_SEED, deck="poker")


@cache
def card_capture(label: str) -> np.ndarray:
    """A capture of `label` in which the card is found (a person retakes the others)."""
    from vision.cards import find_cards

    for k in range(5):
        img = capture(table(), label, 100 + 1000 * k + table().labels.index(label))
        if len(find_cards(img)) == 1:
            return img
    raise AssertionError(f"no capture of {label} shows the card")


class Felt:
    """The camera double: `show(label)` lays that card (or `instead[label]`: another card's
    label, or an image), `frame()` is what the camera sees."""

    def __init__(self, image_of=card_capture):
        self.image_of = image_of
        self.instead: dict[str, object] = {}
        self.image = None
        self.activated: list = []

    def show(self, label):
        laid = self.instead.pop(label, label)
        self.image = laid if isinstance(laid, np.ndarray) else self.image_of(laid)

    def frame(self):
        return self.image


def calibration_app(tmp_path, table, cal):
    """The dashboard of `table` whose Calibration page is `cal`'s."""
    from web import Services, create_app
    from web.camera import StillCamera

    return create_app({"DATA_DIR": tmp_path / "web", "CONFIG_PATH": tmp_path / "feltbank.toml"},
                      Services(table=table, camera=StillCamera(frame_jpeg()), calibrator=cal))


def deck_app(tmp_path, felt, **kw):
    cal = DeckCalibrator(tmp_path / "calibrations", tmp_path / "captures", felt.frame,
                         show=felt.show, on_activate=felt.activated.append,
                         active_dir=tmp_path / "profiles" / "roche", **kw)
    return calibration_app(tmp_path, open_table(tmp_path / "journal.sqlite3"), cal), cal


# -- through the test client ------------------------------------------------------------------


@pytest.fixture
def deck_client(tmp_path):
    from tests.web.support import Auth

    felt = Felt()
    app, cal = deck_app(tmp_path, felt)
    auth = Auth(app.test_client())
    auth.setup()
    return auth.client, {"X-CSRF-Token": auth.token}, cal, felt


def test_the_page_asks_for_each_card_in_words_english_and_french(deck_client):
    client, headers, cal, felt = deck_client
    html = client.get("/calibration/").text
    assert "Lay the 2 of spades face up, alone and wholly in view, then capture" in html
    assert "0 of 24 captured" in html and 'max="24"' in html
    assert client.post("/calibration/capture", headers=headers,
                       json={"label": "2S"}).json == {"ok": True, "result": 1}
    html = client.get("/calibration/").text
    assert "Lay the 3 of spades" in html and "1 of 24 captured" in html
    client.post("/language/fr", data={"csrf_token": csrf(client)})
    html = client.get("/calibration/").text
    assert "Posez cette carte face visible" in html and "3 de pique" in html
    assert "1 sur 24 prises" in html and "Recommencer" in html


def csrf(client):
    from tests.web.support import csrf_of

    return csrf_of(client.get("/calibration/").text)


def test_a_refused_capture_says_why_and_changes_nothing(deck_client):
    client, headers, cal, felt = deck_client
    felt.instead["2S"] = (table().texture * 255).astype(np.uint8)  # no card on the cloth
    refused = client.post("/calibration/capture", headers=headers, json={"label": "2S"})
    assert refused.status_code == 422
    assert refused.json["error"].startswith("2 of spades: not found. Lay the card face up")
    assert refused.json["result"]["state"] == "not found" and cal.counts() == {}
    html = client.get("/calibration/").text
    assert 'id="capture-result"' in html and "not found. Lay the card face up" in html
    felt.instead["2S"] = (card_capture("2S") * 0.2).astype(np.uint8)
    dark = client.post("/calibration/capture", headers=headers, json={"label": "2S"})
    assert "too dark. Light the table more" in dark.json["error"] and cal.counts() == {}
    for bad, why in (({"label": "ZZ"}, "capture needs 'label'"),
                     ({"label": "2S", "insist": "yes"}, "'insist' is true or false")):
        r = client.post("/calibration/capture", headers=headers, json=bad)
        assert r.status_code == 400 and why in r.json["error"]
    assert cal.counts() == {}


def test_choosing_the_deck_and_starting_again(deck_client):
    client, headers, cal, felt = deck_client
    client.post("/calibration/capture", headers=headers, json={"label": "2S"})
    assert cal.counts() == {"2S": 1}
    r = client.post("/calibration/session", headers=headers, json={"deck": "uno"})
    assert r.status_code == 400 and "poker-2-7, poker, roche" in r.json["error"]
    assert client.post("/calibration/session", headers=headers,
                       json={"deck": "poker"}).status_code == 200
    html = client.get("/calibration/").text
    assert "0 of 52 captured" in html and "Lay the 2 of spades" in html
    client.post("/calibration/session", headers=headers, json={"deck": "poker-2-7"})
    assert "1 of 24 captured" in client.get("/calibration/").text  # its captures were kept
    assert client.post("/calibration/session", headers=headers,
                       json={"restart": True}).status_code == 200
    assert cal.counts() == {} and "0 of 24 captured" in client.get("/calibration/").text
    early = client.post("/calibration/learn", headers=headers, json={})
    assert early.status_code == 422 and "24 still to capture" in early.json["error"]


def test_a_corrupt_version_is_not_activated(deck_client, tmp_path):
    from vision.calibrator_kinds import save_version

    client, headers, cal, felt = deck_client
    save_version(cal.store, "cards", lambda d: (d / "cards-model.npz").write_bytes(b"x"))
    r = client.post("/calibration/activate", headers=headers, json={"version": "v001"})
    assert r.status_code == 422 and "corrupt profile" in r.json["error"]
    assert cal.versions()["active"] is None and felt.activated == []
    assert not (tmp_path / "profiles" / "roche").exists()


# -- in the browser ---------------------------------------------------------------------------


@contextmanager
def banker_page(chromium, app, tmp_path, viewport=(1180, 820)):
    """`app` served, a page of it in the `chromium` browser signed in as the banker; closed
    after."""
    url, stop = serve_app(app, tmp_path / "web")
    try:
        page = new_page(chromium, {"width": viewport[0], "height": viewport[1]})
        page.set_default_timeout(60_000)
        setup_banker(page, url)
        yield page, url
        page.close()
    finally:
        stop()


def capture_next(page, button="#capture"):
    """Click a capture button and wait for the page to come back (kept: it asks for the next
    card; refused: it says why)."""
    with page.expect_navigation():
        page.click(button)


@pytest.mark.slow
@needs_chromium
def test_a_whole_deck_learned_in_the_browser(browser, tmp_path):  # noqa: F811 (the shared fixture)
    """The 24 cards of Roche's poker decks, card by card: a bare cloth and a card laid twice
    are refused on the page with what to do, the banker retakes; learned, activated (the
    running table is handed the model), a second version rolled back."""
    felt = Felt()
    app, cal = deck_app(tmp_path, felt)
    with banker_page(browser, app, tmp_path) as (page, url):
        page.goto(url + "/calibration/")
        for i, label in enumerate(cal.labels()):
            rank, suit = label[0], {"S": "spades", "H": "hearts", "D": "diamonds",
                                    "C": "clubs"}[label[1]]
            assert f"Lay the {rank} of {suit}" in page.text_content("#next-face")
            if i == 1:  # a bare cloth
                felt.instead[label] = (table().texture * 255).astype(np.uint8)
                capture_next(page)
                assert "not found" in page.text_content("#capture-result")
                shot(page, "calibration-deck-not-found")
            if i == 6:  # the 2 of spades again, in place of the 2 of hearts
                felt.instead[label] = "2S"
                capture_next(page)
                result = page.text_content("#capture-result")
                assert "wrong card: this is the 2 of spades, not the 2 of hearts" in result
                shot(page, "calibration-deck-wrong-card")
            capture_next(page)
            assert page.text_content("#captured-count") == f"{i + 1} of 24 captured"
            assert page.get_attribute("#captured-bar", "value") == str(i + 1)
        assert "Every card has its capture" in page.text_content("#next-face")
        page.click("#learn")
        page.wait_for_selector("#learned")
        assert "Learned 24 cards from 24 captures" in page.text_content("#learned")
        page.click("#versions li[data-version=v001] button")
        page.wait_for_selector("#versions li[data-version=v001] strong")
        assert felt.activated == [tmp_path / "profiles" / "roche"]
        assert (tmp_path / "profiles" / "roche" / "cards-model.npz").is_file()
        shot(page, "calibration-deck-learned")
        # a retake from the list, a second Learn, activated, then rolled back
        capture_next(page, "#captures tr[data-label='5D'] button")
        assert page.text_content("#captures tr[data-label='5D'] td.result") == "read"
        page.click("#learn")
        page.wait_for_selector("#versions li[data-version=v002]")
        page.click("#versions li[data-version=v002] button")
        page.wait_for_selector("#versions li[data-version=v002] strong")
        page.click("text=Roll back")
        page.wait_for_selector("#versions li[data-version=v001] strong")
        assert cal.versions()["active"] == "v001" and len(felt.activated) == 3


@cache
def numeral_capture(key: str) -> np.ndarray:
    from vision.scenes_numerals import make_numeral_scene

    seeds = {"turquoise 2": 14, "turquoise 4": 1, "turquoise 3": 18, "turquoise 5": 3,
             "turquoise 6": 7, "turquoise 1/7": 16, "white 4": 133, "white 5": 45,
             "white 3": 13, "white 2": 2, "white 6": 8, "white 1/7": 65}
    for seed in [seeds[key], *range(1000, 1400)]:
        scene = make_numeral_scene(seed, hard=False, n_dice=1)
        die = scene.dice[0]
        if f"{die.colour} {die.label}" == key and die.in_frame:
            return scene.image
    raise AssertionError(f"no scene draws {key}")


@pytest.mark.slow
@needs_chromium
def test_a_numeral_die_set_learned_in_the_browser_in_french(browser, tmp_path):  # noqa: F811 (the shared fixture)
    felt = Felt(numeral_capture)
    cal = NumeralCalibrator(tmp_path / "calibrations", tmp_path / "captures", felt.frame,
                            show=felt.show, on_activate=felt.activated.append,
                            active_dir=tmp_path / "profiles" / "namaste")
    tbl = open_table(tmp_path / "journal.sqlite3")
    app = calibration_app(tmp_path, tbl, cal)
    with banker_page(browser, app, tmp_path, (820, 1180)) as (page, url):
        page.click("header form[action='/language/fr'] button")
        page.wait_for_selector("html[lang=fr]")
        page.goto(url + "/calibration/")
        for i, label in enumerate(cal.labels()):
            colour, face = label.split(" ", 1)
            words = {"turquoise": "turquoise", "white": "blanc"}[colour]
            assert f"Posez le dé {words} avec {face} en haut" in page.text_content("#next-face")
            if label == "white 2":  # the die turned to 5
                felt.instead[label] = "white 5"
                capture_next(page)
                assert "mauvaise face : le dé montre 5" in page.text_content("#capture-result")
                shot(page, "calibration-numerals-wrong-face")
            capture_next(page)
            assert page.text_content("#captured-count") == f"{i + 1} sur 12 prises"
        page.click("#learn")
        page.wait_for_selector("#learned")
        page.click("#versions li[data-version=v001] button")
        page.wait_for_selector("#versions li[data-version=v001] strong")
        assert felt.activated == [tmp_path / "profiles" / "namaste"]
        assert (tmp_path / "profiles" / "namaste" / "numerals.json").is_file()
        shot(page, "calibration-numerals-learned")


# -- on the real demo table -------------------------------------------------------------------


def demo_rig(tmp_path, mode):
    """A table of `mode` whose camera is the demo table (its own loop thread), and the
    Calibration page's service for it, as the running table builds them."""
    from app.camera import calibrator_for, start_camera
    from controller.config import load_config
    from controller.journal import Journal
    from controller.live import LiveTable
    from controller.table import Table

    config_file = tmp_path / "feltbank.toml"
    config_file.write_text(f'[table]\nmode = "{mode}"\n[camera]\nsource = "demo"\n'
                           'settle_seconds = 0.3\nfps = 20.0\n')
    config = load_config(config_file, env={"FELTBANK_DATA": str(tmp_path / "data")})
    table = Table(Journal(tmp_path / "journal.sqlite3"))
    rig = start_camera(config, table, LiveTable(table))
    return config, table, rig, calibrator_for(config, rig)


@pytest.mark.slow
@needs_chromium
def test_the_demo_tables_numeral_dice_learned_and_read_from_the_next_frame(
        browser, tmp_path):  # noqa: F811 (the shared fixture)
    """Namaste on the demo table: the page asks for each face, the demo lays it
    (`CameraRig.show`), the set's colours are learned and activated, and the running table
    reads with them at once."""
    config, table, rig, cal = demo_rig(tmp_path, "namaste")
    assert isinstance(cal, NumeralCalibrator)
    app = calibration_app(tmp_path, table, cal)
    try:
        with banker_page(browser, app, tmp_path) as (page, url):
            page.goto(url + "/calibration/")
            for i, label in enumerate(cal.labels()):
                colour, face = label.split(" ", 1)
                assert f"Lay the {colour} die with {face} up" in page.text_content("#next-face")
                capture_next(page)
                assert page.text_content("#captured-count") == f"{i + 1} of 12 captured", (
                    page.text_content("#capture-result") if page.query_selector(
                        "#capture-result") else "")
            page.click("#learn")
            page.wait_for_selector("#learned")
            page.click("#versions li[data-version=v001] button")
            page.wait_for_selector("#versions li[data-version=v001] strong")
            shot(page, "calibration-demo-numerals")
        active = config.data_dir / "profiles" / "namaste"
        assert rig.place["profile_path"] == str(active / "numerals.json")
        rig.show("WHITE-4")  # read with the learned colours from the next frame on
        read = rig.place["recognizer"].read(rig.loop.last_frame.image, rig.place["geometry"])
        assert [o["label"] for o in read] == ["WHITE-4"]
    finally:
        rig.stop()
        table.journal.close()


@pytest.mark.slow
@needs_chromium
def test_the_demo_tables_printed_deck_card_by_card(browser, tmp_path):  # noqa: F811 (the shared fixture)
    """Roche on the demo table: the printed deck chosen on the page, the demo lays each card
    asked for and the page keeps it (the first cards; the whole flow is the test above)."""
    config, table, rig, cal = demo_rig(tmp_path, "roche")
    assert isinstance(cal, DeckCalibrator)
    app = calibration_app(tmp_path, table, cal)
    try:
        with banker_page(browser, app, tmp_path) as (page, url):
            page.goto(url + "/calibration/")
            with page.expect_navigation():
                page.click("text=the printed Roche deck")
            assert page.get_attribute(".chosen-deck", "data-deck") == "roche"
            assert page.text_content("#captured-count") == "0 of 54 captured"
            for i, label in enumerate(cal.labels()[:3]):
                assert f"({label})" in page.text_content("#next-face")
                capture_next(page)
                assert page.text_content("#captured-count") == f"{i + 1} of 54 captured"
                assert page.text_content(f"#captures tr[data-label='{label}'] td.result") == "read"
            shot(page, "calibration-demo-deck")
    finally:
        rig.stop()
        table.journal.close()


def test_no_english_left_on_the_french_guided_pages(tmp_path):
    """The deck's page (a refused capture on it) and the die set's, in French."""
    from test_web_i18n import english_left

    from tests.web.support import Auth
    from web import Services, create_app
    from web.camera import StillCamera

    felt = Felt()
    app, cal = deck_app(tmp_path / "deck", felt)
    dice = NumeralCalibrator(tmp_path / "n" / "store", tmp_path / "n" / "caps", felt.frame)
    dice_app = create_app({"DATA_DIR": tmp_path / "n" / "web",
                           "CONFIG_PATH": tmp_path / "n" / "feltbank.toml"},
                          Services(table=open_table(tmp_path / "n" / "journal.sqlite3"),
                                   camera=StillCamera(frame_jpeg()), calibrator=dice))
    for application, refuse in ((app, "2S"), (dice_app, None)):
        auth = Auth(application.test_client())
        auth.setup()
        if refuse:
            felt.instead[refuse] = (table().texture * 255).astype(np.uint8)
            auth.client.post("/calibration/capture", headers={"X-CSRF-Token": auth.token},
                             json={"label": refuse})
        english = auth.client.get("/calibration/").text
        auth.client.post("/language/fr", data={"csrf_token": auth.token})
        french = auth.client.get("/calibration/").text
        assert 'lang="fr"' in french
        left = [w for w in english_left(english, french) if w != "Face"]  # French alike
        assert not left, "English left on the French page:\n" + "\n".join(left)
