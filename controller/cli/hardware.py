"""`feltbank hardware check`: each button, LED and the printer, one by one."""

from __future__ import annotations

import argparse
import logging
import queue
import time
from datetime import datetime
from pathlib import Path

from app.devices import pin_map, printer_config
from controller.cli.common import add_config_option, config_of
from controller.config import Config

log = logging.getLogger(__name__)


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
                # gpiozero drives a blink or a pulse from its own thread: on a busy machine
                # the first change may come late, so it is waited for (not a fixed time).
                deadline = time.monotonic() + 10.0
                while not (lit := any(s.state for g in gpios for s in factory.pin(g).states)) \
                        and time.monotonic() < deadline:
                    time.sleep(0.02)
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
