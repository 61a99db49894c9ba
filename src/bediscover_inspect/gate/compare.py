"""``bediscover compare``: pair the samples of two log sets, check that everything asked for is there, test every
cell, and give a regression verdict.

    bediscover compare --baseline logs/base --candidate logs/cand [--tasks …] [--max-drop 1.0] [--alpha 0.05]
        [--measures headline|all] [--format table|markdown|json] [--out FILE] [--allow-mismatch] [--plot FILE]
        [--require-identical] [--max-missing 0] [--allow-untested]

Steps (each a function below): read both sides (:func:`~.pairing.read_side`), pair their runs
(:func:`~.pairing.pair_runs`) and refuse unlike runs, account for every sample either run of a pair was asked to
run (:func:`account`), group the run pairs into cell families (one per task, variant and reasoning mode, seeds
pooled), test each cell (:func:`test_cell`), then correct the family of p-values with Holm's method and give the
verdicts (:func:`give_verdicts`).

Pairing. Each side is a log directory (the successful suite logs, one per run, chosen as
:func:`bediscover_inspect.evallogs.scores.read_log_scores` chooses them) or one log file. A run is (task, variant,
reasoning mode, seed) — the variant being the task parameters other than dataset selectors
(:func:`~bediscover_inspect.evallogs.scores.variant_of`). Runs are paired on that key. Within a run pair the samples
expected are those either log was asked to run (``log.eval.dataset.sample_ids`` × ``log.eval.config.epochs``),
paired on (sample id, epoch): a candidate run on fewer samples or epochs than its baseline is incomplete.

Completeness (exit 3, one line per missing thing). A run on one side only; a log that is unreadable, or ended with
status ``error``, ``cancelled`` or ``started`` with no successful log of its run; two models or two generate
settings with a log of the same run in one directory (never chosen between); a score value (scalar or in a value
dict) that is NaN or infinite; and more than ``max_missing`` samples (default 0) that either side was asked to run
and that are missing, not run (absent from a side's sample list), errored or unscored on a side. A value that is
``None`` (token counts the provider did not report) is not measured, not a problem: a note names the run, the side
and the keys (:func:`unmeasured_notes`).

Refusal (exit 2). Unlike runs are not compared (a :class:`MismatchError` naming the difference): another task
version, other data (a file whose SHA-1 in the task metadata differs), another variant (prompt, context, mode,
subset …) of the same task, another sample set (a paired sample whose gold differs, or no sample in common).
``allow_mismatch`` compares them anyway and lists each difference, with the two logs paired, as a warning in the
output; a refusal also lists what makes either side incomplete.

Cells. A cell is (run, measure, group): group ``all`` and each dataset (DISRPT corpus); with ``measures="all"``
also the secondary measures and the DISRPT framework / language and ToT category groups. Which measures, their
formulas and their direction come from the measure catalog (:mod:`bediscover_inspect.measures`: each scorer's
``headline``, ``secondary`` and ``groups``; each measure's formula and ``per_sample`` kind). Tests
(:mod:`.paired_stats`):

* per-sample 0/1 measures (accuracy, PMR, ToT and DISRPT accuracy; the temporal relations' micro-F1, which
  equals their accuracy with one label per pair): McNemar's exact test on the discordant pairs;
* means of per-sample numbers (Kendall τ, skip-bigram): the paired t-test;
* ratios of sums and label measures (micro position accuracy, LCS, dialogue-parsing micro P/R/F1, weighted
  P/R/F1): the studentised difference with its jackknife standard error (``jackknife t``).

Every cell's interval is ``Δ ± t · se`` at ``1 - alpha`` with the jackknife standard error, kept within the largest
difference the measure's range allows; it is unadjusted and descriptive: the verdict follows the Holm-corrected
p-value of the cell's test, and a note names the cells whose interval excludes 0 without a significant verdict
(:func:`interval_notes`). Seeds: pairs are formed within a seed; each (sample, seed) pair is one row. The p-values
of all cells tested form one family, corrected with Holm's method.

Verdicts (``candidate - baseline`` in points, 1 point = 0.01 of a 0–1 measure, signed so that negative is worse
for measures where lower is better): ``regressed`` (Holm-significant and worse by more than ``max_drop`` points),
``small drop`` (Holm-significant, worse by at most ``max_drop``), ``improved`` (Holm-significant and better),
``no significant change`` (also a cell too small to decide whose paired values are all identical), ``too few
samples`` (some paired value changed, and the cell cannot decide: fewer than :data:`MIN_PAIRS` pairs, or a 0/1
measure whose baseline-good pairs, all turning bad, could not reach Holm's first threshold ``alpha / cells``:
:func:`can_decide`).

Causes. For every cell, of the paired samples that got worse, how many the candidate newly lost to a reply cut
off at the budget or with its text only in the reasoning (:func:`newly_lost`; the per-sample ``cut_off`` and
``reasoning_only`` of :mod:`bediscover_inspect.causes`). A regressed cell whose drop they explain is still a
regression of the configuration under test (exit 1), but the verdict line names them; a ``max_tokens`` that
differs between the sides is noted (:func:`budget_notes`).

Exit codes (:meth:`Comparison.exit_code`): 3 incomplete; else 1 when a cell regressed (or, with
``require_identical``, a paired sample's score changed); else 4 when a cell has too few samples (unless
``allow_untested``); else 0. 2 is a usage error or a refusal (raised as :class:`CompareError`).

Reading and pairing the logs live in :mod:`.pairing`, the output and command line in :mod:`.compare_output`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bediscover_inspect._inspect_compat import run_coroutine
from bediscover_inspect.measures import CATALOG, SCORERS, Measure

from . import paired_stats as ps
from .columns import MISSING, NONE, OTHER, CellScores, Part, RunSamples, Scored
from .pairing import (
    CompareError,
    MismatchError,
    Pairing,
    Run,
    RunPair,
    Side,
    pair_runs,
    read_side_async,
    run_name,
)

MIN_PAIRS = 10
"""Fewest paired samples (over all seeds) for a cell to get a verdict other than ``too few samples``."""

REGRESSED, SMALL_DROP, IMPROVED, NO_CHANGE, TOO_FEW = (
    "regressed",
    "small drop",
    "improved",
    "no significant change",
    "too few samples",
)
VERDICT_ORDER = (REGRESSED, SMALL_DROP, TOO_FEW, NO_CHANGE, IMPROVED)
"""Verdicts, worst first (the sort order of the output)."""

EXIT_PASSED, EXIT_REGRESSED, EXIT_USAGE, EXIT_INCOMPLETE, EXIT_UNTESTED = 0, 1, 2, 3, 4
"""Exit codes of ``bediscover compare`` (module docstring)."""

TESTS = {
    "binary": "McNemar exact",
    "mean": "paired t",
    "ratio": "jackknife t",
    "label": "jackknife t",
}
"""The test of each kind of measure (:attr:`bediscover_inspect.measures.Measure.per_sample`), as the output names
it."""

FORMATS = ("table", "markdown", "json")
MEASURE_SETS = ("headline", "all")
SIDES = ("baseline", "candidate")
SAMPLE_PROBLEMS = ("missing", "errored", "unscored", "not run")
"""What can be wrong with a sample expected of a run (tolerated up to ``max_missing``): in its log's sample list and
absent from its results (``missing``), ended in error, unscored, or not in its log's sample list though the other
run's list has it (``not run``). A non-finite score value is never tolerated."""

