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
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bediscover_inspect.metadata import BENCHMARK

from . import paired_stats as ps

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


class CompareError(ValueError):
    """A comparison that cannot be made: missing path, no log of the suite, bad option (the message says which)."""


class MismatchError(CompareError):
    """The two sides are unlike runs; the message lists each difference and names ``--allow-mismatch``."""


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


# --------------------------------------------------------------------------------------- reading


@dataclass
class Scored:
    """One scorer's score of one sample: value dict, answer read, gold label (sample metadata ``gold``)."""

    value: dict[str, float]
    answer: str
    gold: str


@dataclass
class SampleRow:
    """One sample (one epoch) of a run: its key, groups, target and scores by scorer name."""

    id: str
    epoch: int
    groups: dict[str, str]
    target: str
    scores: dict[str, Scored]


@dataclass
class Run:
    """One successful suite log as ``compare`` needs it (see the module docstring for the run key)."""

    path: str
    task: str
    variant: str
    reasoning: str
    seed: int
    model: str
    version: int
    parameters: dict[str, Any]
    data: dict[str, str | None]
    generate: dict[str, Any]
    samples: dict[tuple[str, int], SampleRow]

    @property
    def key(self) -> tuple[str, str, str, int]:
        return self.task, self.variant, self.reasoning, self.seed


def _groups_of(metadata: dict[str, Any]) -> dict[str, str]:
    return {key: str(metadata[key]) for key in ("dataset", "framework", "language", "category") if key in metadata}


def _run_of(path: str, log: Any) -> Run:
    from bediscover_inspect.metrics import INVALID_ANSWER

    from .logs import run_facts

    facts = run_facts(path, log)
    samples: dict[tuple[str, int], SampleRow] = {}
    for sample in log.samples or []:
        metadata = sample.metadata or {}
        scores: dict[str, Scored] = {}
        for name, score in (sample.scores or {}).items():
            if isinstance(score.value, dict):
                answer = str(score.answer) if score.answer is not None else INVALID_ANSWER
                scores[name] = Scored(dict(score.value), answer, str(metadata.get("gold", "")))
        target = sample.target if isinstance(sample.target, str) else json.dumps(sample.target)
        samples[(str(sample.id), int(sample.epoch))] = SampleRow(
            str(sample.id), int(sample.epoch), _groups_of(metadata), target, scores
        )
    data = {name: (entry or {}).get("actual_sha1") for name, entry in facts["data"].items()}
    return Run(
        path,
        facts["task"],
        facts["variant"],
        facts["reasoning"],
        int(facts["seed"]),
        facts["model"],
        int(log.eval.task_version or 0),
        _parameters(log),
        data,
        facts["generate"],
        samples,
    )


def _parameters(log: Any) -> dict[str, Any]:
    from .logs import IGNORED_PARAMETERS, parameters_of

    return {k: v for k, v in parameters_of(log).items() if k not in IGNORED_PARAMETERS}


@dataclass
class Side:
    """The runs of one side and the logs left out (path, reason)."""

    path: str
    runs: list[Run]
    skipped: list[tuple[str, str]]


def read_side(path: str | Path, tasks: Sequence[str] | None = None) -> Side:
    """The runs of a log directory (one successful log per run) or of one log file, samples included.

    Raises:
        CompareError: the path does not exist, or holds no successful log of the suite (of ``tasks``).
    """
    from inspect_ai.log import read_eval_log

    from .logs import read_log_scores, short_task_name

    path = Path(path)
    if not path.exists():
        raise CompareError(f"not found: {path}")
    skipped: list[tuple[str, str]] = []
    if path.is_dir():
        scores = read_log_scores(path)
        paths = list(scores.runs["log"])
        skipped = [item for item in scores.skipped]
    else:
        paths = [str(path)]
    runs: list[Run] = []
    for log_path in paths:
        try:
            log = read_eval_log(log_path)
        except Exception as exc:  # noqa: BLE001 - one unreadable file is reported, never a traceback
            raise CompareError(f"cannot read log {log_path}: {type(exc).__name__}: {exc}") from exc
        metadata = log.eval.metadata if isinstance(log.eval.metadata, dict) else {}
        if metadata.get("benchmark") != BENCHMARK or log.status != "success":
            raise CompareError(
                f"{log_path}: not a successful BeDiscovER log (status {log.status}, task {log.eval.task})"
            )
        if tasks and short_task_name(log.eval.task) not in tasks:
            continue
        runs.append(_run_of(log_path, log))
    if not runs:
        chosen = f" of tasks {', '.join(tasks)}" if tasks else ""
        raise CompareError(f"{path}: no successful BeDiscovER log{chosen} found")
    return Side(str(path), runs, skipped)


