"""Answer parsing, gold strings and the window structure, checked against values computed by hand."""

from __future__ import annotations

import pytest

from bediscover_inspect.dialogue_parsing.prompts import MSDC_RELATIONS, RELATIONS, STAC_MOLWENI_RELATIONS
from bediscover_inspect.dialogue_parsing.relations import (
    Relation,
    parse_answer,
    parse_gold,
    predicted_structure,
    window_structure,
)
from bediscover_inspect.dialogue_parsing.scorer import count_turn

STAC = RELATIONS["stac"]
N = 8  # utterances 0 … 7 of a made-up dialogue


def test_parse_plain_and_multi_parent() -> None:
    parsed = parse_answer("COMMENT(1,2) ELABORATION(0,2)", 2, STAC, N)
    assert parsed.valid == (Relation(1, 2, "COMMENT"), Relation(0, 2, "ELABORATION"))
    assert parsed.invalid == () and parsed.read == 2


def test_parse_spaces_case_and_label_variants() -> None:
    parsed = parse_answer("The answer is qap( 0 , 3 ) and Q-Elab (1, 3), clarification_question(2,3)", 3, STAC, N)
    assert [str(r) for r in parsed.valid] == ["QA_PAIR(0,3)", "Q_ELABORATION(1,3)", "CLARIF_Q(2,3)"]
    assert parse_answer("**Acknowledgment**(4, 5)", 5, STAC, N).valid == (Relation(4, 5, "ACKNOWLEDGEMENT"),)
    assert parse_answer("QA PAIR(0,1)", 1, STAC, N).valid == (Relation(0, 1, "QA_PAIR"),)


def test_invalid_relations_are_counted_not_used() -> None:
    parsed = parse_answer("FOO(1,4) QA_PAIR(3,5) RESULT(4,4) RESULT(2,4)", 4, STAC, N)
    assert parsed.valid == (Relation(2, 4, "RESULT"),)
    assert parsed.invalid == ("FOO(1,4)", "QA_PAIR(3,5)", "RESULT(4,4)")
    assert parsed.read == 4


def test_label_sets_differ_per_corpus() -> None:
    # MSDC has CONFIRM_Q and SEQUENCE, no BACKGROUND / PARALLEL (Table 12)
    assert parse_answer("CONFIRM_Q(0,1)", 1, MSDC_RELATIONS, N).valid == (Relation(0, 1, "CONFIRM_Q"),)
    assert parse_answer("CONFIRM_Q(0,1)", 1, STAC_MOLWENI_RELATIONS, N).invalid == ("CONFIRM_Q(0,1)",)
    assert parse_answer("PARALLEL(0,1)", 1, MSDC_RELATIONS, N).invalid == ("PARALLEL(0,1)",)
    assert parse_answer("Confirmation_question(0,1)", 1, MSDC_RELATIONS, N).valid == (Relation(0, 1, "CONFIRM_Q"),)


def test_reasoning_is_not_read_and_duplicates_collapse() -> None:
    parsed = parse_answer("<think>QA_PAIR(0,2) maybe</think>COMMENT(1,2) COMMENT(1,2)", 2, STAC, N)
    assert parsed.valid == (Relation(1, 2, "COMMENT"),)
    assert parsed.read == 2  # both COMMENTs read, one kept


def test_backward_relation_is_valid() -> None:
    assert parse_answer("EXPLANATION(7,6)", 6, STAC, N).valid == (Relation(7, 6, "EXPLANATION"),)
    # … only to an utterance that exists: 7 is the last one of an 8-utterance dialogue, not of a 7-utterance one
    assert parse_answer("EXPLANATION(7,6)", 6, STAC, 7).invalid == ("EXPLANATION(7,6)",)


def test_huge_number_is_an_invalid_relation_not_a_crash() -> None:
    """Defect 1: ``int()`` of a > 4,300-digit number raised ValueError and failed the whole eval."""
    huge = "9" * 5000
    parsed = parse_answer(f"QAP({huge}, 1) COMMENT(0, {huge}) QAP(-{huge},1) QAP(0, 1)", 1, STAC, N)
    assert parsed.valid == (Relation(0, 1, "QA_PAIR"),)
    assert parsed.read == 4 and len(parsed.invalid) == 3
    assert parsed.invalid[0].startswith("QAP(999") and parsed.invalid[0].endswith("…")
    assert all(len(raw) <= 201 for raw in parsed.invalid)  # the raw text kept for the log is cut
    counts = count_turn(parsed, parse_gold("QA_PAIR(0,1)"))
    assert (counts.relations_read, counts.relations_invalid, counts.link_tp) == (4, 3, 1)


@pytest.mark.parametrize(
    "parent",
    ["99999999999999999999", "1000000", "54", "10", "-1", "4"],
    ids=["20-digits", "million", "j+50", "n_edus", "negative", "self-loop"],
)
def test_parent_outside_the_dialogue_is_invalid(parent: str) -> None:
    """Defect 3: a parent that is no utterance of the dialogue (ids 0 … n_edus-1) was valid and fed back."""
    parsed = parse_answer(f"QA_PAIR({parent}, 4) COMMENT(3,4)", 4, STAC, 10)
    assert parsed.valid == (Relation(3, 4, "COMMENT"),)
    assert parsed.invalid == (f"QA_PAIR({parent}, 4)",) and parsed.read == 2


