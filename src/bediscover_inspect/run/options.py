"""The bounds of ``bediscover run``: how long a model call may take, how often it is retried, how many sample
errors an eval tolerates, passed to :func:`inspect_ai.eval_set`.

Inspect's own defaults retry a model call without end (no ``max_retries``, no ``timeout``), fail an eval on its
first sample error, and retry a failed eval 10 times. ``bediscover run`` bounds every level instead
(:data:`DEFAULTS`), so a run against a dead or broken server ends in minutes with every failure counted:

* a model call: ``--timeout`` seconds in all, over every attempt and the waits between them (an attempt still
  running when the time is up is cancelled: :func:`bediscover_inspect.run.calls.bound_calls`); within it,
  ``--attempt-timeout`` seconds per attempt and ``--max-retries`` retries after the first attempt (Inspect waits
  about 3, 6, 12, 24, 48 s between them, so a server that refuses every connection fails a call in about 1.5
  minutes; a server's ``Retry-After`` is waited for instead, and one longer than what is left of ``--timeout``
  stops the run with one line naming it);
* a sample: a call that still fails (or a reply that cannot be read: malformed JSON, no choices …) is that sample's
  error; the sample is re-asked ``--retry-on-error`` times before the error stays;
* an eval: it fails when ``--fail-on-error`` of its samples ended in error (a fraction of its samples below 1, a
  count from 1 up, at most the eval's samples; Inspect's ``fail_on_error``). It runs to its end all the same
  (Inspect's ``continue_on_fail``: every sample is tried and counted, and a failing eval prints no traceback); the
  eval set then re-runs a failed eval's unfinished samples ``--retry-attempts`` times. Samples in error within the budget stay in the log as
  errors, unscored.

So a sample whose every request fails is asked at most ``(1 + max_retries) × (1 + retry_on_error) ×
(1 + retry_attempts)`` times (24 with the defaults) and held at most ``(1 + retry_on_error) × (1 +
retry_attempts) × timeout`` (2 hours with the defaults, against a server that accepts requests and never
answers); samples run in parallel (``--max-connections``), so against a server that refuses every request or
times out quickly a run ends in minutes.

None of these options enters Inspect's task identity, so a resumed run may change them.

Inspect's retry policy is the only one: the OpenAI client that ``openai/`` and ``openai-api/`` models talk
through would otherwise retry a failed request twice on its own inside each of Inspect's attempts (a server slower
than ``-M client_timeout`` was asked three times per attempt), so :func:`client_model_args` gives it
``max_retries=0``. Inspect's ``vllm/`` and ``sglang/`` providers do not pass model arguments to their client, which
keeps its two retries; they matter only for a ``-M client_timeout`` shorter than ``--attempt-timeout`` (the
attempt timeout cuts the client's retries short).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


class UsageError(Exception):
    """An expected user error (bad argument, missing directory …): ``bediscover`` prints one line and exits 2."""


@dataclass(frozen=True)
class RunBounds:
    """Default bounds of ``bediscover run`` (see the module docstring).

    Attributes:
        attempt_timeout: seconds one request to the model may take (20 min: a reasoning model generating the
            paper's largest budget, 32768 tokens, at 30 tokens/s under load needs about 18 min); never more than
            what is left of ``timeout``.
        max_retries: retries of one model call after its first attempt.
        timeout: seconds one model call may take over all its attempts and the waits between them (30 min: one
            whole attempt, and retries of failures that come quickly).
        retry_on_error: times a sample that ended in error is re-asked.
        fail_on_error: sample errors that fail an eval (a fraction of its samples below 1, a count from 1).
        retry_attempts: times the eval set re-runs a failed eval.
    """

    attempt_timeout: int = 1200
    max_retries: int = 5
    timeout: int = 1800
    retry_on_error: int = 1
    fail_on_error: float = 0.1
    retry_attempts: int = 1


DEFAULTS = RunBounds()


def whole_number(minimum: int, unit: str = "a whole number") -> Callable[[str], int]:
    """An argparse ``type`` for the options of ``bediscover`` that take a count: the text as an int ``>= minimum``.

    The function returned raises ``argparse.ArgumentTypeError`` ("expected <unit> >= <minimum>, got '<text>'") for
    text that is not a whole number or is below ``minimum``.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {unit} >= {minimum}, got {text!r}")
        return value

    return parse


_count = whole_number(0)
_seconds = whole_number(1, "seconds")


def _budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1) or a count >= 1, got {text!r}") from None
    if value < 0 or (value >= 1 and not value.is_integer()):
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1) or a count >= 1, got {text!r}")
    return value


