"""One model call of ``bediscover run``, bounded over all its retries, and a rate-limited server's ``Retry-After``
honoured.

Inspect's own ``timeout`` (``GenerateConfig.timeout``) is only a stop condition of its retry loop, checked after an
attempt has ended (``model_retry_config`` in ``inspect_ai/model/_retry.py``): an attempt that has started runs to
``attempt_timeout`` whatever is left of ``timeout``, so ``--timeout 8`` accepted a 30-second reply. And its
back-off (``wait_exponential_jitter(initial=3, max=30 * 60, jitter=3)``, or the provider's ``retry_wait()``) does
not read a 429's ``Retry-After`` header: ``Retry-After: 120`` was answered with a retry 4.5 s later, so against a
provider's rate-limit window the retries ran out in about 1.5 minutes.

:func:`bound_calls` makes both hold, through the public methods of Inspect's ``Model`` and ``ModelAPI``:

* each ``Model.generate`` call (one model call, all its attempts and the waits between them) runs inside one
  cancel scope of ``timeout`` seconds; an attempt still running when the time is up is cancelled, so no attempt
  outlasts what is left of the call, and the call ends in :class:`CallTimeout`;
* the wait before a retry (:class:`RetryAfterWait`) is the server's ``Retry-After`` when the failed attempt's
  reply has one (delta-seconds or an HTTP-date, RFC 9110 §10.2.3), else Inspect's back-off. A wait longer than
  what is left of the call's ``timeout`` ends the call at once in :class:`RetryAfterTooLong`, and stops the run
  (:class:`RateLimitStop`): every other call would meet the same window.
"""

from __future__ import annotations

import _thread
import email.utils
import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any

DEFAULT_BACKOFF = {"initial": 3, "max": 30 * 60, "jitter": 3}
"""Inspect's own back-off between retries when the provider has none (``model_retry_config``, 0.3.x): about 3, 6,
12, 24 … s, at most 30 min; the wait :class:`RetryAfterWait` falls back to."""


class CallTimeout(Exception):
    """A model call got no reply within ``--timeout`` seconds over all its attempts."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"no reply within --timeout {timeout:g} s over all attempts of the call")


class RetryAfterTooLong(Exception):
    """The server asked to wait longer before a retry (``Retry-After``) than is left of the call's ``--timeout``."""

    def __init__(self, wait: float, left: float, timeout: float) -> None:
        self.wait, self.left, self.timeout = wait, left, timeout
        super().__init__(
            f"the server asked to wait {wait:g} s before a retry (Retry-After), more than the {max(left, 0):.0f} s "
            f"left of --timeout {timeout:g}"
        )


def retry_after_seconds(exc: BaseException | None, now: float | None = None) -> float | None:
    """The wait the server asked for in the reply that raised ``exc``: its ``Retry-After`` header (``exc.response.
    headers``, as the OpenAI and httpx errors carry them) in seconds, delta-seconds or an HTTP-date (RFC 9110
    §10.2.3); ``None`` without a header, or with one that is not a finite wait of 0 s or more.

    Args:
        now: the current time (Unix seconds) an HTTP-date is measured from; ``time.time()`` by default.
    """
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    try:
        value = str(headers.get("retry-after") or headers.get("Retry-After") or "").strip()
    except Exception:  # noqa: BLE001 - headers of an unexpected type: no wait asked for
        return None
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            date = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = date.timestamp() - (time.time() if now is None else now)
        seconds = max(seconds, 0.0)
    return seconds if 0 <= seconds < float("inf") else None


class RateLimitStop:
    """The first :class:`RetryAfterTooLong` of a run, which stops it (``_thread.interrupt_main``, as a Ctrl-C).

    Attributes:
        reason: the first such error, ``None`` while the run goes on.
    """

    def __init__(self) -> None:
        self.reason: RetryAfterTooLong | None = None

    def stop(self, error: RetryAfterTooLong) -> None:
        if self.reason is None:
            self.reason = error
            _thread.interrupt_main()

    def closing_line(self) -> str:
        """The closing line of a run this stopped."""
        assert self.reason is not None
        return (
            f"bediscover run: stopped: {self.reason}; re-run the same command after that wait (or with a longer "
            "--timeout) to resume: finished samples are kept"
        )


class RetryAfterWait:
    """A tenacity wait (``ModelAPI.retry_wait()``): the server's ``Retry-After`` when the failed attempt's reply has
    one (:func:`retry_after_seconds`), else ``fallback``'s wait; a ``Retry-After`` longer than what is left of
    ``timeout`` (seconds since the call's first attempt, tenacity's ``seconds_since_start``) raises
    :class:`RetryAfterTooLong`, which ends the call, and is handed to ``stop``.
    """

    def __init__(
        self, fallback: Callable[[Any], float], timeout: float | None, stop: Callable[[RetryAfterTooLong], None]
    ) -> None:
        self.fallback, self.timeout, self.on_stop = fallback, timeout, stop

    def __call__(self, retry_state: Any) -> float:
        outcome = retry_state.outcome
        asked = retry_after_seconds(outcome.exception() if outcome is not None and outcome.failed else None)
        if asked is None:
            return float(self.fallback(retry_state))
        if self.timeout is not None:
            left = self.timeout - (retry_state.seconds_since_start or 0.0)
            if asked > left:
                error = RetryAfterTooLong(asked, left, self.timeout)
                self.on_stop(error)
                raise error
        return asked


def bound_calls(model: Any, timeout: float | None, stop: RateLimitStop) -> Any:
    """Bound every call of the Inspect ``Model`` ``model`` to ``timeout`` seconds over all its attempts and honour
    ``Retry-After`` (module docstring); returns ``model``, changed in place (its ``generate`` and its API's
    ``retry_wait``; the eval set then uses it as it is).

    Args:
        timeout: seconds per call, ``None`` for no bound (``Retry-After`` is still honoured, without a limit).
        stop: where a ``Retry-After`` beyond the bound is reported (:class:`RateLimitStop`).
    """
    import anyio
    from tenacity import wait_exponential_jitter

    provider_wait = model.api.retry_wait()
    fallback = provider_wait if provider_wait is not None else wait_exponential_jitter(**DEFAULT_BACKOFF)
    wait = RetryAfterWait(fallback, timeout, stop.stop)
    setattr(model.api, "retry_wait", lambda: wait)  # noqa: B010 - an instance's method, replaced on purpose
    if timeout is None:
        return model
    generate: Callable[..., Awaitable[Any]] = model.generate

    @functools.wraps(generate)
    async def bounded(*args: Any, **kwargs: Any) -> Any:
        with anyio.move_on_after(timeout):
            return await generate(*args, **kwargs)
        raise CallTimeout(timeout)

    setattr(model, "generate", bounded)  # noqa: B010
    return model
