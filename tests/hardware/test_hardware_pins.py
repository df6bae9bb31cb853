"""The pin map, the buttons and the lights, on gpiozero's mock pins."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.buttons import TableButtons
from hardware.errors import PinMapError
from hardware.lights import StatusLights
from hardware.pins import PinMap, is_mock, pin_factory
from tests.waiting import wait_for

BUTTONS = {"confirm": 17, "reject": 27, "pass_dice": 22, "call_banker": 23}
LEDS = {"ready": 5, "bets_open": 6, "rolling": 13, "reading": 19, "needs_banker": 26,
        "win": 12, "loss": 16, "fault": 20}


@pytest.fixture
def factory():
    f = pin_factory("mock")
    yield f
    f.reset()


def test_the_mock_factory_off_a_pi():
    assert is_mock(pin_factory("auto"))  # this machine is not a Pi


@pytest.mark.parametrize("buttons, leds, match", [
    ({**BUTTONS, "reject": 17}, LEDS, "GPIO17 is used twice: by button confirm and by button reject"),
    (BUTTONS, {**LEDS, "win": 40}, "led win is on 40, which is not a GPIO of the Pi's header"),
    (BUTTONS, {**LEDS, "win": 1}, "led win is on 1"),
    (BUTTONS, {**LEDS, "win": "17"}, "led win is on '17'"),
    ({k: v for k, v in BUTTONS.items() if k != "reject"}, LEDS, "no pin for the reject button"),
    (BUTTONS, {k: v for k, v in LEDS.items() if k != "fault"}, "no pin for the fault LED"),
    (BUTTONS, {**LEDS, "win": 17}, "GPIO17 is used twice"),
])
def test_bad_pin_maps(buttons, leds, match):
    with pytest.raises(PinMapError, match=match):
        PinMap(buttons=buttons, leds=leds)
    assert issubclass(PinMapError, ValueError)


def test_rgb_pin_map_needs_three_pins_and_ignores_separate_leds():
    PinMap(buttons=BUTTONS, led_mode="rgb", rgb=(12, 13, 19), leds={"win": 17})
    with pytest.raises(PinMapError, match="three pins"):
        PinMap(buttons=BUTTONS, led_mode="rgb", rgb=(12, 13))
    with pytest.raises(PinMapError, match="GPIO17 is used twice"):
        PinMap(buttons=BUTTONS, led_mode="rgb", rgb=(17, 13, 19))


def press(factory: MockFactory, pin: int, got: list, held: bool = False) -> None:
    """A press (released at once) or a hold (released once the hold was seen)."""
    n = len(got)
    p = factory.pin(pin)
    p.drive_low()
    if held:
        assert wait_for(lambda: len(got) > n), "the hold was not seen"
    p.drive_high()
    assert wait_for(lambda: len(got) > n), "the press was not seen"


def test_press_and_hold_are_two_actions(factory):
    got: list[str] = []
    buttons = TableButtons(PinMap(buttons=BUTTONS, leds=LEDS), got.append, pin_factory=factory,
                           hold_seconds=1.0, bounce_seconds=None)
    press(factory, 17, got)
    press(factory, 17, got, held=True)
    press(factory, 22, got)
    press(factory, 23, got)
    press(factory, 27, got, held=True)
    assert got == ["confirm", "confirm-hold", "pass-dice", "call-banker", "reject-hold"]
    buttons.close()


def test_debounce_is_set_on_every_button_pin(factory):
    # The pin driver (lgpio on the Pi) does the debouncing; the mock keeps the setting.
    buttons = TableButtons(PinMap(buttons=BUTTONS, leds=LEDS), lambda a: None,
                           pin_factory=factory, hold_seconds=1, bounce_seconds=0.03)
    assert all(factory.pin(pin).bounce == 0.03 for pin in BUTTONS.values())
    buttons.close()


def test_separate_leds_show_the_state_and_the_fault(factory):
    lights = StatusLights(PinMap(buttons=BUTTONS, leds=LEDS), pin_factory=factory)
    assert factory.pin(5).state == 1 and factory.pin(16).state == 0
    lights.show("loss")
    assert factory.pin(16).state == 1 and factory.pin(5).state == 0
    lights.fault(True)
    assert factory.pin(16).state == 1  # the state stays lit under the fault
    lights.fault(False)
    assert wait_for(lambda: factory.pin(20).state == 0)
    with pytest.raises(ValueError, match="not a table state"):
        lights.show("fault")
    lights.close()


def test_blink_timings(factory):
    lights = StatusLights(PinMap(buttons=BUTTONS, leds=LEDS), pin_factory=factory)
    pin = factory.pin(26)
    pin.clear_states()
    lights.show("needs_banker")
    # Off, on at once, 0.5 s on, 0.5 s off, on again... until 'ready' turns it off. Waited
    # for by the pin's own record; a busy machine may only make the halves longer.
    assert wait_for(lambda: len(pin.states) >= 4)
    lights.show("ready")
    assert wait_for(lambda: not pin.states[-1].state)
    states = [bool(s.state) for s in pin.states]
    gaps = [s.timestamp for s in pin.states[2:4]]  # each state's time since the one before
    assert states[:4] == [False, True, False, True] and states[-1] is False
    assert all(gap >= 0.45 for gap in gaps), gaps  # 0.5 s on, 0.5 s off
    lights.close()


def test_the_reading_light_pulses(factory):
    lights = StatusLights(PinMap(buttons=BUTTONS, leds=LEDS), pin_factory=factory)
    lights.show("reading")
    seen = set()
    # A pulse goes through many brightnesses.
    assert wait_for(lambda: seen.add(round(lights.leds["reading"].value, 1)) or len(seen) > 3)
    lights.close()


def test_one_rgb_led_takes_the_colour_of_the_state(factory):
    lights = StatusLights(PinMap(buttons=BUTTONS, led_mode="rgb", rgb=(12, 13, 19)),
                          pin_factory=factory)
    lights.show("bets_open")
    assert lights.rgb.value == (0, 0, 1)
    lights.show("loss")
    assert lights.rgb.value == (1, 0, 0)
    lights.fault(True)
    reds = set()
    assert wait_for(lambda: reds.add(lights.rgb.value) or len(reds) >= 2)
    lights.close()
    assert reds == {(1, 0, 0), (0, 0, 0)}  # the fault blinks red over the state
