"""The plan's wall time: ``--probe N`` times N real calls of the run against the loopback benchmark server (a
fixed latency per call), ``--rate`` bounds it below, and without either the plan says it did not estimate it."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator

import pytest

from bediscover_inspect.cli import main
from tests.plan.conftest import loopback

FIXED_S = 0.2
"""The server's seconds per call (no per-token latency)."""


@pytest.fixture()
def slow_server(monkeypatch) -> Iterator[tuple[str, str]]:
    """The loopback model server at :data:`FIXED_S` seconds per call, and the model name."""
    with loopback(monkeypatch, FIXED_S) as served:
        yield served


def _requests(base_url: str) -> int:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats", timeout=30) as response:
        return int(json.loads(response.read())["requests"])


def _plan(capsys, args: list[str]) -> dict:
    capsys.readouterr()
    assert main(["plan", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


ARGS = ["--tasks", "sentence_ordering", "--reasoning", "off", "--seeds", "0", "1", "--limit", "3"]


def test_probe_times_real_calls_and_divides_by_the_connections(slow_server, tmp_path, capsys):
    base_url, model = slow_server
    args = ["--model", model, "--model-base-url", base_url, *ARGS, "--log-dir", str(tmp_path), "--max-connections", "4"]
    plan = _plan(capsys, [*args, "--probe", "3"])
    assert _requests(base_url) == 3
    assert plan["calls"] == 6  # 3 samples x 2 seeds
    # calls x mean latency / connections, the latency at least the server's 0.2 s and at most 0.2 s + 0.3 s slack
    assert 6 * FIXED_S / 4 <= plan["wall_seconds"] <= 6 * (FIXED_S + 0.3) / 4
    assert "(3 probed calls, the first left out) / 4 connections" in plan["wall_time_basis"]
    # a rate of 30 calls per minute (2 s a call) is slower than the probe: it bounds the time below
    assert _plan(capsys, [*args, "--probe", "1", "--rate", "30"])["wall_seconds"] == 6 * 2.0


def test_rate_alone_and_no_estimate(slow_server, tmp_path, capsys):
    base_url, model = slow_server
    args = ["--model", model, *ARGS, "--log-dir", str(tmp_path)]
    assert _plan(capsys, [*args, "--rate", "120"])["wall_seconds"] == 6 * 0.5
    plan = _plan(capsys, args)
    assert plan["wall_seconds"] is None
    assert plan["wall_time_basis"].startswith("wall time not estimated")
    assert main(["plan", *args]) == 0
    out = capsys.readouterr().out
    assert "wall time not estimated" in out
    assert _requests(base_url) == 0
