"""Finding a benchmark file: the data root (task parameter ``data_dir``, else ``BEDISCOVER_DATA_DIR``), else the
user cache, filled by downloading the file from the pinned commit, written atomically and checked against its git
blob SHA-1. A file whose SHA-1 differs from the pinned one loads with a logged warning and says so in its provenance.

:func:`fetch_pinned` is the one download path for every pinned file (the benchmark's data and the tests' reference
material, :mod:`.reference`): a public file at a fixed commit, checked against its git blob SHA-1 before it is
written, atomically, into place.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import DataFileMissingError
from .registry import PINNED_COMMIT, PINNED_REPOSITORY, DataFile, data_file_info

logger = logging.getLogger(__name__)

RAW_BASE_URL = "https://raw.githubusercontent.com"
"""Where pinned files come from: GitHub's raw file host, ``<base>/<owner>/<name>/<commit>/<path>``."""

ENV_DATA_DIR = "BEDISCOVER_DATA_DIR"
ENV_CACHE_DIR = "BEDISCOVER_CACHE_DIR"
ENV_OFFLINE = "BEDISCOVER_OFFLINE"
ENV_BASE_URL = "BEDISCOVER_FETCH_BASE_URL"
"""Another host laid out like :data:`RAW_BASE_URL` (``<base>/<owner>/<name>/<commit>/<path>``): a local copy of
the pinned repositories, or the tests' loopback server. The SHA-1 check is the same."""


class PinnedFileError(OSError):
    """A pinned file could not be fetched (transport failure) or its bytes are not the pinned ones.

    ``str()`` is one line naming the URL and what went wrong; :attr:`reason` is the part after the URL.
    """

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason


def pinned_url(repository: str, commit: str, path: str) -> str:
    """URL of ``path`` in ``repository`` (``owner/name``) at ``commit``: :data:`RAW_BASE_URL`, or the base in
    ``BEDISCOVER_FETCH_BASE_URL`` when set."""
    base = os.environ.get(ENV_BASE_URL) or RAW_BASE_URL
    return f"{base.rstrip('/')}/{repository}/{commit}/{path}"


def git_blob_sha1(data: bytes) -> str:
    """Git blob SHA-1 of ``data`` (what ``git hash-object FILE`` prints): ``sha1(b"blob <len>\\0" + data)``."""
    digest = hashlib.sha1()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def cache_root() -> Path:
    """User cache of every downloaded file: ``$BEDISCOVER_CACHE_DIR`` or the platform cache dir."""
    explicit = os.environ.get(ENV_CACHE_DIR)
    if explicit:
        return Path(explicit).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("bediscover-inspect"))


def cache_dir() -> Path:
    """The data's download cache: :func:`cache_root` / the pinned commit, laid out like the data root."""
    return cache_root() / PINNED_COMMIT


@dataclass(frozen=True)
class ResolvedFile:
    """Where a benchmark file was found and whether it is the pinned one.

    ``source`` is ``data_dir`` (task parameter), ``env`` (``BEDISCOVER_DATA_DIR``) or ``cache``;
    ``verified`` is ``True`` (SHA-1 matches), ``False`` (differs: loaded with a warning) or ``None``
    (no pinned SHA-1, e.g. a user-restored LDC corpus).
    """

    path: str
    local_path: str
    source: str
    expected_sha1: str | None
    actual_sha1: str
    verified: bool | None

    def provenance(self) -> dict[str, Any]:
        """JSON-able record for task metadata (so the log says exactly which bytes were scored)."""
        return asdict(self) | {"repository": PINNED_REPOSITORY, "commit": PINNED_COMMIT}


def _missing_message(info: DataFile, where: str, reason: str) -> DataFileMissingError:
    what = (
        f"{info.path} (dataset {info.dataset!r}, git blob SHA-1 "
        f"{info.sha1 or 'none: LDC-licensed corpus, restore it yourself'}; {reason})"
    )
    hint = (
        f"Looked in {where}. Options: pass -T data_dir=DIR or set {ENV_DATA_DIR}=DIR to a directory laid out "
        f"like the repository's data/ folder (so the file is DIR/<path>); or, with neither set (nor "
        f"{ENV_OFFLINE}) and a network, it is downloaded from {PINNED_REPOSITORY}@{PINNED_COMMIT[:10]} into "
        f"{cache_dir()}."
    )
    return DataFileMissingError(f"BeDiscovER data file not found: {what}. {hint}", what=what, hint=hint)


def default_fetch(url: str, timeout: float = 60.0) -> bytes:
    """Fetch ``url`` and return its body (the transport :func:`download_file` uses unless told otherwise)."""
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (fixed https URL)
        return response.read()


