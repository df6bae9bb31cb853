"""The dashboard in a real browser (Debian's chromium, headless, driven by Playwright):
the first-run wizard and login, a whole Fortunes and Winds turn from the bets to the
settlement with one die corrected, and a viewer who cannot move money. Screenshots go to
artifacts/web/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import playwright.sync_api as playwright_api
import pytest

from tests.web import support
from tests.web.support import PASSWORD, VIEWER_PASSWORD, open_table, setup_code

CHROMIUM = os.environ.get("FELTBANK_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
LANDSCAPE = {"width": 1180, "height": 820}
PORTRAIT = {"width": 820, "height": 1180}

pytestmark = [
    pytest.mark.slow,
    # Skipped only off CI: CI installs chromium (.ci/run), and there a missing browser fails.
    pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.environ.get("CI"),
                       reason=f"no chromium at {CHROMIUM}"),
]


def frame_jpeg(boxes=()) -> bytes:
    """A felt-green camera frame with white squares where dice lie."""
    import cv2
    import numpy as np

    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (58, 93, 31)
    for x, y, w, h in boxes:
        cv2.rectangle(img, (x, y), (x + w, y + h), (240, 240, 240), -1)
    ok, data = cv2.imencode(".jpg", img)
    assert ok
    return data.tobytes()


def observation(*dice):
    """What the camera saw: (label, confidence, zone) for each die."""
    from controller.games.observation import Observation, Seen

    # Centred on the white squares frame_jpeg draws for the same dice.
    return Observation(tuple(Seen(label, conf, (65.0 + 120 * i, 235.0), zone)
                             for i, (label, conf, zone) in enumerate(dice)))


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


#: Each served dashboard's data folder, by its address (where its setup code is).
DATA_DIRS: dict = {}


def serve_app(app, data_dir):
    """Serve `app` on a free port (tests.web.support.serve_app), its setup code in
    `data_dir`: its address and the function that stops it."""
    return support.serve_app(app, data_dir, DATA_DIRS)


@pytest.fixture
def server(tmp_path):
    """The dashboard served on a free port (werkzeug, threaded) with a still camera."""
    yield from serve(tmp_path, open_table(tmp_path / "journal.sqlite3"))


@pytest.fixture
def hazard_server(tmp_path):
    """The same, at a Hazard table (Ann casts, Bob bets)."""
    yield from serve(tmp_path, open_table(tmp_path / "journal.sqlite3", mode="hazard",
                                          players=("Ann", "Bob")))


def serve(tmp_path, table):
    from controller.live import LiveTable
    from web import Services, create_app
    from web.camera import StillCamera

    camera = StillCamera(frame_jpeg())
    live = LiveTable(table)
    app = create_app({"DATA_DIR": tmp_path / "web", "CONFIG_PATH": tmp_path / "feltbank.toml",
                      "SSE_KEEPALIVE": 0.5, "SSE_MAX_SECONDS": 60, "MJPEG_FPS": 2},
                     Services(table=table, camera=camera, live=live))
    url, stop = serve_app(app, tmp_path / "web")
    yield {"url": url, "table": table, "live": live, "camera": camera}
    stop()
    table.journal.close()


def new_page(browser, viewport):
    page = browser.new_page(viewport=viewport)
    page.set_default_timeout(10_000)
    return page


def shot(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def setup_banker(page, url, mode=None):
    """The first-run wizard: the banker's account, and the game when `mode` is given."""
    page.goto(url + "/")
    assert page.url.endswith("/setup")
    shot(page, "01-wizard")
    if mode:
        page.select_option("select[name=mode]", mode)
    page.fill("input[name=setup_code]", setup_code(DATA_DIRS[url]))
    page.fill("input[name=name]", "boss")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("#setup-form button[type=submit]")
    page.wait_for_url(url + "/")


