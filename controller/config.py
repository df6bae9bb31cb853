"""Configuration: defaults in code, one TOML override file, a data folder.

The override file is `$FELTBANK_CONFIG`, else `~/.config/feltbank/feltbank.toml`, else
`/etc/feltbank/feltbank.toml` (the first that exists; `$FELTBANK_CONFIG` must exist if set).
The data folder is `$FELTBANK_DATA`, else systemd's `$STATE_DIRECTORY`, else the XDG data
folder (`~/.local/share/feltbank`).

Keys are dotted: `[table] mode = "hazard"` is `table.mode`; a mode's own settings live under
`[games.MODE]`, e.g. `[games.hazard] max_bet = 100`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from controller.errors import ConfigError, IllegalCommand
from controller.settings import Setting, resolve
from controller.storage import atomic_write


def _known_mode(name: str) -> None:
    from controller.games import find_game

    try:
        find_game(name)
    except IllegalCommand as exc:
        raise ConfigError.because(exc) from None


#: The table-wide settings. A mode's own settings come from its engine (`games.MODE.KEY`).
SETTINGS = (
    Setting("table.name", "Table 1", "the table's name, printed on slips and screens"),
    Setting("table.mode", "fortunes-winds", "the game mode the table opens with",
            check=_known_mode, accepts="a game mode's name"),
    Setting("journal.path", "", "the SQLite journal; empty: journal.sqlite3 in the data folder"),
    Setting("log.level", "info", "how much the service logs",
            choices=("debug", "info", "warning", "error")),
    Setting("web.host", "0.0.0.0", "the address the dashboard listens on (0.0.0.0: every "
            "network of the Pi)"),
    Setting("web.port", 8080, "the dashboard's TCP port", minimum=1, maximum=65535),
    Setting("web.language", "en", "the dashboard's language until a user picks one",
            choices=("en", "fr")),
    Setting("web.threads", 16, "threads that build the dashboard's pages and answer its "
            "commands (idle connections and live screens hold none)", minimum=4, maximum=64),
    Setting("web.secure_cookies", False, "send the login cookie only over https (also "
            "automatic when the dashboard is served over https)"),
    Setting("web.certificate", "", "a TLS certificate file (PEM) to serve the dashboard over "
            "https; empty: plain http on the LAN"),
    Setting("web.private_key", "", "the TLS private key file (PEM) of web.certificate"),
)

def _camera_source(value: str) -> None:
    kind, _, arg = value.partition(":")
    if kind in ("auto", "picamera", "demo", "none") and not arg:
        return
    if kind == "usb" and (not arg or arg.isdigit() or arg.startswith("/dev/")):
        return
    if kind == "replay" and arg:
        return
    raise ValueError("not a camera source")


def _size(value: list) -> None:
    if len(value) != 2 or not all(isinstance(v, int | float) and v > 0 for v in value):
        raise ValueError("two positive numbers: width and depth")


def _polygon(value: list) -> None:
    if len(value) < 3 or not all(isinstance(p, list) and len(p) == 2 and all(
            isinstance(v, int | float) for v in p) for p in value):
        raise ValueError("three or more [x, y] points")


def _corners(value: list) -> None:
    if value and (len(value) != 4 or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, int | float) and v >= 0
                                                        for v in p) for p in value)):
        raise ValueError("empty, or four [x, y] image pixels clockwise from the top-left")


def _pins(value: list) -> None:
    if len(value) != 3:
        raise ValueError("three pins: red, green, blue")


#: The highest BCM GPIO number of a Raspberry Pi's header.
GPIO_MAX = 27


def _pin(key: str, default: int, help: str) -> Setting:
    return Setting(key, default, help, minimum=0, maximum=GPIO_MAX)


#: The table's devices: the camera's reading, GPIO buttons and LEDs (BCM numbers), the
#: receipt printer.
DEVICE_SETTINGS = (
    Setting("camera.source", "auto", "auto: the Pi camera, else a USB webcam, else the demo "
            "table; or picamera, usb, usb:N, replay:FOLDER, demo, none",
            check=_camera_source, accepts="auto, picamera, usb[:N], replay:FOLDER, demo or none"),
    Setting("camera.profile", "", "the dice recognition profile folder; empty: the shipped "
            "calibration/ of the table's dice"),
    Setting("camera.fps", 10.0, "frames a second taken from the camera", minimum=1.0,
            maximum=30.0),
    Setting("camera.mains_hz", 50, "the lamps' mains frequency: the Pi camera's locked "
            "exposure is a whole number of the lamps' flicker periods, so the picture does not "
            "band and pulse (0: do not adjust)", choices=(50, 60, 0)),
    Setting("camera.settle_seconds", 2.0, "the table must be still this long before a roll "
            "is read", minimum=0.2, maximum=10.0),
    Setting("camera.felt_mm", [510.0, 380.0], "the felt's width and depth between the corner "
            "markers' centres (or the corners set by hand), in mm", check=_size,
            accepts="[width, depth] in mm"),
    Setting("camera.corners", [], "the felt's four corners in the camera's picture, set by "
            "hand (image pixels, clockwise from the top-left); empty: found from the four "
            "corner markers", check=_corners,
            accepts="[] or four [x, y] points in image pixels"),
    Setting("zones.rolling", [[0.0, 0.0], [420.0, 0.0], [420.0, 380.0], [0.0, 380.0]],
            "where the dice are thrown: a polygon in table mm from the felt's top-left corner",
            check=_polygon, accepts="a list of [x, y] points in mm"),
    Setting("zones.tray", [[420.0, 0.0], [510.0, 0.0], [510.0, 380.0], [420.0, 380.0]],
            "where set-aside dice rest: a polygon in table mm", check=_polygon,
            accepts="a list of [x, y] points in mm"),
    Setting("live.confirm", "banker", "a sure, fitting roll is applied at once (auto) or after "
            "the banker's confirm (banker)", choices=("auto", "banker")),
    Setting("live.min_confidence", 0.9, "a die read with less confidence waits for the banker",
            minimum=0.0, maximum=1.0),
    Setting("gpio.factory", "auto", "auto: lgpio on a Raspberry Pi, mock pins elsewhere",
            choices=("auto", "lgpio", "mock")),
    Setting("gpio.hold_seconds", 1.5, "how long a press must last to count as a hold",
            minimum=0.2, maximum=10.0),
    Setting("gpio.bounce_ms", 30, "button debounce time", minimum=0, maximum=500),
    _pin("pins.confirm", 17, "GPIO of the confirm button (hold: settle)"),
    _pin("pins.reject", 27, "GPIO of the reject / re-read button"),
    _pin("pins.pass_dice", 22, "GPIO of the button the shooter presses to pass the dice"),
    _pin("pins.call_banker", 23, "GPIO of the call-the-banker button"),
    Setting("pins.led_mode", "separate", "one LED per state, or one RGB LED",
            choices=("separate", "rgb")),
    _pin("pins.ready", 5, "GPIO of the ready LED"),
    _pin("pins.bets_open", 6, "GPIO of the bets-open LED"),
    _pin("pins.rolling", 13, "GPIO of the rolling LED"),
    _pin("pins.reading", 19, "GPIO of the reading LED"),
    _pin("pins.needs_banker", 26, "GPIO of the needs-the-banker LED"),
    _pin("pins.win", 12, "GPIO of the win LED"),
    _pin("pins.loss", 16, "GPIO of the loss LED (also lit for a mode's own bad outcome)"),
    _pin("pins.fault", 20, "GPIO of the fault LED (camera or printer)"),
    Setting("pins.rgb", [12, 13, 19], "GPIOs of the RGB LED (red, green, blue) in rgb mode",
            check=_pins, accepts="a list of three GPIO numbers"),
    Setting("printer.connection", "file", "file: one file per receipt in printer.folder",
            choices=("file", "usb", "serial", "network", "none")),
    Setting("printer.profile", "", "python-escpos printer profile (e.g. TM-T20II); empty: "
            "the generic one"),
    Setting("printer.paper_mm", 80, "paper width", choices=(58, 80)),
    Setting("printer.usb_vendor", 0, "USB vendor id (lsusb: the number before the colon)",
            minimum=0, maximum=0xFFFF),
    Setting("printer.usb_product", 0, "USB product id (lsusb: the number after the colon)",
            minimum=0, maximum=0xFFFF),
    Setting("printer.usb_timeout_ms", 5000, "USB write timeout (0 would wait for ever)",
            minimum=100, maximum=60000),
    Setting("printer.serial_device", "/dev/ttyUSB0", "serial printer device"),
    Setting("printer.baudrate", 9600, "serial printer speed", minimum=1200, maximum=921600),
    Setting("printer.host", "", "network printer address"),
    Setting("printer.port", 9100, "network printer port", minimum=1, maximum=65535),
    Setting("printer.timeout_s", 10.0, "serial and network timeout", minimum=0.5,
            maximum=120.0),
    Setting("printer.folder", "", "file printer folder; empty: receipts/ in the data folder"),
    Setting("printer.slips", ["bet", "payout", "round"], "slips printed as the game goes: "
            "bet, payout, round (the end slip of a round, hand or game)",
            check=lambda v: [_slip(x) for x in v],
            accepts="a list of 'bet', 'payout' and 'round'"),
    Setting("printer.language", "en", "the language the receipts are printed in",
            choices=("en", "fr")),
)


def _house_url(value: str) -> None:
    if value and not value.startswith(("https://", "http://")):
        raise ValueError("not a URL")


#: The house ledger this table ships its journal to (controller/outbox.py).
HOUSE_SETTINGS = (
    Setting("house.url", "", "the house ledger's address (https://HOST:PORT); empty: the "
            "table ships its journal nowhere", check=_house_url,
            accepts="empty, or an https:// URL"),
    Setting("house.table", "", "this table's id at the house (feltbank house add-table ID)"),
    Setting("house.token", "", "this table's token at the house, as add-table printed it"),
    Setting("house.ca", "", "the certificate (PEM) the house's is checked against; empty: "
            "the system's authorities"),
)


def _slip(name: str) -> None:
    if name not in ("bet", "payout", "round"):
        raise ValueError(f"{name!r} is not a slip: 'bet', 'payout' or 'round'")


SYSTEM_CONFIG = Path("/etc/feltbank/feltbank.toml")


def user_config_path() -> Path:
    return Path(platformdirs.user_config_dir("feltbank")) / "feltbank.toml"


def config_path(env: Mapping[str, str] | None = None) -> Path | None:
    """The override file in use, or None when there is none."""
    env = os.environ if env is None else env
    if env.get("FELTBANK_CONFIG"):
        path = Path(env["FELTBANK_CONFIG"])
        if not path.is_file():
            raise ConfigError(f"FELTBANK_CONFIG names {path}, which is not a file")
        return path
    for path in (user_config_path(), SYSTEM_CONFIG):
        if path.is_file():
            return path
    return None


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the journal and the table's own files live."""
    env = os.environ if env is None else env
    if env.get("FELTBANK_DATA"):
        return Path(env["FELTBANK_DATA"])
    if env.get("STATE_DIRECTORY"):
        # systemd may list several; the first is ours.
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    return Path(platformdirs.user_data_dir("feltbank"))


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in flat.items():
        *parents, leaf = key.split(".")
        node = out
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return out


