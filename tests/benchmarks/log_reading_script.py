"""``benchmarks/log_reading.py`` run as a script at a tiny size, as its tests run it (:func:`run_tiny`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
"""The folder of the benchmark scripts."""


def run_tiny(tmp_path: Path, args: list[str], timeout: int) -> tuple[dict[str, Any], str]:
    """Run ``benchmarks/log_reading.py *args --out tiny`` with its results and work folders under ``tmp_path``;
    returns the results written (``tiny.json``, parsed) and their table (``tiny.md``). Fails the test, with the
    end of the script's output, when the script exits other than 0."""
    env = dict(
        os.environ, BEDISCOVER_BENCH_RESULTS=str(tmp_path / "results"), BEDISCOVER_BENCH_WORK=str(tmp_path / "work")
    )
    proc = subprocess.run(
        [sys.executable, str(BENCH / "log_reading.py"), *args, "--out", "tiny"],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = tmp_path / "results"
    return json.loads((results / "tiny.json").read_text()), (results / "tiny.md").read_text()
