"""The table's status lights: one LED per state, or one RGB LED whose colour is the state."""

from __future__ import annotations

from gpiozero import LED, PWMLED, RGBLED

from hardware.pins import LIGHTS, PinMap

#: How each state looks: (pattern, colour on an RGB LED). Patterns: on, blink, fast, pulse.
LOOKS: dict[str, tuple[str, tuple[float, float, float]]] = {
    "ready": ("on", (0.0, 0.3, 0.0)),
    "bets_open": ("on", (0.0, 0.0, 1.0)),
    "rolling": ("fast", (1.0, 1.0, 1.0)),
    "reading": ("pulse", (0.0, 1.0, 1.0)),
    "needs_banker": ("blink", (1.0, 0.5, 0.0)),
    "win": ("blink", (0.0, 1.0, 0.0)),
    "loss": ("on", (1.0, 0.0, 0.0)),
    "fault": ("fast", (1.0, 0.0, 0.0)),
}
#: (on, off) seconds of the blinking patterns.
TIMES = {"blink": (0.5, 0.5), "fast": (0.15, 0.15), "pulse": (0.8, 0.8)}


class StatusLights:
    """Shows the table's state; a fault shows on top of it until it clears."""

    def __init__(self, pins: PinMap, *, pin_factory):
        self.mode = pins.led_mode
        self.state = "ready"
        self.faulty = False
        if self.mode == "separate":
            self.leds = {name: (PWMLED if LOOKS[name][0] == "pulse" else LED)(
                pins.leds[name], pin_factory=pin_factory) for name in LIGHTS}
            self.rgb = None
        else:
            red, green, blue = pins.rgb
            self.rgb = RGBLED(red, green, blue, pin_factory=pin_factory)
            self.leds = {}
        self._render()

    def show(self, state: str) -> None:
        """Show one of LIGHTS (except 'fault', which is `fault()`)."""
        if state not in LOOKS or state == "fault":
            raise ValueError(f"{state!r} is not a table state: one of "
                             f"{', '.join(s for s in LIGHTS if s != 'fault')}")
        self.state = state
        self._render()

    def fault(self, on: bool) -> None:
        """Light or clear the fault (camera or printer trouble)."""
        self.faulty = on
        self._render()

    def _render(self) -> None:
        if self.rgb is not None:
            pattern, colour = LOOKS["fault" if self.faulty else self.state]
            self._drive(self.rgb, pattern, colour)
            return
        for name, led in self.leds.items():
            lit = name == self.state or (name == "fault" and self.faulty)
            if lit:
                self._drive(led, LOOKS[name][0], None)
            else:
                led.off()

    @staticmethod
    def _drive(device, pattern: str, colour) -> None:
        on = {"on_color": colour} if colour is not None else {}
        if pattern == "on":
            if colour is None:
                device.on()
            else:
                device.color = colour
        elif pattern == "pulse" and hasattr(device, "pulse"):
            fade_in, fade_out = TIMES["pulse"]
            device.pulse(fade_in_time=fade_in, fade_out_time=fade_out, **on)
        else:
            on_time, off_time = TIMES["fast" if pattern == "fast" else "blink"]
            device.blink(on_time=on_time, off_time=off_time, **on)

    def close(self) -> None:
        for led in self.leds.values():
            led.close()
        if self.rgb is not None:
            self.rgb.close()
