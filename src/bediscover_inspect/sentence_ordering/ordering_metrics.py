"""Sentence-ordering measures, per document, as Re-BART's ``eval/evaluation.py`` computes them.

Definitions: ``shared/data/upstream/sentence_ordering/_reference_metrics/METRICS.md`` (Re-BART, EMNLP 2021,
whose marker convention the BeDiscovER files use) and the paper's Tables 32–38 (Acc, Lumr, Pmr, Skip, Lcs).
``gold`` and ``pred`` are lists of sentence ids (0-based indices into the shuffled sentences).

Corpus aggregation (done by the scorer's metrics): PMR, Skip, Kendall τ and LUMR are means over documents;
Acc and LCS are *micro* — summed over documents and divided by the total number of gold sentences.
Every function accepts any ``pred`` (empty, too short or long, repeated or unknown ids) and never raises: a
non-permutation is scored on the sequence as given, exactly as Re-BART does, so it can earn partial Acc / LCS
/ Skip / τ but never PMR.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence


def perfect_match(gold: Sequence[int], pred: Sequence[int]) -> int:
    """PMR of one document: 1 if ``pred`` equals ``gold`` as whole lists (length included), else 0."""
    return int(list(pred) == list(gold))


def correct_positions(gold: Sequence[int], pred: Sequence[int]) -> int:
    """Positions ``i < min(len(gold), len(pred))`` with ``gold[i] == pred[i]`` (numerator of micro Acc)."""
    return sum(1 for g, p in zip(gold, pred) if g == p)


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


def kendall_tau(gold: Sequence[int], pred: Sequence[int]) -> float:
    """Kendall's τ as in Re-BART: τ-b (``scipy.stats.kendalltau``) between each predicted id's gold position and its rank.

    An id not in gold maps to position 0; a single correct sentence scores 1; NaN (e.g. fewer than two
    predicted items, or all positions tied) counts as 0. For a valid permutation this is
    ``1 − 2·inversions / C(n, 2)``. One extension for gold lists that repeat an id (identical sentences, see
    the scorer): the k-th mention of an id takes the id's k-th gold position, where Re-BART's ``gold.index``
    would give every mention the first one; once the gold occurrences are used up, the first is taken, as in
    Re-BART (so a repeated id in an answer scores exactly as Re-BART scores it).

    τ-b is counted here in O(n log n) (:func:`_tau_b_against_rank`, scipy's formula and operation order)
    because importing scipy costs an eval process ~0.5 s and ~74 MB (issue 8); the tests check it against
    scipy.
    """
    if not pred or not gold:
        return 0.0
    if len(gold) == 1 and len(pred) == 1:
        return float(pred[0] == gold[0])
    if len(pred) < 2:
        return 0.0
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
    if len(set(positions)) < 2:
        return 0.0
    return _tau_b_against_rank(positions)


def _tau_b_against_rank(x: Sequence[int]) -> float:
    """Kendall's τ-b of ``x`` against ``0, 1, …, n−1`` (no ties in the rank); 0.0 when undefined.

    With ``tot = n(n−1)/2``, ``xtie`` = pairs tied in ``x`` and ``dis`` = pairs ``i < j`` with ``x[i] > x[j]``:
    τ-b = (tot − xtie − 2·dis) / √(tot − xtie) / √tot, clipped to [−1, 1] — scipy's ``kendalltau``
    (``variant="b"``) expression, in its order, so the float is the same. Discordant pairs are counted with a
    Fenwick tree over the distinct values, O(n log n).
    """
    n = len(x)
    tot = n * (n - 1) // 2
    ties = Counter(x)
    xtie = sum(t * (t - 1) // 2 for t in ties.values())
    if tot == 0 or xtie == tot:
        return 0.0
    rank = {value: i + 1 for i, value in enumerate(sorted(ties))}
    tree = [0] * (len(rank) + 1)
    dis = 0
    for seen, value in enumerate(x):
        seen_at_most, i = 0, rank[value]
        while i > 0:  # earlier items with a value <= this one
            seen_at_most += tree[i]
            i -= i & -i
        dis += seen - seen_at_most
        i = rank[value]
        while i < len(tree):
            tree[i] += 1
            i += i & -i
    tau = (tot - xtie - 2 * dis) / math.sqrt(tot - xtie) / math.sqrt(tot)
    return min(1.0, max(-1.0, tau))


def length_unmatched(gold: Sequence[int], pred: Sequence[int]) -> int:
    """LUMR numerator: 1 if the answer's length differs from the number of gold sentences (Tables 32–38)."""
    return int(len(pred) != len(gold))