# --------------------------------------------------------------------------------------- pairing


@dataclass
class RunPair:
    """A baseline run, its candidate run and their paired sample keys (sorted)."""

    baseline: Run
    candidate: Run
    keys: list[tuple[str, int]]

    @property
    def label(self) -> str:
        return self.baseline.task + (" (reasoning)" if self.baseline.reasoning == "on" else "")


def _variant_difference(a: Run, b: Run) -> str:
    names = sorted(set(a.parameters) | set(b.parameters))
    return ", ".join(
        f"{k}: {a.parameters.get(k)!r} (baseline) vs {b.parameters.get(k)!r} (candidate)"
        for k in names
        if a.parameters.get(k) != b.parameters.get(k)
    )


def _run_name(run: Run) -> str:
    return f"{run.task} (reasoning {run.reasoning}, seed {run.seed})"


def _mismatches(pair: RunPair) -> list[str]:
    """Why a run pair is unlike (empty when alike): version, data, variant, sample set."""
    a, b = pair.baseline, pair.candidate
    name = _run_name(a)
    problems = []
    if a.version != b.version:
        problems.append(f"{name}: other task version: {a.version} (baseline) vs {b.version} (candidate)")
    for file in sorted(set(a.data) & set(b.data)):
        if a.data[file] != b.data[file]:
            problems.append(
                f"{name}: other data: {file} has SHA-1 {a.data[file]} (baseline) vs {b.data[file]} (candidate)"
            )
    if a.variant != b.variant:
        problems.append(f"{name}: other task variant: {_variant_difference(a, b)}")
    if not pair.keys:
        example_a = ", ".join(sorted(i for i, _ in a.samples)[:3])
        example_b = ", ".join(sorted(i for i, _ in b.samples)[:3])
        problems.append(
            f"{name}: other sample set: no sample in common (baseline ids {example_a} …; candidate "
            f"ids {example_b} …). If the sample ids were renamed, regenerate the baseline (make "
            "baseline)"
        )
    differing = [k for k in pair.keys if a.samples[k].target != b.samples[k].target]
    if differing:
        sample_id, epoch = differing[0]
        problems.append(
            f"{name}: other sample set: {len(differing)} paired samples have another gold, e.g. "
            f"{sample_id}: {a.samples[differing[0]].target!r} (baseline) vs "
            f"{b.samples[differing[0]].target!r} (candidate)"
        )
    return problems


@dataclass
class Pairing:
    """Run pairs, problems found (unlike runs), runs without a counterpart, sample counts left out."""

    pairs: list[RunPair]
    problems: list[str]
    unpaired: list[str]
    left_out: dict[str, int]
    total: dict[str, int]


