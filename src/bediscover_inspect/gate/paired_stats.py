"""Paired significance tests of two runs over the same samples: McNemar's exact test, a studentised paired test
with a jackknife standard error, Holm's step-down correction, and the power of both tests (the drop a dataset's
size can detect).

Used by :mod:`bediscover_inspect.gate.compare` (``bediscover compare``) and ``scripts/detectable_drops.py``.

* A per-sample 0/1 measure (accuracy, PMR) is tested with McNemar's exact test: under "no difference" each
  discordant pair (right in one run, wrong in the other) is equally likely to go either way, so the count of
  pairs that got worse is Binomial(discordant, 1/2) (McNemar 1947; the exact form is the two-sided binomial test,
  :func:`scipy.stats.binomtest`).
* Every other measure (a mean of per-sample numbers, a ratio of sums such as micro-F1, weighted F1) is tested with
  a paired studentised statistic: ``t = Δ / se`` where ``se`` is the jackknife standard error of the difference
  (leave one paired row out of both runs; Efron & Tibshirani 1993, ch. 11), and the two-sided p-value comes from
  Student's t with ``n - 1`` degrees of freedom. For a mean the jackknife standard error is the usual
  ``sd(differences) / sqrt(n)``, so the test is the paired t-test (:func:`scipy.stats.ttest_rel`); for a ratio or
  weighted F1 it is the delta-method standard error computed without its derivatives. The p-value is analytic,
  so a large change reaches any Holm threshold (a resampling p-value cannot go below ``1 / (resamples + 1)``).
* Every cell's interval is ``Δ ± t_(n-1, 1-alpha/2) · se``.
* Several seeds: pairs are formed within a seed (baseline seed s with candidate seed s); every (sample, seed)
  pair is one row: McNemar counts the discordant pairs of every seed together, the jackknife leaves out one row.
* Many cells: :func:`holm` adjusts the p-values of all cells compared (Holm 1979), so the chance that any
  unchanged cell is called significant stays at most ``alpha``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


def mcnemar_exact(worse: int, better: int) -> float:
    """Two-sided p-value of McNemar's exact test from the discordant pairs of a paired 0/1 measure.

    Args:
        worse: pairs right in the baseline and wrong in the candidate (``b`` of the 2x2 table).
        better: pairs wrong in the baseline and right in the candidate (``c``).

    Returns:
        ``scipy.stats.binomtest(worse, worse + better, 0.5).pvalue`` (two-sided); 1.0 when no pair is discordant.

    Raises:
        ValueError: a negative count.
    """
    from scipy.stats import binomtest

    if worse < 0 or better < 0:
        raise ValueError(f"discordant counts must be >= 0, got worse={worse}, better={better}")
    if worse + better == 0:
        return 1.0
    return float(binomtest(int(worse), int(worse + better), 0.5).pvalue)


def min_mcnemar_p(pairs: int) -> float:
    """The smallest two-sided p-value McNemar's exact test can give on ``pairs`` pairs (all discordant one way):
    ``2 * 0.5**pairs`` capped at 1. A cell where even this is not below ``alpha`` is too small to tell."""
    return min(1.0, 2.0 * 0.5 ** max(pairs, 0))


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), in the order given.

    Sorted ascending, the i-th smallest (0-based) becomes ``max_{j<=i} min(1, (m - j) * p_(j))``; a cell is
    significant at family-wise level ``alpha`` when its adjusted p-value is below ``alpha``.

    Args:
        p_values: one raw p-value per cell, shape ``(m,)``, each in ``[0, 1]``.

    Returns:
        Adjusted p-values, shape ``(m,)``, same order as ``p_values``.

    Raises:
        ValueError: a p-value outside ``[0, 1]`` or NaN.
    """
    p = np.asarray(p_values, dtype=float)
    if p.size and (np.isnan(p).any() or (p < 0).any() or (p > 1).any()):
        raise ValueError(f"p-values must lie in [0, 1], got {p.tolist()}")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


