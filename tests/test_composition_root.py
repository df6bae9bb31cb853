"""The composition root `app.Feltbank`: made without side effects, started and stopped once
however often asked, built in tests with the devices' doubles."""

from __future__ import annotations

import threading

import pytest
from escpos.printer import Dummy

from app import Feltbank
from controller.config import load_config
from controller.errors import ConfigError
from controller.games.base import Command
from hardware.pins import pin_factory
from hardware.printer import PrinterConfig, ReceiptPrinter


@pytest.fixture
def config(tmp_path):
    config_file = tmp_path / "feltbank.toml"
    config_file.write_text(f'[table]\nmode = "hazard"\n[journal]\npath = '
                           f'"{tmp_path / "journal.sqlite3"}"\n[camera]\nsource = "none"\n')
    return load_config(config_file)


@pytest.fixture
def doubles():
    factory = pin_factory("mock")
    printer = ReceiptPrinter(PrinterConfig(connection="network", host="printer"),
                             device=Dummy())
    yield {"pin_factory": factory, "printer": printer}
    factory.reset()


def new_threads(before: set[threading.Thread]) -> set[str]:
    return {t.name for t in threading.enumerate() if t not in before and t.is_alive()}


def test_made_it_only_keeps_its_configuration(config, doubles):
    before = set(threading.enumerate())
    root = Feltbank(config, camera=False, **doubles)
    assert new_threads(before) == set()
    assert not config.journal_path.exists()  # no table opened, nothing written
    assert root.table is None and root.devices is None and not root.started
    assert root.health() == {"table": {"ok": False,
                                       "reason": "the running table is made, not started"}}
    with pytest.raises(RuntimeError, match="not started: call start"):
        root.services()
    root.stop()  # stopping what never started: nothing to do
    with pytest.raises(RuntimeError, match="was stopped; make a new one"):
        root.start()


def test_start_and_stop_are_idempotent(config, doubles):
    before = set(threading.enumerate())
    root = Feltbank(config, camera=False, **doubles)
    assert root.start() is root and root.started
    parts = (root.table, root.live, root.devices, tuple(root.tickers))
    running = new_threads(before)
    assert {"lights", "buttons", "spooler", "beat-table", "beat-devices"} <= running
    assert root.start() is root  # again: the same parts, no more threads
    assert (root.table, root.live, root.devices, tuple(root.tickers)) == parts
    assert new_threads(before) == running
    assert root.table.state.mode == "hazard" and config.journal_path.exists()
    root.table.submit(Command("join", {"player": "Ann"}, "j1"))
    health = root.health()
    assert health["journal"]["ok"] and health["printer"]["ok"]
    assert health["camera"] == {"ok": True, "camera": "none", "reason": "camera.source = none"}
    root.stop()
    root.stop()
    assert new_threads(before) == set()
    with pytest.raises(RuntimeError, match="was stopped"):
        root.start()


def test_the_web_heartbeat_is_watched_from_start_or_at_once(config, doubles):
    before = set(threading.enumerate())
    root = Feltbank(config, camera=False, **doubles)
    root.watch_web("127.0.0.1", 9)  # asked before start: watched from start()
    assert new_threads(before) == set()
    with root:
        assert "beat-web" in new_threads(before)
        root.watch_web("127.0.0.1", 9)  # asked again when started: at once
        assert sum(t.heartbeat.name == "web" for t in root.tickers) == 2
    assert new_threads(before) == set()


def test_a_part_that_cannot_start_stops_the_others(config, doubles, tmp_path):
    config_file = tmp_path / "bad.toml"
    config_file.write_text(f'[journal]\npath = "{tmp_path / "j2.sqlite3"}"\n'
                           '[camera]\nsource = "none"\n[pins]\nready = 17\n')
    before = set(threading.enumerate())
    root = Feltbank(load_config(config_file), camera=False, **doubles)
    with pytest.raises(ConfigError, match="pins"):
        root.start()
    assert new_threads(before) == set() and not root.started
    with pytest.raises(RuntimeError, match="was stopped"):
        root.start()


@pytest.mark.parametrize(("mode", "line"), [("fortunes-winds", 0.8), ("hazard", 0.5),
                                             ("namaste", 0.5)])
def test_the_live_table_is_made_with_the_readers_confidence_line(tmp_path, doubles, mode, line):
    """Issue 11: nothing is wired after it is made. The live table gets its confidence line
    when made: live.min_confidence (0.8 here), lowered to 0.5 for a reader that abstains by
    itself (pips, numerals); the camera no longer lowers it afterwards."""
    config_file = tmp_path / "feltbank.toml"
    config_file.write_text(f'[table]\nmode = "{mode}"\n[journal]\npath = '
                           f'"{tmp_path / "journal.sqlite3"}"\n[camera]\nsource = "none"\n'
                           '[live]\nmin_confidence = 0.8\n')
    with Feltbank(load_config(config_file), camera=False, **doubles) as root:
        assert root.live.min_confidence == line
