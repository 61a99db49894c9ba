"""``bediscover compare``: pair the samples of two log sets, test every cell, and give a regression verdict.

    bediscover compare --baseline logs/base --candidate logs/cand [--tasks …] [--max-drop 1.0] [--alpha 0.05]
        [--measures headline|all] [--format table|markdown|json] [--out FILE] [--allow-mismatch] [--plot FILE]
        [--require-identical] [--resamples 2000] [--seed 0]

Pairing. Each side is a log directory (the successful suite logs, one per run, chosen as
:func:`bediscover_inspect.report.logs.read_log_scores` chooses them) or one log file. A run is (task, variant,
reasoning mode, seed) — the variant being the task parameters other than dataset selectors
(:func:`~bediscover_inspect.report.logs.variant_of`). Runs are paired on that key, and within a run pair samples
are paired on (sample id, epoch); every sample carries its dataset. Only paired samples are compared; the output
says how many samples of each side were left out.

Refusal. Unlike runs are not compared (a :class:`MismatchError` naming the difference): another task version,
other data (a file whose SHA-1 in the task metadata differs), another variant (prompt, context, mode, subset …)
of the same task, another sample set (a paired sample whose gold differs, or no sample in common).
``allow_mismatch`` compares them anyway and lists each difference as a warning in the output.

Cells. A cell is (run, measure, group): group ``all`` and each dataset (DISRPT corpus); with ``measures="all"``
also the secondary measures and the DISRPT framework / language and ToT category groups. Measures and their
tests (:mod:`.paired_stats`):

* per-sample 0/1 measures (accuracy, PMR, ToT and DISRPT accuracy; the temporal relations' micro-F1, which
  equals their accuracy with one label per pair): McNemar's exact test on the discordant pairs;
* corpus-level measures (weighted F1, micro position accuracy, LCS, mean Kendall τ, dialogue-parsing micro link /
  full F1): a seeded paired bootstrap over samples.

Every cell's interval is the paired bootstrap's percentile interval of the difference. Seeds: pairs are formed
within a seed and the seeds are strata (McNemar counts discordant pairs over all seeds; the bootstrap resamples
within each seed). The p-values of all cells tested form one family, corrected with Holm's method.

Verdicts (``candidate - baseline`` in points, 1 point = 0.01 of a 0–1 measure, signed so that negative is worse
for measures where lower is better): ``regressed`` (Holm-significant and worse by more than ``max_drop`` points),
``small drop`` (Holm-significant, worse by at most ``max_drop``), ``improved`` (Holm-significant and better),
``no significant change``, ``too few samples`` (fewer than :data:`MIN_PAIRS` pairs, or a 0/1 measure whose pairs
could not reach ``alpha`` even if all were discordant). ``bediscover compare`` exits 1 when a cell regressed (or,
with ``require_identical``, when any paired sample's score changed), else 0; 2 on a usage error or refusal.

Reading and pairing the logs live in :mod:`.pairing`, the output and command line in :mod:`.compare_output`;
this module keeps the measures, the cell tests and the verdicts together, since each verdict rule needs all three.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bediscover_inspect.report.logs import UNREADABLE

from . import paired_stats as ps
from .pairing import CompareError, MismatchError, Pairing, RunPair, SampleRow, Scored, pair_runs, read_side, run_name

MIN_PAIRS = 10
"""Fewest paired samples (over all seeds) for a cell to get a verdict other than ``too few samples``."""

REGRESSED, SMALL_DROP, IMPROVED, NO_CHANGE, TOO_FEW = (
    "regressed",
    "small drop",
    "improved",
    "no significant change",
    "too few samples",
)
VERDICT_ORDER = (REGRESSED, SMALL_DROP, NO_CHANGE, TOO_FEW, IMPROVED)
"""Verdicts, worst first (the sort order of the output)."""

FORMATS = ("table", "markdown", "json")
MEASURE_SETS = ("headline", "all")


# --------------------------------------------------------------------------------------- measures

Values = Callable[[dict[str, float]], float]


@dataclass(frozen=True)
class Measure:
    """How one measure is computed from a score's value dict and tested.

    Attributes:
        name: the measure's name in the suite's metrics (``accuracy``, ``link_f1`` …).
        kind: ``binary`` (per-sample 0/1, McNemar), ``mean`` (mean of per-sample numbers), ``ratio``
            (``Σ numerator / Σ denominator``) or ``weighted`` (weighted P/R/F1 over gold and answered labels).
        value: per-sample number (``binary`` / ``mean``), or the numerator (``ratio``).
        denominator: per-sample denominator (``ratio``).
        index: 0/1/2 = weighted precision/recall/F1 (``weighted``).
        higher_is_better: ``False`` for rates of failure (invalid, LUMR).
    """

    name: str
    kind: str
    value: Values | None = None
    denominator: Values | None = None
    index: int = 2
    higher_is_better: bool = True


def _key(name: str) -> Values:
    return lambda v: float(v[name])


MEASURES: dict[str, Measure] = {
    m.name: m
    for m in (
        Measure("accuracy", "binary", _key("accuracy")),
        # one predicted label per pair: micro-F1 = accuracy (temporal_reasoning/scorer.py), so McNemar is exact
        Measure("micro_f1", "binary", _key("accuracy")),
        Measure("weighted_precision", "weighted", index=0),
        Measure("weighted_recall", "weighted", index=1),
        Measure("weighted_f1", "weighted", index=2),
        Measure("invalid", "binary", _key("invalid"), higher_is_better=False),
        Measure("ambiguous", "binary", _key("ambiguous"), higher_is_better=False),
        Measure("pmr", "binary", _key("pmr")),
        Measure("acc", "ratio", lambda v: v["acc"] * v["n_sentences"], _key("n_sentences")),
        Measure("lcs", "ratio", lambda v: v["lcs"] * v["n_sentences"], _key("n_sentences")),
        Measure("kendall_tau", "mean", _key("kendall_tau")),
        Measure("skip", "mean", _key("skip")),
        Measure("lumr", "binary", _key("lumr"), higher_is_better=False),
        Measure("link_f1", "ratio", lambda v: 2 * v["link_tp"], lambda v: v["link_pred"] + v["link_gold"]),
        Measure("full_f1", "ratio", lambda v: 2 * v["full_tp"], lambda v: v["full_pred"] + v["full_gold"]),
        Measure("link_precision", "ratio", _key("link_tp"), _key("link_pred")),
        Measure("link_recall", "ratio", _key("link_tp"), _key("link_gold")),
        Measure("full_precision", "ratio", _key("full_tp"), _key("full_pred")),
        Measure("full_recall", "ratio", _key("full_tp"), _key("full_gold")),
        Measure("invalid_rate", "ratio", _key("relations_invalid"), _key("relations_read"), higher_is_better=False),
        Measure("no_relation_rate", "ratio", _key("no_relation"), _key("turns"), higher_is_better=False),
    )
}
"""Every measure ``compare`` can test, each computed as the suite's metric of the same name computes it."""

