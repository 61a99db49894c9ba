"""Log directories as Inspect takes them: a local path or any fsspec URL (``s3://bucket/run``, ``gs://…``).

``bediscover run --log-dir s3://bucket/run`` writes through Inspect's own filesystem layer; ``report``,
``compare`` and ``rescore`` read the same locations with Inspect's ``list_eval_logs`` and ``read_eval_log``, so
a location only needs checking before they start (:func:`check_log_dir`). An object store has no directories:
a prefix with objects under it counts as one. Credentials and endpoints come from the store's usual settings
(for S3: ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_ENDPOINT_URL`` for an S3-compatible server …).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


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


def kind(location: str | Path) -> str:
    """``"dir"``, ``"file"`` or ``"missing"``: what is at ``location`` (local path or URL)."""
    fs, path = filesystem(location)
    if fs.isdir(path):
        return "dir"
    return "file" if fs.exists(path) else "missing"
