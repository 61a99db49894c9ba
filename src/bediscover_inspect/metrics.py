"""The metric engine of the suite: how a measure becomes Inspect metrics with standard errors, and how a log's
results are read back. The measures themselves (formulas, names, which scorer reports which) are declared once in
:mod:`bediscover_inspect.measures`, which builds every ``@metric`` from the pieces here.

Conventions every scorer follows:

* ``Score.value`` is a dict of per-sample numbers, and it holds every number a metric reduces (``accuracy``
  0/1, ``invalid`` 0/1, token counts, sentence-ordering ratios and their weights, dialogue-parsing counts).
* Label-choice tasks put the parsed label in ``Score.answer`` (:data:`INVALID_ANSWER` when none could be read);
  the gold label is the sample's metadata ``gold`` (its target). Label metrics read these two.

Every measure metric takes ``stat``:

* ``"both"`` (default): ``{"<measure>": value, "<measure>_stderr": standard error}`` over the samples given —
  the columns ``score_<scorer>_<measure>`` / ``score_<scorer>_<measure>_stderr`` of
  :func:`inspect_ai.analysis.evals_df`;
* ``"headline"``: ``{"<measure>": value, "stderr": standard error}`` — a scorer's first metric, which Inspect
  takes as the log's headline (``inspect view``'s header; ``evals_df``'s ``score_headline_*``, whose standard
  error is the entry named :data:`HEADLINE_STDERR`);
* ``"value"`` or ``"stderr"``: that one number, so :func:`inspect_ai.scorer.grouped` can break it down.

:func:`measure_metrics` composes a measure into the metric list of a scorer: the overall ``"both"`` metric, then
``grouped(measure(stat="value"), key)`` and ``grouped(measure(stat="stderr"), key)`` per group key (entries
``<measure>_<group>`` and ``<measure>_stderr_<group>``; for a group key other than ``dataset`` the key is named
too: ``accuracy_framework_pdtb``). :func:`bediscover_inspect.evallogs.results.read_results` reads a log's results
back into rows using the metrics' own parameters (group key, name template), never by parsing names.

Uncertainty (every headline number carries one):

* a measure that is a mean of per-sample values (accuracy, invalid rate, PMR, Kendall τ …) reports the standard
  error of that mean as Inspect's ``stderr()`` defines it (sample standard deviation over √n,
  :func:`mean_and_stderr`);
* a corpus-level measure (weighted P/R/F1, micro-F1, micro position accuracy, LCS, dialogue-parsing micro
  P/R/F1, token means per turn) reports the standard deviation of a seeded bootstrap
  (:data:`BOOTSTRAP_RESAMPLES` resamples of the samples, seed :data:`BOOTSTRAP_SEED`): the same seed gives the
  same number for the same scores.

Cost while a run goes: Inspect recomputes every metric over all scores so far while samples complete (its live
scores), on its event loop, for up to a tenth of the run. So the measures work on numpy arrays read from the
scores: a mean measure reads ``Score.value[key]`` into an array (:func:`values_of`; Inspect's
:func:`inspect_ai.scorer.aggregate` would copy every ``SampleScore`` per call), and the label measures count one
confusion matrix with numpy (:func:`confusion`; scikit-learn's input checks cost 3–5 ms a call and its import
seconds). On non-empty input they give the numbers of Inspect's ``mean()`` / ``stderr()`` and scikit-learn's
``confusion_matrix`` / ``precision_recall_fscore_support``, which the tests use as references
(``benchmarks/results/README.md``, "Live scores", has the measured cost).

Epochs: every task runs with :func:`pooled_epochs` (no epoch reduction), so with ``--epochs N`` each answer is one
observation: means are over all answers and the label measures pool every answer (a mean reducer would turn an
answer that differs between epochs into no answer).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, cast

import numpy as np
from inspect_ai import Epochs
from inspect_ai.scorer import Metric, SampleScore, Value, grouped, metric
from inspect_ai.util import registry_info

INVALID_ANSWER = "<invalid>"
"""Predicted label recorded for an answer from which no label could be read (its own class, never gold)."""

Stat = Literal["both", "value", "stderr", "headline"]
STATS: tuple[str, ...] = ("both", "value", "stderr", "headline")

HEADLINE_STDERR = "stderr"
"""Entry name of the headline's standard error: Inspect reads a log's headline standard error from the entry of
this name in the first scorer (:func:`inspect_ai.analysis.evals_df`, ``score_headline_stderr``)."""

BOOTSTRAP_RESAMPLES = 1000
"""Resamples of every bootstrap standard error."""

BOOTSTRAP_SEED = 0
"""Seed of every bootstrap (numpy ``default_rng``), so a log's standard errors are reproducible."""

