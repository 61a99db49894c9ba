"""``bediscover run --workers/--shard``: the grid's split, the connection limit's split, workers into one log
directory, Ctrl-C with workers and resuming with another number of workers; an eval split by dataset over workers
reports as one process."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import signal
import struct
import subprocess
import sys
import time
import zipfile
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from inspect_ai.log import list_eval_logs, read_eval_log, read_eval_log_async

from bediscover_inspect import workers
from bediscover_inspect.cli import _logs_left, build_tasks, main, run_outcome
from bediscover_inspect.models import health
from bediscover_inspect.report.build import build_report
from bediscover_inspect.run.interrupts import EXIT_INTERRUPTED, RESUME_HINT
from bediscover_inspect.split import balanced_parts, parts_per_eval, plan, split_of
from bediscover_inspect.workers import (
    Part,
    beside_other_writers,
    calls_per_cell,
    connection_shares,
    grid,
    outcome,
    parse_part,
    share,
)

from .slow_runner import run_here

RUNNER = Path(__file__).with_name("slow_runner.py")
REPO = Path(__file__).resolve().parents[2]


def test_parse_part_reads_i_of_n_and_refuses_the_rest():
    assert parse_part("2/4") == Part(2, 4) and str(Part(2, 4)) == "2/4"
    assert parse_part("1/1") == Part(1, 1)
    for bad in ("0/4", "5/4", "2", "a/b", "2/-1", "/3"):
        with pytest.raises(argparse.ArgumentTypeError, match="1 <= i <= n"):
            parse_part(bad)


def test_shards_are_disjoint_and_cover_the_grid_in_build_order():
    cells = grid(["discourse_markers", "sentence_ordering"], [False, True], [0, 1, 42])
    assert cells[:4] == [
        ("discourse_markers", False, 0),
        ("discourse_markers", False, 1),
        ("discourse_markers", False, 42),
        ("discourse_markers", True, 0),
    ]
    assert len(cells) == 12
    for n in range(1, 15):
        parts = [share(cells, Part(i, n)) for i in range(1, n + 1)]
        assert sorted(c for p in parts for c in p) == sorted(cells)  # each eval in exactly one shard
        assert max(map(len, parts)) - min(map(len, parts)) <= 1
    # every 4th eval from the 2nd (indices 1, 5, 9): both tasks and both modes
    assert share(cells, Part(2, 4)) == [
        ("discourse_markers", False, 1),
        ("discourse_markers", True, 42),
        ("sentence_ordering", True, 0),
    ]
    # a shard of a shard (workers on one machine of several) is still a disjoint cover of that shard
    first = share(cells, Part(1, 2))
    assert sorted(share(first, Part(1, 2)) + share(first, Part(2, 2))) == sorted(first)


def test_expected_calls_count_dialogue_turns_and_the_limit():
    cells = grid(["discourse_markers", "dialogue_parsing"], [False], [0, 1])
    names = ["discourse_markers", "dialogue_parsing"]
    args = {"discourse_markers.dataset": "just-manual", "dialogue_parsing.dataset": "stac", "presets": "none"}
    tasks = build_tasks(names, [0], [False], "paper", args, cells=[cells[0], cells[2]])
    stac = [sample.metadata["n_turns"] for sample in tasks[1].dataset]
    assert len(tasks[0].dataset) == 90 and len(stac) == len(tasks[1].dataset)
    assert calls_per_cell(cells, tasks, None) == [90, 90, sum(stac), sum(stac)]
    assert calls_per_cell(cells, tasks, 2) == [2, 2, sum(stac[:2]), sum(stac[:2])]


def test_build_tasks_builds_only_the_cells_it_is_given():
    names, cells = ["sentence_ordering", "discourse_markers"], [("sentence_ordering", False, 1)]
    args = {"sentence_ordering.dataset": "nips-abs", "presets": "none"}
    tasks = build_tasks(names, [0, 1], [False], "paper", args, cells=cells)
    assert [(t.name.rsplit("/", 1)[-1], t.config.seed) for t in tasks] == [("sentence_ordering", 1)]
    # the arguments of every task are checked even when none of its evals is built
    with pytest.raises(ValueError, match="unknown parameter 'bogus' for task 'discourse_markers'"):
        build_tasks(names, [0], [False], "paper", args | {"discourse_markers.bogus": 1}, cells=[])


def test_connections_are_divided_to_the_total_asked_for():
    assert connection_shares(10, 4) == [3, 3, 2, 2]
    assert connection_shares(128, 3) == [43, 43, 42]
    assert connection_shares(2, 2) == [1, 1]
    # by expected calls: 126 spare in proportion 17,792 : 5,242 = 97.33 : 28.67, the larger remainder rounds up
    assert connection_shares(128, 2, [17792, 5242]) == [98, 30]
    assert connection_shares(10, 3, [1, 0, 0]) == [8, 1, 1]  # a worker with nothing to ask still holds one
    assert connection_shares(7, 2, [0, 0]) == [4, 3]  # no loads: equal shares
    with pytest.raises(ValueError, match="non-negative loads"):
        connection_shares(7, 2, [1])
    with pytest.raises(ValueError, match="3 connections cannot be shared by 4 workers"):
        connection_shares(3, 4)


def test_fewer_connections_than_workers_is_one_line_exit_2(tmp_path, capsys):
    argv = ["run", "--model", "mockllm/model", "--tasks", "sentence_ordering", "--seeds", "0", "1", "2"]
    argv += ["--reasoning", "off", "--workers", "3", "--max-connections", "2", "--log-dir", str(tmp_path / "logs")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == "bediscover run: error: --max-connections 2 cannot be shared by 3 workers (each needs one)"


def test_a_shard_beyond_the_grid_has_nothing_to_do(tmp_path, capsys):
    argv = ["run", "--model", "mockllm/model", "--tasks", "sentence_ordering", "--seeds", "0", "--reasoning", "off"]
    assert main([*argv, "--shard", "2/3", "--log-dir", str(tmp_path / "logs")]) == 0
    assert "no evals in shard 2/3" in capsys.readouterr().out
    assert not (tmp_path / "logs").exists()


def _argv(log_dir: str, *extra: str, limit: int = 4) -> list[str]:
    """``bediscover run`` of 2 tasks x 2 seeds (reasoning off) with the offline ``slowmock/model``."""
    argv = ["run", "--model", "slowmock/model", "--tasks", "sentence_ordering", "discourse_markers", "--seeds", "0"]
    argv += ["1", "--reasoning", "off", "--limit", str(limit), "--log-dir", log_dir, "--max-samples", "1"]
    return argv + ["--display", "none", "-T", "sentence_ordering.dataset=nips-abs", *extra]


def _run(
    log_dir: str, counter: Path, delay: float, *extra: str, limit: int = 4, answered: int | None = None
) -> subprocess.Popen:
    """:func:`_argv` in a process of its own, each model call ``delay`` s; with ``answered``, the calls after that
    many held until the test stops the run (``$BEDISCOVER_TEST_ANSWERED``)."""
    env = os.environ | {"BEDISCOVER_TEST_COUNTER": str(counter), "BEDISCOVER_TEST_DELAY": str(delay)}
    env |= {} if answered is None else {"BEDISCOVER_TEST_ANSWERED": str(answered)}
    return subprocess.Popen(
        [sys.executable, str(RUNNER), *_argv(log_dir, *extra, limit=limit)],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _generations(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def _scored(log_dir: str) -> Counter[tuple[str, int, str]]:
    """(task, seed, sample id) -> times scored, over the successful logs."""
    scored: Counter[tuple[str, int, str]] = Counter()
    for info in list_eval_logs(log_dir):
        log = read_eval_log(info)
        if log.status == "success":
            for sample in log.samples or []:
                assert sample.scores, sample.id
                scored[(log.eval.task.rsplit("/", 1)[-1], log.plan.config.seed, str(sample.id))] += 1
    return scored


@pytest.mark.slow
def test_workers_run_every_eval_once_into_one_log_dir_with_the_connections_divided(tmp_path):
    log_dir = tmp_path / "logs"
    proc = _run(str(log_dir), tmp_path / "calls.txt", 0.0, "--workers", "2", "--max-connections", "3", limit=2)
    output = proc.communicate(timeout=600)[0].decode()
    assert proc.returncode == 0, output[-3000:]
    assert output.rstrip().endswith(f"bediscover run: 4/4 evals complete in {log_dir} (2 workers)")
    assert _generations(tmp_path / "calls.txt") == 8
    scored = _scored(str(log_dir))
    assert len(scored) == 8 and set(scored.values()) == {1}
    headers = [read_eval_log(info, header_only=True) for info in list_eval_logs(str(log_dir))]
    # worker 1 ran seed 0 of both tasks with 2 of the 3 connections, worker 2 seed 1 with the other one
    limits = {(h.eval.task.rsplit("/", 1)[-1], h.plan.config.seed): h.plan.config.max_connections for h in headers}
    assert limits == {
        ("sentence_ordering", 0): 2,
        ("discourse_markers", 0): 2,
        ("sentence_ordering", 1): 1,
        ("discourse_markers", 1): 1,
    }
    assert len({h.eval.eval_set_id for h in headers}) == 1  # one eval set, as a single process would make
    listed = json.loads((log_dir / "logs.json").read_text())
    assert len(listed) == 4  # Inspect's viewer listing names every worker's log
    # and its eval-set page every worker's task, as one process's eval set would
    eval_set = json.loads((log_dir / "eval-set.json").read_text())
    assert eval_set["eval_set_id"] == headers[0].eval.eval_set_id
    assert sorted(task["task_id"] for task in eval_set["tasks"]) == sorted(h.eval.task_id for h in headers)


@pytest.mark.slow
def test_ctrl_c_with_workers_exits_130_and_another_worker_count_resumes(tmp_path):
    """SIGINT to the run (as a terminal's Ctrl-C: the first process only) part-way through: every worker stops,
    exit 130 with the resume hint; re-running with 3 workers instead of 2 finishes every eval, each sample scored
    exactly once."""
    log_dir, first, second = tmp_path / "logs", tmp_path / "first.txt", tmp_path / "second.txt"
    proc = _run(str(log_dir), first, 0.0, "--workers", "2", answered=6)
    _wait_for(first, 7, proc)
    os.killpg(proc.pid, signal.SIGINT)
    output = proc.communicate(timeout=180)[0].decode()
    assert proc.returncode == 130, output[-3000:]
    assert "(2 workers); interrupted (re-run the same command to resume" in output
    interrupted_at = _generations(first)
    assert interrupted_at < 16

    proc = _run(str(log_dir), second, 0.0, "--workers", "3")
    output = proc.communicate(timeout=600)[0].decode()
    assert proc.returncode == 0, output[-3000:]
    assert f"bediscover run: 4/4 evals complete in {log_dir} (3 workers)" in output
    assert _generations(second) <= 16 - 1  # finished samples are kept
    scored = _scored(str(log_dir))
    assert len(scored) == 16 and set(scored.values()) == {1}


@pytest.mark.parametrize(("flags", "expected"), [([], False), (["--log-realtime"], True)])
def test_live_sample_buffer_is_off_unless_asked_for(tmp_path, flags, expected):
    """bediscover run runs Inspect without its live sample buffer (log_realtime) unless --log-realtime; the
    samples and scores are in the log either way."""
    log_dir = tmp_path / "logs"
    argv = ["run", "--model", "mockllm/model", "--tasks", "sentence_ordering", "--seeds", "0", "--reasoning", "off"]
    argv += ["--limit", "2", "-T", "dataset=nips-abs", "--log-dir", str(log_dir), "--display", "none", *flags]
    assert main(argv) == 0
    [info] = list_eval_logs(str(log_dir))
    log = read_eval_log(info)
    assert log.eval.config.log_realtime is expected
    assert len(log.samples or []) == 2 and all(sample.scores for sample in log.samples or [])


@pytest.mark.slow
def test_workers_of_a_run_started_with_python_m_start_the_same_way(tmp_path):
    log_dir = tmp_path / "logs"
    cmd = [sys.executable, "-m", "bediscover_inspect.cli", "run", "--model", "mockllm/model", "--workers", "2"]
    cmd += ["--tasks", "sentence_ordering", "--seeds", "0", "1", "--reasoning", "off", "--limit", "1"]
    cmd += ["--log-dir", str(log_dir), "--display", "none", "-T", "sentence_ordering.dataset=nips-abs"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ImportError" not in proc.stderr
    assert proc.stdout.rstrip().endswith(f"bediscover run: 2/2 evals complete in {log_dir} (2 workers)")


def test_an_eval_set_failing_on_a_log_another_worker_is_writing_is_called_again():
    calls = []

    def read_eval_log_async(name):  # named as Inspect's reader: the log another process is rewriting
        raise ValueError(f"EOCD not found in {name}")

    def read_eval_log_sample_summaries_async(name):  # the log another eval set replaced after resuming it
        raise FileNotFoundError(2, "No such file or directory", name)

    def flaky_eval_set(tasks, log_dir):
        calls.append((tasks, log_dir))
        if len(calls) == 1:
            read_eval_log_async("other.eval")
        if len(calls) == 2:
            read_eval_log_sample_summaries_async("replaced.eval")
        return True, ["log"]

    assert beside_other_writers(flaky_eval_set, ["task"], log_dir="logs") == (True, ["log"])
    assert calls == [(["task"], "logs")] * 3

    def bad_config(tasks):
        calls.append(tasks)
        raise ValueError("max_connections must be positive")  # not from reading a log: raised at once

    calls.clear()
    with pytest.raises(ValueError, match="positive"):
        beside_other_writers(bad_config, ["task"])
    assert len(calls) == 1

    def always(tasks):
        calls.append(tasks)
        read_eval_log_async("other.eval")

    calls.clear()
    with pytest.raises(ValueError, match="EOCD"):
        beside_other_writers(always, ["task"], attempts=2)
    assert len(calls) == 2


def _log_read_across_a_replace(path: Path) -> None:
    """Write at ``path`` what Inspect's reader sees of a started log (a sample, then ``_journal/start.json``)
    that its writer replaces by a shorter version between the reader's two reads: the first version's central
    directory, ``start.json`` listed at an offset the file no longer reaches."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("samples/tbd_0000_epoch_1.json", "x" * 5000)
        zf.writestr("_journal/start.json", "{}")
    data = buf.getvalue()
    end_record = data.rindex(b"PK\x05\x06")
    (directory_at,) = struct.unpack_from("<I", data, end_record + 16)
    cut = bytearray(data[directory_at:])  # the central directory alone, now at offset 0
    struct.pack_into("<I", cut, end_record - directory_at + 16, 0)
    path.write_bytes(bytes(cut))


def test_an_eval_set_failing_on_a_log_replaced_between_two_reads_is_called_again(tmp_path):
    """A worker's eval set reads the log another worker replaces (its final, compacted write) between reading
    the central directory and the member: Inspect's reader raises ``struct.error``, and the eval set is called
    again, which reads the finished log."""
    log = tmp_path / "other.eval"
    _log_read_across_a_replace(log)
    calls = []

    def eval_set(tasks, log_dir):
        calls.append((tasks, log_dir))
        if len(calls) == 1:
            asyncio.run(read_eval_log_async(str(log), header_only=True))
        return True, ["log"]

    assert beside_other_writers(eval_set, ["task"], log_dir="logs") == (True, ["log"])
    assert calls == [(["task"], "logs")] * 2
    with pytest.raises(struct.error, match=r"at least 30 bytes .*\(actual buffer size is 0\)"):
        asyncio.run(read_eval_log_async(str(log), header_only=True))  # the state the first call met


def _part_header(part: int, status: str, task_id: str) -> SimpleNamespace:
    """The header fields a run reads of part ``part`` of temporal reasoning split over 2 workers (seed 0,
    reasoning off)."""
    split = {"parts": [["tbd", "tot-arithmetic"], ["tdd-man"]], "part": part}
    metadata = {"parameters": {"reasoning": False}, "split": split}
    eval_spec = SimpleNamespace(task="bediscover_inspect/temporal_reasoning", metadata=metadata, task_id=task_id)
    return SimpleNamespace(
        eval=eval_spec,
        plan=SimpleNamespace(config=SimpleNamespace(seed=0)),
        status=status,
        location=f"logs/2026-12-06T19-59-22-00-00_temporal-reasoning_{task_id}.eval",
    )


def test_a_worker_stopped_by_ctrl_c_counts_its_own_part_not_another_workers_finished_part(monkeypatch):
    """Ctrl-C stops worker 1 (part 1, tbd and tot-arithmetic) after worker 2 finished part 2 of the same eval:
    worker 1's eval set returns no logs, and of the log directory only its own, cancelled part is its outcome."""
    own, other = _part_header(1, "cancelled", "own"), _part_header(2, "success", "other")
    monkeypatch.setattr(workers, "logs_in", lambda log_dir: [other, own])
    piece = ("temporal_reasoning", False, 0, ("tbd", "tot-arithmetic"))
    logs, interrupted = _logs_left("logs", [piece], 1, [], True)
    assert logs == [own] and interrupted
    assert run_outcome(logs, 1, "logs", interrupted)[0] == EXIT_INTERRUPTED
    assert run_outcome(logs, 1, "logs", interrupted)[1].startswith("bediscover run: 0/1 evals complete in logs;")


def test_a_worker_ended_by_the_forwarded_ctrl_c_is_named_as_stopped_by_it_exit_130():
    """Worker 2 had finished its 2 evals and was exiting when the Ctrl-C passed on to it ended it (-2); worker 1
    stopped as a single run does (130)."""
    code, line = outcome([(130, 0), (-signal.SIGINT, 2)], 4, "logs", frozenset({signal.SIGINT}))
    assert code == 130
    assert line == (
        "bediscover run: 2/4 evals complete in logs (2 workers); worker 2/2 stopped by the SIGINT (Ctrl-C) passed"
        f" on to it; interrupted ({RESUME_HINT})"
    )
    # ended by the Ctrl-C alone (every other worker finished): still interrupted, not killed
    code, line = outcome([(0, 2), (-signal.SIGINT, None)], 4, "logs", {signal.SIGINT})
    assert (code, line) == (
        130,
        "bediscover run: 2/4 evals complete in logs (2 workers); worker 2/2 stopped by the SIGINT (Ctrl-C) passed"
        f" on to it; interrupted ({RESUME_HINT})",
    )
    code, line = outcome([(-signal.SIGTERM, 1)], 1, "logs", {signal.SIGTERM})
    assert (code, line) == (
        130,
        "bediscover run: 1/1 evals complete in logs (1 workers); worker 1/1 stopped by the SIGTERM passed on to it;"
        f" interrupted ({RESUME_HINT})",
    )


def test_a_worker_killed_by_a_signal_not_forwarded_keeps_its_likely_cause_exit_1():
    kill = health.cause_and_fix(signal.SIGKILL)
    assert kill.startswith("likely cause: most likely the kernel's out-of-memory killer")
    code, line = outcome([(0, 2), (-signal.SIGKILL, None)], 4, "logs", frozenset())
    assert (code, line) == (
        1,
        f"bediscover run: 2/4 evals complete in logs (2 workers); worker 2/2 was killed by SIGKILL ({kill});"
        f" 2 unfinished ({RESUME_HINT})",
    )
    # a SIGINT the run did not pass on (sent to the worker alone) is still one sent from outside
    outside = "likely cause: it was sent from outside the process (a user, a supervisor, a time limit)"
    assert outcome([(0, 1), (-signal.SIGINT, 0)], 2, "logs") == (
        1,
        f"bediscover run: 1/2 evals complete in logs (2 workers); worker 2/2 was killed by SIGINT ({outside});"
        f" 1 unfinished ({RESUME_HINT})",
    )


def test_forwarded_and_outside_signals_in_one_run_are_each_named_as_such():
    """Worker 1 was killed by SIGKILL, then the user's Ctrl-C ended worker 3 while it started: interrupted, 130."""
    kill = health.cause_and_fix(signal.SIGKILL)
    code, line = outcome([(-signal.SIGKILL, None), (130, 1), (-signal.SIGINT, None)], 6, "logs", {signal.SIGINT})
    assert (code, line) == (
        130,
        f"bediscover run: 1/6 evals complete in logs (3 workers); worker 1/3 was killed by SIGKILL ({kill}); worker"
        f" 3/3 stopped by the SIGINT (Ctrl-C) passed on to it; interrupted ({RESUME_HINT})",
    )


# --------------------------------------------------------------------------------------- split by dataset


def test_balanced_parts_deal_the_largest_dataset_first_to_the_lightest_part():
    # temporal reasoning's paper sizes: ToT 1850 alone, TB-Dense 1515 and TDD-Man 1500 together
    sizes = {"tbd": 1515, "tdd-man": 1500, "tot-arithmetic": 1850}
    assert balanced_parts(sizes, 2) == [("tbd", "tdd-man"), ("tot-arithmetic",)]
    assert balanced_parts(sizes, 3) == [("tbd",), ("tdd-man",), ("tot-arithmetic",)]
    assert balanced_parts(sizes, 8) == [("tbd",), ("tdd-man",), ("tot-arithmetic",)]  # no empty part
    assert balanced_parts({"a": 5, "b": 3, "c": 2, "d": 2}, 2) == [("a", "d"), ("b", "c")]  # 7 and 5
    assert balanced_parts(sizes, 1) == [("tbd", "tdd-man", "tot-arithmetic")]


def test_an_eval_is_split_only_when_the_processes_outnumber_the_evals_and_no_limit_is_given():
    sizes = {"discourse_markers": {"otherwise": 294, "just-subtitle": 149, "just-manual": 90}}
    cells = grid(["discourse_markers"], [False], [0])
    assert parts_per_eval(1, 4, None) == 4 and parts_per_eval(3, 4, None) == 2 and parts_per_eval(4, 4, None) == 1
    assert parts_per_eval(1, 4, 10) == 1  # --limit takes the first N of the whole task: never split
    assert plan(cells, 1, None, sizes.__getitem__, {}) == [("discourse_markers", False, 0, ())]
    assert plan(cells, 2, None, sizes.__getitem__, {}) == [
        ("discourse_markers", False, 0, ("otherwise",)),
        ("discourse_markers", False, 0, ("just-subtitle", "just-manual")),
    ]
    # the log directory decides a re-run: a whole log is not split again, a started split keeps its parts
    started = {("discourse_markers", False, 0): [("otherwise", "just-manual"), ("just-subtitle",)]}
    assert plan(cells, 3, None, sizes.__getitem__, started) == [
        ("discourse_markers", False, 0, ("otherwise", "just-manual")),
        ("discourse_markers", False, 0, ("just-subtitle",)),
    ]
    assert plan(cells, 3, None, sizes.__getitem__, {("discourse_markers", False, 0): None}) == [
        ("discourse_markers", False, 0, ())
    ]


TEMPORAL_ENV = {"BEDISCOVER_TEST_VARIED": "1"}
"""The environment of :func:`_temporal` beside the counter and the delay: the answers vary with the prompt."""


def _temporal_argv(log_dir: Path, *extra: str) -> list[str]:
    """``bediscover run`` of temporal reasoning (3 datasets, 4 samples each), seed 0, reasoning off, with the
    offline ``slowmock/model`` answering by the prompt's CRC-32 (scores differ between samples)."""
    argv = ["run", "--model", "slowmock/model", "--tasks", "temporal_reasoning", "--seeds", "0", "--reasoning"]
    argv += ["off", "-T", "per_dataset=4", "--log-dir", str(log_dir), "--display", "none"]
    return argv + list(extra)


def _temporal(log_dir: Path, counter: Path, *extra: str, answered: int | None = None) -> subprocess.Popen:
    """:func:`_temporal_argv` in a process of its own; with ``answered``, as in :func:`_run`."""
    env = os.environ | {"BEDISCOVER_TEST_COUNTER": str(counter), "BEDISCOVER_TEST_DELAY": "0"}
    env |= {} if answered is None else {"BEDISCOVER_TEST_ANSWERED": str(answered)}
    return subprocess.Popen(
        [sys.executable, str(RUNNER), *_temporal_argv(log_dir, *extra)],
        env=env | TEMPORAL_ENV,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _in_process(argv: list[str], counter: Path, env: dict[str, str] | None = None) -> str:
    """:func:`~tests.cli.slow_runner.run_here`; asserts exit 0 and returns what the run printed."""
    code, output = run_here(argv, counter, env)
    assert code == 0, output[-3000:]
    return output


def _finish(proc: subprocess.Popen) -> str:
    output = proc.communicate(timeout=600)[0].decode()
    assert proc.returncode == 0, output[-3000:]
    return output


def _report_cells(log_dir: Path, out: Path) -> pd.DataFrame:
    cells = build_report(str(log_dir), out, plots=False).cells
    return cells.sort_values(list(cells.columns[:8])).reset_index(drop=True)


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """The report cells of the temporal-reasoning run in one process (no split)."""
    tmp = tmp_path_factory.mktemp("one")
    output = _in_process(_temporal_argv(tmp / "logs"), tmp / "calls.txt", TEMPORAL_ENV)
    assert "1/1 evals complete" in output and _generations(tmp / "calls.txt") == 12
    cells = _report_cells(tmp / "logs", tmp / "report")
    # the answers differ between samples: some cells are neither 0 nor 100
    assert ((cells["mean"] > 0) & (cells["mean"] < 100)).any()
    return cells


@pytest.mark.slow
def test_one_eval_split_over_workers_reports_as_one_process_and_resumes_whole(tmp_path, one_process):
    log_dir, calls = tmp_path / "logs", tmp_path / "calls.txt"
    output = _finish(_temporal(log_dir, calls, "--workers", "3"))
    assert f"bediscover run: 3/3 evals complete in {log_dir} (3 workers)" in output
    assert _generations(calls) == 12
    headers = [read_eval_log(info, header_only=True) for info in list_eval_logs(str(log_dir))]
    parts = sorted(tuple(h.eval.task_args_passed["dataset"]) for h in headers if split_of(h))
    assert parts == [("tbd",), ("tdd-man",), ("tot-arithmetic",)]
    [merged] = [h for h in headers if not split_of(h)]
    assert merged.eval.dataset.samples == 12 and "dataset" not in merged.eval.task_args_passed
    assert merged.eval.metadata["parameters"]["dataset"] == ["tbd", "tdd-man", "tot-arithmetic"]
    pd.testing.assert_frame_equal(_report_cells(log_dir, tmp_path / "report"), one_process)
    # one worker: the log directory's split is kept, so Inspect's eval set finds every part done
    output = _in_process(_temporal_argv(log_dir), calls, TEMPORAL_ENV)
    assert f"bediscover run: 3/3 evals complete in {log_dir}" in output and _generations(calls) == 12


@pytest.mark.slow
def test_a_split_eval_interrupted_resumes_its_parts_with_another_worker_count(tmp_path, one_process):
    log_dir, first, second = tmp_path / "logs", tmp_path / "first.txt", tmp_path / "second.txt"
    proc = _temporal(log_dir, first, "--workers", "2", "--max-samples", "1", answered=4)
    deadline = time.monotonic() + 300
    # both workers' evals under way (each has its log) and 4 samples answered
    while (
        (_generations(first) <= 4 or len(list(log_dir.glob("*.eval"))) < 2)
        and proc.poll() is None
        and time.monotonic() < deadline
    ):
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()[0].decode()[-2000:]
    os.killpg(proc.pid, signal.SIGINT)
    output = proc.communicate(timeout=180)[0].decode()
    assert proc.returncode == 130, output[-3000:]
    assert _generations(first) < 12
    # 3 workers: the log directory's split into 2 parts is kept, so the finished samples are
    output = _finish(_temporal(log_dir, second, "--workers", "3"))
    assert f"bediscover run: 2/2 evals complete in {log_dir} (2 workers)" in output
    assert _generations(second) < 12
    headers = [read_eval_log(info, header_only=True) for info in list_eval_logs(str(log_dir))]
    assert sorted(tuple(h.eval.task_args_passed["dataset"]) for h in headers if split_of(h)) == [
        ("tbd", "tot-arithmetic"),
        ("tdd-man",),
    ]
    merged = [read_eval_log(h.location) for h in headers if not split_of(h) and h.status == "success"]
    assert [sorted(str(s.id) for s in log.samples or []) for log in merged] == [
        sorted(f"{d}_{i:04d}" for d in ("tbd", "tdd-man", "tot-arithmetic") for i in range(4))
    ]
    pd.testing.assert_frame_equal(_report_cells(log_dir, tmp_path / "report"), one_process)


def _wait_for(counter: Path, n: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while _generations(counter) < n and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()[0].decode()[-2000:]


@pytest.mark.slow
def test_sigkill_of_the_parent_stops_its_workers_and_the_lock_holds_until_they_end(tmp_path):
    """SIGKILL of the process that started the workers: each worker stops within seconds (it does not run on as
    an orphan), the log directory stays locked while one lives, and the re-run asks each sample once."""
    import psutil

    from bediscover_inspect.run.lock import LogDirInUse, log_dir_lock

    log_dir, first, second = tmp_path / "logs", tmp_path / "first.txt", tmp_path / "second.txt"
    proc = _run(str(log_dir), first, 1.0, "--workers", "2")
    _wait_for(first, 2, proc)
    kids = psutil.Process(proc.pid).children()
    assert len(kids) == 2
    kids[0].suspend()  # a worker still alive when its parent dies (it stops once it runs again)
    proc.kill()
    proc.wait(timeout=60)  # its output pipe stays open while a worker lives
    with pytest.raises(LogDirInUse, match=rf"in use by the --workers processes of process {proc.pid} on "):
        with log_dir_lock(str(log_dir)):
            pass
    kids[0].resume()
    gone, alive = psutil.wait_procs(kids, timeout=30)
    assert not alive, [p.cmdline() for p in alive]
    proc.communicate(timeout=60)
    asked = _generations(first)
    assert asked < 16  # the workers stopped with the parent: they did not run the evals to their end
    time.sleep(2)
    assert _generations(first) == asked

    output = _in_process(_argv(str(log_dir)), second)  # the lock is free again
    assert f"bediscover run: 4/4 evals complete in {log_dir}" in output
    assert asked + _generations(second) <= 16 + 4  # at most the samples in flight at the kill are asked again
    scored = _scored(str(log_dir))
    assert len(scored) == 16 and set(scored.values()) == {1}


@pytest.mark.slow
def test_a_killed_worker_is_named_and_its_started_log_is_replaced_on_resume(tmp_path):
    import psutil

    log_dir, first, second = tmp_path / "logs", tmp_path / "first.txt", tmp_path / "second.txt"
    proc = _run(str(log_dir), first, 0.5, "--workers", "2")
    _wait_for(first, 4, proc)
    worker = psutil.Process(proc.pid).children()[1]
    worker.kill()
    output = proc.communicate(timeout=300)[0].decode()
    assert proc.returncode == 1, output[-3000:]
    last = output.rstrip().splitlines()[-1]
    assert last.startswith(f"bediscover run: 2/4 evals complete in {log_dir} (2 workers); ")
    assert "; worker 2/2 was killed by SIGKILL (likely cause: most likely the kernel's out-of-memory killer" in last
    assert "; 2 unfinished (re-run the same command to resume" in last
    assert "(started)" in output  # the killed worker's evals: unfinished, shown as such
    statuses = Counter(read_eval_log(i, header_only=True).status for i in list_eval_logs(str(log_dir)))
    assert statuses == {"success": 2, "started": 2}

    output = _in_process(_argv(str(log_dir)), second)  # one process resumes the workers' evals
    assert f"bediscover run: 4/4 evals complete in {log_dir}" in output
    assert "(started)" not in output
    statuses = Counter(read_eval_log(i, header_only=True).status for i in list_eval_logs(str(log_dir)))
    assert statuses == {"success": 4}  # the killed worker's started logs were replaced
    scored = _scored(str(log_dir))
    assert len(scored) == 16 and set(scored.values()) == {1}


@pytest.mark.slow
def test_a_killed_single_runs_started_log_is_replaced_on_resume(tmp_path):
    log_dir, first, second = tmp_path / "logs", tmp_path / "first.txt", tmp_path / "second.txt"
    proc = _run(str(log_dir), first, 0.0, "--max-samples", "1", limit=3, answered=2)
    _wait_for(first, 3, proc)
    proc.kill()
    proc.communicate(timeout=60)
    assert "started" in {read_eval_log(i, header_only=True).status for i in list_eval_logs(str(log_dir))}
    output = _in_process(_argv(str(log_dir), limit=3), second)
    assert f"bediscover run: 4/4 evals complete in {log_dir}" in output
    assert "(started)" not in output
    statuses = [read_eval_log(i, header_only=True).status for i in list_eval_logs(str(log_dir))]
    assert statuses == ["success"] * 4
