"""Data loading per task: cold (fresh process) and warm (same process, again) task building.

    python benchmarks/data_loading.py [--repeats 3] [--tasks a,b] [--out data_loading]

Each repeat is a fresh child process that imports the task module (``import_s``), builds the task once from the
data root — reading, checking and converting every record of the paper subset (``cold_build_s``) — then builds
it twice more in the same process (``warm_build_s``, the median of the two; whatever the task caches in-process
shows here). Figures are medians over repeats. Writes ``results/data_loading.json``.
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from _common import PAPER_TASK_ARGS, TASKS, WORK_DIR, data_dir, median, run_child, write_result  # noqa: E402


def child(task: str, report: str) -> None:
    """In a fresh process: time the import, one cold build and two warm builds of ``task``; write a report."""
    import importlib

    fn = getattr(importlib.import_module(f"bediscover_inspect.{task}.task"), task)
    t_import = time.perf_counter()
    built = fn(**PAPER_TASK_ARGS[task], data_dir=data_dir())
    t_cold = time.perf_counter()
    warm = []
    for _ in range(2):
        start = time.perf_counter()
        fn(**PAPER_TASK_ARGS[task], data_dir=data_dir())
        warm.append(time.perf_counter() - start)
    Path(report).write_text(
        json.dumps(
            {
                "import_s": t_import - T0,
                "cold_build_s": t_cold - t_import,
                "warm_build_s": sorted(warm)[0],
                "warm_build_all_s": warm,
                "samples": len(built.dataset),
            }
        )
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Measure every selected task and write ``results/data_loading.json``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--out", default="data_loading", help="result file name (benchmarks/results/)")
    parser.add_argument("--child", nargs=2, metavar=("TASK", "REPORT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return {}
    results = []
    for task in [t.strip() for t in args.tasks.split(",") if t.strip()]:
        runs = []
        for r in range(args.repeats):
            report = WORK_DIR / "data_loading" / f"{task}_{r}.json"
            res = run_child([__file__, "--child", task, str(report)], report)
            if res.returncode != 0 or not res.report:
                raise RuntimeError(f"{task}: child failed\n{res.stderr_tail}")
            runs.append({**res.report, "peak_rss_mb": res.peak_rss_mb, "wall_s": res.wall_s})
        row = {"task": task, "samples": runs[0]["samples"], "repeats": args.repeats}
        for key in ("import_s", "cold_build_s", "warm_build_s", "peak_rss_mb", "wall_s"):
            row[key] = median([run[key] for run in runs])
        row["cold_ms_per_sample"] = 1000 * row["cold_build_s"] / max(row["samples"], 1)
        results.append(row)
        print(
            f"{task:22s} samples={row['samples']:6d} import {row['import_s']:.2f}s  cold build "
            f"{row['cold_build_s']:.3f}s  warm build {row['warm_build_s']:.3f}s  peak RSS {row['peak_rss_mb']:.0f} MB",
            flush=True,
        )
    path = write_result(args.out, {"tasks": results})
    print(f"wrote {path}")
    return {"tasks": results}


if __name__ == "__main__":
    main(sys.argv[1:])