NOT_RUN_CAUSES = "not in its log's sample list: --limit, --sample-id, a dataset selector, or removed from the log"


# --------------------------------------------------------------------------------------- cells


@dataclass
class Cell:
    """One tested cell. Values are measure units (0–1); ``delta``, ``low``, ``high``, ``se`` and ``max_drop``
    points. ``newly_worse``, ``newly_cut_off``, ``newly_reasoning_only``: the cause counts of :func:`newly_lost`."""

    run: str
    task: str
    variant: str
    reasoning: str
    scorer: str
    measure: str
    group_key: str
    group: str
    headline: bool
    higher_is_better: bool
    test: str
    pairs: int
    seeds: list[int]
    baseline: float
    candidate: float
    delta: float
    low: float
    high: float
    se: float
    worse: int | None
    better: int | None
    could_worsen: int | None
    p_value: float
    identical: bool
    tested: bool = True
    p_holm: float = float("nan")
    verdict: str = NO_CHANGE
    scorer_named: bool = False
    newly_worse: int = 0
    newly_cut_off: int = 0
    newly_reasoning_only: int = 0

    @property
    def shown_measure(self) -> str:
        """The measure as the output names it: ``<scorer>/<measure>`` where another scorer of the run reports a
        measure of the same name (temporal reasoning's ``relation_scorer/invalid`` and ``tot_scorer/invalid``),
        else the measure's name."""
        return f"{self.scorer}/{self.measure}" if self.scorer_named else self.measure

    @property
    def name(self) -> str:
        group = (
            "all"
            if self.group_key == "all"
            else (self.group if self.group_key == "dataset" else f"{self.group_key}={self.group}")
        )
        return f"{self.run} {self.shown_measure} [{group}]"


@dataclass
class Change:
    """A paired sample whose score changed (``require_identical``)."""

    run: str
    scorer: str
    dataset: str
    sample_id: str
    epoch: int
    seed: int
    differences: dict[str, list[Any]]


@dataclass
class Coverage:
    """What was compared (:func:`account`).

    Attributes:
        run_pairs: run pairs compared.
        asked: samples (× epochs) either run of a pair was asked to run, summed over run pairs.
        paired: of those, the samples usable on both sides (the rows of the cells).
        planned: per side, samples its compared runs were asked to run.
        problems: per side, per problem (:data:`SAMPLE_PROBLEMS` and ``non-finite``), the samples affected.
        lines: one line per (side, run, problem): count, total and example sample ids.
    """

    run_pairs: int = 0
    asked: int = 0
    paired: int = 0
    planned: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SIDES, 0))
    problems: dict[str, dict[str, int]] = field(
        default_factory=lambda: {side: dict.fromkeys((*SAMPLE_PROBLEMS, "non-finite"), 0) for side in SIDES}
    )
    lines: dict[str, list[str]] = field(default_factory=lambda: {"tolerable": [], "non-finite": []})

    @property
    def unusable(self) -> int:
        """Samples asked of either side and not paired."""
        return self.asked - self.paired


@dataclass
class Comparison:
    """Everything ``compare`` found; rendered by :func:`~.compare_output.render`."""

    baseline: str
    candidate: str
    cells: list[Cell]
    pairing: Pairing
    coverage: Coverage
    incomplete: list[str]
    warnings: list[str]
    notes: list[str]
    changes: list[Change]
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def regressed(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.verdict == REGRESSED]

    @property
    def untested(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.verdict == TOO_FEW]

    def exit_code(self, require_identical: bool | None = None) -> int:
        """:data:`EXIT_INCOMPLETE` when anything asked for is missing; else :data:`EXIT_REGRESSED` when a cell
        regressed (or, with ``require_identical``, default the comparison's setting, a score changed); else
        :data:`EXIT_UNTESTED` when a cell has too few samples and untested cells are not allowed; else 0."""
        if require_identical is None:
            require_identical = bool(self.settings.get("require_identical"))
        if self.incomplete:
            return EXIT_INCOMPLETE
        if self.regressed or (require_identical and self.changes):
            return EXIT_REGRESSED
        if self.untested and not self.settings.get("allow_untested"):
            return EXIT_UNTESTED
        return EXIT_PASSED


Rows = CellScores | Sequence[Scored]
"""One side's scores of a cell, pair by pair: columns of the runs (:class:`~.columns.CellScores`) or
:class:`~.columns.Scored` rows."""


def _cell(rows: Rows) -> CellScores:
    return rows if isinstance(rows, CellScores) else CellScores.of_rows(rows)


def _per_sample(measure: Measure, rows: CellScores) -> tuple[np.ndarray, np.ndarray | None]:
    """(values or numerators, denominators) of one side (the catalog's formulas)."""
    try:
        numbers = measure.numbers_of(rows)
        return numbers, measure.denominators_of(rows) if measure.per_sample == "ratio" else None
    except ValueError as exc:
        raise CompareError(f"measure {measure.name}: {exc}") from None


