"""Shared metrics: one list-form metric per scorer computing every reported measure, per group.

Conventions every task scorer follows so these metrics (and the report) can read it:

* ``Score.value`` is a dict of numbers for the per-sample view: ``accuracy`` (or the task's own measures,
  ``pmr``, ``lcs`` …), ``invalid`` (0/1), ``output_tokens`` and ``reasoning_tokens``.
* For classification tasks ``Score.answer`` is the parsed label (``INVALID_ANSWER`` when nothing could be
  read) and ``Score.metadata["gold"]`` the gold label.
* Each scorer has **one** metric, made by :func:`measures_metric` from a spec ``{measure: reduction}``. It
  returns ``{"<measure>/<group>": value}``: ``all`` over every sample, then one entry per group. A measure named
  ``<key>_by_<group_key>`` reduces the value key ``<key>`` grouped by the sample metadata ``<group_key>``
  (``accuracy_by_framework``); any other measure is grouped by ``dataset``, as the paper reports per dataset
  (:func:`group_key_of`). :func:`log_measures` reads these back from a log.

  Why one metric and not Inspect's ``grouped`` per value key: Inspect deep-copies every sample score once per
  value key of a dict-form metric, at each of the (throttled) live metric updates and the end-of-eval
  computations; with 7–10 keys that was the largest per-sample cost of the suite (issue 8,
  ``benchmarks/README.md``). A list-form metric reads each score once and copies nothing.

Weighted precision / recall / F1 follow the paper's Appendix C tables ("weighted-Pre/Rec/F1"), with
scikit-learn's definition (``precision_recall_fscore_support(average="weighted", zero_division=0)``, counted
here, checked against scikit-learn in the tests) over the gold labels' support; an invalid answer is its own
predicted class ``INVALID_ANSWER``, which has no support, so it lowers recall (and accuracy) of the gold class
and never raises precision.
"""

from __future__ import annotations

import math
import re
import weakref
from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from inspect_ai.scorer import Metric, SampleScore, Value

INVALID_ANSWER = "<invalid>"
"""Predicted label recorded for an answer from which no label could be read."""


def _label_pair(item: SampleScore) -> tuple[str, str]:
    """``(gold, predicted)`` label of one score: ``Score.metadata["gold"]`` and ``Score.answer``."""
    metadata = item.score.metadata or {}
    if "gold" not in metadata:
        raise ValueError(f"sample {item.sample_id}: score metadata has no 'gold' label")
    answer = item.score.answer
    return str(metadata["gold"]), str(answer) if answer is not None else INVALID_ANSWER


def _labels_of(scores: Sequence[SampleScore]) -> tuple[list[str], list[str]]:
    pairs = [_label_pair(item) for item in scores]
    return [gold for gold, _ in pairs], [pred for _, pred in pairs]


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


def confusion_counts(gold: Sequence[str], pred: Sequence[str]) -> dict[str, dict[str, int]]:
    """Confusion matrix as ``{gold_label: {predicted_label: count}}`` (invalid answers as ``INVALID_ANSWER``)."""
    table: dict[str, Counter[str]] = {}
    for g, p in zip(gold, pred, strict=True):
        table.setdefault(g, Counter())[p] += 1
    return {g: dict(sorted(c.items())) for g, c in sorted(table.items())}


ALL_GROUP = "all"
"""Group name of the value over every sample."""

MEASURE_SCORES = "unreduced"
"""``@metric(scores=...)`` of every task metric: one score per sample *per epoch*. With ``--epochs N`` each
(sample, epoch) answer is one observation: means are means over all of them, weighted P/R/F1 pool every answer
(Inspect's mean reducer would replace an answer that differs between epochs by ``None``, i.e. invalid), and micro
counts are summed over epochs. With one epoch it is the same as reduced scores, and Inspect then skips the epoch
reduction altogether, which rebuilt every score key by key with ``statistics.mean`` (issue 8)."""

