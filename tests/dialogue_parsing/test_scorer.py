"""Turn counts and the micro measures, checked against values computed by hand, scikit-learn and scipy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from inspect_ai.scorer import Metric, SampleScore, Score
from scipy.stats import bootstrap
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.preprocessing import MultiLabelBinarizer

from bediscover_inspect.dialogue_parsing.prompts import RELATIONS
from bediscover_inspect.dialogue_parsing.relations import parse_answer, parse_gold
from bediscover_inspect.dialogue_parsing.scorer import (
    COUNT_KEYS,
    MEASURES,
    TurnCounts,
    count_turn,
    dialogue_parsing_scorer,
    f1_of,
    score_value,
)
from bediscover_inspect.measures import METRICS, SCORERS
from bediscover_inspect.metrics import measure_metrics

full_f1, link_f1, link_precision, output_tokens_per_turn = (
    METRICS[n] for n in ("full_f1", "link_f1", "link_precision", "output_tokens_per_turn")
)

STAC = RELATIONS["stac"]
N = 8  # utterances 0 … 7 of the made-up dialogue below

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


def _turn_counts(j: int, gold: str, answer: str) -> TurnCounts:
    return count_turn(parse_answer(answer, j, STAC, N), parse_gold(gold), output_tokens=j)


def _counts(turns: list[tuple[int, str, str]]) -> TurnCounts:
    total = TurnCounts()
    for j, gold, answer in turns:
        total = total + _turn_counts(j, gold, answer)
    return total


def _sample_score(sample_id: str, counts: TurnCounts, dataset: str = "stac") -> SampleScore:
    return SampleScore(
        score=Score(value=score_value(counts)), sample_id=sample_id, sample_metadata={"dataset": dataset}
    )


def _value(measure: Callable[..., Metric], scores: list[SampleScore]) -> float:
    return float(measure(stat="value")(scores))


def _all_entries(scores: list[SampleScore]) -> dict[str, Any]:
    """Every entry the scorer's metric list writes for ``scores``, in order."""
    entries: dict[str, Any] = {}
    for measure in MEASURES:
        for entry in measure_metrics(measure):
            entries |= entry(scores)
    return entries


def test_made_up_dialogue_counts_by_hand() -> None:
    counts = _counts(MADE_UP).as_dict()
    assert counts == {
        "link_tp": 5,
        "link_pred": 8,
        "link_gold": 7,
        "full_tp": 4,
        "full_pred": 8,
        "full_gold": 8,
        "relations_read": 11,
        "relations_invalid": 2,
        "no_relation": 1,
        "turns": 7,
        "output_tokens": 28,
        "reasoning_tokens": 0,
    }
    assert tuple(counts) == COUNT_KEYS
    one = [_sample_score("d", _counts(MADE_UP))]
    values = {name: value for name, value in _all_entries(one).items() if not name.endswith("_stac")}
    assert values == pytest.approx(
        {
            "link_f1": 2 / 3,
            "link_precision": 5 / 8,
            "link_recall": 5 / 7,
            "full_f1": 0.5,
            "full_precision": 0.5,
            "full_recall": 0.5,
            "invalid_rate": 2 / 11,
            "no_relation_rate": 1 / 7,
            "echo": 0.0,
            "cut_off_rate": 0.0,
            "reasoning_only_rate": 0.0,
            "output_tokens_per_turn": 4.0,  # (1+…+7)/7
            "reasoning_tokens_per_turn": 0.0,
        }
        | {f"{m}_stderr": 0.0 for m in SCORERS["dialogue_parsing_scorer"].measures}
    )


def test_f1_is_twice_tp_over_pred_plus_gold() -> None:
    # 2PR/(P+R) with P = 5/8, R = 5/7: 2·(25/56)/(75/56) = 2/3 = 2·5/(8+7)
    assert f1_of(5, 8, 7) == pytest.approx(2 * (5 / 8) * (5 / 7) / (5 / 8 + 5 / 7)) == pytest.approx(2 / 3)
    assert f1_of(0, 0, 0) == 0.0 and f1_of(0, 3, 0) == 0.0 and f1_of(0, 0, 4) == 0.0


