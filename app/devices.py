"""The devices of a running table (buttons, lights, printer) built from the configuration."""

from __future__ import annotations

import importlib.util
import logging
import queue
import threading
from pathlib import Path

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


def receipt_catalogs() -> str:
    """The folder of the gettext catalogs: the dashboard's web/translations, where the
    receipts' own domain (receipts.po/.mo) sits beside messages.po (found, not imported)."""
    spec = importlib.util.find_spec("web")
    if spec is None or spec.origin is None:
        return ""
    return str(Path(spec.origin).parent / "translations")


def printer_config(config: Config):
    """The hardware.PrinterConfig of the [printer] settings, or None for connection 'none'."""
    from hardware.printer import PrinterConfig

    if config["printer.connection"] == "none":
        return None
    folder = config["printer.folder"] or str(config.data_dir / "receipts")
    try:
        return PrinterConfig(**{key: config[f"printer.{key}"] for key in (
            "connection", "profile", "paper_mm", "usb_vendor", "usb_product", "usb_timeout_ms",
            "serial_device", "baudrate", "host", "port", "timeout_s", "language")},
            folder=folder, catalogs=receipt_catalogs())
    except ValueError as exc:
        raise ConfigError(f"[printer] of {config.path or 'the defaults'}: {exc}") from None


class TableDevices:
    """The buttons, lights and printer of a running table, wired to its table service.

    Button callbacks only enqueue; one worker thread turns the actions into commands. The
    lights follow each committed command; a printer fault lights the fault LED. Every change
    of the lights is queued to one lights thread, like the buttons' actions.
    """

    def __init__(self, config: Config, table, *, live=None, demo=None, factory=None,
                 printer=None):
        from controller.printqueue import PrintQueue, Spooler
        from hardware.buttons import TableButtons
        from hardware.lights import StatusLights
        from hardware.pins import pin_factory
        from hardware.printer import ReceiptPrinter

        self.table = table
        self.live = live
        #: The demo table's thrower, when the camera is the demo table.
        self.demo = demo
        self.actions: queue.Queue[str | None] = queue.Queue()
        self.factory = factory or pin_factory(config["gpio.factory"])
        pins = pin_map(config)
        self.buttons = TableButtons(pins, self.actions.put, pin_factory=self.factory,
                                    hold_seconds=config["gpio.hold_seconds"],
                                    bounce_seconds=config["gpio.bounce_ms"] / 1000 or None)
        self.lights = StatusLights(pins, pin_factory=self.factory)
        #: Every change of the lights, from any thread, goes through this queue to ONE
        #: thread: gpiozero's blink threads are started and stopped by that thread alone.
        self._lamps: queue.Queue[tuple[str, object] | None] = queue.Queue()
        self._lamps_thread = threading.Thread(target=self._drive_lamps, name="lights",
                                              daemon=True)
        self._lamps_thread.start()
        self.print_queue = self.spooler = None
        pc = printer_config(config)
        if printer is not None or pc is not None:
            self.print_queue = PrintQueue(
                table.journal.path, config["table.name"], slips=config["printer.slips"],
                mode_of=lambda: getattr(table.state, "mode", ""))
            self.print_queue.attach(table)
            self.spooler = Spooler(self.print_queue, printer or ReceiptPrinter(pc),
                                   on_status=lambda status: self._lamp("fault", not status.ok))
            self.spooler.start()
        table.subscribe(self._follow)
        if live is not None:
            live.subscribe(self._waiting)
        now = table.snapshot()
        if now.state is not None:
            self._lamp("show", now.engine.light(now.state, ()))
        self._worker = threading.Thread(target=self._work, name="buttons", daemon=True)
        self._worker.start()

    # -- the lights: driven from one queue by one thread ------------------------------------

    def _lamp(self, what: str, value) -> None:
        """Ask the lights thread to `show` a state or light the `fault` LED (any thread)."""
        self._lamps.put((what, value))

    def _drive_lamps(self) -> None:
        while (request := self._lamps.get()) is not None:
            what, value = request
            try:
                if what == "mark":
                    value.set()
                else:
                    getattr(self.lights, what)(value)
            except Exception:  # a lamp must never take the table down
                log.exception("lights: %s %r", what, value)

    def lights_done(self, timeout: float = 5.0) -> bool:
        """Wait until the lights show everything asked of them so far; False on timeout."""
        done = threading.Event()
        self._lamp("mark", done)
        return done.wait(timeout)

    def _follow(self, outcome) -> None:
        now = self.table.snapshot()
        self._lamp("show", now.engine.light(now.state, outcome.events))

    def _waiting(self, pending) -> None:
        if pending is None:
            now = self.table.snapshot()
            self._lamp("show", now.engine.light(now.state, ()))
        else:
            self._lamp("show", "reading" if pending.reading.ready else "needs_banker")

    def _work(self) -> None:
        while (action := self.actions.get()) is not None:
            try:
                self.handle(action)
            except Exception:  # a button must never take the table down
                log.exception("button action %s", action)

    def handle(self, action: str) -> None:
        """Carry out a button action: a command for the table, or a light for the banker."""
        if action == "call-banker":
            self._lamp("show", "needs_banker")
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
                self._lamp("show", "needs_banker")
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
                    self._lamp("show", "needs_banker")
        else:
            log.info("button %s: nothing to do", action)

    def alive(self) -> bool:
        """True while the button worker and the spooler threads run."""
        spooler = self.spooler is None or (self.spooler._thread is not None
                                           and self.spooler._thread.is_alive())
        return self._worker.is_alive() and self._lamps_thread.is_alive() and spooler

    def close(self) -> None:
        self.actions.put(None)
        self._worker.join(timeout=5)
        if self.spooler is not None:
            self.spooler.stop()
        self.buttons.close()
        self._lamps.put(None)
        self._lamps_thread.join(timeout=5)
        self.lights.close()
