"""Class-level analysis of the label-choice tasks (the paper's Limitations): per-class precision, recall and F1
(mean ± std over seeds) and confusion matrices (summed over seeds), per dataset, read from the logs' samples."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bediscover_inspect.evallogs.pairs import Pairs, label_log_rows
from bediscover_inspect.metrics import confusion_of_counts, per_class_prf_of_confusion

RUN = ["task", "model", "reasoning", "variant"]


def class_tables(scores: pd.DataFrame, pairs: Mapping[str, Pairs], ddof: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-class scores and confusion counts of every label-choice run in ``scores``.

    Args:
        scores: :attr:`~bediscover_inspect.evallogs.scores.LogScores.scores` (its ``log`` column names the logs used).
        pairs: :func:`~bediscover_inspect.evallogs.pairs.read_pairs_async` of each of the
            :func:`~bediscover_inspect.evallogs.pairs.label_logs` of ``scores``
            (:attr:`~bediscover_inspect.evallogs.scores.LogScores.classes`).
        ddof: std convention over seeds.

    Returns:
        ``(per_class, confusion)``: ``per_class`` has one row per run, dataset and gold label with
        ``precision``/``recall``/``f1`` mean and std over seeds (in %) and ``support`` (per seed); ``confusion``
        one row per run, dataset, gold and predicted label with ``count`` summed over seeds
        (:data:`~bediscover_inspect.metrics.INVALID_ANSWER` for unreadable answers).
    """
    class_rows: list[dict[str, Any]] = []
    confusion_rows: list[dict[str, Any]] = []
    for row in label_log_rows(scores).itertuples(index=False):
        run = {key: getattr(row, key) for key in RUN}
        for dataset, counts in pairs[row.log].items():
            labels, matrix = confusion_of_counts(counts)
            for label, values in per_class_prf_of_confusion(labels, matrix).items():
                class_rows.append(run | {"dataset": dataset, "seed": row.seed, "label": label} | values)
            confusion_rows += [run | {"dataset": dataset} | cell for cell in _confusion_cells(labels, matrix)]
    per_class = pd.DataFrame(class_rows)
    if not per_class.empty:
        per_class = _over_seeds(per_class, ddof)
    matrix_frame = pd.DataFrame(confusion_rows)
    if not matrix_frame.empty:
        matrix_frame = matrix_frame.groupby(RUN + ["dataset", "gold", "predicted"], sort=True)["count"].sum()
        matrix_frame = matrix_frame.reset_index()
    return per_class, matrix_frame


def _confusion_cells(labels: list[str], matrix: np.ndarray) -> list[dict[str, Any]]:
    """The non-zero cells of a confusion ``matrix`` over ``labels``: ``gold``, ``predicted``, ``count``."""
    return [
        {"gold": gold_label, "predicted": predicted, "count": int(matrix[i, j])}
        for i, gold_label in enumerate(labels)
        for j, predicted in enumerate(labels)
        if matrix[i, j]
    ]


def _over_seeds(per_class: pd.DataFrame, ddof: int) -> pd.DataFrame:
    """Per-class rows of each seed -> one row per run, dataset and label: precision, recall and F1 mean and std
    over seeds (in %), ``support`` (per seed) and ``n_seeds``."""
    keys = RUN + ["dataset", "label"]
    return (
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
