"""Scorers of Task (2): relation labels (TBD, TDD-Man) and ToT-Arithmetic answer dicts.

The task runs the scorers its datasets need; each returns ``None`` for a sample of the other kind, so Inspect
records no score from it there and its metrics cover only its own samples (one eval still runs all three
datasets, and ``-T dataset=tot-arithmetic`` runs only the ToT scorer).

Relation measures (``relation_scorer``, one metric), each per ``dataset`` with an ``all`` entry: ``micro_f1``,
``accuracy``, ``weighted_precision``, ``weighted_recall``, ``weighted_f1``, ``invalid``,
``output_tokens``, ``reasoning_tokens``. Micro-F1 (the paper's TBD / TDD-Man measure, Table 3) pools every
pair's single predicted label: each pair adds one to the true positives (right) or one false positive plus one
false negative (wrong), so micro precision = micro recall = micro-F1 = accuracy; it also equals weighted
recall, which the paper's Tables 22–25 confirm (their micro-F1 and weighted-Rec columns are identical).

ToT measures (``tot_scorer``): ``accuracy`` (per ``dataset``), ``accuracy_by_category`` (the same 0/1 value per
``category`` = Table 26 columns tz, as, scd, mop, dur, cmp, trk), ``invalid``, ``output_tokens``,
``reasoning_tokens``.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from ..generation import usage_tokens
from ..labels import parse_label
from ..metrics import CLASSIFICATION_MEASURES, INVALID_ANSWER, MEASURE_SCORES, classification_value, measures_metric
from .dataset import RELATION_DATASETS
from .prompts import RELATION_ALIASES, RELATION_LABELS
from .tot_answers import parse_gold, parse_tot_answer, tot_correct


@metric(scores=MEASURE_SCORES)
def relation_measures() -> Metric:
    """``micro_f1`` (paper Table 3, "Scores are micro-F1") and ``metrics.CLASSIFICATION_MEASURES``, per dataset."""
    return measures_metric({"micro_f1": "micro_f1"} | CLASSIFICATION_MEASURES)


@scorer(metrics=[relation_measures()])
def relation_scorer() -> Scorer:
    """Score a TBD / TDD-Man answer: shared label parser over the six Table 9 labels (+ aliases).

    ``Score.answer`` = parsed label or ``INVALID_ANSWER``; ``Score.metadata`` = ``gold``, ``candidates``,
    ``ambiguous``, ``echo`` (the answer named ≥ 3 labels and ≥ half of the set: invalid, see ``labels``).
    Returns ``None`` for samples of other datasets.
    """

    async def score(state: TaskState, target: Target) -> Score | None:
        if state.metadata.get("dataset") not in RELATION_DATASETS:
            return None
        gold = str(state.metadata["gold"])
        parsed = parse_label(state.output.completion, RELATION_LABELS, RELATION_ALIASES)
        output_tokens, reasoning_tokens = usage_tokens(state.output)
        value = classification_value(parsed.label == gold, parsed.invalid, output_tokens, reasoning_tokens)
        return Score(
            value=value,
            answer=parsed.label if parsed.label is not None else INVALID_ANSWER,
            explanation=state.output.completion,
            metadata={
                "gold": gold,
                "candidates": list(parsed.candidates),
                "ambiguous": parsed.ambiguous,
                "echo": parsed.echo,
            },
        )

    return score


@metric(scores=MEASURE_SCORES)
def tot_measures() -> Metric:
    """ToT-Arithmetic: ``accuracy``, ``accuracy_by_category`` (Table 26), ``invalid`` and token means.

    No ``all`` entries: ToT is one dataset (``accuracy/tot-arithmetic`` is its overall value, Table 26's "all"),
    and ``<measure>/all`` of this task belongs to the relation scorer (TBD and TDD-Man pooled).
    """
    return measures_metric({
        "accuracy": "mean",
        "accuracy_by_category": "mean",
        "invalid": "mean",
        "output_tokens": "mean",
        "reasoning_tokens": "mean",
    }, include_all=False)


@scorer(metrics=[tot_measures()])
def tot_scorer() -> Scorer:
    """Score a ToT-Arithmetic answer: read the answer dict, compare field by field with the gold dict.

    ``Score.answer`` = the dict read (as a string) or ``INVALID_ANSWER``; ``Score.metadata`` = ``gold``,
    ``category``, ``parsed_from``, ``parse_notes`` (``["placeholder"]`` when a template placeholder value was
    ignored). Returns ``None`` for samples of other datasets.
    """

    async def score(state: TaskState, target: Target) -> Score | None:
        if state.metadata.get("dataset") != "tot-arithmetic":
            return None
        gold = parse_gold(str(state.metadata["gold"]))
        parsed = parse_tot_answer(state.output.completion, list(gold))
        correct = tot_correct(gold, parsed.value)
        output_tokens, reasoning_tokens = usage_tokens(state.output)
        hit = 1.0 if correct else 0.0
        return Score(
            value={
                "accuracy": hit,
                "invalid": 1.0 if parsed.invalid else 0.0,
                "output_tokens": float(output_tokens),
                "reasoning_tokens": float(reasoning_tokens),
            },
            answer=str(parsed.value) if parsed.value is not None else INVALID_ANSWER,
            explanation=state.output.completion,
            metadata={
                "gold": state.metadata["gold"],
                "category": state.metadata.get("category"),
                "parsed_from": parsed.source,
                "parse_notes": list(parsed.notes),
            },
        )

    return score
