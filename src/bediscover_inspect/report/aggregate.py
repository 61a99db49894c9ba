"""Mean ± std over seeds of every cell, and the coverage warnings (missing seeds, missing tasks)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from bediscover_inspect.evallogs.scores import GROUP_KEYS, NO_SEED, RUN_KEYS
from bediscover_inspect.measures import bounds_of, is_token_measure

Z95 = 1.959963984540054
"""Two-sided 95 % quantile of the standard normal distribution."""


def aggregate(scores: pd.DataFrame, ddof: int = 0) -> pd.DataFrame:
    """Mean and std over seeds of each cell (task, model, reasoning, variant, scorer, measure, group key, group).

    A cell holds one measure of one scorer over one group of one run's seeds, so two scorers of a task (temporal
    reasoning's relation and ToT scorers both report ``accuracy`` over ``all``) are two cells, never pooled.

    Args:
        scores: :attr:`~bediscover_inspect.evallogs.scores.LogScores.scores`.
        ddof: 0 for the population std (default, the paper's convention), 1 for the sample std.

    Returns:
        One row per cell with ``mean``, ``std`` over seeds (NaN with fewer than ``ddof + 1`` seeds), ``se`` (the
        logged standard error over test items, averaged over the seeds: every seed scores the same items, so their
        errors are not independent and are not divided by √seeds), ``ci95_low`` / ``ci95_high`` (``mean ∓ 1.96
        se``, clipped to the measure's range, :func:`bediscover_inspect.measures.bounds_of`: [0, 100] for a rate,
        [−100, 100] for Kendall's τ, ≥ 0 for a token count), ``n_seeds``, ``seeds``
        (present, ascending, space-separated; ``not recorded`` for a log without a seed), ``samples`` (the cell's group's samples per seed, ``/``-joined in
        seed order; ``?`` for a seed whose log does not say, empty when none does) and ``reasoning_effort``. Rates
        (every measure but token counts, :func:`bediscover_inspect.measures.is_token_measure`) are scaled to
        percent. A measure that some seed has no value of (NaN: a token count the provider did not report, a rate of
        nothing such as dialogue parsing's ``invalid_rate`` with no relation read) has no mean: it is never averaged
        over the other seeds.
    """
    columns = GROUP_KEYS + [
        "mean",
        "std",
        "se",
        "ci95_low",
        "ci95_high",
        "n_seeds",
        "seeds",
        "samples",
        "reasoning_effort",
    ]
    if scores.empty:
        return pd.DataFrame(columns=columns)
    frame = scores.sort_values("seed").copy()
    scale = np.where(frame["measure"].map(is_token_measure), 1.0, 100.0)
    frame["value"] = frame["value"].astype(float) * scale
    frame["stderr"] = frame["stderr"].astype(float) * scale
    cells = (
        frame.groupby(GROUP_KEYS, sort=True, dropna=False)
        .agg(
            mean=("value", "mean"),
            std=("value", lambda v: float(np.std(v, ddof=ddof)) if len(v) > ddof else float("nan")),
            se=("stderr", "mean"),
            n_seeds=("value", "size"),
            seeds=("seed", lambda v: " ".join("not recorded" if s == NO_SEED else str(s) for s in v)),
            samples=(
                "samples",
                lambda v: "" if v.isna().all() else "/".join("?" if pd.isna(s) else str(int(s)) for s in v),
            ),
            reasoning_effort=("reasoning_effort", lambda v: ",".join(sorted(set(v) - {""}))),
        )
        .reset_index()
    )
    unmeasured = frame[frame["value"].isna()].groupby(GROUP_KEYS, dropna=False).size()
    if len(unmeasured):
        keys = pd.MultiIndex.from_frame(cells[GROUP_KEYS])
        cells.loc[keys.isin(unmeasured.index), ["mean", "std"]] = np.nan
    # an interval never leaves the measure's range (the catalog's bounds, in the cell's unit)
    scale = np.where(cells["measure"].map(is_token_measure), 1.0, 100.0)
    low, high = (np.array([bounds_of(m)[i] for m in cells["measure"]], dtype=float) * scale for i in (0, 1))
    cells["ci95_low"] = np.clip(cells["mean"] - Z95 * cells["se"], low, high)
    cells["ci95_high"] = np.clip(cells["mean"] + Z95 * cells["se"], low, high)
    return cells[columns]


def coverage_warnings(
    scores: pd.DataFrame, expected_seeds: Sequence[int] | None = None, expected_tasks: Sequence[str] | None = None
) -> list[str]:
    """Missing seeds and missing tasks, one message each (never averaged away silently).

    Args:
        scores: :attr:`LogScores.scores`.
        expected_seeds: the seeds every run should have; default: every seed seen in ``scores``.
        expected_tasks: the tasks every (model, reasoning) should have; default: every task seen.

    Returns:
        Human-readable messages, sorted; empty when every run has every seed and every task.
    """
    if scores.empty:
        return ["no successful logs found"]
    return sorted(_missing_seeds(scores, expected_seeds) + _missing_tasks(scores, expected_tasks))


def _missing_seeds(scores: pd.DataFrame, expected_seeds: Sequence[int] | None) -> list[str]:
    """One message per run without every expected seed (default: every seed seen)."""
    seeds = sorted(set(expected_seeds) if expected_seeds is not None else set(scores["seed"]))
    runs = scores.groupby(RUN_KEYS)["seed"].agg(lambda s: sorted(set(s)))
    messages = []
    for (task, model, reasoning, variant), present in runs.items():
        missing = [s for s in seeds if s not in present]
        if missing:
            messages.append(
                f"missing seed(s) {missing} for task {task}, model {model}, reasoning {reasoning}"
                + (f", {variant}" if variant else "")
                + f" (present: {present})"
            )
    return messages


def _missing_tasks(scores: pd.DataFrame, expected_tasks: Sequence[str] | None) -> list[str]:
    """One message per model and reasoning mode without an expected task (default: every task seen)."""
    tasks = sorted(set(expected_tasks) if expected_tasks is not None else set(scores["task"]))
    combos = scores.groupby(["model", "reasoning"])["task"].agg(lambda t: set(t))
    return [
        f"missing task {task} for model {model}, reasoning {reasoning}"
        for (model, reasoning), present in combos.items()
        for task in tasks
        if task not in present
    ]