@dataclass(frozen=True)
class StudentisedResult:
    """A studentised paired test of ``candidate - baseline`` (module docstring).

    Attributes:
        delta: the observed difference (candidate measure minus baseline measure, measure units).
        se: jackknife standard error of ``delta`` (measure units); 0 when every leave-one-out difference is equal.
        low, high: ``delta ± t_(n-1, 1-alpha/2) · se``.
        p_value: two-sided p-value of ``delta / se`` under Student's t with ``n - 1`` degrees of freedom; 0 when
            ``se`` is 0 and ``delta`` is not, 1 when both are 0.
        n: paired rows.
    """

    delta: float
    se: float
    low: float
    high: float
    p_value: float
    n: int


def leave_one_out_mean(values: np.ndarray) -> np.ndarray:
    """The mean of ``values`` (shape ``(n,)``, ``n >= 2``) with each row left out in turn, shape ``(n,)``."""
    values = np.asarray(values, dtype=float)
    return (values.sum() - values) / (values.size - 1)


def leave_one_out_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``Σ numerator / Σ denominator`` with each row left out in turn (0 where the rest's denominator is 0), the
    micro average of :func:`bediscover_inspect.metrics.ratio_measure`; shape ``(n,)``."""
    numerator, denominator = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    num, den = numerator.sum() - numerator, denominator.sum() - denominator
    return np.divide(num, den, out=np.zeros_like(num), where=den != 0)


def confusion(gold: np.ndarray, pred: np.ndarray, labels: int) -> np.ndarray:
    """The confusion matrix of integer label codes (rows gold, columns predicted), shape ``(labels, labels)``."""
    matrix = np.zeros((labels, labels), dtype=np.int64)
    np.add.at(matrix, (np.asarray(gold, dtype=np.int64), np.asarray(pred, dtype=np.int64)), 1)
    return matrix


def leave_one_out_labels(
    gold: np.ndarray, pred: np.ndarray, labels: int, statistic: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """A label statistic (``(k, L, L) -> (k,)`` over confusion matrices, e.g.
    :meth:`bediscover_inspect.measures.Measure.of_confusions`) of integer label codes ``gold`` and ``pred``
    (shape ``(n,)``) with each row left out in turn, shape ``(n,)``: the confusion matrix less that row's cell,
    evaluated once per distinct (gold, predicted) cell."""
    gold, pred = np.asarray(gold, dtype=np.int64), np.asarray(pred, dtype=np.int64)
    cells, row_cell = np.unique(gold * labels + pred, return_inverse=True)
    stack = np.repeat(confusion(gold, pred, labels)[None, :, :], cells.size, axis=0)
    stack[np.arange(cells.size), cells // labels, cells % labels] -= 1
    return np.asarray(statistic(stack))[row_cell.ravel()]


def studentised_test(
    delta: float, leave_one_out_baseline: np.ndarray, leave_one_out_candidate: np.ndarray, alpha: float = 0.05
) -> StudentisedResult:
    """Paired studentised test of an observed difference with the jackknife standard error (module docstring).

    Args:
        delta: candidate measure minus baseline measure over all ``n`` paired rows.
        leave_one_out_baseline, leave_one_out_candidate: each run's measure with row ``i`` left out, shape
            ``(n,)`` (:func:`leave_one_out_mean`, :func:`leave_one_out_ratio`, :func:`leave_one_out_labels`).
        alpha: the interval is at ``1 - alpha``.

    Returns:
        :class:`StudentisedResult`.

    Raises:
        ValueError: fewer than 2 rows, arrays of other shapes, or ``alpha`` outside ``(0, 1)``.
    """
    from scipy.stats import t as student

    a, b = np.asarray(leave_one_out_baseline, dtype=float), np.asarray(leave_one_out_candidate, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2 or not 0 < alpha < 1:
        raise ValueError(f"need two arrays of one shape (n,), n >= 2, and 0 < alpha < 1; got {a.shape}, {b.shape}")
    n = a.size
    differences = b - a
    se = float(np.sqrt((n - 1) / n * np.sum((differences - differences.mean()) ** 2)))
    if se <= 1e-12 * max(1.0, abs(delta)):
        return StudentisedResult(delta, 0.0, delta, delta, 1.0 if delta == 0 else 0.0, n)
    half = float(student.ppf(1 - alpha / 2, n - 1)) * se
    p_value = float(2 * student.sf(abs(delta) / se, n - 1))
    return StudentisedResult(delta, se, delta - half, delta + half, p_value, n)


# --------------------------------------------------------------------------------------- power


def mcnemar_power(n: int, discordant: float, drop: float, alpha: float = 0.05) -> float:
    """Exact power of the two-sided exact McNemar test to see a drop of ``drop`` (a share, 0.05 = 5 points).

    Model: each of ``n`` pairs is discordant with probability ``discordant`` (ψ = p_worse + p_better), and
    ``drop = p_worse - p_better``. Given ``k`` discordant pairs the worse ones are Binomial(k, q) with
    ``q = (ψ + drop) / (2ψ)``; the test rejects when ``min(worse, better) <= c_k``, the largest ``c`` with
    ``2 * BinomCDF(c; k, 1/2) <= alpha``. Power sums the rejection chance over ``k ~ Binomial(n, ψ)``.

    Raises:
        ValueError: ``drop`` outside ``[0, discordant]`` or ``discordant`` outside ``(0, 1]``.
    """
    from scipy.stats import binom

    if not 0 < discordant <= 1 or not 0 <= drop <= discordant:
        raise ValueError(f"need 0 < discordant <= 1 and 0 <= drop <= discordant, got {discordant}, {drop}")
    k = np.arange(n + 1)
    # largest c with 2*cdf(c) <= alpha: ppf gives the smallest c with cdf(c) >= alpha/2; step back when above
    c = binom.ppf(alpha / 2, k, 0.5)
    c = np.where(2 * binom.cdf(c, k, 0.5) <= alpha, c, c - 1)
    q = (discordant + drop) / (2 * discordant)
    reject = binom.cdf(c, k, q) + binom.sf(k - c - 1, k, q)  # c = -1 (too few pairs to reject): 0
    return float(np.sum(binom.pmf(k, n, discordant) * reject))


def detectable_drop(n: int, discordant: float, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest drop (a share) McNemar's exact test detects with ``power`` on ``n`` pairs (bisection on
    :func:`mcnemar_power`, to 1e-4); ``nan`` when even a drop of ``discordant`` (every discordant pair worse)
    falls short."""
    if mcnemar_power(n, discordant, discordant, alpha) < power:
        return float("nan")
    low, high = 0.0, discordant
    while high - low > 1e-4:
        middle = (low + high) / 2
        low, high = (middle, high) if mcnemar_power(n, discordant, middle, alpha) < power else (low, middle)
    return high


def studentised_detectable_drop(n: int, sd: float, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest drop the studentised test (:func:`studentised_test`) detects with ``power`` on ``n`` pairs,
    in measure units: ``(t_(n-1, 1-alpha/2) + t_(n-1, power)) · sd / sqrt(n)`` (the normal-theory sample-size
    formula with Student's quantiles).

    Args:
        n: paired rows (>= 2).
        sd: standard deviation of one row's contribution to the difference (``se · sqrt(n)`` of a cell of
            ``bediscover compare``; for a mean, the sd of the per-sample differences), measure units.
        power, alpha: in ``(0, 1)``.

    Raises:
        ValueError: ``n < 2``, ``sd < 0`` or ``power`` / ``alpha`` outside ``(0, 1)``.
    """
    from scipy.stats import t as student

    if n < 2 or sd < 0 or not 0 < power < 1 or not 0 < alpha < 1:
        raise ValueError(f"need n >= 2, sd >= 0, 0 < power < 1, 0 < alpha < 1; got {n}, {sd}, {power}, {alpha}")
    return float((student.ppf(1 - alpha / 2, n - 1) + student.ppf(power, n - 1)) * sd / np.sqrt(n))