def test_micro_measures_equal_sklearn_multilabel_micro() -> None:
    """Each turn as one sample of a multilabel problem (labels: the links, or the triples): scikit-learn's
    micro P/R/F1 over the turns are our micro measures over the same turns."""
    scores, gold_links, pred_links, gold_full, pred_full = [], [], [], [], []
    for j, gold, answer in MADE_UP:
        scores.append(_sample_score(f"t{j}", _turn_counts(j, gold, answer)))
        predicted, expected = parse_answer(answer, j, STAC, N).valid, parse_gold(gold)
        pred_links.append({f"{r.x}-{r.y}" for r in predicted})
        gold_links.append({f"{r.x}-{r.y}" for r in expected})
        pred_full.append({str(r) for r in predicted})
        gold_full.append({str(r) for r in expected})
    for kind, gold_sets, pred_sets in (("link", gold_links, pred_links), ("full", gold_full, pred_full)):
        binarizer = MultiLabelBinarizer().fit(gold_sets + pred_sets)
        y_true, y_pred = binarizer.transform(gold_sets), binarizer.transform(pred_sets)
        entries = _all_entries(scores)
        assert entries[f"{kind}_precision"] == pytest.approx(precision_score(y_true, y_pred, average="micro"))
        assert entries[f"{kind}_recall"] == pytest.approx(recall_score(y_true, y_pred, average="micro"))
        assert entries[f"{kind}_f1"] == pytest.approx(f1_score(y_true, y_pred, average="micro"))


def test_metric_is_micro_not_mean_of_dialogues() -> None:
    # dialogue A = t1-t3: link tp 4 / pred 5 / gold 4 -> F1 8/9; dialogue B = t4-t7: tp 1 / pred 3 / gold 3 -> 1/3
    a, b = _counts(MADE_UP[:3]), _counts(MADE_UP[3:])
    assert _value(link_f1, [_sample_score("A", a)]) == pytest.approx(8 / 9)
    assert _value(link_f1, [_sample_score("B", b)]) == pytest.approx(1 / 3)
    values = _all_entries([_sample_score("A", a), _sample_score("B", b)])
    assert values["link_f1"] == values["link_f1_stac"] == pytest.approx(2 / 3)  # not (8/9 + 1/3) / 2 = 0.611
    assert values["full_f1"] == pytest.approx(0.5)
    assert values["invalid_rate_stac"] == pytest.approx(2 / 11)
    # the headline first: value and standard error of link F1 overall, then per dataset
    assert list(values)[:4] == ["link_f1", "link_f1_stderr", "link_f1_stac", "link_f1_stderr_stac"]


def test_measures_are_per_dataset() -> None:
    scores = [_sample_score("A", _counts(MADE_UP[:3]), "stac"), _sample_score("B", _counts(MADE_UP[3:]), "msdc")]
    values = _all_entries(scores)
    assert values["link_f1_stac"] == pytest.approx(8 / 9) and values["link_f1_msdc"] == pytest.approx(1 / 3)
    assert values["output_tokens_per_turn_stac"] == pytest.approx((1 + 2 + 3) / 3)
    assert values["output_tokens_per_turn_msdc"] == pytest.approx((4 + 5 + 6 + 7) / 4)
    assert values["output_tokens_per_turn"] == pytest.approx(4.0)


def _random_dialogues(n: int) -> list[SampleScore]:
    rng = np.random.default_rng(7)
    scores = []
    for i in range(n):
        turns = int(rng.integers(3, 40))
        link_gold = turns + int(rng.integers(0, 5))
        link_pred = int(rng.integers(0, turns + 3))
        link_tp = int(rng.integers(0, min(link_gold, link_pred) + 1))
        full_gold = link_gold + int(rng.integers(0, 2))
        full_tp = int(rng.integers(0, link_tp + 1))
        read = link_pred + int(rng.integers(0, 6))
        counts = TurnCounts(
            link_tp,
            link_pred,
            link_gold,
            full_tp,
            link_pred,
            full_gold,
            read,
            read - link_pred,
            int(rng.integers(0, turns + 1)),
            turns,
            int(rng.integers(5, 60)) * turns,
            0,
        )
        scores.append(_sample_score(f"d{i}", counts))
    return scores


