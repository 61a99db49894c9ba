"""Which relations of a dialogue-parsing answer are the answer: reasoning, answer markers, prose, aliases.

One test per kind of misread, with several hand-written answers each (new turn 3 of an 8-utterance dialogue
unless said otherwise).
"""

from __future__ import annotations

import re
import time

import pytest

from bediscover_inspect.dialogue_parsing.aliases import LABEL_ALIASES
from bediscover_inspect.dialogue_parsing.prompts import MSDC_RELATIONS, RELATIONS, STAC_MOLWENI_RELATIONS
from bediscover_inspect.dialogue_parsing.relations import canonical_label, parse_answer

STAC = RELATIONS["stac"]
N = 8


def read(answer: str, new_turn: int = 3, relations=STAC, n_edus: int = N):
    return parse_answer(answer, new_turn, relations, n_edus)


def valid(answer: str, **kwargs) -> list[str]:
    return [str(r) for r in read(answer, **kwargs).valid]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Turn 3 answers turn 2, so QA_PAIR(2,3); maybe COMMENT(1,3).\n</think>\n\nQA_PAIR(2,3)", ["QA_PAIR(2,3)"]),
        ("ELABORATION(0,3)</think>CONTINUATION(2,3)", ["CONTINUATION(2,3)"]),
        ("a</think>b</think>\nRESULT(1,3) ACKNOWLEDGEMENT(2,3)", ["RESULT(1,3)", "ACKNOWLEDGEMENT(2,3)"]),
        ("QA_PAIR(2,3) COMMENT(1,3)</think>", []),
    ],
)
def test_closing_think_without_opening_tag_reads_only_the_text_after_it(answer, expected):
    assert valid(answer) == expected


@pytest.mark.parametrize(
    "answer",
    ["<think>QA_PAIR(2,3) looks right, and also", "<think>x</think>\n<think>COMMENT(1,3)", "<THINK>RESULT(2,3)"],
)
def test_unclosed_think_is_a_cut_off_answer(answer):
    parsed = read(answer)
    assert parsed.valid == () and parsed.read == 0 and parsed.cut_off and parsed.rule is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("COMMENT(1,3) was my first idea, but turn 3 answers 2.\nAnswer: QA_PAIR(2,3)", ["QA_PAIR(2,3)"]),
        (
            "ELABORATION(0,3) and CONTRAST(1,3) are possible.\nFinal answer: CONTRAST(1,3) RESULT(2,3)",
            ["CONTRAST(1,3)", "RESULT(2,3)"],
        ),
        ("Structure: NARRATION(2,3)\n\nExplanation: COMMENT(1,3) would need a remark.", ["NARRATION(2,3)"]),
        (
            "The structure is QA_PAIR(2, 3), ELABORATION(0, 3).\nCOMMENT(1,3) does not fit.",
            ["QA_PAIR(2,3)", "ELABORATION(0,3)"],
        ),
        (
            "Candidates: QAP(2,3), Q-Elab(1,3).\n**Answer:**\n- QAP(2,3)\n- Q-Elab(1,3)",
            ["QA_PAIR(2,3)", "Q_ELABORATION(1,3)"],
        ),
        ("I'd go with \\boxed{EXPLANATION(2,3)} rather than RESULT(2,3)", ["EXPLANATION(2,3)"]),
    ],
)
def test_last_marked_answer_wins_over_earlier_relations(answer, expected):
    parsed = read(answer)
    assert [str(r) for r in parsed.valid] == expected and parsed.rule == "marker"
    assert parsed.read == len(expected) and parsed.ignored >= 1  # the others are counted, never read


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Answer: COMMENT(1,3)\nCorrected: QA_PAIR(2,3)", ["QA_PAIR(2,3)"]),
        (
            "QA_PAIR(2,3)\n\nActually, ACKNOWLEDGEMENT(2,3) ELABORATION(1,3)",
            ["ACKNOWLEDGEMENT(2,3)", "ELABORATION(1,3)"],
        ),
        ("Answer: RESULT(2,3)\nOn second thought: Answer: CONTINUATION(2,3)", ["CONTINUATION(2,3)"]),
        ("CONTRAST(1,3), or rather CORRECTION(1,3)", ["CORRECTION(1,3)"]),
    ],
)
def test_correction_after_a_first_draft_wins(answer, expected):
    assert valid(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected", "ignored"),
    [
        ("QA_PAIR(2,3)\n\nTurn 3 answers the question of turn 2; COMMENT(1,3) is not needed.", ["QA_PAIR(2,3)"], 1),
        ("QA_PAIR(2,3) because RESULT(1,3) would need a cause.", ["QA_PAIR(2,3)"], 1),
        (
            "1. QA_PAIR(2,3)\n2. COMMENT(1,3)\n\nBoth relations hold, unlike NARRATION(0,3).",
            ["QA_PAIR(2,3)", "COMMENT(1,3)"],
            1,
        ),
    ],
)
def test_prose_after_a_leading_answer_is_not_read(answer, expected, ignored):
    parsed = read(answer)
    assert [str(r) for r in parsed.valid] == expected and parsed.rule == "leading" and parsed.ignored == ignored


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Turn 3 is not COMMENT(1,3); it answers turn 2: QA_PAIR(2,3).", ["QA_PAIR(2,3)"]),
        ("It reads like QA_PAIR(2,3) rather than Q_ELAB(2,3).", ["QA_PAIR(2,3)"]),
        (
            "I see ELABORATION(1,3) and, instead of RESULT(2,3), CONTINUATION(2,3).",
            ["ELABORATION(1,3)", "CONTINUATION(2,3)"],
        ),
    ],
)
def test_rejected_relation_in_prose_is_not_read(answer, expected):
    parsed = read(answer)
    assert [str(r) for r in parsed.valid] == expected and parsed.rule == "prose" and parsed.ignored == 1


