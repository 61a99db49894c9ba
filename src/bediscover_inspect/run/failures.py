"""What went wrong in a ``bediscover run``, said once: the closing summary of sample errors, and the full-disk stop.

* :func:`failure_lines`: one line per kind of sample error (the exception type Inspect recorded, e.g. a reply
  that is not JSON), with the number of samples it ended and one example message, plus one line counting the
  samples that were re-asked after an error; the example is the server's own words (:func:`server_words`).
* :class:`SampleErrorDigest`: a filter on Inspect's logger of sample errors. While the run goes, the first error of
  each kind is one line on the console; the others (Inspect prints each with the whole request, 30 lines and more)
  stay in the eval log only.
* :class:`DiskFullWatch`: a logging handler on Inspect's logger. The first record of a write that failed with
  ``ENOSPC`` stops the eval set at once, as a Ctrl-C would (Inspect would otherwise retry the eval against the
  same full disk). Samples answered since the log was last written are lost and asked again by the re-run:
  Inspect's ``.eval`` writer holds them in memory until its next flush, which is the write that failed, and an
  interrupted run deletes Inspect's realtime sample buffer (``inspect_ai/_eval/run.py``, the ``except
  BaseException`` around ``run_task_retry_attempts``, calls ``TaskLogger.cleanup()``, which releases the buffer
  with ``keep=False``), so ``eval_set``'s recovery of a ``started`` log finds nothing, with ``--log-realtime``
  or without.
"""

from __future__ import annotations

import _thread
import errno
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bediscover_inspect._inspect_compat import sample_error_logger

ERROR_GLOSS = {
    "JSONDecodeError": "the server's reply is not valid JSON",
    "UnicodeDecodeError": "the server's reply is not UTF-8 text",
    "IndexError": "an empty list where a value was expected, e.g. a reply with no choices",
    "OpenAIResponseError": "the server's reply is not a chat completion (an HTML page?), on every retry",
    "AttemptTimeoutError": "no reply within --attempt-timeout, on every retry",
    "CallTimeout": "no reply within --timeout, over all the call's attempts",
    "RetryAfterTooLong": "the server asked to wait (HTTP 429 Retry-After) longer than was left of --timeout",
    "APITimeoutError": "no reply within the client's timeout, on every retry",
    "APIConnectionError": "the server could not be reached, on every retry",
    "RemoteProtocolError": "the server's reply was cut off before its end (the connection closed mid-reply), "
    "on every retry",
    "InternalServerError": "the server answered HTTP 5xx on every retry",
    "RateLimitError": "the server answered HTTP 429 on every retry",
    "BadRequestError": "the server refused the request (HTTP 400: a prompt longer than its context window, an option it does not take)",
}
"""Plain words for the exception types a misbehaving server causes (the summary line adds them)."""

CANCELLED_KINDS = frozenset({"CancelledError", "KeyboardInterrupt"})
"""Error kinds Inspect records for a sample stopped by Ctrl-C (or another stop of the run): not finished, not an
error of the sample; the re-run asks it again."""


CUT_REPLY = re.compile(r"^(?:\w+\.)*RemoteProtocolError: (.+)$", re.MULTILINE)
"""httpx's error for a reply whose body the server stopped sending (``peer closed connection without sending
complete message body``), in a traceback: the cause the OpenAI client reports as ``APIConnectionError``."""


_INNER = re.compile(r"(?:\\n|\n){2}(\w+)\(")
"""The provider's error at the end of Inspect's ``ModelGenerateError`` message (``\\nRequest:\\n{…}\\n\\n
BadRequestError("…")``, ``inspect_ai/model/_model.py``), plain or as its ``repr``."""

EXAMPLE_WIDTH = 160
"""Characters of an error's example in the closing summary and of a sample error on the console."""


def error_kind(message: str) -> str:
    """The exception type of an error message as Inspect records it: ``"JSONDecodeError('…')"`` ->
    ``"JSONDecodeError"``, ``"RetryError(<Future … raised InternalServerError>)"`` -> ``"InternalServerError"``,
    ``"ModelGenerateError('\\nRequest:…\\n\\nBadRequestError(…)')"`` -> ``"BadRequestError"`` (the provider's
    error after the request Inspect shows); a message without one is its own kind."""
    raised = re.search(r"\braised (\w+)>", message)  # tenacity's RetryError(<Future … raised X>): retries used up
    if raised:
        return raised.group(1)
    head = message.strip().split("(", 1)[0].split(":", 1)[0].strip()
    if head == "ModelGenerateError" and "Request:" in message:
        inner = _INNER.findall(message)
        if inner:
            return str(inner[-1])
    return head if head.isidentifier() else message.strip()


