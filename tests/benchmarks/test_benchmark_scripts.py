"""Smoke test of the benchmark scripts: each runs at a tiny size and writes its result file (no timing checks)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    """``run_all.py --quick`` with results and scratch logs in a temporary directory."""
    root = tmp_path_factory.mktemp("bench")
    env = dict(os.environ, BEDISCOVER_BENCH_RESULTS=str(root / "results"), BEDISCOVER_BENCH_WORK=str(root / "work"))
    only = ["overhead", "data_loading", "metric_compute", "live_metrics_row", "dialogue_tokens", "paper_run"]
    if importlib.util.find_spec("llama_cpp") is not None:
        only.append("embedded_model")
    proc = subprocess.run([sys.executable, str(BENCH / "run_all.py"), "--quick", "--only", ",".join(only)],
                          env=env, capture_output=True, text=True, timeout=1800)
    return root / "results", proc


def test_run_all_quick_succeeds(quick_run):
    results, proc = quick_run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.mark.parametrize(
    "name", ["overhead", "data_loading", "metric_compute", "live_metrics_row", "dialogue_tokens", "paper_run"])
def test_result_files_written(quick_run, name):
    results, _ = quick_run
    data = json.loads((results / f"{name}.json").read_text())
    assert data["machine"]["cpus"] >= 1
    code = data["machine"]["code"]
    assert code["package_dir"].endswith("bediscover_inspect") and len(code["commit"]) == 40


def test_result_names_stay_in_the_results_directory(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(BENCH))
    import _common

    monkeypatch.setattr(_common, "RESULTS_DIR", tmp_path / "results")
    for bad in ("../escape", "sub/name", "", ".."):
        with pytest.raises(ValueError, match="plain file name"):
            _common.write_result(bad, {})
    assert _common.write_result("ok", {"x": 1}) == tmp_path / "results" / "ok.json"
    assert _common.write_result("ok.json", {"x": 1}) == tmp_path / "results" / "ok.json"
    with pytest.raises(ValueError, match="plain file name"):
        _common.write_result(".json", {})


def test_overhead_compares_same_samples(quick_run):
    results, _ = quick_run
    data = json.loads((results / "overhead.json").read_text())
    assert {t["task"] for t in data["tasks"]} == {
        "discourse_markers", "temporal_reasoning", "discourse_relations", "sentence_ordering", "dialogue_parsing"}
    for task in data["tasks"]:
        assert task["samples"] > 0 and task["model_calls"] >= task["samples"]
        assert task["ours"]["wall_s"] > 0 and task["bare"]["wall_s"] > 0


def test_live_metrics_row_covers_every_entry_count(quick_run):
    """One row per entry count, from a bare task's single accuracy to discourse_relations' 254 entries."""
    results, _ = quick_run
    rows = json.loads((results / "live_metrics_row.json").read_text())["rows"]
    assert [row["entries"] for row in rows] == [1, 17, 50, 120, 254]
    sizes = [row["metrics_json_bytes"] for row in rows]
    assert sizes == sorted(sizes) and sizes[0] < 300 < 50_000 < sizes[-1]
    assert rows[0]["ratio_to_one_entry"] == 1.0 and all(row["per_event_us"] > 0 for row in rows)
    assert all(row["own_table_per_event_us"] > 0 for row in rows)


def test_live_metrics_table_keeps_the_versioned_row_small(monkeypatch, tmp_path):
    """The what-if buffer stores the live metrics in their own table and reads back the same ``TaskData``; the
    row whose version each write bumps keeps Inspect's empty default, so an event no longer rewrites the metrics."""
    from inspect_ai._display.core.display import TaskDisplayMetric
    from inspect_ai.log import EvalSampleSummary

    monkeypatch.syspath_prepend(str(BENCH))
    from _live_metrics_table import TABLE, own_table_buffer

    metrics = [TaskDisplayMetric(scorer="s", name=f"accuracy/c{i}", value=i / 10) for i in range(3)]
    db = own_table_buffer()(str(tmp_path / "x.eval"), db_dir=tmp_path / "db")
    try:
        db.update_metrics(metrics)
        db.start_sample(EvalSampleSummary(id=1, epoch=1, input="x", target="y"))
        with db._get_connection() as conn:
            data = db._get_task_data(conn)
            row = conn.execute("SELECT version, metrics FROM task_database").fetchone()
            [stored] = conn.execute(f"SELECT metrics FROM {TABLE}").fetchall()
        assert data.metrics == metrics
        assert row["metrics"] == "[]" and [m["value"] for m in json.loads(stored["metrics"])] == [0.0, 0.1, 0.2]
        assert data.version == row["version"] == 3  # created at 1, bumped by the two writes
    finally:
        db.cleanup()


