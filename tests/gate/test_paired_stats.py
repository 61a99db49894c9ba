"""The comparison statistics against hand-computed values and scipy / scikit-learn references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest, ttest_rel
from sklearn.metrics import f1_score

from bediscover_inspect.gate import paired_stats as ps
from bediscover_inspect.metrics import weighted_prf_of_confusion


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


def test_studentised_test_of_a_mean_is_scipys_paired_t_test():
    base, cand = _paired()
    result = ps.studentised_test(
        float(cand.mean() - base.mean()), ps.leave_one_out_mean(base), ps.leave_one_out_mean(cand)
    )
    reference = ttest_rel(cand, base)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    assert result.delta / result.se == pytest.approx(reference.statistic, rel=1e-9)
    low, high = reference.confidence_interval(0.95)
    assert (result.low, result.high) == pytest.approx((low, high), rel=1e-9)
    assert result.se == pytest.approx((cand - base).std(ddof=1) / math.sqrt(base.size))


def test_studentised_test_reaches_any_holm_threshold_on_a_collapse():
    # 24 dialogues whose link F1 falls from 1 to 0: p far below alpha / 100
    gold = np.arange(5, 29, dtype=float)
    base_loo = ps.leave_one_out_ratio(2 * gold, 2 * gold)
    cand_loo = ps.leave_one_out_ratio(0 * gold, gold)
    result = ps.studentised_test(-1.0, base_loo, cand_loo)
    assert (result.se, result.p_value) == (0.0, 0.0)
    noisy = ps.studentised_test(-0.9, base_loo, ps.leave_one_out_ratio(0.1 * gold * (gold % 3), gold))
    assert noisy.p_value < 1e-10


def test_studentised_test_of_identical_runs_has_p_one():
    base, _ = _paired()
    loo = ps.leave_one_out_mean(base)
    result = ps.studentised_test(0.0, loo, loo)
    assert (result.delta, result.se, result.low, result.high, result.p_value) == (0.0, 0.0, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="n >= 2"):
        ps.studentised_test(0.0, loo[:1], loo[:1])


def _jackknife_se(statistic, n):
    """The textbook jackknife standard error, leaving each row out by recomputing the statistic."""
    values = np.array([statistic(np.delete(np.arange(n), i)) for i in range(n)])
    return math.sqrt((n - 1) / n * np.sum((values - values.mean()) ** 2))


def test_leave_one_out_ratio_and_weighted_match_recomputation():
    rng = np.random.default_rng(5)
    numerator, denominator = rng.integers(0, 4, 40).astype(float), rng.integers(1, 6, 40).astype(float)
    loo = ps.leave_one_out_ratio(numerator, denominator)
    assert loo[7] == pytest.approx((numerator.sum() - numerator[7]) / (denominator.sum() - denominator[7]))
    gold = rng.integers(0, 3, 60)
    pred_a = np.where(rng.random(60) < 0.7, gold, rng.integers(0, 4, 60))  # code 3: an invalid answer
    pred_b = np.where(rng.random(60) < 0.5, gold, rng.integers(0, 4, 60))
    labels = [0, 1, 2, 3]

    def f1(pred):
        return lambda rows: f1_score(gold[rows], pred[rows], labels=labels, average="weighted", zero_division=0)

    def weighted(matrices):
        return weighted_prf_of_confusion(matrices)[:, 2]

    assert weighted(ps.confusion(gold, pred_a, 4)[None])[0] == pytest.approx(f1(pred_a)(np.arange(60)))
    loo_a = ps.leave_one_out_labels(gold, pred_a, 4, weighted)
    loo_b = ps.leave_one_out_labels(gold, pred_b, 4, weighted)
    assert loo_a[11] == pytest.approx(f1(pred_a)(np.delete(np.arange(60), 11)))
    delta = f1(pred_b)(np.arange(60)) - f1(pred_a)(np.arange(60))
    result = ps.studentised_test(delta, loo_a, loo_b)
    assert result.se == pytest.approx(_jackknife_se(lambda rows: f1(pred_b)(rows) - f1(pred_a)(rows), 60))


def test_studentised_detectable_drop_has_the_asked_power():
    # normal theory: (z_0.975 + z_0.8) * sd / sqrt(n) for large n
    assert ps.studentised_detectable_drop(10_000, 0.3) == pytest.approx((1.95996 + 0.84162) * 0.3 / 100, rel=1e-3)
    assert ps.studentised_detectable_drop(100, 0.3, alpha=0.05 / 90) > ps.studentised_detectable_drop(100, 0.3)


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
