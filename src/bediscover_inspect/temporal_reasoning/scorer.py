"""Scorers of Task (2): relation labels (TBD, TDD-Man) and ToT-Arithmetic answer dicts.

The task runs the scorers its datasets need; each returns ``None`` for a sample of the other kind, so Inspect
records no score from it there and its metrics cover only its own samples (one eval still runs all three
datasets, and ``-T dataset=tot-arithmetic`` runs only the ToT scorer).

Relation scores (``relation_scorer``), one key per measure, each grouped by ``dataset`` with an ``all`` entry:
``micro_f1``, ``accuracy``, ``weighted_precision``, ``weighted_recall``, ``weighted_f1``, ``invalid``,
``output_tokens``, ``reasoning_tokens``. Micro-F1 (the paper's TBD / TDD-Man measure, Table 3) pools every
pair's single predicted label: each pair adds one to the true positives (right) or one false positive plus one
false negative (wrong), so micro precision = micro recall = micro-F1 = accuracy; it also equals weighted
recall, which the paper's Tables 22–25 confirm (their micro-F1 and weighted-Rec columns are identical).

ToT scores (``tot_scorer``): ``accuracy`` (grouped by ``dataset``), ``category_accuracy`` (the same 0/1 value,
grouped by ``category`` = Table 26 columns tz, as, scd, mop, dur, cmp, trk), ``invalid``, ``output_tokens``,
``reasoning_tokens``.
"""

from __future__ import annotations

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    grouped,
    mean,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState

from ..generation import usage_tokens
from ..labels import parse_label
from ..metrics import INVALID_ANSWER, classification_metrics, classification_value, token_metrics
from .dataset import RELATION_DATASETS
from .prompts import RELATION_ALIASES, RELATION_LABELS
from .tot_answers import parse_gold, parse_tot_answer, tot_correct


def micro_f1_score(gold: list[str], pred: list[str]) -> float:
    """Micro-averaged F1 over all labels (scikit-learn's ``f1_score(average="micro")``); 0.0 for empty input.

    With exactly one predicted label per TLINK (an invalid answer being its own label) micro precision = micro
    recall = the share of pairs labelled correctly, so micro-F1 is that share (counted here; the tests check it
    against scikit-learn). Raises ``ValueError`` if the lists differ in length.
    """
    if len(gold) != len(pred):
        raise ValueError(f"micro_f1_score: {len(gold)} gold labels but {len(pred)} predictions")
    if not gold:
        return 0.0
    return sum(g == p for g, p in zip(gold, pred)) / len(gold)


@metric(name="micro_f1")
def micro_f1() -> Metric:
    """Micro-F1 of ``Score.answer`` against ``Score.metadata["gold"]`` (paper Table 3, "Scores are micro-F1")."""

    def compute(scores: list[SampleScore]) -> Value:
        gold = [str((s.score.metadata or {})["gold"]) for s in scores]
        pred = [str(s.score.answer) if s.score.answer is not None else INVALID_ANSWER for s in scores]
        return micro_f1_score(gold, pred)

    return compute


def relation_metrics() -> list[Metric | dict[str, list[Metric]]]:
    """The shared classification metrics plus ``micro_f1``, each grouped by ``dataset``."""
    shared = classification_metrics("dataset")[0]
    assert isinstance(shared, dict)
    return [{"micro_f1": [grouped(micro_f1(), "dataset")]} | shared]


@scorer(metrics=relation_metrics())
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
            value={"micro_f1": value["accuracy"]} | value,
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


def tot_metrics() -> list[Metric | dict[str, list[Metric]]]:
    """``accuracy`` / ``invalid`` / tokens grouped by ``dataset``; ``category_accuracy`` grouped by ``category``."""
    return [
        {
            "accuracy": [grouped(mean(), "dataset")],
            "category_accuracy": [grouped(mean(), "category")],
            "invalid": [grouped(mean(), "dataset")],
        }
        | token_metrics("dataset")
    ]


@scorer(metrics=tot_metrics())
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
                "category_accuracy": hit,
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
