"""The table's push buttons: a press and a hold each mean something; callbacks only enqueue."""

from __future__ import annotations

from collections.abc import Callable

from gpiozero import Button

from hardware.pins import BUTTONS, PinMap


class TableButtons:
    """The four buttons. `on_action(name)` gets 'confirm', 'confirm-hold', 'reject', …

    gpiozero calls back on its own threads, so `on_action` must only enqueue (for example
    `queue.put`) and return: the table service does the work on its thread.
    """

    def __init__(self, pins: PinMap, on_action: Callable[[str], None], *, pin_factory,
                 hold_seconds: float = 1.5, bounce_seconds: float = 0.03):
        self._on_action = on_action
        self.buttons: dict[str, Button] = {}
        self._held: set[str] = set()
        for name in BUTTONS:
            button = Button(pins.buttons[name], pull_up=True, bounce_time=bounce_seconds,
                            hold_time=hold_seconds, pin_factory=pin_factory)
            button.when_held = lambda _b=None, n=name: self._hold(n)
            button.when_released = lambda _b=None, n=name: self._release(n)
            self.buttons[name] = button

    @staticmethod
    def action(name: str, held: bool = False) -> str:
        """The action name of a press or a hold of button `name` ('pass_dice' -> 'pass-dice')."""
        return name.replace("_", "-") + ("-hold" if held else "")

    def _hold(self, name: str) -> None:
        self._held.add(name)
        self._on_action(self.action(name, held=True))

    def _release(self, name: str) -> None:
        # A release after a hold was the hold's; only a short press is a press.
        if name in self._held:
            self._held.discard(name)
            return
        self._on_action(self.action(name))

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
