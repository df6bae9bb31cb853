"""What the dashboard's tests share besides fixtures: a table opened with players, the
accounts' passwords, and a client that drives the first-run wizard and logs in (`Auth`).
Imported as `tests.web.support` (the fixtures are in this folder's conftest); and
`serve_app`, the browser tests' server."""

from __future__ import annotations

import itertools
import re
import threading
from pathlib import Path

from controller.games.base import Command
from controller.journal import Journal
from controller.table import Table

PASSWORD = "banker-pass-1"
VIEWER_PASSWORD = "viewer-pass-1"
_ids = itertools.count(1)


def fresh_id() -> str:
    return f"t-{next(_ids)}"


def open_table(path, mode="fortunes-winds", players=("Ginawa", "Sanzo", "Ujikeme"), coins=20,
               settings=None) -> Table:
    table = Table(Journal(path))
    table.submit(Command("open", {"mode": mode, "settings": settings or {}}, "open-1"))
    for n, player in enumerate(players):
        table.submit(Command("join", {"player": player}, f"join-{n}"))
        if coins:
            table.submit(Command("buy-in", {"player": player, "amount": coins}, f"buy-{n}"))
    return table


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert match, "the page carries no CSRF token"
    return match.group(1)


def setup_code(where) -> str:
    """The first-run setup code, read as the banker would: from the data folder's file."""
    data_dir = where if isinstance(where, Path) else where.application.config["DATA_DIR"]
    return (Path(data_dir) / "setup-code").read_text().strip()


class Auth:
    """Drives the first-run wizard and logs users in; keeps the page's CSRF token."""

    def __init__(self, client):
        self.client = client
        self.token = ""

    def refresh_token(self, path="/login") -> str:
        self.token = csrf_of(self.client.get(path).text)
        return self.token

    def setup(self, name="boss", password=PASSWORD):
        token = csrf_of(self.client.get("/setup").text)
        response = self.client.post("/setup", data={"name": name, "password": password,
                                                    "password2": password, "csrf_token": token,
                                                    "setup_code": setup_code(self.client)})
        assert response.status_code == 302, response.text
        self.token = csrf_of(self.client.get("/").text)
        return response

    def login(self, name="boss", password=PASSWORD):
        token = self.refresh_token("/login")
        response = self.client.post("/login", data={"name": name, "password": password,
                                                    "csrf_token": token})
        if response.status_code == 302:
            self.token = csrf_of(self.client.get("/").text)
        return response

    def logout(self):
        return self.client.post("/logout", data={"csrf_token": self.token})

    def add_viewer(self, name="screen", password=VIEWER_PASSWORD):
        response = self.client.post("/users", data={"name": name, "password": password,
                                                    "role": "viewer", "csrf_token": self.token})
        assert response.status_code == 302, response.text
        return response

    def command(self, kind, id=None, **args):
        return self.client.post("/api/command", json={"id": id or fresh_id(), "kind": kind, **args},
                                headers={"X-CSRF-Token": self.token})


class ClosedWhenDropped:
    """A response body that is closed once, when the server closes it or lets go of it.

    werkzeug's development server (3.1, `run_wsgi`'s `execute`) drains what is left of the
    request before it closes the body; when the client resets the connection then (a
    browser dropping a favicon request), the drain raises and the body's close() is skipped.
    A static file's handle is then left to the garbage collector: a ResourceWarning, an error
    under our `filterwarnings = ["error"]` (session 17's flake in the Rochi browser test).
    The production server (web/server.py) closes every body itself."""

    def __init__(self, body):
        self.body = body
        self.closed = False

    def __iter__(self):
        return iter(self.body)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if hasattr(self.body, "close"):
                self.body.close()

    __del__ = close


def serve_app(app, data_dir, dirs: dict | None = None):
    """Serve `app` on a free port (werkzeug, threaded): its address and the function that
    stops it; `dirs` (if given) learns the app's data folder (its setup code) by address."""
    from werkzeug.serving import make_server

    def closing(environ, start_response):
        return ClosedWhenDropped(app(environ, start_response))

    httpd = make_server("127.0.0.1", 0, closing, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_port}"
    if dirs is not None:
        dirs[url] = data_dir
    return url, httpd.shutdown