def fetch_pinned(url: str, sha1: str, target: Path, fetch: Callable[[str], bytes] | None = None) -> Path:
    """Download ``url`` to ``target`` atomically, only if its bytes have the git blob SHA-1 ``sha1``.

    The bytes are checked first, then written to a temporary file beside ``target`` and renamed into place, so an
    interrupted or corrupt download never leaves a partial or wrong file.

    Args:
        url: the pinned address (:func:`pinned_url`).
        sha1: expected git blob SHA-1 (what ``git hash-object FILE`` prints), 40 hex digits.
        target: where the file lands; parent directories are created.
        fetch: ``url -> bytes`` transport (default :func:`default_fetch`); tests pass a fake.

    Raises:
        PinnedFileError: the transport failed (network, HTTP status, timeout) or the bytes have another SHA-1.
    """
    try:
        data = (fetch or default_fetch)(url)
    except Exception as ex:  # any transport failure becomes the one clear error
        raise PinnedFileError(url, f"download failed: {ex}") from ex
    actual = git_blob_sha1(data)
    if actual != sha1:
        raise PinnedFileError(url, f"downloaded bytes have SHA-1 {actual}, expected {sha1}")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".download-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # as an ordinary new file, not mkstemp's owner-only 0o600
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def download_file(info: DataFile, dest_root: Path, fetch: Callable[[str], bytes] | None = None) -> Path:
    """Download ``info`` from the pinned commit into ``dest_root/info.path`` (:func:`fetch_pinned`).

    Args:
        info: registry entry of the file.
        dest_root: cache root; the file lands at ``dest_root / info.path``.
        fetch: ``url -> bytes`` transport (default :func:`default_fetch`); tests pass a fake or a loopback URL.

    Raises:
        DataFileMissingError: the file has no pinned SHA-1 (LDC), the fetch failed, or the bytes do not match.
    """
    if info.sha1 is None:
        raise _missing_message(info, str(dest_root), "not distributed by the authors")
    url = pinned_url(PINNED_REPOSITORY, PINNED_COMMIT, f"data/{info.path}")
    try:
        return fetch_pinned(url, info.sha1, dest_root / info.path, fetch)
    except PinnedFileError as ex:
        reason = ex.reason if ex.__cause__ is None else f"download from {url} failed: {ex.__cause__}"
        raise _missing_message(info, str(dest_root), reason) from ex


def resolve_data_file(
    path: str, data_dir: str | os.PathLike[str] | None = None, fetch: Callable[[str], bytes] | None = None
) -> ResolvedFile:
    """Find ``path`` (a key of :data:`REGISTRY`) under the data root, downloading it into the cache if needed.

    Args:
        path: file under the data root, e.g. ``"so/nips-abs/test_id.jsonl"``.
        data_dir: explicit data root (task parameter); overrides ``BEDISCOVER_DATA_DIR``.
        fetch: transport for the cache download (tests); ignored when a data root is given.

    Returns:
        A :class:`ResolvedFile`; a SHA-1 mismatch is reported there and as a warning, not raised.

    Raises:
        KeyError: unknown path.
        DataFileMissingError: not under the explicit data root, or not downloadable (offline,
            ``BEDISCOVER_OFFLINE=1``, LDC corpus).
    """
    info = data_file_info(path)
    if data_dir is not None or os.environ.get(ENV_DATA_DIR):
        source = "data_dir" if data_dir is not None else "env"
        root = Path(data_dir if data_dir is not None else os.environ[ENV_DATA_DIR]).expanduser()
        local = root / path
        if not local.is_file():
            label = "-T data_dir" if source == "data_dir" else ENV_DATA_DIR
            raise _missing_message(info, f"{root} ({label})", "not under the data root")
    else:
        source = "cache"
        root = cache_dir()
        local = root / path
        if not local.is_file():
            if os.environ.get(ENV_OFFLINE, "") not in ("", "0"):
                raise _missing_message(info, f"{root} (cache)", f"{ENV_OFFLINE} is set, no download tried")
            local = download_file(info, root, fetch)
    actual = _file_sha1(str(local), local.stat().st_mtime_ns, local.stat().st_size)
    verified = None if info.sha1 is None else actual == info.sha1
    if verified is False:
        logger.warning(
            "%s: git blob SHA-1 %s differs from the pinned %s (%s@%s); scores may not be comparable with the paper",
            local,
            actual,
            info.sha1,
            PINNED_REPOSITORY,
            PINNED_COMMIT[:10],
        )
    return ResolvedFile(path, str(local), source, info.sha1, actual, verified)


@lru_cache(maxsize=128)
def _file_sha1(local: str, mtime_ns: int, size: int) -> str:
    return git_blob_sha1(Path(local).read_bytes())
