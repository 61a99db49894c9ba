"""Fetching every pinned file ahead of time: the benchmark's data and the tests' reference material.

A compute node without a network runs the suite from a cache or a data root filled beforehand on a machine with one
(``bediscover fetch``, README "Set-up"). Each file is downloaded by :func:`.fetch.fetch_pinned` (pinned commit, git
blob SHA-1, atomic write); a file already in place is checked, not downloaded again.

The tests' reference material is the upstream files the test suite compares the code with
(:data:`REFERENCE_FILES`). Only files that upstream publishes byte for byte at a fixed commit are listed: the tests'
other references are the paper's text (not a public file: ``tests/conftest.py`` says how the tests treat it) and
values computed by hand or with a pinned upstream script, written into the tests.
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .fetch import PinnedFileError, cache_dir, cache_root, fetch_pinned, git_blob_sha1, pinned_url
from .registry import PINNED_COMMIT, PINNED_REPOSITORY, REGISTRY, TASK_FOLDERS


@dataclass(frozen=True)
class PinnedFile:
    """One public file at a fixed commit, and where it lands under a root.

    Attributes:
        path: where the file lands, relative to the root it is fetched into (a data root, a reference root).
        repository: ``owner/name`` on GitHub.
        commit: the commit, 40 hex digits.
        source: the file's path in the repository at ``commit``.
        sha1: its git blob SHA-1 there (``git ls-tree <commit> <source>``).
        what: what the file is, for messages.
    """

    path: str
    repository: str
    commit: str
    source: str
    sha1: str
    what: str

    @property
    def url(self) -> str:
        """The address it is downloaded from (:func:`.fetch.pinned_url`)."""
        return pinned_url(self.repository, self.commit, self.source)


REFERENCE_FILES: tuple[PinnedFile, ...] = (
    PinnedFile(
        "data/upstream/disrpt25/_official/mapping_disrpt25.json",
        "disrpt/sharedtask2025",
        "30efe3716d6ff31ef583ab0103caccffba78286c",
        "utils/mapping_disrpt25.json",
        "d358fd835334f67708be3fa90ea03ff7a3610540",
        "DISRPT 2025 label mapping (each corpus label -> one of the 17 unified labels)",
    ),
)
"""The tests' reference files, laid out as under ``BEDISCOVER_REFERENCE_DIR`` (``tests/conftest.py``)."""


def reference_cache_dir() -> Path:
    """Where :data:`REFERENCE_FILES` are cached when no reference root is given: :func:`.fetch.cache_root` /
    ``reference``."""
    return cache_root() / "reference"


def data_files(tasks: Iterable[str] | None = None) -> list[PinnedFile]:
    """The benchmark's pinned data files, as :class:`PinnedFile` (``path`` under the data root).

    Args:
        tasks: task names (``discourse_markers`` …) or data-root folders (``dm`` …); ``None`` for all five.

    Raises:
        ValueError: an unknown task; the message names the valid ones.

    The four LDC corpora of DISRPT have no pinned file (the authors do not distribute them) and are not listed.
    """
    folders = set(TASK_FOLDERS) if tasks is None else {_folder(task) for task in tasks}
    return [
        PinnedFile(
            info.path, PINNED_REPOSITORY, PINNED_COMMIT, f"data/{info.path}", info.sha1, f"dataset {info.dataset!r}"
        )
        for info in sorted(REGISTRY.values(), key=lambda f: f.path)
        if info.sha1 is not None and info.task in folders
    ]


def _folder(task: str) -> str:
    by_name = {name: folder for folder, name in TASK_FOLDERS.items()}
    if task in TASK_FOLDERS or task in by_name:
        return by_name.get(task, task)
    raise ValueError(f"unknown task {task!r}; choose from {', '.join(TASK_FOLDERS.values())}")


@dataclass(frozen=True)
class Outcome:
    """What :func:`ensure` did with one file: ``verified`` (already in place, right SHA-1), ``fetched``,
    ``replaced`` (in place with another SHA-1, downloaded again) or ``failed`` (``detail`` says why and what to do)."""

    file: PinnedFile
    target: Path
    status: str
    detail: str = ""

    @property
    def ok(self) -> bool:
        """The file is now in place with its pinned bytes."""
        return self.status != "failed"

    def line(self) -> str:
        """One line for the terminal: status, path, and the SHA-1 or the reason."""
        if self.ok:
            return f"{self.status:9} {self.file.path} ({self.file.sha1[:10]}){self.detail}"
        return f"failed    {self.file.path}: {self.detail}"


