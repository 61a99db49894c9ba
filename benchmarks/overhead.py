"""Overhead of each suite task against bare Inspect: wall time and peak RSS ratios, scorer time per sample.

    .venv/bin/python benchmarks/overhead.py [--rounds 3] [--limit 500] [--tasks a,b] [--dialogues 40]
                                            [--concurrent] [--no-score-display] [--live-metrics-table]
                                            [--out overhead]

For each task, rounds of two child processes run one after the other, alternating which goes first
(``--concurrent``: started together, one per core, after one uncounted run of ours that records the calls):

* **ours** — the suite task (paper subset, every dataset the data root has, first ``--limit`` samples; dialogue
  parsing: first ``--dialogues`` dialogues, incremental) under the scripted mockllm;
* **bare** — a plain Inspect task with the same sample ids, the *same message strings* (system + user, recorded
  from our run's model events), the same number of model calls per sample, built-in ``generate()`` (or a
  plain replay loop for multi-call samples) and a trivial exact-match scorer, under the same scripted model.

Wall time is spawn-to-exit of the child (imports and start-up included); "eval" is the time inside ``eval()``.
CPU is the child's user + system seconds (steadier than wall on a shared machine). Peak RSS is the
child's ``ru_maxrss``. Ratios are medians over rounds of the per-round ratios ours / bare; the seconds and MB
printed beside them are medians per field, so they need not divide to the ratio. ``--no-score-display`` runs both
with ``score_display=False`` (no live metrics). ``--live-metrics-table`` runs both with Inspect's live buffer
keeping the live metrics in a table of their own (``_live_metrics_table``: a what-if for the upstream change
proposed in ``benchmarks/README.md``, never part of the suite). Writes ``results/<--out>.json``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from _common import TASKS, WORK_DIR, finish_children, median, run_child, scorer_span_seconds, start_child, write_result
from _eval_child import NO_SCORE_DISPLAY_ENV
from _live_metrics_table import ENV as LIVE_METRICS_TABLE_ENV

CHILD = str(Path(__file__).resolve().parent / "_eval_child.py")


def _check(result: Any, what: str) -> None:
    logs = result.report.get("logs") or []
    if result.returncode != 0 or not logs or any(log["status"] != "success" for log in logs):
        raise RuntimeError(f"{what} failed (exit {result.returncode}): {logs}\n{result.stderr_tail}")


def _record_calls(work: Path, log_location: str, calls_file: Path) -> tuple[int, int]:
    """Extract the model calls of our run's log into ``calls_file``; return (model calls, prompt characters)."""
    calls = run_child([CHILD, "calls", str(work / "calls_report.json"), log_location, str(calls_file)],
                      work / "calls_report.json")
    if calls.returncode != 0:
        raise RuntimeError(f"extracting calls failed: {calls.stderr_tail}")
    return calls.report["calls"], calls.report["prompt_chars"]


