"""Shared metrics: classification scores (accuracy, weighted P/R/F1), invalid rate and token means.

Conventions every task scorer follows so these metrics (and the report) can read it:

* ``Score.value`` is a dict of numbers, one key per reported measure (Inspect overwrites two ``grouped``
  metrics under one key); ``invalid`` (0/1), ``output_tokens`` and ``reasoning_tokens`` are common to all
  tasks; tasks add their own keys (``pmr``, ``lcs`` …).
* For classification tasks ``Score.answer`` is the parsed label (``INVALID_ANSWER`` when nothing could be
  read) and ``Score.metadata["gold"]`` the gold label.
* Metrics are grouped by the sample metadata key ``dataset`` (``grouped(…, "dataset")``), with ``all``
  over every sample, as the paper reports per dataset.

Weighted precision / recall / F1 follow the paper's Appendix C tables ("weighted-Pre/Rec/F1"), with
scikit-learn's definition (``precision_recall_fscore_support(average="weighted", zero_division=0)``, counted
here, checked against scikit-learn in the tests) over the gold labels' support; an invalid answer is its own predicted class ``INVALID_ANSWER``, which has no support, so it
lowers recall (and accuracy) of the gold class and never raises precision.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

from inspect_ai.scorer import Metric, SampleScore, Value, grouped, mean, metric

INVALID_ANSWER = "<invalid>"
"""Predicted label recorded for an answer from which no label could be read."""


def _labels_of(scores: Sequence[SampleScore]) -> tuple[list[str], list[str]]:
    gold: list[str] = []
    pred: list[str] = []
    for item in scores:
        metadata = item.score.metadata or {}
        if "gold" not in metadata:
            raise ValueError(f"sample {item.sample_id}: score metadata has no 'gold' label")
        gold.append(str(metadata["gold"]))
        pred.append(str(item.score.answer) if item.score.answer is not None else INVALID_ANSWER)
    return gold, pred


def weighted_prf(gold: Sequence[str], pred: Sequence[str]) -> tuple[float, float, float]:
    """Weighted precision, recall and F1 of two label lists of equal length (Appendix C "weighted-Pre/Rec/F1").

    The definition is scikit-learn's ``precision_recall_fscore_support(average="weighted", zero_division=0)``:
    per label ``l`` in gold ∪ pred, P_l = tp_l / predicted_l, R_l = tp_l / support_l, F1_l = 2·tp_l /
    (support_l + predicted_l), each 0 when its denominator is 0; the three are averaged with weights support_l
    (gold count), so a label only ever predicted (e.g. ``INVALID_ANSWER``) has weight 0. Computed here from
    counts because importing scikit-learn costs an eval process ~1.2 s and ~118 MB (``benchmarks/README.md``,
    issue 8); ``tests/shared/test_metrics_reference.py`` checks it against scikit-learn to 1e-12.

    Returns ``(0, 0, 0)`` for empty input. Raises ``ValueError`` if the lists differ in length.
    """
    if len(gold) != len(pred):
        raise ValueError(f"weighted_prf: {len(gold)} gold labels but {len(pred)} predictions")
    if not gold:
        return 0.0, 0.0, 0.0
    support = Counter(gold)
    predicted = Counter(pred)
    true_positive = Counter(g for g, p in zip(gold, pred) if g == p)
    precision = recall = f1 = 0.0
    for label, weight in support.items():
        tp = true_positive[label]
        precision += weight * (tp / predicted[label] if predicted[label] else 0.0)
        recall += weight * (tp / weight)
        f1 += weight * (2 * tp / (weight + predicted[label]))
    total = len(gold)
    return precision / total, recall / total, f1 / total


def _weighted(index: int) -> Callable[[list[SampleScore]], Value]:
    def compute(scores: list[SampleScore]) -> Value:
        return weighted_prf(*_labels_of(scores))[index]

    return compute


@metric(name="weighted_precision")
def weighted_precision() -> Metric:
    """Weighted precision over gold support (Appendix C "weighted-Pre"); reads answer + metadata["gold"]."""
    return _weighted(0)


@metric(name="weighted_recall")
def weighted_recall() -> Metric:
    """Weighted recall (Appendix C "weighted-Rec"); equals accuracy for single-label answers."""
    return _weighted(1)


@metric(name="weighted_f1")
def weighted_f1() -> Metric:
    """Weighted F1 (Appendix C "weighted-F1")."""
    return _weighted(2)


def confusion_counts(gold: Sequence[str], pred: Sequence[str]) -> dict[str, dict[str, int]]:
    """Confusion matrix as ``{gold_label: {predicted_label: count}}`` (invalid answers as ``INVALID_ANSWER``)."""
    table: dict[str, Counter[str]] = {}
    for g, p in zip(gold, pred, strict=True):
        table.setdefault(g, Counter())[p] += 1
    return {g: dict(sorted(c.items())) for g, c in sorted(table.items())}


def token_metrics(group_key: str = "dataset") -> dict[str, list[Metric]]:
    """Dict-metrics for the token keys: mean output and reasoning tokens per sample, grouped."""
    return {
        "output_tokens": [grouped(mean(), group_key)],
        "reasoning_tokens": [grouped(mean(), group_key)],
    }


CLASSIFICATION_KEYS: tuple[str, ...] = (
    "accuracy", "weighted_precision", "weighted_recall", "weighted_f1", "invalid", "output_tokens", "reasoning_tokens"
)
"""Score-value keys of a classification scorer, one per reported measure (see :func:`classification_value`)."""


def classification_value(correct: bool, invalid: bool, output_tokens: int, reasoning_tokens: int) -> dict[str, float]:
    """``Score.value`` for one classification answer.

    Inspect keys a dict-metric result by the metric's registry name, so two ``grouped`` metrics under one
    score key overwrite each other; each measure therefore has its own key. The weighted P/R/F1 keys carry
    the 0/1 correctness as a placeholder: their metrics read ``Score.answer`` and ``Score.metadata["gold"]``.
    """
    hit = 1.0 if correct else 0.0
    return {
        "accuracy": hit,
        "weighted_precision": hit,
        "weighted_recall": hit,
        "weighted_f1": hit,
        "invalid": 1.0 if invalid else 0.0,
        "output_tokens": float(output_tokens),
        "reasoning_tokens": float(reasoning_tokens),
    }


def classification_metrics(group_key: str = "dataset") -> list[Metric | dict[str, list[Metric]]]:
    """Task metrics for a single-label classification scorer, grouped by ``group_key`` with an ``all`` entry.

    One score per measure: ``accuracy``, ``weighted_precision``, ``weighted_recall``, ``weighted_f1``,
    ``invalid`` (invalid-answer rate) and the token means; each holds one value per group plus ``all``.
    Scorers build their value with :func:`classification_value`.
    """
    return [
        {
            "accuracy": [grouped(mean(), group_key)],
            "weighted_precision": [grouped(weighted_precision(), group_key)],
            "weighted_recall": [grouped(weighted_recall(), group_key)],
            "weighted_f1": [grouped(weighted_f1(), group_key)],
            "invalid": [grouped(mean(), group_key)],
        }
        | token_metrics(group_key)
    ]
