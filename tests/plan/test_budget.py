"""``--budget`` on ``plan`` and ``run``, prices from ``--model-cost-config``, and a plan that cannot count or price
saying so instead of printing zeros."""

from __future__ import annotations

import json

from bediscover_inspect.cli import main
from bediscover_inspect.plan.render import EXIT_BUDGET_UNCHECKED, EXIT_OVER_BUDGET

# gpt-5-mini at --reasoning-effort low is Table 7's 4096 output tokens a call; 2 Just-Manual samples, one seed
ARGS = ["--model", "openai/gpt-5-mini", "--reasoning-effort", "low", "--tasks", "discourse_markers"]
ARGS += ["--reasoning", "on", "--seeds", "0", "--limit", "2", "-T", "dataset=just-manual"]


def _prices(tmp_path, input=1.0, output=2.0):
    path = tmp_path / "costs.json"
    entry = {"input": input, "output": output, "input_cache_write": 0.0, "input_cache_read": 0.0}
    path.write_text(json.dumps({"openai/gpt-5-mini": entry}), encoding="utf-8")
    return str(path)


def test_plan_prices_the_ceiling_from_the_cost_file(tmp_path, capsys):
    costs = _prices(tmp_path)
    assert (
        main(["plan", *ARGS, "--log-dir", str(tmp_path / "logs"), "--model-cost-config", costs, "--format", "json"])
        == 0
    )
    plan = json.loads(capsys.readouterr().out)
    assert plan["calls"] == 2 and plan["output_ceiling"] == 2 * 4096
    # USD: prompt tokens at $1 and 8192 output tokens at $2 per million
    assert plan["cost_ceiling"] == (plan["prompt_tokens"] * 1.0 + 8192 * 2.0) / 1e6


def test_plan_over_budget_exits_5_with_one_line(tmp_path, capsys):
    costs = _prices(tmp_path)
    code = main(["plan", *ARGS, "--log-dir", str(tmp_path / "l"), "--model-cost-config", costs, "--budget", "0.01"])
    assert code == EXIT_OVER_BUDGET == 5
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("bediscover plan: over --budget $0.01: ceiling cost $0.02; 1 evals, 2 samples, 2 model")
    assert main(["plan", *ARGS, "--log-dir", str(tmp_path / "l"), "--model-cost-config", costs, "--budget", "1"]) == 0


def test_run_over_budget_refuses_before_any_call(tmp_path, capsys):
    # no API key and no server: the refusal comes before the model is touched
    costs = _prices(tmp_path)
    logs = tmp_path / "logs"
    code = main(["run", *ARGS, "--log-dir", str(logs), "--model-cost-config", costs, "--budget", "0.01"])
    assert code == 5
    captured = capsys.readouterr()
    [line] = captured.err.strip().splitlines()
    assert line.startswith("bediscover run: refused: over --budget $0.01: ceiling cost $0.02; 1 evals, 2 samples")
    assert "output ceiling 8,192 tokens" in line
    assert not logs.exists()


def test_budget_without_prices_cannot_pass(tmp_path, capsys):
    code = main(["run", *ARGS, "--log-dir", str(tmp_path / "logs"), "--budget", "100"])
    assert code == EXIT_BUDGET_UNCHECKED == 6
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("bediscover run: refused: --budget $100.00 cannot be checked: no prices for the model;")


def test_no_tokenizer_and_no_prices_are_said_not_zero(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("NOWHERE_BASE_URL", raising=False)
    args = ["plan", "--model", "openai-api/nowhere/some-model", "--tasks", "discourse_markers", "--seeds", "0"]
    assert main([*args, "--limit", "2", "--log-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "prompt tokens: approximation: 4 characters a token" in out
    assert "prompt tokens (approximate)" in out
    assert "cost ceiling not priced" in out
    assert "note: prompt tokens by approximation: no tokenizer at hand for openai-api/nowhere/some-model" in out
    assert "note: cost not priced: no prices for openai-api/nowhere/some-model (give --model-cost-config FILE)" in out
    assert "$0.00" not in out