HEADLINE: dict[str, tuple[str, ...]] = {
    "discourse_marker_scorer": ("accuracy", "weighted_f1"),  # Table 2
    "relation_scorer": ("micro_f1", "weighted_f1"),  # Table 3
    "tot_scorer": ("accuracy",),  # Table 3
    "discourse_relation_scorer": ("accuracy",),  # Table 4
    "sentence_ordering_scorer": ("pmr", "acc", "lcs", "kendall_tau"),  # Table 5
    "dialogue_parsing_scorer": ("link_f1", "full_f1"),  # Table 6
}
"""Headline measures of each scorer (the paper's main tables)."""

SECONDARY: dict[str, tuple[str, ...]] = {
    "discourse_marker_scorer": ("weighted_precision", "weighted_recall", "invalid", "ambiguous"),
    "relation_scorer": ("weighted_precision", "weighted_recall", "invalid", "ambiguous"),
    "tot_scorer": ("invalid",),
    "discourse_relation_scorer": ("weighted_f1", "invalid", "ambiguous"),
    "sentence_ordering_scorer": ("skip", "lumr", "invalid"),
    "dialogue_parsing_scorer": (
        "link_precision",
        "link_recall",
        "full_precision",
        "full_recall",
        "invalid_rate",
        "no_relation_rate",
    ),
}
"""Further measures tested with ``--measures all``."""

EXTRA_GROUPS: dict[tuple[str, str], tuple[str, ...]] = {
    ("discourse_relation_scorer", "accuracy"): ("framework", "language"),  # Tables 4 and 27
    ("tot_scorer", "accuracy"): ("category",),  # Table 26
}
"""Sample-metadata keys a measure is also broken down by with ``--measures all``."""


