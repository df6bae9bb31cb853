"""`feltbank hardware check`, and the one place that builds the devices from the config."""

from __future__ import annotations

import argparse
import logging
import queue
import threading
import time
from datetime import datetime
from pathlib import Path

from controller.cli.common import add_config_option, config_of
from controller.config import Config
from controller.errors import ConfigError, IllegalCommand
from controller.games.base import Command

log = logging.getLogger(__name__)


def pin_map(config: Config):
    """The hardware.PinMap of the [pins] settings; ConfigError if it cannot work."""
    from hardware.errors import PinMapError
    from hardware.pins import BUTTONS, LIGHTS, PinMap

    try:
        return PinMap(
            buttons={name: config[f"pins.{name}"] for name in BUTTONS},
            led_mode=config["pins.led_mode"],
            leds={name: config[f"pins.{name}"] for name in LIGHTS},
            rgb=tuple(config["pins.rgb"]),
        )
    except PinMapError as exc:
        raise ConfigError(f"[pins] of {config.path or 'the defaults'}: {exc}") from None


def printer_config(config: Config):
    """The hardware.PrinterConfig of the [printer] settings, or None for connection 'none'."""
    from hardware.printer import PrinterConfig

    if config["printer.connection"] == "none":
        return None
    folder = config["printer.folder"] or str(config.data_dir / "receipts")
    try:
        return PrinterConfig(**{key: config[f"printer.{key}"] for key in (
            "connection", "profile", "paper_mm", "usb_vendor", "usb_product", "usb_timeout_ms",
            "serial_device", "baudrate", "host", "port", "timeout_s")}, folder=folder)
    except ValueError as exc:
        raise ConfigError(f"[printer] of {config.path or 'the defaults'}: {exc}") from None


class TableDevices:
    """The buttons, lights and printer of a running table, wired to its table service.

    Button callbacks only enqueue; one worker thread turns the actions into commands. The
    lights follow each committed command; a printer fault lights the fault LED.
    """

    def __init__(self, config: Config, table, *, live=None, factory=None, printer=None):
        from controller.printqueue import PrintQueue, Spooler
        from hardware.buttons import TableButtons
        from hardware.lights import StatusLights
        from hardware.pins import pin_factory
        from hardware.printer import ReceiptPrinter

        self.table = table
        self.live = live
        #: The demo table's thrower, when the camera is the demo table.
        self.demo = None
        self.actions: queue.Queue[str | None] = queue.Queue()
        self.factory = factory or pin_factory(config["gpio.factory"])
        pins = pin_map(config)
        self.buttons = TableButtons(pins, self.actions.put, pin_factory=self.factory,
                                    hold_seconds=config["gpio.hold_seconds"],
                                    bounce_seconds=config["gpio.bounce_ms"] / 1000 or None)
        self.lights = StatusLights(pins, pin_factory=self.factory)
        self.print_queue = self.spooler = None
        pc = printer_config(config)
        if printer is not None or pc is not None:
            self.print_queue = PrintQueue(
                table.journal.path, config["table.name"], slips=config["printer.slips"],
                mode_of=lambda: table.state.mode if table.state else "")
            self.print_queue.attach(table)
            self.spooler = Spooler(self.print_queue, printer or ReceiptPrinter(pc),
                                   on_status=lambda status: self.lights.fault(not status.ok))
            self.spooler.start()
        table.subscribe(self._follow)
        if live is not None:
            live.subscribe(self._waiting)
        if table.state is not None:
            self.lights.show(table.engine.light(table.state, ()))
        self._worker = threading.Thread(target=self._work, name="buttons", daemon=True)
        self._worker.start()

    def _follow(self, outcome) -> None:
        state = self.table.state
        self.lights.show(self.table.engine.light(state, outcome.events))

    def _waiting(self, pending) -> None:
        if pending is None:
            self.lights.show(self.table.engine.light(self.table.state, ()))
        else:
            self.lights.show("reading" if pending.reading.ready else "needs_banker")

    def _work(self) -> None:
        while (action := self.actions.get()) is not None:
            try:
                self.handle(action)
            except Exception:  # a button must never take the table down
                log.exception("button action %s", action)

    def handle(self, action: str) -> None:
        """Carry out a button action: a command for the table, or a light for the banker."""
        if action == "call-banker":
            self.lights.show("needs_banker")
            log.info("the table calls the banker")
        elif action == "call-banker-hold":
            # The banker has come: the call is answered, the lights show the game again.
            self._waiting(self.live.pending if self.live is not None else None)
        elif action == "pass-dice":
            engine = self.table.engine
            if engine is None or "pass" not in engine.command_kinds():
                log.info("pass-dice: %s has no passing of the dice", engine and engine.title)
                return
            try:
                self.table.submit(Command("pass", {}), source="button")
            except IllegalCommand as exc:
                log.info("pass-dice refused: %s", exc)
                self.lights.show("needs_banker")
        elif action == "confirm" and self.demo is not None and (
                self.live is None or self.live.pending is None):
            # The demo table: with nothing to confirm, the confirm button throws the dice.
            try:
                self.demo()
            except IllegalCommand as exc:
                log.info("demo throw: %s", exc)
        elif action in ("confirm", "reject") and self.live is not None:
            try:
                if action == "confirm":
                    self.live.confirm()
                else:
                    self.live.reject()
            except IllegalCommand as exc:
                log.info("button %s: %s", action, exc)
                if self.live.pending is not None:
                    self.lights.show("needs_banker")
        else:
            log.info("button %s: nothing to do", action)

    def alive(self) -> bool:
        """True while the button worker and the spooler threads run."""
        spooler = self.spooler is None or (self.spooler._thread is not None
                                           and self.spooler._thread.is_alive())
        return self._worker.is_alive() and spooler

    def close(self) -> None:
        self.actions.put(None)
        self._worker.join(timeout=5)
        if self.spooler is not None:
            self.spooler.stop()
        self.buttons.close()
        self.lights.close()


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("hardware", help="check the buttons, LEDs and printer",
                                   description="The table's buttons, LEDs and printer.")
    sub = parser.add_subparsers(dest="hardware_command", metavar="ACTION", required=True)
    check = sub.add_parser(
        "check", help="press each button, watch each LED, print a test receipt",
        description="A walk-through for a new table: press each button when asked (and hold "
                    "it for its second meaning), watch each LED, and print a test receipt. "
                    "On a machine without GPIO it says so and drives gpiozero's mock pins "
                    "itself.")
    add_config_option(check)
    check.add_argument("--timeout", type=float, default=20.0, metavar="S",
                       help="seconds to wait for each button (default 20)")
    check.add_argument("--led-seconds", type=float, default=1.5, metavar="S",
                       help="seconds each LED stays lit (default 1.5)")
    check.add_argument("--no-print", action="store_true", help="skip the test receipt")
    check.set_defaults(func=hardware_check)


