"""Scorer of Task (3): exact match on the unified DISRPT 2025 label, per corpus, and accuracy per framework and
language.

Accuracy per corpus is what the official DISRPT scorer ``disrpt_eval_2024.py`` reports (scikit-learn
``accuracy_score`` over the rows of one corpus, exact string match on the 17 unified labels). The model's answer is
read with the shared parser (:func:`bediscover_inspect.labels.parse_label`) into one of the 17 exact label
strings, so matching the parsed label against the gold is that exact match.

Per framework (Table 4) and per language (Table 27) the paper averages corpus accuracies *weighted by corpus
size* ("Accuracy scores are averaged across datasets in each framework, weighted by dataset size", Table 4
caption). That weighted average equals the plain mean over all samples of the framework:
``sum_c (n_c / N) * (k_c / n_c) = sum_c k_c / N``, with ``k_c`` correct answers out of ``n_c`` samples in
corpus ``c`` and ``N = sum_c n_c``. So accuracy grouped by the sample metadata ``framework`` (entries
``accuracy_framework_<f>``) *is* the Table 4 number, and grouped by ``language`` (``accuracy_language_<code>``)
the Table 27 number (checked on hand-made numbers in the tests).

Measures (:data:`bediscover_inspect.measures.SCORERS`, ``discourse_relation_scorer``): accuracy (the log's
headline), weighted P/R/F1, macro-F1, invalid and ambiguous rates and token means, overall and per corpus
(metadata ``dataset`` = corpus name); accuracy also per framework and per language; then per-class P/R/F1 over
all samples.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric, Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from ..measures import scorer_metrics
from ..scoring import label_score
from .aliases import RELATION_ALIASES
from .prompts import LABELS

METRICS: list[Metric] = scorer_metrics("discourse_relation_scorer")
"""Accuracy first (the log's headline), per corpus, framework (Table 4) and language (Table 27), then every other
label measure per corpus."""


@scorer(metrics=METRICS)
def discourse_relation_scorer() -> Scorer:
    """Parse the completion (never the reasoning) into one of the 17 labels and compare it with the gold.

    Score value, answer and metadata: :func:`bediscover_inspect.scoring.label_score` over :data:`.prompts.LABELS`
    with the spelling variants of :data:`.aliases.RELATION_ALIASES` (an answer is always read into one of the 17
    exact label strings, which DISRPT compares). An unparseable answer scores wrong and counts as invalid.
    """

    async def score(state: TaskState, target: Target) -> Score:
        return label_score(state, LABELS, RELATION_ALIASES)

    return score
