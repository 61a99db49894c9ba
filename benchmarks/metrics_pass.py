"""One full pass of a task's metrics over a log's scores: what Inspect's live scores recompute while a run goes.

    python benchmarks/metrics_pass.py LOG TASK [--src OTHER_SRC] [--repeats 3] [--out metrics_pass]

``LOG`` is an Inspect log file, or a directory whose newest ``.eval`` log is taken.

Inspect recomputes every metric of a running task over all scores so far, on its event loop, and waits
``max(0.9 s, 10 × the pass's time)`` before the next pass: a pass longer than 90 ms holds the loop about 1/11 of
the run, a shorter one ``pass / 0.9 s`` of it. This script times that pass (Inspect's ``eval_results`` over the
log's sample scores, with the task's scorers and metrics) at 10 %, 50 % and 100 % of the samples, in a fresh
process per code tree: the suite as installed and, with ``--src``, another checkout's ``src/`` (e.g. a
``git worktree`` of an earlier commit), one after the other in the same run. ``TASK`` is built with the paper
arguments of ``_common.PAPER_TASK_ARGS``; the log must be one of that task (e.g. an ``ours`` log of
``served.py``). Writes ``results/<--out>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import BENCH_DIR, child_env, write_result

FRACTIONS = (0.1, 0.5, 1.0)


def time_passes(log: str, task_name: str, repeats: int) -> dict[str, Any]:
    """In this process: read the log's scores, build the task, time ``eval_results`` (best of ``repeats``)."""
    import importlib

    from _common import PAPER_TASK_ARGS, data_dir
    from inspect_ai.log import read_eval_log_samples
    from inspect_ai.scorer import SampleScore

    from bediscover_inspect._inspect_compat import eval_results

    module = importlib.import_module(f"bediscover_inspect.{task_name}.task")
    task = getattr(module, task_name)(**PAPER_TASK_ARGS[task_name], data_dir=data_dir(), presets="none")
    scores = [
        {
            name: SampleScore(score=s, sample_id=sample.id, sample_metadata=sample.metadata, scorer=name)
            for name, s in (sample.scores or {}).items()
        }
        for sample in read_eval_log_samples(log, all_samples_required=False)
    ]
    rows = []
    eval_results(len(scores[:10]), scores[:10], task.epochs_reducer, task.scorer, task.metrics)  # lazy imports
    for fraction in FRACTIONS:
        part = scores[: max(1, int(len(scores) * fraction))]
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            results, _ = eval_results(len(part), part, task.epochs_reducer, task.scorer, task.metrics)
            best = min(best, time.perf_counter() - start)
        entries = sum(len(score.metrics) for score in results.scores)
        rows.append({"samples": len(part), "pass_ms": 1000 * best, "entries": entries})
    return {"package": module.__file__, "rows": rows}


def log_file(location: str) -> str:
    """``location`` itself, or the newest ``*.eval`` file in it if it is a directory.

    Raises:
        SystemExit: a directory with no ``.eval`` log, or a path that does not exist.
    """
    path = Path(location)
    if path.is_dir():
        logs = sorted(path.glob("*.eval"), key=lambda p: p.stat().st_mtime)
        if not logs:
            raise SystemExit(f"metrics_pass: no .eval log in {path}")
        return str(logs[-1])
    if not path.exists():
        raise SystemExit(f"metrics_pass: no such log: {path}")
    return location


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Time the pass for the installed suite (and ``--src``) in child processes; print and write the result."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log")
    parser.add_argument("task")
    parser.add_argument("--src", type=Path, help="another checkout's src/ directory, timed after the installed one")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="metrics_pass")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.log = log_file(args.log)
    if args.child:
        print(json.dumps(time_passes(args.log, args.task, args.repeats)))
        return {}
    trees: list[tuple[str, dict[str, str]]] = [("installed", {})]
    if args.src:
        trees.append((str(args.src), {"PYTHONPATH": os.pathsep.join([str(args.src.resolve()), str(BENCH_DIR)])}))
    result: dict[str, Any] = {"log": args.log, "task": args.task, "runs": []}
    for label, extra in trees:
        done = subprocess.run(
            [sys.executable, __file__, args.log, args.task, "--repeats", str(args.repeats), "--child"],
            env=child_env(extra),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"metrics_pass: {label} failed: {done.stderr[-2000:]}")
        run = {"tree": label, **json.loads(done.stdout.strip().splitlines()[-1])}
        result["runs"].append(run)
        for row in run["rows"]:
            print(f"{label:40s} {row['samples']:6d} samples  {row['entries']:4d} entries  {row['pass_ms']:9.1f} ms")
    print(f"wrote {write_result(args.out, result)}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