def hardware_check(args: argparse.Namespace) -> int:
    from hardware.buttons import TableButtons
    from hardware.lights import StatusLights
    from hardware.pins import BUTTONS, LIGHTS, is_mock, pin_factory

    config = config_of(args)
    pins = pin_map(config)
    factory = pin_factory(config["gpio.factory"])
    mock = is_mock(factory)
    failures: list[str] = []
    if mock:
        print("No GPIO here (not a Raspberry Pi, or gpio.factory = 'mock'): using gpiozero's "
              "mock pins; the check presses the buttons itself.")
    actions: queue.Queue[str] = queue.Queue()
    hold = config["gpio.hold_seconds"]
    buttons = TableButtons(pins, actions.put, pin_factory=factory, hold_seconds=hold,
                           bounce_seconds=config["gpio.bounce_ms"] / 1000 or None)
    lights = StatusLights(pins, pin_factory=factory)
    try:
        for name in BUTTONS:
            gpio = pins.buttons[name]
            for held in (False, True):
                want = TableButtons.action(name, held)
                how = f"hold it for {hold:g} s" if held else "press it"
                print(f"button {name} (GPIO{gpio}): {how} ...", end=" ", flush=True)
                if mock:
                    pin = factory.pin(gpio)
                    pin.drive_low()
                    time.sleep(hold + 0.2 if held else 0.05)
                    pin.drive_high()
                try:
                    got = actions.get(timeout=args.timeout)
                except queue.Empty:
                    got = None
                ok = got == want
                print("ok" if ok else f"NOT SEEN (got {got or 'nothing'})")
                if not ok:
                    failures.append(f"button {name} {how}")
        for state in LIGHTS:
            gpios = [pins.leds[state]] if pins.led_mode == "separate" else list(pins.rgb)
            where = f"GPIO{gpios[0]}" if pins.led_mode == "separate" else "the RGB LED"
            print(f"light {state} ({where}) is on: watch it", end="", flush=True)
            for gpio in gpios if mock else ():
                factory.pin(gpio).clear_states()
            if state == "fault":
                lights.fault(True)
            else:
                lights.show(state)
            time.sleep(args.led_seconds)
            if mock:
                lit = any(s.state for g in gpios for s in factory.pin(g).states)
                print(" ... ok (mock pin driven)" if lit else " ... NOT LIT")
                if not lit:
                    failures.append(f"light {state}")
            else:
                print()
            lights.fault(False)
        lights.show("ready")
    finally:
        buttons.close()
        lights.close()
    if not args.no_print:
        failures += print_test_receipt(config)
    if failures:
        print("not working: " + "; ".join(failures))
        return 1
    print("all checked")
    return 0


def print_test_receipt(config: Config) -> list[str]:
    """Print the test receipt; the failures, if any."""
    from hardware.errors import PrinterError
    from hardware.printer import ReceiptPrinter

    pc = printer_config(config)
    if pc is None:
        print("printer: none configured (printer.connection = 'none')")
        return []
    printer = ReceiptPrinter(pc)
    paper = printer.paper()
    data = printer.render("test", {"table": config["table.name"], "paper_mm": pc.paper_mm,
                                   "time": datetime.now().strftime("%Y-%m-%d %H:%M:%S")})
    name = f"test-{datetime.now():%Y%m%d-%H%M%S}"
    try:
        printer.send(data, name)
    except PrinterError as exc:
        print(f"printer ({pc.connection}): {exc}")
        return ["printer"]
    finally:
        printer.close()
    where = (f"written to {Path(pc.folder) / (name + '.bin')}" if pc.connection == "file"
             else f"sent over {pc.connection}")
    print(f"printer ({pc.connection}, {pc.paper_mm} mm, paper {paper}): test receipt {where}")
    return []
