"""One ``bediscover run`` per log directory at a time.

Two eval sets writing into one directory each run every sample (twice the cost) and leave two logs per eval.
:func:`log_dir_lock` holds an exclusive ``flock`` on ``<log dir>/.bediscover-run.lock`` for the whole run; the
file records the holder's pid, host and command line, so the second run can say who holds it. The operating
system drops the lock when the holding processes end in any way (kill -9 included), so a killed run never
leaves the directory locked; the file itself stays and is reused. The ``--workers`` processes of a run inherit
the lock's descriptor (:func:`bediscover_inspect.workers.run_workers`), so the lock is held until the parent and
every worker have ended: a worker still stopping after its parent was killed keeps the directory locked.

Remote log directories (``s3://…`` and other fsspec URLs) are not locked: ``flock`` works on local files only.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

LOCK_NAME = ".bediscover-run.lock"
"""The lock file inside the log directory (:func:`log_dir_lock`)."""


class LogDirUnusable(Exception):
    """The log directory cannot be used: it cannot be created or written, or another run holds it."""


class LogDirInUse(LogDirUnusable):
    """Another live process holds the log directory's lock (the message names it)."""


def _is_remote(log_dir: str) -> bool:
    scheme, sep, _ = log_dir.partition("://")
    return bool(sep) and scheme != "file"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def _holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        info = json.loads(os.read(fd, 65536).decode("utf-8") or "{}")
    except (OSError, ValueError):
        info = {}
    if not info.get("pid"):
        return "another process"
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.get("started", 0)))
    holder = f"process {info['pid']} on {info.get('host', '?')} (`{info.get('command', '?')}`, started {started})"
    if info.get("host") == socket.gethostname() and not _alive(int(info["pid"])):
        return f"the --workers processes of {holder}, which has ended (they are stopping)"
    return holder


@contextmanager
def log_dir_lock(log_dir: str, name: str = LOCK_NAME) -> Iterator[int | None]:
    """Hold ``log_dir``'s run lock (the file ``name`` in it) for the block (the directory is created if missing);
    yields the lock file's descriptor (``None`` for a remote directory, not locked), which a process started with
    it inherited holds the lock too.

    Raises:
        LogDirInUse: another process holds it; the message names its pid, host, command and start time.
        LogDirUnusable: the directory or the lock file cannot be created (a path under a file, a read-only or
            virtual file system).
    """
    if _is_remote(log_dir):
        yield None
        return
    path = os.path.join(log_dir.removeprefix("file://"), name)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        where = (
            f" ({exc.filename})" if exc.filename and os.path.abspath(exc.filename) != os.path.abspath(log_dir) else ""
        )
        raise LogDirUnusable(f"--log-dir {log_dir} cannot be used: {exc.strerror or exc}{where}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LogDirInUse(
                f"{log_dir} is in use by {_holder(fd)}; wait for it to end, or stop it and re-run to resume"
            ) from None
        record = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": " ".join(["bediscover", *sys.argv[1:]]),
            "started": time.time(),
        }
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(record).encode("utf-8"), 0)
        except OSError:  # a full disk: the lock holds all the same, only the holder's name is missing
            pass
        yield fd
    finally:
        os.close(fd)  # closing the descriptor releases the lock