PRIMARY_GROUP_KEY = "dataset"
"""Sample-metadata key every task groups by (the dataset, or the DISRPT corpus); entries omit its name."""

STDERR_SUFFIX = "_stderr"


def pooled_epochs() -> Epochs:
    """``Task(epochs=...)`` of every task: one epoch by default and no reducer (``--epochs N`` keeps it so)."""
    return Epochs(1, reducer=[])


# --------------------------------------------------------------------------------------- composition


def _check_stat(stat: str) -> None:
    if stat not in STATS:
        raise ValueError(f"stat must be one of {list(STATS)}, got {stat!r}")


def _metric_of(
    name: str, stat: str, value: Callable[[list[SampleScore]], Value], spread: Callable[[list[SampleScore]], Value]
) -> Metric:
    """A metric function reporting ``value`` and/or ``spread`` of the scores it is given (see ``stat``)."""
    _check_stat(stat)
    stderr_name = HEADLINE_STDERR if stat == "headline" else name + STDERR_SUFFIX

    def compute(scores: list[SampleScore]) -> Value:
        if stat == "value":
            return value(scores)
        if stat == "stderr":
            return spread(scores)
        return {name: cast(float, value(scores)), stderr_name: cast(float, spread(scores))}

    return compute


def mean_and_stderr(values: np.ndarray) -> tuple[float, float]:
    """Mean of ``values`` and the standard error of that mean, as Inspect's ``mean()`` and ``stderr()`` compute them.

    NaN values are left out (an unscored value, as :func:`inspect_ai.scorer.aggregate` skips it). The standard
    error is the sample standard deviation (``ddof=1``) over √n, 0.0 for fewer than two values.

    Returns:
        ``(mean, stderr)``; ``(nan, 0.0)`` when no value is left (Inspect's ``aggregate`` reports NaN for both).
    """
    values = values[~np.isnan(values)]
    n = len(values)
    if n == 0:
        return float("nan"), 0.0
    return float(np.mean(values)), float(np.std(values, ddof=1) / np.sqrt(n)) if n > 1 else 0.0


def group_entry_prefix(measure: str, group_key: str, stat: str) -> str:
    """Prefix of the metric entries of ``measure`` grouped by ``group_key`` (before the group's name).

    ``("accuracy", "dataset", "value")`` -> ``"accuracy_"``; ``("accuracy", "framework", "stderr")`` ->
    ``"accuracy_stderr_framework_"``.
    """
    prefix = measure + (STDERR_SUFFIX if stat == "stderr" else "") + "_"
    return prefix if group_key == PRIMARY_GROUP_KEY else f"{prefix}{group_key}_"


def measure_metrics(
    measure: Callable[..., Metric], group_keys: Sequence[str] = (PRIMARY_GROUP_KEY,), name: str | None = None
) -> list[Metric]:
    """The metrics reporting one measure in a scorer's list: overall value and standard error, then per group.

    Args:
        measure: a measure factory of this module (or a task's), taking ``stat``.
        group_keys: sample-metadata keys to break the measure down by (``dataset``, ``framework`` …).
        name: the measure's entry name (default: the metric's registered name).

    Returns:
        ``[measure(), grouped(measure("value"), key), grouped(measure("stderr"), key), …]``; each ``grouped``
        omits its ``all`` entry (the overall metric reports it) and names entries per
        :func:`group_entry_prefix`.
    """
    overall = measure()
    name = name or registry_info(overall).name.split("/", 1)[-1]  # without the package prefix
    metrics = [overall]
    for key in group_keys:
        for stat in ("value", "stderr"):
            metrics.append(
                grouped(
                    measure(stat=stat),
                    key,
                    all=False,
                    name_template=group_entry_prefix(name, key, stat) + "{group_name}",
                )
            )
    return metrics


# --------------------------------------------------------------------------------------- bootstrap


def _rng() -> np.random.Generator:
    return np.random.default_rng(BOOTSTRAP_SEED)


