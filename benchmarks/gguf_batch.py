"""The embedded model's prompt cost against ``n_batch``: prompts that share a task's instructions, and fresh prompts.

The gguf provider reuses the KV cache of the prefix a prompt shares with the previous one only in whole ``n_batch``
blocks (``keep_aligned_prefix``), so that a completion does not depend on what ran before; the default ``n_batch``
(``DEFAULT_N_BATCH``) decides how much of a shared prefix that keeps. Per ``n_batch``, this measures CPU seconds
(user + system of this process) of the embedded SmolLM2-135M on

- ``shared``: 12 prompts of a 14-sentence instruction followed by a different pair of units (greedy, 8 tokens each),
  with the aligned reuse and, beside it, llama-cpp-python's own unaligned reuse (the fastest possible);
- ``fresh``: 4 prompts of 40 sentences each evaluated from an empty cache (4 tokens each).

    python benchmarks/gguf_batch.py                       # n_batch 512, 64, 32, 16; results/gguf_batch.json
    python benchmarks/gguf_batch.py --n-batch 512,32 --out gguf_batch_quick
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import write_result  # noqa: E402

INSTRUCTION = " ".join(
    f"Rule {i}: a discourse relation holds between two units of text when the second elaborates, contrasts or "
    "explains the first."
    for i in range(14)
)
PAIRS = [
    f" Unit one: the council met on day {i} and voted. Unit two: so the road was closed for {i + 3} weeks. Relation:"
    for i in range(12)
]
FRESH = [
    " ".join(f"Sentence {i}-{j}: the committee {i} read report {j} and agreed." for j in range(40)) for i in range(4)
]


def cpu_seconds() -> float:
    """User + system CPU seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(n_batch: int) -> dict[str, Any]:
    """CPU seconds of the ``shared`` prompts (aligned and unaligned reuse) and the ``fresh`` ones at ``n_batch``."""
    from llama_cpp import Llama

    from bediscover_inspect.models.gguf import keep_aligned_prefix, resolve_model_path

    path = str(resolve_model_path("smollm2-135m"))
    row: dict[str, Any] = {"n_batch": n_batch}
    for name, aligned in (("shared_aligned_s", True), ("shared_unaligned_s", False)):
        llama = Llama(model_path=path, n_ctx=2048, n_batch=n_batch, verbose=False)
        start = cpu_seconds()
        for pair in PAIRS:
            tokens = llama.tokenize((INSTRUCTION + pair).encode(), add_bos=False, special=True)
            if aligned:
                keep_aligned_prefix(llama, tokens)
            llama.create_completion(tokens, max_tokens=8, temperature=0.0)
        row[name] = round(cpu_seconds() - start, 2)
        row["shared_prompt_tokens"] = len(tokens)
        llama.close()
    llama = Llama(model_path=path, n_ctx=2048, n_batch=n_batch, verbose=False)
    start = cpu_seconds()
    for text in FRESH:
        tokens = llama.tokenize(text.encode(), add_bos=False, special=True)
        llama.n_tokens = 0
        llama.create_completion(tokens, max_tokens=4, temperature=0.0)
    row["fresh_s"] = round(cpu_seconds() - start, 2)
    row["fresh_prompt_tokens"] = len(tokens)
    llama.close()
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-batch", default="512,64,32,16", help="comma-separated n_batch values")
    parser.add_argument("--out", default="gguf_batch", help="results/<out>.json")
    args = parser.parse_args(argv)
    rows = [measure(int(n)) for n in args.n_batch.split(",")]
    for row in rows:
        print(json.dumps(row), flush=True)
    out = write_result(args.out, {"rows": rows})
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
