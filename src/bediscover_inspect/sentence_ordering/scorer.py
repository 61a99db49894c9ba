"""Scorer of Task (4): parse the sentence-marker sequence and compute the Re-BART measures per document.

Answer parsing (issue 2, documented in the README):

* only the final completion is read; a ``<think>…</think>`` block left in the text is removed;
* a marker is an opening tag ``s`` + number inside ``<…>``, ``[…]`` or ``(…)``, case-insensitive, spaces
  optional: ``<s 3>``, ``<s3>``, ``<S 3>``, ``[s 3]``, ``(s3)``; closing tags ``</s 3>`` are ignored;
* markers are 1-based (as in the prompt) and turned into 0-based shuffled indices; the sequence is read in
  order of appearance, duplicates and out-of-range numbers kept (they are scored as Re-BART would);
* no marker at all → **invalid**: the empty sequence is scored (0 everywhere, LUMR 1) and ``invalid`` = 1.

Identical sentences (nips-abs doc 235 has ``"? )"`` twice) are interchangeable: before scoring, every id is
replaced by the first shuffled index holding the same sentence text, in gold and prediction alike, so a
correct order scores PMR 1 whichever copy the model names first.
"""

from __future__ import annotations

import re
from typing import Sequence

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from ..generation import usage_tokens
from ..labels import strip_reasoning
from ..metrics import MEASURE_SCORES, measures_metric, register_reduction
from . import ordering_metrics as om

MARKER = re.compile(r"(?<![/\w])[<\[(]\s*s\s*[-_]?\s*(\d{1,4})\s*[>\])]", re.IGNORECASE)
"""Opening sentence marker ``<s n>`` and its lenient variants (closing ``</s n>`` excluded)."""


def parse_markers(completion: str) -> list[int]:
    """0-based shuffled indices named by the markers in ``completion`` (rule in the module docstring).

    Returns ``[]`` when there is no marker (an invalid answer). Never raises.
    """
    return [int(m.group(1)) - 1 for m in MARKER.finditer(strip_reasoning(completion or ""))]


def canonical_ids(shuffled_sentences: Sequence[str]) -> list[int]:
    """For each shuffled index, the first index holding an identical sentence (identity when all differ)."""
    first: dict[str, int] = {}
    return [first.setdefault(s, i) for i, s in enumerate(shuffled_sentences)]


def canonicalise(ids: Sequence[int], canonical: Sequence[int]) -> list[int]:
    """Map ids through :func:`canonical_ids`; ids outside ``0..n-1`` are kept as they are."""
    return [canonical[i] if 0 <= i < len(canonical) else i for i in ids]


def document_scores(gold: Sequence[int], pred: Sequence[int]) -> dict[str, float]:
    """All per-document measures, keyed as in the score value (see :func:`sentence_ordering_scorer`)."""
    n = len(gold)
    return {
        "pmr": float(om.perfect_match(gold, pred)),
        "acc": om.correct_positions(gold, pred) / n if n else 0.0,
        "lcs": om.longest_common_subsequence(gold, pred) / n if n else 0.0,
        "skip": om.skip_bigram(gold, pred),
        "kendall_tau": om.kendall_tau(gold, pred),
        "lumr": float(om.length_unmatched(gold, pred)),
    }


def micro_ratio(scores: Sequence[SampleScore], count_key: str) -> float:
    """Sum of ``Score.metadata[count_key]`` over documents / sum of ``n_sentences`` (Re-BART micro average).

    ``count_key`` is ``correct_positions`` (Acc) or ``lcs_length`` (LCS); 0.0 when there are no sentences.
    """
    total = sum(int((s.score.metadata or {}).get("n_sentences", 0)) for s in scores)
    hits = sum(int((s.score.metadata or {}).get(count_key, 0)) for s in scores)
    return hits / total if total else 0.0


register_reduction("micro_acc", lambda scores, _key: micro_ratio(scores, "correct_positions"))
register_reduction("micro_lcs", lambda scores, _key: micro_ratio(scores, "lcs_length"))

SENTENCE_ORDERING_MEASURES: dict[str, str] = {
    "acc": "micro_acc",
    "lumr": "mean",
    "pmr": "mean",
    "skip": "mean",
    "lcs": "micro_lcs",
    "kendall_tau": "mean",
    "invalid": "mean",
    "output_tokens": "mean",
    "reasoning_tokens": "mean",
}
"""Measures in the column order of Tables 32–38 (Acc, Lumr, Pmr, Skip, Lcs, tok.) plus τ and invalid: Acc and
LCS micro (summed counts over documents), the others means over documents."""


@metric(scores=MEASURE_SCORES)
def sentence_ordering_measures() -> Metric:
    """:data:`SENTENCE_ORDERING_MEASURES`, each with ``all`` and one value per dataset."""
    return measures_metric(SENTENCE_ORDERING_MEASURES)


@scorer(metrics=[sentence_ordering_measures()])
def sentence_ordering_scorer() -> Scorer:
    """Score one ordering answer against the gold ``shuf_idx`` order.

    Reads sample metadata ``gold_order`` (0-based shuffled indices, length n) and ``canonical_ids``
    (:func:`canonical_ids` of the shuffled sentences, computed once when the sample is built: the sentence texts
    are in the prompt already).
    Score value keys: ``pmr``, ``acc``, ``lcs`` (per-document ratios; the corpus Acc and LCS are micro averages
    computed from the counts in ``Score.metadata``), ``skip``, ``kendall_tau``, ``lumr``, ``invalid``,
    ``output_tokens``, ``reasoning_tokens``. ``Score.answer`` is the parsed marker sequence.
    """

    async def score(state: TaskState, target: Target) -> Score:
        canonical = state.metadata["canonical_ids"]
        gold = canonicalise(state.metadata["gold_order"], canonical)
        raw = parse_markers(state.output.completion if state.output else "")
        pred = canonicalise(raw, canonical)
        values = document_scores(gold, pred)
        output_tokens, reasoning_tokens = usage_tokens(state.output)
        values |= {
            "invalid": float(not raw),
            "output_tokens": float(output_tokens),
            "reasoning_tokens": float(reasoning_tokens),
        }
        is_permutation = sorted(pred) == sorted(gold)
        return Score(
            value=values,
            answer=" ".join(f"<s {i + 1}>" for i in raw) if raw else "",
            explanation=(
                "no sentence marker found (invalid)" if not raw
                else f"predicted {[i + 1 for i in raw]} vs gold {[i + 1 for i in state.metadata['gold_order']]}"
                + ("" if is_permutation else " (not a permutation of the gold ids)")
            ),
            metadata={
                "n_sentences": len(gold),
                "correct_positions": om.correct_positions(gold, pred),
                "lcs_length": om.longest_common_subsequence(gold, pred),
                "permutation": is_permutation,
            },
        )

    return score
