"""Test configuration: every input from outside the repository comes through two environment variables.

- ``BEDISCOVER_DATA_DIR``: the data root, the authors' processed files laid out as ``<task>/<dataset>/test_id.json[l]``
  (``chuyuanli/BeDiscovER`` at the pinned commit, under ``data/``; README "Data").
- ``BEDISCOVER_REFERENCE_DIR``: the reference material the tests compare with, the paper's text as
  ``paper/bediscover_paper.txt`` and the upstream reference files under ``data/upstream/`` (Re-BART's metric vectors,
  DISRPT 2025's label mapping and corpus counts, the authors' per-corpus fractions).

``make test`` sets both from a data mirror beside the repository when one exists. When either is unset or not a
directory, pytest stops before collecting with one line naming it and what it must hold; no test is skipped.
Every log a test writes goes to a temporary directory (``INSPECT_LOG_DIR`` points at one for the session).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

DATA_SETTING = "BEDISCOVER_DATA_DIR"
REFERENCE_SETTING = "BEDISCOVER_REFERENCE_DIR"
_WHAT = {
    DATA_SETTING: "the data root: the authors' processed files (<task>/<dataset>/test_id.json[l]) of "
    "github.com/chuyuanli/BeDiscovER at commit f99bd2a3585ddf28ea880568747fbb3281de6e77, directory data/",
    REFERENCE_SETTING: "the reference material: paper/bediscover_paper.txt (the paper's text) and data/upstream/ "
    "(Re-BART metric vectors, DISRPT 2025 mapping and counts, the per-corpus fraction map) from the project's "
    "data mirror",
}

DATA_ROOT = Path(os.environ.get(DATA_SETTING) or "/nonexistent/BEDISCOVER_DATA_DIR").resolve()
REFERENCE_ROOT = Path(os.environ.get(REFERENCE_SETTING) or "/nonexistent/BEDISCOVER_REFERENCE_DIR").resolve()
UPSTREAM_ROOT = REFERENCE_ROOT / "data" / "upstream"
PAPER_TEXT = REFERENCE_ROOT / "paper" / "bediscover_paper.txt"

# logs of evals that name no log directory go to a temporary directory, never into the user's logs/
LOG_DIR = tempfile.mkdtemp(prefix="bediscover-test-logs-")
os.environ["INSPECT_LOG_DIR"] = LOG_DIR

# plain `mockllm/model` on the command line counts tokens with tiktoken's o200k_base: seed its cache offline
from bediscover_inspect.offline import seed_tiktoken_cache  # noqa: E402

seed_tiktoken_cache()


def pytest_configure(config: pytest.Config) -> None:
    """Stop with one line when an outside input is missing: which setting, what it must hold, where to get it."""
    for setting, path in ((DATA_SETTING, DATA_ROOT), (REFERENCE_SETTING, REFERENCE_ROOT)):
        if not os.environ.get(setting):
            raise pytest.UsageError(f"the tests need {setting}, {_WHAT[setting]}")
        if not path.is_dir():
            raise pytest.UsageError(f"{setting}={os.environ[setting]} is not a directory; it must be {_WHAT[setting]}")
    for path in (UPSTREAM_ROOT, PAPER_TEXT):
        if not path.exists():
            raise pytest.UsageError(f"{REFERENCE_SETTING}: {path} is missing; it must be {_WHAT[REFERENCE_SETTING]}")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's log directory."""
    shutil.rmtree(LOG_DIR, ignore_errors=True)


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The data root (``BEDISCOVER_DATA_DIR``)."""
    return DATA_ROOT


@pytest.fixture(scope="session")
def upstream_root() -> Path:
    """``data/upstream`` under ``BEDISCOVER_REFERENCE_DIR`` (SOURCE.md files, reference vectors)."""
    return UPSTREAM_ROOT