# --------------------------------------------------------------------------------------- cells


@dataclass
class Cell:
    """One tested cell. Values are measure units (0–1); ``delta``, ``low``, ``high`` and ``max_drop`` points."""

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
    worse: int | None
    better: int | None
    p_value: float
    p_holm: float = float("nan")
    verdict: str = NO_CHANGE

    @property
    def name(self) -> str:
        group = (
            "all"
            if self.group_key == "all"
            else (self.group if self.group_key == "dataset" else f"{self.group_key}={self.group}")
        )
        return f"{self.run} {self.measure} [{group}]"


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
    """Everything ``compare`` found; rendered by :func:`render`."""

    baseline: str
    candidate: str
    cells: list[Cell]
    pairing: Pairing
    warnings: list[str]
    notes: list[str]
    changes: list[Change]
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def regressed(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.verdict == REGRESSED]

    def exit_code(self, require_identical: bool = False) -> int:
        """1 when a cell regressed (or, with ``require_identical``, a score changed), else 0."""
        return 1 if self.regressed or (require_identical and self.changes) else 0


def _arrays(measure: Measure, rows: Sequence[Scored]) -> tuple[np.ndarray, np.ndarray | None]:
    """(values or numerators, denominators) of one side."""
    if measure.kind == "weighted":
        raise AssertionError("weighted measures are coded in _statistics")
    assert measure.value is not None
    try:
        values = np.array([measure.value(row.value) for row in rows], dtype=float)
        den = (
            np.array([measure.denominator(row.value) for row in rows], dtype=float)
            if measure.denominator is not None
            else None
        )
    except KeyError as exc:
        raise CompareError(f"measure {measure.name}: a score value has no key {exc.args[0]!r}") from None
    return values, den


def _statistics(
    measure: Measure, base: Sequence[Scored], cand: Sequence[Scored]
) -> tuple[ps.Statistic, ps.Statistic, np.ndarray | None, np.ndarray | None]:
    """The statistic of each side, and the per-sample 0/1 arrays of a binary measure."""
    if measure.kind == "weighted":
        labels = sorted({r.gold for r in base} | {r.answer for r in base} | {r.answer for r in cand})
        code = {label: i for i, label in enumerate(labels)}
        gold = np.array([code[r.gold] for r in base])
        pred_a, pred_b = np.array([code[r.answer] for r in base]), np.array([code[r.answer] for r in cand])
        return (
            ps.weighted_statistic(gold, pred_a, len(labels), measure.index),
            ps.weighted_statistic(gold, pred_b, len(labels), measure.index),
            None,
            None,
        )
    values_a, den_a = _arrays(measure, base)
    values_b, den_b = _arrays(measure, cand)
    if measure.kind == "ratio":
        assert den_a is not None and den_b is not None
        return ps.ratio_statistic(values_a, den_a), ps.ratio_statistic(values_b, den_b), None, None
    binary = (values_a, values_b) if measure.kind == "binary" else (None, None)
    return ps.mean_statistic(values_a), ps.mean_statistic(values_b), *binary


