"""Re-BART reference vectors (the upstream ``_reference_metrics``) reproduced exactly, per document and by the
scorer's corpus metrics; the metrics against hand-computed values."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from inspect_ai.scorer import SampleScore, Score

from bediscover_inspect.measures import METRICS
from bediscover_inspect.metrics import measure_metrics
from bediscover_inspect.sentence_ordering import ordering_metrics as om
from bediscover_inspect.sentence_ordering.scorer import document_scores

acc, kendall_tau, lcs, lumr, pmr, skip = (METRICS[n] for n in ("acc", "kendall_tau", "lcs", "lumr", "pmr", "skip"))


@pytest.fixture(scope="module")
def vectors(upstream_root):
    path = upstream_root / "sentence_ordering" / "_reference_metrics" / "rebart_metric_test_vectors.json"
    return json.loads(path.read_text())


def test_per_instance_vectors(vectors):
    checked = 0
    for case in vectors["per_instance"]:
        expected = case["rebart"]
        if not isinstance(expected, dict):  # the empty prediction, handled in the corpus test
            continue
        gold, pred = case["gold"], case["pred"]
        assert om.perfect_match(gold, pred) == expected["pmr"], case["name"]
        assert om.correct_positions(gold, pred) == expected["acc_correct_positions"], case["name"]
        assert om.longest_common_subsequence(gold, pred) == expected["lcs"], case["name"]
        assert om.kendall_tau(gold, pred) == pytest.approx(expected["kendall_tau"], abs=1e-6), case["name"]
        assert om.skip_bigram(gold, pred) == pytest.approx(expected["rouge_s"], abs=1e-6), case["name"]
        checked += 1
    assert checked == 18


def test_corpus_aggregate(vectors):
    """Micro Acc / LCS and mean PMR / τ / ROUGE-S over the 19 cases, the empty prediction counted as zeros."""
    cases = vectors["per_instance"]
    n_sentences = sum(len(c["gold"]) for c in cases)
    acc = sum(om.correct_positions(c["gold"], c["pred"]) for c in cases) / n_sentences
    lcs = sum(om.longest_common_subsequence(c["gold"], c["pred"]) for c in cases) / n_sentences
    pmr = sum(om.perfect_match(c["gold"], c["pred"]) for c in cases) / len(cases)
    tau = sum(om.kendall_tau(c["gold"], c["pred"]) for c in cases) / len(cases)
    skip = sum(om.skip_bigram(c["gold"], c["pred"]) for c in cases) / len(cases)
    expected = vectors["aggregate_over_all_cases_as_one_corpus"]
    assert acc == pytest.approx(expected["Accuracy"], abs=1e-6)
    assert lcs == pytest.approx(expected["LCS"], abs=1e-6)
    assert pmr == pytest.approx(expected["PMR"], abs=1e-6)
    assert tau == pytest.approx(expected["Kendall's Tau"], abs=1e-6)
    assert skip == pytest.approx(expected["Rouge-S"], abs=1e-6)


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


def test_corpus_metrics_reproduce_rebart(vectors):
    """The scorer's metrics over the 19 cases as SampleScores give Re-BART's corpus numbers."""
    cases = vectors["per_instance"]
    scores = [_document(c["gold"], c["pred"], sample_id=c["name"]) for c in cases]
    expected = vectors["aggregate_over_all_cases_as_one_corpus"]
    assert acc(stat="value")(scores) == pytest.approx(expected["Accuracy"], abs=1e-6)
    assert lcs(stat="value")(scores) == pytest.approx(expected["LCS"], abs=1e-6)
    assert pmr(stat="value")(scores) == pytest.approx(expected["PMR"], abs=1e-6)
    assert kendall_tau(stat="value")(scores) == pytest.approx(expected["Kendall's Tau"], abs=1e-6)
    assert skip(stat="value")(scores) == pytest.approx(expected["Rouge-S"], abs=1e-6)


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