def _observed(measure: Measure, rows: CellScores) -> float:
    """The measure over one side's rows, computed by the catalog (:meth:`Measure.compute_of`), as the log's
    metric."""
    try:
        if measure.kind == "label":
            return measure.compute_of(rows, rows.gold, rows.answers)
        return measure.compute_of(rows)
    except ValueError as exc:
        raise CompareError(f"measure {measure.name}: {exc}") from None


@dataclass
class _Sides:
    """One cell's two sides as the tests need them: the observed measures, each with every row left out in turn
    (``None`` for fewer than 2 rows), the per-sample 0/1 values of a binary measure, and whether every paired
    value is identical."""

    value_a: float
    value_b: float
    loo_a: np.ndarray | None
    loo_b: np.ndarray | None
    binary: tuple[np.ndarray, np.ndarray] | None
    identical: bool


def _label_sides(measure: Measure, base: CellScores, cand: CellScores) -> _Sides:
    """:func:`_sides` of a label measure: the labels coded as integers, left out in turn from the confusions."""
    n = len(base)
    gold_a, answers_a, answers_b = base.gold, base.answers, cand.answers
    labels = sorted(set(gold_a) | set(answers_a) | set(answers_b))
    code = {label: i for i, label in enumerate(labels)}
    gold = np.array([code[g] for g in gold_a])
    pred_a, pred_b = np.array([code[a] for a in answers_a]), np.array([code[a] for a in answers_b])
    statistic = measure.of_confusions
    return _Sides(
        _observed(measure, base),
        _observed(measure, cand),
        ps.leave_one_out_labels(gold, pred_a, len(labels), statistic) if n > 1 else None,
        ps.leave_one_out_labels(gold, pred_b, len(labels), statistic) if n > 1 else None,
        None,
        bool(np.array_equal(pred_a, pred_b)),
    )


def _ratio_sides(measure: Measure, base: CellScores, cand: CellScores) -> _Sides:
    """:func:`_sides` of a ratio of sums: numerators and denominators left out in turn."""
    n = len(base)
    values_a, den_a = _per_sample(measure, base)
    values_b, den_b = _per_sample(measure, cand)
    assert den_a is not None and den_b is not None
    return _Sides(
        _observed(measure, base),
        _observed(measure, cand),
        ps.leave_one_out_ratio(values_a, den_a) if n > 1 else None,
        ps.leave_one_out_ratio(values_b, den_b) if n > 1 else None,
        None,
        bool(np.array_equal(values_a, values_b) and np.array_equal(den_a, den_b)),
    )


def _mean_sides(measure: Measure, base: CellScores, cand: CellScores) -> _Sides:
    """:func:`_sides` of a mean of per-sample values (0/1 or numbers), each value left out in turn."""
    n = len(base)
    values_a, _ = _per_sample(measure, base)
    values_b, _ = _per_sample(measure, cand)
    return _Sides(
        _observed(measure, base),
        _observed(measure, cand),
        ps.leave_one_out_mean(values_a) if n > 1 else None,
        ps.leave_one_out_mean(values_b) if n > 1 else None,
        (values_a, values_b) if measure.per_sample == "binary" else None,
        bool(np.array_equal(values_a, values_b)),
    )


def _sides(measure: Measure, base: CellScores, cand: CellScores) -> _Sides:
    """One cell's two sides (:class:`_Sides`) by the measure's per-sample kind."""
    if measure.per_sample == "label":
        return _label_sides(measure, base, cand)
    if measure.per_sample == "ratio":
        return _ratio_sides(measure, base, cand)
    return _mean_sides(measure, base, cand)


def measure_value(measure: Measure, rows: Rows) -> float:
    """The value of ``measure`` over one side's scores of a cell, measure units (as the cells' ``baseline`` and
    ``candidate``); the test that ties it to the metric each log reports is ``tests/gate/test_one_truth.py``."""
    return _sides(measure, _cell(rows), _cell(rows)).value_a


def test_cell(measure: Measure, base: Rows, cand: Rows, alpha: float) -> dict[str, Any]:
    """Test one cell: observed values, the studentised interval of the difference and the p-value.

    Returns:
        ``baseline``, ``candidate`` (measure units), ``delta``, ``low``, ``high``, ``se`` (points, signed so that
        negative is worse; the interval ``Δ ± t · se`` is kept within the largest difference the measure's range
        allows, ±100 points for a 0–1 measure, :attr:`~bediscover_inspect.measures.Measure.bounds`), ``test`` (:data:`TESTS`), ``worse``, ``better`` (discordant pairs of a binary measure,
        else ``None``), ``p_value`` (``nan`` for fewer than 2 pairs) and ``identical`` (every paired value equal).
    """
    sides = _sides(measure, _cell(base), _cell(cand))
    sign = 100.0 if measure.higher_is_better else -100.0
    delta = sides.value_b - sides.value_a
    out: dict[str, Any] = {
        "baseline": sides.value_a,
        "candidate": sides.value_b,
        "test": TESTS[measure.per_sample],
        "worse": None,
        "better": None,
        "could_worsen": None,
        "identical": sides.identical,
    }
    undefined = math.isnan(sides.value_a) or math.isnan(sides.value_b)  # a rate of nothing on a side: no test
    if sides.loo_a is None or sides.loo_b is None or undefined:
        return out | {"delta": sign * delta, "low": math.nan, "high": math.nan, "se": math.nan, "p_value": math.nan}
    result = ps.studentised_test(delta, sides.loo_a, sides.loo_b, alpha)
    low, high = sorted((sign * result.low, sign * result.high))
    reach = 100.0 * (measure.bounds[1] - measure.bounds[0])  # no difference of two values in range is larger
    low, high = max(low, -reach), min(high, reach)
    out |= {"delta": sign * delta, "low": low, "high": high, "se": 100.0 * result.se, "p_value": result.p_value}
    if sides.binary is not None:
        bin_a, bin_b = sides.binary
        good_a, good_b = (bin_a > 0.5, bin_b > 0.5) if measure.higher_is_better else (bin_a < 0.5, bin_b < 0.5)
        worse, better = int(np.sum(good_a & ~good_b)), int(np.sum(~good_a & good_b))
        out |= {
            "worse": worse,
            "better": better,
            "could_worsen": int(np.sum(good_a)),
            "p_value": ps.mcnemar_exact(worse, better),
        }
    return out


