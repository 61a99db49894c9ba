"""The sentence-ordering metrics against Re-BART's scorer, per document and as the scorer's corpus metrics, and
against hand-computed values.

The Re-BART values below were computed by running Re-BART's own scorer unmodified (``fabrahman/ReBART`` at commit
``095882abf0236f51c5ea6627b82ddea66fac9ce6``, ``eval/evaluation.py``, git blob ``8ae0e1aa``, MIT licence; its
unused ``nltk`` and ``tqdm`` imports stubbed) on the cases of :data:`CASES`: per case its ``kendall_tau``, ``lcs`` and
``rouge_s`` functions (PMR and correct positions as ``evaluate`` counts them), and over all cases ``evaluate`` on
them written in its input format (``{"gold": "<S0> <S1> … <eos>", "predictions": ["<S1> <S0> …"]}`` per line),
whose printed six-decimal lines are :data:`REBART_CORPUS`. No copy of the script is kept in the repository."""

from __future__ import annotations

import math

import numpy as np
import pytest
from inspect_ai.scorer import SampleScore, Score

from bediscover_inspect.measures import METRICS
from bediscover_inspect.metrics import measure_metrics
from bediscover_inspect.sentence_ordering import ordering_metrics as om
from bediscover_inspect.sentence_ordering.scorer import document_scores

acc, kendall_tau, lcs, lumr, pmr, skip = (METRICS[n] for n in ("acc", "kendall_tau", "lcs", "lumr", "pmr", "skip"))

CASES: list[tuple[str, list[int], list[int], tuple[int, int, int, float, float]]] = [
    # name, gold, answer, Re-BART (PMR, correct positions, LCS, Kendall's tau, ROUGE-S)
    ("identical_4", [0, 1, 2, 3], [0, 1, 2, 3], (1, 4, 4, 1.0, 1.0)),
    ("reversed_6", [0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], (0, 0, 1, -1.0, 0.0)),
    ("last_pair_swapped_4", [0, 1, 2, 3], [0, 1, 3, 2], (0, 2, 3, 2 / 3, 5 / 6)),
    ("rotated_right_5", [0, 1, 2, 3, 4], [4, 0, 1, 2, 3], (0, 0, 4, 0.2, 0.6)),
    ("last_missing_6", [0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4], (0, 5, 5, 1.0, 2 / 3)),
    ("middle_missing_5", [0, 1, 2, 3, 4], [0, 1, 3, 4], (0, 2, 4, 1.0, 0.6)),
    ("duplicate_id_5", [0, 1, 2, 3, 4], [0, 2, 2, 3, 4], (0, 4, 4, 0.9486832980505138, 0.6)),
    ("id_outside_gold_4", [0, 1, 2, 3], [0, 1, 7, 3], (0, 3, 3, 0.5477225575051662, 0.5)),
    ("extra_id_4", [0, 1, 2, 3], [0, 1, 2, 3, 4], (0, 4, 4, 0.31622776601683794, 1.0)),
    ("single_right", [0], [0], (1, 1, 1, 1.0, 1.0)),
    ("single_wrong", [0], [1], (0, 0, 0, 0.0, 0.0)),  # Re-BART's tau is NaN here; evaluate counts it as 0
    ("pair_swapped", [0, 1], [1, 0], (0, 0, 1, -1.0, 0.0)),
    ("shuffled_gold_one_swap", [2, 0, 3, 1], [2, 0, 1, 3], (0, 2, 3, 2 / 3, 5 / 6)),
    ("shuffled_gold_identity_answer", [3, 1, 0, 2], [0, 1, 2, 3], (0, 1, 2, -1 / 3, 1 / 3)),
    ("pairs_swapped_8", [0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6], (0, 0, 4, 0.7142857142857142, 6 / 7)),
    ("short_reversed_prefix_6", [0, 1, 2, 3, 4, 5], [5, 4, 3], (0, 0, 1, -1.0, 0.0)),
]
EMPTY_ANSWER = ("empty_answer_3", [0, 1, 2], [])
"""Re-BART's ``evaluate`` counts an empty answer in N and S and adds nothing for it ("not processed")."""

