"""One cell of ``compare`` tested: the observed values of a measure on the two sides, computed by the measure
catalog (:mod:`bediscover_inspect.measures`), each side's value with every pair left out in turn, the test of the
difference (:mod:`.paired_stats`) and the causes of the pairs that got worse. Which test each kind of measure gets
is :data:`TESTS` (the module docstring of :mod:`.compare` says why)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bediscover_inspect.measures import Measure

from . import paired_stats as ps
from .columns import CellScores, Scored
from .pairing import CompareError

TESTS = {
    "binary": "McNemar exact",
    "mean": "paired t",
    "ratio": "jackknife t",
    "label": "jackknife t",
}
"""The test of each kind of measure (:attr:`bediscover_inspect.measures.Measure.per_sample`), as the output names
it."""

Rows = CellScores | Sequence[Scored]
"""One side's scores of a cell, pair by pair: columns of the runs (:class:`~.columns.CellScores`) or
:class:`~.columns.Scored` rows."""


def _cell(rows: Rows) -> CellScores:
    return rows if isinstance(rows, CellScores) else CellScores.of_rows(rows)


def _per_sample(measure: Measure, rows: CellScores) -> tuple[np.ndarray, np.ndarray | None]:
    """(values or numerators, denominators) of one side (the catalog's formulas)."""
    try:
        numbers = measure.numbers_of(rows)
        return numbers, measure.denominators_of(rows) if measure.per_sample == "ratio" else None
    except ValueError as exc:
        raise CompareError(f"measure {measure.name}: {exc}") from None


def _observed(measure: Measure, rows: CellScores) -> float:
    """The measure over one side's rows, computed by the catalog (:meth:`Measure.compute_of`), as the log's
    metric."""
    try:
        if measure.kind == "label":
            return measure.compute_of(rows, rows.gold, rows.answers)
        return measure.compute_of(rows)
    except ValueError as exc:
        raise CompareError(f"measure {measure.name}: {exc}") from None


@dataclass
class _Sides:
    """One cell's two sides as the tests need them: the observed measures, each with every row left out in turn
    (``None`` for fewer than 2 rows), the per-sample 0/1 values of a binary measure, and whether every paired
    value is identical."""

    value_a: float
    value_b: float
    loo_a: np.ndarray | None
    loo_b: np.ndarray | None
    binary: tuple[np.ndarray, np.ndarray] | None
    identical: bool


def _label_sides(measure: Measure, base: CellScores, cand: CellScores) -> _Sides:
    """:func:`_sides` of a label measure: the labels coded as integers, left out in turn from the confusions."""
    n = len(base)
    gold_a, answers_a, answers_b = base.gold, base.answers, cand.answers
    labels = sorted(set(gold_a) | set(answers_a) | set(answers_b))
    code = {label: i for i, label in enumerate(labels)}
    gold = np.array([code[g] for g in gold_a])
    pred_a, pred_b = np.array([code[a] for a in answers_a]), np.array([code[a] for a in answers_b])
    statistic = measure.of_confusions
    return _Sides(
        _observed(measure, base),
        _observed(measure, cand),
        ps.leave_one_out_labels(gold, pred_a, len(labels), statistic) if n > 1 else None,
        ps.leave_one_out_labels(gold, pred_b, len(labels), statistic) if n > 1 else None,
        None,
        bool(np.array_equal(pred_a, pred_b)),
    )


def _ratio_sides(measure: Measure, base: CellScores, cand: CellScores) -> _Sides:
    """:func:`_sides` of a ratio of sums: numerators and denominators left out in turn."""
    n = len(base)
    values_a, den_a = _per_sample(measure, base)
    values_b, den_b = _per_sample(measure, cand)
    assert den_a is not None and den_b is not None
    return _Sides(
        _observed(measure, base),
        _observed(measure, cand),
        ps.leave_one_out_ratio(values_a, den_a) if n > 1 else None,
        ps.leave_one_out_ratio(values_b, den_b) if n > 1 else None,
        None,
        bool(np.array_equal(values_a, values_b) and np.array_equal(den_a, den_b)),
    )


def _mean_sides(measure: Measure, base: CellScores, cand: CellScores) -> _Sides:
    """:func:`_sides` of a mean of per-sample values (0/1 or numbers), each value left out in turn."""
    n = len(base)
    values_a, _ = _per_sample(measure, base)
    values_b, _ = _per_sample(measure, cand)
    return _Sides(
        _observed(measure, base),
        _observed(measure, cand),
        ps.leave_one_out_mean(values_a) if n > 1 else None,
        ps.leave_one_out_mean(values_b) if n > 1 else None,
        (values_a, values_b) if measure.per_sample == "binary" else None,
        bool(np.array_equal(values_a, values_b)),
    )


def _sides(measure: Measure, base: CellScores, cand: CellScores) -> _Sides:
    """One cell's two sides (:class:`_Sides`) by the measure's per-sample kind."""
    if measure.per_sample == "label":
        return _label_sides(measure, base, cand)
    if measure.per_sample == "ratio":
        return _ratio_sides(measure, base, cand)
    return _mean_sides(measure, base, cand)


def measure_value(measure: Measure, rows: Rows) -> float:
    """The value of ``measure`` over one side's scores of a cell, measure units (as the cells' ``baseline`` and
    ``candidate``); the test that ties it to the metric each log reports is ``tests/gate/test_one_truth.py``."""
    return _sides(measure, _cell(rows), _cell(rows)).value_a


def test_cell(measure: Measure, base: Rows, cand: Rows, alpha: float) -> dict[str, Any]:
    """Test one cell: observed values, the studentised interval of the difference and the p-value.

    Returns:
        ``baseline``, ``candidate`` (measure units), ``delta``, ``low``, ``high``, ``se`` (points, signed so that
        negative is worse; the interval ``Δ ± t · se`` is kept within the largest difference the measure's range
        allows, ±100 points for a 0–1 measure, :attr:`~bediscover_inspect.measures.Measure.bounds`), ``test`` (:data:`TESTS`), ``worse``, ``better`` (discordant pairs of a binary measure,
        else ``None``), ``p_value`` (``nan`` for fewer than 2 pairs) and ``identical`` (every paired value equal).
    """
    sides = _sides(measure, _cell(base), _cell(cand))
    sign = 100.0 if measure.higher_is_better else -100.0
    delta = sides.value_b - sides.value_a
    out: dict[str, Any] = {
        "baseline": sides.value_a,
        "candidate": sides.value_b,
        "test": TESTS[measure.per_sample],
        "worse": None,
        "better": None,
        "could_worsen": None,
        "identical": sides.identical,
    }
    undefined = math.isnan(sides.value_a) or math.isnan(sides.value_b)  # a rate of nothing on a side: no test
    if sides.loo_a is None or sides.loo_b is None or undefined:
        return out | {"delta": sign * delta, "low": math.nan, "high": math.nan, "se": math.nan, "p_value": math.nan}
    result = ps.studentised_test(delta, sides.loo_a, sides.loo_b, alpha)
    low, high = sorted((sign * result.low, sign * result.high))
    reach = 100.0 * (measure.bounds[1] - measure.bounds[0])  # no difference of two values in range is larger
    low, high = max(low, -reach), min(high, reach)
    out |= {"delta": sign * delta, "low": low, "high": high, "se": 100.0 * result.se, "p_value": result.p_value}
    if sides.binary is not None:
        bin_a, bin_b = sides.binary
        good_a, good_b = (bin_a > 0.5, bin_b > 0.5) if measure.higher_is_better else (bin_a < 0.5, bin_b < 0.5)
        worse, better = int(np.sum(good_a & ~good_b)), int(np.sum(~good_a & good_b))
        out |= {
            "worse": worse,
            "better": better,
            "could_worsen": int(np.sum(good_a)),
            "p_value": ps.mcnemar_exact(worse, better),
        }
    return out


def newly_lost(measure: Measure, base: Rows, cand: Rows) -> dict[str, int]:
    """Why a cell's paired samples got worse: ``newly_worse`` (samples worse on the candidate: a 0/1 or mean measure
    whose value moved the wrong way, a ratio whose numerator did — fewer true positives —, a label measure whose
    answer was right and is not), and of those ``newly_cut_off`` and ``newly_reasoning_only`` (the candidate's
    ``cut_off`` / ``reasoning_only`` value above the baseline's: :mod:`bediscover_inspect.causes`; a log without
    them counts 0)."""
    base, cand = _cell(base), _cell(cand)
    if measure.per_sample == "label":
        worse = np.array(
            [a == g and b != h for a, g, b, h in zip(base.answers, base.gold, cand.answers, cand.gold, strict=True)],
            dtype=bool,
        )
    else:
        values_a, values_b = _per_sample(measure, base)[0], _per_sample(measure, cand)[0]
        moved = values_b - values_a if measure.higher_is_better else values_a - values_b
        worse = np.nan_to_num(moved) < 0

    def rose(key: str) -> int:
        return int(np.sum(worse & (cand.causes(key) > base.causes(key))))

    return {
        "newly_worse": int(np.sum(worse)),
        "newly_cut_off": rose("cut_off"),
        "newly_reasoning_only": rose("reasoning_only"),
    }
