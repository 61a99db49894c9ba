"""The whole paper subset in one process: wall time, peak RSS, scorer time per sample, report building time.

    .venv/bin/python benchmarks/paper_run.py [--limit N] [--tasks a,b] [--skip-report]

One child process evaluates every task on every dataset the data root holds (paper subset; dialogue parsing
incremental) in a single ``eval()`` call under the scripted mockllm (seed 0), as a researcher's run of the suite
would, minus the model. The parent measures the child's wall time (spawn to exit) and peak RSS (``ru_maxrss``),
then reads each log for the per-sample time spent in the ``scorers`` span, then times
``bediscover report --log-dir <logs>`` as another child. ``--limit`` (samples per task) is for smoke tests.
Goals (issue 8): at most 10 minutes and 1.5 GB on 2 cores. Writes ``results/paper_run.json`` (or ``--out``).
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from _common import (  # noqa: E402
    PAPER_TASK_ARGS, TASKS, WORK_DIR, data_dir, median, run_child, scorer_span_seconds, scripted_model,
    write_result,
)

GOAL_SECONDS = 600.0
GOAL_RSS_MB = 1536.0


def child(report: str, log_dir: str, limit: int, tasks: list[str]) -> None:
    """In a fresh process: build the tasks and run them in one ``eval()``; write the inner timings."""
    import importlib

    from inspect_ai import eval

    fns = [getattr(importlib.import_module(f"bediscover_inspect.{t}.task"), t) for t in tasks]
    t_import = time.perf_counter()
    built = [fn(**PAPER_TASK_ARGS[t], data_dir=data_dir()) for fn, t in zip(fns, tasks)]
    t_build = time.perf_counter()
    logs = eval(built, model=scripted_model(), limit=limit or None, seed=0, log_dir=log_dir, display="none",
                log_level="warning")
    t_eval = time.perf_counter()
    Path(report).write_text(json.dumps({
        "import_s": t_import - T0, "build_s": t_build - t_import, "eval_s": t_eval - t_build,
        "logs": [{"task": t, "location": log.location, "status": log.status,
                  "samples": log.results.completed_samples if log.results else 0,
                  "error": log.error.message if log.error else None} for t, log in zip(tasks, logs)],
    }))


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile (0..1) of ``values`` by nearest rank (``nan`` when empty)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the whole paper subset in a child, then the report; write the result JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="samples per task (0 = all)")
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--skip-report", action="store_true", help="do not time `bediscover report`")
    parser.add_argument("--skip-scorer-spans", action="store_true",
                        help="do not read the logs for per-sample scorer time (minutes on the full logs)")
    parser.add_argument("--out", default="paper_run", help="result name under results/")
    parser.add_argument("--child", nargs=3, metavar=("REPORT", "LOG_DIR", "LIMIT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]), tasks)
        return {}
    work = WORK_DIR / args.out
    shutil.rmtree(work, ignore_errors=True)
    log_dir = work / "logs"
    report = work / "child.json"
    res = run_child([__file__, "--child", str(report), str(log_dir), str(args.limit), "--tasks", ",".join(tasks)],
                    report)
    logs = res.report.get("logs") or []
    if res.returncode != 0 or not logs:
        raise RuntimeError(f"paper run failed (exit {res.returncode})\n{res.stderr_tail}")
    per_task = []
    for log in logs:
        spans = [] if args.skip_scorer_spans else scorer_span_seconds(log["location"])
        per_task.append({**log, "scorer_ms_median": 1000 * median(spans), "scorer_ms_p95": 1000 * percentile(spans, 0.95),
                         "scorer_ms_max": 1000 * max(spans, default=float("nan"))})
    samples = sum(log["samples"] for log in logs)
    result: dict[str, Any] = {
        "limit": args.limit, "samples": samples, "wall_s": res.wall_s, "cpu_s": getattr(res, "cpu_s", None),
        "peak_rss_mb": res.peak_rss_mb, "import_s": res.report["import_s"], "build_s": res.report["build_s"], "eval_s": res.report["eval_s"],
        "ms_per_sample": 1000 * res.report["eval_s"] / max(samples, 1),
        "goal_seconds": GOAL_SECONDS, "goal_rss_mb": GOAL_RSS_MB,
        "time_goal_met": res.wall_s <= GOAL_SECONDS, "rss_goal_met": res.peak_rss_mb <= GOAL_RSS_MB,
        "log_mb": sum(Path(log["location"]).stat().st_size for log in logs) / 2**20,
        "tasks": per_task,
    }
    print(f"paper run: {samples} samples in {res.wall_s:.1f}s wall (eval {res.report['eval_s']:.1f}s), "
          f"peak RSS {res.peak_rss_mb:.0f} MB", flush=True)
    for row in per_task:
        print(f"  {row['task']:22s} {row['status']:8s} samples={row['samples']:6d} scorer ms/sample median "
              f"{row['scorer_ms_median']:.2f} p95 {row['scorer_ms_p95']:.2f}", flush=True)
    if not args.skip_report:
        rep_json = work / "report_child.json"
        rep = run_child(["-m", "bediscover_inspect.cli", "report", "--log-dir", str(log_dir), "--out",
                         str(work / "report")], rep_json)
        result["report"] = {"wall_s": rep.wall_s, "peak_rss_mb": rep.peak_rss_mb, "returncode": rep.returncode,
                            "stderr_tail": rep.stderr_tail[-500:] if rep.returncode else ""}
        print(f"bediscover report: exit {rep.returncode}, {rep.wall_s:.1f}s, peak RSS {rep.peak_rss_mb:.0f} MB",
              flush=True)
    path = write_result(args.out, result)
    print(f"wrote {path}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
