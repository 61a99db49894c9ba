"""The measure catalog: every measure of the suite declared once, and every scorer's measures.

A :class:`Measure` says what a number is — its name in the logs, its formula over ``Score.value`` keys (a mean,
a ratio of sums, or a label measure over gold and predicted labels), how its uncertainty is estimated, whether
higher is better, the paper's name for it, whether it counts tokens — and :data:`SCORERS` says which scorer
reports which measures, broken down by which sample-metadata keys, and which measures are its headline (the
first is the headline of its log). Everything else is generated from these two tables:

* each scorer's Inspect metric list (:func:`scorer_metrics`), so ``@scorer(metrics=scorer_metrics("…"))`` is
  all a task's scorer says about its measures;
* the report's headline measure of a plot, the token measures and the names matched against the paper's
  tables (:func:`plot_measures`, :func:`is_token_measure`, :func:`paper_key`);
* ``bediscover compare``'s cells: per measure the same formula, computed on the paired samples
  (:meth:`Measure.compute`, :meth:`Measure.per_sample_values`, :meth:`Measure.denominator_values`,
  :meth:`Measure.of_confusions`).

API (stable; the regression gate and the report use only this):

* ``CATALOG[name] -> Measure`` — every measure by its log name (``pmr``, ``link_f1``, ``macro_f1`` …).
* ``SCORERS[scorer] -> ScorerMeasures`` — per scorer (unqualified name, e.g. ``relation_scorer``): ``task``,
  ``measures`` (metric-list order), ``headline`` (the paper's main-table measures; ``headline[0]`` is the log's
  headline), ``secondary`` (further measures ``compare --measures all`` tests), ``groups`` (breakdown keys per
  measure: :meth:`ScorerMeasures.group_keys`) and ``labels`` (a label-choice scorer: gold in sample metadata
  ``gold``, the parsed label in ``Score.answer``).
* ``measures_of(scorer) -> list[Measure]``; ``headline(scorer) -> Measure`` (the log's headline measure).
* ``Measure.compute(values, gold=None, answers=None) -> float`` — the measure over samples: ``values`` is a
  sequence of ``Score.value`` dicts; a label measure (``kind == "label"``) also needs the gold labels and the
  answers (``Score.answer``, ``None`` read as :data:`~bediscover_inspect.metrics.INVALID_ANSWER`). Equals the
  logged metric on the same samples (tested for every measure of every scorer on the baseline logs).
* ``Measure.per_sample`` — how a paired test treats the measure: ``"binary"`` (a 0/1 number per sample under
  ``Measure.key``: McNemar), ``"mean"`` (a mean of per-sample numbers), ``"ratio"`` (``Σ numerator / Σ
  denominator``) or ``"label"`` (a statistic of the confusion matrix): the last three need a bootstrap.
* ``Measure.per_sample_values(values) -> ndarray`` — the per-sample numbers (binary/mean) or numerators (ratio);
  ``Measure.denominator_values(values) -> ndarray`` (ratio); ``Measure.of_confusions(matrices) -> ndarray`` —
  the label statistic of a stack of confusion matrices, shape ``(k, L, L) -> (k,)`` (label; rows gold, columns
  predicted, as :func:`~bediscover_inspect.metrics.confusion` counts them), so a bootstrap evaluates all
  resamples at once.
* ``Measure.higher_is_better``, ``Measure.title`` (the field's name: ``PMR``, ``micro-F1``, ``link-F1``),
  ``Measure.paper_name`` (the paper's column name, ``""`` when the paper has none), ``Measure.paper_key`` (the name the report matches against ``paper_results.csv``), ``Measure.tokens``,
  ``Measure.uncertainty`` (``"stderr"``: Inspect's standard error of a mean; ``"bootstrap"``: the seeded
  bootstrap of :mod:`bediscover_inspect.metrics`), ``Measure.description``.
* ``Measure.metric(stat="both")`` / ``metric_factory(name)`` — the registered Inspect ``@metric`` of the measure
  (registry name ``bediscover_inspect/<name>``, parameter ``stat`` as described in
  :mod:`bediscover_inspect.metrics`).

Log layout (per scorer, :func:`scorer_metrics`): first the headline measure over all samples as
``{"<headline>": value, "stderr": standard error}`` — the entry Inspect takes as the log's headline (the
header of ``inspect view``, ``score_headline_*`` of :func:`inspect_ai.analysis.evals_df`, which reads the
standard error from the entry named ``stderr``) — then its per-group entries, then every other measure as
``{"<measure>": value, "<measure>_stderr": standard error}`` with its per-group entries
(:func:`~bediscover_inspect.metrics.measure_metrics`), then per-class P/R/F1 of a label scorer.

Adding a measure: declare it in :data:`CATALOG` and name it in the ``measures`` (and, for ``compare --measures
all``, ``secondary``) of the scorers that report it; the metric list, the report and ``compare`` follow.

The measures (entries of :data:`CATALOG`; the docs link here):

Label-choice tasks (discourse markers, temporal relations, DISRPT relations; paper Tables 2–4, 13–31):
``accuracy`` (mean of the 0/1 ``accuracy``), ``micro_f1`` (temporal relations, Table 3; equals accuracy with
one label per answer), ``weighted_precision`` / ``weighted_recall`` / ``weighted_f1`` (Appendix C),
``macro_f1`` (unweighted mean of per-label F1 over the gold and predicted labels, as scikit-learn's
``f1_score(average="macro")`` computes it), ``invalid``, ``ambiguous``, ``echo``.
Sentence ordering (Tables 5, 32–38): ``acc``, ``lcs`` (micro over sentences), ``pmr``, ``skip``,
``kendall_tau``, ``lumr``, ``invalid``, ``other_format``, ``echo``. Dialogue parsing (Tables 6, 39–41): ``link_f1``,
``link_precision``, ``link_recall``, ``full_f1``, ``full_precision``, ``full_recall`` (micro over relations),
``invalid_rate``, ``no_relation_rate``, ``echo``, ``output_tokens_per_turn``, ``reasoning_tokens_per_turn``. Every
task: ``cut_off_rate`` and ``reasoning_only_rate`` (why an answer could not be used: :mod:`bediscover_inspect.causes`),
``output_tokens``, ``reasoning_tokens`` (means per sample). A sample whose provider reported no token usage
has ``None`` for both (:mod:`bediscover_inspect.tokens`) and is left out of the token measures; with none
reported they are NaN, which the report shows as "not reported by the provider".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, metric

from .metrics import (
    INVALID_ANSWER,
    PRIMARY_GROUP_KEY,
    STDERR_SUFFIX,
    Stat,
    _metric_of,
    confusion,
    label_pairs,
    label_stderr,
    mean_and_stderr,
    measure_metrics,
    per_class,
    per_label_prf_of_confusion,
    ratio_measure,
    ratio_of_sums,
    values_of,
    weighted_prf_of_confusion,
)

Kind = Literal["mean", "ratio", "label"]
PerSample = Literal["binary", "mean", "ratio", "label"]

Columns = Any
"""What a formula reads: ``columns["<Score.value key>"]`` is a number (one sample's value dict) or a float array
(one number per sample); a formula written with ``+ - * /`` works on both."""

Formula = Callable[[Columns], Any]


# --------------------------------------------------------------------------------------- label statistics


def _micro(matrices: np.ndarray) -> np.ndarray:
    """Micro-F1 of confusion matrices: the diagonal's share (one label per answer: micro P = R = F1)."""
    totals = matrices.sum(axis=(1, 2))
    trace = np.trace(matrices, axis1=1, axis2=2)
    return np.divide(trace, totals, out=np.zeros(len(matrices)), where=totals > 0)


def _weighted(index: int) -> Callable[[np.ndarray], np.ndarray]:
    def statistic(matrices: np.ndarray) -> np.ndarray:
        return weighted_prf_of_confusion(matrices)[:, index]

    return statistic


def _macro_f1(matrices: np.ndarray) -> np.ndarray:
    """Macro-F1 of confusion matrices, ``(k, L, L) -> (k,)``: the unweighted mean of per-label F1
    ``2·tp / (support + predicted)`` over the labels that occur (as gold or as answer) in each matrix.

    On one matrix over gold ∪ predicted labels this is scikit-learn's ``f1_score(average="macro")`` (tested):
    a label only ever predicted (e.g. :data:`~bediscover_inspect.metrics.INVALID_ANSWER`) counts with F1 0.
    """
    _precision, _recall, f1, support = per_label_prf_of_confusion(matrices)
    labels = ((support + matrices.sum(axis=1)) > 0).sum(axis=1)
    return np.divide(f1.sum(axis=1), labels, out=np.zeros(len(matrices)), where=labels > 0)


# --------------------------------------------------------------------------------------- the measure type


class _ScoreColumns:
    """``Score.value[key]`` of a list of sample scores as arrays, read once per key (:func:`values_of`)."""

    def __init__(self, scores: Sequence[SampleScore]) -> None:
        self._scores, self._read = scores, dict[str, np.ndarray]()

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._read:
            self._read[key] = values_of(self._scores, key)
        return self._read[key]


class ValueColumns:
    """``value[key]`` of a sequence of ``Score.value`` dicts as float arrays (``None``, not measured, as NaN:
    :func:`~bediscover_inspect.metrics.values_of`).

    Raises (on access): ValueError naming the sample (position) and the key when a value has no number there.
    """

    def __init__(self, values: Sequence[Mapping[str, Any]]) -> None:
        self._values = values

    def __getitem__(self, key: str) -> np.ndarray:
        out = np.empty(len(self._values))
        for i, value in enumerate(self._values):
            number = value.get(key) if isinstance(value, Mapping) else None
            if number is None and isinstance(value, Mapping) and key in value:
                number = float("nan")
            if not isinstance(number, (int, float)):
                raise ValueError(f"score value {i} has no number under {key!r} (value {value!r})")
            out[i] = number
        return out


@dataclass(frozen=True)
class Measure:
    """One measure: its formula, uncertainty, direction and names (see the module docstring for the API).

    Attributes:
        name: the entry name in the logs and the report (``pmr``, ``link_f1`` …).
        description: what it is, with its source in the paper (the measure's reference documentation).
        kind: ``mean`` (mean of ``Score.value[key]``), ``ratio`` (``Σ numerator / Σ denominator`` over samples)
            or ``label`` (:attr:`of_confusions` of the confusion matrix of gold and predicted labels).
        numerator, denominator: formulas of a ratio (:data:`Formula`).
        key: the ``Score.value`` key of a mean; for a label measure whose per-sample 0/1 number has the same
            mean (micro-F1 with one label per answer: ``accuracy``), that key.
        statistic: the label statistic of a stack of confusion matrices (``(k, L, L) -> (k,)``).
        binary: the per-sample numbers under ``key`` are 0/1 (a paired test can use McNemar).
        higher_is_better: ``False`` for failure rates and token counts.
        paper_name: the paper's column name (``""``: the paper reports none).
        paper_measure: the ``metric`` of ``paper_results.csv`` this measure is compared with (default: ``name``).
        tokens: a token count (reported as it is; every other measure is a 0–1 rate shown in percent).
        label: the field's name for it in prose and tables (``PMR``, ``micro-F1``; default: :attr:`name`).
        empty: the value of a ratio whose denominator sums to 0: 0.0 (precision, recall and F1, as scikit-learn's
            ``zero_division=0``) or NaN (a rate of nothing — the invalid share of no relations read — is
            undefined, not 0; the bootstrap then leaves out resamples without a denominator).
        bounds: the smallest and largest value the measure can take, in its logged unit (a rate 0–1, Kendall's τ
            −1 to 1, a token count 0 to ∞): an interval around it is kept inside them.
    """

    name: str
    description: str
    kind: Kind
    numerator: Formula | None = None
    denominator: Formula | None = None
    key: str | None = None
    statistic: Callable[[np.ndarray], np.ndarray] | None = None
    binary: bool = False
    higher_is_better: bool = True
    paper_name: str = ""
    paper_measure: str = ""
    tokens: bool = False
    label: str = ""
    bounds: tuple[float, float] = (0.0, 1.0)
    empty: float = 0.0

    @property
    def uncertainty(self) -> Literal["stderr", "bootstrap"]:
        """``stderr`` (the standard error of a mean, as Inspect's ``stderr()``) or ``bootstrap`` (seeded)."""
        return "stderr" if self.kind == "mean" else "bootstrap"

    @property
    def per_sample(self) -> PerSample:
        """How a paired test treats it: ``binary`` (0/1 per sample under :attr:`key`), ``mean``, ``ratio``,
        ``label``."""
        return "binary" if self.binary else self.kind

    @property
    def title(self) -> str:
        """The field's name for the measure (:attr:`label`, else :attr:`name`): ``PMR``, ``link-F1`` …"""
        return self.label or self.name

    @property
    def paper_key(self) -> str:
        """The name matched against the paper's ``metric`` column (:attr:`paper_measure` or :attr:`name`)."""
        return self.paper_measure or self.name

    # ------------------------------------------------------------------ over Score.value dicts (compare)

    def per_sample_values(self, values: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Per-sample numbers (``binary`` / ``mean``: ``value[key]``) or numerators (``ratio``), shape ``(n,)``.

        Raises:
            ValueError: a label measure without a per-sample key, or a value lacking a key (names it).
        """
        return self.numbers_of(ValueColumns(values))

    def numbers_of(self, columns: Columns) -> np.ndarray:
        """:meth:`per_sample_values` of samples given as columns (``columns[key]`` -> one float per sample: a
        :class:`ValueColumns`, or ``compare``'s columns of a run)."""
        if self.kind == "ratio":
            assert self.numerator is not None
            return np.asarray(self.numerator(columns), dtype=float)
        if self.key is None:
            raise ValueError(f"measure {self.name} is a label measure: it has no per-sample number")
        return np.asarray(columns[self.key], dtype=float)

    def denominator_values(self, values: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Per-sample denominators of a ratio measure, shape ``(n,)``.

        Raises:
            ValueError: not a ratio measure, or a value lacking a key.
        """
        return self.denominators_of(ValueColumns(values))

    def denominators_of(self, columns: Columns) -> np.ndarray:
        """:meth:`denominator_values` of samples given as columns (see :meth:`numbers_of`)."""
        if self.denominator is None:
            raise ValueError(f"measure {self.name} is not a ratio")
        return np.asarray(self.denominator(columns), dtype=float)

    def of_confusions(self, matrices: np.ndarray) -> np.ndarray:
        """The label statistic of confusion matrices, ``(k, L, L) -> (k,)``.

        Raises:
            ValueError: not a label measure.
        """
        if self.statistic is None:
            raise ValueError(f"measure {self.name} is not a label measure")
        return self.statistic(np.asarray(matrices))

    def of_labels(self, gold: Sequence[str], answers: Sequence[str]) -> float:
        """The label statistic over gold and predicted labels; 0.0 for no labels (as the logged metric)."""
        if not gold:
            return 0.0
        _labels, matrix = confusion(gold, answers)
        return float(self.of_confusions(matrix[None])[0])

    def compute(
        self,
        values: Sequence[Mapping[str, Any]],
        gold: Sequence[str] | None = None,
        answers: Sequence[str | None] | None = None,
    ) -> float:
        """The measure over samples, as the logged metric computes it.

        Args:
            values: ``Score.value`` dicts, one per sample (and epoch).
            gold: gold labels (sample metadata ``gold``), label measures only.
            answers: ``Score.answer`` of each sample (``None`` read as ``INVALID_ANSWER``), label measures only.

        Returns:
            A mean (NaN for no value), a ratio of sums (:attr:`empty` for a zero denominator) or a label statistic.

        Raises:
            ValueError: a label measure without ``gold`` / ``answers``, lengths that differ, a missing key.
        """
        return self.compute_of(ValueColumns(values), gold, answers)

    def compute_of(
        self, columns: Columns, gold: Sequence[str] | None = None, answers: Sequence[str | None] | None = None
    ) -> float:
        """:meth:`compute` of samples given as columns (see :meth:`numbers_of`)."""
        if self.kind == "label":
            if gold is None or answers is None:
                raise ValueError(f"measure {self.name} needs the gold labels and the answers")
            if len(gold) != len(answers):
                raise ValueError(f"measure {self.name}: {len(gold)} gold labels but {len(answers)} answers")
            pred = [str(a) if a is not None else INVALID_ANSWER for a in answers]
            return self.of_labels([str(g) for g in gold], pred)
        if self.kind == "ratio":
            return ratio_of_sums(self.numbers_of(columns), self.denominators_of(columns), self.empty)
        return mean_and_stderr(self.numbers_of(columns))[0]

    # ------------------------------------------------------------------ Inspect metric (live scores, logs)

    def metric(self, stat: Stat = "both") -> Metric:
        """The registered Inspect metric of this measure (``stat`` per :mod:`bediscover_inspect.metrics`)."""
        return METRICS[self.name](stat=stat)

    def _compute_metric(self, stat: str) -> Metric:
        """The unregistered metric function (value and standard error over ``SampleScore`` lists)."""
        if self.kind == "mean":
            key = self.key
            assert key is not None
            return _metric_of(
                self.name,
                stat,
                lambda scores: mean_and_stderr(values_of(scores, key))[0],
                lambda scores: mean_and_stderr(values_of(scores, key))[1],
            )
        if self.kind == "ratio":
            numerator, denominator = self.numerator, self.denominator
            assert numerator is not None and denominator is not None
            return ratio_measure(
                self.name,
                lambda scores: np.asarray(numerator(_ScoreColumns(scores)), dtype=float),
                lambda scores: np.asarray(denominator(_ScoreColumns(scores)), dtype=float),
                stat,
                self.empty,
            )
        return _metric_of(
            self.name,
            stat,
            lambda scores: self.of_labels(*label_pairs(scores)),
            lambda scores: label_stderr(*label_pairs(scores), self.of_confusions),
        )


# --------------------------------------------------------------------------------------- the catalog


def _mean(name: str, description: str, **kw: Any) -> Measure:
    return Measure(name, description, "mean", key=kw.pop("key", name), **kw)


def _rate(name: str, description: str, **kw: Any) -> Measure:
    """A 0/1 per-sample measure where 1 is a failure (lower is better)."""
    return _mean(name, description, binary=True, higher_is_better=False, **kw)


def _per_sentence(key: str) -> tuple[Formula, Formula]:
    return (lambda v: v[key] * v["n_sentences"]), (lambda v: v["n_sentences"])


def _weighted_measure(name: str, index: int, what: str) -> Measure:
    return Measure(
        name,
        f"Weighted {what} over the labels (paper Appendix C, weighted-{what[:3].title()}): per-label {what} "
        "averaged with the gold support as weights, over gold ∪ predicted labels (scikit-learn's "
        '``precision_recall_fscore_support(average="weighted", zero_division=0)``); bootstrap SE.',
        "label",
        statistic=_weighted(index),
        paper_name=f"weighted-{what[:3].title()}",
    )


def _sums(name: str, what: str, numerator: str, denominator: str, **kw: Any) -> Measure:
    """A ratio of two summed ``Score.value`` keys, ``Σ numerator / Σ denominator``, with a bootstrap SE (``empty``
    NaN: undefined where nothing was counted, :attr:`Measure.empty`)."""
    undefined = (
        f" Undefined (NaN, not 0) when ``Σ {denominator}`` is 0; the SE is the standard deviation of the ratio over "
        f"the bootstrap resamples whose ``Σ {denominator}`` is above 0."
        if np.isnan(kw.get("empty", 0.0))
        else ""
    )
    return Measure(
        name,
        f"{what}: ``Σ {numerator} / Σ {denominator}``; bootstrap SE.{undefined}",
        "ratio",
        lambda v: v[numerator],
        lambda v: v[denominator],
        **kw,
    )


def _micro_structure(kind: str, what: str, paper_name: str) -> tuple[Measure, ...]:
    """Micro F1, precision and recall of dialogue-parsing ``kind`` (``link`` / ``full``) over summed counts."""
    tp, pred, gold = f"{kind}_tp", f"{kind}_pred", f"{kind}_gold"
    f1 = Measure(
        f"{kind}_f1",
        f"Micro {what} F1 (Table 6 '{paper_name}'): ``2 Σ {tp} / (Σ {pred} + Σ {gold})``; bootstrap SE.",
        "ratio",
        lambda v: 2 * v[tp],
        lambda v: v[pred] + v[gold],
        paper_name=paper_name,
        label=f"{kind}-F1",
    )
    return (
        f1,
        _sums(f"{kind}_precision", f"Micro {what} precision", tp, pred),
        _sums(f"{kind}_recall", f"Micro {what} recall", tp, gold),
    )


_MEASURES: tuple[Measure, ...] = (
    # ---- label-choice tasks
    _mean(
        "accuracy",
        "Share of answers scored right: mean of ``Score.value['accuracy']`` (0/1). DISRPT accuracy per corpus, "
        "per framework (Table 4: corpus accuracies weighted by size = the mean over the framework's samples) "
        "and per language (Table 27); ToT-Arithmetic per category (Table 26).",
        binary=True,
        paper_name="Acc",
    ),
    Measure(
        "micro_f1",
        "Micro-F1 over the relation labels (TBD, TDD-Man: paper Table 3, 'Scores are micro-F1'): with one "
        "predicted label per pair micro P = R = F1 = the share labelled right (scikit-learn's "
        "``f1_score(average='micro')``), so a paired test uses the per-sample 0/1 ``accuracy``; bootstrap SE.",
        "label",
        key="accuracy",
        statistic=_micro,
        binary=True,
        paper_name="micro-F1",
        paper_measure="accuracy",
        label="micro-F1",
    ),
    _weighted_measure("weighted_precision", 0, "precision"),
    _weighted_measure("weighted_recall", 1, "recall"),
    _weighted_measure("weighted_f1", 2, "F1"),
    Measure(
        "macro_f1",
        "Macro-F1: the unweighted mean of per-label F1 over gold ∪ predicted labels (an invalid answer is a "
        "label of its own, F1 0), as scikit-learn's ``f1_score(average='macro')`` computes it (not in the "
        "paper); every label counts alike, so rare relations weigh as much as frequent ones. "
        "Bootstrap SE.",
        "label",
        statistic=_macro_f1,
        label="macro-F1",
    ),
    _rate("invalid", "Share of answers from which no answer could be read (scored wrong): ``value['invalid']``."),
    _rate(
        "ambiguous",
        "Share of answers that named several labels with no stated choice (scored invalid): ``value['ambiguous']``.",
    ),
    _mean(
        "echo",
        "Share of answers that echo the prompt instead of answering (scored invalid): mean of ``value['echo']`` "
        "(the rule: :func:`bediscover_inspect.labels.copies_prompt`). 0/1 per answer; a dialogue-parsing sample "
        "holds the share of its turns that echo their prompt, so incremental dialogue parsing averages dialogues.",
        higher_is_better=False,
    ),
    _mean(
        "cut_off_rate",
        "Share of samples whose reply stopped at the token budget (stop reason ``max_tokens`` or ``model_length``; "
        "the rule: :mod:`bediscover_inspect.causes`), whatever was read from it: mean of ``value['cut_off']`` (0/1; "
        "a dialogue-parsing sample holds the share of its turns cut off). Above a few percent the cell's numbers "
        "are bound by the budget sent (no paper column).",
        key="cut_off",
        higher_is_better=False,
        label="cut off",
    ),
    _mean(
        "reasoning_only_rate",
        "Share of samples whose reply, not cut off, had an empty answer text and a non-empty reasoning (scored "
        "invalid; the rule: :mod:`bediscover_inspect.causes`): mean of ``value['reasoning_only']`` (0/1; a "
        "dialogue-parsing sample holds the share of its turns). On every sample it points at the server's "
        "reasoning parser, not the model (no paper column).",
        key="reasoning_only",
        higher_is_better=False,
        label="reasoning only",
    ),
    # ---- sentence ordering (Re-BART measures, Tables 5, 32–38)
    Measure(
        "acc",
        "Position accuracy (Acc), micro: correct positions summed over documents / gold sentences summed "
        "(``Σ acc·n_sentences / Σ n_sentences``); bootstrap SE.",
        "ratio",
        *_per_sentence("acc"),
        paper_name="Acc",
        paper_measure="accuracy",
    ),
    Measure(
        "lcs",
        "Longest common subsequence (Lcs), micro: LCS lengths summed over documents / gold sentences summed; "
        "bootstrap SE.",
        "ratio",
        *_per_sentence("lcs"),
        paper_name="Lcs",
    ),
    _mean(
        "pmr",
        "Perfect match rate (Pmr): mean of ``value['pmr']`` (0/1) over documents.",
        binary=True,
        paper_name="Pmr",
        label="PMR",
    ),
    _mean("skip", "Skip-bigram match (Skip, ROUGE-S): mean of ``value['skip']`` over documents.", paper_name="Skip"),
    _mean(
        "kendall_tau",
        "Kendall's τ (Re-BART): mean of ``value['kendall_tau']`` over documents, −1 (reversed) to 1.",
        paper_name="τ",
        bounds=(-1.0, 1.0),
    ),
    _rate(
        "lumr",
        "Length unmatch rate (Lumr): share of answers whose length differs from the gold's.",
        paper_name="Lumr",
    ),
    _rate(
        "other_format",
        "Share of answers whose order was read from a format other than the paper's ``<s n>`` markers: "
        "``1 − other_format − invalid`` is the paper-format compliance.",
    ),
    # ---- dialogue parsing (paper §6.2.1, Tables 6, 39–41): micro over relations
    *_micro_structure("link", "link-attachment", "Link"),
    *_micro_structure("full", "full-structure (link + relation)", "Full"),
    _sums(
        "invalid_rate",
        "Share of relations read that were invalid (label outside the set, wrong turn …)",
        "relations_invalid",
        "relations_read",
        higher_is_better=False,
        empty=float("nan"),
    ),
    _sums(
        "no_relation_rate",
        "Share of turns from whose answer no relation was read",
        "no_relation",
        "turns",
        higher_is_better=False,
        empty=float("nan"),
    ),
    _sums(
        "output_tokens_per_turn",
        "Output tokens per turn (the paper's 'tok.' of Tables 39–41, every generated token)",
        "output_tokens",
        "turns",
        higher_is_better=False,
        paper_name="tok.",
        paper_measure="tok",
        tokens=True,
        bounds=(0.0, float("inf")),
    ),
    _sums(
        "reasoning_tokens_per_turn",
        "Reasoning tokens per turn (no paper column)",
        "reasoning_tokens",
        "turns",
        higher_is_better=False,
        tokens=True,
        bounds=(0.0, float("inf")),
    ),
    # ---- every task
    _mean(
        "output_tokens",
        "Mean output tokens per sample, reasoning included where the provider counts it so (the paper's "
        "'tok.', which counts every generated token).",
        higher_is_better=False,
        paper_name="tok.",
        paper_measure="tok",
        tokens=True,
        bounds=(0.0, float("inf")),
    ),
    _mean(
        "reasoning_tokens",
        "Mean reasoning tokens per sample, from the provider's usage (0 where the usage has no reasoning count; no "
        "paper column).",
        higher_is_better=False,
        tokens=True,
        bounds=(0.0, float("inf")),
    ),
)

CATALOG: dict[str, Measure] = {measure.name: measure for measure in _MEASURES}
"""Every measure of the suite by its log name."""


# --------------------------------------------------------------------------------------- scorers


LABEL_MEASURES: tuple[str, ...] = (
    "accuracy",
    "weighted_precision",
    "weighted_recall",
    "weighted_f1",
    "macro_f1",
    "invalid",
    "ambiguous",
    "echo",
    "cut_off_rate",
    "reasoning_only_rate",
    "output_tokens",
    "reasoning_tokens",
)
"""The measures of every label-choice scorer, in metric-list order (the headline leads)."""


@dataclass(frozen=True)
class ScorerMeasures:
    """What one scorer reports (see the module docstring).

    Attributes:
        scorer: the scorer's unqualified registry name.
        task: the task it scores.
        measures: its measures, in metric-list order (the headline is moved to the front of the log).
        headline: the paper's main-table measures of the scorer; ``headline[0]`` is the log's headline.
        secondary: further measures ``bediscover compare --measures all`` tests.
        groups: sample-metadata keys a measure is broken down by beyond ``dataset`` (DISRPT accuracy per
            ``framework`` and ``language``, ToT accuracy per ``category``).
        labels: a label-choice scorer (gold in sample metadata ``gold``, parsed label in ``Score.answer``):
            its log also has per-class P/R/F1.
        datasets: the datasets it scores when its task has two scorers (temporal reasoning: TBD and TDD-Man by
            relation label, ToT-Arithmetic by its answer; Table 3); empty when it scores every dataset of its task.
    """

    scorer: str
    task: str
    measures: tuple[str, ...]
    headline: tuple[str, ...]
    secondary: tuple[str, ...] = ()
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    labels: bool = False
    datasets: tuple[str, ...] = ()

    def scores(self, task: str, dataset: str) -> bool:
        """Whether this scorer scores ``dataset`` of ``task``."""
        return self.task == task and (not self.datasets or dataset in self.datasets)

    def group_keys(self, measure: str) -> tuple[str, ...]:
        """Breakdown keys of ``measure``: ``dataset``, then its extra :attr:`groups`."""
        return (PRIMARY_GROUP_KEY, *self.groups.get(measure, ()))

    def ordered(self) -> tuple[str, ...]:
        """:attr:`measures` with the log's headline first (the metric-list order)."""
        first = self.headline[0]
        return (first, *(m for m in self.measures if m != first))

    def table_order(self) -> tuple[str, ...]:
        """:attr:`measures` as a report table shows them: every :attr:`headline` measure first (the paper's main
        table, in its order), then the others in :attr:`measures` order (the paper's per-dataset tables first,
        then invalid, echo and token counts)."""
        return (*self.headline, *(m for m in self.measures if m not in self.headline))


_LABEL_SECONDARY = ("weighted_precision", "weighted_recall", "macro_f1", "invalid", "ambiguous")

SCORERS: dict[str, ScorerMeasures] = {
    s.scorer: s
    for s in (
        ScorerMeasures(
            "discourse_marker_scorer",
            "discourse_markers",
            LABEL_MEASURES,
            headline=("accuracy", "weighted_f1"),  # Table 2
            secondary=_LABEL_SECONDARY,
            labels=True,
        ),
        ScorerMeasures(
            "relation_scorer",
            "temporal_reasoning",
            ("micro_f1", *LABEL_MEASURES),
            headline=("micro_f1", "weighted_f1"),  # Table 3
            secondary=_LABEL_SECONDARY,
            labels=True,
            datasets=("tbd", "tdd-man"),
        ),
        ScorerMeasures(
            "tot_scorer",
            "temporal_reasoning",
            ("accuracy", "invalid", "echo", "cut_off_rate", "reasoning_only_rate", "output_tokens", "reasoning_tokens"),
            headline=("accuracy",),  # Table 3
            secondary=("invalid",),
            groups={"accuracy": ("category",)},  # Table 26
            datasets=("tot-arithmetic",),
        ),
        ScorerMeasures(
            "discourse_relation_scorer",
            "discourse_relations",
            LABEL_MEASURES,
            headline=("accuracy",),  # Table 4
            secondary=("weighted_f1", "macro_f1", "invalid", "ambiguous"),
            groups={"accuracy": ("framework", "language")},  # Tables 4 and 27
            labels=True,
        ),
        ScorerMeasures(
            "sentence_ordering_scorer",
            "sentence_ordering",
            # Tables 32–38 column order (Acc, Lumr, Pmr, Skip, Lcs, tok.), then τ, invalid, other format
            (
                "acc",
                "lumr",
                "pmr",
                "skip",
                "lcs",
                "output_tokens",
                "reasoning_tokens",
                "kendall_tau",
                "invalid",
                "other_format",
                "echo",
                "cut_off_rate",
                "reasoning_only_rate",
            ),
            headline=("pmr", "acc", "lcs", "kendall_tau"),  # Table 5
            secondary=("skip", "lumr", "invalid"),
        ),
        ScorerMeasures(
            "dialogue_parsing_scorer",
            "dialogue_parsing",
            (
                "link_f1",
                "link_precision",
                "link_recall",
                "full_f1",
                "full_precision",
                "full_recall",
                "invalid_rate",
                "no_relation_rate",
                "echo",
                "cut_off_rate",
                "reasoning_only_rate",
                "output_tokens_per_turn",
                "reasoning_tokens_per_turn",
            ),
            headline=("link_f1", "full_f1"),  # Table 6
            secondary=(
                "link_precision",
                "link_recall",
                "full_precision",
                "full_recall",
                "invalid_rate",
                "no_relation_rate",
            ),
        ),
    )
}
"""Every scorer of the suite and its measures."""


def measures_of(scorer: str) -> list[Measure]:
    """The measures ``scorer`` reports, in metric-list order.

    Raises:
        KeyError: not a scorer of the suite (names the known ones).
    """
    return [CATALOG[name] for name in _scorer(scorer).ordered()]


def headline(scorer: str) -> Measure:
    """The log's headline measure of ``scorer`` (``SCORERS[scorer].headline[0]``)."""
    return CATALOG[_scorer(scorer).headline[0]]


def _scorer(scorer: str) -> ScorerMeasures:
    try:
        return SCORERS[scorer.rsplit("/", 1)[-1]]
    except KeyError:
        raise KeyError(f"no scorer {scorer!r} in the measure catalog; known: {sorted(SCORERS)}") from None


def is_token_measure(measure: str) -> bool:
    """Whether ``measure`` (a catalog name, or the paper's ``tok``) counts tokens: reported as it is, where every
    other measure is a 0–1 rate shown in percent."""
    entry = CATALOG.get(measure)
    return entry.tokens if entry is not None else measure == "tok"


def bounds_of(measure: str) -> tuple[float, float]:
    """The range of ``measure`` (a catalog name, or the paper's ``tok``) in its logged unit
    (:attr:`Measure.bounds`): ``(0, 1)`` for a rate, ``(-1, 1)`` for Kendall's τ, ``(0, inf)`` for a token count;
    a name outside the catalog is a rate."""
    entry = CATALOG.get(measure)
    if entry is not None:
        return entry.bounds
    return (0.0, float("inf")) if measure == "tok" else (0.0, 1.0)


def paper_key(measure: str) -> str:
    """The shared key of our measure name or the paper's metric name (``micro_f1`` and ``acc`` ->
    ``accuracy``, ``output_tokens`` -> ``tok``; a name outside the catalog is its own key)."""
    entry = CATALOG.get(measure)
    return entry.paper_key if entry is not None else measure


def measure_order(names: Iterable[str], scorers: Iterable[str] | None = None) -> list[str]:
    """``names`` (distinct) in report-table order: each scorer's :meth:`ScorerMeasures.table_order` (headline
    measures first), scorers in :data:`SCORERS` order; names outside the catalog last, in the order given.

    Args:
        names: measure names.
        scorers: the scorers whose order counts (registry names, qualified or not; unknown ones ignored), e.g. a
            task's; ``None`` (or none known): every scorer of the suite.
    """
    chosen = None if scorers is None else {str(s).rsplit("/", 1)[-1] for s in scorers}
    ranked = [s for s in SCORERS.values() if chosen is None or s.scorer in chosen] or list(SCORERS.values())
    rank = {name: i for i, name in enumerate(dict.fromkeys(m for s in ranked for m in s.table_order()))}
    unique = list(dict.fromkeys(names))
    return sorted(unique, key=lambda name: (rank.get(name, len(rank)), unique.index(name)))


def plot_measures() -> tuple[str, ...]:
    """The y-axis measure of a report plot, in preference order: each scorer's log headline."""
    return tuple(dict.fromkeys(s.headline[0] for s in SCORERS.values()))


# --------------------------------------------------------------------------------------- Inspect metrics


def _register(measure: Measure) -> Callable[..., Metric]:
    def factory(stat: Stat = "both") -> Metric:
        return measure._compute_metric(stat)

    factory.__name__ = factory.__qualname__ = measure.name
    factory.__doc__ = measure.description
    return metric(name=measure.name)(factory)


METRICS: dict[str, Callable[..., Metric]] = {name: _register(measure) for name, measure in CATALOG.items()}
"""The registered Inspect ``@metric`` factory of every measure (``METRICS["pmr"](stat="value")``)."""


def metric_factory(name: str) -> Callable[..., Metric]:
    """The registered ``@metric`` factory of measure ``name``."""
    return METRICS[name]


def scorer_metrics(scorer: str) -> list[Metric]:
    """The metric list of ``scorer``, generated from :data:`SCORERS` and :data:`CATALOG`.

    Returns:
        The headline measure with ``stat="headline"`` (entries ``<measure>`` and ``stderr``: what Inspect reads
        as the log's headline), then its per-group entries, then every other measure
        per :func:`~bediscover_inspect.metrics.measure_metrics` with its group keys, then (label scorers)
        :func:`~bediscover_inspect.metrics.per_class`.
    """
    spec = _scorer(scorer)
    first, *rest = spec.ordered()
    # the headline's overall "both" metric is replaced by its "headline" form; its per-group entries stay
    metrics: list[Metric] = [METRICS[first](stat="headline")]
    metrics += measure_metrics(METRICS[first], spec.group_keys(first), first)[1:]
    for name in rest:
        metrics += measure_metrics(METRICS[name], spec.group_keys(name), name)
    if spec.labels:
        metrics.append(per_class())
    return metrics


__all__ = [
    "CATALOG",
    "METRICS",
    "SCORERS",
    "STDERR_SUFFIX",
    "Measure",
    "ScorerMeasures",
    "bounds_of",
    "headline",
    "is_token_measure",
    "measure_order",
    "measures_of",
    "metric_factory",
    "paper_key",
    "plot_measures",
    "scorer_metrics",
]
