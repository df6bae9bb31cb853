"""Accounts: the first-run wizard, log in and out, roles, and the users page."""

from __future__ import annotations

import functools
import hmac
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from controller.errors import ConfigError, IllegalCommand
from controller.games import games as all_games
from web.i18n import LANGUAGES, refusal
from web.setup_code import SetupCode
from web.users import User, UserError, UserStore

bp = Blueprint("auth", __name__)

#: Endpoints reachable before the first-run wizard is done / without logging in.
BEFORE_SETUP = frozenset({"auth.setup", "static", "auth.language", "health.healthz"})
PUBLIC = frozenset({"auth.login", "auth.setup", "static", "auth.language", "health.healthz",
                    "table.shared"})


def users() -> UserStore:
    """This request's accounts file (opened on first use, closed with the request)."""
    if "users" not in g:
        g.users = UserStore(current_app.config["USERS_PATH"])
    return g.users


def close_users(_exc: BaseException | None = None) -> None:
    store = g.pop("users", None)
    if store is not None:
        store.close()


def home() -> str:
    """The endpoint a login lands on (the house's dashboard sets its own)."""
    return current_app.config.get("HOME_ENDPOINT", "table.page")


def wants_json() -> bool:
    return (request.path.startswith(("/api/", "/live/", "/camera/")) or request.is_json
            or request.accept_mimetypes.best == "application/json")


def load_user() -> None:
    """Before each request: who is asking; the wizard until the banker exists; the login."""
    g.user = None
    endpoint = request.endpoint or ""
    if endpoint == "static":
        return None
    store = users()
    if not store.count():
        if endpoint in BEFORE_SETUP:
            return None
        if wants_json():
            abort(503, description="feltbank is not set up yet: open the dashboard and create "
                                   "the banker's account")
        return redirect(url_for("auth.setup"))
    name = session.get("user")
    if name:
        g.user = store.get(name)
        if g.user is None or not hmac.compare_digest(str(session.get("generation", "")),
                                                     g.user.generation):
            # Logged out (anywhere), a new password or role, or removed: this cookie is dead.
            g.user = None
            session.clear()
    if g.user is None and endpoint not in PUBLIC:
        if wants_json() or request.method != "GET":
            abort(401, description="log in first")
        return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
    return None


def login_required(view: Callable) -> Callable:
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any):
        if g.get("user") is None:
            abort(401, description="log in first")
        return view(*args, **kwargs)

    return wrapped


def banker_required(view: Callable) -> Callable:
    """Only the banker: everything that moves money, settles, calibrates or changes settings."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any):
        user: User | None = g.get("user")
        if user is None:
            abort(401, description="log in first")
        if not user.is_banker:
            abort(403, description=f"{user.name} is a viewer; only the banker may do this")
        return view(*args, **kwargs)

    return wrapped


def _start_session(user: User) -> None:
    lang = session.get("lang")
    session.clear()  # a fresh session (and CSRF token) at each login: no fixation
    session.permanent = True
    session["user"] = user.name
    session["generation"] = user.generation
    if lang:
        session["lang"] = lang


def _safe_next(target: str | None) -> str:
    """A path on this site rebuilt from `target`'s parts, else the table: never an open
    redirect. Browsers drop tabs and newlines and read a backslash as a slash, so a target
    holding any of them, or any other control character, is refused whole."""
    landing = url_for(home())
    if not target or len(target) > 2048 or any(
            ord(c) < 0x20 or c in "\\\x7f" or c.isspace() for c in target):
        return landing
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/") or \
            parts.path.startswith("//"):
        return landing
    path = quote(parts.path, safe="/%-._~!$&'()*+,;=:@")
    query = quote(parts.query, safe="=&%-._~!$'()*+,;:@/?")
    return urlunsplit(("", "", path, query, ""))


@bp.route("/setup", methods=["GET", "POST"])
def setup():
    """The first-run wizard: the banker's account, before anything else is reachable."""
    store = users()
    if store.count():
        return redirect(url_for("auth.login"))
    error = None
    status = 200
    code = SetupCode(current_app.config["DATA_DIR"])
    game, titles = _games()
    if request.method == "POST":
        limiter = current_app.extensions["feltbank.login_limiter"]
        address = f"setup:{request.remote_addr}"
        password = request.form.get("password", "")
        wait = limiter.retry_after(address)
        if wait:
            error, status = f"too many wrong setup codes: wait {wait} seconds", 429
        elif not code.check(request.form.get("setup_code")):
            limiter.failed(address)
            error, status = (f"the setup code is missing or wrong: it is in the log of feltbank "
                             f"run and in the file {code.path.name} of its data folder"), 403
        elif password != request.form.get("password2", ""):
            error, status = "the two passwords differ", 422
        elif titles and request.form.get("mode", game) not in titles:
            error, status = f"{request.form.get('mode')!r} is not a game of this table", 422
        else:
            try:
                user = store.add(request.form.get("name", ""), password, "banker", first=True)
            except UserError as exc:
                error, status = str(exc), 422
            else:
                code.discard()
                _start_session(user)
                if titles and request.form.get("mode", game) != game:
                    _open_chosen_game(request.form["mode"], user.name)
                return redirect(url_for(home()))
    return render_template("auth/setup.html", error=error, code_file=code.path.name,
                           name=request.form.get("name", "banker"), games=titles,
                           game=request.form.get("mode", game)), status


