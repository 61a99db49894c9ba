"""A real run against a loopback OpenAI-compatible server that starts returning malformed JSON mid-run: the run
finishes (``fail_on_error=False``) with most samples errored, and the gate says the comparison is incomplete."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from bediscover_inspect.discourse_markers.task import discourse_markers
from bediscover_inspect.gate.compare import compare

SAMPLES = 40
GOOD = 5


def _serve(tmp_path: Path, good: int):
    port_file = tmp_path / f"port-{good}"
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("loopback_server.py")), str(port_file), str(good), "Answer: so"]
    )
    for _ in range(200):
        if port_file.exists() and port_file.read_text():
            return server, int(port_file.read_text())
        time.sleep(0.05)
    server.kill()
    raise AssertionError("the loopback server did not start")


def _run(tmp_path: Path, good: int, log_dir: Path, monkeypatch) -> Path:
    server, port = _serve(tmp_path, good)
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    try:
        [log] = inspect_eval(
            discourse_markers(dataset="otherwise"),
            model="openai/loopback",
            model_base_url=f"http://127.0.0.1:{port}/v1",
            model_args={"responses_api": False},
            limit=SAMPLES,
            max_connections=1,
            max_retries=0,
            timeout=20,
            fail_on_error=False,
            display="none",
            log_dir=str(log_dir),
        )
    finally:
        server.kill()
        server.wait()
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
