"""Access: the first-run wizard, logging in, roles, CSRF, rate limits and cookie flags."""

from __future__ import annotations

import pytest

from tests.web.support import PASSWORD, csrf_of, setup_code

#: Every state-changing endpoint with a body that would be valid for the banker.
STATE_CHANGING = [
    ("/api/command", {"json": {"id": "c1", "kind": "buy-in", "player": "Sanzo", "amount": 5}}),
    ("/api/check", {"json": {"id": "c2", "kind": "pass"}}),
    ("/users", {"data": {"name": "x1", "password": "longenough", "role": "viewer"}}),
    ("/users/boss/remove", {"data": {}}),
    ("/settings/", {"data": {"table.name": "Changed"}}),
    ("/settings/apply", {"data": {}}),
    ("/logout", {"data": {}}),
    ("/language/fr", {"data": {}}),
]


def test_before_setup_everything_leads_to_the_wizard(client):
    for path in ("/", "/money/", "/settings/", "/calibration/", "/users", "/login"):
        response = client.get(path)
        assert response.status_code == 302 and response.location.endswith("/setup"), path
    response = client.get("/api/state")
    assert response.status_code == 503
    assert "banker's account" in response.json["error"]
    assert client.get("/live/events").status_code == 503
    assert client.get("/camera/snapshot.jpg").status_code == 503
    with client.get("/static/app.css") as static:
        assert static.status_code == 200


def test_the_wizard_creates_the_banker_then_closes(client, auth, app):
    page = client.get("/setup")
    assert page.status_code == 200 and "Welcome to feltbank" in page.text
    auth.setup()
    state = client.get("/api/state")
    assert state.status_code == 200 and state.json["user"] == {"name": "boss", "role": "banker"}
    # Once done, the wizard is gone: it cannot make a second banker.
    assert client.get("/setup").status_code == 302
    response = client.post("/setup", data={"name": "evil", "password": "x" * 10,
                                           "password2": "x" * 10, "csrf_token": auth.token})
    assert response.status_code == 302
    from web.users import UserStore

    store = UserStore(app.config["USERS_PATH"])
    assert [u.name for u in store.all()] == ["boss"]
    store.close()


@pytest.mark.parametrize("name,password,password2,message", [
    ("boss", "short", "short", "8 to 256"),
    ("", PASSWORD, PASSWORD, "user name"),
    ("bad name!", PASSWORD, PASSWORD, "user name"),
    ("boss", PASSWORD, PASSWORD + "x", "differ"),
])
def test_the_wizard_refuses_bad_accounts(client, name, password, password2, message):
    token = csrf_of(client.get("/setup").text)
    response = client.post("/setup", data={"name": name, "password": password,
                                           "password2": password2, "csrf_token": token,
                                           "setup_code": setup_code(client)})
    assert response.status_code == 422
    assert message in response.text
    assert client.get("/").status_code == 302  # still the wizard


def test_passwords_are_hashed(app, banker):
    import sqlite3

    db = sqlite3.connect(app.config["USERS_PATH"])
    (stored,) = db.execute("SELECT hash FROM users").fetchone()
    db.close()
    assert PASSWORD not in stored and stored.startswith(("scrypt:", "pbkdf2:"))


def test_login_logout_and_wrong_password(client, banker):
    banker.logout()
    assert client.get("/").status_code == 302
    assert client.get("/api/state").status_code == 401
    assert banker.login(password="wrong-password").status_code == 401
    response = banker.login()
    assert response.status_code == 302
    assert client.get("/").status_code == 200


def test_login_redirects_only_to_this_site(client, banker):
    banker.logout()
    for target, expected in (("/money/", "/money/"), ("//evil.example/x", "/"),
                             ("https://evil.example/", "/")):
        token = csrf_of(client.get("/login").text)
        response = client.post("/login", query_string={"next": target},
                               data={"name": "boss", "password": PASSWORD, "csrf_token": token})
        assert response.status_code == 302
        assert response.location == expected
        banker.token = csrf_of(client.get("/").text)
        banker.logout()


def test_login_attempts_are_rate_limited(client, banker):
    banker.logout()
    for _ in range(5):
        assert banker.login(password="wrong-password").status_code == 401
    limited = banker.login()  # even the right password waits now
    assert limited.status_code == 429
    assert int(limited.headers["Retry-After"]) > 0
    assert "too many failed attempts" in limited.text


def test_rate_limiter_forgets_after_the_window():
    from web.security import RateLimiter

    now = [0.0]
    limiter = RateLimiter(limit=2, window=60, clock=lambda: now[0])
    limiter.failed("a")
    limiter.failed("a")
    assert limiter.retry_after("a") > 0 and limiter.retry_after("b") == 0
    now[0] = 61
    assert limiter.retry_after("a") == 0


