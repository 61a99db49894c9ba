"""Class-level analysis of the label-choice tasks (the paper's Limitations): per-class precision, recall and F1
(mean ± std over seeds) and confusion matrices (summed over seeds), per dataset, read from the logs' samples."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bediscover_inspect.evallogs.samples import read_samples_async
from bediscover_inspect.measures import SCORERS
from bediscover_inspect.metrics import INVALID_ANSWER, confusion, per_class_prf

LABEL_SCORERS: dict[str, str] = {s.task: s.scorer for s in SCORERS.values() if s.labels}
"""Label-choice task -> the scorer whose ``Score.answer`` is the label read (the measure catalog's label scorers,
:data:`bediscover_inspect.measures.SCORERS`)."""

RUN = ["task", "model", "reasoning", "variant"]


Pairs = dict[str, tuple[list[str], list[str]]]
"""``{dataset: (gold labels, predicted labels)}`` of one log."""


def _label_log_rows(scores: pd.DataFrame) -> pd.DataFrame:
    """The first row of each label-choice run's log (:data:`LABEL_SCORERS`) in ``scores``."""
    return scores[scores["task"].isin(list(LABEL_SCORERS))].drop_duplicates("log")


def label_logs(scores: pd.DataFrame) -> dict[str, str]:
    """The logs of the label-choice runs (:data:`LABEL_SCORERS`) in ``scores``, each once, in order, with their
    task: those whose :func:`read_pairs_async` the class tables need."""
    rows = _label_log_rows(scores)
    return dict(zip(rows["log"], rows["task"], strict=True))


async def read_pairs_async(location: str, task: str) -> Pairs:
    """The gold and predicted labels, per dataset, of the samples of the log at ``location`` scored by ``task``'s
    label scorer (:data:`LABEL_SCORERS`), its samples read one at a time
    (:func:`bediscover_inspect.evallogs.samples.read_samples_async`): only the labels are kept.

    Raises:
        KeyError: ``task`` is not a label-choice task.
        Whatever :func:`~bediscover_inspect.evallogs.samples.read_samples_async` raises for a log that cannot be read.
    """
    scorer = LABEL_SCORERS[task]
    pairs: Pairs = defaultdict(lambda: ([], []))
    async for sample in read_samples_async(location):
        score = sample.scores.get(scorer)
        if score is None or "gold" not in sample.metadata:
            continue
        gold, pred = pairs[str(sample.metadata.get("dataset", "all"))]
        gold.append(str(sample.metadata["gold"]))
        pred.append(str(score.answer) if score.answer is not None else INVALID_ANSWER)
    return dict(pairs)


def class_tables(scores: pd.DataFrame, pairs: Mapping[str, Pairs], ddof: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-class scores and confusion counts of every label-choice run in ``scores``.

    Args:
        scores: :attr:`~bediscover_inspect.evallogs.scores.LogScores.scores` (its ``log`` column names the logs used).
        pairs: :func:`read_pairs_async` of each of the :func:`label_logs` of ``scores``
            (:attr:`~bediscover_inspect.evallogs.scores.LogScores.classes`).
        ddof: std convention over seeds.

    Returns:
        ``(per_class, confusion)``: ``per_class`` has one row per run, dataset and gold label with
        ``precision``/``recall``/``f1`` mean and std over seeds (in %) and ``support`` (per seed); ``confusion``
        one row per run, dataset, gold and predicted label with ``count`` summed over seeds
        (:data:`~bediscover_inspect.metrics.INVALID_ANSWER` for unreadable answers).
    """
    logs = _label_log_rows(scores)
    class_rows: list[dict[str, Any]] = []
    confusion_rows: list[dict[str, Any]] = []
    rows = list(logs.itertuples(index=False))
    for row in rows:
        run = {key: getattr(row, key) for key in RUN}
        for dataset, (gold, pred) in pairs[row.log].items():
            for label, values in per_class_prf(gold, pred).items():
                class_rows.append(run | {"dataset": dataset, "seed": row.seed, "label": label} | values)
            labels, matrix = confusion(gold, pred)
            for i, gold_label in enumerate(labels):
                for j, predicted in enumerate(labels):
                    if matrix[i, j]:
                        confusion_rows.append(
                            run
                            | {
                                "dataset": dataset,
                                "gold": gold_label,
                                "predicted": predicted,
                                "count": int(matrix[i, j]),
                            }
                        )
    per_class = pd.DataFrame(class_rows)
    if not per_class.empty:
        keys = RUN + ["dataset", "label"]
        per_class = (
            per_class.groupby(keys, sort=True)
            .agg(
                **{
                    f"{stat}_{part}": (
                        stat,
                        (lambda v: 100 * float(np.mean(v)))
                        if part == "mean"
                        else (lambda v: 100 * float(np.std(v, ddof=ddof)) if len(v) > ddof else float("nan")),
                    )
                    for stat in ("precision", "recall", "f1")
                    for part in ("mean", "std")
                },
                support=("support", "first"),
                n_seeds=("seed", "size"),
            )
            .reset_index()
        )
    matrix_frame = pd.DataFrame(confusion_rows)
    if not matrix_frame.empty:
        matrix_frame = matrix_frame.groupby(RUN + ["dataset", "gold", "predicted"], sort=True)["count"].sum()
        matrix_frame = matrix_frame.reset_index()
    return per_class, matrix_frame


def write_class_tables(scores: pd.DataFrame, pairs: Mapping[str, Pairs], out: Path, ddof: int = 0) -> list[Path]:
    """Write ``classes/per_class.csv`` and ``classes/confusion.csv`` (see :func:`class_tables`); none if empty."""
    per_class, matrix = class_tables(scores, pairs, ddof)
    if per_class.empty:
        return []
    folder = out / "classes"
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "per_class.csv", folder / "confusion.csv"]
    per_class.to_csv(paths[0], index=False)
    matrix.to_csv(paths[1], index=False)
    return paths