def schema() -> dict[str, Setting]:
    """Every setting by dotted key: the table's, then each registered mode's."""
    from controller.games import games

    out = {s.key: s for s in (*SETTINGS, *DEVICE_SETTINGS, *HOUSE_SETTINGS)}
    for name, engine in sorted(games().items()):
        for s in engine.setting_schema():
            key = f"games.{name}.{s.key}"
            out[key] = dataclasses.replace(s, key=key)
    return out


@dataclass(frozen=True)
class Config:
    """The effective configuration: every key's value and where it came from."""

    values: Mapping[str, Any]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    path: Path | None = None
    data_dir: Path = field(default_factory=data_dir)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def source(self, key: str) -> str:
        return str(self.path) if key in self.overrides else "default"

    @property
    def journal_path(self) -> Path:
        given = self.values["journal.path"]
        return Path(given) if given else self.data_dir / "journal.sqlite3"

    def game_settings(self, mode: str) -> dict[str, Any]:
        """The settings of `mode` that the override file sets (the rest are the engine's)."""
        prefix = f"games.{mode}."
        return {k[len(prefix):]: v for k, v in self.overrides.items() if k.startswith(prefix)}

    def to_toml(self) -> str:
        """The effective configuration as TOML, each key commented with its source."""
        lines = [f"# feltbank configuration; override file: {self.path or 'none'}",
                 f"# data folder: {self.data_dir}", ""]
        by_section: dict[str, list[str]] = {}
        for key in sorted(self.values):
            section, leaf = key.rsplit(".", 1)
            value = self.values[key]
            # Arrays on one line (JSON's array of numbers or strings is TOML's too).
            value = (f"{leaf} = {json.dumps(value)}" if isinstance(value, list)
                     else tomli_w.dumps({leaf: value}).strip())
            by_section.setdefault(section, []).append(f"{value}  # {self.source(key)}")
        for section, rows in by_section.items():
            lines += [f"[{section}]", *rows, ""]
        return "\n".join(lines)