def test_session_cookie_flags(client, auth):
    token = csrf_of(client.get("/setup").text)
    response = client.post("/setup", data={"name": "boss", "password": PASSWORD,
                                           "password2": PASSWORD, "csrf_token": token,
                                           "setup_code": setup_code(client)})
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # plain http on the LAN


def test_session_cookie_is_secure_over_https(make_app, table):
    client = make_app(table).test_client()
    page = client.get("/setup", base_url="https://localhost")
    assert "Secure" in page.headers["Set-Cookie"]


def test_session_cookie_is_secure_when_configured(make_app, table):
    client = make_app(table, SESSION_COOKIE_SECURE=True).test_client()
    assert "Secure" in client.get("/setup").headers["Set-Cookie"]


@pytest.mark.parametrize("path,body", STATE_CHANGING)
def test_every_state_changing_request_needs_the_csrf_token(client, banker, table, path, body):
    before = len(table.journal)
    for token in (None, "wrong-token"):
        headers = {"X-CSRF-Token": token} if token else {}
        response = client.post(path, headers=headers, **body)
        assert response.status_code == 400, path
        assert "CSRF" in response.text
    assert len(table.journal) == before
    assert client.get("/api/state").json["user"]["name"] == "boss"  # still logged in


def test_login_and_setup_need_the_csrf_token(client, banker):
    banker.logout()
    response = client.post("/login", data={"name": "boss", "password": PASSWORD})
    assert response.status_code == 400
    assert client.get("/").status_code == 302


def test_security_headers(client, banker):
    response = client.get("/")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Cache-Control"] == "no-store"


def test_the_viewer_sees_the_table_and_cannot_move_money(client, viewer, table):
    page = client.get("/")
    assert page.status_code == 200
    assert "Read-only screen" in page.text
    assert "data-cmd" not in page.text and 'id="confirm"' not in page.text
    before = len(table.journal)
    for kind, args in (("buy-in", {"player": "Sanzo", "amount": 100}),
                       ("cash-out", {"player": "Sanzo"}),
                       ("bet", {"player": "Ginawa", "bet": "standard", "amount": 1})):
        response = viewer.command(kind, **args)
        assert response.status_code == 403
        assert "only the banker" in response.json["error"]
    assert len(table.journal) == before
    for path in ("/money/", "/money/journal.csv", "/money/journal.jsonl", "/money/statements",
                 "/settings/", "/calibration/", "/users"):
        assert client.get(path).status_code == 403, path
    for path, body in STATE_CHANGING[:6]:
        response = client.post(path, headers={"X-CSRF-Token": viewer.token}, **body)
        assert response.status_code == 403, path
    # What a viewer may read: the live stream and the state.
    assert client.get("/api/state").json["user"]["role"] == "viewer"
    assert client.get("/live/events").status_code == 200


def test_users_page_adds_and_removes_and_keeps_the_last_banker(client, banker, app):
    banker.add_viewer("screen2")
    page = client.get("/users")
    assert "screen2" in page.text
    response = client.post("/users", data={"name": "screen2", "password": "x" * 9,
                                           "role": "viewer", "csrf_token": banker.token})
    assert response.status_code == 422 and "already" in response.text
    response = client.post("/users", data={"name": "z", "password": "x" * 9, "role": "king",
                                           "csrf_token": banker.token})
    assert response.status_code == 422 and "role" in response.text
    response = client.post("/users/screen2/remove", data={"csrf_token": banker.token})
    assert response.status_code == 302
    response = client.post("/users/boss/remove", data={"csrf_token": banker.token})
    assert response.status_code == 422 and "last banker" in response.text
    response = client.post("/users/nobody/remove", data={"csrf_token": banker.token})
    assert response.status_code == 422


def test_a_removed_user_is_logged_out(make_app, table, client, banker):
    banker.add_viewer("screen")
    other = client.application.test_client()
    token = csrf_of(other.get("/login").text)
    other.post("/login", data={"name": "screen", "password": "viewer-pass-1", "csrf_token": token})
    assert other.get("/api/state").status_code == 200
    client.post("/users/screen/remove", data={"csrf_token": banker.token})
    assert other.get("/api/state").status_code == 401


def test_language_switch_to_french_and_back(client, banker):
    response = client.post("/language/fr", data={"csrf_token": banker.token, "next": "/money/"})
    assert response.status_code == 302 and response.location == "/money/"
    page = client.get("/")
    assert '<html lang="fr">' in page.text and "Caisse" in page.text
    token = csrf_of(page.text)
    client.post("/language/en", data={"csrf_token": token})
    assert "Money" in client.get("/").text
    assert client.post("/language/de", data={"csrf_token": token}).status_code == 404


