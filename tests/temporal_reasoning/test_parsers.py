"""Answer parsers: ToT dicts (24 answer shapes × 3 real records × 7 categories), relation labels, fuzzing."""

from __future__ import annotations

import ast
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bediscover_inspect.labels import parse_label
from bediscover_inspect.measures import CATALOG
from bediscover_inspect.temporal_reasoning.dataset import TOT_CATEGORIES
from bediscover_inspect.temporal_reasoning.prompts import RELATION_ALIASES, RELATION_LABELS
from bediscover_inspect.temporal_reasoning.tot_answers import (
    field_correct,
    normalise_scalar,
    parse_gold,
    parse_tot_answer,
    tot_correct,
)
from tests.conftest import DATA_ROOT


def _tot_records() -> list[dict]:
    return json.loads((DATA_ROOT / "tr" / "tot-arithmetic" / "test_id.json").read_text(encoding="utf-8"))


def _bare(value) -> str:
    """A value written without quotes, as weak models do: ``352 BC``, ``[Kyle, Jason]``, ``2.0``."""
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def _wrong(value):
    if isinstance(value, list):
        return value[:-1] + ["Nobody"] if value else ["Nobody"]
    if isinstance(value, (int, float)):
        return value + 1
    return value + "9" if value[-1:].isdigit() else value + " later"


def _upper(value):
    if isinstance(value, list):
        return [str(v).upper() for v in value]
    return str(value).upper() if isinstance(value, str) else value


