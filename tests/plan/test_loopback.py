"""The plan against what a run sends: the benchmarks' loopback OpenAI-compatible server counts usage with the
same count its ``/tokenize`` gives the plan (vLLM's endpoint), so planned calls and prompt tokens are compared
with the logged ones exactly; incremental dialogue parsing's prompts carry the model's own predictions where the
plan puts the gold structure, so they are compared within a stated margin."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bediscover_inspect.cli import main
from bediscover_inspect.split import cell_of

from .conftest import loopback

DIALOGUE_MARGIN = 0.05
"""Planned vs logged prompt tokens of incremental dialogue parsing: within 5 % (the loopback model's predicted
relations against the gold ones; measured 2.5 % on STAC)."""


def _stats(base_url: str, path: str = "/stats", data: bytes | None = None) -> dict:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + path, data=data, timeout=30) as response:
        return json.loads(response.read())


def _plan(capsys, args: list[str]) -> dict:
    capsys.readouterr()
    assert main(["plan", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_planned_calls_and_prompt_tokens_equal_the_logged_ones(server, tmp_path, capsys):
    base_url, model = server
    args = ["--model", model, "--model-base-url", base_url, "--seeds", "0", "--limit", "2", "--log-dir", str(tmp_path)]
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


@pytest.mark.slow
def test_a_resume_plan_counts_the_samples_the_resume_asks_for(tmp_path, monkeypatch, capsys):
    """A run stopped by Ctrl-C while its 5th call is in flight, the plan of the same command, then the resume: the
    plan counts the finished samples (at least one, the in-flight one not among them), and the server answers exactly
    the plan's calls, one per unfinished sample. The run that is stopped is a process of its own; the plan and the
    resume run in the test's process."""
    args = ["--tasks", "temporal_reasoning", "--reasoning", "off"]
    args += ["--seeds", "0", "--limit", "12", "-T", "dataset=tot-arithmetic", "--log-dir", str(tmp_path)]
    args += ["--max-connections", "1"]
    with loopback(monkeypatch, fixed_s=0.25, slots=1) as (base_url, model):
        args = ["--model", model, "--model-base-url", base_url, *args]
        cli = [sys.executable, "-m", "bediscover_inspect.cli"]
        proc = subprocess.Popen([*cli, "run", *args, "--display", "none"], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 600  # the run's start-up (importing Inspect) is slow on a loaded machine
        while _stats(base_url)["requests"] < 5 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _stats(base_url)["requests"] >= 5, "the run did not reach its 5th call"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) == 130
        plan = _plan(capsys, args)
        assert 1 <= plan["samples_done"] < 12
        assert plan["calls"] == 12 - plan["samples_done"]
        _stats(base_url, "/reset", b"")
        assert main(["run", *args, "--display", "none"]) == 0, capsys.readouterr()
        assert _stats(base_url)["requests"] == plan["calls"]


@pytest.mark.slow
def test_expected_output_from_logs_is_within_10_percent_of_a_repeat_run(server, tmp_path, capsys):
    """Logs of a run with seed 0 predict the output tokens of the same command with seed 1."""
    base_url, model = server
    args = ["--model", model, "--model-base-url", base_url, "--limit", "4", "--reasoning", "off"]
    args += ["--tasks", "sentence_ordering", "discourse_markers"]
    assert main(["run", *args, "--seeds", "0", "--log-dir", str(tmp_path / "first"), "--display", "none"]) == 0
    repeat = [*args, "--seeds", "1", "--log-dir", str(tmp_path / "repeat")]
    plan = _plan(capsys, [*repeat, "--from-logs", str(tmp_path / "first")])
    assert plan["output_expected"] is not None
    assert main(["run", *repeat, "--display", "none"]) == 0
    logged = sum(
        usage.output_tokens
        for info in list_eval_logs(str(tmp_path / "repeat"))
        for usage in read_eval_log(info, header_only=True).stats.model_usage.values()
    )
    assert abs(plan["output_expected"] - logged) <= 0.10 * logged, (plan["output_expected"], logged)


def test_the_end_of_run_table_gives_the_actual_figures_beside_the_plans(server, tmp_path, capsys):
    """Two samples of sentence ordering: the end-of-run lines give the planned and the actual calls (those the
    server answered), the same, and the same prompt tokens; the output tokens beside the plan's ceiling."""
    base_url, model = server
    args = ["--model", model, "--model-base-url", base_url, "--seeds", "0", "--reasoning", "off", "--limit", "2"]
    args += ["--log-dir", str(tmp_path), "--tasks", "sentence_ordering", "--max-tokens", "100"]
    plan = _plan(capsys, args)
    assert main(["run", *args, "--display", "none"]) == 0
    out = capsys.readouterr().out
    [calls] = [line.split() for line in out.splitlines() if line.startswith("calls ")]
    assert calls == ["calls", str(plan["calls"]), str(_stats(base_url)["requests"])]
    [prompt] = [line.split() for line in out.splitlines() if line.startswith("prompt tokens ")]
    assert prompt[2] == prompt[3] == f"{plan['prompt_tokens']:,}"
    [output] = [line for line in out.splitlines() if line.startswith("output tokens ")]
    assert output.split()[2:4] == [f"{plan['output_ceiling']:,}", "ceiling"]
    [cost] = [line.split() for line in out.splitlines() if line.startswith("cost ")]
    assert cost == ["cost", "not", "priced", "not", "priced"]