def test_live_metrics_table_reads_a_buffer_written_as_released(monkeypatch, tmp_path):
    """Version skew: the what-if reader falls back to ``task_database.metrics`` of a buffer written by Inspect's own
    class (no ``live_metrics`` table), as the upstream sketch in ``benchmarks/README.md`` proposes."""
    from inspect_ai._display.core.display import TaskDisplayMetric
    from inspect_ai.log._recorders.buffer.database import SampleBufferDatabase

    monkeypatch.syspath_prepend(str(BENCH))
    from _live_metrics_table import own_table_buffer

    metrics = [TaskDisplayMetric(scorer="s", name="accuracy", value=0.5)]
    writer = SampleBufferDatabase(str(tmp_path / "x.eval"), db_dir=tmp_path / "db")
    try:
        writer.update_metrics(metrics)
        with writer._get_connection() as conn:
            data = own_table_buffer()._get_task_data(writer, conn)
        assert data.metrics == metrics and data.version == 2
    finally:
        writer.cleanup()


def test_plot_and_summary_written(quick_run):
    results, _ = quick_run
    assert (results / "dialogue_tokens.png").stat().st_size > 0
    assert "Overhead vs bare Inspect" in (results / "summary.md").read_text()


def test_embedded_model_result(quick_run):
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python not installed")
    results, _ = quick_run
    data = json.loads((results / "embedded_model.json").read_text())
    assert data["samples"] == 1


_EVAL_UNDER_APPLY = """
import json, sys
from _live_metrics_table import TABLE, apply
apply()
from inspect_ai.log._recorders.buffer.database import SampleBufferDatabase
seen = []
patched = SampleBufferDatabase.update_metrics
def spy(self, metrics):
    patched(self, metrics)
    with self._get_connection() as conn:
        seen.append({
            "task_database": conn.execute("SELECT metrics FROM task_database").fetchone()["metrics"],
            "own_table": json.loads(conn.execute(f"SELECT metrics FROM {TABLE}").fetchone()["metrics"]),
            "task_data": [[m.name, m.value] for m in self._get_task_data(conn).metrics],
        })
SampleBufferDatabase.update_metrics = spy
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import accuracy, match
from _common import scripted_model
task = Task(dataset=[Sample(id=i, input="Answer with one label.", target="x") for i in range(1, 4)], scorer=match())
[log] = eval(task, model=scripted_model(lambda messages: "x"), log_dir=sys.argv[1], display="none")
print(json.dumps({"status": log.status, "seen": seen}))
"""


