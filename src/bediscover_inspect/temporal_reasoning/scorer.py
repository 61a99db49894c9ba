"""Scorers of Task (2): relation labels (TBD, TDD-Man) and ToT-Arithmetic answer dicts.

One task, two scorers. Each returns ``None`` for a sample of the other kind: Inspect (0.3.285) then records no
score of that scorer for the sample, so the sample is not among that scorer's scores — its metrics,
``scored_samples`` and the viewer's score columns cover only its own datasets, and a grouped metric never sees a
sample without its group key (ToT's ``category``). ``Score.unscored()`` (a NaN value) is not used: Inspect would
keep it and count every sample of the other kind as an ``unscored`` sample of this scorer, which reads as a
failure. A scorer whose datasets are all left out by ``--sample-id`` / ``--limit`` gets no scores: Inspect calls
each metric on the empty list and nothing raises (mean measures report NaN, the label measures of
:mod:`bediscover_inspect.metrics` their empty value 0.0, the per-group entries none).

Relation scorer (:func:`relation_scorer`; measures: :data:`bediscover_inspect.measures.SCORERS`): ``micro_f1``
first (the log's headline; paper Table 3, "Scores are micro-F1"), ``accuracy``, weighted P/R/F1, macro-F1,
``invalid``, ``ambiguous``, ``output_tokens``, ``reasoning_tokens``, overall and per ``dataset``, then per-class
P/R/F1.
Micro-F1 pools every pair's single predicted label: each pair adds one true positive (right) or one false
positive plus one false negative (wrong), so micro precision = micro recall = micro-F1 = accuracy; it also
equals weighted recall, which the paper's Tables 22–25 confirm (their micro-F1 and weighted-Rec columns are
identical).

ToT scorer (:func:`tot_scorer`, :data:`TOT_METRICS`): ``accuracy``, ``invalid``, ``output_tokens``,
``reasoning_tokens`` overall and per ``dataset``, and ``accuracy`` per ``category`` (Table 26 columns tz, as,
scd, mop, dur, cmp, trk; entries ``accuracy_category_<c>``).
"""

from __future__ import annotations

from dataclasses import replace

from inspect_ai.scorer import Metric, Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from ..causes import cause_metadata, cause_note, cause_of, cause_values, explained, state_reply
from ..labels import copies_prompt, final_text
from ..measures import scorer_metrics
from ..metrics import INVALID_ANSWER
from ..scoring import label_score, prompt_text
from ..tokens import token_values
from .dataset import RELATION_DATASETS, TOT_DATASET
from .prompts import RELATION_ALIASES, RELATION_LABELS
from .tot_answers import parse_gold, parse_tot_answer, tot_correct


@scorer(metrics=scorer_metrics("relation_scorer"))
def relation_scorer() -> Scorer:
    """Score a TBD / TDD-Man answer: the shared label parser over the six Table 9 labels (+ aliases).

    Score value, answer and metadata: :func:`bediscover_inspect.scoring.label_score` (``Score.metadata`` keeps
    the labels named, ``candidates``, and the ``echo`` flag: the answer named ≥ 3 labels and ≥ half of the set,
    read as invalid). Returns ``None`` for samples of other datasets.
    """

    async def score(state: TaskState, target: Target) -> Score | None:
        if state.metadata.get("dataset") not in RELATION_DATASETS:
            return None
        return label_score(state, RELATION_LABELS, RELATION_ALIASES)

    return score


TOT_METRICS: list[Metric] = scorer_metrics("tot_scorer")
"""ToT-Arithmetic metrics: accuracy (the headline) per dataset and per ``category`` (Table 26), invalid rate and
token means."""


@scorer(metrics=TOT_METRICS)
def tot_scorer() -> Scorer:
    """Score a ToT-Arithmetic answer: read the answer dict, compare it field by field with the gold dict.

    ``Score.value``: ``accuracy``, ``invalid`` and ``echo`` (0/1: invalid and a copy of the prompt,
    :func:`~bediscover_inspect.labels.copies_prompt`), ``cut_off`` and ``reasoning_only``
    (:func:`~bediscover_inspect.causes.cause_values`), ``output_tokens``, ``reasoning_tokens``. The reply is read by
    the reader's rule for a cut-off reply (:mod:`bediscover_inspect.labels`, "Cut off at the budget").
    ``Score.answer``: the dict read (as a string) or ``INVALID_ANSWER``. ``Score.metadata`` (viewer only):
    ``parsed_from`` (how the dict was read) and ``parse_notes`` (``"placeholder"`` when a template placeholder
    value was ignored, ``"cut_off"`` when the answer was cut off inside a value: invalid), and the reply's
    ``cause``, ``stop_reason`` and ``max_tokens`` (:func:`~bediscover_inspect.causes.cause_metadata`). Returns
    ``None`` for samples of other datasets.
    """

    async def score(state: TaskState, target: Target) -> Score | None:
        if state.metadata.get("dataset") != TOT_DATASET:
            return None
        reply = state_reply(state)
        gold = parse_gold(str(state.metadata["gold"]))
        parsed = parse_tot_answer(reply.text, list(gold))
        if reply.cut_off and parsed.source == "fragment":  # cut off, only a closed {…} dict is a stated answer
            parsed = replace(parsed, value=None, source="none", notes=(*parsed.notes, "cut_off"))
        echo = parsed.invalid and copies_prompt(final_text(reply.text).text, prompt_text(state))
        cause = cause_of(reply, parsed.invalid, echo, "markup" in parsed.notes)
        return Score(
            value={
                "accuracy": 1.0 if tot_correct(gold, parsed.value) else 0.0,
                "invalid": 1.0 if parsed.invalid else 0.0,
                "echo": 1.0 if echo else 0.0,
                **cause_values(reply),
                **token_values(state.output),
            },
            answer=str(parsed.value) if parsed.value is not None else INVALID_ANSWER,
            explanation=explained(cause_note(reply, cause), reply.completion),
            metadata={
                "parsed_from": parsed.source,
                "parse_notes": list(parsed.notes),
                **cause_metadata(reply, cause),
            },
        )

    return score
