"""Log directories as Inspect takes them: a local path or any fsspec URL (``s3://bucket/run``, ``gs://…``).

``bediscover run --log-dir s3://bucket/run`` writes through Inspect's own filesystem layer; ``report``,
``compare`` and ``rescore`` read the same locations with Inspect's ``list_eval_logs`` and ``read_eval_log``, so
a location only needs checking before they start (:func:`check_log_dir`; the report lists first, in the event loop
that reads its logs, :func:`list_logs_async`). An object store has no directories:
a prefix with objects under it counts as one. Credentials and endpoints come from the store's usual settings
(for S3: ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_ENDPOINT_URL`` for an S3-compatible server …).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from bediscover_inspect._inspect_compat import local_log_files


def is_url(location: str | Path) -> bool:
    """Whether ``location`` names a remote store (``s3://…``) rather than a local path (``file://`` is local)."""
    text = str(location)
    return "://" in text and not text.startswith("file://")


def filesystem(location: str | Path) -> tuple[Any, str]:
    """The fsspec filesystem of ``location`` and the path within it (``fsspec.core.url_to_fs``).

    Raises:
        ValueError: a URL whose protocol has no fsspec implementation installed (the message names the package
            to install, e.g. ``s3fs`` for ``s3://``).
    """
    import fsspec

    try:
        return fsspec.core.url_to_fs(str(location))
    except ImportError as exc:  # fsspec names the missing implementation: "Install s3fs to access S3"
        raise ValueError(f"{location}: {exc}") from exc


def check_log_dir(location: str | Path, what: str = "log directory") -> str:
    """``location`` as a string once it is known to be an existing directory (a prefix holding objects, on a store).

    Raises:
        FileNotFoundError: nothing at ``location`` (message ``<what> not found: <location>``).
        NotADirectoryError: ``location`` is a file.
        ValueError: see :func:`filesystem`.
        OSError: the store refused the listing (credentials, endpoint): the message names the location.
    """
    fs, path = filesystem(location)
    try:
        exists, is_dir = fs.exists(path), fs.isdir(path)
    except (FileNotFoundError, NotADirectoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - a store's own errors (no credentials, endpoint down …)
        raise OSError(f"cannot read {what} {location}: {type(exc).__name__}: {exc}") from exc
    if not exists:
        raise FileNotFoundError(f"{what} not found: {location}")
    if not is_dir:
        raise NotADirectoryError(f"{what} is not a directory: {location}")
    return str(location)


def local_path(name: str) -> str:
    """A log location as the suite shows it: ``file:///a/b.eval`` -> ``/a/b.eval`` (the ``name`` of a
    ``list_eval_logs`` entry); other locations, such as ``s3://``, are kept as they are."""
    if name.startswith("file://"):
        return unquote(urlparse(name).path)
    return name


def kind(location: str | Path) -> str:
    """``"dir"``, ``"file"`` or ``"missing"``: what is at ``location`` (local path or URL)."""
    fs, path = filesystem(location)
    if fs.isdir(path):
        return "dir"
    return "file" if fs.exists(path) else "missing"


async def list_logs_async(log_dir: str) -> list[Any]:
    """Every Inspect log under ``log_dir`` (recursively, newest first), once ``log_dir`` is known to be a directory:
    entries with the log's ``name``.

    A local ``log_dir`` is checked first (:func:`check_log_dir`) and listed as Inspect lists it, without its reading
    the header of every log not named the Inspect way (:func:`bediscover_inspect._inspect_compat.local_log_files`;
    the headers are read later, a few at a time). A URL is listed straight away through the event loop's store
    client (Inspect's ``list_eval_logs_async``), and checked only when the listing fails or finds no log, so that a
    report on a store opens one client in all (the check goes through a client of its own).

    Raises:
        FileNotFoundError, NotADirectoryError, OSError, ValueError: see :func:`check_log_dir`.
    """
    from inspect_ai.log import list_eval_logs_async

    if not is_url(log_dir):
        return local_log_files(check_log_dir(log_dir))
    try:
        infos = await list_eval_logs_async(log_dir, recursive=True)
    except Exception:
        check_log_dir(log_dir)  # raises the one-line error naming the location (no credentials, endpoint down …)
        raise
    if not infos:
        check_log_dir(log_dir)  # a missing prefix, a file, or a prefix holding no log
    return infos


async def read_headers_async(infos: Sequence[Any]) -> list[Any]:
    """The header of each log in ``infos`` (``list_eval_logs`` entries or paths/URLs), in order; for a log that
    cannot be read, the exception instead of a header.

    All headers are read concurrently in the running event loop (Inspect's ``read_eval_log_headers_async``), so
    through its one store client; when any cannot be read, each is read on its own to tell which.
    """
    from inspect_ai.log import read_eval_log_async, read_eval_log_headers_async

    try:
        return list(await read_eval_log_headers_async(list(infos)))
    except Exception:  # noqa: BLE001 - one bad file: read each alone below
        pass
    headers: list[Any] = []
    for info in infos:
        try:
            headers.append(await read_eval_log_async(info, header_only=True))
        except Exception as exc:  # noqa: BLE001 - returned for the caller to report
            headers.append(exc)
    return headers


def read_headers(infos: Sequence[Any]) -> list[Any]:
    """:func:`read_headers_async` in an event loop of its own (one store client for all the headers, where a
    ``read_eval_log`` per log opens a new S3 client for each)."""
    from bediscover_inspect._inspect_compat import run_coroutine

    return list(run_coroutine(read_headers_async(infos)))
