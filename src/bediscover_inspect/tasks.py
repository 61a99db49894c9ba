"""The one list of the suite's tasks, in the paper's order: the entry-point registry, ``evals/`` and the CLI read it.

Each task's parameters are those of its ``@task`` function, exported by its package
(``bediscover_inspect.<name>``); nothing else re-declares them. Task modules are imported on first use, so the
CLI starts without importing every task.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import logging
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ._inspect_compat import SilentException as _QuietExit  # Inspect's CLI exits 1 on it silently

TASK_NAMES: tuple[str, ...] = (
    "discourse_markers",
    "temporal_reasoning",
    "discourse_relations",
    "sentence_ordering",
    "dialogue_parsing",
)
"""The five tasks (paper §4, §5.1, §5.2, §6.1, §6.2); ``bediscover_inspect.<name>`` exports ``<name>``."""


def task_function(name: str) -> Callable[..., Any]:
    """The ``@task`` function of ``name``.

    Raises:
        KeyError: an unknown name; the message lists the tasks.
    """
    if name not in TASK_NAMES:
        raise KeyError(f"unknown task {name!r}; choose from {', '.join(TASK_NAMES)}")
    return getattr(importlib.import_module(f"bediscover_inspect.{name}"), name)


def task_name_of(value: str) -> str:
    """A task as ``bediscover run --tasks`` takes it: its name, or the path of its eval file as ``inspect eval``
    takes it (``evals/sentence_ordering.py``, relative or absolute, ``@sentence_ordering`` optional) -> the name.
    Anything else is returned as given (the caller names the valid tasks)."""
    path, _, chosen = value.partition("@")
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".py")
    if path.endswith(".py") and stem in TASK_NAMES and chosen in ("", stem):
        return stem
    return value


class TaskParameterError(ValueError):
    """A task was given a parameter name it does not have (``-T prompts=def`` for ``prompt``)."""


TASK_ERRORS: tuple[type[BaseException], ...] = (TypeError, ValueError, LookupError, OSError)
"""What a task function raises for bad input: a bad parameter value (``ValueError``, ``TypeError``), a missing
(``DataFileMissingError``, an ``OSError``) or malformed (``DataFormatError``, a ``ValueError``) data file."""


def task_parameters(name: str) -> list[str]:
    """The parameter names of task ``name``'s ``@task`` function, in signature order.

    Raises:
        KeyError: an unknown task (see :func:`task_function`).
    """
    return list(inspect.signature(task_function(name)).parameters)


RENAMED_PARAMETERS: dict[str, str] = {"datasets": "dataset", "corpora": "dataset"}
"""Former task-parameter names -> the name now used (every task selects its datasets with ``dataset``)."""


def check_task_args(name: str, args: Mapping[str, Any]) -> None:
    """Reject parameter names task ``name`` does not have, naming them, the closest valid name of each (when one
    is close: ``difflib.get_close_matches``, ratio >= 0.8) and the valid ones.

    Inspect drops an unknown ``-T`` name with a warning and runs the defaults; this is the check that makes
    a misspelled name an error instead, under ``inspect eval`` and ``bediscover run`` alike.

    Raises:
        TaskParameterError: ``args`` has a key that is not a parameter of the task.
    """
    valid = task_parameters(name)
    unknown = [key for key in args if key not in valid]
    renamed = [key for key in unknown if RENAMED_PARAMETERS.get(key) in valid]
    if renamed:
        raise TaskParameterError(
            "; ".join(
                f"parameter {key!r} of task {name!r} is now called {RENAMED_PARAMETERS[key]!r}" for key in renamed
            )
        )
    if unknown:
        named = []
        for key in unknown:  # the closest valid name, as for a misspelled -T name (difflib's ratio >= 0.8)
            close = difflib.get_close_matches(key, valid, n=1, cutoff=0.8)
            named.append(f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key))
        raise TaskParameterError(
            f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(named)} for task "
            f"{name!r}; its parameters are: {', '.join(valid)}"
        )


def one_line(exc: BaseException) -> str:
    """An exception's message on one line, without Rich console markup (``[bold]…[/bold]``)."""
    from rich.text import Text

    text = str(exc)
    try:
        text = Text.from_markup(text).plain
    except Exception:  # noqa: BLE001 - not valid markup: keep the text as it is
        pass
    return " ".join(text.split())


