"""The suite's own cost: each task against a bare Inspect task on the same samples, under a zero-latency mock.

    python benchmarks/overhead.py [--rounds 3] [--limit 500] [--dialogues 40] [--dialogue-order file]
                                  [--tasks a,b] [--out overhead]

With no model time at all, what is left is the work each side does per sample. For each task, ``--rounds``
rounds of two child processes run one after the other, alternating which goes first (round 0: ours, whose calls
the bare task replays):

* **ours** — the suite task (paper subset, every dataset the data root has, first ``--limit`` samples; dialogue
  parsing: the first ``--dialogues`` dialogues, incremental, in the task's ``--dialogue-order``: by default its
  own, longest first; ``file`` takes STAC's short ones first) under the scripted mockllm of ``_common``;
* **bare** — a plain Inspect task with the same sample ids, the same messages, generate config and number of model
  calls per sample (recorded from our log), built-in ``generate()`` (a plain replay loop for dialogue parsing) and a
  trivial exact-match scorer, under the same scripted model; it never imports the suite.

Figures per task: medians over the rounds of the ratios ours / bare of spawn-to-exit wall time (the goal's
figure), of the time inside ``eval()``, of CPU (user + system) seconds and of peak RSS. Writes
``results/<--out>.json``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import Any

from _common import TASKS, WORK_DIR, write_result
from served import Bench, bench_task

GOAL = 1.3
"""Ours at most 1.3 × bare on the same samples under the zero-latency mock."""


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="ours/bare pairs per task; ratios are their medians")
    parser.add_argument("--limit", type=int, default=500, help="samples per task (fewer if the task has fewer)")
    parser.add_argument("--dialogues", type=int, default=40, help="dialogues for dialogue_parsing")
    parser.add_argument(
        "--dialogue-order",
        choices=["longest-first", "file"],
        default="longest-first",
        help="dialogue parsing's order (its -T order), of which the first --dialogues run",
    )
    parser.add_argument("--tasks", default=",".join(TASKS), help="comma-separated task names (default: all five)")
    parser.add_argument("--out", default="overhead", help="result file name (benchmarks/results/)")
    args = parser.parse_args(argv)
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = sorted(set(tasks) - set(TASKS))
    if unknown or args.rounds < 1 or args.limit < 1 or args.dialogues < 1:
        parser.error(
            f"--tasks must name tasks of {list(TASKS)} (unknown: {unknown}); --rounds, --limit and "
            f"--dialogues must be at least 1"
        )
    work = WORK_DIR / args.out
    shutil.rmtree(work, ignore_errors=True)
    print(f"overhead: {args.rounds} round(s), limit {args.limit}, dialogues {args.dialogues}", flush=True)
    results = []
    for task in tasks:
        limit = args.dialogues if task == "dialogue_parsing" else args.limit
        task_args = [f"order={args.dialogue_order}"] if task == "dialogue_parsing" else []
        bench = Bench(None, 0, None, 0, work / task, task_args=task_args)
        res = bench_task(bench, task, limit, args.rounds, work / task / "calls.json")
        results.append(res)
        r = res["ratios"]
        print(
            f"{task:22s} n={res['samples']:5d}  wall {r['wall_s']:.3f}x  eval {r['eval_s']:.3f}x  "
            f"cpu {r['cpu_s']:.3f}x  rss {r['peak_rss_mb']:.3f}x",
            flush=True,
        )
    path = write_result(
        args.out,
        {
            "goal_ratio": GOAL,
            "limit": args.limit,
            "dialogues": args.dialogues,
            "dialogue_order": args.dialogue_order,
            "rounds": args.rounds,
            "tasks": results,
        },
    )
    print(f"wrote {path}")
    return {"tasks": results}


if __name__ == "__main__":
    main(sys.argv[1:])
