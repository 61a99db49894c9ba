"""Scoring dialogue parsing: micro P/R/F1 for link attachment and full structure over summed counts.

Paper §6.2.1: "the micro-averaged F1 scores for link attachment and full structure (link+relation)". Each
sample's score carries its :class:`relations.TurnCounts` (summed over its turns) in
``Score.metadata["counts"]``; the metrics sum them over all samples of a group and only then divide, so a
dataset's F1 is over all its relations, not a mean of per-dialogue F1s.

Counting decisions (README, "Scoring"):

* per turn, predicted and gold relations are *sets*: link = pairs (x, y), full = triples (x, y, label);
  a gold pair with two labels (STAC 2 turns, MSDC 7) is one gold link and two gold triples;
* gold backward relations (x > y: STAC 8, MSDC 56) stay in the gold; a predicted backward relation whose
  y is the new turn and whose x is an utterance of the dialogue is valid and can match them;
* an empty-gold turn (STAC 4, Molweni 19, MSDC 8) adds no gold; anything predicted there is a false positive;
* invalid relations (label outside the prompt's set, y not the new turn, x not an utterance of the
  dialogue or x == y: ``relations`` module rule 4) are counted in
  ``invalid_rate`` = invalid / relations read, never used; ``no_relation_rate`` = turns whose answer held no
  ``LABEL(x, y)`` at all;
* ``output_tokens`` / ``reasoning_tokens`` are per turn (sum over turns / turns), as the paper's "tok."
  columns (Tables 39-41).
"""

from __future__ import annotations

from typing import Any, Sequence

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState

from bediscover_inspect.dialogue_parsing.prompts import RELATIONS
from bediscover_inspect.dialogue_parsing.relations import (
    COUNT_KEYS,
    TurnCounts,
    count_turn,
    parse_answer,
    parse_gold,
)
from bediscover_inspect.dialogue_parsing.solver import TURNS_STORE_KEY
from bediscover_inspect.generation import usage_tokens
from bediscover_inspect.metrics import MEASURE_SCORES, measures_metric, register_reduction

MEASURES: tuple[str, ...] = (
    "link_f1", "link_precision", "link_recall", "full_f1", "full_precision", "full_recall",
    "invalid_rate", "no_relation_rate", "output_tokens", "reasoning_tokens",
)
"""Measures, each micro-averaged over summed counts, per dataset and ``all`` (also the score-value keys)."""


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def prf(tp: float, pred: float, gold: float) -> tuple[float, float, float]:
    """Precision, recall, F1 from counts; 0 where a denominator is 0 (e.g. no prediction at all)."""
    precision = _ratio(tp, pred)
    recall = _ratio(tp, gold)
    f1 = _ratio(2 * precision * recall, precision + recall)
    return precision, recall, f1


def measure_from_counts(counts: dict[str, float], measure: str) -> float:
    """One of :data:`MEASURES` computed from (summed) count dicts with :data:`relations.COUNT_KEYS`.

    Raises:
        ValueError: unknown ``measure`` (names the valid ones).
    """
    for kind in ("link", "full"):
        if measure.startswith(kind + "_"):
            p, r, f = prf(counts[f"{kind}_tp"], counts[f"{kind}_pred"], counts[f"{kind}_gold"])
            return {"precision": p, "recall": r, "f1": f}[measure.split("_", 1)[1]]
    if measure == "invalid_rate":
        return _ratio(counts["relations_invalid"], counts["relations_read"])
    if measure == "no_relation_rate":
        return _ratio(counts["no_relation"], counts["turns"])
    if measure in ("output_tokens", "reasoning_tokens"):
        return _ratio(counts[measure], counts["turns"])
    raise ValueError(f"measure must be one of {list(MEASURES)}, got {measure!r}")


def summed_counts(scores: Sequence[SampleScore]) -> dict[str, float]:
    """Sum of ``Score.metadata["counts"]`` over ``scores``.

    Raises:
        ValueError: a score without counts (not produced by :func:`dialogue_parsing_scorer`).
    """
    total = dict.fromkeys(COUNT_KEYS, 0.0)
    for item in scores:
        counts = (item.score.metadata or {}).get("counts")
        if not isinstance(counts, dict):
            raise ValueError(f"sample {item.sample_id}: score metadata has no 'counts' dict")
        for key in COUNT_KEYS:
            total[key] += float(counts[key])
    return total


register_reduction("micro_counts", lambda scores, measure: measure_from_counts(summed_counts(scores), measure))


@metric(scores=MEASURE_SCORES)
def dialogue_parsing_measures() -> Metric:
    """Every measure of :data:`MEASURES` micro-averaged: sum the per-sample counts, then divide (§6.2.1)."""
    return measures_metric(dict.fromkeys(MEASURES, "micro_counts"))


def _score(counts: TurnCounts, answer: str, turns: list[dict[str, Any]]) -> Score:
    as_dict = counts.as_dict()
    return Score(
        value={key: measure_from_counts(as_dict, key) for key in MEASURES},
        answer=answer,
        metadata={"counts": as_dict, "turns": turns},
    )


@scorer(metrics=[dialogue_parsing_measures()])
def dialogue_parsing_scorer() -> Scorer:
    """Score one sample: a single turn (``state.output.completion``) or a whole dialogue (the incremental
    solver's per-turn records in the store), against the gold of each turn.

    ``Score.answer`` is the predicted structure (valid relations, space-separated); ``Score.metadata`` has
    ``counts`` (:class:`relations.TurnCounts` as a dict) and ``turns`` (per turn: turn, gold, predicted,
    invalid relations, counts; plus the completion in incremental mode).
    """

    async def score(state: TaskState, target: Target) -> Score:
        dataset = state.metadata["dataset"]
        relations = RELATIONS[dataset]
        if "turns" not in state.metadata:  # single turn
            j = int(state.metadata["turn"])
            parsed = parse_answer(state.output.completion, j, relations, int(state.metadata["n_edus"]))
            out_tokens, reasoning_tokens = usage_tokens(state.output)
            counts = count_turn(parsed, parse_gold(state.metadata["gold"]), out_tokens, reasoning_tokens)
            predicted = " ".join(str(r) for r in parsed.valid)
            turn = {"turn": j, "gold": state.metadata["gold"], "predicted": predicted, "invalid": list(parsed.invalid)}
            return _score(counts, predicted, [turn | {"counts": counts.as_dict()}])
        n_edus = len(state.metadata["edus"])
        records = {r["turn"]: r for r in state.store.get(TURNS_STORE_KEY, [])}
        total = TurnCounts()
        turns: list[dict[str, Any]] = []
        answers: list[str] = []
        for turn in state.metadata["turns"]:
            j = int(turn["turn"])
            record = records.get(j)
            completion = record["completion"] if record else ""
            parsed = parse_answer(completion, j, relations, n_edus)
            counts = count_turn(
                parsed,
                parse_gold(turn["gold"]),
                record["output_tokens"] if record else 0,
                record["reasoning_tokens"] if record else 0,
            )
            total = total + counts
            predicted = " ".join(str(r) for r in parsed.valid)
            answers.append(predicted)
            turns.append(
                {
                    "turn": j,
                    "gold": turn["gold"],
                    "completion": completion,
                    "predicted": predicted,
                    "invalid": list(parsed.invalid),
                    "answered": record is not None,
                    "counts": counts.as_dict(),
                }
            )
        return _score(total, " ".join(a for a in answers if a), turns)

    return score
