"""The table ``bediscover run`` ends with, and the seed column for ``evals_df``, on real logs of the first four
Otherwise items (gold: Argumentation, Exception, Exception, Exception) answered by a fixed solver, seeds 0 and 1."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.analysis import EvalColumns, evals_df
from inspect_ai.solver import TaskState

from bediscover_inspect.analysis import EvalSeed
from bediscover_inspect.cli import build_tasks
from bediscover_inspect.run_summary import format_table, summary_rows
from tests.helpers import answer_with, run_eval

ANSWERS = {0: "Argumentation", 1: "Exception", 2: "I cannot tell.", 3: "Consequence"}
"""Item -> answer: two right, one unreadable, one wrong label."""


def _answer(state: TaskState) -> str:
    return ANSWERS[int(str(state.sample_id).rsplit("_", 1)[1])]


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> tuple[Path, list]:
    """Two evals as ``bediscover run`` builds them (the seed in the task's generate config)."""
    log_dir = tmp_path_factory.mktemp("logs")
    args = {"dataset": "otherwise", "per_dataset": 4}
    tasks = build_tasks(["discourse_markers"], [0, 1], [False], "paper", args, model="mockllm/model")
    logs = run_eval(tasks, model="mockllm/model", solver=answer_with(_answer), display="none", log_dir=str(log_dir))
    assert [log.status for log in logs] == ["success", "success"]
    return log_dir, logs


def test_a_row_per_dataset_with_the_headline_by_name(logs):
    """accuracy of [1, 1, 0, 0] = 0.5, its standard error sample-std/√n = √(1/3)/2 = 0.2887; invalid 1 of 4."""
    log_dir, evals = logs
    [row] = summary_rows(evals[0], str(log_dir))
    assert row["task"] == "discourse_markers" and row["dataset"] == "otherwise" and row["measure"] == "accuracy"
    assert row["headline"] == pytest.approx(0.5)
    assert row["headline_stderr"] == pytest.approx((1 / 3) ** 0.5 / 2)
    assert row["invalid"] == pytest.approx(0.25)
    assert row["samples"] == 4 and row["reasoning"] is False
    assert row["log"] == Path(evals[0].location).name
    # Table 7's max_tokens (2048, the preset sent for any other model, reasoning off) agrees; per_dataset departs
    assert row["differs"] == "samples: only the first 4 of each dataset (-T per_dataset=4)"


def test_the_table_has_one_line_per_eval_and_dataset(logs):
    log_dir, evals = logs
    table, left_out = format_table(list(reversed(evals)), str(log_dir))
    lines = table.splitlines()
    assert left_out == []
    assert lines[0].split() == ["task", "setting", "dataset", "headline", "invalid", "cut", "off", "samples", "log"] + [
        "differs"
    ]
    assert [line.split()[:13] for line in lines[1:3]] == [
        ["discourse_markers", "seed", f"{seed},", "reasoning", "off", "otherwise"]
        + ["accuracy", "50.0", "±", "28.9", "%", "25.0%", "0.0%"]
        for seed in (0, 1)
    ]
    assert lines[1].split()[13:15] == ["4", Path(evals[0].location).name]
    assert lines[1].endswith("  samples: only the first 4 of each dataset (-T per_dataset=4)")
    assert lines[3] == (
        "± is the headline's standard error over the samples; differs: how the run departs from the paper's setting"
    )
    assert len(lines) == 4


def test_evals_df_tells_the_seeds_apart(logs):
    """``bediscover run`` puts the seed in each task's generate config; the ``seed`` column reads it from there."""
    log_dir, _ = logs
    df = evals_df(str(log_dir), columns=EvalColumns + EvalSeed, quiet=True)
    assert sorted(df["seed"]) == [0, 1]


@pytest.mark.slow
def test_the_run_prints_the_table_and_no_metric_dump(tmp_path):
    """``bediscover run`` in the plain display: Inspect's panel per eval keeps its stats but lists no metric, and the
    run ends with the table (header, one row, closing line)."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT

    log_dir = tmp_path / "logs"
    cmd = [sys.executable, "-m", "bediscover_inspect.cli", "run", "--model", "mockllm/model", "--tasks"]
    cmd += ["discourse_markers", "--seeds", "0", "--reasoning", "off", "--limit", "2", "--display", "plain"]
    cmd += ["-T", "dataset=otherwise", "--log-dir", str(log_dir)]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, env=os.environ, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert not [line for line in lines if "accuracy_stderr" in line or "weighted_f1" in line]
    assert "total time:" in proc.stdout  # Inspect's panel is still there
    header = next(i for i, line in enumerate(lines) if line.startswith("task "))
    assert lines[header + 1].split()[:7] == [
        "discourse_markers",
        "seed",
        "0,",
        "reasoning",
        "off",
        "otherwise",
        "accuracy",
    ]
    assert lines[header + 1].endswith("  samples: 2 of 294 scored (--limit 2), 2 of them otherwise")
    assert lines[header + 2].startswith("± is the headline's standard error over the samples; differs:")
    # then the plan's figures beside the actual ones (mockllm answers every call) and the closing line
    assert lines[header + 4].split() == ["planned", "actual"]
    assert lines[header + 5].split() == ["calls", "2", "2"]
    assert lines[-1].startswith("bediscover run: 1/1 evals complete")


def test_a_run_in_the_papers_setting_has_no_differs_column(logs):
    """The same log without ``-T per_dataset`` (its 4 samples are then the whole dataset it built, Table 7's 2048
    tokens sent): nothing departs from the paper, so no ``differs`` column; the line under the rows defines ±."""
    log_dir, evals = logs
    log = evals[0].model_copy(deep=True)
    log.eval.task_args = {k: v for k, v in log.eval.task_args.items() if k != "per_dataset"}
    [row] = summary_rows(log, str(log_dir))
    assert row["differs"] == ""
    table, _ = format_table([log], str(log_dir))
    lines = table.splitlines()
    assert lines[0].split() == ["task", "setting", "dataset", "headline", "invalid", "cut", "off", "samples", "log"]
    assert lines[-1] == "± is the headline's standard error over the samples"
