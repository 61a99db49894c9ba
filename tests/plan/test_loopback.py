"""The plan against what a run sends: the benchmarks' loopback OpenAI-compatible server counts usage with the
same count its ``/tokenize`` gives the plan (vLLM's endpoint), so planned calls and prompt tokens are compared
with the logged ones exactly; incremental dialogue parsing's prompts carry the model's own predictions where the
plan puts the gold structure, so they are compared within a stated margin."""

from __future__ import annotations

import json
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bediscover_inspect.cli import main
from bediscover_inspect.split import cell_of

REPO_ROOT = Path(__file__).resolve().parents[2]

DIALOGUE_MARGIN = 0.05
"""Planned vs logged prompt tokens of incremental dialogue parsing: within 5 % (the loopback model's predicted
relations against the gold ones; measured 2.5 % on STAC)."""


@pytest.fixture()
def server(monkeypatch) -> Iterator[tuple[str, str]]:
    """The loopback model server (no latency) and the model name; its URL in ``BENCH_BASE_URL``."""
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    try:
        import model_server
    finally:
        sys.path.remove(str(REPO_ROOT / "benchmarks"))
    with model_server.serve(slots=8, latency=model_server.Latency(0.0, 0.0)) as served:
        monkeypatch.setenv("BENCH_BASE_URL", served.base_url)
        monkeypatch.setenv("BENCH_API_KEY", "bench")
        yield served.base_url, model_server.INSPECT_MODEL


def _stats(base_url: str, path: str = "/stats", data: bytes | None = None) -> dict:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + path, data=data, timeout=30) as response:
        return json.loads(response.read())


def _plan(capsys, args: list[str]) -> dict:
    capsys.readouterr()
    assert main(["plan", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_planned_calls_and_prompt_tokens_equal_the_logged_ones(server, tmp_path, capsys):
    base_url, model = server
    args = ["--model", model, "--seeds", "0", "--limit", "2", "--log-dir", str(tmp_path)]
    args += ["-T", "dialogue_parsing.dataset=stac", "-T", "discourse_relations.dataset=deu.rst.pcc"]
    plan = _plan(capsys, args)
    assert plan["tokenizer"].startswith("vLLM /tokenize at http://127.0.0.1:")
    assert main(["run", *args, "--display", "none"]) == 0
    assert capsys.readouterr().out.startswith(f"bediscover run: plan: 10 evals, {plan['samples']} samples")
    assert _stats(base_url)["requests"] == plan["calls"]
    seen = set()
    for info in list_eval_logs(str(tmp_path)):
        log = read_eval_log(info)
        cell = cell_of(log)
        seen.add(cell)
        rows = [r for r in plan["rows"] if (r["task"], r["reasoning"], r["seed"]) == cell]
        calls = sum(1 for sample in log.samples or [] for event in sample.events if event.event == "model")
        logged = sum(usage.input_tokens for usage in log.stats.model_usage.values())
        planned = sum(r["prompt_tokens"] for r in rows)
        assert calls == sum(r["calls"] for r in rows), cell
        if cell[0] == "dialogue_parsing":
            assert abs(planned - logged) <= DIALOGUE_MARGIN * logged, (cell, planned, logged)
        else:
            assert planned == logged, cell
    assert len(seen) == 10
