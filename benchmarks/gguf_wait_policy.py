"""The embedded model's prompt evaluation under OpenMP's default wait policy and the passive one, idle and busy.

llama.cpp's CPU threads (GNU OpenMP) meet at a barrier after every operation; by default a waiting thread spins
first (``GOMP_SPINCOUNT`` 300,000), with ``OMP_WAIT_POLICY=passive`` it sleeps at once. The gguf provider sets the
passive policy (``OPENMP_WAIT_POLICY`` of ``models/gguf.py``). Per number of other busy processes (plain busy loops
started by this script, at most one per CPU), this measures the *wall* seconds of evaluating the same 3 fresh prompts
(4 generated tokens each) with llama-cpp-python's default thread counts, once per policy, each in a child process
(``libgomp`` reads the variable when it is loaded), alternating which goes first over ``--rounds``.

    python benchmarks/gguf_wait_policy.py                  # 0, 1 and 2 busy processes; results/gguf_wait_policy.json
    python benchmarks/gguf_wait_policy.py --busy 0 --rounds 1 --out gguf_wait_policy_quick
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median, write_result  # noqa: E402

PROMPTS = [
    " ".join(f"Sentence {i}-{j}: the committee {i} read report {j} and agreed." for j in range(25)) for i in range(3)
]
POLICIES = ("default", "passive")


def busy_loop() -> None:
    """Spin until killed (one busy CPU)."""
    while True:
        pass


def child() -> None:
    """Print the wall seconds and prompt tokens of evaluating :data:`PROMPTS` from an empty cache."""
    import llama_cpp

    from bediscover_inspect.models.gguf import DEFAULT_N_BATCH, resolve_model_path

    llama = llama_cpp.Llama(
        model_path=str(resolve_model_path("smollm2-135m")), n_ctx=2048, n_batch=DEFAULT_N_BATCH, verbose=False
    )
    start = time.monotonic()
    tokens = 0
    for text in PROMPTS:
        prompt = llama.tokenize(text.encode(), add_bos=False)
        tokens += len(prompt)
        llama.n_tokens = 0
        llama.create_completion(prompt, max_tokens=4, temperature=0.0)
    seconds = time.monotonic() - start
    print(
        json.dumps({"seconds": seconds, "prompt_tokens": tokens, "threads": [llama.n_threads, llama.n_threads_batch]})
    )
    llama.close()


def run_child(policy: str) -> dict[str, Any]:
    """One :func:`child` with OpenMP's default wait policy or the passive one."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy == "passive":
        env["OMP_WAIT_POLICY"] = "passive"
    out = subprocess.run(
        [sys.executable, __file__, "--child"], env=env, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.splitlines()[-1])


def measure(busy: int, rounds: int) -> dict[str, Any]:
    """Both policies over ``rounds`` with ``busy`` other busy processes running (median seconds)."""
    hogs = [multiprocessing.Process(target=busy_loop, daemon=True) for _ in range(busy)]
    for hog in hogs:
        hog.start()
    seconds: dict[str, list[float]] = {policy: [] for policy in POLICIES}
    try:
        for round_ in range(rounds):
            for policy in POLICIES if round_ % 2 == 0 else POLICIES[::-1]:
                result = run_child(policy)
                seconds[policy].append(round(result["seconds"], 2))
    finally:
        for hog in hogs:
            hog.kill()
            hog.join()
    row: dict[str, Any] = {
        "busy_processes": busy,
        "prompt_tokens": result["prompt_tokens"],
        "threads_generation_batch": result["threads"],
    }
    for policy in POLICIES:
        row[f"{policy}_s"] = seconds[policy]
    row["default_over_passive"] = round(median(seconds["default"]) / median(seconds["passive"]), 2)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", default="0,1,2", help="comma-separated counts of other busy processes")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each policy per busy count (at least 1)")
    parser.add_argument("--out", default="gguf_wait_policy", help="results/<out>.json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child()
        return 0
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    rows = []
    for busy in args.busy.split(","):
        rows.append(measure(min(int(busy), os.cpu_count() or 1), args.rounds))
        print(json.dumps(rows[-1]), flush=True)
    out = write_result(args.out, {"rows": rows})
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
