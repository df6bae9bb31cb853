"""Settings: every key of the configuration, validated by controller.config, written
atomically to the override file; and applying a mode's settings to the table."""

from __future__ import annotations

import json
import uuid

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, url_for

from controller import config as cfg
from controller import games
from controller.errors import ConfigError, IllegalCommand
from controller.games.base import Command
from web.auth import banker_required
from web.data import table
from web.i18n import N_, number, refusal, say, t

bp = Blueprint("settings", __name__, url_prefix="/settings")


def current() -> cfg.Config:
    return current_app.extensions["feltbank.config"]


def config_path():
    return current_app.config["CONFIG_PATH"]


#: The settings page's groups, in the order a banker looks for them: each with what it is
#: about and the configuration sections it holds.
GROUPS = (
    ("table", N_("Table"), N_("The table's name, the game it opens with, how a camera reading "
                             "is applied, the journal and the log."),
     ("table", "live", "journal", "log")),
    ("games", N_("Games"), N_("Each game's limits and house rules. The table takes them with "
                             "“Apply to the table now”, between rounds."), ("games",)),
    ("camera", N_("Camera"), N_("Where the picture comes from, the felt's size and corners, "
                               "where dice are thrown and set aside."), ("camera", "zones")),
    ("lights", N_("Lights and buttons"), N_("The GPIO pins (BCM numbers) of the table's "
                                           "buttons and status lights."), ("gpio", "pins")),
    ("printer", N_("Printer"), N_("How the receipt printer is connected and which slips it "
                                 "prints."), ("printer",)),
    ("dashboard", N_("Dashboard"), N_("The dashboard's address, language, server and "
                                     "security."), ("web",)),
    ("house", N_("House ledger"), N_("Where this table sends its journal: the house's "
                                    "address, this table's name and token there."),
     ("house",)),
)

#: What a kind of setting accepts, in words.
KIND_WORDS = {"bool": N_("yes or no"), "int": N_("a whole number"), "float": N_("a number"),
              "str": N_("text"), "list": N_("a list")}


def group_of(key: str) -> str:
    section = key.split(".", 1)[0]
    return next((g[0] for g in GROUPS if section in g[3]), "table")


def accepts_words(setting) -> str:
    """What `setting` accepts, in the page's language."""
    if setting.choices is not None:
        return t("one of: %(choices)s") % {"choices": ", ".join(str(c) for c in setting.choices)}
    what = t(setting.accepts) if setting.accepts else t(KIND_WORDS.get(setting.kind.__name__, ""))
    low, high = setting.minimum, setting.maximum
    if low is not None and high is not None:
        return t("%(what)s from %(low)s to %(high)s") % {"what": what, "low": number(low),
                                                        "high": number(high)}
    if low is not None:
        return t("%(what)s of at least %(low)s") % {"what": what, "low": number(low)}
    if high is not None:
        return t("%(what)s of at most %(high)s") % {"what": what, "high": number(high)}
    return what


def help_words(setting) -> str:
    """What `setting` is for, in the page's language."""
    return say(setting.words or setting.help)


def refused_key(error: str, keys) -> str | None:
    """The setting a refusal names (its message starts with the key)."""
    return next((k for k in sorted(keys, key=len, reverse=True) if error.startswith(k)), None)


def sections(submitted=None, error: str = "") -> list[dict]:
    """The schema in the page's groups (a game's settings under its mode), each key with its
    value, what it means and what it accepts; after a refusal, the values as the banker typed
    them, the refused key marked and its group open."""
    conf = current()
    state = table().state
    keys = cfg.schema()
    bad = refused_key(error, keys)
    groups = {g[0]: {"id": g[0], "name": g[1], "about": g[2], "parts": {}, "open": False}
              for g in GROUPS}
    for key, setting in keys.items():
        group = groups[group_of(key)]
        part_name = key.rsplit(".", 1)[0] if key.startswith("games.") else ""
        part = group["parts"].setdefault(part_name, {"mode": part_name[len("games."):],
                                                     "keys": []})
        value = conf.values.get(key, setting.default)
        if submitted is not None and key in submitted:
            value = submitted[key]
        choices = setting.choices
        if key == "table.mode":
            choices = tuple(sorted(games.games()))
        part["keys"].append({"key": key, "name": key.rsplit(".", 1)[1], "value": value,
                             "default": setting.default, "help": help_words(setting),
                             "accepts": accepts_words(setting), "choices": choices,
                             "kind": setting.kind.__name__,
                             "overridden": key in conf.overrides, "bad": key == bad})
        if key == bad:
            group["open"] = True
    if bad is None:
        groups["table"]["open"] = True
    for group in groups.values():
        # A game's own settings first when it is the one being played.
        parts = sorted(group["parts"].values(),
                       key=lambda p: (state is None or p["mode"] != state.mode, p["mode"]))
        group["parts"] = parts
    return [g for g in groups.values() if g["parts"]]