def server_words(message: str, traceback: str = "") -> str:
    """What the server said in a sample error, on one line of at most :data:`EXAMPLE_WIDTH` characters.

    ``message`` is the error as Inspect records it; ``traceback`` its traceback text (``EvalError.traceback``).
    A ``RetryError(<Future … raised X>)`` (Inspect's retries used up) gives the message of the last ``X`` in the
    traceback (the error of the last attempt, which tenacity raised the ``RetryError`` from); a
    ``ModelGenerateError`` gives the provider's error after the request it shows. The OpenAI client's
    ``Error code: 400 - …`` becomes ``HTTP 400: …``, with the ``message`` of a JSON error body when it has one.
    Anything else: ``message`` itself, first line.
    """
    text = message.strip()
    kind = error_kind(text)
    if re.search(r"\braised \w+>", text) and traceback:
        said = re.findall(rf"^(?:\w+\.)*{re.escape(kind)}: (.+)$", traceback, flags=re.MULTILINE)
        text = said[-1] if said else text
    elif text.startswith("ModelGenerateError") and "Request:" in text:
        inner = list(_INNER.finditer(text))
        if inner:
            text = text[inner[-1].end() :].rstrip("'\")").replace("\\'", "'").replace('\\"', '"')
    code = re.match(r"['\"]?Error code: (\d+) - (.*)", text, flags=re.DOTALL)
    if code:
        body = re.search(r"['\"]message['\"]: ['\"](.+?)['\"](?:,|\})", code.group(2))
        text = f"HTTP {code.group(1)}: {body.group(1) if body else code.group(2)}"
    lines = [line for line in text.replace("\\n", "\n").splitlines() if line.strip()]
    line = " ".join(lines[0].split()) if lines else ""
    return line if len(line) <= EXAMPLE_WIDTH else line[: EXAMPLE_WIDTH - 3] + "..."


def failure_lines(logs: Sequence[Any]) -> list[str]:
    """The closing summary lines of the sample errors in ``logs`` (eval log headers with a ``location``).

    Returns:
        One line per kind of error, most frequent first: ``bediscover run: 3 samples ended in error (not scored):
        JSONDecodeError — the server's reply is not valid JSON; e.g. JSONDecodeError('Expecting value…')``;
        then ``bediscover run: 2 samples cancelled while they waited for the model; re-running the command asks for
        them again, and for every sample not started`` for the samples a stop cut short (:data:`CANCELLED_KINDS`,
        never counted as errors); then ``bediscover run: N samples re-asked after an error (M answered on a retry)`` when any
        were, and a line counting the answered samples whose provider reported no token usage (left out of the
        token measures).
        Empty when nothing of this happened. An unreadable log gets a line of its own. A connection error
        (``APIConnectionError``) whose cause is a reply the server stopped sending half-way (:data:`CUT_REPLY`)
        is of the kind ``RemoteProtocolError``, with httpx's words as the example.
    """
    from inspect_ai.log import read_eval_log_sample, read_eval_log_sample_summaries

    tally = _Tally()
    unreadable: list[str] = []
    for log in logs:
        location = getattr(log, "location", None)
        if not location:
            continue
        try:
            summaries = read_eval_log_sample_summaries(location)
        except Exception as exc:  # noqa: BLE001 - a log cut short by a crash or a full disk
            unreadable.append(f"bediscover run: unreadable log {location}: {type(exc).__name__}: {exc}")
            continue
        for summary in summaries:
            tally.add(summary, partial(_traceback, read_eval_log_sample, location))
    return tally.lines() + unreadable


@dataclass
class _Tally:
    """What the sample summaries of a run's logs show (:func:`failure_lines`): the errors of each kind, with one
    example each; the samples cancelled, re-asked after an error (and answered on a retry), and answered without
    token usage."""

    kinds: Counter[str] = field(default_factory=Counter)
    example: dict[str, str] = field(default_factory=dict)
    retried: int = 0
    recovered: int = 0
    no_usage: int = 0
    cancelled: int = 0

    def add(self, summary: Any, traceback: Callable[..., str]) -> None:
        """Count one sample ``summary``; ``traceback(summary, always=False)`` reads its error's traceback
        (:func:`_traceback` of its log)."""
        if summary.error is None and not summary.model_usage:
            self.no_usage += 1
        if summary.retries:
            self.retried += 1
            self.recovered += summary.error is None
        if summary.error is not None:
            self._add_error(summary, traceback)

    def _add_error(self, summary: Any, traceback: Callable[..., str]) -> None:
        kind = error_kind(str(summary.error))
        if kind in CANCELLED_KINDS:
            self.cancelled += 1
            return
        cut = None
        if kind == "APIConnectionError":  # a connection refused, or a reply cut half-way?
            cut = CUT_REPLY.findall(traceback(summary, always=True))
            kind = "RemoteProtocolError" if cut else kind
        self.kinds[kind] += 1
        if kind not in self.example:
            self.example[kind] = (
                f"RemoteProtocolError: {cut[-1]}" if cut else server_words(str(summary.error), traceback(summary))
            )

    def lines(self) -> list[str]:
        """The summary lines (as :func:`failure_lines` lists them, the unreadable logs' lines left out)."""
        lines = []
        for kind, count in sorted(self.kinds.items(), key=lambda item: (-item[1], item[0])):
            gloss = f" — {ERROR_GLOSS[kind]}" if kind in ERROR_GLOSS else ""
            noun = "sample" if count == 1 else "samples"
            lines.append(
                f"bediscover run: {count} {noun} ended in error (not scored): {kind}{gloss}; e.g. {self.example[kind]}"
            )
        if self.cancelled:
            noun, they, them = ("sample", "it", "it") if self.cancelled == 1 else ("samples", "they", "them")
            lines.append(
                f"bediscover run: {self.cancelled} {noun} cancelled while {they} waited for the model; re-running the "
                f"command asks for {them} again, and for every sample not started"
            )
        if self.retried:
            noun = "sample" if self.retried == 1 else "samples"
            lines.append(
                f"bediscover run: {self.retried} {noun} re-asked after an error ({self.recovered} answered on a retry)"
            )
        if self.no_usage:
            noun = "sample" if self.no_usage == 1 else "samples"
            lines.append(
                f"bediscover run: {self.no_usage} {noun} without token usage (not reported by the provider): left "
                "out of output_tokens and reasoning_tokens"
            )
        return lines


