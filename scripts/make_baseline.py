"""Write the suite's own regression baseline: a few samples of every dataset of all five tasks, answered by the
embedded SmolLM2-135M GGUF model (in-process llama.cpp, offline), one log per task under ``tests/baseline/``.

    python scripts/make_baseline.py            # or: make baseline
    python scripts/make_baseline.py --per-dataset 2 --max-tokens 64 --out tests/baseline

``tests/gate/test_baseline_gate.py`` re-scores these logs with the current scorers and requires every sample's
score to be unchanged, so a scorer or parser change that moves a score fails the tests with the sample named.
When such a change is intended — or when the datasets change (new sample ids, another gold) — run this script
again and commit the new logs with the change.

Samples: the first ``--per-dataset`` samples of each dataset the data root has, in the task's own order (DISRPT:
each corpus); for dialogue parsing (one sample per dialogue in the default incremental mode) the dialogues with
the fewest turns, to keep the run short. Settings: ``bediscover run``'s task building (Table 7 preset, reasoning
off), seed 0, ``--max-tokens``. The logs must stay small (``--max-bytes`` in total, checked).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from bediscover_inspect.cli import build_tasks  # noqa: E402
from bediscover_inspect.tasks import TASK_NAMES  # noqa: E402

MODEL = "gguf/smollm2-135m"
SEED = 0


def chosen_ids(task, per_dataset: int) -> list[str]:
    """The sample ids of the baseline: the first ``per_dataset`` of each dataset (dialogue parsing: the
    dialogues with the fewest turns)."""
    by_dataset: dict[str, list] = {}
    for sample in task.dataset:
        by_dataset.setdefault(sample.metadata["dataset"], []).append(sample)
    ids: list[str] = []
    for samples in by_dataset.values():
        if "turns" in samples[0].metadata:
            samples = sorted(samples, key=lambda s: len(s.metadata["turns"]))
        ids += [str(s.id) for s in samples[:per_dataset]]
    return ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(REPO / "tests" / "baseline"))
    parser.add_argument("--per-dataset", type=int, default=2, help="samples per dataset (default %(default)s)")
    parser.add_argument("--max-tokens", type=int, default=64, help="max_tokens of every call (default %(default)s)")
    parser.add_argument("--max-bytes", type=int, default=900_000, help="size limit of all logs together")
    parser.add_argument("--tasks", nargs="+", default=list(TASK_NAMES), choices=TASK_NAMES)
    args = parser.parse_args(argv)

    from inspect_ai import eval as inspect_eval

    import bediscover_inspect._registry  # noqa: F401  (registers the gguf/ provider)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.tasks:
            [task] = build_tasks([name], [SEED], [False], "paper", {}, model=MODEL)
            ids = chosen_ids(task, args.per_dataset)
            print(f"{name}: {len(ids)} samples", flush=True)
            [log] = inspect_eval(
                task,
                model=MODEL,
                sample_id=ids,
                max_tokens=args.max_tokens,
                seed=SEED,
                max_connections=1,
                display="none",
                log_dir=str(Path(scratch) / name),
            )
            if log.status != "success":
                print(f"{name}: eval failed: {log.error}", file=sys.stderr)
                return 1
            for old in out.glob(f"{name}*.eval"):
                old.unlink()
            shutil.copy(log.location, out / f"{name}.eval")
    sizes = {path.name: path.stat().st_size for path in sorted(out.glob("*.eval"))}
    total = sum(sizes.values())
    for file, size in sizes.items():
        print(f"{file}: {size / 1000:.0f} kB")
    print(f"total {total / 1000:.0f} kB in {out}")
    if total > args.max_bytes:
        print(
            f"the baseline is over --max-bytes {args.max_bytes}: use fewer --per-dataset or --max-tokens",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