def test_cell(
    measure: Measure,
    base: Sequence[Scored],
    cand: Sequence[Scored],
    strata: np.ndarray,
    alpha: float,
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    """Test one cell: observed values, bootstrap interval of the difference and the p-value.

    Returns:
        ``baseline``, ``candidate`` (measure units), ``delta``, ``low``, ``high`` (points, signed so that
        negative is worse), ``test`` (``mcnemar`` / ``bootstrap``), ``worse``, ``better`` (discordant pairs of
        a binary measure, else ``None``) and ``p_value``.
    """
    stat_a, stat_b, bin_a, bin_b = _statistics(measure, base, cand)
    everything = np.arange(len(base))[None, :]
    value_a, value_b = float(stat_a(everything)[0]), float(stat_b(everything)[0])
    boot = ps.paired_bootstrap(stat_a, stat_b, len(base), strata, resamples, seed, alpha)
    sign = 100.0 if measure.higher_is_better else -100.0
    low, high = sorted((sign * boot.low, sign * boot.high))
    out: dict[str, Any] = {
        "baseline": value_a,
        "candidate": value_b,
        "delta": sign * boot.delta,
        "low": low,
        "high": high,
        "worse": None,
        "better": None,
    }
    if bin_a is not None and bin_b is not None:
        good_a, good_b = (bin_a > 0.5, bin_b > 0.5) if measure.higher_is_better else (bin_a < 0.5, bin_b < 0.5)
        worse, better = int(np.sum(good_a & ~good_b)), int(np.sum(~good_a & good_b))
        out |= {"test": "mcnemar", "worse": worse, "better": better, "p_value": ps.mcnemar_exact(worse, better)}
    else:
        out |= {"test": "bootstrap", "p_value": boot.p_value}
    return out


def _too_few(measure: Measure, pairs: int, alpha: float) -> bool:
    return pairs < MIN_PAIRS or (measure.kind == "binary" and ps.min_mcnemar_p(pairs) >= alpha)


def _measures_of(scorer: str, measures: str) -> list[str]:
    names = list(HEADLINE.get(scorer, ()))
    if measures == "all":
        names += [m for m in SECONDARY.get(scorer, ()) if m not in names]
    return names


def _changes(pair: RunPair, label: str) -> list[Change]:
    out = []
    for key in pair.keys:
        a, b = pair.baseline.samples[key], pair.candidate.samples[key]
        for scorer in sorted(set(a.scores) | set(b.scores)):
            sa, sb = a.scores.get(scorer), b.scores.get(scorer)
            differences: dict[str, list[Any]] = {}
            if sa is None or sb is None:
                differences["score"] = [sa is not None, sb is not None]
            else:
                for name in sorted(set(sa.value) | set(sb.value)):
                    if sa.value.get(name) != sb.value.get(name):
                        differences[name] = [sa.value.get(name), sb.value.get(name)]
                if sa.answer != sb.answer:
                    differences["answer"] = [sa.answer, sb.answer]
            if differences:
                out.append(
                    Change(label, scorer, a.groups.get("dataset", ""), a.id, a.epoch, pair.baseline.seed, differences)
                )
    return out


def compare(
    baseline: str | Path,
    candidate: str | Path,
    tasks: Sequence[str] | None = None,
    max_drop: float = 1.0,
    alpha: float = 0.05,
    measures: str = "headline",
    allow_mismatch: bool = False,
    resamples: int = ps.DEFAULT_RESAMPLES,
    seed: int = ps.DEFAULT_SEED,
    require_identical: bool = False,
) -> Comparison:
    """Compare two log sets cell by cell (module docstring).

    Args:
        baseline, candidate: a log directory or one ``.eval`` / ``.json`` log file each.
        tasks: only these tasks (default: every task found).
        max_drop: a significant drop larger than this many points is a regression (>= 0).
        alpha: family-wise significance level of the Holm-corrected tests, in ``(0, 1)``.
        measures: ``headline`` (the paper's main measures per dataset) or ``all``.
        allow_mismatch: compare unlike runs, with a warning per difference.
        resamples: paired bootstrap resamples (>= 2,000).
        seed: bootstrap seed.
        require_identical: the report lists every paired sample whose score changed (else only their count).

    Raises:
        CompareError: a bad option or path, no log, no paired sample. MismatchError: unlike runs (see the module
        docstring) without ``allow_mismatch``.
    """
    if max_drop < 0 or not 0 < alpha < 1 or measures not in MEASURE_SETS or resamples < ps.DEFAULT_RESAMPLES:
        raise CompareError(
            f"need --max-drop >= 0, 0 < --alpha < 1, --measures in {list(MEASURE_SETS)} and "
            f"--resamples >= {ps.DEFAULT_RESAMPLES}; got {max_drop}, {alpha}, {measures!r}, "
            f"{resamples}"
        )
    side_a, side_b = read_side(baseline, tasks), read_side(candidate, tasks)
    pairing = pair_runs(side_a, side_b)
    warnings: list[str] = [
        f"{name} log not read: {path} ({reason})"
        for name, side in (("baseline", side_a), ("candidate", side_b))
        for path, reason in side.skipped
        if reason.startswith(UNREADABLE)
    ]
    if pairing.problems:
        if not allow_mismatch:
            raise MismatchError(
                "refusing to compare unlike runs:\n  "
                + "\n  ".join(pairing.problems)
                + "\n(--allow-mismatch compares them anyway)"
            )
        warnings += [f"compared despite a mismatch (--allow-mismatch): {p}" for p in pairing.problems]
    pairs = [pair for pair in pairing.pairs if pair.keys]
    if not pairs:
        raise CompareError("no paired samples: the two sides share no run and sample")
    notes = list(pairing.unpaired)
    for pair in pairs:
        a, b = pair.baseline, pair.candidate
        if a.model != b.model:
            notes.append(f"{run_name(a)}: model {a.model} (baseline) vs {b.model} (candidate)")
        if a.generate != b.generate:
            notes.append(f"{run_name(a)}: generate settings {a.generate} (baseline) vs {b.generate} (candidate)")

    # one cell family per (task, variant, reasoning): seeds pooled as strata
    families: dict[tuple[str, str, str], list[RunPair]] = {}
    for pair in pairs:
        families.setdefault((pair.baseline.task, pair.baseline.variant, pair.baseline.reasoning), []).append(pair)
    variants_per_task: dict[str, set[str]] = {}
    for task, variant, _ in families:
        variants_per_task.setdefault(task, set()).add(variant)

    cells: list[Cell] = []
    changes: list[Change] = []
    for (task, variant, reasoning), family in families.items():
        label = family[0].label + (f" [{variant}]" if len(variants_per_task[task]) > 1 else "")
        rows: list[tuple[int, SampleRow, SampleRow]] = []
        for pair in sorted(family, key=lambda p: p.baseline.seed):
            changes += _changes(pair, label)
            rows += [(pair.baseline.seed, pair.baseline.samples[k], pair.candidate.samples[k]) for k in pair.keys]
        scorers = sorted({s for _, a, b in rows for s in a.scores if s in b.scores and s in HEADLINE})
        for scorer in scorers:
            scored = [(seed_, a, b) for seed_, a, b in rows if scorer in a.scores and scorer in b.scores]
            for rank, name in enumerate(_measures_of(scorer, measures)):
                measure = MEASURES[name]
                group_keys = ["all", "dataset"]
                if measures == "all":
                    group_keys += list(EXTRA_GROUPS.get((scorer, name), ()))
                for group_key in group_keys:
                    groups: dict[str, list[tuple[int, SampleRow, SampleRow]]] = {}
                    for item in scored:
                        group = "all" if group_key == "all" else item[1].groups.get(group_key)
                        if group is not None:
                            groups.setdefault(group, []).append(item)
                    if group_key == "dataset" and len(groups) == 1 and "all" in group_keys:
                        continue  # one dataset: its cell is the "all" cell
                    for group, members in sorted(groups.items()):
                        base = [a.scores[scorer] for _, a, _ in members]
                        cand = [b.scores[scorer] for _, _, b in members]
                        seeds = np.array([s for s, _, _ in members])
                        result = test_cell(measure, base, cand, seeds, alpha, resamples, seed)
                        cells.append(
                            Cell(
                                run=label,
                                task=task,
                                variant=variant,
                                reasoning=reasoning,
                                scorer=scorer,
                                measure=name,
                                group_key=group_key,
                                group=group,
                                headline=rank < len(HEADLINE[scorer]) and group_key in ("all", "dataset"),
                                higher_is_better=measure.higher_is_better,
                                pairs=len(members),
                                seeds=sorted({int(s) for s in seeds}),
                                **result,
                            )
                        )
                        if _too_few(measure, len(members), alpha):
                            cells[-1].verdict = TOO_FEW
    tested = [cell for cell in cells if cell.verdict != TOO_FEW]
    for cell, adjusted in zip(tested, ps.holm([cell.p_value for cell in tested])):
        cell.p_holm = float(adjusted)
        if adjusted < alpha:
            cell.verdict = IMPROVED if cell.delta > 0 else REGRESSED if -cell.delta > max_drop else SMALL_DROP
    cells.sort(key=lambda c: (not c.headline, VERDICT_ORDER.index(c.verdict), c.delta, c.run, c.measure, c.group))
    settings = {
        "alpha": alpha,
        "max_drop": max_drop,
        "measures": measures,
        "resamples": resamples,
        "seed": seed,
        "holm_family": len(tested),
        "min_pairs": MIN_PAIRS,
        "allow_mismatch": allow_mismatch,
        "require_identical": require_identical,
    }
    return Comparison(side_a.path, side_b.path, cells, pairing, warnings, notes, changes, settings)
