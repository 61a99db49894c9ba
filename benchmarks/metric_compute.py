"""Cost of one task metric computation against Inspect's ``accuracy()`` on the same scores, side by side.

    .venv/bin/python benchmarks/metric_compute.py [--repeats 5] [--tasks discourse_relations,temporal_reasoning]

Inspect recomputes every metric while an eval runs (the live display, at most about every 0.9 s and never more
than ~1/11 of the time) and once at the end, each time on the whole growing list of sample scores; a slow metric
therefore costs a share of the whole eval (issue 8). For each task this builds the paper subset, gives every
sample a ``SampleScore`` shaped as the task's scorer writes it (answer right for every third sample, otherwise
another label), then times, in one process:

* **live**: 20 computations on growing prefixes of the list (5 %, 10 %, … 100 %), as during an eval;
* **final**: one more computation on the whole list;

for the task's metric and for the bare task's ``accuracy()``, after one uncounted warm-up of each. Figures are
medians over ``--repeats`` (each with a fresh metric, so "live" includes the first read of every score); the ratio
is ours / accuracy. Writes ``results/metric_compute.json``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

from _common import PAPER_TASK_ARGS, data_dir, median, write_result

METRICS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "discourse_relations": ("bediscover_inspect.discourse_relations.scorer", "discourse_relation_measures", {}),
    "temporal_reasoning": ("bediscover_inspect.temporal_reasoning.scorer", "relation_measures",
                           {"dataset": "tbd,tdd-man"}),
}
"""Task -> (module, metric factory, task arguments) of the largest classification tasks: every DISRPT corpus the
data root has (7,370 relations of the paper subset on the mirror), and TBD + TDD-Man (3,015; the relation scorer's
samples)."""


def sample_scores(task: str, task_args: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Per paper-subset sample of ``task``: our scorer's ``SampleScore`` (value dict, answer, gold, metadata), and
    the bare task's (exact match, a float value)."""
    import importlib

    from inspect_ai.scorer import SampleScore, Score

    from bediscover_inspect.metrics import classification_value

    built = getattr(importlib.import_module(f"bediscover_inspect.{task}.task"), task)(
        **(PAPER_TASK_ARGS[task] | task_args), data_dir=data_dir())
    labels = sorted({str(sample.target) for sample in built.dataset})
    scores, bare = [], []
    for index, sample in enumerate(built.dataset):
        gold = str(sample.target)
        answer = gold if index % 3 == 0 else labels[(labels.index(gold) + 1) % len(labels)]
        value = classification_value(answer == gold, False, 12, 0)
        scores.append(SampleScore(score=Score(value=value, answer=answer, metadata={"gold": gold}),
                                  sample_id=sample.id, sample_metadata=sample.metadata))
        bare.append(SampleScore(score=Score(value=float(answer == gold)), sample_id=sample.id))
    return scores, bare


def timed(metric: Callable[[list[Any]], Any], scores: list[Any]) -> tuple[float, float]:
    """(seconds for 20 growing computations, seconds for one more on the whole list)."""
    start = time.perf_counter()
    for step in range(1, 21):
        metric(scores[: len(scores) * step // 20])
    live = time.perf_counter() - start
    start = time.perf_counter()
    metric(scores)
    return live, time.perf_counter() - start


def bench(task: str, repeats: int) -> dict[str, Any]:
    """Medians over ``repeats`` of both metrics' live and final times on ``task``'s scores, and their ratios."""
    import importlib

    from inspect_ai.scorer import accuracy

    module, factory, task_args = METRICS[task]
    ours_factory = getattr(importlib.import_module(module), factory)
    scores, bare = sample_scores(task, task_args)
    runs: dict[str, list[tuple[float, float]]] = {"ours": [], "accuracy": []}
    timed(ours_factory(), scores), timed(accuracy(), bare)  # warm-up, not counted (first allocations, lazy imports)
    for _ in range(repeats):
        runs["ours"].append(timed(ours_factory(), scores))  # a fresh metric each repeat: nothing read before
        runs["accuracy"].append(timed(accuracy(), bare))
    out: dict[str, Any] = {"task": task, "samples": len(scores), "entries": len(ours_factory()(scores))}
    for kind, pairs in runs.items():
        out[kind] = {"live_20_ms": 1000 * median([p[0] for p in pairs]), "final_ms": 1000 * median([p[1] for p in pairs])}
    out["live_ratio"] = out["ours"]["live_20_ms"] / out["accuracy"]["live_20_ms"]
    out["final_ratio"] = out["ours"]["final_ms"] / out["accuracy"]["final_ms"]
    return out


def main() -> None:
    """Parse arguments, measure each task, print one line per task and write the JSON result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tasks", default=",".join(METRICS))
    parser.add_argument("--out", default="metric_compute")
    args = parser.parse_args()
    results = []
    for task in args.tasks.split(","):
        result = bench(task, args.repeats)
        results.append(result)
        print(f"{task:22s} n={result['samples']:5d} entries={result['entries']:3d}  "
              f"live x20 {result['ours']['live_20_ms']:.0f} / {result['accuracy']['live_20_ms']:.0f} ms "
              f"({result['live_ratio']:.2f}x)  final {result['ours']['final_ms']:.1f} / "
              f"{result['accuracy']['final_ms']:.1f} ms ({result['final_ratio']:.2f}x)")
    print(f"wrote {write_result(args.out, {'repeats': args.repeats, 'tasks': results})}")


if __name__ == "__main__":
    main()
