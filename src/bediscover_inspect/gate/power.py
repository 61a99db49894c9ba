"""What ``bediscover compare`` can see at the paper's sizes: each dataset's paper-subset size, the number of headline
cells of a whole-suite comparison (the Holm family) and the smallest drop each test detects with 80 % power.

``scripts/detectable_drops.py`` prints the table of ``docs/regression_testing.md`` from :func:`power_rows`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bediscover_inspect.data.registry import TASK_FOLDERS
from bediscover_inspect.gate import paired_stats as ps
from bediscover_inspect.measures import CATALOG, SCORERS

DIALOGUES = {"stac": 109, "molweni": 500, "msdc": 101}
"""Dialogues (the samples of dialogue parsing) in each dataset's file (authors' release; the record counts of the
registry are turns)."""


@dataclass(frozen=True)
class Dataset:
    """One dataset at the paper subset's size: ``n`` samples (dialogues for dialogue parsing)."""

    task: str
    name: str
    n: int

    @property
    def scorer(self) -> str:
        """The scorer of its samples (:meth:`bediscover_inspect.measures.ScorerMeasures.scores`)."""
        return next(s.scorer for s in SCORERS.values() if s.scores(self.task, self.name))

    @property
    def measures(self) -> tuple[tuple[str, str], ...]:
        """``(measure, kind)`` of each headline measure of its scorer (:mod:`bediscover_inspect.measures`); kind
        ``binary`` gets McNemar's exact test, the others the studentised test."""
        return tuple((name, CATALOG[name].per_sample) for name in SCORERS[self.scorer].headline)


def paper_datasets() -> list[Dataset]:
    """Every dataset of the suite at its paper-subset size, in task order: ``int(paper_fraction × records)`` from
    the data registry; Just split at its Just-Manual / Just-Subtitle boundary; dialogue parsing in dialogues
    (:data:`DIALOGUES`)."""
    from bediscover_inspect.data import REGISTRY, subset_size
    from bediscover_inspect.discourse_markers.dataset import JUST_MANUAL_LAST_ID

    rows: list[Dataset] = []
    for file in REGISTRY.values():
        task = TASK_FOLDERS[file.task]
        if file.task == "ddp":
            rows.append(Dataset(task, file.dataset, DIALOGUES[file.dataset]))
        elif file.records is not None:
            n = subset_size(file.records, file.paper_fraction)
            if file.dataset == "just":
                manual = JUST_MANUAL_LAST_ID + 1
                rows += [Dataset(task, "just-manual", manual), Dataset(task, "just-subtitle", n - manual)]
            else:
                rows.append(Dataset(task, "tbd" if file.dataset == "tbd-ee" else file.dataset, n))
    order = list(TASK_FOLDERS.values())
    return sorted(rows, key=lambda d: (order.index(d.task), d.name))


def headline_cells(datasets: list[Dataset]) -> int:
    """Headline cells of a comparison of ``datasets`` at ``--measures headline``: per task and scorer, each
    headline measure in its ``all`` cell and, when the scorer has more than one dataset, in each dataset's cell."""
    cells = 0
    for scorer in {d.scorer for d in datasets}:
        count = sum(d.scorer == scorer for d in datasets)
        cells += len(SCORERS[scorer].headline) * (1 + (count if count > 1 else 0))
    return cells


def detectable(n: int, kind: str, spread: float, alpha: float, power: float = 0.8) -> float:
    """The smallest drop (a share; ``nan`` when none reaches ``power``) a cell of ``n`` pairs detects.

    Args:
        kind: ``binary`` (McNemar's exact test, ``spread`` = ψ, the share of discordant pairs) or another measure
            kind (the studentised test, ``spread`` = sd of one pair's contribution to the difference).
    """
    if kind == "binary":
        return ps.detectable_drop(n, spread, power, alpha)
    return ps.studentised_detectable_drop(n, spread, power, alpha)


def points(value: float) -> str:
    """A share as points with one decimal, ``–`` for ``nan``."""
    return "–" if math.isnan(value) else f"{100 * value:.1f}"
