"""The gold and predicted labels of the label-choice tasks' logs, per dataset, counted by (gold, predicted) pair:
what the report's class tables (:mod:`bediscover_inspect.report.classes`) are computed from, read one sample at a
time."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from bediscover_inspect.evallogs.samples import read_samples_async
from bediscover_inspect.measures import SCORERS
from bediscover_inspect.metrics import INVALID_ANSWER

if TYPE_CHECKING:
    import pandas as pd

LABEL_SCORERS: dict[str, str] = {s.task: s.scorer for s in SCORERS.values() if s.labels}
"""Label-choice task -> the scorer whose ``Score.answer`` is the label read (the measure catalog's label scorers,
:data:`bediscover_inspect.measures.SCORERS`)."""

Pairs = dict[str, Counter[tuple[str, str]]]
"""``{dataset: {(gold label, predicted label): answers}}`` of one log: what a confusion matrix counts
(:func:`bediscover_inspect.metrics.confusion_of_counts`), held in memory that does not grow with the samples."""


def label_log_rows(scores: pd.DataFrame) -> pd.DataFrame:
    """The first row of each label-choice run's log (:data:`LABEL_SCORERS`) in ``scores`` (a
    :attr:`~bediscover_inspect.evallogs.scores.LogScores.scores` table)."""
    return scores[scores["task"].isin(list(LABEL_SCORERS))].drop_duplicates("log")


def label_logs(scores: pd.DataFrame) -> dict[str, str]:
    """The logs of the label-choice runs (:data:`LABEL_SCORERS`) in ``scores``, each once, in order, with their
    task: those whose :func:`read_pairs_async` the class tables need."""
    rows = label_log_rows(scores)
    return dict(zip(rows["log"], rows["task"], strict=True))


async def read_pairs_async(location: str, task: str) -> Pairs:
    """The (gold, predicted) label pairs counted per dataset (:data:`Pairs`) of the samples of the log at
    ``location`` scored by ``task``'s label scorer (:data:`LABEL_SCORERS`), its samples read one at a time
    (:func:`bediscover_inspect.evallogs.samples.read_samples_async`): only the counts are kept.

    Raises:
        KeyError: ``task`` is not a label-choice task.
        Whatever :func:`~bediscover_inspect.evallogs.samples.read_samples_async` raises for a log that cannot be read.
    """
    scorer = LABEL_SCORERS[task]
    pairs: Pairs = defaultdict(Counter)
    async for sample in read_samples_async(location):
        score = sample.scores.get(scorer)
        if score is None or "gold" not in sample.metadata:
            continue
        pred = str(score.answer) if score.answer is not None else INVALID_ANSWER
        pairs[str(sample.metadata.get("dataset", "all"))][str(sample.metadata["gold"]), pred] += 1
    return dict(pairs)