def answer_shapes(gold: dict) -> list[tuple[str, str, bool, bool]]:
    """(shape name, completion, expected correct, expected invalid) for one gold dict."""
    dq = json.dumps(gold)
    sq = repr(gold)
    keys = list(gold)
    bare = "{" + ", ".join(f'"{k}": {_bare(v)}' for k, v in gold.items()) + "}"
    bare_keys = "{" + ", ".join(f"{k}: {_bare(v)}" for k, v in gold.items()) + "}"
    wrong = dict(gold)
    wrong[keys[-1]] = _wrong(gold[keys[-1]])
    as_strings = {k: (v if isinstance(v, list) else str(v)) for k, v in gold.items()}
    fragment = ", ".join(f'"{k}": {json.dumps(v)}' for k, v in gold.items())
    placeholder = "{" + ", ".join(f'"{k}": ...' for k in keys) + "}"
    shapes = [
        ("json", dq, True, False),
        ("python literal", sq, True, False),
        ("code fence", f"```json\n{dq}\n```", True, False),
        ("prose around", f"Let me work this out. The answer is {dq}. Hope this helps!", True, False),
        ("explanation key", json.dumps({"explanation": "computed step by step"} | gold), True, False),
        ("format restated then answer", f"The format is {placeholder}.\nAnswer: {dq}", True, False),
        ("think block ignored", f"<think>maybe {json.dumps(wrong)}</think>\n{dq}", True, False),
        ("bare values", bare, True, False),
        ("bare keys and values", bare_keys, True, False),
        ("numbers as strings", json.dumps(as_strings), True, False),
        ("upper case", json.dumps({k: _upper(v) for k, v in gold.items()}), True, False),
        ("curly quotes", dq.replace('"', "“", 1).replace('"', "”", 1), True, False),
        ("pretty printed", json.dumps(gold, indent=4), True, False),
        ("nested in result", json.dumps({"result": gold}), True, False),
        ("key case", json.dumps({k.upper(): v for k, v in gold.items()}), True, False),
        ("fragment without braces", f"Final: {fragment}", True, False),
        ("two answers, last wins", f"First guess {json.dumps(wrong)}; corrected: {dq}", True, False),
        ("wrong value", json.dumps(wrong), False, False),
        ("missing key", json.dumps({"explanation": "x", keys[0] + "_x": gold[keys[0]]}), False, True),
        ("prose only", "I think it is probably the first option.", False, True),
        ("empty", "", False, True),
        ("truncated inside the first key", dq[: 2 + len(keys[0]) // 2], False, True),
        ("other keys only", json.dumps({"reasoning": "long"}), False, True),
        ("think only", f"<think>{dq}</think>", False, True),
    ]
    if len(keys) > 1:  # a cut-off answer that still holds its first field: read, but wrong
        shapes.append(("first field only", json.dumps({keys[0]: gold[keys[0]]}), False, False))
    return shapes


def _cases():
    by_category: dict[str, list[dict]] = {}
    for record in _tot_records():
        by_category.setdefault(record["question_type"], []).append(record)
    cases = []
    rng = random.Random(4)
    for question_type, records in sorted(by_category.items()):
        picked = [records[0], records[-1], rng.choice(records)]
        for record in picked:
            gold = parse_gold(record["gold"])
            for name, completion, correct, invalid in answer_shapes(gold):
                cases.append(
                    pytest.param(
                        gold, completion, correct, invalid, id=f"{TOT_CATEGORIES[question_type]}-{record['id']}-{name}"
                    )
                )
    return cases


@pytest.mark.parametrize(("gold", "completion", "correct", "invalid"), _cases())
def test_tot_answer_shapes(gold, completion, correct, invalid):
    parsed = parse_tot_answer(completion, list(gold))
    assert parsed.invalid is invalid, parsed
    assert tot_correct(gold, parsed.value) is correct, parsed


def test_tot_shape_count_per_category():
    assert len(answer_shapes({"answer": "352 BC"})) >= 20
    assert len(answer_shapes({"H": 1, "M": 2, "S": 3})) == 25
    assert len(_cases()) >= 7 * 3 * 24


def test_gold_strings_all_parse_and_self_match():
    for record in _tot_records():
        gold = parse_gold(record["gold"])
        parsed = parse_tot_answer(record["gold"], list(gold))
        assert parsed.source == "literal" and tot_correct(gold, parsed.value)


def test_list_order_rules():
    assert tot_correct({"unordered_list": ["Kyle", "Jason"]}, {"unordered_list": ["jason", "kyle"]})
    assert not tot_correct({"ordered_list": ["Kyle", "Jason"]}, {"ordered_list": ["Jason", "Kyle"]})
    assert tot_correct({"ordered_list": ["Kyle", "Jason"]}, {"ordered_list": "Kyle, Jason"})
    assert not tot_correct({"unordered_list": ["Kyle", "Kyle"]}, {"unordered_list": ["Kyle"]})
    assert tot_correct({"unordered_list": []}, {"unordered_list": []})
    assert not field_correct("answer", "Kyle", ["Kyle"])


def test_scalar_normalisation_by_hand():
    assert normalise_scalar("  352  BC. ") == "352 bc"
    assert normalise_scalar("same_day") == "same day"
    assert normalise_scalar("+1") == 1.0 and normalise_scalar(2) == 2.0 and normalise_scalar("2.50") == 2.5
    assert normalise_scalar("'Sunday'") == "sunday"
    assert tot_correct({"H": 2.0, "M": 13.0, "S": 30.0}, {"h": "2", "m": 13, "s": 30.0})
    assert not tot_correct({"day": "-1", "time": "17:43:00"}, {"day": "-1", "time": "17:43"})
    assert not tot_correct({"answer": 1307}, None)


def test_micro_f1_equals_accuracy_by_hand():
    gold = ["BEFORE", "AFTER", "NONE", "NONE", "INCLUDES"]
    pred = ["BEFORE", "NONE", "NONE", "<invalid>", "INCLUDES"]
    assert CATALOG["micro_f1"].of_labels(gold, pred) == pytest.approx(3 / 5)
    assert CATALOG["micro_f1"].of_labels([], []) == 0.0


@pytest.mark.parametrize(
    ("completion", "label"),
    [
        ("BEFORE", "BEFORE"),
        ("is_included", "IS_INCLUDED"),
        ("The relation is IS_INCLUDED.", "IS_INCLUDED"),
        ("**INCLUDES**", "INCLUDES"),
        ("Answer: AFTER", "AFTER"),
        ("<think>BEFORE or AFTER?</think>SIMULTANEOUS", "SIMULTANEOUS"),
        ("Vague", "NONE"),
        ("e4 IS_INCLUDED in e5", "IS_INCLUDED"),
        ("During the war, e4 came AFTER e5", "AFTER"),
        ("NONE", "NONE"),
        ("[BEFORE]", "BEFORE"),
    ],
)
def test_relation_label_parsing(completion, label):
    assert parse_label(completion, RELATION_LABELS, RELATION_ALIASES).label == label


def test_relation_invalid_and_ambiguous():
    assert parse_label("I cannot tell.", RELATION_LABELS, RELATION_ALIASES).invalid
    assert parse_label("", RELATION_LABELS, RELATION_ALIASES).invalid
    parsed = parse_label("BEFORE, not AFTER", RELATION_LABELS, RELATION_ALIASES)
    assert parsed.label == "BEFORE" and not parsed.ambiguous  # AFTER is rejected
    parsed = parse_label("BEFORE, or AFTER", RELATION_LABELS, RELATION_ALIASES)
    assert parsed.invalid and parsed.ambiguous
    # lower case in a sentence is not a label of this capitalised set
    assert parse_label("e4 is included in e5", RELATION_LABELS, RELATION_ALIASES).invalid
    # "includes" must not be read inside "is_included" and vice versa
    assert parse_label("IS_INCLUDED", RELATION_LABELS, RELATION_ALIASES).candidates == ("IS_INCLUDED",)


_KEYS = st.sampled_from([["answer"], ["H", "M", "S"], ["unordered_list"], ["day", "time"], ["date"]])
_TEXT = st.text(alphabet=st.sampled_from(list("{}[]:,'\"\\ \nabcHMS0123456789.-+_`<>/think")), max_size=200)


@settings(max_examples=300, deadline=None)
@given(_TEXT, _KEYS)
def test_fuzz_tot_parser_never_raises(text, keys):
    parsed = parse_tot_answer(text, keys)
    gold = {k: ["a"] if k == "unordered_list" else "1" for k in keys}
    result = tot_correct(gold, parsed.value)
    assert isinstance(result, bool)
    if parsed.value is None:
        assert parsed.invalid and result is False


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), _KEYS)
def test_fuzz_tot_parser_unicode_never_raises(text, keys):
    parse_tot_answer(text, keys)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_relation_parser_never_raises(text):
    parsed = parse_label(text, RELATION_LABELS, RELATION_ALIASES)
    assert parsed.label is None or parsed.label in RELATION_LABELS


def test_parser_is_linear_on_many_braces():
    parsed = parse_tot_answer("{" * 20000 + '{"answer": "1"}', ["answer"])
    assert parsed.value == {"answer": "1"}
    assert ast.literal_eval("{'answer': '1'}") == parsed.value
