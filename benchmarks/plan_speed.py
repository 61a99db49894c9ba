"""How long ``bediscover plan`` takes for the whole suite: 5 tasks x 3 seeds x 2 reasoning modes.

    python benchmarks/plan_speed.py [--subset paper|full] [--out benchmarks/results/plan_speed.json]

Runs ``bediscover plan --format json`` in a child process (start-up and imports included, as a user sees it) for
an OpenAI model (prompt tokens by tiktoken) and for a model without a tokenizer at hand (the approximation), and
records the wall and CPU seconds of each beside the plan's calls and prompt tokens. The target is under 30 s on
two cores at the paper subsets, under 2 minutes for the full subsets; the machine's load is recorded with the
result (a loaded machine's wall time is not the plan's).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODELS = {"tiktoken": "openai/gpt-5-mini", "approximation": "openai-api/none/model"}
"""What each measured plan counts prompt tokens with -> the ``--model`` that selects it."""


def plan_once(model: str, subset: str) -> dict[str, object]:
    """Wall and CPU seconds of one ``bediscover plan`` of the whole suite for ``model``, and its totals."""
    with tempfile.TemporaryDirectory() as empty:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "bediscover_inspect.cli", "plan", "--model", model, "--subset", subset]
            + ["--log-dir", empty, "--format", "json"],
            capture_output=True,
            text=True,
            check=True,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    plan = json.loads(done.stdout)
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
        "evals": plan["evals"],
        "calls": plan["calls"],
        "prompt_tokens": plan["prompt_tokens"],
        "tokenizer": plan["tokenizer"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subset", choices=["paper", "full"], default="paper")
    parser.add_argument("--out", type=Path, default=None, help="write the result as JSON here")
    args = parser.parse_args(argv)
    result = {
        "subset": args.subset,
        "load_average_1m": os.getloadavg()[0],
        "cpus": os.cpu_count(),
        **{name: plan_once(model, args.subset) for name, model in MODELS.items()},
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
