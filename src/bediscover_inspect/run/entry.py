"""The ``bediscover`` console script: a Ctrl-C while the command starts up (importing Inspect takes seconds)
ends it with one line and exit code 130 instead of a ``KeyboardInterrupt`` traceback.

Neither this module nor the packages above it import anything before :func:`console_main` runs, so the
interrupt is caught from the first Python code of this package on; :func:`bediscover_inspect.cli.console_main`
takes over once it is imported. Only a Ctrl-C while the interpreter itself starts (its first 10–20 ms) ends the
process by the signal, silently, before any of this runs.

Every Ctrl-C is counted (:func:`interrupts`), so one that a library absorbs (a bare ``except:`` around an
optional import, or Python wrapping it in the ``RuntimeError`` of a class being created) still stops the command.
"""

from __future__ import annotations

import os  # os and sys are loaded with the interpreter: importing them costs nothing
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (10 ms)
if TYPE_CHECKING:
    import logging

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


def _not_an_interrupt_at_shutdown(record: logging.LogRecord) -> bool:
    """False for asyncio's report of a task that ended by Ctrl-C while ``asyncio.run()`` shut down (a
    ``KeyboardInterrupt`` the command already answers with its one interrupted line); True for everything else."""
    if not record.getMessage().startswith("unhandled exception during asyncio.run() shutdown"):
        return True
    return "KeyboardInterrupt" not in repr(record.exc_info[1] if record.exc_info else None)


def console_main() -> None:
    """Import :mod:`bediscover_inspect.cli` and run its ``console_main``; a Ctrl-C during the import exits 130
    (also when the import failed because of it)."""
    import signal

    signal.signal(signal.SIGINT, raise_keyboard_interrupt)
    try:
        import logging

        logging.getLogger("asyncio").addFilter(_not_an_interrupt_at_shutdown)
        # import cost: the entry point loads the CLI (and Inspect, seconds) only here, under its Ctrl-C handler
        from bediscover_inspect.cli import console_main as cli_main
    except BaseException:
        if not _INTERRUPTS:
            raise
    if _INTERRUPTS:  # raised during the import, or absorbed by a library being imported
        leave_now(" during start-up")
    cli_main()


if __name__ == "__main__":
    console_main()