def bench_task(task: str, limit: int, rounds: int, concurrent: bool = False) -> dict[str, Any]:
    """Measure one task: ``rounds`` ours/bare pairs; returns per-run figures and median ratios.

    Sequential (default): the two children of a round run one after the other, alternating which goes first.
    ``concurrent``: they are started together, one per core, so both run under the same machine state (on a
    shared machine the speed drifts by ±10 % over minutes); the calls the bare task replays then come from one
    extra run of ours made first and not counted.
    """
    work = WORK_DIR / "overhead" / task
    shutil.rmtree(work, ignore_errors=True)
    calls_file = work / "calls.json"
    runs: dict[str, list[dict[str, Any]]] = {"ours": [], "bare": []}
    scorer_ms: dict[str, float] = {}
    model_calls = prompt_chars = 0

    def child_args(kind: str, r: int) -> tuple[list[str], Path]:
        log_dir = str(work / f"logs_{kind}_{r}")
        report = work / f"{kind}_{r}.json"
        if kind == "ours":
            return [CHILD, "ours", str(report), log_dir, str(limit), task], report
        return [CHILD, "bare", str(report), log_dir, str(calls_file)], report

    if concurrent:
        args, report = child_args("ours", -1)
        res = run_child(args, report)
        _check(res, f"{task} ours (recording the calls)")
        model_calls, prompt_chars = _record_calls(work, res.report["logs"][0]["location"], calls_file)
    for r in range(rounds):
        if concurrent:
            kinds = ("ours", "bare") if r % 2 == 0 else ("bare", "ours")
            done = dict(zip(kinds, finish_children([start_child(*child_args(kind, r)) for kind in kinds])))
        else:
            order = ("ours", "bare") if r % 2 == 0 else ("bare", "ours")
            done = {}
            for kind in order:
                done[kind] = run_child(*child_args(kind, r))
                if kind == "ours" and r == 0:
                    _check(done[kind], f"{task} ours round 0")
                    model_calls, prompt_chars = _record_calls(
                        work, done[kind].report["logs"][0]["location"], calls_file)
        for kind in ("ours", "bare"):
            res = done[kind]
            _check(res, f"{task} {kind} round {r}")
            log = res.report["logs"][0]
            runs[kind].append({
                "wall_s": res.wall_s, "cpu_s": res.cpu_s, "peak_rss_mb": res.peak_rss_mb, "eval_s": res.report["eval_s"],
                "import_s": res.report["import_s"], "build_s": res.report["build_s"], "samples": log["samples"],
                "live_metrics_table": res.report["live_metrics_table"],
            })
            if r == 0:
                scorer_ms[kind] = 1000 * median(scorer_span_seconds(log["location"]))
    ours, bare = runs["ours"], runs["bare"]
    if ours[0]["samples"] != bare[0]["samples"]:
        raise RuntimeError(f"{task}: sample counts differ ({ours[0]['samples']} vs {bare[0]['samples']})")

    def med(kind: str, key: str) -> float:
        return median([run[key] for run in runs[kind]])

    return {
        "task": task,
        "samples": ours[0]["samples"],
        "model_calls": model_calls,
        "prompt_chars": prompt_chars,
        "rounds": rounds,
        "concurrent": concurrent,
        "ours": {k: med("ours", k) for k in ("wall_s", "cpu_s", "eval_s", "peak_rss_mb", "import_s", "build_s")},
        "bare": {k: med("bare", k) for k in ("wall_s", "cpu_s", "eval_s", "peak_rss_mb", "import_s", "build_s")},
        "wall_ratio": median([o["wall_s"] / b["wall_s"] for o, b in zip(ours, bare)]),
        "cpu_ratio": median([o["cpu_s"] / b["cpu_s"] for o, b in zip(ours, bare)]),
        "eval_ratio": median([o["eval_s"] / b["eval_s"] for o, b in zip(ours, bare)]),
        "rss_ratio": median([o["peak_rss_mb"] / b["peak_rss_mb"] for o, b in zip(ours, bare)]),
        "wall_ratio_per_round": [o["wall_s"] / b["wall_s"] for o, b in zip(ours, bare)],
        "scorer_ms_per_sample_median": scorer_ms,
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the overhead benchmark for the selected tasks and write ``results/overhead.json``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="ours/bare pairs per task; ratios are their medians")
    parser.add_argument("--limit", type=int, default=500, help="samples per task (fewer if the task has fewer)")
    parser.add_argument("--dialogues", type=int, default=40, help="dialogues for dialogue_parsing")
    parser.add_argument("--tasks", default=",".join(TASKS), help="comma-separated task names (default: all five)")
    parser.add_argument("--out", default="overhead",
                        help="result file name, .json added (benchmarks/results/ or $BEDISCOVER_BENCH_RESULTS)")
    parser.add_argument("--concurrent", action="store_true",
                        help="start ours and bare together in each round (needs 2 free cores)")
    parser.add_argument("--no-score-display", action="store_true",
                        help="both tasks with score_display=False: no live metrics (Inspect's --no-score-display)")
    parser.add_argument("--live-metrics-table", action="store_true",
                        help="both tasks with the live metrics in their own buffer table (what-if, cause 9; "
                             "not with --no-score-display)")
    args = parser.parse_args(argv)
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = sorted(set(tasks) - set(TASKS))
    if args.live_metrics_table and args.no_score_display:
        parser.error("--live-metrics-table changes where Inspect keeps the live metrics; with --no-score-display "
                     "there are none, so the two cannot be combined")
    if unknown or args.rounds < 1 or args.limit < 1 or args.dialogues < 1:
        parser.error(f"--tasks must name tasks of {list(TASKS)} (unknown: {unknown}); --rounds, --limit and "
                     f"--dialogues must be at least 1 (got {args.rounds}, {args.limit}, {args.dialogues})")
    # set or cleared on every call, so a later call in the same process does not inherit it; every child gets it
    # through _common.child_env, which copies os.environ
    for env, wanted in ((NO_SCORE_DISPLAY_ENV, args.no_score_display),
                        (LIVE_METRICS_TABLE_ENV, args.live_metrics_table)):
        if wanted:
            os.environ[env] = "1"
        else:
            os.environ.pop(env, None)
    mode = [name for name, on in (("concurrent", args.concurrent), ("no-score-display", args.no_score_display),
                                  ("live-metrics-table", args.live_metrics_table)) if on]
    print(f"overhead: {args.rounds} round(s), limit {args.limit}, dialogues {args.dialogues}; "
          f"mode: {', '.join(mode) or 'sequential, Inspect defaults'}", flush=True)
    results = []
    for task in tasks:
        limit = args.dialogues if task == "dialogue_parsing" else args.limit
        res = bench_task(task, limit, args.rounds, args.concurrent)
        results.append(res)
        print(f"{task:22s} n={res['samples']:5d} calls={res['model_calls']:5d}  wall {res['wall_ratio']:.3f}x "
              f"(ours {res['ours']['wall_s']:.1f}s / bare {res['bare']['wall_s']:.1f}s)  cpu {res['cpu_ratio']:.3f}x (ours {res['ours']['cpu_s']:.1f}s / bare {res['bare']['cpu_s']:.1f}s)  eval {res['eval_ratio']:.3f}x"
              f"  rss {res['rss_ratio']:.3f}x ({res['ours']['peak_rss_mb']:.0f} / {res['bare']['peak_rss_mb']:.0f} MB)"
              f"  scorer ms/sample {res['scorer_ms_per_sample_median']}", flush=True)
    path = write_result(args.out, {"goal_ratio": 1.10, "limit": args.limit, "dialogues": args.dialogues,
                                   "concurrent": args.concurrent, "score_display": not args.no_score_display,
                                   "live_metrics_table": args.live_metrics_table,
                                   "tasks": results})
    print(f"wrote {path}")
    return {"tasks": results}


if __name__ == "__main__":
    main(sys.argv[1:])
