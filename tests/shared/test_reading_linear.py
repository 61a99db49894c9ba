"""Every answer reader is linear in the answer's length: the degenerate 100,000-character answers of
``benchmarks/reading.py`` (marker openers before long white-space runs, bracket runs, nested ``<think>`` tags …)
are all read by every reader in a child process within a bound that a quadratic reader misses by far (one such
answer took minutes), and the result lists every reader and every case."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
SIZE = 100_000
BOUND_SECONDS = 900  # a linear run takes about 10 CPU seconds; one quadratic case alone takes minutes


@pytest.mark.slow
def test_every_reader_reads_every_degenerate_answer_of_100k_characters(tmp_path):
    env = {**os.environ, "BEDISCOVER_BENCH_RESULTS": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(BENCH / "reading.py"), "--sizes", str(SIZE), "--out", "reading"],
        capture_output=True,
        text=True,
        timeout=BOUND_SECONDS,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "reading.json").read_text())
    entry = result["sizes"][str(SIZE)]
    sys.path.insert(0, str(BENCH))
    try:
        import reading
    finally:
        sys.path.remove(str(BENCH))
    assert entry["cases"] == len(reading.degenerate_inputs(SIZE)) >= 60
    assert set(entry["readers"]) == {
        "label (Just)",
        "label (TBD)",
        "sentence order",
        "ToT answer",
        "dialogue relations",
    }


def test_degenerate_inputs_have_the_requested_length():
    sys.path.insert(0, str(BENCH))
    try:
        import reading
    finally:
        sys.path.remove(str(BENCH))
    lengths = {case: len(text) for case, text in reading.degenerate_inputs(1000).items()}
    assert all(900 <= n <= 1100 for n in lengths.values()), lengths
