"""Regressions from the robustness review: bounded brace scanning, template placeholders, bad golds, echo flag."""

from __future__ import annotations

import asyncio
import json

import pytest
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from bediscover_inspect.data import DataFormatError
from bediscover_inspect.temporal_reasoning.dataset import record_to_sample
from bediscover_inspect.temporal_reasoning.scorer import relation_scorer, tot_scorer
from bediscover_inspect.temporal_reasoning.tot_answers import (
    MAX_CANDIDATES,
    MAX_SPAN_DEPTH,
    _brace_spans,
    is_placeholder,
    parse_gold,
    parse_tot_answer,
)
from tests.conftest import DATA_ROOT

# --- 1. brace scanning is bounded (was: every nested span copied and parsed, 52-58 s on 20 000 levels) ------


def test_deeply_nested_braces_read_only_the_outer_levels():
    parsed = parse_tot_answer("{" * 20000 + "}" * 20000, ["answer"])
    assert parsed.invalid and parsed.candidates == MAX_SPAN_DEPTH + 1 == 3


def test_answer_buried_under_deep_nesting_is_still_found_as_a_fragment():
    parsed = parse_tot_answer("{" * 20000 + '{"answer": "1"}' + "}" * 20000, ["answer"])
    assert parsed.value == {"answer": "1"} and parsed.source == "fragment"


def test_span_depth_counts_only_balanced_levels():
    text = "{{{ stray {a {b {c {d}}}} x}"
    # the three leading braces never close: they are not levels, so {a…} is depth 0, {d} depth 3 (dropped)
    assert _brace_spans(text) == ["{ stray {a {b {c {d}}}} x}", "{a {b {c {d}}}}", "{b {c {d}}}"]
    assert parse_tot_answer('{"result": {"answer": 3}}', ["answer"]).value == {"answer": 3}


def test_candidate_cap_keeps_top_level_span_and_the_last_ones():
    many = "".join(f'{{"n{i}": {{"k": {i}}}}} ' for i in range(400))
    spans = _brace_spans(many)
    assert len(spans) == MAX_CANDIDATES == 256
    # 800 spans (400 outer, 400 nested): the outer ones first, and of those the last 256 (n144 … n399)
    assert spans[0] == '{"n144": {"k": 144}}' and spans[-1] == '{"n399": {"k": 399}}'
    assert all(span.startswith('{"n') for span in spans)
    big = "{" + '"a": {"b": {"c": [1, {"d": 1}]}}, ' * 3000 + '"answer": 1}'  # 6000 nested spans inside
    parsed = parse_tot_answer(big, ["answer"])
    assert parsed.source == "json" and parsed.value["answer"] == 1 and parsed.candidates == MAX_CANDIDATES


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("{" + 'a"' * 20000 + "}", None),  # stray quotes: the lenient splitter re-joined its buffer per quote
        ("{a" + " " * 20000 + "}", None),  # whitespace run: the key regex backtracked quadratically
        ('{"answer": ' + "x," * 20000 + "}", {"answer": ",".join(["x"] * 20000)}),  # value re-concatenated
        ("{a}" * 20000, None),
    ],
    ids=["quotes", "spaces", "commas", "flat"],
)
def test_large_adversarial_answers_give_the_same_result(text, value):
    assert parse_tot_answer(text, ["answer"]).value == value


# --- 2. template placeholders copied from the instruction are no answer -------------------------------------


@pytest.mark.parametrize(
    ("completion", "keys"),
    [
        ('Answer with the form of: {"answer": <year> <era>}, where year is yyyy', ["answer"]),
        ('{"unordered_list": [<name1>, <name2>]}', ["unordered_list"]),
        ('{"answer" : "<date>"}', ["answer"]),
        ("{'answer': <your_answer>}", ["answer"]),
        ('"answer": <num_days>', ["answer"]),  # fragment without braces
        ('{"hours": <num_hours>, "minutes": <num_minutes>}', ["hours", "minutes"]),
    ],
)
def test_placeholder_only_answer_is_invalid(completion, keys):
    parsed = parse_tot_answer(completion, keys)
    assert parsed.invalid and parsed.value is None and parsed.notes == ("placeholder",)