def parse_list(raw: str, default: list) -> list:
    """A list setting as typed: JSON ("[[0, 0], [420, 0], ...]" for points), or items
    separated by commas, each of the kind of the default's items ("510, 380")."""
    if raw.startswith("["):
        value = json.loads(raw)  # ValueError (JSONDecodeError) when it is not JSON
        if not isinstance(value, list):
            raise ValueError
        return value
    items = [v.strip() for v in raw.split(",") if v.strip()]
    kind = type(default[0]) if default else str
    if kind in (int, float):
        return [int(v) if kind is int else float(v) for v in items]
    return items


@bp.app_template_global()
def list_text(value) -> str:
    """How the page shows a list setting: comma-separated items, JSON for nested lists."""
    if isinstance(value, str):
        return value
    if any(isinstance(v, list | dict) for v in value) or not value:
        return json.dumps(value)
    return ", ".join(str(v) for v in value)


def parse(form) -> dict:
    """The submitted values as typed settings; ConfigError names a value that is not one."""
    keys = cfg.schema()
    values = {}
    for key, raw in form.items():
        if key == "csrf_token":
            continue
        setting = keys.get(key)
        if setting is None:
            raise ConfigError(f"unknown setting {key[:80]!r}")
        raw = raw.strip()
        kind = setting.kind
        try:
            if kind is bool:
                if raw not in ("true", "false"):
                    raise ValueError
                value = raw == "true"
            elif kind is int:
                value = int(raw)
            elif kind is float:
                value = float(raw)
            elif kind is list:
                value = parse_list(raw, setting.default)
            else:
                value = raw
        except ValueError:
            raise ConfigError(f"{key} = {raw[:80]!r} is not accepted: expected "
                              f"{setting.describe()}") from None
        values[key] = value
    return values


def save_settings(changes: dict) -> cfg.Config:
    """Write these settings over the saved ones (validated, atomically) and use them from now
    on; ConfigError names a value that is refused, and nothing is written."""
    conf = current()
    keys = cfg.schema()
    overrides = dict(conf.overrides)
    for key, value in changes.items():
        if key in overrides or value != keys[key].default:
            overrides[key] = value
    new = cfg.write_config(config_path(), overrides)
    current_app.extensions["feltbank.config"] = new
    current_app.config["LANGUAGE"] = new["web.language"]
    current_app.config["TABLE_NAME"] = new["table.name"]
    return new


@bp.get("/")
@banker_required
def index():
    return render_template("settings/index.html", sections=sections(), error=None,
                           **where_saved())


@bp.post("/")
@banker_required
def save():
    try:
        save_settings(parse(request.form))
    except ConfigError as exc:
        typed = {k: v for k, v in request.form.items() if k != "csrf_token"}
        return render_template("settings/index.html", sections=sections(typed, str(exc)),
                               error=str(exc), **where_saved()), 422
    flash(t("Saved."))
    return redirect(url_for("settings.index"))


def where_saved() -> dict:
    """Where the settings are written, and whether the running table read that file."""
    conf = current()
    path = config_path()
    return {"path": path, "state": table().state,
            "mode_titles": {name: engine.title for name, engine in games.games().items()},
            "read_by_table": conf.path is not None and str(conf.path) == str(path),
            "exists": path.is_file()}


@bp.post("/apply")
@banker_required
def apply():
    """Take the saved settings to the table: its mode (open) or its mode's settings (configure)."""
    conf = current()
    tab = table()
    mode = conf["table.mode"]
    settings = conf.game_settings(mode)
    if tab.state is None or tab.state.mode != mode:
        cmd = Command("open", {"mode": mode, "settings": settings}, f"web-{uuid.uuid4().hex}")
    else:
        cmd = Command("configure", {"settings": settings}, f"web-{uuid.uuid4().hex}")
    try:
        tab.submit(cmd, source=f"dashboard:{g.user.name}")
    except IllegalCommand as exc:
        return render_template("settings/index.html", sections=sections(), error=refusal(exc),
                               **where_saved()), 422
    flash(t("The table took the settings."))
    return redirect(url_for("settings.index"))
