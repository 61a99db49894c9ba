"""Run the benchmarks one after the other (``make bench``).

    python benchmarks/run_all.py            # the figures of record, full sizes (about two hours on 2 cores)
    python benchmarks/run_all.py --quick    # tiny sizes, all at once: checks that every script runs; results go
                                            # to benchmarks/.work/quick_results/ unless BEDISCOVER_BENCH_RESULTS is set
    python benchmarks/run_all.py --only served

Each script runs as its own process (one after the other, except under ``--quick``); a failure is reported and the
others still run. Keep the machine otherwise idle: the figures compare child processes run one after the other.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from _common import BENCH_DIR, WORK_DIR, child_env

FULL: dict[str, list[str]] = {
    "data_loading": ["--repeats", "3"],
    "overhead": ["--rounds", "3"],
    "served": ["--slots", "32,128", "--suite-slots", "32,128", "--suite-score-display", "off,on"],
    # one live-metrics pass over the paper-size discourse-relations log that served.py just wrote
    "metrics_pass": [str(WORK_DIR / "served" / "slots32" / "logs_discourse_relations_ours_0"), "discourse_relations"],
    "growth": ["--sizes", "1000,5000,10000", "--synthetic", "20000,40000"],
}
"""Scripts and their arguments for the figures of record, in order."""

QUICK: dict[str, list[str]] = {
    "data_loading": ["--repeats", "1", "--tasks", "sentence_ordering"],
    "overhead": ["--rounds", "1", "--tasks", "dialogue_parsing", "--dialogues", "2", "--dialogue-order", "file"],
    "served": [
        "--slots",
        "2",
        "--tasks",
        "sentence_ordering",
        "--limit",
        "3",
        "--fixed",
        "0.01",
        "--per-token",
        "0.001",
        "--suite-slots",
        "2",
        "--dialogue-order-slots",
        "",
    ],
    "growth": ["--sizes", "10", "--synthetic", "20", "--slots", "4", "--fixed", "0.01", "--per-token", "0.0005"],
}
"""Tiny sizes for smoke runs: each script's every step once, the fewest child processes (each costs seconds of
start-up): one whole-suite run (live scores off, the command's default), growth at one size run and one grown; the
overhead rounds on STAC's first two dialogues (28 turns; the longest two, MSDC's, have 232)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke run)")
    parser.add_argument("--only", default="", help="comma list of scripts to run (e.g. overhead,served)")
    args = parser.parse_args(argv)
    env = child_env()
    if args.quick and not os.environ.get("BEDISCOVER_BENCH_RESULTS"):
        env["BEDISCOVER_BENCH_RESULTS"] = str(WORK_DIR / "quick_results")  # never over the figures of record
    only = {name.strip().removesuffix(".py") for name in args.only.split(",") if name.strip()}
    selected = {
        script: script_args
        for script, script_args in (QUICK if args.quick else FULL).items()
        if not only or script in only
    }
    failed = []
    if args.quick:  # nothing is timed: all at once, so the smoke run takes as long as its longest script
        procs = {
            script: subprocess.Popen([sys.executable, str(BENCH_DIR / f"{script}.py"), *script_args], env=env)
            for script, script_args in selected.items()
        }
        failed = [script for script, proc in procs.items() if proc.wait()]
    else:
        for script, script_args in selected.items():
            print(f"== {script}.py {' '.join(script_args)}", flush=True)
            if subprocess.call([sys.executable, str(BENCH_DIR / f"{script}.py"), *script_args], env=env):
                failed.append(script)
                print(f"!! {script}.py failed", flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
