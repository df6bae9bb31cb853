"""The exception root of hardware/; each subclass also inherits the builtin it resembles."""

from __future__ import annotations


class HardwareError(Exception):
    """Root of the errors hardware/ raises on purpose; its message is for people."""


class PinMapError(HardwareError, ValueError):
    """A pin map that cannot work: a pin used twice, a pin not on the Pi's header."""


class PrinterError(HardwareError, OSError):
    """The printer could not print: offline, unplugged, out of paper, timed out."""
