"""Paired significance tests of two runs over the same samples: McNemar's exact test, a seeded paired bootstrap,
Holm's step-down correction, and the exact power of McNemar's test (the drop a dataset's size can detect).

Used by :mod:`bediscover_inspect.gate.compare` (``bediscover compare``) and ``scripts/detectable_drops.py``.

* A per-sample 0/1 measure (accuracy, PMR) is tested with McNemar's exact test: under "no difference" each
  discordant pair (right in one run, wrong in the other) is equally likely to go either way, so the count of
  pairs that got worse is Binomial(discordant, 1/2) (McNemar 1947; the exact form is the two-sided binomial test,
  :func:`scipy.stats.binomtest`).
* A corpus-level measure (micro/weighted F1, micro position accuracy, LCS, mean Kendall τ) is tested with a
  paired bootstrap: the same resampled sample indices are applied to both runs, so the spread of the difference
  keeps the pairing (Efron & Tibshirani 1993, ch. 16; Koehn 2004 for its use on NLP test sets).
* Several seeds: pairs are formed within a seed (baseline seed s with candidate seed s) and the seeds are
  strata: McNemar counts the discordant pairs of every seed together, and the bootstrap resamples within each
  seed (a resample keeps each seed's sample count).
* Many cells: :func:`holm` adjusts the p-values of all cells compared (Holm 1979), so the chance that any
  unchanged cell is called significant stays at most ``alpha``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 2000
"""Bootstrap resamples of ``bediscover compare`` (at least 2,000: the 2.5 % tail then rests on 50 resamples)."""

DEFAULT_SEED = 0
"""Seed of the comparison bootstrap (numpy ``default_rng``): the same logs give the same intervals and p-values."""

MAX_BLOCK = 4_000_000
"""Most resampled indices held at once (resamples are drawn in blocks of at most this many indices)."""


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


Statistic = Callable[[np.ndarray], np.ndarray]
"""Maps an index array of shape ``(k, n)`` (rows of sample indices) to the measure of each row, shape ``(k,)``."""


@dataclass(frozen=True)
class BootstrapResult:
    """A paired bootstrap of ``candidate - baseline``.

    Attributes:
        delta: the observed difference (candidate measure minus baseline measure, measure units).
        low, high: the percentile interval of the resampled differences at ``1 - alpha``.
        p_value: two-sided, ``min(1, 2 * min(share of resampled differences <= 0, share >= 0))`` with the
            usual +1 correction (``(count + 1) / (resamples + 1)``): the smallest ``alpha`` whose percentile
            interval excludes 0.
        resamples, seed: as drawn.
    """

    delta: float
    low: float
    high: float
    p_value: float
    resamples: int
    seed: int


def stratified_indices(strata: np.ndarray, rng: np.random.Generator, k: int) -> np.ndarray:
    """``k`` bootstrap resamples of the rows, drawn with replacement within each stratum.

    Args:
        strata: the stratum (seed) of each row, shape ``(n,)``.
        rng: the generator to draw from.
        k: resamples.

    Returns:
        Row indices, shape ``(k, n)``: each row keeps every stratum's size.
    """
    n = strata.size
    out = np.empty((k, n), dtype=np.int64)
    for stratum in np.unique(strata):
        rows = np.flatnonzero(strata == stratum)
        out[:, rows] = rows[rng.integers(0, rows.size, size=(k, rows.size))]
    return out


def paired_bootstrap(
    baseline: Statistic,
    candidate: Statistic,
    n: int,
    strata: np.ndarray | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
) -> BootstrapResult:
    """Paired bootstrap of ``candidate(rows) - baseline(rows)``: both runs see the same resampled rows.

    Args:
        baseline, candidate: :data:`Statistic` of each run over the same ``n`` paired rows (row ``i`` of both is
            one sample of one seed).
        n: paired rows (>= 1).
        strata: stratum of each row (its seed), shape ``(n,)``; rows are resampled within their stratum.
            Default: one stratum.
        resamples: bootstrap resamples (>= 1).
        seed: seed of ``numpy.random.default_rng``.
        alpha: the interval is the ``[alpha/2, 1 - alpha/2]`` percentile interval.

    Returns:
        :class:`BootstrapResult`.

    Raises:
        ValueError: ``n < 1``, ``resamples < 1``, ``alpha`` outside ``(0, 1)`` or ``strata`` of another length.
    """
    if n < 1 or resamples < 1 or not 0 < alpha < 1:
        raise ValueError(
            f"need n >= 1, resamples >= 1 and 0 < alpha < 1; got n={n}, resamples={resamples}, alpha={alpha}"
        )
    strata = np.zeros(n, dtype=np.int64) if strata is None else np.asarray(strata)
    if strata.shape != (n,):
        raise ValueError(f"strata must have shape ({n},), got {strata.shape}")
    observed_rows = np.arange(n)[None, :]
    delta = float(candidate(observed_rows)[0] - baseline(observed_rows)[0])
    rng = np.random.default_rng(seed)
    block = max(1, MAX_BLOCK // n)
    deltas = np.empty(resamples)
    for start in range(0, resamples, block):
        k = min(block, resamples - start)
        rows = stratified_indices(strata, rng, k)
        deltas[start : start + k] = candidate(rows) - baseline(rows)
    low, high = np.quantile(deltas, [alpha / 2, 1 - alpha / 2])
    below = (np.count_nonzero(deltas <= 0) + 1) / (resamples + 1)
    above = (np.count_nonzero(deltas >= 0) + 1) / (resamples + 1)
    return BootstrapResult(delta, float(low), float(high), float(min(1.0, 2 * min(below, above))), resamples, seed)


# --------------------------------------------------------------------------------------- statistics


def mean_statistic(values: np.ndarray) -> Statistic:
    """:data:`Statistic` of the mean of per-row ``values`` (shape ``(n,)``)."""
    values = np.asarray(values, dtype=float)
    return lambda rows: values[rows].mean(axis=1)


def ratio_statistic(numerator: np.ndarray, denominator: np.ndarray) -> Statistic:
    """:data:`Statistic` of ``sum(numerator) / sum(denominator)`` over the rows (0 where the denominator sums
    to 0), the micro average of :func:`bediscover_inspect.metrics.ratio_measure`."""
    numerator, denominator = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)

    def statistic(rows: np.ndarray) -> np.ndarray:
        num, den = numerator[rows].sum(axis=1), denominator[rows].sum(axis=1)
        return np.divide(num, den, out=np.zeros_like(num), where=den != 0)

    return statistic


def confusion_stack(gold: np.ndarray, pred: np.ndarray, labels: int, rows: np.ndarray) -> np.ndarray:
    """Confusion matrices of resampled rows: ``out[r, i, j]`` counts rows of resample ``r`` with gold code ``i``
    and predicted code ``j``; shape ``(k, labels, labels)`` for ``rows`` of shape ``(k, n)``."""
    cells = labels * labels
    codes = (gold * labels + pred)[rows] + (np.arange(rows.shape[0]) * cells)[:, None]
    return np.bincount(codes.ravel(), minlength=rows.shape[0] * cells).reshape(rows.shape[0], labels, labels)


def weighted_f1_statistic(gold: np.ndarray, pred: np.ndarray, labels: int) -> Statistic:
    """:data:`Statistic` of weighted F1 (:func:`bediscover_inspect.metrics.weighted_prf_of_confusion`, index 2)
    over integer label codes ``gold`` and ``pred`` (shape ``(n,)``, codes ``0..labels-1``)."""
    from bediscover_inspect.metrics import weighted_prf_of_confusion

    gold, pred = np.asarray(gold, dtype=np.int64), np.asarray(pred, dtype=np.int64)
    return lambda rows: weighted_prf_of_confusion(confusion_stack(gold, pred, labels, rows))[:, 2]


def weighted_statistic(gold: np.ndarray, pred: np.ndarray, labels: int, index: int) -> Statistic:
    """Weighted precision (``index`` 0), recall (1) or F1 (2) as a :data:`Statistic` (see
    :func:`weighted_f1_statistic`)."""
    from bediscover_inspect.metrics import weighted_prf_of_confusion

    gold, pred = np.asarray(gold, dtype=np.int64), np.asarray(pred, dtype=np.int64)
    return lambda rows: weighted_prf_of_confusion(confusion_stack(gold, pred, labels, rows))[:, index]


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
