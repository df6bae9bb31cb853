"""The house's dashboard: the table's login and conventions; every table live, statements
across tables, results as charts, the CSV; the tables' token door needs no login nor CSRF."""

from __future__ import annotations

import json

import pytest

from house.app import create_house_app
from tests.house.conftest import played_journal
from tests.web.support import Auth


@pytest.fixture
def app(house, tmp_path):
    return create_house_app({"TESTING": True, "DATA_DIR": tmp_path / "house",
                             "SESSION_COOKIE_SECURE": False, "SSE_KEEPALIVE": 0.05,
                             "SSE_MAX_SECONDS": 5.0}, house=house)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def banker(client):
    auth = Auth(client)
    auth.setup()
    return auth


@pytest.fixture
def tables(house, tmp_path):
    """Two tables that shipped 80 entries each (hazard and fortunes-winds)."""
    out = {}
    for n, mode in ((1, "hazard"), (2, "fortunes-winds")):
        token = house.add_table(f"t{n}", f"Table {n}")
        journal = played_journal(tmp_path / f"t{n}.sqlite3", 80, mode=mode, seed=n)
        house.ingest(f"t{n}", token, list(journal.chained()))
        out[f"t{n}"] = (token, journal)
    yield out
    for _, journal in out.values():
        journal.close()


def test_the_dashboard_needs_the_login_and_the_first_run_wizard(client):
    response = client.get("/")
    assert response.status_code == 302 and response.location.endswith("/setup")
    Auth(client).setup()
    client.post("/logout", data={"csrf_token": Auth(client).refresh_token("/")})
    assert client.get("/statements").status_code == 302
    assert client.get("/live/tables").status_code == 401
    assert client.get("/healthz").get_json() == {"ok": True}


def test_every_table_with_its_state_and_house_result(banker, tables):
    page = banker.client.get("/")
    assert page.status_code == 200
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    for table_id, (_, journal) in tables.items():
        bank = journal.verify().balances.get("bank", 0)
        assert f'data-table="{table_id}"' in page.text
        [row] = [r for r in banker.client.get("/live/tables").get_json()["tables"]
                 if r["id"] == table_id]
        assert (row["seq"], row["house_result"]) == (80, bank)


def test_statements_results_and_csv(banker, tables, house):
    page = banker.client.get("/statements").text
    for player, found in house.statements().items():
        assert f'data-player="{player}"' in page
        assert f'data-field="net">{found["total"].net}<' in page
    results = banker.client.get("/results").text
    for by in ("table", "mode", "shift", "day"):
        assert f'id="by-{by}"' in results
        for label, value in house.results(by):
            assert f'data-label="{label}" data-value="{value}"' in results
    csv = banker.client.get("/export.csv")
    assert csv.mimetype == "text/csv"
    assert csv.text.splitlines()[0].startswith("table,seq,at,mode,command,entry")
    assert len(csv.text.splitlines()) - 1 == sum(
        len(body["body"]["legs"]) for t in tables for body in house.chained(t, 0, 500))
    banker.add_viewer()
    banker.logout()
    banker.login("screen", "viewer-pass-1")
    assert banker.client.get("/export.csv").status_code == 403  # the accountant's is the banker's
    assert banker.client.get("/results").status_code == 200


def test_the_live_stream_pushes_each_shipment(banker, house, tmp_path):
    token = house.add_table("t9")
    journal = played_journal(tmp_path / "t9.sqlite3", 30)
    response = banker.client.get("/live/events", buffered=False)
    chunks = iter(response.response)
    first = next(chunks).decode()
    assert first.startswith("event: tables") and '"seq":0' in first
    house.ingest("t9", token, list(journal.chained(limit=12)))
    for chunk in chunks:
        text = chunk.decode()
        if text.startswith("event: tables"):
            data = json.loads(text.split("data: ", 1)[1])
            assert data["tables"][0]["seq"] == 12
            break
    response.close()
    journal.close()


def test_the_tables_door_takes_a_token_not_a_login(client, house, tmp_path):
    token = house.add_table("t1")
    house.add_table("t2")
    with played_journal(tmp_path / "j.sqlite3", 10) as journal:
        entries = list(journal.chained())
    r = client.post("/api/tables/t1/entries", json={"entries": entries})
    assert r.status_code == 401 and "Authorization: Bearer" in r.get_json()["error"]
    r = client.post("/api/tables/t2/entries", json={"entries": entries},
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 403 and "table t1's, not t2's" in r.get_json()["error"]
    r = client.post("/api/tables/t1/entries", data="nonsense",
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 400 and '{"entries": [...]}' in r.get_json()["error"]
    r = client.post("/api/tables/t1/entries", json={"entries": entries},
                    headers={"Authorization": f"Bearer {token}"})  # no CSRF token: none needed
    assert r.status_code == 200 and r.get_json()["head_seq"] == 10
    r = client.get("/api/tables/t1/entries?after=4&limit=3",
                   headers={"Authorization": f"Bearer {token}"})
    assert [e["seq"] for e in r.get_json()["entries"]] == [5, 6, 7]
    r = client.get("/api/tables/t1/entries?after=-1",
                   headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 400


def test_every_word_the_house_pages_translate_has_french(banker):
    import re
    from pathlib import Path

    from babel.messages.pofile import read_po

    from house.i18n import FRENCH, RESULT_TITLES
    from web.i18n import TRANSLATIONS

    with (TRANSLATIONS / "fr" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        table_french = {m.id for m in read_po(f) if m.id and m.string}

    words = set(RESULT_TITLES.values())
    for path in (Path(__file__).resolve().parents[2] / "house" / "templates").rglob("*.html"):
        words |= {w for _, w in re.findall(r"""\bt\((['"])(.+?)\1\)""", path.read_text())}
    assert len(words) > 25
    assert sorted(w for w in words if w not in FRENCH and w not in table_french) == []
    banker.client.post("/language/fr", data={"csrf_token": banker.token, "next": "/results"})
    page = banker.client.get("/results").text
    assert "Résultat de la maison par jeu" in page and "Déconnexion" in page
