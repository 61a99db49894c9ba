"""ToT-Arithmetic answers cut off in the middle of a value are invalid and counted; finished ones still read."""

from __future__ import annotations

import time

import pytest

from bediscover_inspect.temporal_reasoning.tot_answers import is_cut_off, parse_tot_answer


@pytest.mark.parametrize(
    ("completion", "keys"),
    [
        ('{"answer": "352 B', ["answer"]),
        ('The answer is {"answer": "35', ["answer"]),
        ('{"H": 2.0, "M": 1', ["H", "M", "S"]),
        ('{"H": 2.0, "M": 13, "S": 3', ["H", "M", "S"]),
        ('{"unordered_list": ["Kyle", "Ja', ["unordered_list"]),
        ('{"day": "-1", "time": "17:4', ["day", "time"]),
        ("{'answer': '1307", ["answer"]),
        ('{"answer": ', ["answer"]),
        ('{"result": {"x": 1}, "answer": "Mon', ["answer"]),  # nested balanced span before the open value
        ('{"answer": "352 BC"}\nLet me restate: {"answer": "35', ["answer"]),  # a later answer, cut off
        ('Maybe 5.\n</think>\n{"hours": 5, "minutes": 3', ["hours", "minutes"]),
    ],
)
def test_json_answer_cut_off_in_a_value_is_invalid(completion, keys):
    parsed = parse_tot_answer(completion, keys)
    assert parsed.invalid and parsed.value is None and parsed.notes == ("cut_off",)
    assert is_cut_off(completion.split("</think>")[-1], keys)


@pytest.mark.parametrize(
    ("completion", "keys", "value"),
    [
        ('{"answer": "352 BC"', ["answer"], {"answer": "352 BC"}),  # value finished, brace missing
        ('{"answer": 352 BC\n\nHope this helps.', ["answer"], {"answer": "352 BC"}),  # line ended
        ('{"H": 2, "M": 13, "S": 30}', ["H", "M", "S"], {"H": 2, "M": 13, "S": 30}),
        ('{"answer": "1"} and then {"note": "cut', ["answer"], {"answer": "1"}),  # the open dict has no key
        ("{" * 20000 + '{"answer": "1"}', ["answer"], {"answer": "1"}),  # stray open braces around a full dict
        ('Use {"answer": <year>} as the format. "answer": "352 BC"', ["answer"], {"answer": "352 BC"}),
    ],
)
def test_finished_answer_is_still_read(completion, keys, value):
    parsed = parse_tot_answer(completion, keys)
    assert parsed.value == value and "cut_off" not in parsed.notes


@pytest.mark.parametrize(
    "completion",
    [
        '{"answer": "' + "x" * 100_000,
        "{" * 100_000 + '"answer": 1',
        '{"answer": [' + "1, " * 33_000,
        '{"answer": 1, ' * 7_200 + '"answer": "2',
    ],
    ids=["long-string", "open-braces", "long-list", "many-keys"],
)
def test_cut_off_check_is_linear(completion):
    started = time.perf_counter()
    parsed = parse_tot_answer(completion, ["answer"])
    assert time.perf_counter() - started < 5.0 and len(completion) >= 99_000
    assert parsed.invalid and parsed.notes == ("cut_off",)
