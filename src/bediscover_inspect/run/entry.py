"""The ``bediscover`` console script: a Ctrl-C while the command starts up (importing Inspect takes seconds)
ends it with one line and exit code 130 instead of a ``KeyboardInterrupt`` traceback.

Neither this module nor the packages above it import anything before :func:`console_main` runs, so the
interrupt is caught from the first Python code of this package on; :func:`bediscover_inspect.cli.console_main`
takes over once it is imported. Only a Ctrl-C while the interpreter itself starts (its first 10–20 ms) ends the
process by the signal, silently, before any of this runs.
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
    """Import :mod:`bediscover_inspect.cli` and run its ``console_main``; a Ctrl-C during the import exits 130."""
    try:
        import logging

        logging.getLogger("asyncio").addFilter(_not_an_interrupt_at_shutdown)
        from bediscover_inspect.cli import console_main as cli_main
    except KeyboardInterrupt:
        print(interrupted_line(command_name(), " during start-up"), file=sys.stderr)
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    cli_main()


if __name__ == "__main__":
    console_main()
