"""The accuracy drop each dataset's paper-subset size lets ``bediscover compare`` detect with 80 % power.

    python scripts/detectable_drops.py > drops.md

For each dataset whose headline measure is a per-sample 0/1 score (accuracy, PMR; the temporal relations'
micro-F1 equals their accuracy) it prints the smallest drop, in points, that McNemar's exact two-sided test finds
with 80 % power (:func:`bediscover_inspect.gate.paired_stats.detectable_drop`, exact binomial power, no normal
approximation). The drop depends on how often the two runs disagree on a sample (ψ, the discordant share), which
a team reads off its own runs (``worse + better`` over ``n`` in ``compare``'s output): columns for ψ = 10 %, 20 %,
30 % at α = 0.05, and ψ = 20 % at α = 0.05 / 40 — the first step of Holm's correction over about 40 cells
(38 DISRPT corpora plus the overall cell). Rows for ``--limit`` sizes follow the datasets.

Sizes are the paper subsets as the suite loads them: ``int(paper_fraction * records)`` from the data registry
(:mod:`bediscover_inspect.data.registry`), Just split at its Just-Manual / Just-Subtitle boundary. Dialogue
parsing is left out: its headline measures are micro-F1 over relations, tested by the bootstrap.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bediscover_inspect.data import REGISTRY, subset_size  # noqa: E402
from bediscover_inspect.discourse_markers.dataset import JUST_MANUAL_LAST_ID  # noqa: E402
from bediscover_inspect.gate.paired_stats import detectable_drop  # noqa: E402

TASKS = {"dm": "discourse_markers", "tr": "temporal_reasoning", "dr": "discourse_relations", "so": "sentence_ordering"}
MEASURE = {"dm": "accuracy", "tr": "micro-F1 / accuracy", "dr": "accuracy", "so": "PMR"}
TR_NAMES = {"tbd-ee": "tbd", "tdd-man": "tdd-man", "tot-arithmetic": "tot-arithmetic"}
COLUMNS = [(0.10, 0.05), (0.20, 0.05), (0.30, 0.05), (0.20, 0.05 / 40)]
LIMITS = (50, 100, 200, 500)


def dataset_sizes() -> list[tuple[str, str, str, int]]:
    """``(task, dataset, measure, n)`` of every dataset with a 0/1 headline measure, in registry order."""
    rows = []
    for file in REGISTRY.values():
        if file.task not in TASKS or file.records is None:
            continue
        n = subset_size(file.records, file.paper_fraction)
        if file.dataset == "just":
            manual = JUST_MANUAL_LAST_ID + 1
            rows += [
                (TASKS["dm"], "just-manual", MEASURE["dm"], manual),
                (TASKS["dm"], "just-subtitle", MEASURE["dm"], n - manual),
            ]
            continue
        name = TR_NAMES.get(file.dataset, file.dataset)
        rows.append((TASKS[file.task], name, "accuracy" if name == "tot-arithmetic" else MEASURE[file.task], n))
    return sorted(rows, key=lambda r: (list(TASKS.values()).index(r[0]), r[1]))


def _points(n: int, discordant: float, alpha: float) -> str:
    drop = detectable_drop(n, discordant, alpha=alpha)
    return "–" if math.isnan(drop) else f"{100 * drop:.1f}"


def main() -> int:
    header = ["task", "dataset", "measure", "n"] + [
        f"ψ={int(100 * d)} %, α={'0.05' if a == 0.05 else '0.05/40'}" for d, a in COLUMNS
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    rows = dataset_sizes() + [("any (`--limit`)", f"{n} samples", "0/1 measure", n) for n in LIMITS]
    for task, dataset, measure, n in rows:
        cells = [_points(n, d, a) for d, a in COLUMNS]
        print("| " + " | ".join([task, dataset, measure, str(n)] + cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