def pair_runs(baseline: Side, candidate: Side) -> Pairing:
    """Pair runs on (task, variant, reasoning, seed); then a run left on each side with the same (task,
    reasoning, seed) and another variant is paired with a problem "other task variant" (refused unless
    ``--allow-mismatch``). Samples are paired on (id, epoch) within each run pair."""
    cand_by_key = {run.key: run for run in candidate.runs}
    pairs: list[RunPair] = []
    left_a = [run for run in baseline.runs if run.key not in cand_by_key]
    matched_b = {run.key for run in baseline.runs} & set(cand_by_key)
    left_b = [run for run in candidate.runs if run.key not in matched_b]
    for run in baseline.runs:
        if run.key in cand_by_key:
            other = cand_by_key[run.key]
            pairs.append(RunPair(run, other, sorted(set(run.samples) & set(other.samples))))
    unpaired = []
    for run in left_a:
        same = [b for b in left_b if (b.task, b.reasoning, b.seed) == (run.task, run.reasoning, run.seed)]
        if (
            len(same) == 1
            and sum((a.task, a.reasoning, a.seed) == (run.task, run.reasoning, run.seed) for a in left_a) == 1
        ):
            left_b.remove(same[0])
            pairs.append(RunPair(run, same[0], sorted(set(run.samples) & set(same[0].samples))))
        else:
            unpaired.append(f"baseline run {_run_name(run)} [{run.variant}] has no candidate run ({run.path})")
    unpaired += [f"candidate run {_run_name(run)} [{run.variant}] has no baseline run ({run.path})" for run in left_b]
    problems = [problem for pair in pairs for problem in _mismatches(pair)]
    total = {
        "baseline": sum(len(r.samples) for r in baseline.runs),
        "candidate": sum(len(r.samples) for r in candidate.runs),
    }
    paired = sum(len(p.keys) for p in pairs)
    return Pairing(pairs, problems, unpaired, {side: total[side] - paired for side in total}, total)


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
    warnings: list[str] = []
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
            notes.append(f"{_run_name(a)}: model {a.model} (baseline) vs {b.model} (candidate)")
        if a.generate != b.generate:
            notes.append(f"{_run_name(a)}: generate settings {a.generate} (baseline) vs {b.generate} (candidate)")

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


# --------------------------------------------------------------------------------------- rendering


def _number(value: float, digits: int = 1) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _p(value: float) -> str:
    if value is None or math.isnan(value):
        return "–"
    return "<0.0001" if value < 1e-4 else f"{value:.4f}"


def _cell_row(cell: Cell) -> list[str]:
    group = (
        "all"
        if cell.group_key == "all"
        else (cell.group if cell.group_key == "dataset" else f"{cell.group_key}={cell.group}")
    )
    discordant = f" ({cell.worse}↓/{cell.better}↑)" if cell.worse is not None else ""
    return [
        cell.run,
        cell.measure + ("" if cell.higher_is_better else " (lower better)"),
        group,
        str(cell.pairs),
        _number(100 * cell.baseline),
        _number(100 * cell.candidate),
        f"{round(cell.delta, 1) + 0.0:+.1f}",
        f"[{round(cell.low, 1) + 0.0:+.1f}, {round(cell.high, 1) + 0.0:+.1f}]",
        cell.test + discordant,
        _p(cell.p_value),
        _p(cell.p_holm),
        cell.verdict,
    ]


HEADER = ["run", "measure", "group", "n", "baseline", "candidate", "Δ pts", "CI", "test", "p", "p Holm", "verdict"]


def _summary(result: Comparison) -> list[str]:
    s = result.settings
    counts = {verdict: sum(c.verdict == verdict for c in result.cells) for verdict in VERDICT_ORDER}
    paired = sum(len(p.keys) for p in result.pairing.pairs)
    lines = [
        f"baseline {result.baseline} vs candidate {result.candidate}",
        f"{paired} paired samples in {len(result.pairing.pairs)} run pairs; left out: "
        f"{result.pairing.left_out['baseline']} of {result.pairing.total['baseline']} baseline samples, "
        f"{result.pairing.left_out['candidate']} of {result.pairing.total['candidate']} candidate samples",
        f"{len(result.cells)} cells: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n),
        f"tests: McNemar exact (0/1 measures), paired bootstrap ({s['resamples']} resamples, seed {s['seed']}; "
        f"every interval); seeds as strata; Holm correction over {s['holm_family']} cells at alpha {s['alpha']}; "
        f"regressed = significant drop > {s['max_drop']} points; too few = < {s['min_pairs']} pairs",
    ]
    if result.changes:
        shown = "listed below" if s.get("require_identical") else "listed with --require-identical or in the JSON"
        lines.append(f"{len(result.changes)} paired sample scores changed ({shown})")
    return lines


