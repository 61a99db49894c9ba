"""Cost against size: time and peak RSS of ``bediscover run``, ``report`` and ``compare`` at growing sample counts.

    python benchmarks/growth.py [--sizes 1000,2000] [--synthetic 5000,10000,20000,40000] [--slots 64]
                                [--fixed 0.05] [--per-token 0.0005] [--out growth]

For each size N of ``--sizes``, discourse relations (``subset=full``: 43,716 relations where the data root has every corpus,
the first N of them by ``--limit``; reasoning off, seed 0) runs through ``bediscover run`` against
:mod:`model_server` (a fast latency, so the client is what is measured), then ``bediscover report`` (with
plots) and ``bediscover compare`` of the run with itself run on its log directory. For each size of
``--synthetic``, the largest run's log is grown to that many samples (:func:`synthesize`) and report and compare
run on it: what they read per sample at sizes too costly to call a server for on a small machine. Each command is
a child process: wall and CPU seconds, peak RSS (``wait4``), and the log's size. Cost grows linearly when CPU per
sample stays flat across sizes; :func:`project` fits ``a + b·N`` per command and projects to the full subset.
Writes ``results/<--out>.json``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from _common import WORK_DIR, run_child, write_result
from model_server import INSPECT_MODEL, Latency, serve

FULL_RELATIONS = 43_716
"""Relations in discourse relations' ``full`` subset (every DISRPT corpus of the data root; ``MANIFEST.md``)."""


def _measure(res: Any) -> dict[str, Any]:
    if res.returncode != 0:
        raise RuntimeError(f"child failed (exit {res.returncode}): {res.stderr_tail}")
    return {"wall_s": res.wall_s, "cpu_s": res.cpu_s, "peak_rss_mb": res.peak_rss_mb}


def fit(sizes: list[int], values: list[float]) -> dict[str, float]:
    """Least-squares line ``a + b·N`` through ``(sizes, values)``: ``{"a", "b"}`` (b per sample)."""
    n = len(sizes)
    mean_x, mean_y = sum(sizes) / n, sum(values) / n
    var = sum((x - mean_x) ** 2 for x in sizes)
    b = sum((x - mean_x) * (y - mean_y) for x, y in zip(sizes, values, strict=True)) / var if var else 0.0
    return {"a": mean_y - b * mean_x, "b": b}


def one_size(n: int, slots: int, latency: Latency, work: Path) -> dict[str, Any]:
    """Run ``n`` samples through ``bediscover run`` against the server, then :func:`read_commands` on its logs."""
    log_dir = work / f"logs_{n}"
    shutil.rmtree(log_dir, ignore_errors=True)
    with serve(slots, latency, 0, work) as server:
        run = run_child(
            ["-m", "bediscover_inspect.cli", "run", "--model", INSPECT_MODEL, "--tasks", "discourse_relations"]
            + ["--subset", "full", "--limit", str(n), "--seeds", "0", "--reasoning", "off"]
            + ["--max-connections", str(slots), "--log-dir", str(log_dir), "--display", "none"],
            work / f"run_{n}.json",
            env=server.env,
        )
        calls = server.stats()["requests"]
    print(f"  {n:6d} samples: run {run.wall_s:6.1f}s cpu {run.cpu_s:6.1f}s {run.peak_rss_mb:5.0f}MB", flush=True)
    row = read_commands(n, log_dir, work, synthetic=False) | {"calls": calls, "run": _measure(run)}
    for name in ("run", "report", "compare"):
        row[name]["cpu_ms_per_sample"] = 1000 * row[name]["cpu_s"] / n
    return row


def synthesize(source: Path, n: int, log_dir: Path) -> None:
    """Write into ``log_dir`` a copy of the one log in ``source`` grown to ``n`` samples: its samples repeated with
    ids ``<id>~<k>`` (the dataset prefix kept), header counts set to ``n``. What report and compare read per sample
    is then ``n`` samples' worth; the header's results are the source's."""
    from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

    [info] = list_eval_logs(str(source))
    log = read_eval_log(info)
    base = log.samples or []
    samples = [
        sample.model_copy(update={"id": f"{sample.id}~{k // len(base)}" if k >= len(base) else sample.id})
        for k, sample in ((k, base[k % len(base)]) for k in range(n))
    ]
    log.samples = samples
    log.eval.dataset.samples = n
    log.eval.dataset.sample_ids = [sample.id for sample in samples]
    if log.results is not None:
        log.results.total_samples = log.results.completed_samples = n
    shutil.rmtree(log_dir, ignore_errors=True)
    log_dir.mkdir(parents=True)
    write_eval_log(log, str(log_dir / Path(info.name).name))