def test_apply_moves_the_live_metrics_of_a_real_eval(tmp_path):
    """Under ``apply()`` an eval with live scores on writes its live metrics to the own table only, and the buffer
    reads them back from there (a test that fails if ``apply`` left Inspect's buffer as released)."""
    sys.path.insert(0, str(BENCH))
    try:
        from _common import child_env
    finally:
        sys.path.remove(str(BENCH))
    proc = subprocess.run([sys.executable, "-c", _EVAL_UNDER_APPLY, str(tmp_path / "logs")], env=child_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["status"] == "success" and out["seen"], out
    for update in out["seen"]:  # values compared as JSON text: a live value may be NaN before any sample is scored
        assert update["task_database"] == "[]"
        assert json.dumps([[m["name"], m["value"]] for m in update["own_table"]]) == json.dumps(update["task_data"])
        assert [name for name, _ in update["task_data"]] == ["accuracy", "stderr"]


@pytest.mark.parametrize("flag, env", [("--no-score-display", "NO_SCORE_DISPLAY_ENV"),
                                       ("--live-metrics-table", "LIVE_METRICS_TABLE_ENV")])
def test_child_switches_are_set_or_cleared_on_every_call(monkeypatch, flag, env):
    """``overhead.main`` sets a children's switch only when asked: a later call in the process does not inherit it."""
    monkeypatch.syspath_prepend(str(BENCH))
    import overhead

    name = getattr(overhead, env)
    monkeypatch.setenv(name, "0")  # restored (removed) at teardown whatever main does
    monkeypatch.setattr(overhead, "write_result", lambda name, data: Path(name))
    monkeypatch.setattr(overhead, "bench_task", lambda *args: pytest.fail("no task was selected"))
    overhead.main(["--tasks", "", flag])
    assert os.environ[name] == "1"
    overhead.main(["--tasks", ""])
    assert name not in os.environ


def test_live_metrics_table_reaches_both_children(tmp_path):
    """``overhead.py --live-metrics-table`` applies the what-if in our child and in the bare one; it is refused
    together with ``--no-score-display`` (no live metrics to move)."""
    env = dict(os.environ, BEDISCOVER_BENCH_RESULTS=str(tmp_path / "results"), BEDISCOVER_BENCH_WORK=str(tmp_path / "w"))
    base = [sys.executable, str(BENCH / "overhead.py"), "--rounds", "1", "--limit", "3", "--tasks", "sentence_ordering",
            "--out", "table", "--live-metrics-table"]
    refused = subprocess.run([*base, "--no-score-display"], env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "cannot be combined" in refused.stderr
    proc = subprocess.run(base, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    data = json.loads((tmp_path / "results" / "table.json").read_text())
    [task] = data["tasks"]
    assert data["live_metrics_table"] is True and data["score_display"] is True
    assert task["runs"]["ours"][0]["live_metrics_table"] is task["runs"]["bare"][0]["live_metrics_table"] is True


def test_overhead_concurrent_mode_measures_both_children(tmp_path):
    """``overhead.py --concurrent`` starts ours and bare together: both are measured, each to its own exit;
    ``--no-score-display`` reaches both children's ``eval()``."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    env = dict(os.environ, BEDISCOVER_BENCH_RESULTS=str(tmp_path / "results"), BEDISCOVER_BENCH_WORK=str(tmp_path / "w"))
    proc = subprocess.run([sys.executable, str(BENCH / "overhead.py"), "--concurrent", "--rounds", "1", "--limit", "5",
                           "--tasks", "sentence_ordering", "--out", "concurrent", "--no-score-display"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    data = json.loads((tmp_path / "results" / "concurrent.json").read_text())
    [task] = data["tasks"]
    assert data["concurrent"] and task["concurrent"] and task["samples"] == 5 and task["model_calls"] == 5
    ours, bare = task["runs"]["ours"][0], task["runs"]["bare"][0]
    assert ours["samples"] == bare["samples"] == 5 and ours["wall_s"] != bare["wall_s"]
    work = tmp_path / "w" / "overhead" / "sentence_ordering"
    assert (work / "calls.json").exists()
    assert data["score_display"] is False and data["live_metrics_table"] is False
    assert ours["live_metrics_table"] is bare["live_metrics_table"] is False
    for kind in ("ours", "bare"):
        [log] = list_eval_logs(str(work / f"logs_{kind}_0"))
        assert read_eval_log(log, header_only=True).eval.config.score_display is False


def test_scripted_answer_reads_the_tasks_real_prompts(monkeypatch):
    """The benchmarks' scripted model answers each task's real prompt as its docstring says (a dialogue turn j gets
    ``QA_PAIR(j-1,j)``, so the structure fed back grows; sentence ordering the identity order)."""
    from inspect_ai.model import ChatMessageUser

    from bediscover_inspect.dialogue_parsing.solver import turn_prompt
    from bediscover_inspect.sentence_ordering.prompts import user_prompt as ordering_prompt

    monkeypatch.syspath_prepend(str(BENCH))
    from _common import scripted_answer

    edus = ["0. A: hi", "1. B: hello", "2. A: wood for sheep?", "3. B: no"]
    for j in (1, 3):
        prompt = turn_prompt(edus, {1: "QA_PAIR(0,1)"}, j)
        assert scripted_answer([ChatMessageUser(content=prompt)]) == f"QA_PAIR({j - 1},{j})"
    ordering = ordering_prompt(["b.", "a.", "c."])
    assert scripted_answer([ChatMessageUser(content=ordering)]) == "<s 1> <s 2> <s 3>"