def render_table(result: Comparison) -> str:
    """Plain-text report for a terminal: summary lines, warnings, notes, the cell table (worst first)."""
    rows = [HEADER] + [_cell_row(c) for c in result.cells]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    lines = _summary(result) + [f"warning: {w}" for w in result.warnings] + [f"note: {n}" for n in result.notes]
    lines.append("")
    for i, row in enumerate(rows):
        lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines += _change_lines(result)
    return "\n".join(lines) + "\n"


def _change_lines(result: Comparison, limit: int = 50) -> list[str]:
    if not result.changes or not result.settings.get("require_identical"):
        return []
    lines = ["", "changed sample scores (baseline -> candidate):"]
    for change in result.changes[:limit]:
        what = ", ".join(f"{k} {a!r} -> {b!r}" for k, (a, b) in change.differences.items())
        lines.append(
            f"  {change.run} {change.scorer} [{change.dataset}] sample {change.sample_id} "
            f"(seed {change.seed}, epoch {change.epoch}): {what}"
        )
    if len(result.changes) > limit:
        lines.append(f"  … and {len(result.changes) - limit} more")
    return lines


def _markdown_table(cells: Sequence[Cell]) -> list[str]:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for cell in cells:
        row = _cell_row(cell)
        row[-1] = f"**{row[-1]}**" if cell.verdict == REGRESSED else row[-1]
        lines.append("| " + " | ".join(v.replace("|", "\\|") for v in row) + " |")
    return lines


def render_markdown(result: Comparison) -> str:
    """Markdown for a pull-request comment: verdict line, settings, headline cells, then every other cell in a
    collapsed block (cells worst first)."""
    regressed = result.regressed
    verdict = (
        f"**{len(regressed)} cells regressed**: " + ", ".join(c.name for c in regressed)
        if regressed
        else "**No regression.**"
    )
    lines = ["## BeDiscovER compare", "", verdict, ""] + [f"- {line}" for line in _summary(result)]
    lines += [f"- ⚠ {w}" for w in result.warnings] + [f"- note: {n}" for n in result.notes]
    headline = [c for c in result.cells if c.headline]
    other = [c for c in result.cells if not c.headline]
    lines += ["", "### Headline cells", ""] + _markdown_table(headline)
    if other:
        lines += ["", f"<details><summary>Other cells ({len(other)})</summary>", ""] + _markdown_table(other)
        lines += ["", "</details>"]
    if _change_lines(result):
        lines += ["", "<details><summary>Changed sample scores</summary>", "", "```"]
        lines += [line.strip() for line in _change_lines(result)[2:]] + ["```", "", "</details>"]
    return "\n".join(lines) + "\n"


def render_json(result: Comparison) -> str:
    """Every number: settings, pairing (left out, unpaired runs), warnings, notes, cells, changed samples."""
    pairing = result.pairing
    payload = {
        "baseline": result.baseline,
        "candidate": result.candidate,
        "settings": result.settings,
        "regressed": [c.name for c in result.regressed],
        "pairing": {
            "run_pairs": [
                {
                    "baseline": p.baseline.path,
                    "candidate": p.candidate.path,
                    "task": p.baseline.task,
                    "variant": p.baseline.variant,
                    "candidate_variant": p.candidate.variant,
                    "reasoning": p.baseline.reasoning,
                    "seed": p.baseline.seed,
                    "paired_samples": len(p.keys),
                }
                for p in pairing.pairs
            ],
            "samples": pairing.total,
            "left_out": pairing.left_out,
            "unpaired_runs": pairing.unpaired,
            "problems": pairing.problems,
        },
        "warnings": result.warnings,
        "notes": result.notes,
        "cells": [asdict(c) | {"name": c.name} for c in result.cells],
        "changes": [asdict(c) for c in result.changes],
    }
    return json.dumps(_finite(payload), indent=2) + "\n"