REBART_CORPUS = {"Accuracy": 0.388889, "PMR": 0.117647, "Kendall's Tau": 0.278054, "LCS": 0.611111, "Rouge-S": 0.519048}
"""``evaluate`` over :data:`CASES` and :data:`EMPTY_ANSWER` (17 documents, 72 gold sentences), as it prints them."""


@pytest.mark.parametrize(("name", "gold", "pred", "expected"), CASES, ids=[c[0] for c in CASES])
def test_per_document_values_are_rebarts(name, gold, pred, expected):
    expected_pmr, expected_positions, expected_lcs, expected_tau, expected_rouge_s = expected
    assert om.perfect_match(gold, pred) == expected_pmr
    assert om.correct_positions(gold, pred) == expected_positions
    assert om.longest_common_subsequence(gold, pred) == expected_lcs
    assert om.kendall_tau(gold, pred) == pytest.approx(expected_tau, abs=1e-12)
    assert om.skip_bigram(gold, pred) == pytest.approx(expected_rouge_s, abs=1e-12)


def _all_cases() -> list[tuple[list[int], list[int]]]:
    return [(gold, pred) for _, gold, pred, _ in CASES] + [(EMPTY_ANSWER[1], EMPTY_ANSWER[2])]


def test_corpus_aggregate():
    """Micro Acc / LCS and mean PMR / τ / ROUGE-S over the 17 cases, the empty answer counted as zeros."""
    cases = _all_cases()
    n_sentences = sum(len(gold) for gold, _ in cases)
    assert (len(cases), n_sentences) == (17, 72)
    assert sum(om.correct_positions(g, p) for g, p in cases) / n_sentences == pytest.approx(
        REBART_CORPUS["Accuracy"], abs=5e-7
    )
    assert sum(om.longest_common_subsequence(g, p) for g, p in cases) / n_sentences == pytest.approx(
        REBART_CORPUS["LCS"], abs=5e-7
    )
    assert sum(om.perfect_match(g, p) for g, p in cases) / len(cases) == pytest.approx(REBART_CORPUS["PMR"], abs=5e-7)
    assert sum(om.kendall_tau(g, p) for g, p in cases) / len(cases) == pytest.approx(
        REBART_CORPUS["Kendall's Tau"], abs=5e-7
    )
    assert sum(om.skip_bigram(g, p) for g, p in cases) / len(cases) == pytest.approx(REBART_CORPUS["Rouge-S"], abs=5e-7)


def test_document_scores_by_hand():
    # gold 0 1 2 3, answer 1 0 2 3: one inversion of C(4,2)=6 pairs -> tau = 1 - 2/6
    scores = document_scores([0, 1, 2, 3], [1, 0, 2, 3])
    assert scores == {
        "pmr": 0.0,
        "acc": 0.5,
        "lcs": 0.75,
        "skip": pytest.approx(5 / 6),
        "kendall_tau": pytest.approx(2 / 3),
        "lumr": 0.0,
    }
    empty = document_scores([0, 1, 2], [])
    assert empty == {"pmr": 0.0, "acc": 0.0, "lcs": 0.0, "skip": 0.0, "kendall_tau": 0.0, "lumr": 1.0}
    assert document_scores([0, 1, 2], [0, 1, 2, 2])["lumr"] == 1.0


def _document(gold, pred, dataset="d", sample_id=None):
    """The SampleScore the scorer gives one document (its measure values plus n_sentences)."""
    value = document_scores(gold, pred) | {"n_sentences": float(len(gold)), "invalid": float(not pred)}
    return SampleScore(score=Score(value=value), sample_id=sample_id, sample_metadata={"dataset": dataset})


