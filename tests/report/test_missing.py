"""``bediscover report`` says what is missing and exits 3 for it (one ``incomplete:`` line each); ``--tasks``
selects tasks; samples are counted as scored, not as asked; a log without a seed and a run of several epochs are
named. Logs of ``tests/gate/suite.py`` (the committed baseline logs' headers, synthetic samples)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import EvalError, read_eval_log, write_eval_log

from bediscover_inspect.cli import main
from bediscover_inspect.run_summary import summary_rows
from tests.gate.suite import task_log, write_suite


def _report(capsys, log_dir: Path, out: Path, *options: str) -> tuple[int, list[str], list[str]]:
    code = main(["report", "--log-dir", str(log_dir), "--out", str(out), "--no-plots", *options])
    captured = capsys.readouterr()
    notes = ("note: no paper model", "note: budget-bound")  # the synthetic logs' model and max_tokens
    err = [line for line in captured.err.splitlines() if not line.startswith(notes)]
    return code, captured.out.splitlines(), err


@pytest.fixture(scope="module")
def two(tmp_path_factory) -> Path:
    return write_suite(tmp_path_factory.mktemp("two"), 6, tasks=("discourse_markers", "sentence_ordering"))


def test_a_complete_directory_exits_0(two, tmp_path, capsys):
    code, out, err = _report(capsys, two, tmp_path / "r")
    assert (code, err) == (0, [])
    # 9 files: cells.csv, a csv and an md per task, 2 class tables, report.md, warnings.txt
    cells = pd.read_csv(tmp_path / "r" / "cells.csv")
    assert set(cells["task"]) == {"discourse_markers", "sentence_ordering"}
    assert out == [f"bediscover report: {len(cells)} cells, 9 files in {tmp_path / 'r'}"]


def test_an_empty_directory_exits_3(tmp_path, capsys):
    (tmp_path / "logs").mkdir()
    code, out, err = _report(capsys, tmp_path / "logs", tmp_path / "r")
    assert (code, out) == (3, [])
    assert err == [
        f"incomplete: no cells: no successful BeDiscovER log under {tmp_path / 'logs'}",
        f"bediscover report: 0 cells, 2 files in {tmp_path / 'r'}; incomplete: 1 thing missing (listed above; exit 3)",
    ]


def test_an_unreadable_log_exits_3_naming_it(two, tmp_path, capsys):
    logs = shutil.copytree(two, tmp_path / "logs")
    broken = logs / "sentence_ordering.eval"
    broken.write_bytes(broken.read_bytes()[:3000])
    code, _, err = _report(capsys, logs, tmp_path / "r")
    assert code == 3 and len(err) == 2
    assert err[0].startswith(f"incomplete: log not used: {broken} (unreadable: ")
    assert not (tmp_path / "r" / "sentence_ordering.md").exists()


def test_tasks_select_and_a_task_or_seed_the_logs_lack_exits_3(two, tmp_path, capsys):
    code, _, err = _report(capsys, two, tmp_path / "so", "--tasks", "sentence_ordering")
    assert (code, err) == (0, [])
    written = sorted(p.name for p in (tmp_path / "so").iterdir())
    assert written == ["cells.csv", "report.md", "sentence_ordering.csv", "sentence_ordering.md", "warnings.txt"]
    assert set(pd.read_csv(tmp_path / "so" / "cells.csv")["task"]) == {"sentence_ordering"}

    code, _, err = _report(capsys, two, tmp_path / "tr", "--tasks", "temporal_reasoning")
    assert (
        code == 3
        and err[0] == f"incomplete: no cells: no successful BeDiscovER log of task temporal_reasoning under {two}"
    )

    code, _, err = _report(capsys, two, tmp_path / "both", "--tasks", "sentence_ordering", "temporal_reasoning")
    assert (
        code == 3 and err[0] == "incomplete: missing task temporal_reasoning for model gguf/smollm2-135m, reasoning off"
    )

    code, _, err = _report(capsys, two, tmp_path / "seeds", "--seeds", "0", "5")
    assert code == 3 and len(err) == 3  # one line per run lacking seed 5, and the closing line
    assert all(line.startswith("incomplete: missing seed(s) [5] for task ") for line in err[:2])


def test_logs_that_never_finished_are_left_out_in_one_line(two, tmp_path, capsys):
    logs = shutil.copytree(two, tmp_path / "logs")
    for task in ("temporal_reasoning", "dialogue_parsing", "discourse_relations", "sentence_ordering"):
        log = task_log(task, 1)
        log.status, log.samples, log.results = "started", [], None
        write_eval_log(log, str(logs / f"started-{task}.eval"))
    code, _, err = _report(capsys, logs, tmp_path / "r")
    assert code == 3 and len(err) == 2
    assert err[0].startswith(
        "incomplete: 3 logs never finished, left out (status started: a run that crashed, was killed or is still "
        "running; the same bediscover run command resumes it): "
    )
    assert err[0].count("started-") == 3 and "started-sentence_ordering" not in err[0]
    superseded = (tmp_path / "r" / "report.md").read_text()
    assert f"{logs / 'started-sentence_ordering.eval'} (superseded: status started" in superseded


def test_samples_are_those_scored_and_the_errored_are_named(tmp_path, capsys):
    log = task_log("discourse_markers", 5)
    first = next(s for s in log.samples if s.metadata["dataset"] == "just-manual")
    first.error = EvalError(message="HTTP 500", traceback="", traceback_ansi="")
    first.scores = None
    log.results.completed_samples = len(log.samples) - 1
    (tmp_path / "logs").mkdir()
    write_eval_log(log, str(tmp_path / "logs" / "dm.eval"))
    assert _report(capsys, tmp_path / "logs", tmp_path / "r")[0] == 0
    cells = pd.read_csv(tmp_path / "r" / "cells.csv")
    accuracy = cells[cells["measure"] == "accuracy"].set_index("group")
    assert accuracy["samples"].to_dict() == {"all": 14, "just-manual": 4, "just-subtitle": 5, "otherwise": 5}
    assert "samples: 14 of 15 scored (--sample-id, 1 ended in error)" in accuracy.loc["all", "differs"]

    rows = summary_rows(read_eval_log(str(tmp_path / "logs" / "dm.eval")))
    assert {row["dataset"]: row["samples"] for row in rows} == {"just-manual": 4, "just-subtitle": 5, "otherwise": 5}
    assert all("1 ended in error" in row["differs"] for row in rows)


def test_a_log_without_a_seed_and_a_run_of_two_epochs_are_named(tmp_path, capsys):
    log = task_log("discourse_markers", 4)
    log.plan.config.seed = None
    log.eval.model_generate_config.seed = None
    log.eval.config.epochs = 2
    (tmp_path / "logs").mkdir()
    write_eval_log(log, str(tmp_path / "logs" / "dm.eval"))
    code, _, err = _report(capsys, tmp_path / "logs", tmp_path / "r")
    assert code == 0
    assert err == [
        "note: seed not recorded: task discourse_markers, model gguf/smollm2-135m, reasoning off, "
        f"context=none,prompt=basic,subset=paper ({tmp_path / 'logs' / 'dm.eval'}: made without --seed, so its run "
        "cannot be repeated exactly; its seeds read 'not recorded')"
    ]
    cells = pd.read_csv(tmp_path / "r" / "cells.csv")
    assert set(cells["seeds"]) == {"not recorded"}
    assert all("epochs: each sample answered 2 times per seed (the paper: once, §3.3)" in d for d in cells["differs"])