def test_secret_key_is_made_once_and_private(app):
    import stat

    path = app.config["DATA_DIR"] / "web-secret.key"
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    from web.security import secret_key

    assert secret_key(app.config["DATA_DIR"]) == app.config["SECRET_KEY"]


#: Every endpoint and who may reach it: "public" (no login), "login" (banker and viewer),
#: "banker". A new endpoint fails test_every_endpoint_is_classified until it is listed here.
ACCESS = {
    ("GET", "/static/app.css"): "public",
    ("GET", "/setup"): "public",
    ("POST", "/setup"): "public",
    ("GET", "/login"): "public",
    ("POST", "/login"): "public",
    ("POST", "/language/en"): "public",
    ("GET", "/healthz"): "public",
    # A mode's shared read-only part (a Namaste sheet on a player's phone): its signed link is
    # the key; an unsigned one is a 404.
    ("GET", "/shared/x"): "public",
    ("POST", "/logout"): "login",
    ("GET", "/"): "login",
    ("GET", "/table/panel"): "login",
    ("GET", "/api/state"): "login",
    ("GET", "/live/events"): "login",
    ("GET", "/camera/status"): "login",
    ("GET", "/camera/snapshot.jpg"): "login",
    ("GET", "/camera/stream.mjpg"): "login",
    ("GET", "/camera/reading/x.jpg"): "login",
    ("GET", "/camera/reading/x/0.jpg"): "login",
    ("GET", "/users"): "banker",
    ("POST", "/users"): "banker",
    ("POST", "/users/screen/remove"): "banker",
    ("POST", "/api/command"): "banker",
    ("POST", "/api/check"): "banker",
    ("POST", "/api/live/confirm"): "banker",
    ("POST", "/api/live/reject"): "banker",
    ("POST", "/api/demo/throw"): "banker",
    ("GET", "/money/"): "banker",
    ("GET", "/money/journal.jsonl"): "banker",
    ("GET", "/money/journal.csv"): "banker",
    ("GET", "/money/reading/1.jpg"): "banker",
    ("GET", "/money/statements"): "banker",
    ("GET", "/settings/"): "banker",
    ("POST", "/settings/"): "banker",
    ("POST", "/settings/apply"): "banker",
    ("GET", "/calibration/"): "banker",
    ("GET", "/calibration/status"): "banker",
    ("POST", "/calibration/capture"): "banker",
    ("POST", "/calibration/learn"): "banker",
    ("POST", "/calibration/done"): "banker",
    ("POST", "/calibration/activate"): "banker",
    ("POST", "/calibration/rollback"): "banker",
    ("POST", "/calibration/corners"): "banker",
    ("POST", "/calibration/session"): "banker",
}


def test_every_endpoint_is_classified(app):
    routes = {(m, rule.rule) for rule in app.url_map.iter_rules()
              for m in rule.methods - {"HEAD", "OPTIONS"}}
    listed = set()
    for method, path in ACCESS:
        adapter = app.url_map.bind("localhost")
        endpoint, _ = adapter.match(path, method=method)
        rule = next(r for r in app.url_map.iter_rules(endpoint))
        listed.add((method, rule.rule))
    assert routes == listed


def _call(client, method, path, token):
    if method == "GET":
        response = client.get(path)
        response.close()
        return response
    return client.post(path, headers={"X-CSRF-Token": token}, json={})


@pytest.mark.parametrize("method,path", sorted(ACCESS))
def test_access_of_each_endpoint_logged_out_and_as_viewer(client, viewer, method, path):
    who = ACCESS[(method, path)]
    as_viewer = _call(client, method, path, viewer.token)
    # POST /login with no password is a refused login (401), not a refused access.
    refused_login = (method, path) == ("POST", "/login")
    if who == "banker":
        assert as_viewer.status_code == 403, (method, path)
    elif not refused_login:
        assert as_viewer.status_code not in (401, 403), (method, path)
    viewer.logout()
    viewer.token = csrf_of(client.get("/login").text)
    logged_out = _call(client, method, path, viewer.token)
    if who == "public":
        assert logged_out.status_code not in ((403,) if refused_login else (401, 403))
    elif method == "GET" and not path.startswith(("/api/", "/live/", "/camera/")):
        assert logged_out.status_code == 302 and "/login" in logged_out.location
    else:
        assert logged_out.status_code == 401, (method, path)
