"""Configuration: defaults in code, one TOML override file, clear errors, atomic writes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import tomllib

import pytest

from controller.config import config_path, data_dir, load_config, write_config
from controller.errors import ConfigError
from controller.storage import atomic_write


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_any_file(isolated_feltbank):
    config = load_config()
    assert config.path is None
    assert config["table.mode"] == "fortunes-winds"
    assert config["games.hazard.commission_percent"] == 5
    assert config.journal_path == isolated_feltbank / "data" / "journal.sqlite3"
    assert config.source("table.mode") == "default"


def test_override_file_search_order(isolated_feltbank, monkeypatch, tmp_path):
    user = isolated_feltbank / "config" / "feltbank" / "feltbank.toml"
    user.parent.mkdir(parents=True)
    write(user, '[table]\nname = "Kasumi"\n')
    assert config_path() == user
    assert load_config()["table.name"] == "Kasumi"
    explicit = write(tmp_path / "other.toml", '[table]\nname = "Other"\n')
    monkeypatch.setenv("FELTBANK_CONFIG", str(explicit))
    assert load_config()["table.name"] == "Other"
    monkeypatch.setenv("FELTBANK_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match="FELTBANK_CONFIG names .*missing.toml, which is not a file"):
        load_config()


def test_data_dir_order(tmp_path):
    assert data_dir({"FELTBANK_DATA": "/a", "STATE_DIRECTORY": "/b"}) == type(tmp_path)("/a")
    assert data_dir({"STATE_DIRECTORY": "/var/lib/feltbank:/other"}) == type(tmp_path)(
        "/var/lib/feltbank")
    assert str(data_dir({"XDG_DATA_HOME": str(tmp_path)})).endswith("feltbank")


def test_values_and_game_settings_from_the_file(tmp_path):
    path = write(tmp_path / "f.toml", """
[table]
mode = "hazard"
[journal]
path = "/srv/table.sqlite3"
[games.hazard]
max_bet = 200
caster_loses_pays = "1:1"
""")
    config = load_config(path)
    assert config["games.hazard.max_bet"] == 200
    assert config.source("games.hazard.max_bet") == str(path)
    assert config.game_settings("hazard") == {"max_bet": 200, "caster_loses_pays": "1:1"}
    assert str(config.journal_path) == "/srv/table.sqlite3"
    shown = tomllib.loads(config.to_toml())
    assert shown["games"]["hazard"]["max_bet"] == 200


@pytest.mark.parametrize("text, match", [
    ('[table]\nmod = "hazard"\n', r"unknown key 'table.mod' in .*; keys of \[table\] are: mode, name"),
    ('[tabel]\nmode = "hazard"\n', "unknown key 'tabel.mode'.*sections are: .*table"),
    ('[table]\nmode = "craps"\n', r"table.mode = 'craps' in .* expected a game mode's name \(.*hazard"),
    ('[log]\nlevel = "loud"\n', "log.level = 'loud' .* expected one of 'debug'"),
    ("[games.hazard]\nmax_bet = 0\n", "games.hazard.max_bet = 0 .* from 1 to 1000000"),
    ('[games.hazard]\nmax_bet = "10"\n', "games.hazard.max_bet = '10' .* a whole number"),
    ("[games.hazard]\nmin_bet = true\n", "min_bet = True"),
    ('[games.hazard]\ncaster_wins_pays = "lots"\n', "caster_wins_pays = 'lots' .* pay rate"),
    ("[games.hazard]\nmin_bet = 50\nmax_bet = 10\n", "min_bet .50. is above max_bet .10."),
    ("[games.craps]\nmax_bet = 10\n", "unknown key 'games.craps.max_bet'"),
    ("[table\nmode=", "is not valid TOML"),
    ("[camera]\ncorners = [[1, 2]]\n", r"camera.corners = \[\[1, 2\]\] .* four \[x, y\]"),
    ('[camera]\ncorners = [[0, 0], [9, 0], [9, 9], ["a", 9]]\n', "camera.corners"),
    ("[camera]\ncorners = [[0, 0], [9, 0], [9, 9], [-1, 9]]\n", "image pixels"),
    ("[camera]\nmains_hz = 55\n", "camera.mains_hz = 55 .* one of 50, 60, 0"),
])
def test_bad_files_name_the_key_and_what_is_accepted(tmp_path, text, match):
    path = write(tmp_path / "bad.toml", text)
    with pytest.raises(ConfigError, match=match):
        load_config(path)


def test_write_config_validates_then_writes_atomically(tmp_path):
    path = tmp_path / "etc" / "feltbank.toml"
    config = write_config(path, {"table.name": "Kasumi", "games.hazard.max_bet": 50})
    assert config["games.hazard.max_bet"] == 50
    assert tomllib.loads(path.read_text()) == {"table": {"name": "Kasumi"},
                                               "games": {"hazard": {"max_bet": 50}}}
    before = path.read_bytes()
    with pytest.raises(ConfigError, match="max_bet = -1"):
        write_config(path, {"games.hazard.max_bet": -1})
    with pytest.raises(ConfigError, match="unknown key"):
        write_config(path, {"web.colour": "red"})
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == ["feltbank.toml"]


CHILD = """
import sys
from controller.storage import atomic_write
path, n = sys.argv[1], 0
print("ready", flush=True)
while True:
    n += 1
    atomic_write(path, (f"# version {n}\\n" + "x = 1\\n" * 20000))
"""


@pytest.mark.slow
def test_atomic_writes_survive_a_kill_at_any_moment(tmp_path):
    path = tmp_path / "feltbank.toml"
    atomic_write(path, "# version 0\n" + "x = 1\n" * 20000)
    rng = random.Random(3)
    for _ in range(20):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.05))
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        text = path.read_text()
        assert text.startswith("# version ") and text.count("x = 1\n") == 20000
    leftovers = [p for p in tmp_path.iterdir() if p.name != "feltbank.toml"]
    assert all(p.name.startswith(".feltbank.toml.") for p in leftovers)