REFERENCE = {
    "link_f1": (lambda v: 2 * v["link_tp"], lambda v: v["link_pred"] + v["link_gold"]),
    "link_precision": (lambda v: v["link_tp"], lambda v: v["link_pred"]),
    "link_recall": (lambda v: v["link_tp"], lambda v: v["link_gold"]),
    "full_f1": (lambda v: 2 * v["full_tp"], lambda v: v["full_pred"] + v["full_gold"]),
    "full_precision": (lambda v: v["full_tp"], lambda v: v["full_pred"]),
    "full_recall": (lambda v: v["full_tp"], lambda v: v["full_gold"]),
    "invalid_rate": (lambda v: v["relations_invalid"], lambda v: v["relations_read"]),
    "no_relation_rate": (lambda v: v["no_relation"], lambda v: v["turns"]),
    "output_tokens_per_turn": (lambda v: v["output_tokens"], lambda v: v["turns"]),
}
"""Each measure as numerator / denominator of the per-sample counts, written out from the paper's definitions."""


@pytest.mark.parametrize("measure", list(REFERENCE))
def test_bootstrap_stderr_matches_scipy(measure: str) -> None:
    """The standard error is a bootstrap over samples (dialogues): scipy's paired bootstrap of the same ratio of
    sums, with many more resamples, agrees within Monte-Carlo error (ours: 1000 resamples, about 2 %)."""
    scores = _random_dialogues(40)
    numerator, denominator = REFERENCE[measure]
    num = np.array([numerator(s.score.value) for s in scores], dtype=float)
    den = np.array([denominator(s.score.value) for s in scores], dtype=float)
    entries = _all_entries(scores)
    assert entries[measure] == pytest.approx(num.sum() / den.sum())
    reference = bootstrap(
        (num, den),
        lambda a, b: a.sum() / b.sum(),
        paired=True,
        vectorized=False,
        n_resamples=20_000,
        method="percentile",
        rng=np.random.default_rng(1),
    )
    assert entries[measure + "_stderr"] > 0
    assert entries[measure + "_stderr"] == pytest.approx(reference.standard_error, rel=0.1)
    assert entries[measure + "_stderr_stac"] == entries[measure + "_stderr"]  # one dataset: the same samples


def test_bootstrap_stderr_is_seeded_and_zero_without_spread() -> None:
    scores = _random_dialogues(25)
    assert link_f1(stat="stderr")(scores) == link_f1(stat="stderr")(scores)  # the same seed, the same number
    perfect = [
        _sample_score(f"d{i}", TurnCounts(link_tp=k, link_pred=k, link_gold=k, turns=k))
        for i, k in enumerate((1, 4, 9, 2))
    ]
    assert link_f1()(perfect) == {"link_f1": 1.0, "link_f1_stderr": 0.0}
    assert link_precision()(perfect[:1]) == {"link_precision": 1.0, "link_precision_stderr": 0.0}
    # no gold and no prediction anywhere: 0, not a division error
    empty = [_sample_score("e", TurnCounts(turns=3, no_relation=3))]
    assert full_f1()(empty) == {"full_f1": 0.0, "full_f1_stderr": 0.0}


def test_a_score_without_counts_is_rejected_naming_the_sample() -> None:
    """The measures read their counts from ``Score.value``; a score of another scorer fails clearly."""
    foreign = SampleScore(score=Score(value={"accuracy": 1.0}), sample_id="stac_x", sample_metadata={"dataset": "stac"})
    with pytest.raises(ValueError, match=r"Sample stac_x score key 'output_tokens' is missing"):
        output_tokens_per_turn()([foreign])


def test_scorer_metric_names_are_its_own() -> None:
    """The per-turn token measures do not take the shared per-sample metrics' registry names."""
    from inspect_ai.util import registry_info

    names = [registry_info(measure).name for measure in MEASURES]
    assert len(set(names)) == len(MEASURES)
    assert "bediscover_inspect/output_tokens" not in names and "bediscover_inspect/reasoning_tokens" not in names
    assert registry_info(dialogue_parsing_scorer).name.endswith("dialogue_parsing_scorer")


def test_a_turn_without_reported_tokens_leaves_the_dialogues_token_counts_unreported():
    answered = count_turn(parse_answer("CONTINUATION(2,5)", 5, STAC, N), parse_gold("CONTINUATION(3,5)"), 40, 10)
    unreported = count_turn(parse_answer("I am not sure.", 7, STAC, N), parse_gold("ACKNOWLEDGEMENT(6,7)"), None, None)
    total = answered + unreported
    assert (total.output_tokens, total.reasoning_tokens, total.turns, total.link_pred) == (None, None, 2, 1)
    assert (answered + answered).output_tokens == 80
