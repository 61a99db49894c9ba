"""Re-BART reference vectors (shared/data/upstream/sentence_ordering/_reference_metrics) reproduced exactly."""

from __future__ import annotations

import json

import pytest

from bediscover_inspect.sentence_ordering import ordering_metrics as om
from bediscover_inspect.sentence_ordering.scorer import document_scores


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