def _games() -> tuple[str | None, dict[str, str]]:
    """The game the table plays (or opens with) and every game by title, for the wizard's
    choice; none where the wizard serves no table (the house's dashboard)."""
    tab = current_app.extensions.get("feltbank.table")
    conf = current_app.extensions.get("feltbank.config")
    if tab is None or conf is None:
        return None, {}
    game = tab.state.mode if tab.state is not None else conf["table.mode"]
    return game, {name: engine.title for name, engine in sorted(all_games().items())}


def _open_chosen_game(mode: str, who: str) -> None:
    """The wizard's game: the table opens in it (Settings can switch it later, between
    rounds); a refusal is shown there rather than losing the new account."""
    from web.settings_page import open_mode

    try:
        open_mode(mode, who)
    except (ConfigError, IllegalCommand) as exc:
        flash(refusal(exc))


@bp.route("/login", methods=["GET", "POST"])
def login():
    error = None
    status = 200
    if request.method == "POST":
        by_address = current_app.extensions["feltbank.login_limiter"]
        by_name = current_app.extensions["feltbank.login_name_limiter"]
        name = request.form.get("name", "")
        # Each address is throttled first, so a guesser elsewhere does not lock the banker
        # out; a name is throttled only after many failures from everywhere, and a password
        # set from the console (`feltbank users reset-password`) starts its count afresh.
        known = users().get(name) if isinstance(name, str) and len(name) <= 64 else None
        address = f"addr:{request.remote_addr}"
        account = f"user:{name.lower()[:64]}:{known.generation if known else ''}"
        wait = max(by_address.retry_after(address), by_name.retry_after(account))
        if wait:
            error = f"too many failed attempts: wait {wait} seconds"
            return render_template("auth/login.html", error=error, name=name), 429, {
                "Retry-After": str(wait)}
        user = users().check(name, request.form.get("password", ""))
        if user is None:
            by_address.failed(address)
            by_name.failed(account)
            error, status = "wrong user name or password", 401
        else:
            by_address.succeeded(address)
            _start_session(user)
            return redirect(_safe_next(request.args.get("next")))
    return render_template("auth/login.html", error=error,
                           name=request.form.get("name", "")), status


@bp.post("/logout")
def logout():
    if g.get("user") is not None:
        # Server-side: every copy of this user's session cookie ends here, not just this one.
        users().revoke(g.user.name)
    lang = session.get("lang")
    session.clear()
    if lang:
        session["lang"] = lang
    return redirect(url_for("auth.login"))


@bp.post("/language/<lang>")
def language(lang: str):
    if lang not in LANGUAGES:
        abort(404, description=f"languages: {', '.join(LANGUAGES)}")
    session["lang"] = lang
    return redirect(_safe_next(request.form.get("next")))


@bp.get("/users")
@banker_required
def user_list():
    return render_template("auth/users.html", users=users().all(), error=None)


@bp.post("/users")
@banker_required
def add_user():
    store = users()
    try:
        store.add(request.form.get("name", ""), request.form.get("password", ""),
                  request.form.get("role", "viewer"))
    except UserError as exc:
        return render_template("auth/users.html", users=store.all(), error=str(exc)), 422
    flash("Saved.")
    return redirect(url_for("auth.user_list"))


@bp.post("/users/<name>/remove")
@banker_required
def remove_user(name: str):
    store = users()
    try:
        store.remove(name)
    except UserError as exc:
        return render_template("auth/users.html", users=store.all(), error=str(exc)), 422
    if name.lower() == g.user.name.lower():
        session.clear()
        return redirect(url_for("auth.login"))
    return redirect(url_for("auth.user_list"))