def test_valid_parents_are_every_other_utterance_of_the_dialogue() -> None:
    # new turn 4 of a 10-utterance dialogue: parents 0-3 (before it, inside or outside any window) and 5-9
    answer = " ".join(f"COMMENT({x},4)" for x in range(-2, 13))
    parsed = parse_answer(answer, 4, STAC, 10)
    assert [r.x for r in parsed.valid] == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    assert parsed.invalid == (
        "COMMENT(-2,4)",
        "COMMENT(-1,4)",
        "COMMENT(4,4)",
        "COMMENT(10,4)",
        "COMMENT(11,4)",
        "COMMENT(12,4)",
    )
    # a parent older than the 17-utterance context window is valid (19 MSDC gold parents are)
    assert parse_answer("NARRATION(2,40)", 40, MSDC_RELATIONS, 41).valid == (Relation(2, 40, "NARRATION"),)


LARGE = 100_000


@pytest.mark.parametrize(
    ("answer", "read", "invalid", "valid"),
    [
        ("x" * LARGE, 0, 0, ()),
        ("ha" * (LARGE // 2), 0, 0, ()),
        ("A-" * (LARGE // 2), 0, 0, ()),
        ("QA PAIR " * (LARGE // 8), 0, 0, ()),
        ("(" * LARGE, 0, 0, ()),
        ("QA_PAIR(0," * (LARGE // 10), 0, 0, ()),
        ("x" * LARGE + "(0, 1)", 1, 1, ()),  # a 100k-letter label: read, not a relation name
        ("x" * LARGE + " QA_PAIR(0, 1)", 1, 0, ("QA_PAIR(0,1)",)),
        # the leading relation is the answer; the one after 100k characters of prose is ignored
        ("QA_PAIR(0, 1) " + "ha" * (LARGE // 2) + " COMMENT(0,1)", 1, 0, ("QA_PAIR(0,1)",)),
        (
            "ha" * (LARGE // 2) + " QA_PAIR(0, 1) " + "ha" * (LARGE // 2) + " COMMENT(0,1)",
            2,
            0,
            ("QA_PAIR(0,1)", "COMMENT(0,1)"),
        ),
        ("Answer: " * (LARGE // 8) + "QA_PAIR(0,1)", 1, 0, ("QA_PAIR(0,1)",)),
        ("not " * (LARGE // 4) + "QA_PAIR(0,1)", 0, 0, ()),
        ("COMMENT(0,1) " * (LARGE // 13), LARGE // 13, 0, ("COMMENT(0,1)",)),
        ("QA_PAIR(0,9) " * (LARGE // 13), LARGE // 13, LARGE // 13, ()),
    ],
    ids=[
        "x",
        "ha",
        "A-",
        "words",
        "brackets",
        "unclosed",
        "long-label",
        "x+relation",
        "ha+relations",
        "prose+relations",
        "markers",
        "rejections",
        "many",
        "many-invalid",
    ],
)
def test_large_answers_parse_completely(answer: str, read: int, invalid: int, valid: tuple[str, ...]) -> None:
    """Defect 2: the old pattern backtracked quadratically ('x' * 40,000 took 15-60 s, 'A-' * 50,000 73 s).

    No timing assertion: each 100,000-character answer must parse to the right counts (milliseconds now,
    minutes before; measured by hand, see the README "Answer parsing").
    """
    parsed = parse_answer(answer, 1, STAC, N)
    assert len(answer) >= LARGE - 13
    assert (parsed.read, len(parsed.invalid)) == (read, invalid)
    assert tuple(str(r) for r in parsed.valid) == valid


@pytest.mark.parametrize("garbage", ["", "none", "RELATION(S_ID1, S_ID2)", "(((", "QA_PAIR(", "ÿ\x00\n" * 5])
def test_garbage_never_raises(garbage: str) -> None:
    parsed = parse_answer(garbage, 3, STAC, N)
    assert parsed.valid == () and parsed.read == 0


def test_window_structure_layout() -> None:
    # heads max(1, j-17) .. j-1 joined by one space; an empty head leaves a double space
    per_head = {1: "ELABORATION(0,1)", 2: "", 3: "QA_PAIR(0,3) COMMENT(1,3)"}
    assert window_structure(per_head, 4) == "ELABORATION(0,1)  QA_PAIR(0,3) COMMENT(1,3)"
    many = {y: f"COMMENT({y - 1},{y})" for y in range(1, 30)}
    assert window_structure(many, 20).split() == [f"COMMENT({y - 1},{y})" for y in range(3, 20)]


def test_predicted_structure_has_no_empty_slots() -> None:
    per_head = {1: "ELABORATION(0,1)", 2: "", 3: "QA_PAIR(0,3) COMMENT(1,3)", 5: ""}
    assert predicted_structure(per_head, 6) == "ELABORATION(0,1) QA_PAIR(0,3) COMMENT(1,3)"
    assert predicted_structure({1: "", 2: ""}, 3) == ""
    # the window is the same as the data layout's: heads j-17 .. j-1
    many = {y: f"COMMENT({y - 1},{y})" if y % 2 else "" for y in range(1, 30)}
    assert predicted_structure(many, 20) == " ".join(f"COMMENT({y - 1},{y})" for y in range(3, 20, 2))
