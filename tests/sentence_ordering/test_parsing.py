"""Marker parsing, duplicate-sentence handling and a hypothesis fuzz of parser + measures."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bediscover_inspect.sentence_ordering.dataset import canonical_ids
from bediscover_inspect.sentence_ordering.scorer import canonicalise, document_scores, parse_markers


def test_marker_variants():
    assert parse_markers("<s 2> <s 1> <s 3>") == [1, 0, 2]
    assert parse_markers("<s2><s1><S 3>") == [1, 0, 2]
    assert parse_markers("[s 3] [s 1] [s2]") == [2, 0, 1]
    assert parse_markers("The order is: (s2), (s1).") == [1, 0]
    assert parse_markers("<s_4> <s-1>") == [3, 0]


def test_closing_tags_and_reasoning_ignored():
    echoed = "<s 2> second sentence </s 2> <s 1> first </s 1>"
    assert parse_markers(echoed) == [1, 0]
    assert parse_markers("<think>maybe <s 3> <s 1></think><s 1> <s 2>") == [0, 1]


def test_invalid_answers():
    assert parse_markers("") == []
    assert parse_markers("I think sentence 2 comes first, then 1.") == []
    assert parse_markers("</s 1> </s 2>") == []


def test_duplicate_sentences_are_interchangeable():
    shuffled = ["a", "? )", "b", "? )"]
    canonical = canonical_ids(shuffled)
    assert canonical == [0, 1, 2, 1]
    gold = canonicalise([1, 0, 1, 2], canonical)  # the data names the first copy twice (nips-abs doc 235)
    for answer in ([1, 0, 3, 2], [3, 0, 1, 2], [1, 0, 1, 2]):
        assert document_scores(gold, canonicalise(answer, canonical))["pmr"] == 1.0


@settings(max_examples=2000, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from(list("<>[]()/sS 0123456789_-abc\n")), max_size=80),
    n=st.integers(min_value=1, max_value=15),
)
def test_fuzz_never_raises(text, n):
    pred = parse_markers(text)
    gold = list(range(n))
    scores = document_scores(gold, pred)
    assert set(scores) == {"pmr", "acc", "lcs", "skip", "kendall_tau", "lumr"}
    assert 0.0 <= scores["pmr"] <= 1.0 and 0.0 <= scores["acc"] <= 1.0 and 0.0 <= scores["lcs"] <= 1.0
    assert -1.0 <= scores["kendall_tau"] <= 1.0 and 0.0 <= scores["skip"] <= 1.0
    if not pred:
        assert scores["lumr"] == 1.0 and scores["pmr"] == 0.0


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_arbitrary_unicode(text):
    pred = parse_markers(text)
    assert all(isinstance(i, int) for i in pred)
    document_scores([2, 0, 1], pred)


def _skip_bigram_by_sets(gold, pred):
    """The literal set definition (METRICS.md), to check the linear-time implementation against."""
    if not gold or not pred:
        return 0.0
    if len(gold) == 1 or len(pred) == 1:
        return float(gold[0] == pred[0])
    g = {(gold[i], gold[j]) for i in range(len(gold)) for j in range(i + 1, len(gold))}
    p = {(pred[i], pred[j]) for i in range(len(pred)) for j in range(i + 1, len(pred))}
    return len(g & p) / len(g)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(gold=st.lists(st.integers(0, 9), min_size=1, max_size=12), pred=st.lists(st.integers(-1, 12), max_size=20))
def test_skip_bigram_matches_set_definition(gold, pred):
    from bediscover_inspect.sentence_ordering.ordering_metrics import skip_bigram

    assert skip_bigram(gold, pred) == _skip_bigram_by_sets(gold, pred)


def test_runaway_answer_of_ten_thousand_markers():
    answer = " ".join(f"<s {i % 9999 + 1}>" for i in range(10000))
    scores = document_scores(list(range(10)), parse_markers(answer))
    # every ordered pair of 0..9 occurs (the answer counts up twice over 0..9): Skip 1; LCS 10; not a match
    assert scores["skip"] == 1.0 and scores["lcs"] == 1.0 and scores["pmr"] == 0.0 and scores["lumr"] == 1.0