def read_commands(n: int, log_dir: Path, work: Path, synthetic: bool) -> dict[str, Any]:
    """``bediscover report`` and ``compare`` (the run with itself) on ``log_dir``: their measures per sample."""
    cli = ["-m", "bediscover_inspect.cli"]
    report = run_child([*cli, "report", "--log-dir", str(log_dir), "--out", str(work / f"report_{n}")], work / "r.json")
    compare = run_child(
        [*cli, "compare", "--baseline", str(log_dir), "--candidate", str(log_dir), "--format", "json"]
        + ["--out", str(work / f"compare_{n}.json")],
        work / "c.json",
    )
    row: dict[str, Any] = {"samples": n, "synthetic": synthetic, "report": _measure(report)}
    row["compare"] = _measure(compare)
    row["log_mb"] = sum(p.stat().st_size for p in log_dir.glob("*.eval")) / 2**20
    print(
        f"  {n:6d} samples{' (synthetic)' if synthetic else ''}: report {report.wall_s:6.1f}s "
        f"{report.peak_rss_mb:5.0f}MB | compare {compare.wall_s:6.1f}s {compare.peak_rss_mb:5.0f}MB | "
        f"log {row['log_mb']:.1f}MB",
        flush=True,
    )
    return row


def table(result: dict[str, Any]) -> str:
    """Markdown table of a result: one row per size (synthetic ones marked), then the fitted lines' projection to
    the full subset (``–`` for a command measured at one size only)."""
    lines = [
        "| samples | run wall / CPU (s) | run peak RSS (MB) | report wall / CPU (s) | report peak RSS (MB) | "
        "compare wall / CPU (s) | compare peak RSS (MB) | log (MB) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in sorted(result["sizes"], key=lambda row: row["samples"]):
        cells = [f"{row['samples']:,}" + (" (synthetic)" if row.get("synthetic") else "")]
        for name in ("run", "report", "compare"):
            m = row.get(name)
            cells += [f"{m['wall_s']:.1f} / {m['cpu_s']:.1f}", f"{m['peak_rss_mb']:.0f}"] if m else ["–", "–"]
        lines.append("| " + " | ".join([*cells, f"{row['log_mb']:.1f}"]) + " |")
    projected = result.get("projection", {})
    if projected:
        cells = [f"{FULL_RELATIONS:,} (projected)"]
        for name in ("run", "report", "compare"):  # a command measured at one size has no line: –
            line = projected.get(name)
            cells += [f"– / {line['cpu_s']:.0f}", f"{line['peak_rss_mb']:.0f}"] if line else ["–", "–"]
        lines.append("| " + " | ".join([*cells, f"{projected['log_mb']:.0f}"]) + " |")
    return "\n".join(lines)


def project(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Least-squares lines of CPU seconds and peak RSS against samples per command (the run over the real
    rows, report and compare over all rows) and the log's size; their values at :data:`FULL_RELATIONS`."""
    fits: dict[str, Any] = {}
    for name in ("run", "report", "compare", "log_mb"):
        measured = [row for row in rows if name in row]
        if len({row["samples"] for row in measured}) < 2:
            continue
        sizes = [row["samples"] for row in measured]
        if name == "log_mb":
            fits[name] = fit(sizes, [row[name] for row in measured])
        else:
            fits[name] = {key: fit(sizes, [row[name][key] for row in measured]) for key in ("cpu_s", "peak_rss_mb")}
    projection: dict[str, Any] = {}
    for name, line in fits.items():
        if name == "log_mb":
            projection[name] = line["a"] + line["b"] * FULL_RELATIONS
        else:
            projection[name] = {key: value["a"] + value["b"] * FULL_RELATIONS for key, value in line.items()}
    return fits, projection


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Measure every size, fit the lines, project to the full subset, write the result."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,2000", help="sample counts run through bediscover run")
    parser.add_argument(
        "--synthetic",
        default="5000,10000,20000,40000",
        help="sample counts of logs grown from the largest run's log (synthesize()) for report and compare ('' none)",
    )
    parser.add_argument("--slots", type=int, default=64, help="server slots (= --max-connections)")
    parser.add_argument("--fixed", type=float, default=0.05, help="fixed seconds per call")
    parser.add_argument("--per-token", type=float, default=0.0005, help="seconds per completion token")
    parser.add_argument("--out", default="growth", help="result file name (benchmarks/results/)")
    parser.add_argument("--table", type=Path, metavar="RESULT", help="print a result file's markdown table and stop")
    args = parser.parse_args(argv)
    if args.table:
        import json

        print(table(json.loads(args.table.read_text())))
        return {}
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    synthetic = sorted(int(s) for s in args.synthetic.split(",") if s.strip())
    if not sizes:
        parser.error("--sizes needs at least one sample count")
    work = WORK_DIR / args.out
    work.mkdir(parents=True, exist_ok=True)
    latency = Latency(args.fixed, args.per_token)
    result: dict[str, Any] = {"slots": args.slots, "latency": vars(latency), "sizes": []}
    for n in sizes:
        result["sizes"].append(one_size(n, args.slots, latency, work))
        path = write_result(args.out, result)
    for n in synthetic:
        synthesize(work / f"logs_{sizes[-1]}", n, work / f"logs_synthetic_{n}")
        result["sizes"].append(read_commands(n, work / f"logs_synthetic_{n}", work, synthetic=True))
        path = write_result(args.out, result)
    result["fits"], result["projection"] = project(result["sizes"])
    path = write_result(args.out, result)
    print(f"wrote {path}")
    print(table(result))
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
