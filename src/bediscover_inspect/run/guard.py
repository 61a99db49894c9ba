"""What guards a ``bediscover run`` while its eval set runs: the endpoint check and the log-directory lock before
it starts, the watches of a full disk and of a model server gone down while it runs, and its closing lines.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from .calls import RateLimitStop
from .endpoint import EndpointUnreachable, check_endpoint
from .failures import DiskFullWatch, digest_sample_errors, disk_full_line, failure_lines, watch_disk_full
from .lock import LOCK_NAME, LogDirUnusable, log_dir_lock

if TYPE_CHECKING:
    from .down import ServerDownWatch


class RunRefused(Exception):
    """``bediscover run`` cannot start: the model's server does not answer, or the log directory is in use.

    The message is one line; the command prints it and exits 2, before any eval starts.
    """


def lock_of(args: Any) -> str | None:
    """The lock file a ``bediscover run`` with these arguments holds: :data:`LOCK_NAME`, one per shard for
    ``--shard I/N`` with N > 1 (the shards of one run share the directory; ``1/1`` is the whole run), none in a ``--workers`` worker process (its
    parent holds the lock)."""
    if getattr(args, "worker", None) is not None:
        return None
    shard = getattr(args, "shard", None)
    if shard is None or shard.count == 1:  # --shard 1/1 is the whole job
        return LOCK_NAME
    return LOCK_NAME.replace(".lock", f"-shard-{str(shard).replace('/', '-of-')}.lock")


class RunWatches(NamedTuple):
    """What watches a running eval set (:func:`run_guard`): a full disk, a model server gone down, a server's
    ``Retry-After`` beyond ``--timeout``."""

    disk: DiskFullWatch
    server: ServerDownWatch
    rate: RateLimitStop
    lock: int | None = None
    """The descriptor of the log directory's lock file (``None`` when not locked): ``--workers`` processes
    inherit it, so the lock outlives a killed parent until its workers end."""


def check_server(model: str, base_url: str | None, model_args: dict[str, Any]) -> None:
    """Ask the model's endpoint once (:func:`.endpoint.check_endpoint`), before the run builds its tasks.

    Raises:
        RunRefused: the server does not answer.
    """
    try:
        check_endpoint(model, base_url, model_args)
    except EndpointUnreachable as exc:
        raise RunRefused(str(exc)) from None


@contextmanager
def run_guard(
    model: str,
    base_url: str | None,
    model_args: dict[str, Any],
    log_dir: str,
    lock: str | None = LOCK_NAME,
) -> Iterator[RunWatches]:
    """Hold ``log_dir``'s lock file ``lock`` (:func:`.lock.log_dir_lock`; none when ``None``) and watch for a
    full disk (:class:`.failures.DiskFullWatch`) and a server that stops answering
    (:class:`.down.ServerDownWatch`) for the block (both yielded), showing one sample-error warning per kind of
    error (:class:`.failures.SampleErrorDigest`).

    Raises:
        RunRefused: the log directory cannot be created, or another process holds it.
    """
    # imported here, not at the top: importing run.down registers its Inspect hook, after which Inspect prints
    # a hooks line as the model is made; a run refused before it starts (the server check) prints none
    from .down import watch_server_down

    with ExitStack() as stack:
        try:
            fd = stack.enter_context(log_dir_lock(log_dir, lock)) if lock is not None else None
        except LogDirUnusable as exc:
            raise RunRefused(str(exc)) from None
        disk = stack.enter_context(watch_disk_full())
        stack.enter_context(digest_sample_errors())
        server = stack.enter_context(watch_server_down(model, base_url, model_args))
        yield RunWatches(disk, server, RateLimitStop(), fd)


def closing_lines(
    watches: RunWatches, code: int, line: str, logs: Sequence[Any], log_dir: str
) -> tuple[int, list[str]]:
    """Exit code and closing lines of a run: one line per kind of sample error (:func:`.failures.failure_lines`),
    then ``line`` (the run's outcome and resume hint); a run stopped by a full disk or by its model server
    gone down, or by a ``Retry-After`` beyond ``--timeout``, exits 1 with :func:`.failures.disk_full_line`,
    :meth:`.down.ServerDownWatch.closing_line` or :meth:`.calls.RateLimitStop.closing_line` instead of ``line``."""
    summary = failure_lines(logs)
    if watches.disk.message is not None:
        return 1, [*summary, disk_full_line(log_dir)]
    if watches.server.reason is not None:
        return 1, [*summary, watches.server.closing_line()]
    if watches.rate.reason is not None:
        return 1, [*summary, watches.rate.closing_line()]
    return code, [*summary, line]
