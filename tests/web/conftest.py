"""Fixtures of the dashboard's tests: a fresh table, app and client per test (flaskr style).
What they share besides fixtures is in `tests.web.support`."""

from __future__ import annotations

import pytest

from tests.web.support import VIEWER_PASSWORD, Auth, open_table
from web import Services, create_app


@pytest.fixture
def table(tmp_path):
    t = open_table(tmp_path / "journal.sqlite3")
    yield t
    t.journal.close()


@pytest.fixture
def hazard_table(tmp_path):
    t = open_table(tmp_path / "hazard.sqlite3", mode="hazard", players=("Ann", "Bob"))
    yield t
    t.journal.close()


@pytest.fixture
def make_app(tmp_path):
    def make(table, camera=None, live=None, calibrator=None, **config):
        settings = {"TESTING": True, "DATA_DIR": tmp_path / "web",
                    "CONFIG_PATH": tmp_path / "config" / "feltbank.toml",
                    "SSE_KEEPALIVE": 0.05, "SSE_MAX_SECONDS": 0.3, **config}
        return create_app(settings, Services(table=table, camera=camera, live=live,
                                             calibrator=calibrator))

    return make


@pytest.fixture
def app(make_app, table):
    return make_app(table)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def auth(client):
    return Auth(client)


@pytest.fixture
def banker(auth):
    """A client logged in as the banker (the wizard done)."""
    auth.setup()
    return auth


@pytest.fixture
def viewer(auth):
    """A client logged in as a viewer (the banker made the account)."""
    auth.setup()
    auth.add_viewer()
    auth.logout()
    response = auth.login("screen", VIEWER_PASSWORD)
    assert response.status_code == 302
    return auth