def _traceback(read_sample: Any, location: str, summary: Any, always: bool = False) -> str:
    """The traceback of a sample error whose message names no cause (tenacity's ``RetryError``), or of any sample
    error with ``always``; else ``""``."""
    if not always and not re.search(r"\braised \w+>", str(summary.error)):
        return ""
    try:
        sample = read_sample(location, summary.id, summary.epoch)
    except Exception:  # noqa: BLE001 - the example falls back to the message
        return ""
    return sample.error.traceback if sample.error is not None else ""


SAMPLE_ERROR = re.compile(r"Sample error \(id: (?P<id>.*?), epoch: (?P<epoch>\d+)\): (?P<error>.*)", re.DOTALL)
"""Inspect's warning of a sample that ended in error (``inspect_ai/_eval/task/run.py``, ``log_sample_error``)."""


class SampleErrorDigest(logging.Filter):
    """Inspect's sample-error warnings, one line per kind of error on the console (a logging filter).

    The first warning of each kind (:func:`error_kind`) is rewritten to one line: the sample, the kind, the
    server's words (:func:`server_words`), and whether the sample is asked again (Inspect's own words). Every other one is lowered to
    ``INFO``: below the console's level, so not shown, and still in the eval log, as every sample's error is.

    Attributes:
        counts: warnings seen per kind.
    """

    def __init__(self) -> None:
        super().__init__()
        self.counts: Counter[str] = Counter()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING:
            return True
        found = SAMPLE_ERROR.match(str(record.msg))
        if found is None:
            return True
        # Inspect's text: "<error>)" then ". Sample will be retried." (or cancelled, scored) when it says so
        parts = re.fullmatch(r"(?P<error>.*)\)(?:\. (?P<then>Sample will be \w+\.))?", found.group("error"), re.DOTALL)
        error, then = (parts.group("error"), parts.group("then")) if parts else (found.group("error"), None)
        kind = error_kind(error)
        self.counts[kind] += 1
        if self.counts[kind] > 1:
            record.levelno, record.levelname = logging.INFO, logging.getLevelName(logging.INFO)
            return True
        record.msg = (
            f"Sample error (id: {found.group('id')}, epoch: {found.group('epoch')}): {kind}: {server_words(error)}"
            f"{' ' + then if then else ''} Further {kind}s: counted at the end, each in the eval log."
        )
        record.args = None
        return True


@contextmanager
def digest_sample_errors() -> Iterator[SampleErrorDigest]:
    """A :class:`SampleErrorDigest` on Inspect's logger of sample errors for the duration of the block."""
    digest = SampleErrorDigest()
    logger = sample_error_logger()
    logger.addFilter(digest)
    try:
        yield digest
    finally:
        logger.removeFilter(digest)


def is_disk_full(exc: BaseException | None) -> bool:
    """``exc`` (or an exception it was raised from) is an ``OSError`` with ``errno`` ``ENOSPC``."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


class DiskFullWatch(logging.Handler):
    """Stops the run (``_thread.interrupt_main``, as a Ctrl-C) at the first logged write failure with ENOSPC.

    Attributes:
        message: the first such record's message, ``None`` while the disk has room.
    """

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.message: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.message is not None:
            return
        exc = record.exc_info[1] if record.exc_info else None
        text = record.getMessage()
        if is_disk_full(exc) or f"[Errno {errno.ENOSPC}]" in text:
            self.message = f"[Errno {errno.ENOSPC}] {errno.errorcode[errno.ENOSPC]}: No space left on device"
            _thread.interrupt_main()


@contextmanager
def watch_disk_full() -> Iterator[DiskFullWatch]:
    """A :class:`DiskFullWatch` on the ``inspect_ai`` logger for the duration of the block."""
    watch = DiskFullWatch()
    logger = logging.getLogger("inspect_ai")
    logger.addHandler(watch)
    try:
        yield watch
    finally:
        logger.removeHandler(watch)


def disk_full_line(log_dir: str) -> str:
    """The closing line of a run stopped by a full disk."""
    return (
        f"bediscover run: stopped: the disk holding {log_dir} is full (No space left on device); free space, "
        "then re-run the same command to resume: samples answered since the log was last written are asked again"
    )
