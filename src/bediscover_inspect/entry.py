"""The ``bediscover`` console script: a Ctrl-C while the command starts up (importing Inspect takes seconds)
ends it with one line and exit code 130 instead of a ``KeyboardInterrupt`` traceback.

Neither this module nor the packages it is imported through (``bediscover_inspect``, and ``bediscover_inspect.run``
for :mod:`~bediscover_inspect.run.interrupts`) import anything before :func:`console_main` runs, so the
interrupt is caught from the first Python code of this package on; :func:`bediscover_inspect.cli.console_main`
takes over once it is imported. Only a Ctrl-C while the interpreter itself starts (its first 10–20 ms) ends the
process by the signal, silently, before any of this runs.

A Ctrl-C while the CLI is imported ends the process at once (nothing has started); after the import, every Ctrl-C
is counted (:func:`~bediscover_inspect.run.interrupts.interrupts`), so one that a library absorbs (a bare ``except:``
around an optional import, or Python wrapping it in the ``RuntimeError`` of a class being created) still stops the
command.
"""

from __future__ import annotations

from bediscover_inspect.run.interrupts import interrupts, leave_now, raise_keyboard_interrupt

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (10 ms)
if TYPE_CHECKING:
    import logging


def _not_an_interrupt_at_shutdown(record: logging.LogRecord) -> bool:
    """False for asyncio's report of a task that ended by Ctrl-C while ``asyncio.run()`` shut down (a
    ``KeyboardInterrupt`` the command already answers with its one interrupted line); True for everything else."""
    if not record.getMessage().startswith("unhandled exception during asyncio.run() shutdown"):
        return True
    return "KeyboardInterrupt" not in repr(record.exc_info[1] if record.exc_info else None)


def _leave_during_start_up(signum: int, frame: object) -> None:
    """SIGINT handler while the CLI is imported: nothing has started yet, so the command leaves at once with its
    one line (:func:`~bediscover_inspect.run.interrupts.leave_now`). A ``KeyboardInterrupt`` raised there instead
    can land in a callback of Python's import system, which prints it as an ignored exception with its traceback
    and carries on importing."""
    leave_now(" during start-up")


def console_main() -> None:
    """Import :mod:`bediscover_inspect.cli` and run its ``console_main``; a Ctrl-C during the import exits 130 at
    once, as does one delivered before and absorbed (also when the import failed because of it)."""
    import signal

    signal.signal(signal.SIGINT, _leave_during_start_up)
    try:
        import logging

        logging.getLogger("asyncio").addFilter(_not_an_interrupt_at_shutdown)
        # import cost: the entry point loads the CLI (and Inspect, seconds) only here, under its Ctrl-C handler
        from bediscover_inspect.cli import console_main as cli_main
    except BaseException:
        if not interrupts():
            raise
    if interrupts():  # delivered before this function ran, and absorbed by a library being imported
        leave_now(" during start-up")
    signal.signal(signal.SIGINT, raise_keyboard_interrupt)
    cli_main()


if __name__ == "__main__":
    console_main()
