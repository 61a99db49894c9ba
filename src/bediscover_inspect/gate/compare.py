"""``bediscover compare``: pair the samples of two log sets, check that everything asked for is there, test every
cell, and give a regression verdict.

    bediscover compare --baseline logs/base --candidate logs/cand [--tasks …] [--max-drop 1.0] [--alpha 0.05]
        [--measures headline|all] [--format table|markdown|json] [--out FILE] [--allow-mismatch] [--plot FILE]
        [--require-identical] [--max-missing 0] [--allow-untested]

Steps (each a function below): read both sides (:func:`~.pairing.read_side`), pair their runs
(:func:`~.pairing.pair_runs`) and refuse unlike runs, account for every sample either run of a pair was asked to
run (:func:`~.coverage.account`), group the run pairs into cell families (one per task, variant and reasoning mode,
seeds pooled), test each cell (:func:`~.cells.test_cell`), then correct the family of p-values with Holm's method and give the
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
and the keys (:func:`~.coverage.unmeasured_notes`).

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
off at the budget or with its text only in the reasoning (:func:`~.cells.newly_lost`; the per-sample ``cut_off`` and
``reasoning_only`` of :mod:`bediscover_inspect.causes`). A regressed cell whose drop they explain is still a
regression of the configuration under test (exit 1), but the verdict line names them; a ``max_tokens`` that
differs between the sides is noted (:func:`budget_notes`).

Exit codes (:meth:`Comparison.exit_code`): 3 incomplete; else 1 when a cell regressed (or, with
``require_identical``, a paired sample's score changed); else 4 when a cell has too few samples (unless
``allow_untested``); else 0. 2 is a usage error or a refusal (raised as :class:`CompareError`).

Reading and pairing the logs live in :mod:`.pairing`, accounting for the samples in :mod:`.coverage`, one cell's
test in :mod:`.cells`, the output and command line in :mod:`.compare_output`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bediscover_inspect._inspect_compat import run_coroutine
from bediscover_inspect.measures import CATALOG, SCORERS

from . import paired_stats as ps
from .cells import TESTS, newly_lost, test_cell
from .columns import MISSING, NONE, OTHER, CellScores, Part, RunSamples, Scored
from .coverage import SIDES, Coverage, account, incompleteness, unmeasured_notes
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

FORMATS = ("table", "markdown", "json")
MEASURE_SETS = ("headline", "all")


# --------------------------------------------------------------------------------------- cells


@dataclass
class Cell:
    """One tested cell. Values are measure units (0–1); ``delta``, ``low``, ``high``, ``se`` and ``max_drop``
    points. ``newly_worse``, ``newly_cut_off``, ``newly_reasoning_only``: the cause counts of
    :func:`~.cells.newly_lost`."""

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
    group), tested (:func:`~.cells.test_cell`) and its causes counted (:func:`~.cells.newly_lost`)."""
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
    each run pair's logs differ (:func:`_pair_notes`) and values not measured (:func:`~.coverage.unmeasured_notes`)."""
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
