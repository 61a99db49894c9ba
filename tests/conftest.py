"""Test configuration: every input from outside the repository is a pinned public file, fetched and verified the
way the tasks fetch their data (:mod:`bediscover_inspect.data.pinned`), or found under a root given instead.

- The data: the files the suite's expectations were written against (the registry's ``mirror_status`` ``exact``
  and ``approximate``: 41 of the 49 pinned files; the other 8 and the 4 LDC corpora are expected absent), linked into
  a temporary data root for the session, to which ``BEDISCOVER_DATA_DIR`` then points (for the tasks and the
  commands the tests start). They are taken from ``BEDISCOVER_DATA_DIR`` when it is set (a data root laid out as
  ``<task>/<dataset>/test_id.json[l]``, README "Data"; one holding more files is fine), else downloaded from
  ``chuyuanli/BeDiscovER`` at the pinned commit into the user cache when not there yet and checked against their
  git blob SHA-1.
- The reference files (:data:`~bediscover_inspect.data.pinned.REFERENCE_FILES`: DISRPT 2025's label mapping):
  under ``BEDISCOVER_REFERENCE_DIR`` when set (the layout of ``data/upstream/`` there), else fetched the same way
  into the user cache's ``reference/`` folder.
- The paper's text, ``paper/bediscover_paper.txt`` under ``BEDISCOVER_REFERENCE_DIR``: a plain-text transcription
  of the paper (arXiv 2511.13095v1). It is not a file anyone publishes, so it has no address and checksum to fetch
  by; the tests that compare the code with it (prompts, Table 1 counts, the transcribed result tables) carry the
  marker ``paper`` and need that setting. Without it, selecting one of them stops the session with one line;
  ``make test`` then runs ``-m "not paper"`` and says so. The other references are either values computed by hand
  or values computed with a pinned upstream script, written into the test that uses them (each test names its
  source).

A file that cannot be fetched, or whose bytes are not the pinned ones, stops pytest before collecting with one
line per file naming it, the address and what to do; no test is skipped. ``BEDISCOVER_FETCH_BASE_URL`` replaces
the download host (the fetch tests' loopback server, a local copy of the pinned repositories).
Every log a test writes goes to a temporary directory (``INSPECT_LOG_DIR`` points at one for the session).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from bediscover_inspect.data import REGISTRY, cache_dir
from bediscover_inspect.data.pinned import REFERENCE_FILES, data_files, ensure, reference_cache_dir

REPO_ROOT = Path(__file__).resolve().parents[1]

DATA_SETTING = "BEDISCOVER_DATA_DIR"
REFERENCE_SETTING = "BEDISCOVER_REFERENCE_DIR"

TEST_DATA_FILES = [f for f in data_files() if REGISTRY[f.path].mirror_status in ("exact", "approximate")]
"""The data files the suite's expectations were written against (absent corpora and datasets included)."""

_GIVEN_DATA = os.environ.get(DATA_SETTING)
_GIVEN_REFERENCE = os.environ.get(REFERENCE_SETTING)
DATA_ROOT = Path(tempfile.mkdtemp(prefix="bediscover-test-data-")).resolve()
"""The session's data root: links to :data:`TEST_DATA_FILES` (see the module docstring)."""
REFERENCE_ROOT = Path(_GIVEN_REFERENCE).resolve() if _GIVEN_REFERENCE else reference_cache_dir()
UPSTREAM_ROOT = REFERENCE_ROOT / "data" / "upstream"
PAPER_TEXT = REFERENCE_ROOT / "paper" / "bediscover_paper.txt"


def paper_text_path() -> Path:
    """:data:`PAPER_TEXT` (a function, so a test can point it elsewhere)."""
    return PAPER_TEXT


# logs of evals that name no log directory go to a temporary directory, never into the user's logs/
LOG_DIR = tempfile.mkdtemp(prefix="bediscover-test-logs-")
os.environ["INSPECT_LOG_DIR"] = LOG_DIR

# plain `mockllm/model` on the command line counts tokens with tiktoken's o200k_base: seed its cache offline
from bediscover_inspect.offline import seed_tiktoken_cache  # noqa: E402

seed_tiktoken_cache()


def pytest_configure(config: pytest.Config) -> None:
    """Find or fetch the data and the reference files; stop with one line per problem (what, where, what to do)."""
    problems = []
    for setting, given in ((DATA_SETTING, _GIVEN_DATA), (REFERENCE_SETTING, _GIVEN_REFERENCE)):
        if given and not Path(given).is_dir():
            problems.append(f"{setting}={given} is not a directory")
    if _GIVEN_REFERENCE and Path(_GIVEN_REFERENCE).is_dir():
        problems += [
            f"{REFERENCE_SETTING}: {REFERENCE_ROOT / f.path} is missing ({f.what}, {f.url}; "
            f"`bediscover fetch --reference --to DIR` fetches it)"
            for f in REFERENCE_FILES
            if not (REFERENCE_ROOT / f.path).is_file()
        ]
    if _GIVEN_DATA and Path(_GIVEN_DATA).is_dir():
        problems += [
            f"{DATA_SETTING}: {Path(_GIVEN_DATA) / f.path} is missing ({f.what}, {f.url}; "
            f"`bediscover fetch --to DIR` fetches it)"
            for f in TEST_DATA_FILES
            if not (Path(_GIVEN_DATA) / f.path).is_file()
        ]
    if problems:
        raise pytest.UsageError("\n".join(problems))
    outcomes = [] if _GIVEN_REFERENCE else ensure(REFERENCE_FILES, REFERENCE_ROOT)
    if not _GIVEN_DATA:
        outcomes += ensure(TEST_DATA_FILES, cache_dir())
    failed = [o for o in outcomes if not o.ok]
    if failed:
        first = f"the tests could not fetch {len(failed)} pinned file(s) (or set {DATA_SETTING} / {REFERENCE_SETTING})"
        raise pytest.UsageError("\n".join([first] + [o.line() for o in failed]))
    source = Path(_GIVEN_DATA).resolve() if _GIVEN_DATA else cache_dir()
    for file in TEST_DATA_FILES:
        link = DATA_ROOT / file.path
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(source / file.path)
    os.environ[DATA_SETTING] = str(DATA_ROOT)


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Stop when a selected test needs the paper's text and there is none: one line, with the two ways out. Then
    put the modules holding tests marked ``slow`` (seconds each) first, each module's tests together and in order
    (its module fixtures are made once): pytest-xdist hands out tests in this order, so the long ones are spread over
    the workers from the start instead of one of them running last while the others wait."""
    slow_modules = {getattr(item, "module", None) for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: getattr(item, "module", None) not in slow_modules)
    needing = [item for item in items if item.get_closest_marker("paper")]
    if needing and not paper_text_path().is_file():
        raise pytest.UsageError(
            f"{len(needing)} selected tests compare with the paper's text, which is not a public file: set "
            f"{REFERENCE_SETTING} to a directory holding paper/bediscover_paper.txt, or leave them out with "
            f"-m 'not paper' (first: {needing[0].nodeid})"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's log directory and its data root of links."""
    shutil.rmtree(LOG_DIR, ignore_errors=True)
    shutil.rmtree(DATA_ROOT, ignore_errors=True)


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The session's data root (:data:`DATA_ROOT`)."""
    return DATA_ROOT


@pytest.fixture(scope="session")
def upstream_root() -> Path:
    """``data/upstream`` under the reference root (:data:`REFERENCE_FILES` lie under it)."""
    return UPSTREAM_ROOT
