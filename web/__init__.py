"""The banker's dashboard: a Flask app factory, one blueprint per area.

    app = create_app(config, Services(table=table, live=live, camera=camera))

The dashboard is handed its services (the composition root, `app.Feltbank.services()`, makes
them; tests make them with doubles); it never opens a table itself. `config` overrides the
app's settings (flaskr's test_config); its key "FELTBANK" may carry the feltbank `Config`
(default: `load_config()`). With no `camera`, the pages show the "no camera" state.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, g, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from controller.config import Config, load_config, user_config_path
from controller.errors import JournalError
from controller.live import LiveTable
from controller.storage import disk_fault
from controller.table import Table
from web import auth, calibration, data, money, settings_page
from web import health as health_page
from web import live as live_pages
from web import table as table_pages
from web.camera import Camera
from web.i18n import init_app as init_i18n
from web.i18n import language, number, say, script_words, source_words, t, tn, word
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


@dataclass(frozen=True)
class Services:
    """What the dashboard works with, made elsewhere and handed to `create_app`.

    `table` the table service; `live` the camera's door to the table, whose waiting readings
    the banker confirms here; `camera` the newest frame and status (web/camera.py);
    `calibrator` the vision side's calibration service (see web/calibration.py); `health`
    reports each part of the running table for /healthz (default: the journal and its disk,
    `web.health.table_parts`); `demo` throws the demo table's dice (only when the camera is
    the demo table).
    """

    table: Table
    live: LiveTable | None = None
    camera: Camera | None = None
    calibrator: Any = None
    health: Callable[[], dict] | None = None
    demo: Callable[[], dict] | None = None


def create_app(config: Mapping[str, Any] | None, services: Services) -> Flask:
    """The dashboard of `services.table`, with Flask settings `config` over the defaults."""
    if not isinstance(services, Services) or not isinstance(services.table, Table):
        raise TypeError("create_app(config, services): services is a web.Services with the "
                        "table (the composition root, app.Feltbank, makes it)")
    table, live = services.table, services.live
    overrides = dict(config or {})
    conf: Config = overrides.pop("FELTBANK", None) or load_config()
    app = Flask(__name__)
    data_dir = Path(overrides.get("DATA_DIR", conf.data_dir))
    app.config.from_mapping(
        DATA_DIR=data_dir,
        SECRET_KEY=None,
        USERS_PATH=data_dir / "users.sqlite3",
        CONFIG_PATH=conf.path or user_config_path(),
        SESSION_COOKIE_NAME="feltbank_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=conf["web.secure_cookies"],
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        MAX_CONTENT_LENGTH=64 * 1024,
        LANGUAGE=conf["web.language"],
        TABLE_NAME=conf["table.name"],
        SSE_KEEPALIVE=15.0,
        SSE_MAX_SECONDS=600.0,
        SSE_RETRY_MS=2000,
        SSE_STREAMS_PER_USER=16,
        SSE_STREAMS=256,
        MJPEG_FPS=5.0,
        MJPEG_MAX_SECONDS=600.0,
        MJPEG_STREAMS=4,
        LOGIN_LIMIT=5,
        LOGIN_NAME_LIMIT=50,
        LOGIN_WINDOW=300.0,
    )
    app.config.update(overrides)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = secret_key(data_dir)
    app.session_interface = SessionInterface()
    init_i18n(app)

    with UserStore(app.config["USERS_PATH"]) as store:
        if not store.count():
            SetupCode(data_dir).issue()
    broadcaster = live_pages.Broadcaster()
    table.subscribe(broadcaster)
    if live is not None:
        live.subscribe(broadcaster.pending_changed)
    app.extensions.update({
        "feltbank.table": table,
        "feltbank.camera": services.camera,
        "feltbank.config": conf,
        "feltbank.live": live,
        "feltbank.calibrator": services.calibrator,
        "feltbank.demo": services.demo,
        "feltbank.health": services.health or (lambda: health_page.table_parts(table)),
        "feltbank.broadcaster": broadcaster,
        "feltbank.camera_slots": threading.BoundedSemaphore(app.config["MJPEG_STREAMS"]),
        "feltbank.stream_slots": live_pages.StreamSlots(app.config["SSE_STREAMS_PER_USER"],
                                                        app.config["SSE_STREAMS"]),
        "feltbank.login_limiter": RateLimiter(app.config["LOGIN_LIMIT"],
                                              app.config["LOGIN_WINDOW"]),
        "feltbank.login_name_limiter": RateLimiter(app.config["LOGIN_NAME_LIMIT"],
                                                   app.config["LOGIN_WINDOW"]),
    })

    app.before_request(auth.load_user)
    app.before_request(check_csrf)
    app.after_request(add_headers)
    app.teardown_appcontext(auth.close_users)
    app.teardown_appcontext(data.close_journal)
    for bp in (auth.bp, table_pages.bp, money.bp, settings_page.bp, calibration.bp,
               live_pages.bp, health_page.bp):
        app.register_blueprint(bp)

    @app.context_processor
    def globals_() -> dict:
        return {"t": t, "say": say, "tn": tn, "number": number, "word": word, "source_words": source_words,
                "csrf_token": csrf_token,
                "user": g.get("user"), "lang": language(), "script_words": script_words(),
                "table_name": app.config["TABLE_NAME"]}

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        message = exc.description or exc.name
        if auth.wants_json():
            response = jsonify({"error": message, "status": exc.code})
        else:
            response = render_template("error.html", code=exc.code, name=exc.name,
                                       message=message)
        return response, exc.code

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        fault = disk_fault(exc, app.config["DATA_DIR"])
        if fault:
            # A full or read-only disk: the page says so (JSON, the fault named) and the
            # table answers again as soon as the disk does; nothing to restart.
            log.error("%s on %s %s: %s", fault, request.method, request.path, exc)
            message = str(exc) if isinstance(exc, JournalError) else (
                f"{fault}: the table's computer cannot read or write its data folder "
                f"({exc}); nothing was changed")
            return jsonify({"error": message, "fault": fault, "status": 503}), 503
        # Logged in full for the house; the screen gets no stack trace.
        log.exception("unexpected error on %s %s", request.method, request.path)
        message = "something went wrong on the table's computer; nothing was changed by it"
        if auth.wants_json():
            return jsonify({"error": message, "status": 500}), 500
        return render_template("error.html", code=500, name="Error", message=message), 500

    return app
