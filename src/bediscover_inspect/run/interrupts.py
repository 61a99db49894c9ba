"""Ctrl-C (SIGINT) of every ``bediscover`` command: the count of interrupts received, the handler that turns one
into :class:`KeyboardInterrupt` (a second one leaves at once), and the one line an interrupted command ends with.

Imports only ``os`` and ``sys`` (loaded with the interpreter), so the console script (:mod:`bediscover_inspect.entry`) can use it
before anything else is imported.
"""

from __future__ import annotations

import os  # os and sys are loaded with the interpreter: importing them costs nothing
import sys

EXIT_INTERRUPTED = 130
"""Exit code of a command stopped by Ctrl-C (SIGINT), the shell convention 128 + 2."""

RESUME_HINT = "re-run the same command to resume: finished evals are skipped and finished samples kept"
"""The advice every unfinished ``bediscover run`` ends with."""


_INTERRUPTS = 0
"""Ctrl-Cs (and SIGTERMs) the running command has received (:func:`raise_keyboard_interrupt`)."""


def interrupts() -> int:
    """How many Ctrl-Cs (and SIGTERMs) the running command has received so far."""
    return _INTERRUPTS


def raise_keyboard_interrupt(signum: int, frame: object) -> None:
    """SIGINT (and, while ``bediscover run`` runs its eval set, SIGTERM) handler: counts the signal, then raises
    :class:`KeyboardInterrupt` wherever the command is; a second one, while the interrupted command is still
    winding down, leaves at once with :data:`EXIT_INTERRUPTED`.

    With Python's default handler in place, ``asyncio.run`` installs its own, which only cancels the main task on
    the first Ctrl-C; a run whose cancellation is absorbed inside Inspect then carries on to the end and reports
    success. A handler of our own keeps asyncio from installing that one, so the interrupt always stops the
    eval set (``asyncio.run`` still cancels the remaining tasks on its way out). Logs are written as the run goes,
    so leaving at once loses nothing a re-run needs (re-running resumes, as after a killed process).
    """
    global _INTERRUPTS
    _INTERRUPTS += 1
    if _INTERRUPTS > 1:
        leave_now(" again; stopping now")
    raise KeyboardInterrupt


def leave_now(during: str) -> None:
    """Print the command's :func:`interrupted_line` with ``during`` and end the process at once with
    :data:`EXIT_INTERRUPTED` (``os._exit``: no thread or cleanup can hold it)."""
    print(interrupted_line(command_name(), during), file=sys.stderr, flush=True)
    os._exit(EXIT_INTERRUPTED)


def interrupted_line(command: str, during: str = "") -> str:
    """The one line of a command stopped by Ctrl-C (``run`` adds :data:`RESUME_HINT`)."""
    hint = f" ({RESUME_HINT})" if command == "run" else ""
    return f"bediscover {command}: interrupted{during}{hint}"


def command_name() -> str:
    """The sub-command named on the command line (``run``, ``report`` …), ``""`` before one is given."""
    return next((arg for arg in sys.argv[1:] if not arg.startswith("-")), "")