_OPTIONS: tuple[tuple[str, Callable[[str], Any], str, str], ...] = (
    (
        "--attempt-timeout",
        _seconds,
        "S",
        "seconds one request to the model may take before it is abandoned and retried, never more than what is "
        "left of --timeout (default %(default)s)",
    ),
    (
        "--timeout",
        _seconds,
        "S",
        "seconds one model call may take in all: every attempt, and the waits between them (a server's "
        "Retry-After is waited for; one longer than what is left stops the run); an attempt still running then "
        "is cancelled and the call ends in error (default %(default)s)",
    ),
    (
        "--max-retries",
        _count,
        "N",
        "retries of a failed model call (connection refused, HTTP 5xx or 429, timeout) before the sample "
        "ends in error (default %(default)s; Inspect's own default retries without end)",
    ),
    (
        "--retry-on-error",
        _count,
        "N",
        "times a sample that ended in error (an unreadable reply, retries used up) is re-asked (default %(default)s)",
    ),
    (
        "--fail-on-error",
        _budget,
        "BUDGET",
        "an eval fails when this many of its samples ended in error: a fraction of its samples (below 1) or "
        "a count (1 and up; a count above an eval's samples is its sample count, so an eval whose every sample "
        "ended in error fails); 0 fails on the first error (default %(default)s)",
    ),
    (
        "--retry-attempts",
        _count,
        "N",
        "times the eval set re-runs a failed eval's unfinished samples (default %(default)s; Inspect's is 10)",
    ),
)
"""Each bound's option: flag, argparse type, metavar and help; its default is the :data:`DEFAULTS` field of the
flag's name."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--attempt-timeout``, ``--timeout``, ``--max-retries``, ``--retry-on-error``, ``--fail-on-error`` and
    ``--retry-attempts`` (:data:`_OPTIONS`) to the ``bediscover run`` parser, with :data:`DEFAULTS`."""
    group = parser.add_argument_group("bounds (a run against a broken server ends, every failure counted)")
    for flag, kind, metavar, text in _OPTIONS:
        default = getattr(DEFAULTS, flag[2:].replace("-", "_"))
        group.add_argument(flag, type=kind, default=default, metavar=metavar, help=text)


OPENAI_CLIENT_PROVIDERS = ("openai", "openai-api")
"""Model providers of Inspect whose model arguments reach the OpenAI client (``AsyncOpenAI(**model_args)``)."""


def client_model_args(model: str, model_args: dict[str, Any]) -> dict[str, Any]:
    """``model_args`` (``-M``) with ``max_retries=0`` for a model of :data:`OPENAI_CLIENT_PROVIDERS`, so the
    OpenAI client sends each of Inspect's attempts once (module docstring); a ``-M max_retries`` of the user's,
    and other providers, are left as they are."""
    if model.partition("/")[0] in OPENAI_CLIENT_PROVIDERS and "max_retries" not in model_args:
        return {**model_args, "max_retries": 0}
    return model_args


def epochs_of(task: Any) -> int:
    """The epochs of the built Inspect ``task`` (``Task.epochs``: an int, an ``Epochs`` or ``None``), at least 1."""
    epochs = task.epochs if isinstance(task.epochs, int) else getattr(task.epochs, "epochs", 1)
    return max(1, epochs or 1)


def eval_size(task: Any, limit: int | None) -> int:
    """Samples an eval of the built Inspect ``task`` runs: its dataset's samples (the first ``limit`` when given)
    times its epochs (Inspect's denominator of ``fail_on_error``)."""
    samples = len(task.dataset) if limit is None else min(limit, len(task.dataset))
    return samples * epochs_of(task)


def cap_error_counts(tasks: Sequence[Any], options: dict[str, Any], limit: int | None) -> dict[str, Any]:
    """``options`` (:func:`eval_set_options`) for ``tasks``: a ``--fail-on-error`` count larger than an eval's
    samples (:func:`eval_size`) is that eval's size, so an eval whose every sample ended in error fails
    (Inspect counts ``fail_on_error`` per eval and would pass it). The count goes on each task (``Task.
    fail_on_error``) and out of ``options``; a fraction, or ``True`` (fail on the first error), stays as it is.
    """
    count = options.get("fail_on_error")
    if type(count) is not int:
        return options
    for task in tasks:
        size = max(1, eval_size(task, limit))
        task.fail_on_error = float(min(count, size))  # Inspect types it bool | float: 1.0 and up is a count
    return {**options, "fail_on_error": None}


def eval_set_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :func:`inspect_ai.eval_set` keyword arguments of the bounds in ``args`` (from :func:`add_arguments`).

    ``--fail-on-error 0`` becomes ``fail_on_error=True`` (fail on the first error), a budget of 1 or more a
    count, below 1 a fraction of the eval's samples (Inspect's convention); ``continue_on_fail`` is always on.
    """
    budget = args.fail_on_error
    fail_on_error: bool | float = True if budget == 0 else (int(budget) if budget >= 1 else budget)
    options: dict[str, Any] = {
        "attempt_timeout": min(args.attempt_timeout, args.timeout),
        "timeout": args.timeout,
        "max_retries": args.max_retries,
        "retry_on_error": args.retry_on_error,
        "fail_on_error": fail_on_error,
        "retry_attempts": args.retry_attempts,
        "continue_on_fail": True,
    }
    return options