Reduction = Callable[[Sequence[SampleScore], str], float]
"""``(scores of one group, score-value key) -> value``: how a measure turns sample scores into one number."""

_REDUCTIONS: dict[str, Reduction] = {}


def register_reduction(name: str, reduction: Reduction) -> None:
    """Make ``reduction`` usable in :func:`measures_metric` specs under ``name`` (tasks register their own).

    Raises:
        ValueError: ``name`` is already registered to a different function.
    """
    known = _REDUCTIONS.get(name)
    if known is not None and known is not reduction:
        raise ValueError(f"reduction {name!r} is already registered")
    _REDUCTIONS[name] = reduction


def mean_of_value(scores: Sequence[SampleScore], key: str) -> float:
    """Mean of ``Score.value[key]`` over ``scores`` (0.0 for none).

    Raises:
        ValueError: a score whose value is not a dict with a finite number under ``key`` (names sample and key).
    """
    return _value_means(scores, [key])[key]


def micro_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Micro-averaged F1 over all labels (scikit-learn's ``f1_score(average="micro")``); 0.0 for empty input.

    With exactly one predicted label per item (an invalid answer being its own label) micro precision = micro
    recall = the share of items labelled correctly, so micro-F1 is that share (paper Table 3, "Scores are
    micro-F1"; the tests check it against scikit-learn). Raises ``ValueError`` if the lists differ in length.
    """
    if len(gold) != len(pred):
        raise ValueError(f"micro_f1: {len(gold)} gold labels but {len(pred)} predictions")
    if not gold:
        return 0.0
    return sum(g == p for g, p in zip(gold, pred)) / len(gold)


def _checked_number(item: SampleScore, key: str) -> float:
    """``Score.value[key]`` of one score, which must be a finite int or float (not a bool)."""
    value = item.score.value
    number = value.get(key) if isinstance(value, dict) else None
    if not isinstance(number, (int, float)) or isinstance(number, bool) or not math.isfinite(number):
        raise ValueError(f"sample {item.sample_id}: score value has no finite number under {key!r}: {value!r}")
    return number


def _value_means(scores: Sequence[SampleScore], keys: Sequence[str]) -> dict[str, float]:
    """:func:`mean_of_value` of several keys in one pass over ``scores`` (same errors)."""
    return {key: sum(_checked_number(item, key) for item in scores) / len(scores) if scores else 0.0 for key in keys}


_WEIGHTED = {"weighted_precision": 0, "weighted_recall": 1, "weighted_f1": 2}

register_reduction("mean", mean_of_value)
for _name, _index in _WEIGHTED.items():
    register_reduction(_name, lambda scores, _key, i=_index: weighted_prf(*_labels_of(scores))[i])
register_reduction("micro_f1", lambda scores, _key: micro_f1(*_labels_of(scores)))


_BY = re.compile(r"^(?P<key>.+)_by_(?P<group_key>[A-Za-z0-9]+)$")


def group_key_of(measure: str) -> tuple[str, str]:
    """``measure`` -> ``(score-value key, sample-metadata group key)``.

    ``accuracy_by_framework`` -> ``("accuracy", "framework")``; any measure without ``_by_<key>`` ->
    ``(measure, "dataset")``.
    """
    found = _BY.match(measure)
    return (found["key"], found["group_key"]) if found else (measure, "dataset")


def _group_of(item: SampleScore, group_key: str) -> str:
    """The group of one score: its sample metadata ``group_key``, which must be able to name a group."""
    metadata = item.sample_metadata
    if metadata is None or group_key not in metadata:
        raise ValueError(f"sample {item.sample_id}: sample metadata has no {group_key!r} to group by")
    group = str(metadata[group_key])
    if group in ("", ALL_GROUP) or "/" in group:
        raise ValueError(f"sample {item.sample_id}: {group_key} {group!r} cannot name a group "
                         f"(empty, {ALL_GROUP!r} or containing '/')")
    return group


_Row = tuple[tuple[float, ...], tuple[str, ...], tuple[str, str] | None]
"""What a metric reads from one score: its numbers (mean keys), its groups (group keys), its (gold, pred)."""


def measures_metric(spec: Mapping[str, str], include_all: bool = True) -> Metric:
    """One list-form metric computing every measure of ``spec`` over all samples and per group.

    Args:
        spec: ``{measure: reduction name}`` in report order; measures follow :func:`group_key_of`; reductions
            are ``mean`` (of the value key), ``weighted_precision`` / ``weighted_recall`` / ``weighted_f1`` /
            ``micro_f1`` (from ``Score.answer`` and ``Score.metadata["gold"]``) or one a task registered.
        include_all: report ``<measure>/all``; a scorer whose samples are one dataset sets it False when another
            scorer of the same task already reports an ``all`` under the same measure names.

    Returns:
        A metric whose value is ``{"<measure>/all": v, "<measure>/<group>": v, …}`` (groups in order of first
        appearance); ``{}`` for no scores.

    Raises:
        ValueError: an unknown reduction (at construction); a sample without the group key or value key (at
            computation, naming the sample).
    """
    unknown = sorted({r for r in spec.values() if r not in _REDUCTIONS})
    if unknown:
        raise ValueError(f"unknown reduction(s) {unknown}; registered: {sorted(_REDUCTIONS)}")
    plan = [(measure, *group_key_of(measure), reduction) for measure, reduction in spec.items()]
    group_keys = list(dict.fromkeys(group_key for _, _, group_key, _ in plan))

    mean_keys = list(dict.fromkeys(key for _, key, _, reduction in plan if reduction == "mean"))
    column_of = {key: index for index, key in enumerate(mean_keys)}
    uses_labels = any(reduction in _WEIGHTED or reduction == "micro_f1" for *_, reduction in plan)
    # Inspect recomputes the metric on the growing list of the same SampleScore objects while the eval runs
    # (live display, throttled to ~1/11 of the time) and once at the end: each score is read and checked once and
    # its row remembered by identity, through a weak reference whose callback drops the row when the score is
    # freed (no score is kept alive here; tasks sharing this metric object in one process keep their rows).
    # Scores must not be changed in place after scoring (Inspect never does: it copies a score it edits).
    read: dict[int, tuple[weakref.ref[SampleScore], _Row]] = {}

    def row_of(item: SampleScore) -> _Row:
        return (tuple(_checked_number(item, key) for key in mean_keys),
                tuple(_group_of(item, group_key) for group_key in group_keys),
                _label_pair(item) if uses_labels else None)

    def forget(ref: weakref.ref[SampleScore], key: int) -> None:
        known = read.get(key)
        if known is not None and known[0] is ref:
            del read[key]

    def rows_of(scores: list[SampleScore]) -> list[_Row]:
        rows: list[_Row] = []
        for item in scores:
            known = read.get(id(item))
            if known is None or known[0]() is not item:
                key = id(item)
                known = read[key] = (weakref.ref(item, lambda ref, key=key: forget(ref, key)), row_of(item))
            rows.append(known[1])
        return rows

    def reduce(scores: list[SampleScore], table: tuple[list[tuple[float, ...]], list[str], list[str]],
               members: list[int] | None, plan_part: list[tuple[str, str, str, str]]) -> dict[str, float]:
        # one group's measures (members None = every score), sharing work: labels gathered and P/R/F1 counted once
        columns, gold, pred = table
        out: dict[str, float] = {}
        labels: tuple[list[str], list[str]] | None = None
        prf: tuple[float, float, float] | None = None
        for measure, key, _group_key, reduction in plan_part:
            if reduction == "mean":
                column = columns[column_of[key]]
                out[measure] = (sum(column) / len(column) if members is None
                                else sum([column[i] for i in members]) / len(members))
            elif reduction in _WEIGHTED or reduction == "micro_f1":
                if labels is None:
                    labels = (gold, pred) if members is None else ([gold[i] for i in members], [pred[i] for i in members])
                if reduction == "micro_f1":
                    out[measure] = micro_f1(*labels)
                else:
                    prf = prf or weighted_prf(*labels)
                    out[measure] = prf[_WEIGHTED[reduction]]
            else:
                out[measure] = _REDUCTIONS[reduction](scores if members is None else [scores[i] for i in members], key)
        return out

    def compute(scores: list[SampleScore]) -> Value:
        if not scores:
            return {}
        rows = rows_of(scores)
        columns = list(zip(*[row[0] for row in rows])) if mean_keys else []
        labelled = [row[2] for row in rows] if uses_labels else []
        table = (columns, [pair[0] for pair in labelled], [pair[1] for pair in labelled])  # type: ignore[index]
        by_key: dict[str, dict[str, dict[str, float]]] = {}
        for index, group_key in enumerate(group_keys):
            plan_part = [step for step in plan if step[2] == group_key]
            members: dict[str, list[int]] = {}
            for position, row in enumerate(rows):
                members.setdefault(row[1][index], []).append(position)
            reduced = by_key[group_key] = {}
            if include_all:
                reduced[ALL_GROUP] = reduce(scores, table, None, plan_part)
            for group, positions in members.items():
                reduced[group] = reduce(scores, table, positions, plan_part)
        return {f"{measure}/{group}": out[measure]
                for measure, _key, group_key, _reduction in plan for group, out in by_key[group_key].items()}

    return compute


CLASSIFICATION_MEASURES: dict[str, str] = {
    "accuracy": "mean",
    "weighted_precision": "weighted_precision",
    "weighted_recall": "weighted_recall",
    "weighted_f1": "weighted_f1",
    "invalid": "mean",
    "output_tokens": "mean",
    "reasoning_tokens": "mean",
}
"""Spec of a single-label classification scorer (Tables 2–4, 13–31): accuracy, Appendix C weighted P/R/F1,
invalid-answer rate, mean output and reasoning tokens per sample; values from :func:`classification_value`."""


def classification_value(correct: bool, invalid: bool, output_tokens: int, reasoning_tokens: int) -> dict[str, float]:
    """``Score.value`` for one classification answer: ``accuracy`` and ``invalid`` (0/1) and the token counts.

    The weighted P/R/F1 measures read ``Score.answer`` and ``Score.metadata["gold"]`` instead.
    """
    return {
        "accuracy": 1.0 if correct else 0.0,
        "invalid": 1.0 if invalid else 0.0,
        "output_tokens": float(output_tokens),
        "reasoning_tokens": float(reasoning_tokens),
    }


def log_measures(log: Any, scorer: str | None = None) -> list[tuple[str, str, str, float]]:
    """Every ``(measure, group_key, group, value)`` a suite metric wrote into ``log.results`` (header enough).

    Reads the metrics named ``<measure>/<group>`` (see the module docstring) of every scorer, or of ``scorer``
    only; others (from a scorer outside the suite) are left out. Returns ``[]`` for a log without results.
    """
    rows: list[tuple[str, str, str, float]] = []
    results = getattr(log, "results", None)
    for score in (results.scores if results else None) or []:
        if scorer is not None and score.scorer != scorer:
            continue
        for name, item in score.metrics.items():
            measure, slash, group = name.partition("/")
            if slash and measure and group:
                rows.append((measure, group_key_of(measure)[1], group, float(item.value)))
    return rows


def measures_by_group(log: Any, scorer: str | None = None) -> dict[str, dict[str, float]]:
    """:func:`log_measures` as ``{measure: {group: value}}`` (convenient in notebooks and tests)."""
    table: dict[str, dict[str, float]] = {}
    for measure, _group_key, group, value in log_measures(log, scorer):
        table.setdefault(measure, {})[group] = value
    return table

