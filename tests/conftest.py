"""Test configuration: the data root is the read-only mirror beside the repository (``../shared``).

Tests that read real data fail loudly (never skip) when the mirror is absent: CI always has it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
MIRROR_DATA_ROOT = (REPO_ROOT / ".." / "shared" / "data" / "bediscover" / "data").resolve()
UPSTREAM_ROOT = (REPO_ROOT / ".." / "shared" / "data" / "upstream").resolve()
PAPER_TEXT = (REPO_ROOT / ".." / "shared" / "paper" / "bediscover_paper.txt").resolve()

os.environ.setdefault("BEDISCOVER_DATA_DIR", str(MIRROR_DATA_ROOT))
os.environ.setdefault("INSPECT_LOG_DIR", str(REPO_ROOT / "logs" / "tests"))

# plain `mockllm/model` on the command line counts tokens with tiktoken's o200k_base: seed its cache offline
from bediscover_inspect.offline import seed_tiktoken_cache  # noqa: E402

seed_tiktoken_cache()


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The mirror's data root; an assertion error (not a skip) if the mirror is missing."""
    assert MIRROR_DATA_ROOT.is_dir(), f"data mirror not found at {MIRROR_DATA_ROOT}"
    return MIRROR_DATA_ROOT


@pytest.fixture(scope="session")
def upstream_root() -> Path:
    """``shared/data/upstream`` (SOURCE.md files, reference vectors)."""
    assert UPSTREAM_ROOT.is_dir(), f"upstream mirror not found at {UPSTREAM_ROOT}"
    return UPSTREAM_ROOT
