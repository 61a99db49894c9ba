"""Sentence-order answers: the paper's markers, the whole-answer formats accepted beside them, reasoning, and
what is never read (digits in prose) or repaired (non-permutations)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bediscover_inspect.sentence_ordering.parsing import FORMATS, PAPER_FORMAT, parse_order
from bediscover_inspect.sentence_ordering.scorer import parse_markers


def ids(*numbers: int) -> tuple[int, ...]:
    """1-based numbers as written -> 0-based ids."""
    return tuple(n - 1 for n in numbers)


@pytest.mark.parametrize(
    "answer",
    [
        "<s 3> <s 1> <s 2>",
        "The order is <s3>, then <s1>, then <s2>.",
        "[s 3] [s 1] [s 2]",
        "<s 3> The second sentence. </s 3>\n<s 1> First. </s 1>\n<s 2> Last. </s 2>",
        "2, 1, 3 would be wrong; the order is <s 3> <s 1> <s 2>",  # markers win over any digits
    ],
)
def test_paper_markers_are_read_wherever_they_stand(answer):
    parsed = parse_order(answer)
    assert parsed.ids == ids(3, 1, 2) and parsed.format == PAPER_FORMAT and parsed.paper_format


@pytest.mark.parametrize(
    ("answer", "fmt"),
    [
        ("[3, 1, 2]", "json"),
        ('["s3", "s1", "s2"]', "json"),
        ('```json\n{"order": [3, 1, 2]}\n```', "json"),
        ('["Sentence 3", "Sentence 1", "Sentence 2"]', "json"),
        ("3 -> 1 -> 2", "arrows"),
        ("s3 > s1 > s2", "arrows"),
        ("Sentence 3 → Sentence 1 → Sentence 2", "arrows"),
        ("[s3, s1, s2]", "bracketed"),
        ("(3 1 2)", "bracketed"),
        ("Sentence 3, Sentence 1, Sentence 2", "sentence_words"),
        ("1. Sentence 3\n2. Sentence 1\n3. Sentence 2", "sentence_words"),
        ("s3 s1 s2", "tags"),
        ("S3, S1, S2.", "tags"),
        ("3 1 2", "numbers"),
        ("3, 1, 2", "numbers"),
        ("3\n1\n2", "numbers"),
        ("Answer: 3, 1, 2", "numbers"),
        ("The correct order is: 3, 1, 2.", "numbers"),
        ("**Order:** `3 1 2`", "numbers"),
    ],
)
def test_whole_answer_formats_beyond_the_markers_are_read_and_named(answer, fmt):
    parsed = parse_order(answer)
    assert parsed.ids == ids(3, 1, 2) and parsed.format == fmt and not parsed.paper_format
    assert fmt in FORMATS


@pytest.mark.parametrize(
    "answer",
    [
        "I think sentence 2 comes first, then 1.",
        "Sentence 3 introduces the topic, so it goes first; then 1 and 2.",
        "The abstract has 5 sentences. Order: the 3rd, then the 1st.",
        "In 2019, 3 groups reported 12 results.",
        "Answer: 3 is first, 1 second, 2 last",
        "3",  # one item is no order
        "Step 1: read. Step 2: order. 3 1 2",
        "3, 1, s2",  # items of two kinds
        "3 - 1 - 2",
    ],
)
def test_digits_inside_prose_are_never_read_as_an_order(answer):
    parsed = parse_order(answer)
    assert parsed.invalid and parsed.ids == () and parsed.format is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("3 1 1 2", ids(3, 1, 1, 2)),  # a duplicate stays
        ("3, 1", ids(3, 1)),  # a missing sentence stays missing
        ("[4, 9, 1]", ids(4, 9, 1)),  # out of range stays
        ("<s 2> <s 2> <s 7>", ids(2, 2, 7)),
        ("0 1 2", (-1, 0, 1)),  # a 0 (no such sentence) is kept as -1
    ],
)
def test_non_permutation_is_never_repaired(answer, expected):
    assert parse_order(answer).ids == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Maybe <s 1> <s 2> <s 3>?\n</think>\n\n<s 3> <s 1> <s 2>", ids(3, 1, 2)),
        ("3 2 1</think>3 1 2", ids(3, 1, 2)),
        ("<think>x</think><s 9></think>[s3, s1, s2]", ids(3, 1, 2)),
        ("<s 3> <s 1> <s 2></think>", ()),
    ],
)
def test_closing_think_without_opening_tag_reads_only_the_text_after_it(answer, expected):
    assert parse_order(answer).ids == expected and parse_markers(answer) == list(expected)


@pytest.mark.parametrize("answer", ["<think>The order is <s 3> <s 1>", "3 1 2\n<think> wait", "<think>3 1 2"])
def test_unclosed_think_is_a_cut_off_answer(answer):
    parsed = parse_order(answer)
    assert parsed.cut_off
    assert parsed.invalid or answer.startswith("3 1 2")  # what preceded the tag is the answer


@pytest.mark.parametrize(
    "answer",
    [
        " ".join(str(i % 9 + 1) for i in range(50_000)),
        "[" * 100_000,
        "1 " * 50_000 + "x",
        "Sentence " * 11_000 + "3",
        "</think>" * 12_500 + "3 1 2",
        "-> " * 33_000 + "3",
    ],
    ids=["numbers", "brackets", "numbers-then-word", "sentence-words", "closing-tags", "arrows"],
)
def test_order_parsing_is_linear(answer):
    started = time.perf_counter()
    parsed = parse_order(answer)
    assert time.perf_counter() - started < 5.0 and len(answer) >= 99_000
    assert parsed.invalid == (not answer.startswith(("1 ", "</think>")) or answer.endswith("x"))


@settings(max_examples=500, deadline=None, database=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "3",
                "1",
                "2",
                "s",
                "Sentence",
                ",",
                "->",
                "[",
                "]",
                " ",
                "\n",
                "<s 2>",
                "</think>",
                "<think>",
                "the",
                "Answer:",
                ".",
                '"',
            ]
        ),
        max_size=25,
    ).map("".join)
)
def test_fuzz_formats_never_raise(answer):
    parsed = parse_order(answer)
    assert parsed.format is None or parsed.format in FORMATS
    assert parsed.invalid == (parsed.format is None)
    assert all(isinstance(i, int) for i in parsed.ids)


@pytest.mark.parametrize(
    ("answer", "ids"),
    [
        ("First I considered <s 1> <s 2> <s 3> <s 4> but the correct order is <s 2> <s 1> <s 3> <s 4>", [1, 0, 2, 3]),
        ("<s 3> <s 1> <s 2>\nActually, <s 1> <s 3> <s 2>", [0, 2, 1]),
        ("Draft: <s 2> <s 1>\nFinal answer: <s 1> <s 2>", [0, 1]),
        ("Sequence: <s 2>, <s 3>, <s 1>", [1, 2, 0]),
        # no answer marker right before a marker: every marker counts, as in the paper's text-to-marker rule
        ("<s 2> opens the abstract, then <s 1>", [1, 0]),
        ("<s 2> Results follow. </s 2>\n<s 1> We study X. </s 1>", [1, 0]),
        ("The order is not obvious; <s 2> <s 1>", [1, 0]),
    ],
)
def test_an_order_stated_last_replaces_one_considered_first(answer, ids):
    parsed = parse_order(answer)
    assert list(parsed.ids) == ids and parsed.format == "markers"
