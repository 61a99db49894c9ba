"""User errors while a task is built: one line on stderr, exit non-zero, no traceback, whatever the display mode.

``inspect eval`` runs in a subprocess (as a user runs it) with ``mockllm/model`` and tiny data; ``bediscover run``
and the shared checks run in-process.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bediscover_inspect.cli import TaskArgumentError, build_tasks
from bediscover_inspect.tasks import (
    TaskParameterError,
    check_task_args,
    inspect_entries,
    task_parameters,
    warnings_to_stderr,
)
from tests.conftest import REPO_ROOT

DISPLAYS = ("none", "plain", "full")
"""One display mode per way Inspect sets up its console before it builds a task (where these errors arise):
"none" a quiet Rich console, "full" (without a terminal Inspect's "rich" display) a Rich console, "plain" a plain
one. "conversation" sets up the console and display as "full" does until the task is built, and "log" as "plain"
(its display class differs only in what it shows once the task runs), so they take no other path here."""
MISSING_SHA1 = "6b581452bed3aeef16473d01ae1d5163c975654b"  # so/aan-abstract/test_id.jsonl (data manifest)
DM_PARAMETERS = "dataset, prompt, context, subset, data_dir, reasoning, presets, per_dataset"


def inspect_eval(task: str, display: str, *task_args: str, data_root: Path) -> subprocess.CompletedProcess:
    args = [
        sys.executable,
        "-m",
        "inspect_ai",
        "eval",
        task,
        "--model",
        "mockllm/model",
        "--display",
        display,
        "--limit",
        "1",
        "--log-dir",
        os.environ["INSPECT_LOG_DIR"],
    ]
    for arg in task_args:
        args += ["-T", arg]
    env = os.environ | {"BEDISCOVER_DATA_DIR": str(data_root)}
    env.pop("BEDISCOVER_TRACEBACK", None)
    return subprocess.run(args, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)


def the_one_error_line(proc: subprocess.CompletedProcess, warnings: tuple[str, ...] = ()) -> str:
    """The single ``error:`` line of a failed run: exit 1, no traceback, nothing on stdout, and on stderr only
    that line after one ``warning:`` line containing each of ``warnings``."""
    assert proc.returncode == 1, (proc.returncode, proc.stdout[-1500:], proc.stderr[-1500:])
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == len(warnings) + 1 and lines[-1].startswith("error: cannot build task "), proc.stderr
    for line, expected in zip(lines, warnings):
        assert line.startswith("warning: ") and expected in line, proc.stderr
    assert proc.stdout.strip() == "", proc.stdout
    return lines[-1]


@pytest.fixture()
def tiny_root(tmp_path: Path) -> Path:
    """A data root with a malformed nips-abs (record 2 is not JSON) and no aan-abstract."""
    root = tmp_path / "data"
    (root / "so" / "nips-abs").mkdir(parents=True)
    (root / "so" / "nips-abs" / "test_id.jsonl").write_text('{"id": 0}\n{"id": 1, "orig_sents": [\n')
    return root


@pytest.mark.slow
@pytest.mark.parametrize("display", DISPLAYS)
def test_data_errors_are_one_line_on_stderr_in_each_kind_of_display(display, tiny_root):
    line = the_one_error_line(
        inspect_eval("evals/sentence_ordering.py", display, "dataset=aan-abstract", data_root=tiny_root)
    )
    assert f"so/aan-abstract/test_id.jsonl (dataset 'aan-abstract', git blob SHA-1 {MISSING_SHA1}" in line
    assert "Options: pass -T data_dir=DIR or set BEDISCOVER_DATA_DIR=DIR" in line
    line = the_one_error_line(
        inspect_eval("evals/sentence_ordering.py", display, "dataset=nips-abs", data_root=tiny_root),
        warnings=("differs from the pinned 055e2533",),
    )
    assert line.endswith(
        f"{tiny_root}/so/nips-abs/test_id.jsonl, line 2: not valid JSON (Expecting value: column 26)"
    ), line


@pytest.mark.slow
def test_unknown_name_and_bad_value_are_one_line(data_root):
    """One display mode: the line and the exit take the display-independent path the data errors check in each
    kind of display."""
    line = the_one_error_line(inspect_eval("evals/discourse_markers.py", "full", "prompts=def", data_root=data_root))
    assert line.endswith(
        f"unknown parameter 'prompts' (did you mean 'prompt'?) for task 'discourse_markers'; its parameters are: "
        f"{DM_PARAMETERS}"
    ), line
    line = the_one_error_line(inspect_eval("evals/discourse_markers.py", "full", "prompt=deff", data_root=data_root))
    assert line == (
        "error: cannot build task 'discourse_markers' (prompt='deff'): prompt must be one of "
        "['basic', 'def', 'def+exp'], got 'deff'"
    )


@pytest.mark.slow
def test_registered_task_rejects_an_unknown_name(data_root):
    line = the_one_error_line(
        inspect_eval("bediscover_inspect/discourse_markers", "plain", "prompts=def", data_root=data_root)
    )
    assert "unknown parameter 'prompts' (did you mean 'prompt'?) for task 'discourse_markers'" in line


def test_check_task_args_names_the_valid_parameters():
    assert ", ".join(task_parameters("discourse_markers")) == DM_PARAMETERS
    check_task_args("discourse_markers", {"prompt": "def", "dataset": "otherwise"})
    with pytest.raises(
        TaskParameterError,
        match=r"unknown parameters 'prompts' \(did you mean 'prompt'\?\), 'x' for task 'discourse_markers'; "
        rf"its parameters are: {DM_PARAMETERS}$",
    ):
        check_task_args("discourse_markers", {"prompts": "def", "x": 1, "prompt": "def"})


def test_entries_keep_the_task_signature_and_accept_every_name():
    import inspect

    entry = inspect_entries()["discourse_markers"]
    parameters = inspect.signature(entry).parameters
    assert ", ".join(list(parameters)[:-1]) == DM_PARAMETERS
    assert parameters["task_args"].kind is inspect.Parameter.VAR_KEYWORD  # Inspect hands on unknown -T names
    assert entry.__doc__.startswith('Discourse function of "just"')


def test_bediscover_run_rejects_an_unknown_name_with_the_valid_ones():
    with pytest.raises(TaskArgumentError) as err:
        build_tasks(["discourse_markers"], [0], [False], "paper", {"prompts": "def"})
    assert str(err.value) == (
        "cannot build task 'discourse_markers' (prompts='def'): unknown parameter 'prompts' (did you mean "
        f"'prompt'?) for task 'discourse_markers'; its parameters are: {DM_PARAMETERS}"
    )


def test_build_warnings_reach_stderr_once(capsys):
    logger = logging.getLogger("bediscover_inspect.data.select")
    with warnings_to_stderr():
        for _ in range(3):  # e.g. one task per seed: the same skipped datasets
            logger.warning("task: %d of the %d selected datasets are absent and skipped: %s", 1, 2, "roc (x)")
        logger.info("not shown")
    assert capsys.readouterr().err == "warning: task: 1 of the 2 selected datasets are absent and skipped: roc (x)\n"
    assert logging.getLogger("bediscover_inspect").propagate
