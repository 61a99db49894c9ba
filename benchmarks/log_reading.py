"""Reading logs at reproduction scale: CPU per sample and peak RSS of ``report`` and ``compare`` against the read
floor, for two code trees side by side in one run.

    python benchmarks/log_reading.py --before ../logs-before/src [--after src] [--sizes 1000,10000,43716]
                                     [--out log_reading]

A discourse relations log (``tests/baseline/discourse_relations.eval``: 64 samples, about 20 KB of JSON each, 3.8 KB
compressed, as a mockllm run writes them) is grown to each size by copying its sample members under new ids
(``<id>~<k>``, the dataset prefix kept) with the header's sample list and counts set to that size
(:func:`synthesize`): what report and compare read per sample is then that many samples' worth, as in
``growth.py``. At each size, each a child process (CPU seconds user + system and peak RSS from ``wait4``):

* ``floor``: decompress and parse every sample member of the archive and keep its scores (code-independent);
* ``report``: ``bediscover report --no-plots`` on the log's directory, with each code tree's ``src/``;
* ``compare``: ``bediscover compare`` of the directory with itself (``--format json``), with each code tree.

CPU per added sample is the slope between consecutive sizes; the table prints it beside the floor's slope and
each command's peak RSS. Writes ``results/<--out>.json``; the report files of the two trees at each size are diffed
(``report_identical``).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any

from _common import REPO_DIR, WORK_DIR, run_child, write_result

SOURCE = REPO_DIR / "tests" / "baseline" / "discourse_relations.eval"
"""The log grown to each size."""

FLOOR = """
import json, sys, zipfile
import zipfile_zstd  # Inspect's members are zstandard (stdlib from Python 3.14)
from pathlib import Path
kept = []
for path in sorted(Path(sys.argv[1]).glob("*.eval")):
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if info.filename.startswith("samples/") and info.filename.endswith(".json"):
                kept.append(json.loads(archive.read(info)).get("scores"))
