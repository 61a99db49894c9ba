"""The benchmarks' loopback OpenAI-compatible model server for the plan's tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def loopback(monkeypatch: pytest.MonkeyPatch, fixed_s: float = 0.0, slots: int = 8) -> Iterator[tuple[str, str]]:
    """The loopback model server (``fixed_s`` seconds per call, no per-token latency, ``slots`` calls at a time), its URL in
    ``BENCH_BASE_URL``: yields the base URL and the Inspect model name. A test that runs in-process gives the URL
    with ``--model-base-url`` too: Inspect keeps one model instance per name and base URL in a process, so a model
    made in an earlier test (under xdist, the same worker) would still call that test's server, long gone."""
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    try:
        import model_server
    finally:
        sys.path.remove(str(REPO_ROOT / "benchmarks"))
    with model_server.serve(slots=slots, latency=model_server.Latency(fixed_s, 0.0)) as served:
        monkeypatch.setenv("BENCH_BASE_URL", served.base_url)
        monkeypatch.setenv("BENCH_API_KEY", "bench")
        yield served.base_url, model_server.INSPECT_MODEL


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """The loopback model server without latency, and the model name."""
    with loopback(monkeypatch) as served:
        yield served
