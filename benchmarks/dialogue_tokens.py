"""Dialogue parsing, incremental mode: prompt tokens per turn against turn index over the longest dialogues.

    .venv/bin/python benchmarks/dialogue_tokens.py [--per-dataset 2] [--plot benchmarks/dialogue_tokens.png]

Runs the task on the ``--per-dataset`` longest dialogues of each dataset under the scripted mockllm, whose answer
attaches every new turn to the previous one (``QA_PAIR(j-1,j)``), so the predicted structure fed back into the
prompt grows as a real model's would. Each turn's prompt (system + user, as sent) is read from the log's model
events and counted with the SmolLM2 tokenizer (the embedded model's vocabulary, loaded vocab-only through
llama-cpp-python), or in whitespace words when that is unavailable. The prompt must stop growing once the context
window (17 EDUs) is full: ``slope_before`` / ``slope_after`` are least-squares slopes (tokens per turn) over
turns before / from turn 17 — positive before, about zero after (what remains is the length of the utterances in
the window); ``flat_ratio`` = mean tokens over the last 17 turns / mean over turns 17..33.
Writes ``results/dialogue_tokens.json`` and the PNG plot.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

from _common import BENCH_DIR, WORK_DIR, data_dir, scripted_model, write_result

WINDOW = 17


def slope(xs: list[int], ys: list[int]) -> float | None:
    """Least-squares slope of ``ys`` against ``xs`` (``None`` with fewer than two points)."""
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else None


def tokenizer() -> tuple[str, Callable[[str], int]]:
    """``(name, count)``: SmolLM2's tokenizer via llama-cpp-python (vocab only), else whitespace words."""
    try:
        from llama_cpp import Llama

        from bediscover_inspect.models.gguf import resolve_model_path

        llm = Llama(model_path=str(resolve_model_path("smollm2-135m")), vocab_only=True, verbose=False)
        return "smollm2-135m (llama.cpp, vocab only)", lambda text: len(llm.tokenize(text.encode(), add_bos=False))
    except Exception as exc:  # noqa: BLE001 (any failure: fall back and say so)
        print(f"SmolLM2 tokenizer unavailable ({exc}); counting whitespace words", file=sys.stderr)
        return "whitespace words", lambda text: len(text.split())


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the longest dialogues, count prompt tokens per turn, plot them and write the result JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-dataset", type=int, default=2, help="longest dialogues per dataset")
    parser.add_argument("--plot", default=str(BENCH_DIR / "dialogue_tokens.png"))
    parser.add_argument("--out", default="dialogue_tokens", help="result name under results/")
    args = parser.parse_args(argv)

    from inspect_ai import eval
    from inspect_ai.log import read_eval_log_samples, resolve_sample_attachments

    from bediscover_inspect.dialogue_parsing.task import dialogue_parsing

    task = dialogue_parsing(dataset="all", mode="incremental", data_dir=data_dir())
    by_dataset: dict[str, list[Any]] = {}
    for sample in task.dataset:
        by_dataset.setdefault(sample.metadata["dataset"], []).append(sample)
    chosen = []
    for samples in by_dataset.values():
        samples.sort(key=lambda s: len(s.metadata["turns"]), reverse=True)
        chosen.extend(s.id for s in samples[: args.per_dataset])
    log = eval(task, model=scripted_model(), sample_id=chosen, log_dir=str(WORK_DIR / "dialogue_tokens"),
               display="none", log_level="warning")[0]
    if log.status != "success":
        raise RuntimeError(f"dialogue parsing run failed: {log.error}")

    name, count = tokenizer()
    series = []
    for sample in read_eval_log_samples(log.location):
        sample = resolve_sample_attachments(sample)  # long prompts are stored as attachment:// references
        tokens = []
        for event in sample.events:
            if event.event == "model":
                tokens.append(sum(count(m.text) for m in event.input))
        turns = [int(t["turn"]) for t in sample.metadata["turns"]]
        early = [t for j, t in zip(turns, tokens) if WINDOW <= j < 2 * WINDOW]
        late = tokens[-WINDOW:]
        flat = (sum(late) / len(late)) / (sum(early) / len(early)) if early and len(turns) >= 2 * WINDOW else None
        before = [(j, t) for j, t in zip(turns, tokens) if j < WINDOW]
        after = [(j, t) for j, t in zip(turns, tokens) if j >= WINDOW]
        slopes = {name: slope([j for j, _ in part], [t for _, t in part])
                  for name, part in (("slope_before", before), ("slope_after", after))}
        series.append({"sample": str(sample.id), "dataset": sample.metadata["dataset"], "turns": turns,
                       "prompt_tokens": tokens, "max_tokens": max(tokens), "flat_ratio": flat, **slopes})
        print(f"{sample.id}: {len(turns)} turns, prompt tokens first {tokens[0]} max {max(tokens)}"
              + (f", last-{WINDOW} / turns {WINDOW}-{2 * WINDOW - 1} mean = {flat:.3f}" if flat else "")
              + "".join(f", {k} {v:+.1f} tok/turn" for k, v in slopes.items() if v is not None))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for s in series:
        ax.plot(s["turns"], s["prompt_tokens"], marker=".", linewidth=1, label=f"{s['dataset']} {s['sample']}")
    ax.axvline(WINDOW, color="grey", linestyle="--", linewidth=1)
    ax.text(WINDOW, ax.get_ylim()[1] * 0.98, f" window full (j={WINDOW})", va="top", fontsize=8, color="grey")
    ax.set_xlabel("turn index j (new EDU)")
    ax.set_ylabel(f"prompt tokens (system + user), {name.split(' ')[0]}")
    ax.set_title("Dialogue parsing, incremental: prompt size per turn, longest dialogues")
    ax.legend(fontsize=7)
    fig.tight_layout()
    Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=110)
    path = write_result(args.out, {"tokenizer": name, "window": WINDOW, "plot": str(args.plot), "dialogues": series})
    print(f"wrote {path} and {args.plot}")
    return {"dialogues": series}


if __name__ == "__main__":
    main(sys.argv[1:])