print(len(kept))
"""
"""The read floor: every sample member decompressed and parsed, its scores kept."""


def synthesize(source: Path, n: int, log_dir: Path) -> None:
    """Write into ``log_dir`` the log ``source`` grown to ``n`` samples (module docstring)."""
    import zipfile_zstd  # noqa: F401 - Inspect's members are zstandard (stdlib from Python 3.14)

    shutil.rmtree(log_dir, ignore_errors=True)
    log_dir.mkdir(parents=True)
    with zipfile.ZipFile(source) as archive:
        members = [info for info in archive.infolist() if info.filename.startswith("samples/")]
        samples = [json.loads(archive.read(info)) for info in members]
        ids: list[str | int] = []
        with zipfile.ZipFile(log_dir / source.name, "w", zipfile.ZIP_DEFLATED) as out:
            for k in range(n):
                sample = dict(samples[k % len(samples)])
                if k >= len(samples):
                    sample["id"] = f"{sample['id']}~{k // len(samples)}"
                ids.append(sample["id"])
                out.writestr(f"samples/{sample['id']}_epoch_{sample['epoch']}.json", json.dumps(sample))
            for info in archive.infolist():
                if info.filename.startswith("samples/") or info.filename.endswith("summaries.json"):
                    continue
                data = json.loads(archive.read(info)) if info.filename.endswith(".json") else None
                if isinstance(data, dict) and isinstance(data.get("eval"), dict):
                    data["eval"]["dataset"]["samples"] = n
                    data["eval"]["dataset"]["sample_ids"] = ids
                    if isinstance(data.get("results"), dict):
                        data["results"]["total_samples"] = data["results"]["completed_samples"] = n
                    out.writestr(info.filename, json.dumps(data))
                else:
                    out.writestr(info, archive.read(info))


def _measure(res: Any) -> dict[str, float]:
    if res.returncode != 0:
        raise RuntimeError(f"child failed (exit {res.returncode}): {res.stderr_tail}")
    return {"wall_s": res.wall_s, "cpu_s": res.cpu_s, "peak_rss_mb": res.peak_rss_mb}


def one_size(n: int, trees: dict[str, Path], work: Path) -> dict[str, Any]:
    """The floor, and report and compare with each code tree, on the log grown to ``n`` samples."""
    log_dir = work / f"logs_{n}"
    synthesize(SOURCE, n, log_dir)
    row: dict[str, Any] = {"samples": n, "log_mb": sum(p.stat().st_size for p in log_dir.glob("*.eval")) / 2**20}
    row["floor"] = _measure(run_child(["-c", FLOOR, str(log_dir)], work / "floor.json"))
    for name, src in trees.items():
        env = {"PYTHONPATH": str(src)}
        cli = ["-m", "bediscover_inspect.cli"]
        out = work / f"report_{name}_{n}"
        shutil.rmtree(out, ignore_errors=True)
        report = run_child(
            [*cli, "report", "--log-dir", str(log_dir), "--out", str(out), "--no-plots"], work / "r.json", env=env
        )
        compare = run_child(
            [*cli, "compare", "--baseline", str(log_dir), "--candidate", str(log_dir), "--format", "json"]
            + ["--out", str(work / f"compare_{name}_{n}.json")],
            work / "c.json",
            env=env,
        )
        row[name] = {"report": _measure(report), "compare": _measure(compare)}
        print(
            f"  {n:6d} samples {name:7s}: report {report.cpu_s:6.1f}s CPU {report.peak_rss_mb:5.0f}MB | "
            f"compare {compare.cpu_s:6.1f}s CPU {compare.peak_rss_mb:5.0f}MB | floor {row['floor']['cpu_s']:.1f}s",
            flush=True,
        )
    if len(trees) == 2:
        a, b = (work / f"report_{name}_{n}" for name in trees)
        files = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
        row["report_files"] = len(files)
        row["report_differing"] = [f for f in files if not (b / f).is_file() or not filecmp.cmp(a / f, b / f, False)]
        verdicts = [json.loads((work / f"compare_{name}_{n}.json").read_text())["cells"] for name in trees]
        row["compare_cells_identical"] = verdicts[0] == verdicts[1]
    return row


def _slope(previous: dict[str, Any] | None, row: dict[str, Any], get: Any) -> str:
    """Milliseconds of CPU per sample added from ``previous`` to ``row`` (``–`` for the first size)."""
    if previous is None:
        return "–"
    return f"{1000 * (get(row) - get(previous)) / (row['samples'] - previous['samples']):.3f}"


def table(result: dict[str, Any]) -> str:
    """Markdown: per size, the floor's and each tree's CPU per added sample (slope from the previous size, ms) and
    peak RSS (MB)."""
    trees = result["trees"]
    head = ["samples", "floor ms/sample", "floor MB"]
    for name in trees:
        head += [f"report {name} ms/sample", f"report {name} MB", f"compare {name} ms/sample", f"compare {name} MB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    rows = sorted(result["sizes"], key=lambda r: r["samples"])
    for previous, row in zip([None, *rows[:-1]], rows, strict=True):
        cells = [
            f"{row['samples']:,}",
            _slope(previous, row, lambda r: r["floor"]["cpu_s"]),
            f"{row['floor']['peak_rss_mb']:.0f}",
        ]
        for name in trees:
            for command in ("report", "compare"):
                cells += [
                    _slope(previous, row, lambda r, c=command, t=name: r[t][c]["cpu_s"]),
                    f"{row[name][command]['peak_rss_mb']:.0f}",
                ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the src/ directory of the code before a change")
    parser.add_argument("--after", type=Path, default=REPO_DIR / "src", help="the src/ directory after (default: this)")
    parser.add_argument("--sizes", default="1000,10000,43716", help="sample counts of the grown log")
    parser.add_argument("--out", default="log_reading", help="result file name (benchmarks/results/)")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    work = WORK_DIR / args.out
    work.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"trees": {k: str(v) for k, v in trees.items()}, "source": SOURCE.name, "sizes": []}
    for n in sorted(int(s) for s in args.sizes.split(",") if s.strip()):
        result["sizes"].append(one_size(n, trees, work))
        write_result(args.out, result)
    path = write_result(args.out, result)
    print(f"wrote {path}")
    print(table(result))
    for row in result["sizes"]:
        print(
            f"{row['samples']:,} samples: {row.get('report_files')} report files, differing "
            f"{row.get('report_differing')}; compare cells identical: {row.get('compare_cells_identical')}"
        )
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