@pytest.mark.parametrize(
    "answer",
    [
        "QA_PAIR(2,3) COMMENT(1,3)",
        "QA_PAIR(2,3), COMMENT(1,3).",
        "QA_PAIR(2,3)\nCOMMENT(1,3)\n",
        "- QA_PAIR(2,3)\n- COMMENT(1,3)",
        "[QA_PAIR(2,3); COMMENT(1,3)]",
        "QA_PAIR(2,3) and COMMENT(1,3)",
        "`QA_PAIR(2,3)` **COMMENT(1,3)**",
    ],
)
def test_whole_answer_relation_list(answer):
    parsed = read(answer)
    assert [str(r) for r in parsed.valid] == ["QA_PAIR(2,3)", "COMMENT(1,3)"]
    assert parsed.rule == "whole" and parsed.ignored == 0


@pytest.mark.parametrize(
    ("answer", "relations", "expected"),
    [
        ("QAP(2,3) Q-Elab(1,3)", STAC, ["QA_PAIR(2,3)", "Q_ELABORATION(1,3)"]),
        ("Question-answer_pair(2,3)", STAC, ["QA_PAIR(2,3)"]),
        ("QA(2,3) ACK(1,3)", STAC, ["QA_PAIR(2,3)", "ACKNOWLEDGEMENT(1,3)"]),
        ("Acknowledgment(2,3) Elab(1,3)", STAC, ["ACKNOWLEDGEMENT(2,3)", "ELABORATION(1,3)"]),
        ("Clarification_question(2,3) Cont(1,3)", STAC, ["CLARIF_Q(2,3)", "CONTINUATION(1,3)"]),
        ("Q__ELAB(2,3) qa_pair(1,3)", STAC, ["Q_ELABORATION(2,3)", "QA_PAIR(1,3)"]),
        ("Confirmation-question(2,3) SEQ(1,3)", MSDC_RELATIONS, ["CONFIRM_Q(2,3)", "SEQUENCE(1,3)"]),
        ("Condition(2,3) Expl(1,3)", STAC, ["CONDITIONAL(2,3)", "EXPLANATION(1,3)"]),
        ("BG(2,3)", STAC, ["BACKGROUND(2,3)"]),
        ("BG(2,3)", MSDC_RELATIONS, []),  # MSDC has no BACKGROUND: read, invalid
    ],
)
def test_abbreviations_and_spelling_variants(answer, relations, expected):
    assert valid(answer, relations=relations) == expected


def test_no_alias_maps_onto_two_labels():
    labels = set(STAC_MOLWENI_RELATIONS) | set(MSDC_RELATIONS)
    for alias, label in LABEL_ALIASES.items():
        assert label in labels, alias
        assert alias not in labels, alias  # an alias is never another label's own name
        # the key is in canonical form (so distinct keys are distinct spellings), and every way of writing it
        # reaches its one label
        assert re.sub(r"[\s\-_]+", "_", alias.upper()).strip("_") == alias
        for spelling in (alias, alias.lower(), alias.replace("_", "-"), alias.replace("_", " "), alias.title()):
            assert canonical_label(spelling) == label


@pytest.mark.parametrize(
    "answer",
    [
        "Answer: " * 12_500 + "QA_PAIR(2,3)",
        "QA_PAIR(2,3) " + "and " * 25_000 + "COMMENT(1,3)",
        "not QA_PAIR(2,3) " * 5_900,
        "Structure: COMMENT(1,3) " * 4_000,
        "</think>" * 12_500 + "QA_PAIR(2,3)",
    ],
    ids=["markers", "long-gap", "rejections", "many-marked", "closing-tags"],
)
def test_relation_answer_parsing_is_linear(answer):
    started = time.perf_counter()
    parsed = read(answer)
    assert time.perf_counter() - started < 5.0 and len(answer) >= 95_000
    assert parsed.read <= 2 or parsed.rule in ("prose", "marker")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("ELABORATION(2,3)\nWait, actually it should be: CONTINUATION(2,3)", ["CONTINUATION(2,3)"]),
        ("Initially I said QUESTION_ANSWER_PAIR(1,3), but correcting myself: ELABORATION(1,3)", ["ELABORATION(1,3)"]),
        ("COMMENT(0,3). On second thought, it should be RESULT(0,3)", ["RESULT(0,3)"]),
        ("Actually, it's ACKNOWLEDGEMENT(2,3)", ["ACKNOWLEDGEMENT(2,3)"]),
    ],
)
def test_a_self_correction_replaces_the_first_answer(answer, expected):
    assert valid(answer) == expected
    assert read(answer).rule == "marker"
