"""The drop each dataset's paper-subset size lets ``bediscover compare`` detect with 80 % power, per measure type.

    python scripts/detectable_drops.py > drops.md

One row per dataset (:func:`bediscover_inspect.gate.power.paper_datasets`) and one per task's ``all`` cell (its
datasets pooled), one column group per test:

* 0/1 measures (accuracy, PMR, temporal micro-F1), McNemar's exact test: exact binomial power
  (:func:`bediscover_inspect.gate.paired_stats.detectable_drop`) at ψ, the share of pairs on which the two runs
  disagree, of 10 %, 20 % and 30 %;
* every other measure (weighted F1, sentence-ordering Acc / LCS / Kendall τ, dialogue-parsing link / full F1), the
  studentised test: ``(t_(1-α/2) + t_0.8) · sd / sqrt(n)``
  (:func:`bediscover_inspect.gate.paired_stats.studentised_detectable_drop`) at sd, the standard deviation of one
  pair's contribution to the difference, of 0.2 and 0.4.

α is the first step of Holm's correction over a whole-suite comparison's headline cells
(:func:`bediscover_inspect.gate.power.headline_cells`): the level a lone regressed cell must reach. The last
column is McNemar's at ψ = 20 % and α = 0.05, the level of a comparison with a single cell.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bediscover_inspect.gate.power import Dataset, detectable, headline_cells, paper_datasets, points  # noqa: E402

PSI = (0.10, 0.20, 0.30)
SD = (0.2, 0.4)


def main() -> int:
    datasets = paper_datasets()
    cells = headline_cells(datasets)
    family = 0.05 / cells
    print(f"Holm family of a whole-suite comparison (--measures headline): {cells} cells; α = 0.05/{cells}\n")
    header = ["task", "dataset", "n", "headline measures (test)"]
    header += [f"0/1, ψ={int(100 * psi)} %" for psi in PSI] + [f"other, sd={sd}" for sd in SD]
    header += ["0/1, ψ=20 %, α=0.05"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    rows = []
    for task in dict.fromkeys(d.task for d in datasets):
        own = [d for d in datasets if d.task == task]
        rows += own + [Dataset(task, "all", sum(d.n for d in own))]
    for dataset in rows:
        kinds = {kind for _, kind in dataset.measures}
        names = ", ".join(f"{name} ({'McNemar' if kind == 'binary' else 't'})" for name, kind in dataset.measures)
        row = [dataset.task, dataset.name, str(dataset.n), names]
        row += [points(detectable(dataset.n, "binary", psi, family)) if "binary" in kinds else "" for psi in PSI]
        row += [points(detectable(dataset.n, "ratio", sd, family)) if kinds - {"binary"} else "" for sd in SD]
        row.append(points(detectable(dataset.n, "binary", 0.2, 0.05)) if "binary" in kinds else "")
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
