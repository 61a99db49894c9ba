"""Kendall τ against scipy, which defines it (Re-BART reads τ-b as scipy computes it)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from bediscover_inspect.sentence_ordering import ordering_metrics as om


def _scipy_tau(x: list[int]) -> float:
    tau = kendalltau(x, list(range(len(x)))).statistic
    return 0.0 if tau is None or math.isnan(tau) else float(tau)


def test_kendall_tau_by_hand():
    # gold 0 1 2, answer 2 0 1: pairs (2,0) and (2,1) discordant, (0,1) concordant → (1 − 2)/3
    assert om.kendall_tau([0, 1, 2], [2, 0, 1]) == pytest.approx(-1 / 3, abs=1e-15)
    # answer 0 9 1: the unknown id 9 reads as position 0, so positions 0 0 1 — one tied pair, two concordant
    # → 2 / √(3 − 1) / √3
    assert om.kendall_tau([0, 1, 2], [0, 9, 1]) == pytest.approx(2 / math.sqrt(6), abs=1e-15)
    assert om.kendall_tau([0, 1, 2, 3], [3, 3, 3]) == 0.0  # every position tied: scipy's NaN counts as 0
    assert om.kendall_tau([0, 1, 2], [1]) == 0.0
    assert om.kendall_tau([0], [0]) == 1.0 and om.kendall_tau([0], [1]) == 0.0
    assert om.kendall_tau([0, 1], []) == 0.0


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=12), min_size=2, max_size=40))
def test_kendall_tau_equals_scipy_bit_for_bit(x):
    """Against gold 0 … 12 every predicted id is its own gold position, so τ is scipy's τ-b of ``x`` itself."""
    assert om.kendall_tau(list(range(13)), x) == _scipy_tau(x)


@settings(max_examples=500, deadline=None)
@given(st.permutations(list(range(9))), st.lists(st.integers(min_value=0, max_value=11), max_size=14))
def test_kendall_tau_equals_rebart_scipy_reading(gold, pred):
    """``kendall_tau`` = Re-BART's reading (position of each predicted id in gold, 0 if absent) fed to scipy."""
    positions = [gold.index(p) if p in gold else 0 for p in pred]
    expected = _scipy_tau(positions) if len(pred) >= 2 and len(set(positions)) >= 2 else None
    if expected is not None:
        assert om.kendall_tau(gold, pred) == expected


def test_kendall_tau_on_a_10000_marker_reversal():
    """10,000 markers fully reversed: every pair discordant, τ = −1 (to the ulp scipy's float expression gives)."""
    reversal = list(range(10_000, 0, -1))
    tau = om.kendall_tau(list(range(1, 10_001)), reversal)
    assert tau == _scipy_tau([p - 1 for p in reversal]) == pytest.approx(-1.0, abs=1e-15)
