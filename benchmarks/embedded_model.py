"""Embedded model: seconds per sample and tokens per second of ``gguf/smollm2-135m`` on real nips-abs samples.

    .venv/bin/python benchmarks/embedded_model.py [--limit 20] [--max-tokens N]

One child process runs ``sentence_ordering(datasets="nips-abs")`` on the first ``--limit`` samples with the
embedded model (seed 42, the task's generate config unless ``--max-tokens`` is given), as ``make demo`` does.
From the log: per sample, total and working seconds (total includes queueing: samples run concurrently but
share the one in-process model, so model seconds per sample are the figure to read); per model call, the generation time Inspect records and the
provider's usage (input / output tokens). ``output_tokens_per_s`` = output tokens / model-call seconds;
``prompt_plus_output_tokens_per_s`` counts the prompt too. Writes ``results/embedded_model.json``.
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from _common import WORK_DIR, data_dir, median, run_child, write_result  # noqa: E402


def child(report: str, log_dir: str, limit: int, max_tokens: int) -> None:
    """In a fresh process: evaluate nips-abs with the embedded model; write the inner timings and log path."""
    from inspect_ai import eval

    from bediscover_inspect.sentence_ordering.task import sentence_ordering

    t_import = time.perf_counter()
    extra = {"max_tokens": max_tokens} if max_tokens else {}
    log = eval(sentence_ordering(datasets="nips-abs", data_dir=data_dir()), model="gguf/smollm2-135m", limit=limit,
               seed=42, log_dir=log_dir, display="none", log_level="warning", **extra)[0]
    Path(report).write_text(json.dumps({
        "import_s": t_import - T0, "eval_s": time.perf_counter() - t_import, "location": log.location,
        "status": log.status, "error": log.error.message if log.error else None,
    }))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the embedded-model child, read its log, write the result JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--max-tokens", type=int, default=0, help="override the task's max_tokens (0 = keep)")
    parser.add_argument("--out", default="embedded_model", help="result name under results/")
    parser.add_argument("--child", nargs=4, metavar=("REPORT", "LOG_DIR", "LIMIT", "MAX_TOKENS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]), int(args.child[3]))
        return {}

    from inspect_ai.log import read_eval_log_samples

    work = WORK_DIR / args.out
    shutil.rmtree(work, ignore_errors=True)
    report = work / "child.json"
    res = run_child([__file__, "--child", str(report), str(work / "logs"), str(args.limit), str(args.max_tokens)],
                    report)
    if res.returncode != 0 or res.report.get("status") != "success":
        raise RuntimeError(f"embedded model run failed (exit {res.returncode}): {res.report}\n{res.stderr_tail}")
    per_sample, call_s, out_tok, in_tok = [], 0.0, 0, 0
    for sample in read_eval_log_samples(res.report["location"]):
        calls = [e for e in sample.events if e.event == "model"]
        s_call = sum((e.working_time or 0.0) for e in calls)
        s_out = sum(e.output.usage.output_tokens for e in calls if e.output.usage)
        s_in = sum(e.output.usage.input_tokens for e in calls if e.output.usage)
        call_s, out_tok, in_tok = call_s + s_call, out_tok + s_out, in_tok + s_in
        per_sample.append({"id": str(sample.id), "total_s": sample.total_time, "working_s": sample.working_time,
                           "model_s": s_call, "input_tokens": s_in, "output_tokens": s_out})
    n = len(per_sample)
    result = {
        "model": "gguf/smollm2-135m", "samples": n, "limit": args.limit, "max_tokens": args.max_tokens or "task",
        "wall_s": res.wall_s, "peak_rss_mb": res.peak_rss_mb, "eval_s": res.report["eval_s"],
        "s_per_sample_mean": res.report["eval_s"] / max(n, 1),
        "s_per_sample_median": median([s["total_s"] for s in per_sample]),  # includes queueing for the model
        "model_s_per_sample_median": median([s["model_s"] for s in per_sample]),
        "model_s_total": call_s, "output_tokens": out_tok, "input_tokens": in_tok,
        "output_tokens_per_s": out_tok / call_s if call_s else float("nan"),
        "prompt_plus_output_tokens_per_s": (out_tok + in_tok) / call_s if call_s else float("nan"),
        "mean_output_tokens": out_tok / max(n, 1), "per_sample": per_sample,
    }
    print(f"embedded model: {n} samples, eval {result['eval_s']:.1f}s ({result['s_per_sample_mean']:.2f} s/sample, "
          f"median model time per sample {result['model_s_per_sample_median']:.2f}s), {result['output_tokens_per_s']:.1f} output tok/s, "
          f"{result['mean_output_tokens']:.0f} output tokens/sample, peak RSS {res.peak_rss_mb:.0f} MB", flush=True)
    path = write_result(args.out, result)
    print(f"wrote {path}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