def bootstrap_stderr(
    statistic: Callable[[np.ndarray], np.ndarray], n: int, resamples: int = BOOTSTRAP_RESAMPLES
) -> float:
    """Standard deviation of ``statistic`` over seeded bootstrap resamples of ``n`` items.

    Args:
        statistic: maps an index array of shape ``(resamples, n)`` (rows drawn with replacement from
            ``0..n-1``) to the statistic of each row, shape ``(resamples,)``.
        n: number of items (samples).
        resamples: number of resamples.

    Returns:
        The population standard deviation of the resampled statistics, over those that are defined (not NaN);
        0.0 for fewer than two items or fewer than two defined resamples.
    """
    if n < 2:
        return 0.0
    indices = _rng().integers(0, n, size=(resamples, n))
    values = statistic(indices)
    values = values[~np.isnan(values)]
    return float(np.std(values)) if len(values) > 1 else 0.0


def values_of(scores: Sequence[SampleScore], key: str) -> np.ndarray:
    """``Score.value[key]`` of every score as a float array (``bool`` counts as 0/1), shape ``(len(scores),)``.

    A ``None`` value (not measured: token counts the provider did not report, :mod:`bediscover_inspect.tokens`)
    is NaN, which :func:`mean_and_stderr` and :func:`ratio_of_sums` leave out.

    Raises:
        ValueError: a score whose value is not a dict holding a number or ``None`` under ``key`` (names the sample
            and key).
    """
    try:
        numbers = [cast("dict[str, Any]", item.score.value)[key] for item in scores]
        if set(map(type, numbers)) <= {int, float, bool, type(None)}:
            return np.array(numbers, dtype=float).reshape(len(numbers))
    except (TypeError, KeyError):
        pass  # a value that is not a dict, or has no such key: found and named below
    out = np.empty(len(scores))
    for i, item in enumerate(scores):
        value = item.score.value
        number = value.get(key) if isinstance(value, dict) else None
        if not isinstance(value, dict):
            raise ValueError(f"Sample {item.sample_id}: score value {value!r} is not a dict, so it has no {key!r}")
        if key in value and number is None:
            number = float("nan")
        if not isinstance(number, (int, float)):
            state = "missing" if key not in value else f"not a number: {number!r}"
            raise ValueError(f"Sample {item.sample_id} score key {key!r} is {state} (score value {value!r})")
        out[i] = number
    return out


