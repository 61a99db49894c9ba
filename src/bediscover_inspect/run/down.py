"""Stop a run whose model server stopped answering part-way, instead of taking every remaining sample through
its retries.

An Inspect hook (:class:`ServerDownHooks`, active only inside :func:`watch_server_down`) counts the model calls
that failed to connect (:data:`CONNECTION_ERRORS`: a retry Inspect is about to make, or a sample attempt that
ended in such an error) since the last call that got any reply. After :data:`FAILURES_IN_A_ROW` of them the
server is asked once more (:func:`bediscover_inspect.run.endpoint.check_endpoint`, when its base URL is known);
if that fails too, the run is stopped at once (``_thread.interrupt_main``, as a Ctrl-C), keeping every finished
sample, and ends with :func:`ServerDownWatch.closing_line`.
"""

from __future__ import annotations

import _thread
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from inspect_ai.hooks import Hooks, ModelRetry, ModelUsageData, SampleAttemptEnd, hooks

from .endpoint import EndpointUnreachable, check_endpoint
from .failures import error_kind

FAILURES_IN_A_ROW = 5
"""Model calls in a row that could not connect before the server is checked (and the run stopped if it is down)."""

CONNECTION_ERRORS = frozenset({"APIConnectionError", "ConnectError", "ConnectionRefusedError", "ConnectionError"})
"""Exception types of a call that never reached the server (the OpenAI client's and httpx's names)."""


class ServerDownWatch:
    """The count of failed connections in a row, and the reason the run was stopped (``None`` while it runs).

    Args:
        model, base_url, model_args: the run's model, as :func:`~.endpoint.check_endpoint` takes them.
    """

    def __init__(self, model: str, base_url: str | None, model_args: dict[str, Any]) -> None:
        self.model, self.base_url, self.model_args = model, base_url, model_args
        self.in_a_row = 0
        self.reason: str | None = None
        self.stopped_after = 0

    def answered(self) -> None:
        self.in_a_row = 0

    def failed(self, kind: str | None) -> bool:
        """Count one failed call of exception type ``kind``; True when the server is to be checked."""
        if kind not in CONNECTION_ERRORS:
            self.in_a_row = 0  # the server answered, if only with an error
            return False
        self.in_a_row += 1
        return self.reason is None and self.in_a_row >= FAILURES_IN_A_ROW

    def check(self) -> None:
        """Ask the server once (blocking); when it does not answer, record why and stop the run."""
        try:
            check_endpoint(self.model, self.base_url, self.model_args)
        except EndpointUnreachable as exc:
            self.reason, self.stopped_after = str(exc).split("; start it", 1)[0], self.in_a_row
            _thread.interrupt_main()
            return
        self.in_a_row = 0

    def closing_line(self) -> str:
        """The closing line of a run this watch stopped."""
        return (
            f"bediscover run: stopped after {self.stopped_after} model calls in a row could not connect: {self.reason}; "
            "start it, then re-run the same command to resume: finished samples are kept"
        )


_ACTIVE: list[ServerDownWatch] = []


@hooks(name="bediscover_server_down", description="stop a bediscover run whose model server stopped answering")
class ServerDownHooks(Hooks):
    """Feeds Inspect's model-call events to the active :class:`ServerDownWatch`."""

    def enabled(self) -> bool:
        return bool(_ACTIVE)

    async def on_model_usage(self, data: ModelUsageData) -> None:
        _ACTIVE[-1].answered()

    async def on_model_retry(self, data: ModelRetry) -> None:
        await self._failed(data.exception_type)

    async def on_sample_attempt_end(self, data: SampleAttemptEnd) -> None:
        if data.error is not None:
            await self._failed(error_kind(data.error.message))

    async def _failed(self, kind: str | None) -> None:
        import anyio

        watch = _ACTIVE[-1]
        if watch.failed(kind):
            await anyio.to_thread.run_sync(watch.check)


@contextmanager
def watch_server_down(model: str, base_url: str | None, model_args: dict[str, Any]) -> Iterator[ServerDownWatch]:
    """A :class:`ServerDownWatch` fed by Inspect's hooks for the duration of the block."""
    watch = ServerDownWatch(model, base_url, model_args)
    _ACTIVE.append(watch)
    try:
        yield watch
    finally:
        _ACTIVE.remove(watch)