def login(page, url, name, password):
    page.goto(url + "/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(url + "/")


def test_wizard_then_login(browser, server):
    url = server["url"]
    page = new_page(browser, PORTRAIT)
    setup_banker(page, url)
    page.click("header form[action='/logout'] button")
    page.wait_for_url("**/login")
    page.fill("input[name=name]", "boss")
    page.fill("input[name=password]", "not-the-password")
    page.click("#login-form button[type=submit]")
    assert "wrong user name or password" in page.inner_text(".error")
    shot(page, "02-login-refused")
    login(page, url, "boss", PASSWORD)
    assert page.is_visible("#panel .felt")
    page.close()


def tap_spot(page, player, bet, greyed=False):
    # A greyed spot is aria-disabled, which Playwright will not click unless forced.
    page.click(f".felt-seat[data-player='{player}'] button[data-spot='{bet}']", force=greyed)


def to_french(page):
    """Switch the dashboard to French, and wait for the new page's script to be running (its
    live status is on): a tap before the script has wired the page does nothing at all."""
    page.click("header form[action='/language/fr'] button")
    page.wait_for_selector("html[lang=fr]")
    page.wait_for_selector("#live-status.on")


def act(page, table, selector):
    """Tap `selector`, which sends one command, and wait for the live panel to show it."""
    seq = table.journal.last_seq() + 1
    page.click(selector)
    page.wait_for_selector(f"#panel .panel[data-seq='{seq}']", state="attached")


SMALL_TARGETS = """() => Array.from(document.querySelectorAll(
    'button, input:not([type=hidden]), select, nav a, a.button'))
  .filter((el) => el.offsetParent !== null)
  .map((el) => [el.outerHTML.slice(0, 80), el.getBoundingClientRect()])
  .filter(([, r]) => r.width < 44 || r.height < 44)
  .map(([html, r]) => `${html} ${Math.round(r.width)}x${Math.round(r.height)}`)"""


#: Spots without their bet's name in 14 px or more at full opacity, and a seat's balance
#: below a 4.5:1 contrast with its background (WCAG AA), as "what: why" lines.
LEGIBLE = """() => {
  const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((v) => {
      v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const bad = [];
  for (const spot of document.querySelectorAll('.felt-seat .spot')) {
    const name = spot.querySelector('.spot-name');
    const style = name && getComputedStyle(name);
    if (!name || !name.textContent.trim()) bad.push(`${spot.dataset.spot}: no name`);
    else if (parseFloat(style.fontSize) < 14) bad.push(`${spot.dataset.spot}: ${style.fontSize}`);
    else if (getComputedStyle(spot).opacity !== '1') bad.push(`${spot.dataset.spot}: faded`);
  }
  for (const b of document.querySelectorAll('.seat-balance')) {
    const s = getComputedStyle(b);
    const [hi, lo] = [lum(s.color), lum(s.backgroundColor)].sort((x, y) => y - x);
    if ((hi + 0.05) / (lo + 0.05) < 4.5) bad.push(`balance ${b.textContent}: low contrast`);
  }
  return bad;
}"""


def test_a_whole_turn_with_one_die_corrected(browser, server):
    """The seed's first turn: Ginawa shoots, Sanzo rides, Ujikeme bets against; three rolls."""
    url, table, live, camera = server["url"], server["table"], server["live"], server["camera"]
    page = new_page(browser, LANDSCAPE)
    setup_banker(page, url)
    page.wait_for_selector("#live-status.on")
    # Bets: chip 1 on Ginawa's and Sanzo's standard bets, chip 3 on Ujikeme's "lose".
    page.click(".chip[data-chip='1']")
    tap_spot(page, "Ginawa", "standard")
    page.wait_for_selector(".felt-seat[data-player='Ginawa'] [data-spot='lord-moon'] .stake:text('1')")
    tap_spot(page, "Sanzo", "standard")
    page.wait_for_selector(".felt-seat[data-player='Sanzo'] [data-spot='standard'] .stake:text('1')")
    # The shooter's side bets are greyed out; a tap says why.
    tap_spot(page, "Ginawa", "hungry-moon", greyed=True)
    assert "may not make side bets" in page.inner_text("#toast")
    page.click(".chip[data-chip='3']")
    tap_spot(page, "Ujikeme", "daikoku-against")
    page.wait_for_selector(".felt-seat[data-player='Ujikeme'] [data-spot='daikoku-against'] "
                           ".stake:text('3')")
    shot(page, "03-bets-laid")
    assert page.evaluate(SMALL_TARGETS) == []  # every touch target is 44 px or more
    # Every spot says its bet's name, legibly, greyed ones too; a seat's balance stands out.
    assert page.evaluate(LEGIBLE) == []

    # Roll 1, read by the camera: the Water die is unsure (read WATER at 52%); the banker
    # taps EAST on it and confirms.
    frame = frame_jpeg([(30 + 120 * i, 200, 70, 70) for i in range(5)])
    camera.jpeg = frame  # the settled table, as the camera sees it now
    seq = table.journal.last_seq() + 1
    live.observe(observation(("NORTH", 0.98, "rolling"), ("WATER", 0.52, "rolling"),
                             ("FIRE", 0.97, "rolling"), ("BIRD", 0.95, "rolling"),
                             ("VOID", 0.99, "rolling")), extra={"frame_jpeg": frame})
    page.wait_for_selector("#confirm[data-pending] .die-row[data-row='i1'].uncertain")
    page.wait_for_selector("#camera-boxes circle.unsure", state="attached")
    assert page.get_attribute("#confirm .die-row[data-row='i0'] .face[data-face='NORTH']",
                              "aria-pressed") == "true"
    shot(page, "04-roll-read-one-uncertain")
    page.click("#confirm .die-row[data-row='i1'] .face[data-face='EAST']")
    assert page.get_attribute("#confirm .die-row[data-row='i1'] .face[data-face='EAST']",
                              "aria-pressed") == "true"
    shot(page, "05-die-corrected")
    page.click("#confirm-reading")
    page.wait_for_selector(f"#panel .panel[data-seq='{seq}']", state="attached")
    assert table.state.showing == ("NORTH", "EAST", "FIRE", "BIRD", "VOID")
    assert table.journal.find(table.journal.records(after=seq - 1).__next__().command.id
                              ).source == "camera, corrected by boss"
    page.wait_for_selector("#advice")
    # Set aside North and East, as the advisor says.
    page.click("button.die[data-value='NORTH']")
    page.click("button.die[data-value='EAST']")
    shot(page, "06-set-aside-chosen")
    act(page, table, "button.set-aside")
    assert table.state.set_aside == ("EARTH", "WATER")

    # Roll 2, read by the camera, every die sure: North and East in the tray, West, Air and
    # Sun rolled. The banker confirms as read.
    seq = table.journal.last_seq() + 1
    live.observe(observation(("NORTH", 0.97, "tray"), ("EAST", 0.96, "tray"),
                             ("WEST", 0.97, "rolling"), ("AIR", 0.96, "rolling"),
                             ("SUN", 0.93, "rolling")))
    page.wait_for_selector("#confirm[data-pending] .die-row[data-row='i4']")
    assert page.locator("#confirm .die-row.uncertain").count() == 0
    page.click("#confirm-reading")
    page.wait_for_selector(f"#panel .panel[data-seq='{seq}']", state="attached")
    page.click("button.die[data-value='WEST']")
    act(page, table, "button.set-aside")

    # Roll 3, entered by hand (as without a camera): Air, Fortunes. No combination: the
    # standard bets lose, the Lord Moon money comes back, Ujikeme's bet against wins.
    page.click("#confirm .die-row[data-row='AIR'] .face[data-face='AIR']")
    page.click("#confirm .die-row[data-row='MOON'] .face[data-face='FORTUNES']")
    act(page, table, "#confirm-roll")
    page.wait_for_selector("#settlement")
    settled = page.inner_text("#settlement")
    assert "no combination · 3 rolls" in settled
    shot(page, "07-settlement")
    assert table.state.ledger.players() == {"Ginawa": 19, "Sanzo": 19, "Ujikeme": 22}
    assert table.state.shooter == "Sanzo"
    assert page.inner_text("td[data-balance='Ujikeme']") == "22"

    # Portrait, and the money page, for the record.
    page.set_viewport_size(PORTRAIT)
    shot(page, "08-table-portrait")
    assert page.evaluate(SMALL_TARGETS) == []
    page.goto(url + "/money/")
    shot(page, "09-money")
    assert page.evaluate(SMALL_TARGETS) == []
    page.close()


def test_a_viewer_cannot_move_money(browser, server):
    url, table = server["url"], server["table"]
    page = new_page(browser, LANDSCAPE)
    setup_banker(page, url)
    page.goto(url + "/users")
    page.fill("#add-user input[name=name]", "screen")
    page.fill("#add-user input[name=password]", VIEWER_PASSWORD)
    page.click("#add-user button[type=submit]")
    page.click("header form[action='/logout'] button")
    login(page, url, "screen", VIEWER_PASSWORD)
    assert "Read-only screen" in page.inner_text("#panel")
    assert page.locator("[data-cmd]").count() == 0
    assert page.locator("#confirm").count() == 0
    assert page.locator("nav a[href='/money/']").count() == 0
    shot(page, "10-viewer")
    before = len(table.journal)
    status = page.evaluate("""async () => {
        const csrf = document.querySelector('meta[name="csrf-token"]').content;
        const r = await fetch('/api/command', {method: 'POST', headers: {
            'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
            body: JSON.stringify({id: 'viewer-1', kind: 'buy-in', player: 'Sanzo', amount: 500})});
        return r.status; }""")
    assert status == 403
    assert len(table.journal) == before
    page.goto(url + "/money/")
    assert "only the banker" in page.inner_text("main")
    page.close()


class CornerCalibrator:
    """The calibration service's corner part, recording what the page sends."""

    target = 3

    def __init__(self):
        self.corners = None

    def labels(self):
        return ["EARTH", "NORTH"]

    def counts(self):
        return {}

    def progress(self):
        return {"state": "idle", "fraction": 0.0, "message": "", "report": None}

    def versions(self):
        return {"active": None, "versions": []}

    def set_corners(self, corners):
        self.corners = corners


def test_tapping_the_felts_corners_on_the_picture(browser, tmp_path):
    from web import Services, create_app
    from web.camera import StillCamera

    table = open_table(tmp_path / "journal.sqlite3")
    cal = CornerCalibrator()
    app = create_app({"DATA_DIR": tmp_path / "web", "CONFIG_PATH": tmp_path / "feltbank.toml"},
                     Services(table=table, camera=StillCamera(frame_jpeg()), calibrator=cal))
    url, stop = serve_app(app, tmp_path / "web")
    try:
        page = new_page(browser, PORTRAIT)
        setup_banker(page, url)
        page.goto(url + "/calibration/")
        img = page.locator("#corners-img")
        img.scroll_into_view_if_needed()
        box = img.bounding_box()
        assert box and box["width"] > 200
        taps = [(0.1, 0.1), (0.9, 0.12), (0.88, 0.9), (0.12, 0.88)]
        for i, (fx, fy) in enumerate(taps):
            assert page.locator("#corners-save").is_disabled()
            img.click(position={"x": fx * box["width"], "y": fy * box["height"]})
            assert page.locator(".corner-dot").count() == i + 1
        assert page.text_content("#corners-count") == "4 / 4"
        shot(page, "calibration-corners")
        page.click("#corners-save")
        page.wait_for_selector("text=[[")  # the page reloads with the corners kept
        for (x, y), (fx, fy) in zip(cal.corners, taps, strict=True):  # the picture's own pixels
            assert abs(x - fx * 640) < 3 and abs(y - fy * 480) < 3
        assert "[[" in page.text_content("#corners-now")
    finally:
        stop()
        table.journal.close()


# --- the waiting reading on a tablet and a phone -------------------------------------------

SIZES = {"tablet-landscape": {"width": 1024, "height": 768},
         "tablet-portrait": {"width": 768, "height": 1024},
         "phone": {"width": 390, "height": 844}}

OFF_SCREEN = """(sel) => Array.from(document.querySelectorAll(sel))
  .map((el) => [el.id || el.className || el.tagName, el.getBoundingClientRect()])
  .filter(([, r]) => r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)
  .map(([what, r]) => `${what} at ${Math.round(r.left)},${Math.round(r.top)}-` +
       `${Math.round(r.right)},${Math.round(r.bottom)}`)"""


def bets_laid(table):
    from controller.games.base import Command

    for n, (player, bet, amount) in enumerate((("Ginawa", "standard", 1),
                                               ("Sanzo", "standard", 1),
                                               ("Ujikeme", "daikoku-against", 3))):
        table.submit(Command("bet", {"player": player, "bet": bet, "amount": amount}, f"bet-{n}"))


def a_reading(live, camera, water=("WATER", 0.52)):
    """The first roll of the seed's turn as the camera reads it, the Water die unsure."""
    frame = frame_jpeg([(30 + 120 * i, 200, 70, 70) for i in range(5)])
    camera.jpeg = frame
    live.observe(observation(("NORTH", 0.98, "rolling"), (*water, "rolling"),
                             ("FIRE", 0.97, "rolling"), ("BIRD", 0.95, "rolling"),
                             ("VOID", 0.99, "rolling")), extra={"frame_jpeg": frame})


@pytest.mark.parametrize("size", SIZES)
def test_an_uncertain_die_confirmed_as_read_without_scrolling(browser, server, size):
    """The waiting reading docks on screen at every size; an uncertain die needs the banker's
    tap, and a tap on the face the camera read confirms it as read."""
    url, table, live, camera = server["url"], server["table"], server["live"], server["camera"]
    bets_laid(table)
    page = new_page(browser, SIZES[size])
    setup_banker(page, url)
    page.wait_for_selector("#live-status.on")
    seq = table.journal.last_seq() + 1
    a_reading(live, camera)
    page.wait_for_selector("#confirm[data-pending] .die-row[data-row='i1'].uncertain")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"reading-{size}.png"))  # what the banker sees
    # Every die, its faces, Confirm and Reject are on screen without scrolling.
    assert page.evaluate(OFF_SCREEN, "#confirm .die-row, #confirm .die-row .faces > button,"
                                     " #confirm-reading, #reject-reading") == []
    assert page.evaluate("scrollY") == 0
    assert page.evaluate(SMALL_TARGETS) == []
    # The camera's guess is outlined, not yet chosen; Confirm says which die wants a tap.
    water = "#confirm .die-row[data-row='i1'] .face[data-face='WATER']"
    assert "guess" in page.get_attribute(water, "class")
    assert page.get_attribute(water, "aria-pressed") == "false"
    page.click("#confirm-reading")
    page.wait_for_selector("#toast.error:text('#2')")
    assert table.journal.last_seq() == seq - 1  # nothing applied
    page.click(water)
    assert page.get_attribute(water, "aria-pressed") == "true"
    page.click("#confirm-reading")
    page.wait_for_selector(f"#panel .panel[data-seq='{seq}']", state="attached")
    page.wait_for_selector("#toast", state="hidden")  # the refusal went with the success
    assert table.state.showing == ("NORTH", "WATER", "FIRE", "BIRD", "VOID")
    record = table.journal.find(next(table.journal.records(after=seq - 1)).command.id)
    assert record.source == "camera"  # confirmed as read: nothing changed
    (reading,) = table.journal.readings().values()
    assert reading["confirmed"] == [{"index": 1, "read": "WATER", "banker": "WATER",
                                     "changed": False}]
    assert reading["confirmed_by"] == "boss"
    assert page.locator("#confirm.pending").count() == 0
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_corrected_die_on_the_record(browser, server, size):
    """The banker changes a die the camera read: the journal keeps the camera's reading, the
    change and who made it, and the money page shows them with the frame."""
    url, table, live, camera = server["url"], server["table"], server["live"], server["camera"]
    bets_laid(table)
    page = new_page(browser, SIZES[size])
    setup_banker(page, url)
    page.wait_for_selector("#live-status.on")
    seq = table.journal.last_seq() + 1
    a_reading(live, camera, water=("FISH", 0.61))
    row = "#confirm .die-row[data-row='i1']"
    page.wait_for_selector(row + ".uncertain")
    # Only the Water die's own faces show; the others are behind "Other faces".
    own = [b.get_attribute("data-face") for b in page.locator(row + " .faces > button").all()]
    assert own == ["WATER", "EAST", "FISH"]
    assert not page.is_visible(row + " details.other-faces .face[data-face='MOON']")
    page.click(row + " .face[data-face='EAST']")
    assert page.evaluate(OFF_SCREEN, "#confirm .die-row, #confirm-reading") == []
    page.screenshot(path=str(ARTIFACTS / f"reading-corrected-{size}.png"))
    page.click("#confirm-reading")
    page.wait_for_selector(f"#panel .panel[data-seq='{seq}']", state="attached")
    assert table.state.showing[1] == "EAST"
    (reading,) = table.journal.readings().values()
    assert reading["corrections"] == [{"index": 1, "read": "FISH", "banker": "EAST",
                                       "changed": True}]
    page.goto(url + "/money/")
    entry = page.locator(f"#journal tr[data-reading='{seq}']")
    text = entry.inner_text()
    assert "FISH" in text and "EAST" in text and "boss" in text, text
    frame = entry.locator("a.reading-frame").get_attribute("href")
    assert page.request.get(url + frame).headers["content-type"] == "image/jpeg"
    page.screenshot(path=str(ARTIFACTS / f"reading-corrected-on-the-record-{size}.png"),
                    full_page=True)
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_reject_reads_again(browser, server, size):
    """Reject drops the reading, says what happens next, and asks the camera for a new one
    (tests/controller/test_camera_loop.py: the still table is read again)."""
    url, table, live, camera = server["url"], server["table"], server["live"], server["camera"]
    bets_laid(table)
    page = new_page(browser, SIZES[size])
    setup_banker(page, url)
    page.wait_for_selector("#live-status.on")
    a_reading(live, camera)
    page.wait_for_selector("#confirm[data-pending]")
    page.click("#reject-reading")
    page.wait_for_selector("#toast.info:text('reads the dice again')")
    page.wait_for_selector("#confirm.pending", state="detached")
    assert live.take_read_again()  # what the camera loop waits for (tests/controller)
    a_reading(live, camera)  # ... and the camera's next reading waits again
    page.wait_for_selector("#confirm[data-pending]")
    assert page.evaluate(OFF_SCREEN, "#confirm .die-row, #confirm-reading, #reject-reading") == []
    page.screenshot(path=str(ARTIFACTS / f"reading-rejected-read-again-{size}.png"))
    page.close()