def measured(numerator: np.ndarray, denominator: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items of a ratio whose numerator and denominator are both measured (not NaN)."""
    keep = ~(np.isnan(numerator) | np.isnan(denominator))
    return numerator[keep], denominator[keep]


def ratio_of_sums(numerator: np.ndarray, denominator: np.ndarray, empty: float = 0.0) -> float:
    """``sum(numerator) / sum(denominator)`` over the measured items (:func:`measured`); ``empty`` when the
    denominator sums to 0 (0.0, scikit-learn's ``zero_division=0`` for precision, recall and F1; NaN for a rate of
    nothing, such as the invalid share of no relations read), NaN when no item is measured."""
    if np.isnan(numerator).any() or np.isnan(denominator).any():
        numerator, denominator = measured(numerator, denominator)
        if not len(numerator):
            return float("nan")
    total = float(np.sum(denominator))
    return float(np.sum(numerator)) / total if total else empty


def ratio_stderr(numerator: np.ndarray, denominator: np.ndarray, empty: float = 0.0) -> float:
    """Bootstrap standard error of :func:`ratio_of_sums` over the measured items (resampled with replacement).

    A resample whose denominator sums to 0 takes ``empty``, as :func:`ratio_of_sums` does; with ``empty`` NaN the
    ratio is undefined there, so such resamples are left out and the standard error is the standard deviation of
    the ratio over the resamples that have a denominator (NaN when the observed ratio itself is undefined). So a
    rate that is 1 in every sample with a denominator has standard error 0, whatever samples without one there are.
    """
    numerator, denominator = measured(numerator, denominator)
    if not np.sum(denominator) and np.isnan(empty):
        return float("nan")

    def statistic(indices: np.ndarray) -> np.ndarray:
        num, den = numerator[indices].sum(axis=1), denominator[indices].sum(axis=1)
        return np.divide(num, den, out=np.full_like(num, empty), where=den != 0)

    return bootstrap_stderr(statistic, len(numerator))


def ratio_measure(
    name: str,
    numerator: Callable[[Sequence[SampleScore]], np.ndarray],
    denominator: Callable[[Sequence[SampleScore]], np.ndarray],
    stat: str,
    empty: float = 0.0,
) -> Metric:
    """A corpus-level measure ``Σ numerator / Σ denominator`` over samples, with its bootstrap standard error.

    Used for micro averages: sentence ordering's position accuracy and LCS (numerator the per-document count,
    denominator the sentences), dialogue parsing's micro P/R/F1 and per-turn means. The bootstrap resamples the
    scores in :func:`sample_order`, so the standard error does not depend on the order the samples ran in.
    ``empty`` is the value where the denominator sums to 0 (:func:`ratio_of_sums`).
    """

    def spread(scores: list[SampleScore]) -> float:
        ordered_numerator, ordered_denominator = _ordered_arrays(scores, numerator, denominator)
        return ratio_stderr(ordered_numerator, ordered_denominator, empty)

    return _metric_of(name, stat, lambda scores: ratio_of_sums(numerator(scores), denominator(scores), empty), spread)


def sample_order(scores: Sequence[SampleScore]) -> list[SampleScore]:
    """``scores`` sorted by sample id (stable, so the epochs of one sample keep their order): a fixed order whatever
    order the samples ran in."""
    return sorted(scores, key=lambda item: str(item.sample_id))


def _ordered_arrays(
    scores: Sequence[SampleScore], *arrays: Callable[[Sequence[SampleScore]], np.ndarray]
) -> tuple[np.ndarray, ...]:
    ordered = sample_order(scores)
    return tuple(array(ordered) for array in arrays)


# --------------------------------------------------------------------------------------- label measures


def label_pairs(scores: Sequence[SampleScore]) -> tuple[list[str], list[str]]:
    """``(gold labels, predicted labels)`` of label-choice scores: sample metadata ``gold`` and ``Score.answer``.

    Raises:
        ValueError: a sample without a ``gold`` in its metadata (names the sample).
    """
    gold: list[str] = []
    pred: list[str] = []
    for item in scores:
        metadata = item.sample_metadata or {}
        if "gold" not in metadata:
            raise ValueError(f"sample {item.sample_id}: sample metadata has no 'gold' label")
        gold.append(str(metadata["gold"]))
        answer = item.score.answer
        pred.append(str(answer) if answer is not None else INVALID_ANSWER)
    return gold, pred


def confusion(gold: Sequence[str], pred: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Labels (gold labels sorted, then labels only predicted, sorted) and the confusion matrix over them:
    :func:`confusion_of_counts` of the (gold, predicted) pairs.

    Raises:
        ValueError: ``gold`` and ``pred`` differ in length.
    """
    if len(gold) != len(pred):
        raise ValueError(f"confusion: {len(gold)} gold labels but {len(pred)} predicted labels")
    return confusion_of_counts(Counter(zip(gold, pred)))


def confusion_of_counts(counts: Mapping[tuple[str, str], int]) -> tuple[list[str], np.ndarray]:
    """Labels and confusion matrix of answers given as counts of their (gold, predicted) label pairs.

    Labels: the gold labels sorted, then the labels only predicted, sorted (pairs counted 0 name no label);
    ``matrix[i, j]`` (int, shape ``(L, L)``) counts answers with gold ``labels[i]`` predicted as ``labels[j]``: the
    matrix of scikit-learn's ``confusion_matrix(gold, pred, labels=labels)`` over the answers (tested).
    """
    present = [(pair, n) for pair, n in counts.items() if n]
    gold_labels = sorted({gold for (gold, _), _n in present})
    labels = gold_labels + sorted({pred for (_, pred), _n in present} - set(gold_labels))
    index = {label: i for i, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), dtype=np.intp)
    for (gold, pred), n in present:
        matrix[index[gold], index[pred]] += n
    return labels, matrix


WEIGHTED = ("precision", "recall", "f1")