def test_every_angle_bracket_instruction_echoed_is_invalid():
    """The instruction up to its first format dict, repeated as the answer. (Some instructions go on with a
    literal alternative, ``{"answer": "equal"}`` / ``'unanswerable'``: echoing those reads as that answer.)"""
    records = json.loads((DATA_ROOT / "tr" / "tot-arithmetic" / "test_id.json").read_text(encoding="utf-8"))
    seen = 0
    for record in records:
        gold = parse_gold(record["gold"])
        assert not any(is_placeholder(v) for v in gold.values()), record["gold"]
        if "<" in record["instruction"]:
            seen += 1
            echo = record["instruction"][: record["instruction"].index("}") + 1]
            assert parse_tot_answer(echo, list(gold)).invalid, echo
    assert seen == 715


def test_placeholder_next_to_a_real_answer():
    template = 'Format: {"answer": <year> <era>}.'
    assert parse_tot_answer(f'{template} Answer: {{"answer": "352 BC"}}', ["answer"]).value == {"answer": "352 BC"}
    # the template restated *after* the answer no longer wins the "last candidate" tie
    assert parse_tot_answer(f'{{"answer": "352 BC"}} ({template})', ["answer"]).value == {"answer": "352 BC"}
    # a partly templated dict keeps its real fields (then scored wrong, not invalid)
    parsed = parse_tot_answer('{"H": <H>, "M": 13, "S": 30}', ["H", "M", "S"])
    assert parsed.value == {"M": 13, "S": 30} and parsed.notes == ("placeholder",)
    # angle brackets that are not a <word> slot are ordinary text
    assert parse_tot_answer('{"answer": "a < b > c"}', ["answer"]).value == {"answer": "a < b > c"}
    assert not is_placeholder(5) and is_placeholder(["Kyle", "<name2>"]) and not is_placeholder("<")


# --- 3. a gold ast.literal_eval rejects with something other than ValueError / SyntaxError -------------------


@pytest.mark.parametrize(
    "gold",
    ["{[1]: 2}", "{'a': " + "-" * 1000000 + "1}", "{'a': 1" + "+1" * 200000 + "}", "[" * 100000],
    ids=["TypeError", "MemoryError", "RecursionError", "SyntaxError"],
)
def test_unreadable_gold_is_a_data_format_error(gold):
    with pytest.raises(ValueError, match="gold is not a Python literal"):
        parse_gold(gold)
    good = {"id": 9, "question": "q", "instruction": "i", "gold": gold, "question_type": "trick"}
    with pytest.raises(DataFormatError, match=r"t\.json, record 4 \(id=9\): field 'gold'"):
        record_to_sample(good, "tot-arithmetic", file="t.json", index=4)


# --- 4. scorers record the parser's flags -------------------------------------------------------------------


def _state(completion: str, metadata: dict) -> TaskState:
    return TaskState(
        model=ModelName("mockllm/model"),
        sample_id="s",
        epoch=1,
        input="q",
        messages=[],
        output=ModelOutput.from_content(model="mockllm", content=completion),
        metadata=metadata,
    )


def test_relation_scorer_records_echo_and_ambiguous():
    score = relation_scorer()
    state = _state("BEFORE, AFTER, and NONE", {"dataset": "tbd", "gold": "BEFORE"})
    echoed = asyncio.run(score(state, Target("BEFORE")))
    assert echoed.metadata["echo"] is True and echoed.value["invalid"] == 1.0 and echoed.value["accuracy"] == 0.0
    assert echoed.metadata["candidates"] == ["BEFORE", "AFTER", "NONE"]
    assert echoed.answer == "<invalid>" and echoed.value["ambiguous"] == 1.0  # several labels, no choice
    two = asyncio.run(score(_state("BEFORE, or AFTER", {"dataset": "tbd", "gold": "BEFORE"}), Target("BEFORE")))
    assert two.metadata["echo"] is False and two.value["ambiguous"] == 1.0 and two.value["accuracy"] == 0.0
    assert two.value["invalid"] == 1.0
    # a sample of the other kind gets no score from this scorer (not an unscored one)
    assert (
        asyncio.run(score(_state("BEFORE", {"dataset": "tot-arithmetic", "gold": "{'answer': '1'}"}), Target("")))
        is None
    )


def test_tot_scorer_counts_placeholder_answer_invalid():
    metadata = {"dataset": "tot-arithmetic", "gold": "{'answer': '352 BC'}", "category": "as"}
    result = asyncio.run(tot_scorer()(_state('{"answer": <year> <era>}', metadata), Target("x")))
    assert result.value["invalid"] == 1.0 and result.value["accuracy"] == 0.0
    assert result.metadata["parse_notes"] == ["placeholder"] and result.answer == "<invalid>"
    assert asyncio.run(tot_scorer()(_state("{}", {"dataset": "tbd", "gold": "BEFORE"}), Target("BEFORE"))) is None
