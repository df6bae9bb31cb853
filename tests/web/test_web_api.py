"""The command door: accepted, refused with reasons, idempotent, and safe against hostile input."""

from __future__ import annotations

import json

import pytest


def balances(client):
    return client.get("/api/state").json["balances"]


def test_a_command_goes_through_the_table_and_is_journaled(client, banker, table):
    response = banker.command("buy-in", id="cmd-1", player="Sanzo", amount=7)
    assert response.status_code == 201
    assert response.json["seq"] == len(table.journal)
    assert balances(client)["Sanzo"] == 27
    record = table.journal.find("cmd-1")
    assert record.source == "dashboard:boss"


def test_a_repeated_id_is_answered_with_the_first_result(client, banker, table):
    first = banker.command("buy-in", id="same", player="Sanzo", amount=7)
    again = banker.command("buy-in", id="same", player="Sanzo", amount=7)
    assert again.status_code == 200 and again.json["repeated"] is True
    assert again.json["seq"] == first.json["seq"]
    assert balances(client)["Sanzo"] == 27
    other = banker.command("buy-in", id="same", player="Sanzo", amount=8)
    assert other.status_code == 409 and "already used" in other.json["error"]
    assert balances(client)["Sanzo"] == 27


@pytest.mark.parametrize("kind,args,words", [
    ("bet", {"player": "Ginawa", "bet": "standard", "amount": 11}, "holds 20 coins"),
    ("bet", {"player": "Sanzo", "bet": "daikoku-for", "amount": 3}, "multiple of 2"),
    ("bet", {"player": "Nobody", "bet": "standard", "amount": 1}, "not seated"),
    ("roll", {"faces": ["NORTH", "EAST", "WEST", "SOUTH", "VOID"]}, "standard bet"),
    ("pass", {}, "winning turn"),
    ("fly", {}, "has no command 'fly'"),
    ("buy-in", {"player": "Sanzo", "amount": "10"}, "expected a whole number"),
    ("buy-in", {"player": "Sanzo", "amount": -5}, "at least 1"),
    ("cash-out", {"player": "Sanzo", "amount": 999}, "cannot cash out"),
    ("open", {"mode": "poker"}, "not a game mode"),
])
def test_refused_commands_say_why_and_change_nothing(client, banker, table, kind, args, words):
    before = len(table.journal)
    response = banker.command(kind, **args)
    assert response.status_code == 422
    assert words in response.json["error"]
    assert len(table.journal) == before


HOSTILE = [
    ("not json", {"data": "{not json", "content_type": "application/json"}, 400, "not valid JSON"),
    ("a list", {"json": [1, 2]}, 400, "JSON object"),
    ("a string", {"json": "buy-in"}, 400, "JSON object"),
    ("form data", {"data": {"kind": "buy-in"}}, 415, "JSON object"),
    ("no kind", {"json": {"id": "h1", "player": "Sanzo"}}, 400, "needs 'kind'"),
    ("kind not a string", {"json": {"id": "h1", "kind": ["buy-in"]}}, 400, "needs 'kind'"),
    ("no id", {"json": {"kind": "buy-in", "player": "Sanzo", "amount": 1}}, 400, "'id'"),
    ("id too long", {"json": {"id": "x" * 500, "kind": "pass"}}, 400, "128 characters"),
    ("huge number", {"json": {"id": "h1", "kind": "buy-in", "player": "Sanzo",
                              "amount": 10**30}}, 400, "too large"),
    ("NaN", {"data": '{"id": "h1", "kind": "buy-in", "player": "Sanzo", "amount": NaN}',
             "content_type": "application/json"}, 400, "NaN"),
    ("deep nesting", {"json": {"id": "h1", "kind": "configure",
                               "settings": json.loads("[" * 40 + "]" * 40)}}, 400, "nested"),
    ("script name", {"json": {"id": "h1", "kind": "join",
                              "player": "<script>alert(1)</script>"}}, 422, "not a valid player"),
    ("sql in name", {"json": {"id": "h1", "kind": "buy-in", "player": "x'; DROP TABLE commands;--",
                              "amount": 1}}, 422, "not seated"),
    ("too big", {"data": json.dumps({"id": "h1", "kind": "pass", "pad": "x" * 100_000}),
                 "content_type": "application/json"}, 413, ""),
    ("bad settings", {"json": {"id": "h1", "kind": "configure",
                               "settings": {"max_bet": "lots"}}}, 422, "max_bet"),
    ("unknown setting", {"json": {"id": "h1", "kind": "configure",
                                  "settings": {"house_always_wins": True}}}, 422, "unknown"),
]


@pytest.mark.parametrize("name,body,status,words", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_input_gets_a_clear_json_error_and_changes_nothing(client, banker, table, name,
                                                                   body, status, words):
    before_len, before_state = len(table.journal), table.state
    response = client.post("/api/command", headers={"X-CSRF-Token": banker.token}, **body)
    assert response.status_code == status
    assert response.is_json
    assert words in response.json["error"]
    assert "Traceback" not in response.text and 'File "' not in response.text
    assert len(table.journal) == before_len and table.state is before_state


def test_an_unexpected_failure_is_a_500_without_a_stack_trace(client, banker, table, monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(table, "submit", broken)
    response = banker.command("pass")
    assert response.status_code == 500
    assert "secret internals" not in response.text and "Traceback" not in response.text
    assert "nothing was changed" in response.json["error"]


def test_check_answers_without_applying(client, banker, table):
    before = len(table.journal)
    headers = {"X-CSRF-Token": banker.token}
    ok = client.post("/api/check", headers=headers,
                     json={"id": "k1", "kind": "bet", "player": "Ginawa", "bet": "standard",
                           "amount": 1})
    assert ok.json == {"ok": True, "reason": None}
    no = client.post("/api/check", headers=headers, json={"id": "k2", "kind": "pass"})
    assert no.json["ok"] is False and "winning turn" in no.json["reason"]
    opened = client.post("/api/check", headers=headers,
                         json={"id": "k3", "kind": "open", "mode": "hazard"})
    assert opened.json["ok"] is True
    assert len(table.journal) == before


def test_state_is_the_table_view_with_camera_and_user(client, banker):
    state = client.get("/api/state").json
    assert state["mode"] == "fortunes-winds" and state["open"] is True
    assert state["seats"] == ["Ginawa", "Sanzo", "Ujikeme"]
    assert state["camera"]["present"] is False
    assert state["user"]["role"] == "banker"


def test_unknown_api_path_is_a_json_404(client, banker):
    response = client.get("/api/nothing")
    assert response.status_code == 404 and response.is_json


def test_wrong_method_is_a_json_405(client, banker):
    response = client.get("/api/command")
    assert response.status_code == 405 and response.is_json


def test_healthz_needs_no_login_and_reports_the_journal(app, client, banker):
    response = app.test_client().get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"ok": True, "journal": {"ok": True}, "disk": {"ok": True}}
    report = client.get("/healthz").get_json()  # logged in: the details
    assert report["ok"] and report["journal"]["ok"] and report["journal"]["schema"] >= 2


def test_healthz_is_503_when_a_part_fails(app, client, banker):
    app.extensions["feltbank.health"] = lambda: {"journal": {"ok": True},
                                                 "printer": {"ok": False, "error": "no paper"}}
    response = client.get("/healthz")
    assert response.status_code == 503 and response.get_json()["printer"]["error"] == "no paper"
