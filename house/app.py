"""The house's web service: the tables ship their entries to it, the house watches its tables.

    app = create_house_app({"HOUSE_DB": url, "DATA_DIR": folder})

Two doors. /api/tables/<table>/... is the tables' own (a per-table token, no login, no CSRF):
ship entries, read the house's head, read entries back for a restore. Everything else is the
house dashboard, with the same login, sessions, CSRF tokens and headers as a table's
dashboard (web.auth, web.security): every table live, statements across tables, the house
result by table, mode, shift and day, and a CSV export.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import jinja2
from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    g,
    jsonify,
    render_template,
    request,
)
from werkzeug.exceptions import HTTPException

from house.db import MAX_BATCH, House, HouseError, Refused, Shipped
from house.i18n import RESULT_TITLES, t
from web import auth
from web.i18n import init_app as init_i18n
from web.i18n import language, script_words
from web.live import sse
from web.security import (
    RateLimiter,
    SessionInterface,
    add_headers,
    check_csrf,
    csrf_token,
    secret_key,
)
from web.setup_code import SetupCode
from web.users import UserStore

log = logging.getLogger(__name__)
WEB = Path(__file__).resolve().parent.parent / "web"

ship = Blueprint("ship", __name__, url_prefix="/api/tables")
pages = Blueprint("house", __name__, static_folder="static", static_url_path="/house-static")


class Notifier:
    """Bumped after each shipment that added entries; the live page waits on it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.version = 0

    def __call__(self, _shipped: Shipped) -> None:
        with self._cond:
            self.version += 1
            self._cond.notify_all()

    def wait(self, version: int, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self.version != version, timeout)


def create_house_app(config: Mapping[str, Any] | None = None,
                     house: House | None = None) -> Flask:
    """The house's app; `config` carries HOUSE_DB (a libpq URL) and DATA_DIR (the accounts
    file and the session key), as a table's dashboard does."""
    overrides = dict(config or {})
    app = Flask(__name__, static_folder=str(WEB / "static"), template_folder="templates")
    init_i18n(app)
    app.jinja_loader = jinja2.ChoiceLoader([
        jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
        jinja2.FileSystemLoader(str(WEB / "templates")),
    ])
    data_dir = Path(overrides.get("DATA_DIR", "."))
    app.config.from_mapping(
        SECRET_KEY=None,
        USERS_PATH=data_dir / "house-users.sqlite3",
        SESSION_COOKIE_NAME="feltbank_house_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=True,
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        MAX_CONTENT_LENGTH=16 * 1024 * 1024,
        LANGUAGE="en",
        TABLE_NAME="the house",
        HOME_ENDPOINT="house.index",
        SSE_KEEPALIVE=15.0,
        SSE_MAX_SECONDS=600.0,
        LOGIN_LIMIT=5,
        LOGIN_WINDOW=300.0,
    )
    app.config.update(overrides)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = secret_key(data_dir)
    app.session_interface = SessionInterface()
    with UserStore(app.config["USERS_PATH"]) as store:
        if not store.count():
            SetupCode(data_dir).issue()  # the first-run wizard asks for it, as the table's
    house = house or House(app.config["HOUSE_DB"])
    notifier = Notifier()
    house.subscribe(notifier)
    app.extensions.update({
        "house": house,
        "house.notifier": notifier,
        "feltbank.login_limiter": RateLimiter(app.config["LOGIN_LIMIT"],
                                              app.config["LOGIN_WINDOW"]),
        "feltbank.login_name_limiter": RateLimiter(app.config.get("LOGIN_NAME_LIMIT", 50),
                                                   app.config["LOGIN_WINDOW"]),
    })

    def load_user():
        if request.blueprint == "ship" or request.endpoint == "house.healthz":
            return None
        return auth.load_user()

    def csrf():
        if request.blueprint != "ship":
            check_csrf()

    app.before_request(load_user)
    app.before_request(csrf)
    app.after_request(add_headers)
    app.teardown_appcontext(auth.close_users)
    app.register_blueprint(auth.bp)
    app.register_blueprint(ship)
    app.register_blueprint(pages)

    @app.context_processor
    def globals_() -> dict:
        return {"t": t, "csrf_token": csrf_token, "user": g.get("user"), "lang": language(),
                "script_words": script_words(), "table_name": app.config["TABLE_NAME"]}

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        message = exc.description or exc.name
        if auth.wants_json():
            return jsonify({"error": message, "status": exc.code}), exc.code
        return render_template("error.html", code=exc.code, name=exc.name,
                               message=message), exc.code

    @app.errorhandler(HouseError)
    def house_error(exc: HouseError):
        body: dict[str, Any] = {"error": str(exc), "status": exc.status}
        if isinstance(exc, Refused) and exc.seq is not None:
            body["seq"] = exc.seq
        return jsonify(body), exc.status

    return app