def newly_lost(measure: Measure, base: Rows, cand: Rows) -> dict[str, int]:
    """Why a cell's paired samples got worse: ``newly_worse`` (samples worse on the candidate: a 0/1 or mean measure
    whose value moved the wrong way, a ratio whose numerator did — fewer true positives —, a label measure whose
    answer was right and is not), and of those ``newly_cut_off`` and ``newly_reasoning_only`` (the candidate's
    ``cut_off`` / ``reasoning_only`` value above the baseline's: :mod:`bediscover_inspect.causes`; a log without
    them counts 0)."""
    base, cand = _cell(base), _cell(cand)
    if measure.per_sample == "label":
        worse = np.array(
            [a == g and b != h for a, g, b, h in zip(base.answers, base.gold, cand.answers, cand.gold, strict=True)],
            dtype=bool,
        )
    else:
        values_a, values_b = _per_sample(measure, base)[0], _per_sample(measure, cand)[0]
        moved = values_b - values_a if measure.higher_is_better else values_a - values_b
        worse = np.nan_to_num(moved) < 0

    def rose(key: str) -> int:
        return int(np.sum(worse & (cand.causes(key) > base.causes(key))))

    return {
        "newly_worse": int(np.sum(worse)),
        "newly_cut_off": rose("cut_off"),
        "newly_reasoning_only": rose("reasoning_only"),
    }


def budget_notes(a: Run, b: Run) -> list[str]:
    """A note when the ``max_tokens`` sent differs between a run pair's logs: the cut-off rates of the two sides
    are then the budgets' as much as the models'."""
    budgets = [run.generate.get("max_tokens") for run in (a, b)]
    if budgets[0] == budgets[1]:
        return []
    shown = ["not set" if budget is None else str(budget) for budget in budgets]
    return [
        f"{run_name(a)}: the budget differs, max_tokens {shown[0]} (baseline) vs {shown[1]} (candidate): a change "
        "in answers cut off at the budget (cut_off_rate) is the budget's as much as the model's"
    ]


def can_decide(cell: Cell, threshold: float) -> bool:
    """Whether a cell can name a regression at Holm's first threshold (``alpha`` over the cell count): it has at
    least :data:`MIN_PAIRS` pairs, and for McNemar's test even every baseline-good pair turning bad
    (``could_worsen`` discordant pairs, smallest p-value ``2 · 0.5 ** could_worsen``) would reach ``threshold``
    (Tarone's screening of discrete tests). A cell whose measure is undefined on a side (a rate of nothing, NaN)
    cannot decide."""
    if cell.pairs < MIN_PAIRS or math.isnan(cell.baseline) or math.isnan(cell.candidate):
        return False
    return cell.could_worsen is None or ps.min_mcnemar_p(cell.could_worsen) < threshold


def _measures_of(scorer: str, measures: str) -> list[str]:
    """The catalog's headline measures of ``scorer`` (and, for ``measures="all"``, its secondary ones)."""
    names = list(SCORERS[scorer].headline)
    if measures == "all":
        names += [m for m in SCORERS[scorer].secondary if m not in names]
    return names


def _may_differ(a: RunSamples, b: RunSamples, keys: Sequence[tuple[str, int]]) -> np.ndarray:
    """Per key (present on both sides), whether its scores may differ: another set of scorers, another answer, or a
    value entry that is not equal on both sides (``None`` and absent are equal, as ``dict.get`` reads them; a value
    that is not a number is always checked)."""
    rows_a = np.array([a.row(key) for key in keys], dtype=np.int64)
    rows_b = np.array([b.row(key) for key in keys], dtype=np.int64)
    differ = np.array([a.scorer_names(i) != b.scorer_names(j) for i, j in zip(rows_a, rows_b, strict=True)], dtype=bool)
    for scorer in set(a.scorers) & set(b.scorers):
        col_a, col_b = a.scorers[scorer], b.scorers[scorer]
        pos_a, pos_b = col_a.position_of[rows_a], col_b.position_of[rows_b]
        both = (pos_a >= 0) & (pos_b >= 0)
        pos_a, pos_b = pos_a[both], pos_b[both]
        changed = np.array(
            [col_a.answers[i] != col_b.answers[j] for i, j in zip(pos_a, pos_b, strict=True)], dtype=bool
        )
        for key in set(col_a.keys) | set(col_b.keys):
            (num_a, kind_a), (num_b, kind_b) = (
                _entries(col, key, pos) for col, pos in ((col_a, pos_a), (col_b, pos_b))
            )
            unset_a, unset_b = kind_a <= NONE, kind_b <= NONE
            other = (kind_a == OTHER) | (kind_b == OTHER)
            changed |= ~((unset_a & unset_b) | (~unset_a & ~unset_b & ~other & (num_a == num_b)))
        differ[np.flatnonzero(both)[changed]] = True
    return differ