def test_corpus_metrics_reproduce_rebart():
    """The scorer's metrics over the 17 cases as SampleScores give Re-BART's corpus numbers."""
    scores = [_document(gold, pred, sample_id=i) for i, (gold, pred) in enumerate(_all_cases())]
    assert acc(stat="value")(scores) == pytest.approx(REBART_CORPUS["Accuracy"], abs=5e-7)
    assert lcs(stat="value")(scores) == pytest.approx(REBART_CORPUS["LCS"], abs=5e-7)
    assert pmr(stat="value")(scores) == pytest.approx(REBART_CORPUS["PMR"], abs=5e-7)
    assert kendall_tau(stat="value")(scores) == pytest.approx(REBART_CORPUS["Kendall's Tau"], abs=5e-7)
    assert skip(stat="value")(scores) == pytest.approx(REBART_CORPUS["Rouge-S"], abs=5e-7)


def test_micro_acc_and_lcs_by_hand():
    """Acc and LCS are Σ count / Σ n over documents, not the mean of per-document ratios."""
    scores = [
        _document([0, 1, 2, 3], [1, 0, 2, 3]),  # 2 of 4 positions, LCS 3
        _document([0, 1, 2], [0, 1, 2]),  # 3 of 3, LCS 3
        _document([0, 1, 2, 3, 4, 5, 6, 7, 8], []),  # invalid: 0 of 9, LCS 0
    ]
    assert acc(stat="value")(scores) == pytest.approx(5 / 16, abs=1e-15)
    assert lcs(stat="value")(scores) == pytest.approx(6 / 16, abs=1e-15)
    both = acc()(scores)
    assert set(both) == {"acc", "acc_stderr"} and both["acc"] == pytest.approx(5 / 16, abs=1e-15)
    assert both["acc_stderr"] == acc(stat="stderr")(scores) > 0
    # the mean measures: Inspect's mean and stderr of the per-document values
    assert pmr()(scores) == {"pmr": pytest.approx(1 / 3), "pmr_stderr": pytest.approx(math.sqrt(1 / 3) / math.sqrt(3))}
    assert lumr(stat="value")(scores) == pytest.approx(1 / 3)
    single = [_document([0, 1], [0, 1])]
    assert acc()(single) == {"acc": 1.0, "acc_stderr": 0.0}


def test_micro_acc_bootstrap_stderr_by_hand():
    """The standard error of micro Acc: std of Σ correct / Σ n over 1000 resamples (numpy ``default_rng(0)``)."""
    docs = [
        ([0, 1, 2, 3], [1, 0, 2, 3]),
        ([0, 1, 2], [0, 1, 2]),
        ([0, 1, 2, 3, 4], [4, 3, 2, 1, 0]),
        ([0, 1], [1, 0]),
        ([0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5]),
    ]
    scores = [_document(g, p) for g, p in docs]
    correct = [om.correct_positions(g, p) for g, p in docs]
    n = [len(g) for g, _ in docs]
    draws = np.random.default_rng(0).integers(0, len(docs), size=(1000, len(docs)))
    resampled = [sum(correct[i] for i in row) / sum(n[i] for i in row) for row in draws]
    assert acc(stat="stderr")(scores) == pytest.approx(float(np.std(resampled)), abs=1e-12)


def test_measures_grouped_by_dataset():
    scores = [_document([0, 1, 2], [0, 1, 2], "a"), _document([0, 1], [1, 0], "b"), _document([0, 1, 2], [], "b")]
    entries = {}
    for entry in measure_metrics(acc):
        value = entry(scores)
        entries |= value if isinstance(value, dict) else {}
    assert entries["acc"] == pytest.approx(3 / 8)
    assert entries["acc_a"] == 1.0 and entries["acc_b"] == 0.0
    assert entries["acc_stderr_a"] == 0.0


def test_a_score_without_its_weight_is_named():
    broken = [SampleScore(score=Score(value={"acc": 1.0}), sample_id="x_1")]
    with pytest.raises(ValueError, match="Sample x_1 score key 'n_sentences' is missing"):
        acc(stat="value")(broken)
