"""The receipt printer, through python-escpos: USB, serial, network, or files on a laptop.

Receipts are drawn on escpos's Dummy printer first and sent in one write, so a printer that
fails mid-receipt fails the whole receipt, which is then sent again whole.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.errors import PrinterError
from hardware.receipts import render, translations

log = logging.getLogger(__name__)

CONNECTIONS = ("file", "usb", "serial", "network")


@dataclass(frozen=True)
class PrinterConfig:
    """How to reach the printer. `folder` is for 'file': one .bin file per receipt."""

    connection: str = "file"
    profile: str = ""
    paper_mm: int = 80
    usb_vendor: int = 0
    usb_product: int = 0
    usb_timeout_ms: int = 5000
    serial_device: str = "/dev/ttyUSB0"
    baudrate: int = 9600
    host: str = ""
    port: int = 9100
    timeout_s: float = 10.0
    folder: str = ""
    #: The language receipts are printed in, and the folder of its gettext catalog
    #: (LANG/LC_MESSAGES/receipts.mo; see hardware/receipts.py).
    language: str = "en"
    catalogs: str = ""

    def __post_init__(self) -> None:
        if self.connection not in CONNECTIONS:
            raise ValueError(f"printer connection {self.connection!r}: one of "
                             + ", ".join(CONNECTIONS))
        if self.paper_mm not in (58, 80):
            raise ValueError(f"paper width {self.paper_mm} mm: 58 or 80")
        if self.connection == "usb" and not (self.usb_vendor and self.usb_product):
            raise ValueError("a USB printer needs usb_vendor and usb_product (see lsusb)")
        if self.connection == "usb" and self.usb_timeout_ms <= 0:
            # python-escpos's default of 0 waits for ever on a stuck printer.
            raise ValueError("usb_timeout_ms must be above 0")
        if self.connection == "network" and not self.host:
            raise ValueError("a network printer needs host")
        if self.connection == "file" and not self.folder:
            raise ValueError("a file printer needs folder")
        translations(self.language, self.catalogs)  # a language without its catalog: refused


class ReceiptPrinter:
    """Prints receipts; every failure is a PrinterError, and the next call reconnects."""

    def __init__(self, config: PrinterConfig, device: Any = None):
        self.config = config
        self._device = device  # an escpos printer object; tests pass a Dummy subclass
        self._given = device is not None
        self._lock = threading.Lock()

    def _open(self):
        c = self.config
        profile = c.profile or None
        if c.connection == "usb":
            from escpos.printer import Usb

            return Usb(c.usb_vendor, c.usb_product, timeout=c.usb_timeout_ms, profile=profile)
        if c.connection == "serial":
            from escpos.printer import Serial

            return Serial(devfile=c.serial_device, baudrate=c.baudrate, timeout=c.timeout_s,
                          profile=profile)
        if c.connection == "network":
            from escpos.printer import Network

            return Network(c.host, port=c.port, timeout=c.timeout_s, profile=profile)
        raise PrinterError(f"no printer device for connection {c.connection!r}")

    def device(self):
        if self._device is None:
            self._device = self._open()
        return self._device

    def render(self, kind: str, data: dict, *, mode: str | None = None,
               copy: bool = False) -> bytes:
        """The ESC/POS bytes of a receipt for this printer's paper and profile."""
        return render(kind, data, paper_mm=self.config.paper_mm, mode=mode, copy=copy,
                      profile=self.config.profile or None, language=self.config.language,
                      catalogs=self.config.catalogs)

    def send(self, data: bytes, name: str = "receipt") -> None:
        """Send one rendered receipt; PrinterError if it did not all go out."""
        with self._lock:
            if self.config.connection == "file" and not self._given:
                self._send_to_file(data, name)
                return
            try:
                device = self.device()
                device._raw(data)  # escpos's documented way to send Dummy output on
                flush = getattr(device, "flush", None)
                if callable(flush):
                    flush()
            except Exception as exc:  # noqa: BLE001 - USB, serial, socket: all mean "not printed"
                self._drop()
                raise PrinterError(f"the printer did not take {name}: {exc or type(exc).__name__}"
                                   ) from exc

    def _send_to_file(self, data: bytes, name: str) -> None:
        from escpos.printer import File

        folder = Path(self.config.folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            printer = File(devfile=str(folder / f"{name}.bin"))
            printer.open()
            try:
                printer._raw(data)
            finally:
                printer.close()
        except Exception as exc:  # noqa: BLE001
            raise PrinterError(f"cannot write {name} to {folder}: {exc}") from exc

    def paper(self) -> str:
        """'ok', 'low', 'out' or 'unknown' (no answer: a silent printer is not believed)."""
        from escpos.constants import (
            RT_MASK_LOWPAPER,
            RT_MASK_NOPAPER,
            RT_STATUS_PAPER,
        )

        if self.config.connection == "file" and not self._given:
            return "ok"
        with self._lock:
            try:
                answer = self.device().query_status(RT_STATUS_PAPER)
            except Exception as exc:  # noqa: BLE001 - no reads on this link, or it is gone
                log.debug("paper status unknown: %s", exc)
                return "unknown"
        if not answer:
            # python-escpos's paper_status() turns no answer into a number; we do not.
            return "unknown"
        status = answer[0]
        if status & RT_MASK_NOPAPER == RT_MASK_NOPAPER:
            return "out"
        if status & RT_MASK_LOWPAPER == RT_MASK_LOWPAPER:
            return "low"
        return "ok"

    def _drop(self) -> None:
        if self._device is not None and not self._given:
            try:
                self._device.close()
            except Exception:  # noqa: BLE001 - it is already gone
                pass
            self._device = None

    def close(self) -> None:
        with self._lock:
            self._drop()