def ensure(files: Iterable[PinnedFile], root: Path, fetch: Callable[[str], bytes] | None = None) -> list[Outcome]:
    """Put every file of ``files`` at ``root / file.path`` with its pinned bytes; never raises for one file.

    A file already there is verified by its SHA-1 and downloaded again only when it differs. A failure is recorded
    and the next file is tried, so one run reports every problem.

    Args:
        files: the files (:data:`REFERENCE_FILES`, :func:`data_files`).
        root: the root they land under (a data root, a reference root, a cache).
        fetch: ``url -> bytes`` transport (tests); default :func:`.fetch.default_fetch`.

    Returns:
        One :class:`Outcome` per file, in order.
    """
    outcomes = []
    for file in files:
        target = root / file.path
        was = git_blob_sha1(target.read_bytes()) if target.is_file() else None
        if was == file.sha1:
            outcomes.append(Outcome(file, target, "verified"))
            continue
        try:
            fetch_pinned(file.url, file.sha1, target, fetch)
        except PinnedFileError as ex:
            outcomes.append(Outcome(file, target, "failed", f"{ex} ({file.what}); {_remedy(ex)}"))
            continue
        detail = "" if was is None else f", was SHA-1 {was[:10]}"
        outcomes.append(Outcome(file, target, "fetched" if was is None else "replaced", detail))
    return outcomes


def _remedy(error: PinnedFileError) -> str:
    if error.__cause__ is None:  # the bytes arrived but are not the pinned ones
        return "the host served other bytes than the pinned commit holds: check the host (BEDISCOVER_FETCH_BASE_URL)"
    if isinstance(error.__cause__, urllib.error.HTTPError):
        return "the host answered but does not serve this file: check the host (BEDISCOVER_FETCH_BASE_URL)"
    return (
        "check the network (or BEDISCOVER_FETCH_BASE_URL), or fetch on a machine with one "
        "(bediscover fetch --to DIR) and point the setting at DIR"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``bediscover fetch`` options: ``--tasks``, ``--to``, ``--reference``."""
    parser.add_argument(
        "--tasks",
        nargs="+",
        default=None,
        metavar="TASK",
        help=f"only these tasks' data (default: all): {' '.join(TASK_FOLDERS.values())}",
    )
    parser.add_argument(
        "--to",
        type=Path,
        default=None,
        metavar="DIR",
        help="fill DIR instead of the download cache; point BEDISCOVER_DATA_DIR (or, with --reference, "
        "BEDISCOVER_REFERENCE_DIR) at it on the machine that runs the suite",
    )
    parser.add_argument(
        "--reference",
        action="store_true",
        help="fetch the test suite's reference files instead of the data (what `make test` needs)",
    )


def _fetch_files(args: argparse.Namespace) -> tuple[list[PinnedFile], Path]:
    """What ``bediscover fetch`` fetches, and where: the reference files (``--reference``) or the data files of
    ``--tasks`` (all by default), under ``--to`` or the cache.

    Raises:
        ValueError: ``--tasks`` with ``--reference``, or an unknown task.
    """
    if not args.reference:
        return data_files(args.tasks), args.to or cache_dir()
    if args.tasks:
        raise ValueError("--tasks selects data files; the reference files are fetched all together")
    return list(REFERENCE_FILES), args.to or reference_cache_dir()


def _status_counts(outcomes: Sequence[Outcome]) -> str:
    """``2 fetched, 37 verified``: how many files were fetched, replaced and verified (``none`` for no file)."""
    counts = {status: sum(o.status == status for o in outcomes) for status in ("fetched", "replaced", "verified")}
    return ", ".join(f"{n} {status}" for status, n in counts.items() if n) or "none"


def run_command(args: argparse.Namespace) -> int:
    """``bediscover fetch``: one line per file, a closing count; exit 0 only when every file is in place.

    Raises:
        ValueError: an unknown task in ``--tasks``.
    """
    files, root = _fetch_files(args)
    outcomes = ensure(files, root.expanduser())
    for outcome in outcomes:
        print(outcome.line(), file=sys.stdout if outcome.ok else sys.stderr)
    failed = sum(not o.ok for o in outcomes)
    print(f"{len(outcomes) - failed} of {len(outcomes)} files in place under {root} ({_status_counts(outcomes)})")
    if not args.reference and args.tasks is None:
        print(
            "not distributed by the authors (LDC): the 4 DISRPT corpora eng.pdtb.pdtb, eng.rst.rstdt, tur.pdtb.tdb, "
            "zho.pdtb.cdtb"
        )
    if failed:
        print(f"{failed} file(s) failed: see the lines above", file=sys.stderr)
        return 1
    return 0
