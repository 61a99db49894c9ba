"""The counted metrics against the libraries that define them: scikit-learn (weighted P/R/F1, micro-F1) and
scipy (Kendall τ-b). The eval path does not import either (issue 8: ~1.7 s and ~190 MB per process); these
tests are where they are the reference."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau
from sklearn.metrics import f1_score, precision_recall_fscore_support

from bediscover_inspect.discourse_markers.dataset import load_dataset
from bediscover_inspect.metrics import INVALID_ANSWER, micro_f1, weighted_prf
from bediscover_inspect.sentence_ordering import ordering_metrics as om

LABELS = st.sampled_from(["Before", "After", "Includes", "Is_Included", "Simultaneous", "Vague", INVALID_ANSWER])


def _sklearn_weighted(gold: list[str], pred: list[str]) -> tuple[float, float, float]:
    p, r, f, _ = precision_recall_fscore_support(gold, pred, average="weighted", zero_division=0)
    return float(p), float(r), float(f)


def test_weighted_prf_by_hand():
    # support a2 b1 c1; predicted a1 b2 x1; tp a1 b1 c0
    # P = (2·1 + 1·½ + 1·0)/4, R = (2·½ + 1·1 + 0)/4, F1 = (2·⅔ + 1·⅔ + 0)/4
    assert weighted_prf(["a", "a", "b", "c"], ["a", "b", "b", "x"]) == pytest.approx((0.625, 0.5, 0.5), abs=1e-15)
    assert weighted_prf([], []) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="3 gold labels but 2 predictions"):
        weighted_prf(["a", "b", "c"], ["a", "b"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=60))
def test_weighted_prf_equals_sklearn(pairs):
    gold = [g for g, _ in pairs]
    pred = [p for _, p in pairs]
    ours = weighted_prf(gold, pred)
    ref = _sklearn_weighted(gold, pred)
    assert ours == pytest.approx(ref, rel=1e-12, abs=1e-15)
    assert micro_f1(gold, pred) == pytest.approx(
        float(f1_score(gold, pred, average="micro", zero_division=0)), rel=1e-12, abs=1e-15
    )


def test_weighted_prf_equals_sklearn_on_real_gold_labels():
    """Just-Manual's 90 gold labels (mirror file) against a prediction that replaces every third label with the one 17 places on and
    marks every seventh invalid: values far from 0 and 1, checked against scikit-learn."""
    dataset, _ = load_dataset(["just-manual"])
    gold = [str(sample.metadata["gold"]) for sample in dataset]
    assert len(gold) == 90
    pred = [
        INVALID_ANSWER if i % 7 == 0 else (gold[(i + 17) % len(gold)] if i % 3 == 0 else label)
        for i, label in enumerate(gold)
    ]
    ours = weighted_prf(gold, pred)
    assert ours == pytest.approx(_sklearn_weighted(gold, pred), rel=1e-12)
    assert 0.5 < ours[2] < 0.7


def _scipy_tau(x: list[int]) -> float:
    tau = kendalltau(x, list(range(len(x)))).statistic
    return 0.0 if tau is None or math.isnan(tau) else float(tau)


def test_tau_b_by_hand():
    # [2, 0, 1]: pairs (2,0) and (2,1) discordant, (0,1) concordant → (1 − 2)/3
    assert om._tau_b_against_rank([2, 0, 1]) == pytest.approx(-1 / 3, abs=1e-15)
    # [0, 0, 1]: one tied pair, two concordant → 2 / √(3 − 1) / √3
    assert om._tau_b_against_rank([0, 0, 1]) == pytest.approx(2 / math.sqrt(6), abs=1e-15)
    assert om._tau_b_against_rank([3, 3, 3]) == 0.0
    assert om._tau_b_against_rank([1]) == 0.0


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=12), min_size=2, max_size=40))
def test_tau_b_equals_scipy_bit_for_bit(x):
    assert om._tau_b_against_rank(x) == _scipy_tau(x)


@settings(max_examples=500, deadline=None)
@given(st.permutations(list(range(9))), st.lists(st.integers(min_value=0, max_value=11), max_size=14))
def test_kendall_tau_equals_rebart_scipy_reading(gold, pred):
    """``kendall_tau`` = Re-BART's reading (position of each predicted id in gold, 0 if absent) fed to scipy."""
    positions = [gold.index(p) if p in gold else 0 for p in pred]
    expected = _scipy_tau(positions) if len(pred) >= 2 and len(set(positions)) >= 2 else None
    if expected is not None:
        assert om.kendall_tau(gold, pred) == expected


def test_tau_b_on_a_10000_marker_reversal():
    """10,000 markers fully reversed: every pair discordant, τ = −1 (to the ulp scipy's float expression gives)."""
    reversal = list(range(10_000, 0, -1))
    assert om._tau_b_against_rank(reversal) == _scipy_tau(reversal) == pytest.approx(-1.0, abs=1e-15)


EVAL_WITHOUT_SCIENCE_STACK = """
import sys
from inspect_ai import eval
from bediscover_inspect.dialogue_parsing.task import dialogue_parsing
from bediscover_inspect.discourse_markers.task import discourse_markers
from bediscover_inspect.discourse_relations.task import discourse_relations
from bediscover_inspect.sentence_ordering.task import sentence_ordering
from bediscover_inspect.temporal_reasoning.task import temporal_reasoning
from tests.helpers import scripted_model

tasks = [discourse_markers(), temporal_reasoning(dataset="tbd,tot-arithmetic"), discourse_relations(corpora="eng.pdtb.gum"),
         sentence_ordering(datasets="nips-abs"), dialogue_parsing(dataset="stac")]
logs = eval(tasks, model=scripted_model(lambda messages: "Before <s 1> <s 2> 0 1 Comment"), limit=6,
            display="none", log_dir=sys.argv[1])
assert all(log.status == "success" for log in logs), [log.error for log in logs]
assert all(log.results and log.results.scores for log in logs)
print(sorted(m for m in ("sklearn", "scipy") if m in sys.modules))
"""


def test_an_eval_of_every_task_imports_neither_sklearn_nor_scipy(tmp_path):
    """Issue 8: the metrics are counted so an eval process never pays for these imports; a stray import fails."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", EVAL_WITHOUT_SCIENCE_STACK, str(tmp_path)], cwd=repo,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
