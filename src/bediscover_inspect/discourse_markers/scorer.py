"""Scoring of Task (1): one label per answer, classification metrics per dataset, confusion matrices.

The answer is read from ``state.output.completion`` only (reasoning is never read) with the shared rule of
:func:`bediscover_inspect.labels.parse_label`: case-insensitive; a whole answer that is one label wins;
otherwise the first label (or alias) mentioned as a whole word is taken and the answer is flagged
``ambiguous`` when several distinct labels are named; no label -> invalid (scored wrong, ``invalid`` = 1).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.log import EvalLog
from inspect_ai.scorer import Metric, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from ..generation import usage_tokens
from ..labels import parse_label
from ..metrics import (
    CLASSIFICATION_MEASURES,
    MEASURE_SCORES,
    INVALID_ANSWER,
    classification_value,
    confusion_counts,
    measures_metric,
)
from .dataset import LABELS

JUST_ALIASES: dict[str, str] = {
    "Exclusive": "Exclusionary",
    "Exclusion": "Exclusionary",
    "Exclusivity": "Exclusionary",
    "Unelaborative": "Unelaboratory",
    "Unelaborated": "Unelaboratory",
    "Non-elaboratory": "Unelaboratory",
    "Unexplanative": "Unexplanatory",
    "Unexplained": "Unexplanatory",
    "Non-explanatory": "Unexplanatory",
    "Emphasis": "Emphatic",
    "Emphatically": "Emphatic",
    "Emphasizing": "Emphatic",
    "Adjectival": "Adjective",
}
"""Spelling variants of the Just labels. "Exclusive" is the name the Just paper and the authors' README use for
Exclusionary (``upstream/just/SOURCE.md``); the rest are the adjective / noun forms models give instead of the
label (e.g. "Emphasis", "Adjectival"). Words that also occur in ordinary explanations ("time", "recent") are
deliberately not aliases."""

OTHERWISE_ALIASES: dict[str, str] = {
    "Argumentative": "Argumentation",
    "Argumentational": "Argumentation",
    "Consequential": "Consequence",
    "Consequences": "Consequence",
    "Exceptional": "Exception",
    "Exceptive": "Exception",
    "Enumerative": "Enumeration",
    "Enumerating": "Enumeration",
}
"""Spelling variants of the Otherwise labels (adjectival forms such as "Argumentative"). "Argument" is not an
alias: the prompts speak of Arg1/Arg2 "arguments", so a model's explanation uses the word for other things."""

ALIASES: dict[str, dict[str, str]] = {
    "just-manual": JUST_ALIASES,
    "just-subtitle": JUST_ALIASES,
    "otherwise": OTHERWISE_ALIASES,
}
"""Dataset -> ``variant -> label`` aliases passed to :func:`parse_label`."""


def parse_answer(completion: str, dataset: str) -> tuple[str, bool, bool, tuple[str, ...]]:
    """Parse one completion of ``dataset``.

    Returns:
        ``(answer, invalid, ambiguous, candidates)``: ``answer`` is the canonical label or
        :data:`~bediscover_inspect.metrics.INVALID_ANSWER`. Never raises on any string.
    """
    parsed = parse_label(completion, LABELS[dataset], ALIASES[dataset])
    answer = parsed.label if parsed.label is not None else INVALID_ANSWER
    return answer, parsed.invalid, parsed.ambiguous, parsed.candidates


@metric(scores=MEASURE_SCORES)
def discourse_marker_measures() -> Metric:
    """``metrics.CLASSIFICATION_MEASURES`` plus ``ambiguous`` (mean), per dataset and ``all``."""
    return measures_metric(CLASSIFICATION_MEASURES | {"ambiguous": "mean"})


@scorer(metrics=[discourse_marker_measures()])
def discourse_marker_scorer() -> Scorer:
    """Accuracy, weighted P/R/F1, invalid rate and token means, per ``dataset`` (Tables 2, 13–21).

    One more measure, ``ambiguous``, is the rate of answers that named several labels, where the first-mention rule
    decided (not in the paper; it shows how much a score rests on that rule, e.g. a model echoing the label list).

    ``Score.answer`` is the parsed label or ``INVALID_ANSWER``; ``Score.metadata`` holds ``gold``,
    ``ambiguous`` and ``candidates``; ``Score.explanation`` the completion.
    """

    async def score(state: TaskState, target: Target) -> Score:
        dataset = state.metadata["dataset"]
        gold = state.metadata["gold"]
        completion = state.output.completion if state.output is not None else ""
        answer, invalid, ambiguous, candidates = parse_answer(completion, dataset)
        output_tokens, reasoning_tokens = usage_tokens(state.output)
        value = classification_value(answer == gold, invalid, output_tokens, reasoning_tokens)
        value["ambiguous"] = 1.0 if ambiguous else 0.0
        return Score(
            value=value,
            answer=answer,
            explanation=completion,
            metadata={"gold": gold, "ambiguous": ambiguous, "candidates": list(candidates)},
        )

    return score


SCORER_NAME = "discourse_marker_scorer"
"""Key of this scorer in ``EvalSample.scores``."""


def confusion_matrices(log: EvalLog, scorer_name: str = SCORER_NAME) -> dict[str, dict[str, dict[str, int]]]:
    """Per-class confusion matrix of each dataset in an eval log (the paper's Limitations: class-level analysis).

    Args:
        log: an :class:`EvalLog` with samples (``read_eval_log(path)``, not ``header_only``).
        scorer_name: scorer key in the samples' scores.

    Returns:
        ``{dataset: {gold label: {predicted label: count}}}`` with ``INVALID_ANSWER`` as the predicted label of
        unreadable answers; epochs count separately. Built with :func:`metrics.confusion_counts`.

    Raises:
        ValueError: the log has no samples, or a sample lacks this scorer's score.
    """
    if not log.samples:
        raise ValueError("the eval log has no samples (read it without header_only)")
    pairs: dict[str, tuple[list[str], list[str]]] = {}
    for sample in log.samples:
        scores: dict[str, Any] = sample.scores or {}
        if scorer_name not in scores:
            raise ValueError(f"sample {sample.id}: no score from {scorer_name!r} (has {sorted(scores)})")
        score = scores[scorer_name]
        gold, pred = pairs.setdefault(str(sample.metadata["dataset"]), ([], []))
        gold.append(str(score.metadata["gold"]))
        pred.append(str(score.answer) if score.answer is not None else INVALID_ANSWER)
    return {dataset: confusion_counts(gold, pred) for dataset, (gold, pred) in pairs.items()}
