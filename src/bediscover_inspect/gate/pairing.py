"""Reading two sides of a comparison and pairing their runs and samples (:mod:`.compare` tests the pairs).

A side is a log directory or one log file; a run is (task, variant, reasoning mode, seed) and its samples are
keyed by (sample id, epoch). :func:`pair_runs` pairs runs on that key and lists why unlike runs must not be
compared (:class:`MismatchError`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bediscover_inspect.metadata import BENCHMARK


class CompareError(ValueError):
    """A comparison that cannot be made: missing path, no log of the suite, bad option (the message says which)."""


class MismatchError(CompareError):
    """The two sides are unlike runs; the message lists each difference and names ``--allow-mismatch``."""


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
    from bediscover_inspect.report.logs import run_facts

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
    from bediscover_inspect.report.logs import setting_parameters

    return setting_parameters(log)


@dataclass
class Side:
    """The runs of one side and the logs left out (path, reason)."""

    path: str
    runs: list[Run]
    skipped: list[tuple[str, str]]


def read_side(path: str | Path, tasks: Sequence[str] | None = None) -> Side:
    """The runs of a log directory (one successful log per run) or of one log file, samples included; either a
    local path or an fsspec URL (``s3://bucket/run``).

    Raises:
        CompareError: the path does not exist, or holds no successful log of the suite (of ``tasks``).
    """
    from inspect_ai.log import read_eval_log

    from bediscover_inspect.logdir import kind
    from bediscover_inspect.report.logs import read_log_scores, short_task_name

    path = str(path)
    try:
        found = kind(path)
    except (OSError, ValueError) as exc:  # a store that refuses the listing, a URL scheme without its package
        raise CompareError(f"cannot read {path}: {exc}") from exc
    if found == "missing":
        raise CompareError(f"not found: {path}")
    skipped: list[tuple[str, str]] = []
    if found == "dir":
        scores = read_log_scores(path)
        paths = list(scores.runs["log"])
        skipped = [item for item in scores.skipped]
    else:
        paths = [path]
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
    return Side(path, runs, skipped)


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


def run_name(run: Run) -> str:
    """A run as the output names it: ``"<task> (reasoning <mode>, seed <seed>)"``."""
    return f"{run.task} (reasoning {run.reasoning}, seed {run.seed})"


def _mismatches(pair: RunPair) -> list[str]:
    """Why a run pair is unlike (empty when alike): version, data, variant, sample set."""
    a, b = pair.baseline, pair.candidate
    name = run_name(a)
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
            unpaired.append(f"baseline run {run_name(run)} [{run.variant}] has no candidate run ({run.path})")
    unpaired += [f"candidate run {run_name(run)} [{run.variant}] has no baseline run ({run.path})" for run in left_b]
    problems = [problem for pair in pairs for problem in _mismatches(pair)]
    total = {
        "baseline": sum(len(r.samples) for r in baseline.runs),
        "candidate": sum(len(r.samples) for r in candidate.runs),
    }
    paired = sum(len(p.keys) for p in pairs)
    return Pairing(pairs, problems, unpaired, {side: total[side] - paired for side in total}, total)