# --- a whole turn in French ----------------------------------------------------------------

#: Visible text nodes (no scripts, code, kanji or parts marked translate="no").
VISIBLE_TEXT = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode;
    const el = node.parentElement;
    const skip = "script, style, code, svg, [translate=no], [lang=ja], [lang=en], [hidden]";
    if (!el || el.closest(skip)) continue;
    if (!el.getClientRects().length) continue;
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    if (text) out.push(text);
  }
  return out;
}"""

#: English words that French never writes: one of these on a French screen is English left.
ENGLISH = {"the", "and", "of", "with", "is", "are", "this", "your", "from", "to", "by", "bet",
           "bets", "roll", "rolls", "player", "won", "lost", "shooter", "dice", "seat", "seats",
           "amount", "balance", "camera", "reading", "confirm", "reject", "set", "aside",
           "pass", "win", "lose", "turn", "house", "edge", "advisor", "join", "settlement"}


def english_on_screen(page) -> list[str]:
    from babel.messages.pofile import read_po

    from web.i18n import TRANSLATIONS

    with (TRANSLATIONS / "fr" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f)
    english = {m.id for m in catalog if isinstance(m.id, str) and m.id and m.string
               and m.string != m.id}
    left = []
    for text in page.evaluate(VISIBLE_TEXT):
        words = {w.lower() for w in __import__("re").findall(r"[A-Za-zÀ-ÿ]+", text)}
        if text in english or words & ENGLISH:
            left.append(text)
    return left


def test_a_whole_turn_in_french(browser, server):
    """The seed's first turn played in French at every size: no English on the screen, the
    settlement fits its card."""
    url, table, live, camera = server["url"], server["table"], server["live"], server["camera"]
    page = new_page(browser, SIZES["tablet-landscape"])
    setup_banker(page, url)
    to_french(page)
    assert english_on_screen(page) == []
    page.click(".chip[data-chip='1']")
    tap_spot(page, "Ginawa", "standard")
    page.wait_for_selector(".felt-seat[data-player='Ginawa'] [data-spot='lord-moon'] .stake:text('1')")
    # Refusals read in French: a greyed spot's reason, and a bet the table refuses.
    tap_spot(page, "Ginawa", "hungry-moon", greyed=True)
    page.wait_for_selector("#toast.error:text('ne fait pas de mises annexes')")
    assert english_on_screen(page) == []
    page.click(".chip[data-chip='50']")
    tap_spot(page, "Ujikeme", "daikoku-against")
    page.wait_for_selector("#toast.error:text('un multiple de 3 pièces (elle paie 2:3), pas 50')")
    page.screenshot(path=str(ARTIFACTS / "fr-refusal.png"))
    assert english_on_screen(page) == []
    page.click(".chip[data-chip='3']")
    tap_spot(page, "Ujikeme", "daikoku-against")
    page.wait_for_selector(".felt-seat[data-player='Ujikeme'] [data-spot='daikoku-against'] "
                           ".stake:text('3')")
    seq = table.journal.last_seq() + 1
    a_reading(live, camera)
    page.wait_for_selector("#confirm[data-pending] .die-row[data-row='i1'].uncertain")
    page.click("#confirm-reading")  # the uncertain die not tapped yet
    page.wait_for_selector("#toast.error:text('#2')")
    assert english_on_screen(page) == []
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.screenshot(path=str(ARTIFACTS / f"fr-reading-{size}.png"))
        assert page.evaluate(OFF_SCREEN, "#confirm .die-row, #confirm-reading, "
                                         "#reject-reading") == [], size
    assert english_on_screen(page) == []
    page.set_viewport_size(SIZES["tablet-landscape"])
    page.click("#confirm .die-row[data-row='i1'] .face[data-face='EAST']")
    page.click("#confirm-reading")
    page.wait_for_selector(f"#panel .panel[data-seq='{seq}']", state="attached")
    page.wait_for_selector("#advice")
    assert english_on_screen(page) == []
    page.click("button.die[data-value='NORTH']")
    page.click("button.die[data-value='EAST']")
    act(page, table, "button.set-aside")
    page.click("#confirm-roll")  # no face tapped yet
    page.wait_for_selector("#toast.error:text('touchez la face du')")
    assert english_on_screen(page) == []
    page.click("#confirm .die-row[data-row='FIRE'] .face[data-face='WEST']")
    page.click("#confirm .die-row[data-row='AIR'] .face[data-face='AIR']")
    page.click("#confirm .die-row[data-row='MOON'] .face[data-face='SUN']")
    act(page, table, "#confirm-roll")
    page.click("button.die[data-value='WEST']")
    act(page, table, "button.set-aside")
    page.click("#confirm .die-row[data-row='AIR'] .face[data-face='AIR']")
    page.click("#confirm .die-row[data-row='MOON'] .face[data-face='FORTUNES']")
    act(page, table, "#confirm-roll")
    page.wait_for_selector("#settlement")
    assert "3 lancers" in page.inner_text("#settlement")
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.screenshot(path=str(ARTIFACTS / f"fr-settlement-{size}.png"), full_page=True)
        assert english_on_screen(page) == [], size
        # The settlement table fits its card; its header does not wrap.
        fits = page.evaluate("""() => { const c = document.getElementById('settlement');
            const heads = Array.from(c.querySelectorAll('th'), (th) => th.getClientRects().length);
            return [c.scrollWidth <= c.clientWidth + 1, Math.max(...Array.from(
              c.querySelectorAll('th'), (th) => th.getBoundingClientRect().height))]; }""")
        assert fits[0], f"the settlement overflows its card at {size}"
        assert fits[1] < 40, f"the settlement's header wraps at {size}"
    page.goto(url + "/money/")
    assert english_on_screen(page) == []
    page.screenshot(path=str(ARTIFACTS / "fr-money.png"), full_page=True)
    page.close()


def test_a_hazard_round_in_french(browser, hazard_server):
    """A Hazard round in French: the refusals (a greyed spot's reason, a bet the table
    refuses, a throw with no die tapped) and the settlement, with no English on the screen."""
    url, table = hazard_server["url"], hazard_server["table"]
    page = new_page(browser, SIZES["tablet-landscape"])
    setup_banker(page, url)
    to_french(page)
    assert english_on_screen(page) == []
    bob = ".hz-seat[data-player='Bob'] button[data-spot='{}']"
    page.click(bob.format("caster-wins"), force=True)  # greyed: no main yet
    page.wait_for_selector("#toast.error:text(\"les mises s'ouvrent quand le lanceur\")")
    assert english_on_screen(page) == []
    act(page, table, "button.main-btn:text-is('7')")
    page.click(".hz-seat[data-player='Ann'] button[data-spot='caster-loses']", force=True)
    page.wait_for_selector("#toast.error:text(\"le lanceur ne peut pas miser qu'il perd\")")
    assert english_on_screen(page) == []
    page.click(".chip[data-chip='50']")
    page.click(bob.format("caster-wins"))
    page.wait_for_selector("#toast.error:text('« le lanceur gagne »')")
    assert english_on_screen(page) == []
    page.click(".chip[data-chip='5']")
    act(page, table, bob.format("caster-loses"))
    page.click("#confirm-roll")  # no face tapped yet
    page.wait_for_selector("#toast.error:text('touchez la face du Dé 1')")
    assert english_on_screen(page) == []
    page.click("#confirm .die-row[data-row='d1'] .face[data-face='3']")
    page.click("#confirm .die-row[data-row='d2'] .face[data-face='4']")
    act(page, table, "#confirm-roll")
    page.wait_for_selector("#settlement")
    assert table.state.rounds == 1
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.screenshot(path=str(ARTIFACTS / f"fr-hazard-{size}.png"), full_page=True)
        assert english_on_screen(page) == [], size
    page.close()


def test_cash_out_everything_asks_first(browser, server):
    url, table = server["url"], server["table"]
    page = new_page(browser, SIZES["tablet-portrait"])
    setup_banker(page, url)
    page.goto(url + "/money/")
    form = "tr[data-player='Sanzo'] form[data-kind='cash-out']"
    before = table.journal.last_seq()
    page.click(form + " button")  # the amount left empty: everything
    page.wait_for_selector(form + " button.armed:text('Cash out all 20?')")
    assert table.journal.last_seq() == before  # nothing yet
    page.click(form + " button")
    playwright_api.expect(page.locator("tr[data-player='Sanzo'] td.num").first).to_have_text("0")
    assert table.state.ledger.players()["Sanzo"] == 0
    page.close()
