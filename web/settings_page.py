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

bp = Blueprint("settings", __name__, url_prefix="/settings")


def current() -> cfg.Config:
    return current_app.extensions["feltbank.config"]


def config_path():
    return current_app.config["CONFIG_PATH"]


def sections(submitted=None, error: str = "") -> list[dict]:
    """The schema grouped by section, each key with its value, default and what it accepts;
    after a refusal, the values as the banker typed them and the refused key marked."""
    conf = current()
    state = table().state
    keys = cfg.schema()
    bad = next((k for k in sorted(keys, key=len, reverse=True) if error.startswith(k)), None)
    out: dict[str, dict] = {}
    for key, setting in keys.items():
        section = key.rsplit(".", 1)[0]
        sec = out.setdefault(section, {"name": section, "keys": [],
                                       "open": not section.startswith("games.")
                                       or (state is not None and section == f"games.{state.mode}")})
        value = conf.values.get(key, setting.default)
        if submitted is not None and key in submitted:
            value = submitted[key]
        choices = setting.choices
        if key == "table.mode":
            choices = tuple(sorted(games.games()))
        sec["keys"].append({"key": key, "value": value, "default": setting.default,
                            "help": setting.help, "accepts": setting.describe(),
                            "choices": choices, "kind": setting.kind.__name__,
                            "overridden": key in conf.overrides, "bad": key == bad})
        if key == bad:
            sec["open"] = True
    return list(out.values())


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
                           path=config_path(), state=table().state)


@bp.post("/")
@banker_required
def save():
    try:
        save_settings(parse(request.form))
    except ConfigError as exc:
        typed = {k: v for k, v in request.form.items() if k != "csrf_token"}
        return render_template("settings/index.html", sections=sections(typed, str(exc)),
                               error=str(exc), path=config_path(), state=table().state), 422
    flash("Saved.")
    return redirect(url_for("settings.index"))


@bp.post("/apply")
@banker_required
def apply():
    """Take the saved settings to the table: its mode (open) or its mode's settings (configure)."""
    conf = current()
    t = table()
    mode = conf["table.mode"]
    settings = conf.game_settings(mode)
    if t.state is None or t.state.mode != mode:
        cmd = Command("open", {"mode": mode, "settings": settings}, f"web-{uuid.uuid4().hex}")
    else:
        cmd = Command("configure", {"settings": settings}, f"web-{uuid.uuid4().hex}")
    try:
        t.submit(cmd, source=f"dashboard:{g.user.name}")
    except IllegalCommand as exc:
        return render_template("settings/index.html", sections=sections(), error=str(exc),
                               path=config_path(), state=t.state), 422
    flash("Saved.")
    return redirect(url_for("settings.index"))
