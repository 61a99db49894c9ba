"""ToT-Arithmetic: an answer buried in markup, control characters or nested thinking is invalid and counted;
fragment values are read in one pass (the unclosed-list shape that made the old fragment pattern quadratic)."""

from __future__ import annotations

import pytest

from bediscover_inspect.temporal_reasoning.tot_answers import is_markup, parse_tot_answer


@pytest.mark.parametrize(
    "completion",
    [
        "<div><p>Answer: BEFORE</p></div>",
        "<html><body><b>Answer:</b> 352 BC</body></html>",
        "\x00\x01Answer:\x07 BEFORE\x1b[0m",
        "<span>Answer: 1990</span>",
        '{"answer": "BEFORE</b>"}',
    ],
)
def test_an_answer_buried_in_markup_or_control_characters_is_invalid(completion):
    parsed = parse_tot_answer(completion, ["answer"])
    assert parsed.invalid and "markup" in parsed.notes


@pytest.mark.parametrize(
    "completion",
    [
        "<think><think>inner</think>Answer: BEFORE",
        "<think>a<think>b</think>Answer: 352 BC</think>",
        '<think>\n<think>\n{"answer": "352 BC"}\n</think>',
    ],
)
def test_an_answer_inside_nested_thinking_is_invalid(completion):
    assert parse_tot_answer(completion, ["answer"]).invalid


@pytest.mark.parametrize(
    ("completion", "value"),
    [
        ("Answer: 352 BC", {"answer": "352 BC"}),
        ('"answer": [Kyle, Jason], done', {"answer": ["Kyle", "Jason"]}),
        ("answer: 'x', answer: \"y\"", {"answer": "y"}),
        ("answer: [1, answer: 2", {"answer": 2}),  # an unclosed list is a bare value up to the comma
        ('answer: "open, answer: 7', {"answer": 7}),  # an unclosed quote is no value; the later one is
    ],
)
def test_fragments_read_as_before(completion, value):
    assert parse_tot_answer(completion, ["answer"]).value == value


def test_is_markup_sees_closing_tags_and_control_characters_only():
    assert is_markup("BEFORE</p>") and is_markup(["a", "b\x00"]) and is_markup("x\x7f")
    assert (
        not is_markup("352 BC")
        and not is_markup("a < b > c")
        and not is_markup("line\nbreak\ttab")
        and not is_markup(3)
    )
