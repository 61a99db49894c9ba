"""Scorer of Task (3): exact match on the unified DISRPT 2025 label, grouped per corpus, framework, language.

Accuracy per corpus is what the official scorer ``disrpt_eval_2024.py`` reports (sklearn ``accuracy_score``
over the rows of one corpus, exact string match on the 17 unified labels; ``shared/data/upstream/disrpt25/
SOURCE.md``). The model's answer is read with the shared parser (:func:`bediscover_inspect.labels.parse_label`)
into one of the 17 exact label strings, so matching the parsed label against the gold is that exact match.

Per framework (Table 4) and per language (Table 27) the paper averages corpus accuracies *weighted by corpus
size* ("Accuracy scores are averaged across datasets in each framework, weighted by dataset size", Table 4
caption). That weighted average equals the plain mean over all samples of the framework:
``sum_c (n_c / N) * (k_c / n_c) = sum_c k_c / N``, with ``k_c`` correct answers out of ``n_c`` samples in
corpus ``c`` and ``N = sum_c n_c``. So the mean of the 0/1 scores per framework (``accuracy_by_framework``) *is* the Table 4
number and per language (``accuracy_by_language``) the Table 27 number (checked on hand-made numbers in
``tests/discourse_relations/test_scorer.py``).

Measures (one metric, ``metrics.measures_metric``): ``accuracy``, ``weighted_precision``, ``weighted_recall``,
``weighted_f1``, ``invalid``, ``output_tokens``, ``reasoning_tokens`` per corpus (metadata ``dataset``), plus
``accuracy_by_framework`` and ``accuracy_by_language``; every measure also reports ``all``.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from bediscover_inspect.generation import usage_tokens
from bediscover_inspect.labels import parse_label
from bediscover_inspect.metrics import CLASSIFICATION_MEASURES, INVALID_ANSWER, MEASURE_SCORES, classification_value, measures_metric

from .prompts import LABELS

RELATION_MEASURES: dict[str, str] = CLASSIFICATION_MEASURES | {
    "accuracy_by_framework": "mean",
    "accuracy_by_language": "mean",
}
"""Per-corpus classification measures plus accuracy per framework (Table 4) and per language (Table 27)."""


@metric(scores=MEASURE_SCORES)
def discourse_relation_measures() -> Metric:
    """:data:`RELATION_MEASURES`, each with ``all`` and one value per corpus / framework / language."""
    return measures_metric(RELATION_MEASURES)


@scorer(metrics=[discourse_relation_measures()])
def discourse_relation_scorer() -> Scorer:
    """Parse the completion (never the reasoning) into one of the 17 labels and compare it with the gold.

    ``Score.value`` holds 0/1 ``accuracy``, 0/1 ``invalid`` and the token counts; ``Score.answer`` is the parsed label or ``metrics.INVALID_ANSWER``; ``Score.metadata`` carries
    ``gold``, ``candidates`` (labels found, in order) and ``ambiguous``. An unparseable answer scores wrong
    and counts as invalid.
    """

    async def score(state: TaskState, target: Target) -> Score:
        gold = target.text
        parsed = parse_label(state.output.completion, LABELS)
        correct = parsed.label == gold
        output_tokens, reasoning_tokens = usage_tokens(state.output)
        value = classification_value(correct, parsed.invalid, output_tokens, reasoning_tokens)
        return Score(
            value=value,
            answer=parsed.label if parsed.label is not None else INVALID_ANSWER,
            explanation=state.output.completion,
            metadata={"gold": gold, "candidates": list(parsed.candidates), "ambiguous": parsed.ambiguous},
        )

    return score
