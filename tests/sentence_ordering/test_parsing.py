"""Marker parsing, duplicate-sentence handling and a hypothesis fuzz of parser + measures."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bediscover_inspect.sentence_ordering.scorer import (
    canonical_ids,
    canonicalise,
    document_scores,
    parse_markers,
)


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
