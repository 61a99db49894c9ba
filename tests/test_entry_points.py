"""The package's inspect_ai entry point and the eval files, driven from the command line as a user would."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bediscover_inspect.evallogs.results import measures_by_group
from tests.conftest import REPO_ROOT


def run_inspect(args: list[str], data_root, tmp_path) -> subprocess.CompletedProcess:
    env = os.environ | {"BEDISCOVER_DATA_DIR": str(data_root)}
    return subprocess.run(
        [sys.executable, "-m", "inspect_ai", *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.mark.slow
def test_registered_task_runs_with_plain_mockllm(data_root, tmp_path):
    proc = run_inspect(
        [
            "eval",
            "bediscover_inspect/sentence_ordering",
            "-T",
            "dataset=nips-abs",
            "--model",
            "mockllm/model",
            "--limit",
            "3",
            "--log-dir",
            str(tmp_path),
            "--display",
            "none",
        ],
        data_root,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    [info] = list_eval_logs(str(tmp_path))
    log = read_eval_log(info)
    assert log.eval.task.endswith("sentence_ordering") and log.status == "success"
    assert log.results.completed_samples == 3
    # mockllm's canned answer has no sentence marker: scored invalid, not dropped
    assert measures_by_group(log)["invalid"]["all"] == 1.0


@pytest.mark.slow
def test_list_tasks_in_evals(data_root, tmp_path):
    proc = run_inspect(["list", "tasks", "evals"], data_root, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "evals/sentence_ordering.py@sentence_ordering" in proc.stdout


def test_every_task_carries_the_report_marker(data_root):
    """`bediscover report` only reads logs whose task metadata names the benchmark (and the task)."""
    from bediscover_inspect.cli import TASK_NAMES, resolve_task

    selectors = {
        "sentence_ordering": {"dataset": "nips-abs"},
        "discourse_relations": {"dataset": "deu.pdtb.pcc"},
        "discourse_markers": {"dataset": "otherwise"},
        "temporal_reasoning": {"dataset": "tdd-man"},
        "dialogue_parsing": {"dataset": "stac"},
    }
    assert set(selectors) == set(TASK_NAMES)
    for name in TASK_NAMES:
        task = resolve_task(name)(**selectors[name])
        assert task.metadata["benchmark"] == "BeDiscovER" and task.metadata["task"] == name, name