def _house() -> House:
    return current_app.extensions["house"]


def _token() -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused(f"table {request.view_args.get('table_id')}: no token: send "
                      "'Authorization: Bearer TOKEN' with the table's token", 401)
    return token.strip()


# -- the tables' door -----------------------------------------------------------------------

@ship.post("/<table_id>/entries")
def receive(table_id: str):
    """A shipment of entries, in order: {"entries": [...]} -> the house's head."""
    token = _token()
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise Refused(f'table {table_id}: send JSON {{"entries": [...]}} (at most {MAX_BATCH} '
                      "entries, in order)", 400)
    return jsonify(_house().ingest(table_id, token, data["entries"]).to_json())


@ship.get("/<table_id>/head")
def head(table_id: str):
    return jsonify(_house().head(table_id, _token()).to_json())


@ship.get("/<table_id>/entries")
def entries(table_id: str):
    """Entries after ?after=SEQ (at most ?limit=N), to write a lost table's journal back."""
    _house().authenticate(table_id, _token())
    try:
        after = int(request.args.get("after", 0))
        limit = int(request.args.get("limit", MAX_BATCH))
    except ValueError:
        raise Refused("after and limit are whole numbers", 400) from None
    if after < 0 or not 1 <= limit <= MAX_BATCH:
        raise Refused(f"after is 0 or more; limit is 1 to {MAX_BATCH}", 400)
    return jsonify({"entries": _house().chained(table_id, after, limit)})


# -- the house's dashboard --------------------------------------------------------------------

@pages.get("/")
@auth.login_required
def index():
    return render_template("house/index.html", tables=_house().tables(),
                           refusals=_house().refusals(10))


@pages.get("/live/tables")
@auth.login_required
def tables_json():
    return jsonify({"tables": _house().tables()})


@pages.get("/live/events")
@auth.login_required
def events() -> Response:
    """Every table's state on connect, then again after each shipment."""
    app = current_app._get_current_object()
    house: House = app.extensions["house"]
    notifier: Notifier = app.extensions["house.notifier"]
    keepalive, lifetime = app.config["SSE_KEEPALIVE"], app.config["SSE_MAX_SECONDS"]

    def stream() -> Iterator[str]:
        version = notifier.version
        yield sse({"tables": house.tables()}, "tables")
        end = time.monotonic() + lifetime
        while time.monotonic() < end:
            if not notifier.wait(version, keepalive):
                yield ": keepalive\n\n"
                continue
            version = notifier.version
            yield sse({"tables": house.tables()}, "tables")

    return Response(stream(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@pages.get("/statements")
@auth.login_required
def player_statements():
    return render_template("house/statements.html", statements=_house().statements())


@pages.get("/results")
@auth.login_required
def results():
    charts = {by: {**bars(_house().results(by)), "title": title}
              for by, title in RESULT_TITLES.items()}
    return render_template("house/results.html", charts=charts)


@pages.get("/export.csv")
@auth.banker_required
def export():
    return Response(_house().export_csv(), mimetype="text/csv", headers={
        "Content-Disposition": "attachment; filename=house-ledger.csv"})


@pages.get("/healthz")
def healthz():
    try:
        with _house().connect() as db:
            db.execute("SELECT 1")
    except HouseError as exc:
        return jsonify({"ok": False, "database": str(exc)}), 503
    return jsonify({"ok": True})


def bars(rows: list[tuple[str, int]], width: int = 600, row: int = 26) -> dict:
    """A horizontal bar chart of (label, coins) as SVG geometry: zero in the middle when
    some bars are negative."""
    top = max([abs(v) for _, v in rows] + [1])
    negative = any(v < 0 for _, v in rows)
    label_w = 140
    span = width - label_w - 70
    zero = label_w + (span / 2 if negative else 0)
    scale = (span / 2 if negative else span) / top
    items = []
    for i, (label, value) in enumerate(rows):
        length = abs(value) * scale
        items.append({"label": label, "value": value, "y": i * row + 4,
                      "x": zero - length if value < 0 else zero, "w": max(length, 1),
                      "text_x": zero + (length if value >= 0 else 0) + 6})
    return {"items": items, "width": width, "height": max(len(rows), 1) * row + 8,
            "zero": zero, "label_w": label_w, "json": json.dumps(rows)}
