"""Waiting in a test for something another thread does: poll its condition, never sleep a
fixed time. `from tests.waiting import wait_for`."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(check: Callable[[], object], seconds: float = 120.0, every: float = 0.01) -> bool:
    """True as soon as `check()` is; False only after `seconds`. Generous on purpose: the
    suite may run with both cores loaded (threads, renders and reads many times slower), and
    a passing test never waits it out."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return bool(check())
        time.sleep(every)
    return True
