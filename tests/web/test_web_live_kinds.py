"""The dashboard of a card mode at the demo table: the camera panel says it reads the cards,
the banker deals a card from the page, the camera reads it once it settles, and it is dealt."""

from __future__ import annotations

import pytest

from app.camera import DemoThrower, reading_confidence, start_camera
from controller.config import load_config
from controller.games.play import seated_table
from controller.journal import Journal
from controller.live import LiveTable
from controller.table import Table
from web import Services, create_app
from web.camera import LoopCamera


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def rig(tmp_path):
    table = Table(Journal(tmp_path / "roche.sqlite3"))
    for cmd in seated_table("roche", players=2, coins=100):
        table.submit(cmd)
    config_file = tmp_path / "feltbank.toml"
    config_file.write_text('[table]\nmode = "roche"\n[camera]\nsource = "demo"\n'
                           'settle_seconds = 0.3\nfps = 10.0\n')
    config = load_config(config_file)
    live = LiveTable(table, confirm="auto", min_confidence=reading_confidence(config))
    clock = Clock()
    camera = start_camera(config, table, live, start=False, clock=clock)
    yield table, camera, clock, live
    table.journal.close()


@pytest.fixture
def app(tmp_path, rig):
    from vision.screen import jpeg

    table, camera, _, live = rig
    return create_app({"TESTING": True, "DATA_DIR": tmp_path / "web",
                       "CONFIG_PATH": tmp_path / "config" / "feltbank.toml"},
                      Services(table=table, live=live,
                               camera=LoopCamera(camera.loop, jpeg, reads=camera.reads),
                               demo=DemoThrower(table, camera.demo, seed=3)))


def test_a_card_mode_deals_from_the_page_and_the_camera_reads_the_card(banker, rig):
    table, camera, clock, _ = rig
    page = banker.client.get("/").text
    assert "The camera reads the cards" in page
    assert 'id="demo-throw"' in page and "deal a card (demo table)" in page
    response = banker.client.post("/api/demo/throw", json={},
                                  headers={"X-CSRF-Token": banker.token})
    assert response.status_code == 200, response.text
    card = response.json["rolled"][0]
    for _ in range(40):  # frame by frame on the demo's clock, until the card is read
        clock.t += camera.demo.period
        camera.loop.step()
        if camera.loop.status.readings:
            break
    assert list(table.state.dealt) == [card]
    banker.client.post("/language/fr", data={"csrf_token": banker.token})
    assert "La caméra lit les cartes" in banker.client.get("/").text
