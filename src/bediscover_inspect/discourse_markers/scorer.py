"""Scoring of Task (1): one label per answer; accuracy, weighted P/R/F1 and rates per dataset (Tables 2, 13–21).

The answer is read from ``state.output.completion`` only (reasoning is never read) with the shared rule of
:func:`bediscover_inspect.labels.parse_label` (see the task README, "Parsing"); an answer from which no label
can be read is scored wrong and counted as ``invalid``.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from ..measures import scorer_metrics
from ..scoring import label_score
from .aliases import ALIASES
from .prompts import LABELS


@scorer(metrics=scorer_metrics("discourse_marker_scorer"))
def discourse_marker_scorer() -> Scorer:
    """Accuracy (the headline), weighted P/R/F1, macro-F1, invalid and ambiguous rates and token means, overall
    and per ``dataset`` (:data:`bediscover_inspect.measures.SCORERS`).

    Score value, answer and metadata: :func:`bediscover_inspect.scoring.label_score`, with the dataset's label
    set and aliases (Table 8).
    """

    async def score(state: TaskState, target: Target) -> Score:
        dataset = state.metadata["dataset"]
        return label_score(state, LABELS[dataset], ALIASES[dataset])

    return score