def load_config(path: str | os.PathLike | None = None,
                env: Mapping[str, str] | None = None) -> Config:
    """Read the override file (or `path`) over the defaults; ConfigError names any bad key."""
    env = os.environ if env is None else env
    path = Path(path) if path is not None else config_path(env)
    overrides: dict[str, Any] = {}
    if path is not None:
        try:
            overrides = _flatten(tomllib.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise ConfigError(f"{path}: no such config file") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    values = validate(overrides, where=str(path))
    config = Config(values, overrides, path, data_dir(env))
    return config


def validate(overrides: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Every key's effective value given `overrides`; ConfigError names an unknown or bad key."""
    keys = schema()
    unknown = sorted(set(overrides) - set(keys))
    if unknown:
        key = unknown[0]
        section = key.rsplit(".", 1)[0] if "." in key else ""
        near = sorted(k.rsplit(".", 1)[1] for k in keys if k.rsplit(".", 1)[0] == section)
        hint = (f"keys of [{section}] are: {', '.join(near)}" if near
                else "sections are: " + ", ".join(sorted({k.rsplit('.', 1)[0] for k in keys})))
        raise ConfigError(f"unknown key {key!r} in {where}; {hint}")
    values = resolve(keys.values(), overrides, where=where)
    # Cross-checks of each mode's settings (e.g. min_bet <= max_bet).
    from controller.games import find_game

    for mode in sorted({k.split(".")[1] for k in overrides if k.startswith("games.")}):
        prefix = f"games.{mode}."
        engine = find_game(mode)
        engine.check_settings({k[len(prefix):]: v for k, v in values.items() if k.startswith(prefix)})
    return values


def write_config(path: str | os.PathLike, overrides: Mapping[str, Any]) -> Config:
    """Validate `overrides` and write them atomically as the override file at `path`."""
    validate(overrides, where=str(path))
    atomic_write(path, tomli_w.dumps(_nest(dict(overrides))))
    return load_config(path)
