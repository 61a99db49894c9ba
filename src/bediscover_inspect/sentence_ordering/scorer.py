"""Scorer of Task (4): read the order a model gave and compute the Re-BART measures per document.

Answer reading: :func:`.parsing.parse_order` (the paper's ``<s n>`` markers, else a whole-answer list in another
format, else invalid; the text after the last ``</think>`` only; a reply cut off at the budget counts only an order
that places every sentence: :mod:`bediscover_inspect.labels`, "Cut off at the budget"). Ids are 0-based shuffled indices; a sequence
that is not a permutation is scored as given (as Re-BART does); no order read → **invalid**: the empty sequence
is scored (0 everywhere, LUMR 1) and ``invalid`` = 1.

Identical sentences (nips-abs doc 235 has ``"? )"`` twice) are interchangeable: before scoring, every id is
replaced by the first shuffled index holding the same sentence text, in gold and prediction alike, so a
correct order scores PMR 1 whichever copy the model names first.

Measures (declared in :mod:`bediscover_inspect.measures`, overall and per ``dataset``, every one with its
standard error): ``acc`` and ``lcs`` are micro averages over the sentences of all documents (seeded bootstrap
standard error); ``pmr`` (the log's headline), ``skip``, ``kendall_tau``, ``lumr``, ``invalid`` and the token
counts are means over documents (the standard error of the mean as Inspect's ``stderr()`` defines it).
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from ..causes import cause_metadata, cause_note, cause_of, cause_values, explained, state_reply
from ..labels import final_text
from ..measures import METRICS, measures_of, scorer_metrics
from ..metrics import INVALID_ANSWER
from ..scoring import prompt_text
from ..tokens import token_values
from . import ordering_metrics as om
from .parsing import MARKER as MARKER  # re-exported: the paper's marker pattern
from .parsing import PAPER_FORMAT, echoes_sentences, parse_order
from .prompts import marker_sequence


def parse_markers(completion: str) -> list[int]:
    """0-based shuffled indices of the order read from ``completion``: ``list(parse_order(completion).ids)``
    (:mod:`.parsing`: the paper's ``<s n>`` markers, else a whole-answer list format).

    Returns ``[]`` when no order can be read (an invalid answer). Never raises.
    """
    return list(parse_order(completion).ids)


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


MEASURES = tuple(METRICS[m.name] for m in measures_of("sentence_ordering_scorer"))
"""The scorer's measure metrics (:data:`bediscover_inspect.measures.SCORERS`): PMR (the log's headline), then
the columns of Tables 32–38 in their order (Acc, Lumr, Skip, Lcs, tok.), Kendall's τ (Re-BART), the invalid rate
and the share of answers in another format."""


@scorer(metrics=scorer_metrics("sentence_ordering_scorer"))
def sentence_ordering_scorer() -> Scorer:
    """Score one ordering answer against the gold ``shuf_idx`` order.

    Reads sample metadata ``gold_order`` (0-based shuffled indices, length n) and ``canonical_ids``
    (:func:`canonical_ids` of the shuffled sentences, computed once when the sample is built: the sentence texts
    are in the prompt already).
    Score value keys: ``pmr``, ``acc``, ``lcs`` (per-document ratios, correct positions and LCS length over n),
    ``skip``, ``kendall_tau``, ``lumr``, ``invalid``, ``other_format`` (0/1: read from another format than the
    paper's markers), ``echo`` (0/1: the prompt's sentences echoed in the order given, scored invalid),
    ``cut_off`` and ``reasoning_only`` (:func:`~bediscover_inspect.causes.cause_values`),
    ``output_tokens``, ``reasoning_tokens`` and ``n_sentences`` (n, the weight of the micro Acc and LCS).
    ``Score.answer`` is the order read, as markers (:data:`INVALID_ANSWER` when none could be read, as in every
    task); ``Score.metadata`` says whether it names the gold ids
    in some order (``permutation``), which format it was read from (``format``) and the reply's ``cause``,
    ``stop_reason`` and ``max_tokens`` (:func:`~bediscover_inspect.causes.cause_metadata`).
    """

    async def score(state: TaskState, target: Target) -> Score:
        canonical = state.metadata["canonical_ids"]
        gold = canonicalise(state.metadata["gold_order"], canonical)
        reply = state_reply(state)
        parsed = parse_order(reply.text)
        echo = echoes_sentences(final_text(reply.text).text, parsed.ids, prompt_text(state))
        unfinished = reply.cut_off and len(parsed.ids) != len(gold)  # a cut-off order must place every sentence
        raw = [] if echo or unfinished else list(parsed.ids)
        cause = cause_of(reply, not raw, echo, parsed.markup)
        pred = canonicalise(raw, canonical)
        values: dict[str, float | None] = {**document_scores(gold, pred)}
        values |= {
            "invalid": float(not raw),
            "other_format": float(bool(raw) and parsed.format != PAPER_FORMAT),
            "echo": float(echo),
            **cause_values(reply),
            **token_values(state.output),
            "n_sentences": float(len(gold)),
        }
        is_permutation = sorted(pred) == sorted(gold)
        return Score(
            value=values,
            answer=marker_sequence(raw) if raw else INVALID_ANSWER,
            explanation=explained(
                cause_note(reply, cause),
                "an echo of the prompt's sentences (invalid)"
                if echo
                else "no sentence marker found (invalid)"
                if not raw and not reply.cut_off
                else f"an unfinished order of {len(parsed.ids)} of {len(gold)} sentences (invalid)"
                if not raw
                else f"predicted {[i + 1 for i in raw]} vs gold {[i + 1 for i in state.metadata['gold_order']]}"
                + ("" if is_permutation else " (not a permutation of the gold ids)"),
            ),
            metadata={"permutation": is_permutation, "format": parsed.format, **cause_metadata(reply, cause)},
        )

    return score
