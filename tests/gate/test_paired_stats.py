"""The comparison statistics against hand-computed values and scipy / scikit-learn references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import f1_score

from bediscover_inspect.gate import paired_stats as ps


def test_mcnemar_exact_on_a_known_table():
    # b = 10 right->wrong, c = 2 wrong->right: p = 2 * P(X <= 2; 12, 1/2) = 2 * (1 + 12 + 66) / 4096
    assert ps.mcnemar_exact(10, 2) == pytest.approx(158 / 4096)
    assert ps.mcnemar_exact(2, 10) == pytest.approx(158 / 4096)
    assert ps.mcnemar_exact(7, 3) == pytest.approx(binomtest(7, 10, 0.5).pvalue)
    assert ps.mcnemar_exact(0, 0) == 1.0
    with pytest.raises(ValueError, match="worse=-1"):
        ps.mcnemar_exact(-1, 3)


def test_min_mcnemar_p():
    assert ps.min_mcnemar_p(5) == pytest.approx(2 / 32)  # > 0.05: five pairs cannot show anything
    assert ps.min_mcnemar_p(6) == pytest.approx(2 / 64)
    assert ps.min_mcnemar_p(0) == 1.0


def test_holm_on_known_p_values():
    # sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 = 0.02, 0.03, 0.06, 0.04 -> running max 0.02, 0.03, 0.06, 0.06
    adjusted = ps.holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted.tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert ps.holm([0.5, 0.9]).tolist() == pytest.approx([1.0, 1.0])
    assert ps.holm([]).size == 0
    with pytest.raises(ValueError, match="lie in"):
        ps.holm([0.2, 1.5])


def _paired(n=300, seed=3):
    rng = np.random.default_rng(seed)
    base = rng.normal(0.6, 0.2, n)
    return base, base + rng.normal(-0.05, 0.1, n)


def test_bootstrap_is_reproducible_with_its_seed():
    base, cand = _paired()
    a = ps.paired_bootstrap(ps.mean_statistic(base), ps.mean_statistic(cand), base.size, seed=7)
    b = ps.paired_bootstrap(ps.mean_statistic(base), ps.mean_statistic(cand), base.size, seed=7)
    c = ps.paired_bootstrap(ps.mean_statistic(base), ps.mean_statistic(cand), base.size, seed=8)
    assert a == b
    assert (a.low, a.high) != (c.low, c.high)
    assert a.resamples == 2000 and a.seed == 7


def test_bootstrap_interval_matches_the_normal_theory_of_a_paired_mean():
    base, cand = _paired()
    result = ps.paired_bootstrap(ps.mean_statistic(base), ps.mean_statistic(cand), base.size)
    diff = cand - base
    se = diff.std() / math.sqrt(diff.size)
    assert result.delta == pytest.approx(diff.mean())
    assert result.high - result.low == pytest.approx(2 * 1.96 * se, rel=0.1)
    assert result.p_value == pytest.approx(1 / 2001 * 2)  # every resampled difference is below 0


def test_bootstrap_of_identical_runs_has_p_one():
    base, _ = _paired()
    result = ps.paired_bootstrap(ps.mean_statistic(base), ps.mean_statistic(base), base.size)
    assert (result.delta, result.low, result.high, result.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_stratified_resamples_keep_each_stratum():
    strata = np.array([0, 0, 0, 1, 1, 2])
    rows = ps.stratified_indices(strata, np.random.default_rng(0), 50)
    assert rows.shape == (50, 6)
    assert np.isin(rows[:, :3], [0, 1, 2]).all()
    assert np.isin(rows[:, 3:5], [3, 4]).all()
    assert (rows[:, 5] == 5).all()


def test_ratio_and_weighted_statistics_equal_their_references():
    numerator, denominator = np.array([1.0, 4.0, 0.0]), np.array([2.0, 4.0, 3.0])
    assert ps.ratio_statistic(numerator, denominator)(np.array([[0, 1, 2], [2, 2, 2]])).tolist() == [5 / 9, 0.0]
    gold = np.array([0, 0, 1, 1, 2, 2, 2])
    pred = np.array([0, 1, 1, 1, 2, 0, 3])  # code 3: an invalid answer, never gold
    value = ps.weighted_f1_statistic(gold, pred, 4)(np.arange(7)[None, :])[0]
    assert value == pytest.approx(f1_score(gold, pred, labels=[0, 1, 2, 3], average="weighted", zero_division=0))


def test_mcnemar_power_by_hand():
    # 6 pairs, all discordant: the test rejects only at 6-0 (2/64 <= 0.05; 2*7/64 is not)
    assert ps.mcnemar_power(6, 1.0, 1.0) == pytest.approx(1.0)
    assert ps.mcnemar_power(6, 1.0, 0.0) == pytest.approx(2 / 64)
    assert ps.mcnemar_power(5, 1.0, 1.0) == 0.0  # 2/32 > 0.05: five pairs never reject


def test_detectable_drop_has_the_asked_power():
    drop = ps.detectable_drop(400, 0.2)
    assert ps.mcnemar_power(400, 0.2, drop) >= 0.8 > ps.mcnemar_power(400, 0.2, drop - 0.002)
    assert ps.detectable_drop(400, 0.2) > ps.detectable_drop(1600, 0.2)
    assert math.isnan(ps.detectable_drop(5, 0.2))
