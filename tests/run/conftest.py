"""A fault-injecting OpenAI-compatible server (``fault_server.py``) in a child process, and ``bediscover run``
against it, in another process or in this one, with what both saw: exit code, lines printed, requests received,
samples in the logs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import get_model_info

from bediscover_inspect.cli import main
from bediscover_inspect.run import calls

SERVER = Path(__file__).with_name("fault_server.py")
MODEL = "openai-api/fault/fault-model"
"""``--model`` for the fault server (the provider reads ``FAULT_BASE_URL`` and ``FAULT_API_KEY``)."""

SMALL_RUN = ["--tasks", "discourse_markers", "--seeds", "0", "--reasoning", "off", "--limit", "4", "--display", "plain"]
"""Four samples of one eval: the first four of the ``just`` manual set."""

QUICK_BACKOFF = {"initial": 0.05, "max": 0.2, "jitter": 0.05}
"""The wait before a retry of a model call when the server names none, for the runs of these tests: at most 0.2 s
instead of Inspect's 3-6 s, doubling (:data:`bediscover_inspect.run.calls.DEFAULT_BACKOFF`). The tests count
retries and re-asks, not the waits between them; the test of a server's ``Retry-After`` tells it from this
back-off."""


@dataclass
class FaultServer:
    """A running fault server: its base URL and the requests it has received so far."""

    base_url: str
    requests_file: Path
    proc: subprocess.Popen

    def requests(self) -> list[dict]:
        return [json.loads(line) for line in self.requests_file.read_text().splitlines()]

    @property
    def env(self) -> dict[str, str]:
        return {"FAULT_BASE_URL": self.base_url, "FAULT_API_KEY": "test"}


@pytest.fixture
def fault_server(tmp_path: Path) -> Iterator:
    """``fault_server(*args)`` starts a server (``--bad KIND --every N …``) that stops after 150 requests or
    240 s at the latest; every server started is stopped at the end of the test."""
    started: list[subprocess.Popen] = []

    def start(*args: str) -> FaultServer:
        work = tmp_path / f"server{len(started)}"
        work.mkdir()
        port_file, requests_file = work / "port", work / "requests.jsonl"
        proc = subprocess.Popen(
            [sys.executable, str(SERVER), "--port-file", str(port_file), "--requests-file", str(requests_file)]
            + ["--max-requests", "150", "--max-seconds", "240", *args],
            stdout=subprocess.DEVNULL,
        )
        started.append(proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, "the fault server exited at start"
            if port_file.exists() and port_file.read_text():
                url = f"http://127.0.0.1:{port_file.read_text()}/v1"
                try:
                    urllib.request.urlopen(url + "/models", timeout=5).close()
                    return FaultServer(url, requests_file, proc)
                except OSError:
                    pass
            time.sleep(0.05)
        raise AssertionError("the fault server did not start within 60 s")

    yield start
    for proc in started:
        proc.kill()
        proc.wait(timeout=30)


@dataclass
class RunResult:
    """What one ``bediscover run`` printed and left in its log directory."""

    code: int
    lines: list[str]
    samples: Counter = field(default_factory=Counter)
    errors: dict = field(default_factory=dict)
    retries: dict = field(default_factory=dict)
    statuses: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def ours(self) -> list[str]:
        """The lines ``bediscover`` itself printed after its plan line (Inspect's display aside)."""
        return [
            line
            for line in self.lines
            if line.startswith("bediscover ") and not line.startswith("bediscover run: plan: ")
        ]


def free_port() -> int:
    """A loopback port where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def bediscover_run(log_dir: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start ``bediscover run --model MODEL --log-dir log_dir ARGS`` through the console script's entry point."""
    return subprocess.Popen(
        [sys.executable, "-m", "bediscover_inspect.entry", "run", "--model", MODEL, "--log-dir", str(log_dir)]
        + list(args),
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=log_dir.parent,
    )


def finish(proc: subprocess.Popen, log_dir: Path, timeout: float = 900) -> RunResult:
    """Wait for a run started by :func:`bediscover_run` and read its log directory."""
    out, _ = proc.communicate(timeout=timeout)
    return read_results(proc.returncode, out, log_dir)


def read_results(code: int, out: str, log_dir: Path) -> RunResult:
    result = RunResult(code, out.splitlines())
    for info in list_eval_logs(str(log_dir)) if log_dir.exists() else []:
        log = read_eval_log(info)
        result.statuses.append(log.status)
        for sample in log.samples or []:
            key = (log.eval.task, log.plan.config.seed, sample.id, sample.epoch)
            result.samples[key] += 1
            result.retries[key] = len(sample.error_retries or [])
            if sample.error is not None:
                result.errors[key] = sample.error.message
    return result


def run_against(server: FaultServer | None, log_dir: Path, *args: str, env: dict[str, str] | None = None) -> RunResult:
    """``bediscover run`` (:data:`SMALL_RUN` + ``args``) against ``server`` to the end, in this process (a run that
    is sent no signal needs no process of its own): what it printed (stdout and stderr as one stream, as
    :func:`bediscover_run` reads them) and its log directory, with ``env`` and the server's settings set meanwhile,
    and :data:`QUICK_BACKOFF`."""
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(calls, "DEFAULT_BACKOFF", QUICK_BACKOFF)
        for key, value in {**(server.env if server else {}), **(env or {})}.items():
            patch.setenv(key, value)
        # Inspect reads its model database (YAML) at a process's first model call, seconds in a process as large
        # as pytest's: read before the run, so it never counts against a timeout the test sets
        get_model_info(MODEL)
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            code = main(["run", "--model", MODEL, "--log-dir", str(log_dir), *SMALL_RUN, *args])
    return read_results(code, printed.getvalue(), log_dir)
