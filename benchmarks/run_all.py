"""Run every benchmark, one after the other, and write ``results/summary.md`` from their JSON results.

    .venv/bin/python benchmarks/run_all.py            # full sizes (~20 min on 2 quiet cores, more when busy)
    .venv/bin/python benchmarks/run_all.py --quick    # tiny sizes, checks that everything runs (~1-5 min);
                                                      # writes to benchmarks/.work/quick_results/ (or to
                                                      # $BEDISCOVER_BENCH_RESULTS), never to benchmarks/results/
    .venv/bin/python benchmarks/run_all.py --summary-only

Each script runs as its own process (a failure is reported and the others still run). Nothing else should load
the machine meanwhile: the overhead ratios compare child processes run back to back.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence

import os

import _common
from _common import BENCH_DIR, WORK_DIR, child_env

FULL: list[list[str]] = [
    ["overhead.py", "--rounds", "3"],
    ["data_loading.py", "--repeats", "3"],
    ["metric_compute.py", "--repeats", "5"],
    ["live_metrics_row.py", "--events", "5000", "--repeats", "3"],
    ["dialogue_tokens.py"],
    ["embedded_model.py", "--limit", "20"],
    ["paper_run.py"],
]
"""Scripts and arguments of a full run, in order (the long paper run last)."""

QUICK: list[list[str]] = [
    ["overhead.py", "--rounds", "1", "--limit", "20", "--dialogues", "2"],
    ["data_loading.py", "--repeats", "1", "--tasks", "discourse_markers,sentence_ordering"],
    ["metric_compute.py", "--repeats", "1", "--tasks", "temporal_reasoning"],
    ["live_metrics_row.py", "--events", "50", "--repeats", "1"],
    ["dialogue_tokens.py", "--per-dataset", "1"],
    ["embedded_model.py", "--limit", "1", "--max-tokens", "16"],
    ["paper_run.py", "--limit", "5"],
]
"""Tiny sizes for smoke runs."""


def _load(name: str) -> dict[str, Any] | None:
    path = _common.RESULTS_DIR / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _table(header: str, align: str, rows: Iterable[Sequence[object]], title: str | None = None) -> list[str]:
    """Markdown lines of one table (optionally under a ``## title``), then a blank line."""
    head = [f"## {title}", ""] if title else []
    return [*head, header, align, *("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows), ""]


def summary() -> str:
    """Markdown tables of whatever results exist under ``results/``."""
    lines: list[str] = []
    ov = _load("overhead")
    if ov:
        m = ov["machine"]
        lines += _table(
            "| task | samples | model calls | wall ours / bare (s) | wall ratio | CPU ours / bare (s) | CPU ratio | "
            "eval() ratio | peak RSS ours / bare (MB) | RSS ratio | scorer ms/sample ours / bare |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            [(t["task"], t["samples"], t["model_calls"], f"{t['ours']['wall_s']:.1f} / {t['bare']['wall_s']:.1f}",
              f"{t['wall_ratio']:.3f}", f"{t['ours']['cpu_s']:.1f} / {t['bare']['cpu_s']:.1f}", f"{t['cpu_ratio']:.3f}",
              f"{t['eval_ratio']:.3f}", f"{t['ours']['peak_rss_mb']:.0f} / {t['bare']['peak_rss_mb']:.0f}",
              f"{t['rss_ratio']:.3f}",
              f"{t['scorer_ms_per_sample_median'].get('ours', float('nan')):.2f} / "
              f"{t['scorer_ms_per_sample_median'].get('bare', float('nan')):.2f}") for t in ov["tasks"]],
            f"Overhead vs bare Inspect ({m['date']}, {m['cpus']} CPUs, inspect-ai {m['inspect_ai']})")
    dl = _load("data_loading")
    if dl:
        lines += _table(
            "| task | samples | import (s) | cold build (s) | warm build (s) | peak RSS (MB) |", "|---|---:|---:|---:|---:|---:|",
            [(t["task"], t["samples"], f"{t['import_s']:.2f}", f"{t['cold_build_s']:.3f}", f"{t['warm_build_s']:.3f}",
              f"{t['peak_rss_mb']:.0f}") for t in dl["tasks"]],
            "Data loading (paper subset, every dataset present)")
    mc = _load("metric_compute")
    if mc:
        lines += _table(
            "| task | samples | entries | 20 growing computations ours / accuracy (ms) | ratio | "
            "one full computation ours / accuracy (ms) | ratio |", "|---|---:|---:|---:|---:|---:|---:|",
            [(t["task"], t["samples"], t["entries"], f"{t['ours']['live_20_ms']:.0f} / {t['accuracy']['live_20_ms']:.0f}",
              f"{t['live_ratio']:.2f}", f"{t['ours']['final_ms']:.1f} / {t['accuracy']['final_ms']:.1f}",
              f"{t['final_ratio']:.2f}") for t in mc["tasks"]],
            "One metric computation vs Inspect's accuracy() on the same samples")
    lm = _load("live_metrics_row")
    if lm:
        lines += _table(
            "| entries | live metrics JSON (bytes) | µs per event, Inspect | ratio to 1 entry | µs per event, metrics in "
            "own table | ratio to 1 entry (Inspect) |", "|---:|---:|---:|---:|---:|---:|",
            [(row["entries"], row["metrics_json_bytes"], f"{row['per_event_us']:.1f}", f"{row['ratio_to_one_entry']:.2f}",
              f"{row['own_table_per_event_us']:.1f}" if "own_table_per_event_us" in row else "–",
              f"{row['own_table_ratio_to_one_entry']:.2f}" if "own_table_ratio_to_one_entry" in row else "–")
             for row in lm["rows"]],
            "One sample event in Inspect's live buffer vs the number of live metric entries")
    pr = _load("paper_run")
    if pr:
        lines += ["## Whole paper subset, one process", "",
                  f"{pr['samples']} samples: wall {pr['wall_s']:.1f} s, CPU {pr.get('cpu_s') or float('nan'):.1f} s (eval {pr['eval_s']:.1f} s, "
                  f"{pr['ms_per_sample']:.1f} ms/sample), peak RSS {pr['peak_rss_mb']:.0f} MB, logs "
                  f"{pr['log_mb']:.1f} MB; goals ≤ {pr['goal_seconds']:.0f} s: "
                  f"{'met' if pr['time_goal_met'] else 'MISSED'}, ≤ {pr['goal_rss_mb']:.0f} MB: "
                  f"{'met' if pr['rss_goal_met'] else 'MISSED'}.", ""]
        if "report" in pr:
            lines += [f"`bediscover report` on those logs: exit {pr['report']['returncode']}, "
                      f"{pr['report']['wall_s']:.1f} s, peak RSS {pr['report']['peak_rss_mb']:.0f} MB.", ""]
        lines += _table(
            "| task | status | samples | scorer ms/sample median | p95 |", "|---|---|---:|---:|---:|",
            [(t["task"], t["status"], t["samples"], f"{t['scorer_ms_median']:.2f}", f"{t['scorer_ms_p95']:.2f}")
             for t in pr["tasks"]])
    dt = _load("dialogue_tokens")
    if dt:

        def slope(value: float | None) -> str:
            return "–" if value is None else f"{value:+.1f}"

        lines += _table(
            "| dialogue | turns | first | max | slope j<17 (tok/turn) | slope j≥17 (tok/turn) | last-17 mean / turns 17-33 mean |",
            "|---|---:|---:|---:|---:|---:|---:|",
            [(d["sample"], len(d["turns"]), d["prompt_tokens"][0], d["max_tokens"], slope(d.get("slope_before")),
              slope(d.get("slope_after")), f"{d['flat_ratio']:.3f}" if d["flat_ratio"] else "–") for d in dt["dialogues"]],
            f"Dialogue parsing prompt tokens per turn ({dt['tokenizer']})")
    em = _load("embedded_model")
    if em:
        lines += ["## Embedded model (gguf/smollm2-135m, nips-abs)", "",
                  f"{em['samples']} samples: {em['s_per_sample_mean']:.2f} s/sample (eval wall / samples; median model "
                  f"time per sample {em.get('model_s_per_sample_median', float('nan')):.2f} s), {em['output_tokens_per_s']:.1f} output tokens/s, "
                  f"{em['prompt_plus_output_tokens_per_s']:.1f} prompt+output tokens/s, "
                  f"{em['mean_output_tokens']:.0f} output tokens/sample, peak RSS {em['peak_rss_mb']:.0f} MB.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the selected set of scripts, then write ``results/summary.md``; exit 1 if any script failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke run)")
    parser.add_argument("--summary-only", action="store_true")
    parser.add_argument("--only", default="", help="comma list of script names to run (e.g. overhead,paper_run)")
    args = parser.parse_args(argv)
    if args.quick and not os.environ.get("BEDISCOVER_BENCH_RESULTS"):
        # smoke sizes must not overwrite the committed full-size results the README cites
        os.environ["BEDISCOVER_BENCH_RESULTS"] = str(WORK_DIR / "quick_results")
        _common.RESULTS_DIR = WORK_DIR / "quick_results"
    results_dir = _common.RESULTS_DIR
    failed = []
    if not args.summary_only:
        only = {o.strip().removesuffix(".py") for o in args.only.split(",") if o.strip()}
        for script, *rest in QUICK if args.quick else FULL:
            if only and script.removesuffix(".py") not in only:
                continue
            if args.quick and script == "dialogue_tokens.py":
                rest = [*rest, "--plot", str(results_dir / "dialogue_tokens.png")]
            print(f"== {script} {' '.join(rest)}", flush=True)
            code = subprocess.call([sys.executable, str(BENCH_DIR / script), *rest], env=child_env())
            if code:
                failed.append(script)
                print(f"!! {script} exited {code}", flush=True)
    text = summary()
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / "summary.md").write_text(text + "\n")
    print(f"results in {results_dir} (summary: {results_dir / 'summary.md'})")
    print(text)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
