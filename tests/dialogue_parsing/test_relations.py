"""Answer parsing and the micro-F1 metric, checked against values computed by hand."""

from __future__ import annotations

import pytest
from inspect_ai.scorer import SampleScore, Score

from bediscover_inspect.dialogue_parsing.prompts import MSDC_RELATIONS, RELATIONS, STAC_MOLWENI_RELATIONS
from bediscover_inspect.dialogue_parsing.relations import (
    Relation,
    TurnCounts,
    count_turn,
    parse_answer,
    parse_gold,
    window_structure,
)
from bediscover_inspect.dialogue_parsing.scorer import dialogue_parsing_measures, measure_from_counts

STAC = RELATIONS["stac"]
N = 8  # utterances 0 … 7 of the made-up dialogues below


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
    assert parsed.invalid == ("COMMENT(-2,4)", "COMMENT(-1,4)", "COMMENT(4,4)", "COMMENT(10,4)",
                              "COMMENT(11,4)", "COMMENT(12,4)")
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
        ("QA_PAIR(0, 1) " + "ha" * (LARGE // 2) + " COMMENT(0,1)", 2, 0, ("QA_PAIR(0,1)", "COMMENT(0,1)")),
        ("COMMENT(0,1) " * (LARGE // 13), LARGE // 13, 0, ("COMMENT(0,1)",)),
        ("QA_PAIR(0,9) " * (LARGE // 13), LARGE // 13, LARGE // 13, ()),
    ],
    ids=["x", "ha", "A-", "words", "brackets", "unclosed", "long-label", "x+relation", "ha+relations", "many",
         "many-invalid"],
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


# A made-up dialogue of 7 new turns (gold / answer), with by-hand counts:
#   t1 QA_PAIR(0,1)                      | QA_PAIR(0,1)                         correct
#   t2 COMMENT(1,2) ELABORATION(0,2)     | COMMENT(1,2) CONTRAST(0,2)           wrong label on (0,2)
#   t3 EXPLANATION(4,3)  (backward)      | EXPLANATION(4,3) ACKNOWLEDGEMENT(1,3) backward hit + extra
#   t4 ""  (empty gold)                  | RESULT(2,4) QA_PAIR(3,5) FOO(1,4)    extra + 2 invalid
#   t5 CONTINUATION(3,5)                 | CONTINUATION(2,5)                    wrong parent
#   t6 COMMENT(5,6) ELABORATION(5,6)     | COMMENT(5,6) COMMENT(5,6)            duplicate pair in gold
#   t7 ACKNOWLEDGEMENT(6,7)              | "I am not sure."                     missing, no relation
# link: gold 1+2+1+0+1+1+1 = 7, pred 1+2+2+1+1+1+0 = 8, tp 1+2+1+0+0+1+0 = 5
# full: gold 1+2+1+0+1+2+1 = 8, pred 1+2+2+1+1+1+0 = 8, tp 1+1+1+0+0+1+0 = 4
# read 1+2+2+3+1+2+0 = 11, invalid 2, no-relation turns 1, turns 7
MADE_UP = [
    (1, "QA_PAIR(0,1)", "QA_PAIR(0,1)"),
    (2, "COMMENT(1,2) ELABORATION(0,2)", "COMMENT(1,2) CONTRAST(0,2)"),
    (3, "EXPLANATION(4,3)", "EXPLANATION(4,3) ACKNOWLEDGEMENT(1,3)"),
    (4, "", "RESULT(2,4) QA_PAIR(3,5) FOO(1,4)"),
    (5, "CONTINUATION(3,5)", "CONTINUATION(2,5)"),
    (6, "COMMENT(5,6) ELABORATION(5,6)", "COMMENT(5,6) COMMENT(5,6)"),
    (7, "ACKNOWLEDGEMENT(6,7)", "I am not sure."),
]


def _counts(turns: list[tuple[int, str, str]]) -> TurnCounts:
    total = TurnCounts()
    for j, gold, answer in turns:
        total = total + count_turn(parse_answer(answer, j, STAC, N), parse_gold(gold), output_tokens=j)
    return total


def test_made_up_dialogue_counts_by_hand() -> None:
    counts = _counts(MADE_UP).as_dict()
    assert counts == {
        "link_tp": 5, "link_pred": 8, "link_gold": 7, "full_tp": 4, "full_pred": 8, "full_gold": 8,
        "relations_read": 11, "relations_invalid": 2, "no_relation": 1, "turns": 7,
        "output_tokens": 28, "reasoning_tokens": 0,
    }
    assert measure_from_counts(counts, "link_precision") == pytest.approx(5 / 8)
    assert measure_from_counts(counts, "link_recall") == pytest.approx(5 / 7)
    assert measure_from_counts(counts, "link_f1") == pytest.approx(2 / 3)
    assert measure_from_counts(counts, "full_precision") == pytest.approx(0.5)
    assert measure_from_counts(counts, "full_recall") == pytest.approx(0.5)
    assert measure_from_counts(counts, "full_f1") == pytest.approx(0.5)
    assert measure_from_counts(counts, "invalid_rate") == pytest.approx(2 / 11)
    assert measure_from_counts(counts, "no_relation_rate") == pytest.approx(1 / 7)
    assert measure_from_counts(counts, "output_tokens") == pytest.approx(4.0)  # (1+…+7)/7


def _sample_score(sample_id: str, counts: TurnCounts) -> SampleScore:
    return SampleScore(
        score=Score(value={"link_f1": 0.0}, metadata={"counts": counts.as_dict()}),
        sample_id=sample_id,
        sample_metadata={"dataset": "stac"},
    )


def test_metric_is_micro_not_mean_of_dialogues() -> None:
    # dialogue A = t1-t3: link tp 4 / pred 5 / gold 4 -> F1 8/9; dialogue B = t4-t7: tp 1 / pred 3 / gold 3 -> 1/3
    a, b = _counts(MADE_UP[:3]), _counts(MADE_UP[3:])
    assert measure_from_counts(a.as_dict(), "link_f1") == pytest.approx(8 / 9)
    assert measure_from_counts(b.as_dict(), "link_f1") == pytest.approx(1 / 3)
    scores = [_sample_score("A", a), _sample_score("B", b)]
    values = dialogue_parsing_measures()(scores)
    assert values["link_f1/all"] == values["link_f1/stac"] == pytest.approx(2 / 3)  # not (8/9 + 1/3) / 2 = 0.611
    assert values["full_f1/all"] == pytest.approx(0.5)
    assert values["invalid_rate/stac"] == pytest.approx(2 / 11)
    assert list(values)[:2] == ["link_f1/all", "link_f1/stac"]


def test_measure_from_counts_rejects_unknown_measure() -> None:
    with pytest.raises(ValueError, match="link_f1"):
        measure_from_counts(_counts(MADE_UP).as_dict(), "f1")