def _finite(value: Any) -> Any:
    """NaN -> None throughout (JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def render(result: Comparison, format: str) -> str:
    """The report in ``format`` (:data:`FORMATS`)."""
    return {"table": render_table, "markdown": render_markdown, "json": render_json}[format](result)


COLOURS = {REGRESSED: "#c0392b", SMALL_DROP: "#e67e22", IMPROVED: "#27ae60", NO_CHANGE: "#7f8c8d", TOO_FEW: "#bdc3c7"}


def plot_deltas(result: Comparison, path: str | Path) -> Path:
    """A PNG (or any matplotlib format by extension) of every cell's difference with its bootstrap interval,
    worst first, coloured by verdict, with lines at 0 and ``-max_drop``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = result.cells
    fig, ax = plt.subplots(figsize=(8, max(2.0, 0.25 * len(cells) + 1)))
    y = np.arange(len(cells))[::-1]
    for yi, cell in zip(y, cells):
        ax.errorbar(
            cell.delta,
            yi,
            xerr=[[cell.delta - cell.low], [cell.high - cell.delta]],
            fmt="o",
            color=COLOURS[cell.verdict],
            capsize=2,
            markersize=4,
        )
    ax.axvline(0, color="black", linewidth=0.8)
    ax.axvline(-result.settings["max_drop"], color=COLOURS[REGRESSED], linewidth=0.8, linestyle="--")
    ax.set_yticks(y, [cell.name for cell in cells], fontsize=7)
    ax.set_xlabel("candidate − baseline (points; negative = worse), bootstrap interval")
    handles = [plt.Line2D([], [], marker="o", linestyle="", color=c, label=v) for v, c in COLOURS.items()]
    ax.legend(handles=handles, fontsize=7, loc="best")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------------------- command line


def add_arguments(parser: Any) -> None:
    """The options of ``bediscover compare`` (module docstring)."""
    from bediscover_inspect.tasks import TASK_NAMES

    parser.add_argument("--baseline", required=True, help="baseline log directory or log file")
    parser.add_argument("--candidate", required=True, help="candidate log directory or log file")
    parser.add_argument(
        "--tasks", nargs="+", choices=TASK_NAMES, default=None, metavar="TASK", help="compare only these tasks"
    )
    parser.add_argument(
        "--max-drop",
        type=float,
        default=1.0,
        help="a significant drop beyond this many points regresses (default %(default)s)",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="family-wise level (Holm; default %(default)s)")
    parser.add_argument("--measures", choices=MEASURE_SETS, default="headline")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument("--out", default=None, help="write the report here (default: standard output)")
    parser.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="compare unlike runs (other version, data, variant, samples), with warnings",
    )
    parser.add_argument("--plot", default=None, help="plot the per-cell differences to this image file")
    parser.add_argument(
        "--require-identical",
        action="store_true",
        help="also fail (exit 1) when any paired sample's score changed (scorer gate)",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=ps.DEFAULT_RESAMPLES,
        help="paired bootstrap resamples (>= 2000; default %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=ps.DEFAULT_SEED, help="bootstrap seed (default %(default)s)")


def run_command(args: Any) -> int:
    """Run ``bediscover compare`` from parsed arguments; returns the exit code (0 or 1).

    Raises:
        CompareError: see :func:`compare` (the CLI prints it and exits 2).
    """
    result = compare(
        args.baseline,
        args.candidate,
        tasks=args.tasks,
        max_drop=args.max_drop,
        alpha=args.alpha,
        measures=args.measures,
        allow_mismatch=args.allow_mismatch,
        resamples=args.resamples,
        seed=args.seed,
        require_identical=args.require_identical,
    )
    text = render(result, args.format)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    if args.plot:
        plot_deltas(result, args.plot)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return result.exit_code(args.require_identical)
