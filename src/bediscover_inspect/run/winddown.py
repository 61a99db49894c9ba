"""How ``bediscover run`` stops its eval set on Ctrl-C or SIGTERM, and leaves when the eval set does not stop.

Imports no more than the standard library's ``signal`` and ``threading`` and :mod:`.interrupts`, so a process that
needs only this (a test of the grace period) does not load Inspect.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .interrupts import interrupts, leave_now, raise_keyboard_interrupt

WIND_DOWN_SECONDS = 30.0
"""How long an interrupted eval set may take to stop (Inspect cancels its samples and writes its logs) before
``bediscover run`` leaves as after a second Ctrl-C."""


@contextmanager
def interrupts_stop_the_eval_set(grace: float = WIND_DOWN_SECONDS) -> Iterator[None]:
    """While active, Ctrl-C and SIGTERM raise :class:`KeyboardInterrupt` (:func:`.interrupts.raise_keyboard_interrupt`)
    and the first one starts a timer: an eval set still winding down ``grace`` seconds later (a task that never
    finishes cancelling keeps ``asyncio.run`` waiting) ends the process as a second Ctrl-C would, with the resume
    hint and exit 130. The timer stops when the block ends; the previous handlers come back."""
    timers: list[threading.Timer] = []

    def handler(signum: int, frame: Any) -> None:
        if not interrupts():
            timer = threading.Timer(
                grace, leave_now, args=(f"; the evals did not stop within {grace:g} s; stopping now",)
            )
            timer.daemon = True
            timer.start()
            timers.append(timer)
        raise_keyboard_interrupt(signum, frame)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for timer in timers:
            timer.cancel()
        for sig, saved in previous.items():
            signal.signal(sig, saved)
