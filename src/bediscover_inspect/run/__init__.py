"""``bediscover run`` against servers that misbehave: the run's bounds (:mod:`.options`), the endpoint check
(:mod:`.endpoint`), the log-directory lock (:mod:`.lock`) and the closing summary of failures (:mod:`.failures`).

Imports nothing heavy: the console script's start-up (:mod:`.entry`) goes through this package.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .failures import DiskFullWatch

LOCK_NAME = ".bediscover-run.lock"
"""The lock file inside the log directory (:func:`.lock.log_dir_lock`)."""


class RunRefused(Exception):
    """``bediscover run`` cannot start: the model's server does not answer, or the log directory is in use.

    The message is one line; the command prints it and exits 2, before any eval starts.
    """


def lock_of(args: Any) -> str | None:
    """The lock file a ``bediscover run`` with these arguments holds: :data:`LOCK_NAME`, one per shard for
    ``--shard I/N`` (the shards of one run share the directory), none in a ``--workers`` worker process (its
    parent holds the lock)."""
    if getattr(args, "worker", None) is not None:
        return None
    shard = getattr(args, "shard", None)
    if shard is None:
        return LOCK_NAME
    return LOCK_NAME.replace(".lock", f"-shard-{str(shard).replace('/', '-of-')}.lock")


@contextmanager
def run_guard(
    model: str,
    base_url: str | None,
    model_args: dict[str, Any],
    log_dir: str,
    lock: str | None = LOCK_NAME,
    check: bool = True,
) -> Iterator[DiskFullWatch]:
    """Check the model's endpoint once (:func:`.endpoint.check_endpoint`, unless ``check`` is false), then hold
    ``log_dir``'s lock file ``lock`` (:func:`.lock.log_dir_lock`; none when ``None``) and watch for a full disk
    (:class:`.failures.DiskFullWatch`, yielded) for the block.

    Raises:
        RunRefused: the server does not answer, or another process holds the log directory.
    """
    from .endpoint import EndpointUnreachable, check_endpoint
    from .failures import watch_disk_full
    from .lock import LogDirInUse, log_dir_lock

    with ExitStack() as stack:
        try:
            if check:
                check_endpoint(model, base_url, model_args)
            if lock is not None:
                stack.enter_context(log_dir_lock(log_dir, lock))
        except (EndpointUnreachable, LogDirInUse) as exc:
            raise RunRefused(str(exc)) from None
        yield stack.enter_context(watch_disk_full())


def closing_lines(
    watch: DiskFullWatch, code: int, line: str, logs: Sequence[Any], log_dir: str
) -> tuple[int, list[str]]:
    """Exit code and closing lines of a run: one line per kind of sample error (:func:`.failures.failure_lines`),
    then ``line`` (the run's outcome and resume hint); a run stopped by a full disk exits 1 with
    :func:`.failures.disk_full_line` instead of ``line``."""
    from .failures import disk_full_line, failure_lines

    summary = failure_lines(logs)
    if watch.message is not None:
        return 1, [*summary, disk_full_line(log_dir)]
    return code, [*summary, line]