def _entries(columns: Any, key: str, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(numbers, type codes) of ``key`` at ``positions`` of one scorer's columns; absent everywhere when the run
    never logged the key."""
    column = columns.keys.get(key)
    if column is None:
        return np.full(len(positions), math.nan), np.full(len(positions), MISSING, dtype=np.int8)
    return columns.numbers[column][positions], columns.kinds[column][positions]


def _score_differences(sa: Scored | None, sb: Scored | None) -> dict[str, list[Any]]:
    """How one scorer's scores of a paired sample differ: ``score`` (which side has one) when a side has none,
    else each value entry (``dict.get``: absent and ``None`` are equal) and the answer that differ, as
    ``[baseline, candidate]``."""
    if sa is None or sb is None:
        return {"score": [sa is not None, sb is not None]}
    differences: dict[str, list[Any]] = {}
    for name in sorted(set(sa.value) | set(sb.value)):
        if sa.value.get(name) != sb.value.get(name):
            differences[name] = [sa.value.get(name), sb.value.get(name)]
    if sa.answer != sb.answer:
        differences["answer"] = [sa.answer, sb.answer]
    return differences


def _changes(pair: RunPair, keys: Sequence[tuple[str, int]], label: str) -> list[Change]:
    """Each (paired sample, scorer) of ``keys`` whose score changed, in key then scorer order."""
    out = []
    may_differ = _may_differ(pair.baseline.samples, pair.candidate.samples, keys)
    for key in (key for key, differ in zip(keys, may_differ, strict=True) if differ):
        a, b = pair.baseline.samples[key], pair.candidate.samples[key]
        for scorer in sorted(set(a.scores) | set(b.scores)):
            differences = _score_differences(a.scores.get(scorer), b.scores.get(scorer))
            if differences:
                out.append(
                    Change(label, scorer, a.groups.get("dataset", ""), a.id, a.epoch, pair.baseline.seed, differences)
                )
    return out


# --------------------------------------------------------------------------------------- steps


def check_options(max_drop: float, alpha: float, measures: str, max_missing: int) -> None:
    """Raises :class:`CompareError` unless ``0 <= max_drop < 100`` (points: NaN, infinity or 100 and more would
    call every significant drop small, so the gate could never fail; every comparison with NaN is false),
    ``alpha`` a number in ``(0, 1)``, ``measures`` one of :data:`MEASURE_SETS` and ``max_missing`` a whole number
    ``>= 0``. The message names each bad option and its value."""
    bad = []
    if not (math.isfinite(max_drop) and 0 <= max_drop < 100):
        bad.append(f"--max-drop must be a number of points in [0, 100), got {max_drop}")
    if not (math.isfinite(alpha) and 0 < alpha < 1):
        bad.append(f"--alpha must be a number in (0, 1), got {alpha}")
    if measures not in MEASURE_SETS:
        bad.append(f"--measures must be one of {', '.join(MEASURE_SETS)}, got {measures!r}")
    if not (isinstance(max_missing, int) and max_missing >= 0):
        bad.append(f"--max-missing must be a whole number >= 0, got {max_missing}")
    if bad:
        raise CompareError("; ".join(bad))


def refuse_unlike(pairing: Pairing, allow_mismatch: bool, incomplete: Sequence[str] = ()) -> list[str]:
    """The warnings of unlike run pairs compared with ``allow_mismatch``.

    Raises:
        MismatchError: unlike run pairs (:func:`~.pairing.pair_runs`) without ``allow_mismatch``; the message also
            lists what makes the sides ``incomplete`` (competing logs of a run, unreadable logs …), which the
            refusal would otherwise hide.
    """
    if pairing.problems and not allow_mismatch:
        raise MismatchError(
            "refusing to compare unlike runs:\n  "
            + "\n  ".join(pairing.problems)
            + "\n(--allow-mismatch compares them anyway)"
            + "".join(f"\nalso incomplete: {line}" for line in incomplete)
        )
    return [f"compared despite a mismatch (--allow-mismatch): {p}" for p in pairing.problems]


def _problem_of(key: tuple[str, int], run: Run) -> str | None:
    row = run.samples.row(key)
    if row is None:
        return "missing" if key in run.planned else "not run"
    if run.samples.error(row) is not None:
        return "errored"
    if run.samples.non_finite(row):
        return "non-finite"
    return None if run.samples.scorer_names(row) else "unscored"


def _example(key: tuple[str, int], run: Run, problem: str) -> str:
    """A sample as a problem line names it: its id, its epoch from 2 on, and a non-finite score's values."""
    name = key[0] if key[1] == 1 else f"{key[0]} (epoch {key[1]})"
    if problem != "non-finite":
        return name
    return f"{name}: {', '.join(run.samples.non_finite(run.samples.row(key) or 0)[:2])}"


def _problem_line(side: str, run: Run, problem: str, names: Sequence[str], total: int) -> str:
    what = {
        "non-finite": "with a NaN or infinite score",
        "not run": f"not run ({NOT_RUN_CAUSES})",
    }.get(problem, problem)
    example = ("; " if problem == "non-finite" else ", ").join(names[:3]) + (" …" if len(names) > 3 else "")
    return f"{side} {run_name(run)}: {len(names)} of {total} samples {what} ({example}) in {run.path}"


def _scorer_missing(key: tuple[str, int], run: Run, other: Run) -> str | None:
    """``"unscored"`` when the other side scored this sample with a catalog scorer (:data:`SCORERS`) that this
    side lacks: a scorer renamed or dropped would otherwise leave its cells out of the comparison unannounced."""
    row, other_row = run.samples.row(key), other.samples.row(key)
    if row is None or other_row is None:
        return None
    ours = run.samples.scorer_names(row)
    return "unscored" if any(s in SCORERS and s not in ours for s in other.samples.scorer_names(other_row)) else None


def _side_problems(key_list: Sequence[tuple[str, int]], run: Run, other: Run) -> dict[str, list[tuple[str, int]]]:
    """The keys of ``key_list`` that ``run`` cannot use, by problem (:func:`_problem_of`, :func:`_scorer_missing`),
    in key order."""
    found: dict[str, list[tuple[str, int]]] = {}
    for key in key_list:
        problem = _problem_of(key, run) or _scorer_missing(key, run, other)
        if problem is not None:
            found.setdefault(problem, []).append(key)
    return found


def _count_problems(
    coverage: Coverage, side: str, run: Run, found: dict[str, list[tuple[str, int]]], total: int
) -> None:
    """Add one side's problems of a run pair (:func:`_side_problems`, of ``total`` samples asked) to ``coverage``:
    counts, and a line per problem."""
    for problem, keys in found.items():
        names = [_example(key, run, problem) for key in keys]
        coverage.problems[side][problem] += len(names)
        line = _problem_line(side, run, problem, names, total)
        coverage.lines["non-finite" if problem == "non-finite" else "tolerable"].append(line)


def account(pairs: Sequence[RunPair]) -> tuple[Coverage, dict[int, list[tuple[str, int]]]]:
    """Every sample either run of each pair was asked to run, sorted into usable and not.

    Returns:
        The :class:`Coverage` (one line per side, run and problem) and, per run pair (index in ``pairs``), the
        sample keys usable on both sides: in both logs' sample lists, present, not errored, scored and every
        score value finite.
    """
    coverage = Coverage(run_pairs=len(pairs))
    usable: dict[int, list[tuple[str, int]]] = {}
    for index, pair in enumerate(pairs):
        coverage.asked += len(pair.keys)
        bad: set[tuple[str, int]] = set()
        for side, run, other in (
            ("baseline", pair.baseline, pair.candidate),
            ("candidate", pair.candidate, pair.baseline),
        ):
            coverage.planned[side] += len(run.planned)
            found = _side_problems(pair.keys, run, other)
            _count_problems(coverage, side, run, found, len(pair.keys))
            bad.update(key for keys in found.values() for key in keys)
        usable[index] = [key for key in pair.keys if key not in bad]
        coverage.paired += len(usable[index])
    return coverage, usable


def unmeasured_notes(pairs: Sequence[RunPair], usable: dict[int, list[tuple[str, int]]]) -> list[str]:
    """One note per run pair whose paired samples hold values not measured (``None``: token counts the provider
    did not report, :mod:`bediscover_inspect.tokens`) on one side or both, naming the keys: such a value is stated,
    never tested nor counted as a sample problem."""
    notes = []
    for index, pair in enumerate(pairs):
        found: dict[str, tuple[int, set[str]]] = {}
        for side, run in zip(SIDES, (pair.baseline, pair.candidate)):
            rows = np.array([run.samples.row(key) for key in usable.get(index, [])], dtype=np.int64)
            count, keys = _unmeasured(run.samples, rows)
            if count:
                found[side] = (count, keys)
        if found:
            sides = "both sides" if len(found) == 2 else f"the {next(iter(found))} side only"
            detail = "; ".join(f"{side} {n} of {len(usable[index])} samples" for side, (n, _) in found.items())
            names = ", ".join(sorted(set().union(*(k for _, k in found.values()))))
            notes.append(
                f"{run_name(pair.baseline)}: {names} not reported by the provider on {sides} ({detail}): "
                "not measured there, not compared"
            )
    return notes


def _unmeasured(samples: RunSamples, rows: np.ndarray) -> tuple[int, set[str]]:
    """Of ``rows``, how many hold a value that is ``None`` under some scorer, and the keys of those values."""
    flagged = np.zeros(len(rows), dtype=bool)
    names: set[str] = set()
    for columns in samples.scorers.values():
        positions = columns.position_of[rows]
        present = positions >= 0
        for key, column in columns.keys.items():
            none = np.zeros(len(rows), dtype=bool)
            none[present] = columns.kinds[column][positions[present]] == NONE
            if none.any():
                flagged |= none
                names.add(key)
    return int(flagged.sum()), names


def incompleteness(sides: Sequence[Side], pairing: Pairing, coverage: Coverage, max_missing: int) -> list[str]:
    """One line per thing missing from what was asked (module docstring); empty when the comparison is complete.
    Samples missing, errored or unscored count against ``max_missing``; a non-finite score value never passes."""
    lines = [line for side in sides for line in side.incomplete] + list(pairing.unpaired)
    lines += coverage.lines["non-finite"]
    if coverage.unusable - sum(coverage.problems[side]["non-finite"] for side in SIDES) > max_missing:
        lines += coverage.lines["tolerable"]
    return lines


@dataclass
class Segment:
    """The usable pairs of one run pair of a family: its seed, both runs' samples and each pair's row in them."""

    seed: int
    baseline: RunSamples
    candidate: RunSamples
    rows_a: np.ndarray
    rows_b: np.ndarray


@dataclass
class Family:
    """The pairs of one (task, variant, reasoning mode), seeds pooled: one :class:`Segment` per run pair."""

    label: str
    task: str
    variant: str
    reasoning: str
    segments: list[Segment]


def _rows(samples: RunSamples, keys: Sequence[tuple[str, int]]) -> np.ndarray:
    return np.array([samples.row(key) for key in keys], dtype=np.int64)


def families_of(pairs: Sequence[RunPair], usable: dict[int, list[tuple[str, int]]]) -> list[Family]:
    """One :class:`Family` per (task, variant, reasoning mode), its run pairs' usable pairs in seed order; the
    label names the variant when a task has several."""
    grouped: dict[tuple[str, str, str], list[int]] = {}
    for index, pair in enumerate(pairs):
        grouped.setdefault((pair.baseline.task, pair.baseline.variant, pair.baseline.reasoning), []).append(index)
    variants_per_task: dict[str, set[str]] = {}
    for task, variant, _ in grouped:
        variants_per_task.setdefault(task, set()).add(variant)
    out = []
    for (task, variant, reasoning), indices in grouped.items():
        first = pairs[indices[0]]
        label = first.label + (f" [{variant}]" if len(variants_per_task[task]) > 1 else "")
        segments = [
            Segment(
                pairs[i].baseline.seed,
                pairs[i].baseline.samples,
                pairs[i].candidate.samples,
                _rows(pairs[i].baseline.samples, usable[i]),
                _rows(pairs[i].candidate.samples, usable[i]),
            )
            for i in sorted(indices, key=lambda i: pairs[i].baseline.seed)
        ]
        out.append(Family(label, task, variant, reasoning, segments))
    return out


def _scored_both(segment: Segment, scorer: str) -> np.ndarray:
    """Which of the segment's pairs hold a dict-valued score of ``scorer`` on both sides."""
    a, b = segment.baseline.scorers.get(scorer), segment.candidate.scorers.get(scorer)
    if a is None or b is None:
        return np.zeros(len(segment.rows_a), dtype=bool)
    return (a.position_of[segment.rows_a] >= 0) & (b.position_of[segment.rows_b] >= 0)


def _groups(family: Family, scorer: str, group_key: str) -> dict[str, list[tuple[Segment, np.ndarray]]]:
    """The family's pairs scored by ``scorer`` on both sides, by group (``all``, or the baseline sample's
    ``group_key``; pairs without one left out): per group, (segment, indices of its pairs), in family order."""
    groups: dict[str, list[tuple[Segment, np.ndarray]]] = {}
    for segment in family.segments:
        scored = np.flatnonzero(_scored_both(segment, scorer))
        if group_key == "all":
            found = {"all": list(scored)} if len(scored) else {}
        else:
            found = {}
            for i in scored:
                group = segment.baseline.groups(int(segment.rows_a[i])).get(group_key)
                if group is not None:
                    found.setdefault(group, []).append(i)
        for group, indices in found.items():
            groups.setdefault(group, []).append((segment, np.array(indices, dtype=np.int64)))
    return groups


def _cell_sides(scorer: str, members: Sequence[tuple[Segment, np.ndarray]]) -> tuple[CellScores, CellScores]:
    """The baseline's and the candidate's scores of a cell's pairs (:func:`_groups`)."""
    sides = []
    for run, rows in (("baseline", "rows_a"), ("candidate", "rows_b")):
        parts = []
        for segment, indices in members:
            columns = getattr(segment, run).scorers[scorer]
            parts.append(Part(columns, columns.position_of[getattr(segment, rows)[indices]]))
        sides.append(CellScores(parts))
    return sides[0], sides[1]


def _family_scorers(family: Family) -> list[str]:
    """The catalog's scorers (sorted) that score some pair of the family on both sides."""
    return sorted(
        {
            s
            for segment in family.segments
            for s in set(segment.baseline.scorers) & set(segment.candidate.scorers)
            if s in SCORERS and _scored_both(segment, s).any()
        }
    )


def _group_keys(scorer: str, measure: str, measures: str) -> list[str]:
    """The groupings of a measure's cells: ``all``, then the catalog's first group key (``measures="all"``:
    every group key) of the measure."""
    return ["all", *SCORERS[scorer].group_keys(measure)[: None if measures == "all" else 1]]


def _test_group(
    family: Family,
    scorer: str,
    name: str,
    headline: bool,
    grouping: tuple[str, str],
    members: Sequence[tuple[Segment, np.ndarray]],
    alpha: float,
) -> Cell:
    """The cell of measure ``name`` of ``scorer`` over one group's pairs ``members`` (``grouping``: group key,
    group), tested (:func:`test_cell`) and its causes counted (:func:`newly_lost`)."""
    measure = CATALOG[name]
    base, cand = _cell_sides(scorer, members)
    result = test_cell(measure, base, cand, alpha) | newly_lost(measure, base, cand)
    return Cell(
        run=family.label,
        task=family.task,
        variant=family.variant,
        reasoning=family.reasoning,
        scorer=scorer,
        measure=name,
        group_key=grouping[0],
        group=grouping[1],
        headline=headline,
        higher_is_better=measure.higher_is_better,
        pairs=len(base),
        seeds=sorted({int(segment.seed) for segment, _ in members}),
        **result,
    )


def _measure_cells(family: Family, scorer: str, rank: int, name: str, measures: str, alpha: float) -> list[Cell]:
    """The cells of one measure (the ``rank``-th of its scorer's list, :func:`_measures_of`): one per group of each
    grouping; a grouping by dataset that finds one dataset is left out (its cell is the ``all`` cell)."""
    cells = []
    for group_key in _group_keys(scorer, name, measures):
        groups = _groups(family, scorer, group_key)
        if group_key == "dataset" and len(groups) == 1:
            continue  # one dataset: its cell is the "all" cell
        headline = rank < len(SCORERS[scorer].headline) and group_key in ("all", "dataset")
        for group, members in sorted(groups.items()):
            cells.append(_test_group(family, scorer, name, headline, (group_key, group), members, alpha))
    return cells


def _name_scorers(cells: Sequence[Cell]) -> None:
    """Set :attr:`Cell.scorer_named` on each cell whose measure name another scorer of the cells reports too."""
    scorers_of: dict[str, set[str]] = {}
    for cell in cells:
        scorers_of.setdefault(cell.measure, set()).add(cell.scorer)
    for cell in cells:
        cell.scorer_named = len(scorers_of[cell.measure]) > 1


def family_cells(family: Family, measures: str, alpha: float) -> list[Cell]:
    """Every cell of one family (module docstring), tested (:func:`give_verdicts` gives the verdicts)."""
    cells = [
        cell
        for scorer in _family_scorers(family)
        for rank, name in enumerate(_measures_of(scorer, measures))
        for cell in _measure_cells(family, scorer, rank, name, measures, alpha)
    ]
    _name_scorers(cells)
    return cells


def give_verdicts(cells: Sequence[Cell], alpha: float, max_drop: float) -> int:
    """Holm's correction over the cells that can decide (:func:`can_decide` at ``alpha`` over the number of cells),
    then each one's verdict (module docstring); a cell that cannot decide is ``too few samples`` unless its paired
    values are all identical (``no significant change``). Returns the Holm family size."""
    for cell in cells:
        if not can_decide(cell, alpha / max(len(cells), 1)):
            cell.tested = False
            cell.verdict = NO_CHANGE if cell.identical else TOO_FEW
    tested = [cell for cell in cells if cell.tested]
    for cell, adjusted in zip(tested, ps.holm([cell.p_value for cell in tested])):
        cell.p_holm = float(adjusted)
        if adjusted < alpha:
            cell.verdict = IMPROVED if cell.delta > 0 else REGRESSED if -cell.delta > max_drop else SMALL_DROP
    return len(tested)


async def _read_sides(paths: Sequence[str], tasks: Sequence[str] | None) -> list[Side]:
    """Both sides read in one event loop, so a store is read through one client for the whole comparison."""
    return [await read_side_async(name, path, tasks) for name, path in zip(SIDES, paths, strict=True)]


def interval_notes(cells: Sequence[Cell]) -> list[str]:
    """One note when some cell's interval excludes 0 but its verdict is not significant (McNemar's exact test or
    Holm's correction decided otherwise): the verdict follows the Holm-corrected p-value, the interval is
    descriptive (the cells are named, three at most)."""
    apart = [
        cell
        for cell in cells
        if cell.verdict in (NO_CHANGE, TOO_FEW) and not math.isnan(cell.low) and (cell.low > 0 or cell.high < 0)
    ]
    if not apart:
        return []
    names = ", ".join(cell.name for cell in apart[:3]) + (" …" if len(apart) > 3 else "")
    return [
        f"{len(apart)} cell{'s' if len(apart) > 1 else ''} with an interval that excludes 0 and no significant "
        f"verdict ({names}): the verdict follows p Holm (its test, corrected for the {len(cells)} cells); the "
        "unadjusted interval does not decide"
    ]


def _skipped_notes(sides: Sequence[Side]) -> list[str]:
    """A note per log a side left out that does not matter (:attr:`~.pairing.Side.skipped`)."""
    return [f"{side.name} log left out: {path} ({reason})" for side in sides for path, reason in side.skipped]


def _pair_notes(pair: RunPair) -> list[str]:
    """Notes on how a run pair's logs differ without making the runs unlike: samples of the task that neither log
    lists, the model, the generate settings and the budget (:func:`budget_notes`)."""
    a, b = pair.baseline, pair.candidate
    notes = []
    declared = max(run.declared or 0 for run in (a, b))
    if declared > len(pair.keys):
        notes.append(
            f"{run_name(a)}: {len(pair.keys)} of its task's {declared} samples compared; neither log lists the "
            f"other {declared - len(pair.keys)} (--limit, --sample-id, or removed from both logs)"
        )
    if a.model != b.model:
        notes.append(f"{run_name(a)}: model {a.model} (baseline) vs {b.model} (candidate)")
    if a.generate != b.generate:
        notes.append(f"{run_name(a)}: generate settings {a.generate} (baseline) vs {b.generate} (candidate)")
    return notes + budget_notes(a, b)


def _family_changes(family: Family, pairs: Sequence[RunPair], usable: dict[int, list[tuple[str, int]]]) -> list[Change]:
    """The changed paired samples (:class:`Change`) of the run pairs of ``family``, in run-pair order."""
    return [
        change
        for index, pair in enumerate(pairs)
        if (pair.baseline.task, pair.baseline.variant, pair.baseline.reasoning)
        == (family.task, family.variant, family.reasoning)
        for change in _changes(pair, usable[index], family.label)
    ]


def _incomplete_lines(sides: Sequence[Side]) -> list[str]:
    """What makes either side incomplete (:attr:`~.pairing.Side.incomplete`), baseline first."""
    return [line for side in sides for line in side.incomplete]


def _pairing_notes(
    sides: Sequence[Side],
    pairs: Sequence[RunPair],
    coverage: Coverage,
    usable: dict[int, list[tuple[str, int]]],
    tolerated: int | None,
) -> list[str]:
    """The notes on the logs and their pairs, before any cell is tested: logs left out, samples missing within
    ``--max-missing`` (``tolerated``; ``None`` when the comparison is incomplete, which lists them itself), how
    each run pair's logs differ (:func:`_pair_notes`) and values not measured (:func:`unmeasured_notes`)."""
    notes = _skipped_notes(sides)
    if tolerated is not None:
        notes += [f"tolerated (--max-missing {tolerated}): {line}" for line in coverage.lines["tolerable"]]
    notes += [note for pair in pairs for note in _pair_notes(pair)]
    return notes + unmeasured_notes(pairs, usable)


def _tested_cells(families: Sequence[Family], measures: str, alpha: float, max_drop: float) -> tuple[list[Cell], int]:
    """Every cell of ``families`` (:func:`family_cells`) with its verdict (:func:`give_verdicts`), in family
    order, and the Holm family size."""
    cells = [cell for family in families for cell in family_cells(family, measures, alpha)]
    return cells, give_verdicts(cells, alpha, max_drop)


def _cell_order(cell: Cell) -> tuple[Any, ...]:
    """The output's order of cells: headline first, then worst verdict, largest drop, run, measure, group."""
    return (not cell.headline, VERDICT_ORDER.index(cell.verdict), cell.delta, cell.run, cell.measure, cell.group)


def compare(
    baseline: str | Path,
    candidate: str | Path,
    tasks: Sequence[str] | None = None,
    max_drop: float = 1.0,
    alpha: float = 0.05,
    measures: str = "headline",
    allow_mismatch: bool = False,
    require_identical: bool = False,
    max_missing: int = 0,
    allow_untested: bool = False,
) -> Comparison:
    """Compare two log sets cell by cell (module docstring).

    Args:
        baseline, candidate: a log directory or one ``.eval`` / ``.json`` log file each.
        tasks: only these tasks (default: every task found).
        max_drop: a significant drop larger than this many points is a regression (>= 0).
        alpha: family-wise significance level of the Holm-corrected tests, in ``(0, 1)``.
        measures: ``headline`` (the paper's main measures per dataset) or ``all``.
        allow_mismatch: compare unlike runs, with a warning per difference.
        require_identical: any paired sample whose score changed fails the gate, and the report lists them.
        max_missing: samples asked of either side that may be missing, not run, errored or unscored on a side
            (>= 0).
        allow_untested: cells with too few samples do not fail the gate.

    Raises:
        CompareError: a bad option or path, a single log file of another benchmark, nothing to compare.
        MismatchError: unlike runs (see the module docstring) without ``allow_mismatch``.
    """
    check_options(max_drop, alpha, measures, max_missing)
    sides = run_coroutine(_read_sides((str(baseline), str(candidate)), tasks))
    pairing = pair_runs(*sides)
    warnings = refuse_unlike(pairing, allow_mismatch, _incomplete_lines(sides))
    coverage, usable = account(pairing.pairs)
    incomplete = incompleteness(sides, pairing, coverage, max_missing)
    if not coverage.paired and not incomplete:
        raise CompareError("no paired samples: the two sides share no run and sample")
    notes = _pairing_notes(sides, pairing.pairs, coverage, usable, max_missing if not incomplete else None)
    families = families_of(pairing.pairs, usable)
    cells, holm_family = _tested_cells(families, measures, alpha, max_drop)
    notes += interval_notes(cells)
    cells.sort(key=_cell_order)
    changes = [change for family in families for change in _family_changes(family, pairing.pairs, usable)]
    settings = {
        "alpha": alpha,
        "max_drop": max_drop,
        "measures": measures,
        "tests": TESTS,
        "holm_family": holm_family,
        "min_pairs": MIN_PAIRS,
        "allow_mismatch": allow_mismatch,
        "require_identical": require_identical,
        "max_missing": max_missing,
        "allow_untested": allow_untested,
    }
    return Comparison(
        sides[0].path, sides[1].path, cells, pairing, coverage, incomplete, warnings, notes, changes, settings
    )
