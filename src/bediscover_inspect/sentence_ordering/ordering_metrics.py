"""Sentence-ordering measures of one document, as Re-BART's ``eval/evaluation.py`` computes them.

Re-BART (Basu Roy Chowdhury, Brahman and Chaturvedi, EMNLP 2021; repository ``fabrahman/ReBART``) is the public
scorer whose marker convention the BeDiscovER files use; the paper's Tables 32–38 report Acc, Lumr, Pmr, Skip and
Lcs. ``gold`` and ``pred`` are lists of sentence ids (0-based indices into the shuffled sentences).

Corpus aggregation (the scorer's metrics): PMR, Skip, Kendall τ and LUMR are means over documents; Acc and LCS
are *micro* — summed over documents and divided by the total number of gold sentences.
Every function accepts any ``pred`` (empty, too short or long, repeated or unknown ids) and never raises: a
non-permutation is scored on the sequence as given, exactly as Re-BART does, so it can earn partial Acc / LCS
/ Skip / τ but never PMR.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def perfect_match(gold: Sequence[int], pred: Sequence[int]) -> int:
    """PMR of one document: 1 if ``pred`` equals ``gold`` as whole lists (length included), else 0."""
    return int(list(pred) == list(gold))


def correct_positions(gold: Sequence[int], pred: Sequence[int]) -> int:
    """Positions ``i < min(len(gold), len(pred))`` with ``gold[i] == pred[i]`` (numerator of micro Acc)."""
    return sum(1 for g, p in zip(gold, pred, strict=False) if g == p)


def longest_common_subsequence(gold: Sequence[int], pred: Sequence[int]) -> int:
    """Length of the longest common (not necessarily contiguous) subsequence; O(len(gold)·len(pred))."""
    if not gold or not pred:
        return 0
    previous = [0] * (len(pred) + 1)
    for g in gold:
        current = [0]
        for j, p in enumerate(pred, start=1):
            current.append(previous[j - 1] + 1 if g == p else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def skip_bigram(gold: Sequence[int], pred: Sequence[int]) -> float:
    """ROUGE-S ("Skip"): share of gold's ordered pairs ``(x_i, x_j), i < j`` (as a set) also ordered so in pred.

    Re-BART's special case: if either list has length 1, the score is ``int(gold[0] == pred[0])``; an empty
    prediction scores 0.
    """
    if not gold or not pred:
        return 0.0
    if len(gold) == 1 or len(pred) == 1:
        return float(gold[0] == pred[0])
    # (a, b) is a skip-bigram of pred iff a's first occurrence precedes b's last: O(len(pred) + len(gold)^2),
    # so a runaway answer of thousands of markers costs no more than reading it
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for position, item in enumerate(pred):
        first.setdefault(item, position)
        last[item] = position
    gold_pairs = {(gold[i], gold[j]) for i in range(len(gold)) for j in range(i + 1, len(gold))}
    shared = sum(1 for a, b in gold_pairs if a in first and b in last and first[a] < last[b])
    return shared / len(gold_pairs)


def gold_positions(gold: Sequence[int], pred: Sequence[int]) -> list[int]:
    """Re-BART's reading of an answer for Kendall's τ: the gold position of each predicted id, 0 for an unknown id.

    One extension for gold lists that repeat an id (identical sentences, see the scorer): the k-th mention of an
    id takes the id's k-th gold position, so a correct order reads as ``0, 1, …, n−1``; a mention beyond the
    gold occurrences takes the first. Re-BART's position table keeps one position per id (its last occurrence);
    for gold lists without repeats, the only ones in its data and in ours before the scorer maps identical
    sentences together, the two readings are the same.
    """
    occurrences: dict[int, list[int]] = {}
    for position, g in enumerate(gold):
        occurrences.setdefault(g, []).append(position)
    used: dict[int, int] = {}
    positions = []
    for p in pred:
        slots = occurrences.get(p)
        if not slots:
            positions.append(0)
            continue
        k = used.get(p, 0)
        positions.append(slots[k] if k < len(slots) else slots[0])
        used[p] = k + 1
    return positions


def kendall_tau(gold: Sequence[int], pred: Sequence[int]) -> float:
    """Kendall's τ as in Re-BART: ``scipy.stats.kendalltau`` (τ-b) of :func:`gold_positions` against ``0 … m−1``.

    Special cases: a one-sentence document answered with one marker scores 1 if the marker is right, else 0
    (Re-BART gives the 1 to any answer starting with the right marker; here a longer answer to a one-sentence
    document has all positions tied); any other answer of fewer than two markers scores 0; NaN (every position
    tied, e.g. an answer repeating one marker) counts as 0, as in Re-BART. For a valid permutation τ is
    ``1 − 2·inversions / C(n, 2)``.
    """
    if not pred or not gold:
        return 0.0
    if len(gold) == 1 and len(pred) == 1:
        return float(pred[0] == gold[0])
    if len(pred) < 2:
        return 0.0
    from scipy.stats import kendalltau

    tau = float(kendalltau(gold_positions(gold, pred), range(len(pred))).statistic)
    return 0.0 if math.isnan(tau) else tau


def length_unmatched(gold: Sequence[int], pred: Sequence[int]) -> int:
    """LUMR numerator: 1 if the answer's length differs from the number of gold sentences (Tables 32–38)."""
    return int(len(pred) != len(gold))
