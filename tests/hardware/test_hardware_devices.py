"""The devices of a running table: lights follow the game, buttons give commands, slips print."""

from __future__ import annotations

import threading

import pytest
from escpos.printer import Dummy

from app import Feltbank
from controller.config import load_config
from controller.games.base import Command
from controller.games.observation import Observation, Seen
from controller.games.play import seated_table
from controller.journal import Journal
from controller.table import Table
from hardware.pins import pin_factory
from hardware.printer import PrinterConfig, ReceiptPrinter
from tests.waiting import wait_for


class Switchable(Dummy):
    """escpos's Dummy printer that can be unplugged."""

    unplugged = False

    def _raw(self, msg: bytes) -> None:
        if self.unplugged:
            raise OSError("[Errno 19] No such device")
        super()._raw(msg)


@pytest.fixture
def rig(tmp_path):
    """A Fortunes and Winds table of two with its devices on mock pins and a Dummy printer:
    the composition root with doubles, no camera."""
    table = Table(Journal(tmp_path / "journal.sqlite3"))
    for cmd in seated_table("fortunes-winds", players=2, coins=100):
        table.submit(cmd)
    factory = pin_factory("mock")
    device = Switchable()
    printer = ReceiptPrinter(PrinterConfig(connection="network", host="printer"), device=device)
    config_file = tmp_path / "feltbank.toml"
    # No debounce, a long hold: a test press is released at once (even on a busy machine
    # it is no hold); test_hardware_pins checks the debounce setting.
    config_file.write_text('[table]\nname = "Fortune Smiles"\n[gpio]\nhold_seconds = 1.0\n'
                           'bounce_ms = 0\n[live]\nconfirm = "banker"\n')
    root = Feltbank(load_config(config_file), camera=False, pin_factory=factory,
                    printer=printer, table=table).start()
    devices = root.devices
    devices.spooler.retry_first = 0.05
    yield table, devices, factory, device
    root.stop()
    factory.reset()


def press(factory, gpio):
    """A press, released at once (the button worker then acts on it)."""
    pin = factory.pin(gpio)
    pin.drive_low()
    pin.drive_high()


def test_lights_follow_the_turn_and_slips_print(rig):
    table, devices, factory, device = rig
    assert devices.lights_done() and devices.lights.state == "bets_open"
    table.submit(Command("bet", {"player": "P1", "bet": "standard", "amount": 2}))
    assert devices.lights_done() and devices.lights.state == "bets_open"
    table.submit(Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}))
    assert devices.lights_done() and devices.lights.state == "rolling"
    table.submit(Command("roll", {"faces": ["EARTH", "WATER", "FIRE", "AIR", "MOON"]}))
    assert devices.lights_done() and devices.lights.state == "loss" and factory.pin(16).state == 1
    # One slip for the standard bet with its Lord Moon money; no payout on a loss.
    assert wait_for(lambda: device.output.count(b"BET SLIP") == 1)
    assert b"For Lord Moon" in device.output
    assert b"PAYOUT" not in device.output


def test_the_pass_button_passes_the_dice_after_a_win(rig):
    table, devices, factory, device = rig
    table.submit(Command("bet", {"player": "P1", "bet": "standard", "amount": 2}))
    table.submit(Command("roll", {"faces": ["EARTH", "WATER", "FIRE", "AIR", "SUN"]}))
    assert devices.lights_done() and devices.lights.state == "win"
    assert table.state.shooter == "P1"
    press(factory, 22)
    assert wait_for(lambda: table.state.shooter == "P2")
    record = table.journal.find(list(table.journal.records())[-1].command.id)
    assert record.command.kind == "pass" and record.source == "button"
    assert wait_for(lambda: b"PAYOUT" in device.output)


def test_a_refused_pass_and_the_call_button_light_needs_banker(rig):
    table, devices, factory, _ = rig
    press(factory, 22)  # no win yet: the dice do not pass
    assert wait_for(lambda: devices.lights.state == "needs_banker")
    assert table.state.shooter == "P1"
    # The banker answers (as a held call button does): the lights show the game again,
    # asked of the lights thread; this thread never drives them (a blink thread stopped
    # here while the lights thread started it: "cannot join thread before it is started").
    devices.handle("call-banker-hold")
    assert devices.lights_done() and devices.lights.state == "bets_open"
    press(factory, 23)
    assert wait_for(lambda: devices.lights.state == "needs_banker")
    pin = factory.pin(23)
    pin.drive_low()  # a hold: the banker answers the call; released once it is seen
    assert wait_for(lambda: devices.lights_done() and devices.lights.state == "bets_open")
    pin.drive_high()


def test_an_unplugged_printer_lights_the_fault_and_the_slips_wait(rig):
    table, devices, factory, device = rig
    device.unplugged = True
    table.submit(Command("bet", {"player": "P1", "bet": "standard", "amount": 2}))
    assert wait_for(lambda: devices.lights.faulty)
    assert factory.pin(20).state or wait_for(lambda: factory.pin(20).state)
    assert table.state.ledger.on_table("P1") == 4  # the game went on
    device.unplugged = False
    assert wait_for(lambda: not devices.lights.faulty)
    assert device.output.count(b"BET SLIP") == 1


def test_the_lights_are_driven_by_one_thread_whoever_changes_them(rig, monkeypatch):
    """Issue 11: commands from any thread, a camera reading, a button and a printer fault all
    change the lights through one queue: only the "lights" thread drives the pins."""
    table, devices, factory, device = rig
    drivers = []
    for what in ("show", "fault"):
        real = getattr(devices.lights, what)

        def driven(value, real=real):
            drivers.append(threading.current_thread().name)
            real(value)

        monkeypatch.setattr(devices.lights, what, driven)
    device.unplugged = True  # the bet's slip fails: the spooler's thread lights the fault
    bet = Command("bet", {"player": "P1", "bet": "standard", "amount": 2})
    other = threading.Thread(target=table.submit, args=(bet,), name="dashboard")
    other.start()
    other.join()
    assert wait_for(lambda: devices.lights_done() and devices.lights.faulty)
    device.unplugged = False
    assert wait_for(lambda: devices.lights_done() and not devices.lights.faulty)
    table.submit(Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}))
    devices.live.observe(Observation(tuple(Seen(f, 0.99, (i, 0)) for i, f in
                                           enumerate(("NORTH", "EAST", "FIRE")))))
    assert devices.lights_done() and devices.lights.state == "needs_banker"
    press(factory, 23)  # the call button, from the buttons' worker
    assert wait_for(lambda: len(drivers) >= 6 and devices.lights_done())
    assert set(drivers) == {"lights"}, drivers


def test_the_confirm_and_reject_buttons_act_on_the_read_roll(rig):
    table, devices, factory, _ = rig
    live = devices.live
    table.submit(Command("bet", {"player": "P1", "bet": "standard", "amount": 2}))
    faces = ("NORTH", "EAST", "FIRE", "BIRD", "VOID")
    live.observe(Observation(tuple(Seen(f, 0.99, (i, 0)) for i, f in enumerate(faces))))
    assert devices.lights_done() and devices.lights.state == "reading"
    press(factory, 17)  # confirm
    assert wait_for(lambda: table.state.roll == 1)
    assert devices.lights_done() and devices.lights.state == "rolling"
    live.observe(Observation(tuple(Seen(f, 0.99, (i, 0)) for i, f in enumerate(faces[:3]))))
    assert devices.lights_done() and devices.lights.state == "needs_banker"
    press(factory, 27)  # reject: read again
    assert wait_for(lambda: live.pending is None) and table.state.roll == 1
