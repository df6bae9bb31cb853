"""The pin map of the table's buttons and LEDs, and the gpiozero pin factory to drive them."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from hardware.errors import PinMapError

log = logging.getLogger(__name__)

#: The buttons and what each press means.
BUTTONS = ("confirm", "reject", "pass_dice", "call_banker")
#: The table states the lights show, in the order of the separate LEDs.
LIGHTS = ("ready", "bets_open", "rolling", "reading", "needs_banker", "win", "loss", "fault")
#: GPIO numbers (BCM) of the 40-pin header usable for buttons and LEDs. 0 and 1 are the HAT
#: EEPROM's I2C; anything above 27 is not on the header.
HEADER_GPIOS = range(2, 28)


@dataclass(frozen=True)
class PinMap:
    """Which GPIO (BCM number) each button and LED is on."""

    buttons: Mapping[str, int]
    #: "separate": one LED per state in `leds`; "rgb": one RGB LED on `rgb` (red, green, blue).
    led_mode: str = "separate"
    leds: Mapping[str, int] = field(default_factory=dict)
    rgb: tuple[int, int, int] | None = None

    def __post_init__(self) -> None:
        missing = [b for b in BUTTONS if b not in self.buttons]
        if missing:
            raise PinMapError(f"the pin map has no pin for the {missing[0]} button")
        if self.led_mode not in ("separate", "rgb"):
            raise PinMapError(f"led_mode {self.led_mode!r}: expected 'separate' or 'rgb'")
        if self.led_mode == "separate":
            missing = [name for name in LIGHTS if name not in self.leds]
            if missing:
                raise PinMapError(f"the pin map has no pin for the {missing[0]} LED")
        elif self.rgb is None or len(self.rgb) != 3:
            raise PinMapError("led_mode 'rgb' needs three pins: red, green, blue")
        used: dict[int, str] = {}
        for name, pin in self.assignments().items():
            if type(pin) is not int or pin not in HEADER_GPIOS:
                raise PinMapError(f"{name} is on {pin!r}, which is not a GPIO of the Pi's "
                                  f"header: use a BCM number from {HEADER_GPIOS.start} to "
                                  f"{HEADER_GPIOS.stop - 1}")
            if pin in used:
                raise PinMapError(f"GPIO{pin} is used twice: by {used[pin]} and by {name}")
            used[pin] = name

    def assignments(self) -> dict[str, int]:
        """Every pin in use, by what uses it ('button confirm', 'led fault', 'rgb red')."""
        out = {f"button {name}": pin for name, pin in self.buttons.items()}
        if self.led_mode == "separate":
            out.update({f"led {name}": pin for name, pin in self.leds.items()})
        else:
            out.update({f"rgb {c}": pin for c, pin in zip(("red", "green", "blue"), self.rgb,
                                                           strict=True)})
        return out


def on_a_pi() -> bool:
    """True on a Raspberry Pi (its device tree says so)."""
    try:
        with open("/proc/device-tree/model", "rb") as f:
            return b"Raspberry Pi" in f.read()
    except OSError:
        return False


def pin_factory(prefer: str = "auto"):
    """lgpio on a Pi, gpiozero's mock pins elsewhere (or when `prefer` is 'mock')."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    if prefer == "mock" or (prefer == "auto" and not on_a_pi()):
        return MockFactory(pin_class=MockPWMPin)
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    except Exception as exc:  # noqa: BLE001 - any failure means no real GPIO here
        if prefer == "lgpio":
            raise PinMapError(f"cannot open the Pi's GPIO with lgpio: {exc}") from exc
        log.warning("no GPIO (%s): buttons and LEDs are mock pins", exc)
        return MockFactory(pin_class=MockPWMPin)


def is_mock(factory) -> bool:
    from gpiozero.pins.mock import MockFactory

    return isinstance(factory, MockFactory)
