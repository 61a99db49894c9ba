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
from bediscover_inspect.dialogue_parsing.scorer import measure_from_counts, micro, pooled_counts

STAC = RELATIONS["stac"]


def test_parse_plain_and_multi_parent() -> None:
    parsed = parse_answer("COMMENT(1,2) ELABORATION(0,2)", 2, STAC)
    assert parsed.valid == (Relation(1, 2, "COMMENT"), Relation(0, 2, "ELABORATION"))
    assert parsed.invalid == () and parsed.read == 2


def test_parse_spaces_case_and_label_variants() -> None:
    parsed = parse_answer("The answer is qap( 0 , 3 ) and Q-Elab (1, 3), clarification_question(2,3)", 3, STAC)
    assert [str(r) for r in parsed.valid] == ["QA_PAIR(0,3)", "Q_ELABORATION(1,3)", "CLARIF_Q(2,3)"]
    assert parse_answer("**Acknowledgment**(4, 5)", 5, STAC).valid == (Relation(4, 5, "ACKNOWLEDGEMENT"),)
    assert parse_answer("QA PAIR(0,1)", 1, STAC).valid == (Relation(0, 1, "QA_PAIR"),)


def test_invalid_relations_are_counted_not_used() -> None:
    parsed = parse_answer("FOO(1,4) QA_PAIR(3,5) RESULT(4,4) RESULT(2,4)", 4, STAC)
    assert parsed.valid == (Relation(2, 4, "RESULT"),)
    assert parsed.invalid == ("FOO(1,4)", "QA_PAIR(3,5)", "RESULT(4,4)")
    assert parsed.read == 4


def test_label_sets_differ_per_corpus() -> None:
    # MSDC has CONFIRM_Q and SEQUENCE, no BACKGROUND / PARALLEL (Table 12)
    assert parse_answer("CONFIRM_Q(0,1)", 1, MSDC_RELATIONS).valid == (Relation(0, 1, "CONFIRM_Q"),)
    assert parse_answer("CONFIRM_Q(0,1)", 1, STAC_MOLWENI_RELATIONS).invalid == ("CONFIRM_Q(0,1)",)
    assert parse_answer("PARALLEL(0,1)", 1, MSDC_RELATIONS).invalid == ("PARALLEL(0,1)",)
    assert parse_answer("Confirmation_question(0,1)", 1, MSDC_RELATIONS).valid == (Relation(0, 1, "CONFIRM_Q"),)


def test_reasoning_is_not_read_and_duplicates_collapse() -> None:
    parsed = parse_answer("<think>QA_PAIR(0,2) maybe</think>COMMENT(1,2) COMMENT(1,2)", 2, STAC)
    assert parsed.valid == (Relation(1, 2, "COMMENT"),)
    assert parsed.read == 2  # both COMMENTs read, one kept


def test_backward_relation_is_valid() -> None:
    assert parse_answer("EXPLANATION(7,6)", 6, STAC).valid == (Relation(7, 6, "EXPLANATION"),)


@pytest.mark.parametrize("garbage", ["", "none", "RELATION(S_ID1, S_ID2)", "(((", "QA_PAIR(", "ÿ\x00\n" * 5])
def test_garbage_never_raises(garbage: str) -> None:
    parsed = parse_answer(garbage, 3, STAC)
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
        total = total + count_turn(parse_answer(answer, j, STAC), parse_gold(gold), output_tokens=j)
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
    assert micro("link_f1")(scores) == pytest.approx(2 / 3)  # not (8/9 + 1/3) / 2 = 0.611
    assert micro("full_f1")(scores) == pytest.approx(0.5)
    assert micro("invalid_rate")(scores) == pytest.approx(2 / 11)


def test_metric_rejects_unknown_measure() -> None:
    with pytest.raises(ValueError, match="link_f1"):
        micro("f1")


def test_epoch_reducer_pools_counts() -> None:
    one = TurnCounts(link_tp=1, link_pred=2, link_gold=2, turns=1).as_dict()
    two = TurnCounts(link_tp=2, link_pred=2, link_gold=2, turns=1).as_dict()
    scores = [
        Score(value={"link_f1": 0.5}, metadata={"counts": one}),
        Score(value={"link_f1": 1.0}, metadata={"counts": two}),
    ]
    reduced = pooled_counts()(scores)
    assert reduced.value == {"link_f1": 0.75}
    assert reduced.metadata["counts"]["link_tp"] == 3 and reduced.metadata["counts"]["link_pred"] == 4
    assert reduced.metadata["counts"]["turns"] == 2
