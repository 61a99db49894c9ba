"""A real run against a loopback OpenAI-compatible server that starts returning malformed JSON mid-run: the run
finishes (``fail_on_error=False``) with most samples errored, and the gate says the comparison is incomplete."""

from __future__ import annotations

from pathlib import Path

import pytest

from bediscover_inspect.gate.compare import compare
from tests.gate.loopback_server import run_loopback

SAMPLES = 40
GOOD = 5


def _run(tmp_path: Path, good: int, log_dir: Path, monkeypatch) -> Path:
    log = run_loopback(tmp_path / f"port-{good}", monkeypatch, [str(good), "Answer: so"], log_dir, SAMPLES)
    assert log.status == "success"
    return log_dir


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_a_run_whose_server_broke_mid_run_is_incomplete(tmp_path, monkeypatch):
    clean = _run(tmp_path, 10**6, tmp_path / "clean", monkeypatch)
    broken = _run(tmp_path, GOOD, tmp_path / "broken", monkeypatch)
    result = compare(clean, broken)
    assert result.coverage.problems["candidate"]["errored"] == SAMPLES - GOOD
    assert (result.coverage.asked, result.coverage.paired) == (SAMPLES, GOOD)
    [line] = result.incomplete
    assert f"{SAMPLES - GOOD} of {SAMPLES} samples errored" in line and result.exit_code() == 3
    assert compare(clean, clean).exit_code() == 0