def task_error_message(name: str, args: Mapping[str, Any], exc: BaseException) -> str:
    """The one-line message for task ``name`` refusing ``args``: ``cannot build task 'x' (a=1): <message>``."""
    shown = ", ".join(f"{key}={value!r}" for key, value in args.items()) or "no -T arguments"
    return f"cannot build task {name!r} ({shown}): {one_line(exc)}"


@contextmanager
def warnings_to_stderr(show: bool = True) -> Iterator[None]:
    """While a task is built, the package's log warnings go to stderr, one line each, each distinct one once
    (nowhere when ``show`` is false).

    Inspect's display shows log records on its own console, which ``--display none`` silences; a warning from
    building a task (datasets skipped as absent, a data file whose SHA-1 differs from the pinned one) is
    printed here instead, in every display mode, and not handed on to Inspect's handler (so never twice).
    """
    package = logging.getLogger("bediscover_inspect")
    seen: set[str] = set()

    class _Once(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            message = f"warning: {' '.join(record.getMessage().split())}"
            if show and message not in seen:
                seen.add(message)
                print(message, file=sys.stderr, flush=True)

    handler = _Once(logging.WARNING)
    propagate = package.propagate
    package.addHandler(handler)
    package.propagate = False
    try:
        yield
    finally:
        package.removeHandler(handler)
        package.propagate = propagate


class TaskBuildError(_QuietExit):  # type: ignore[misc,valid-type]
    """A task refused its arguments; the one-line message is already on stderr (Inspect exits 1 quietly)."""


ENV_TRACEBACK = "BEDISCOVER_TRACEBACK"
"""Set (to anything) to see the original exception and its traceback instead of the one-line message."""


def inspect_entry(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator for the function ``inspect eval`` calls to build task ``name`` (under ``@task``).

    The decorated function takes ``**task_args`` and builds the task. The wrapper:

    * advertises the task's own parameters (docs, ``inspect list tasks``) plus ``**task_args``, so Inspect
      hands it every ``-T`` name instead of dropping unknown ones with a warning;
    * rejects unknown names (:func:`check_task_args`);
    * prints a refused argument or a missing / malformed data file as one line ``error: …`` on stderr, exactly
      once, in every display mode, and raises :class:`TaskBuildError` so Inspect exits 1 without a traceback
      (``BEDISCOVER_TRACEBACK=1``: the original exception instead);
    * prints the package's warnings while building to stderr (:func:`warnings_to_stderr`).
    """
    impl = task_function(name)
    signature = inspect.signature(impl)
    parameters = [
        *signature.parameters.values(),
        inspect.Parameter("task_args", inspect.Parameter.VAR_KEYWORD, annotation=Any),
    ]

    def decorate(build: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(build, assigned=("__module__", "__name__", "__qualname__"))
        def entry(**task_args: Any) -> Any:
            try:
                with warnings_to_stderr():
                    check_task_args(name, task_args)
                    return build(**task_args)
            except TASK_ERRORS as exc:
                if os.environ.get(ENV_TRACEBACK):
                    raise
                print(f"error: {task_error_message(name, task_args, exc)}", file=sys.stderr, flush=True)
                raise TaskBuildError(task_error_message(name, task_args, exc)) from exc

        entry.__doc__ = impl.__doc__
        entry.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        return entry

    return decorate


def inspect_entries() -> dict[str, Callable[..., Any]]:
    """Every task as Inspect's registry should hold it: ``name`` -> ``@task(name=name)`` over
    :func:`inspect_entry` (what the package's ``inspect_ai`` entry point registers as
    ``bediscover_inspect/<name>``, in place of the bare task functions)."""
    from inspect_ai import task

    return {name: task(name=name)(inspect_entry(name)(_forwarder(task_function(name)))) for name in TASK_NAMES}


def _forwarder(impl: Callable[..., Any]) -> Callable[..., Any]:
    def build(**task_args: Any) -> Any:
        return impl(**task_args)

    return build