def per_label_prf_of_confusion(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-label precision, recall, F1 and gold support of a stack of confusion matrices, ``(k, L, L)`` -> four
    arrays of shape ``(k, L)`` (rows gold, columns predicted, as :func:`confusion` counts them).

    Per label: precision ``tp / predicted``, recall ``tp / support``, F1 ``2·tp / (support + predicted)``, each 0
    where its denominator is 0: scikit-learn's ``precision_recall_fscore_support(average=None, zero_division=0)``
    over the same labels (tested). The one per-label computation of the suite: the weighted and macro measures and
    the per-class table are built on it; vectorised over matrices, so it also evaluates bootstrap resamples,
    whose confusion matrices are multinomial draws of the observed one.
    """
    tp = np.diagonal(matrices, axis1=-2, axis2=-1).astype(float)
    support = matrices.sum(axis=-1).astype(float)
    predicted = matrices.sum(axis=-2).astype(float)
    precision = np.divide(tp, predicted, out=np.zeros_like(tp), where=predicted > 0)
    recall = np.divide(tp, support, out=np.zeros_like(tp), where=support > 0)
    f1 = np.divide(2 * tp, support + predicted, out=np.zeros_like(tp), where=(support + predicted) > 0)
    return precision, recall, f1, support


def weighted_prf_of_confusion(matrices: np.ndarray) -> np.ndarray:
    """Weighted precision, recall and F1 (paper Appendix C, "weighted-Pre/Rec/F1") of a stack of confusion
    matrices, shape ``(k, L, L)`` -> ``(k, 3)``: :func:`per_label_prf_of_confusion` averaged with the gold support
    as weights, so a label only ever predicted (e.g. :data:`INVALID_ANSWER`) has weight 0 and lowers the recall of
    the gold class it replaced (scikit-learn's ``average="weighted", zero_division=0``; tested). 0 for an empty
    matrix.
    """
    precision, recall, f1, support = per_label_prf_of_confusion(matrices)
    total = support.sum(axis=1)
    weighted = np.stack([(support * v).sum(axis=1) for v in (precision, recall, f1)], axis=1)  # as np.average sums
    return np.divide(weighted, total[:, None], out=np.zeros_like(weighted), where=total[:, None] > 0)


def label_stderr(gold: Sequence[str], pred: Sequence[str], statistic: Callable[[np.ndarray], np.ndarray]) -> float:
    """Bootstrap standard error of a label statistic of the confusion matrix (``(k, L, L) -> (k,)``).

    Resampling answers with replacement draws the confusion matrix from a multinomial over the observed cells
    (:data:`BOOTSTRAP_RESAMPLES` draws, seed :data:`BOOTSTRAP_SEED`); 0.0 for fewer than two answers.
    """
    n = len(gold)
    if n < 2:
        return 0.0
    _labels, matrix = confusion(gold, pred)
    draws = _rng().multinomial(n, matrix.ravel() / n, size=BOOTSTRAP_RESAMPLES).reshape(-1, *matrix.shape)
    return float(np.std(statistic(draws)))


def per_class_prf(gold: Sequence[str], pred: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per-class precision, recall, F1 and support over the gold labels (``zero_division=0``).

    Returns ``{label: {"precision", "recall", "f1", "support"}}`` for every gold label, sorted: the values of
    scikit-learn's ``precision_recall_fscore_support(average=None, labels=<gold labels>, zero_division=0)``
    (tested), :func:`per_class_prf_of_confusion` of :func:`confusion`. The paper's Limitations ask for this
    class-level view.
    """
    if not gold:
        return {}
    return per_class_prf_of_confusion(*confusion(gold, pred))


def per_class_prf_of_confusion(labels: Sequence[str], matrix: np.ndarray) -> dict[str, dict[str, float]]:
    """:func:`per_class_prf` of answers given as a confusion matrix over ``labels`` (shape ``(L, L)``, rows gold,
    as :func:`confusion` and :func:`confusion_of_counts` count them), from :func:`per_label_prf_of_confusion`:
    one entry per label with gold support, in the order of ``labels``."""
    precision, recall, f1, support = (values[0] for values in per_label_prf_of_confusion(matrix[None]))
    return {
        label: {
            "precision": float(precision[i]),
            "recall": float(recall[i]),
            "f1": float(f1[i]),
            "support": float(support[i]),
        }
        for i, label in enumerate(labels)
        if support[i] > 0
    }


@metric
def per_class() -> Metric:
    """Per-class precision, recall and F1 of the gold labels: entries ``<precision|recall|f1>_<label>``."""

    def compute(scores: list[SampleScore]) -> Value:
        table = per_class_prf(*label_pairs(scores))
        return {f"{stat}_{label}": row[stat] for label, row in table.items() for stat in WEIGHTED}

    return compute
