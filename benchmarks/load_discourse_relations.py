"""Load time of Task (3): build the ``discourse_relations`` task over every corpus the data root has.

Goal (issue 5): loading all available DISRPT corpora takes under 5 s on the project machine.

Each repetition runs in a fresh Python process, so nothing is cached (the data module memoises file reads and
SHA-1s per process): the time covers resolving the 38 files, hashing and parsing the 32 present ones (about
60 MB of JSON), validating every record and rendering every prompt. Import time of Inspect and the package is
measured separately and not counted.

Usage::

    python benchmarks/load_discourse_relations.py [--repeat 5] [--subset paper|full]

Prints one line per run and a summary; writes ``benchmarks/results/load_discourse_relations.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
DEFAULT_DATA_DIR = BENCH_DIR.parent.parent / "shared" / "data" / "bediscover" / "data"
GOAL_SECONDS = 5.0

_CHILD = r"""
import json, sys, time, logging
logging.disable(logging.WARNING)
import warnings; warnings.simplefilter("ignore")
t0 = time.perf_counter()
from bediscover_inspect.discourse_relations.task import discourse_relations
t1 = time.perf_counter()
task = discourse_relations(subset=sys.argv[1])
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "load_s": t2 - t1, "samples": len(task.dataset),
                  "corpora": len(task.metadata["samples_per_corpus"]), "absent": len(task.metadata["absent_corpora"])}))
"""


def run_once(subset: str, env: dict[str, str]) -> dict[str, float]:
    """One fresh-process measurement: ``{"import_s", "load_s", "samples", "corpora", "absent"}``."""
    out = subprocess.run([sys.executable, "-c", _CHILD, subset], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--subset", choices=["paper", "full"], default="paper")
    args = parser.parse_args()
    env = dict(os.environ)
    env.setdefault("BEDISCOVER_DATA_DIR", str(DEFAULT_DATA_DIR))
    runs = []
    for i in range(args.repeat):
        result = run_once(args.subset, env)
        runs.append(result)
        print(f"run {i + 1}: load {result['load_s']:.2f} s (import {result['import_s']:.2f} s), "
              f"{result['samples']} samples from {result['corpora']} corpora, {result['absent']} absent")
    loads = [r["load_s"] for r in runs]
    summary = {
        "task": "discourse_relations",
        "subset": args.subset,
        "data_dir": env["BEDISCOVER_DATA_DIR"],
        "repeat": args.repeat,
        "load_s_median": statistics.median(loads),
        "load_s_max": max(loads),
        "goal_s": GOAL_SECONDS,
        "ratio_to_goal": statistics.median(loads) / GOAL_SECONDS,
        "samples": runs[0]["samples"],
        "corpora": runs[0]["corpora"],
        "absent": runs[0]["absent"],
        "import_s_median": statistics.median(r["import_s"] for r in runs),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    print(f"median load {summary['load_s_median']:.2f} s, max {summary['load_s_max']:.2f} s "
          f"(goal < {GOAL_SECONDS:.0f} s: {'met' if summary['load_s_max'] < GOAL_SECONDS else 'NOT met'})")
    results = BENCH_DIR / "results"
    results.mkdir(exist_ok=True)
    (results / f"load_discourse_relations_{args.subset}.json").write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
