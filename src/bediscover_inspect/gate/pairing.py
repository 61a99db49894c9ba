"""Reading two sides of a comparison and pairing their runs and samples (:mod:`.compare` tests the pairs).

A side is a log directory or one log file; a run is (task, variant, reasoning mode, seed) and its samples are
keyed by (sample id, epoch). :func:`read_side` reads a side and lists what makes it incomplete (a log that is
unreadable, errored or cancelled without a successful replacement, two models or two generate settings for one
run); :func:`pair_runs` pairs runs on the run key and lists why unlike runs must not be compared
(:class:`MismatchError`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log_async

from bediscover_inspect._inspect_compat import run_coroutine
from bediscover_inspect.evallogs.samples import read_samples_async
from bediscover_inspect.evallogs.scores import (
    NO_MEASURES,
    NOT_OURS,
    SUPERSEDED,
    UNREADABLE,
    read_log_scores_async,
    run_facts,
    setting_parameters,
    short_task_name,
)
from bediscover_inspect.evallogs.store import is_url, kind
from bediscover_inspect.metadata import BENCHMARK

from .columns import RunSamples


class CompareError(ValueError):
    """A comparison that cannot be made: missing path, no log of the suite, bad option (the message says which)."""


class MismatchError(CompareError):
    """The two sides are unlike runs; the message lists each difference and names ``--allow-mismatch``."""


# --------------------------------------------------------------------------------------- reading


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
    samples: RunSamples
    """The run's samples by (sample id, epoch), kept as columns (:class:`~.columns.RunSamples`)."""
    planned: frozenset[tuple[str, int]]
    """(sample id, epoch) of every sample the eval was asked to run: its sample list (``log.eval.dataset.sample_ids``,
    else the ids it holds) × ``log.eval.config.epochs``."""
    declared: int | None
    """Samples × epochs of the task's dataset (``log.eval.dataset.samples``), before ``--limit`` or
    ``--sample-id``; ``None`` when the log does not say."""

    @property
    def key(self) -> tuple[str, str, str, int]:
        return self.task, self.variant, self.reasoning, self.seed


async def _run_of(path: str, log: Any) -> Run:
    """The :class:`Run` of the successful log at ``path`` whose header is ``log``: its samples read one at a time
    (:func:`bediscover_inspect.evallogs.samples.read_samples_async`), each kept in the run's columns
    (:class:`~.columns.RunSamples`)."""
    facts = run_facts(path, log)
    samples = RunSamples()
    async for sample in read_samples_async(path):
        samples.add(sample)
    samples.finish()
    epochs = getattr(log.eval.config, "epochs", None) or 1
    sample_ids = getattr(log.eval.dataset, "sample_ids", None) or sorted({i for i, _ in samples})
    planned = frozenset(samples.key((str(i), e)) for i in sample_ids for e in range(1, epochs + 1))
    declared = getattr(log.eval.dataset, "samples", None)
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
        planned,
        declared * epochs if declared is not None else None,
    )


def _parameters(log: Any) -> dict[str, Any]:
    return setting_parameters(log)


@dataclass
class Side:
    """The runs of one side (``name`` ``baseline`` or ``candidate``), the logs left out that do not matter
    (path, reason: another Inspect task's log, a log superseded by a successful log of the same run and setting)
    and one line per thing that makes the side incomplete."""

    name: str
    path: str
    runs: list[Run]
    skipped: list[tuple[str, str]]
    incomplete: list[str]
    conflicted: set[tuple[str, str, str, int]] = field(default_factory=set)
    """Run keys (:attr:`Run.key`) with competing logs on this side (two copies, models or settings): present, yet
    not used; :func:`pair_runs` never pairs another variant in their place."""


def read_side(name: str, path: str | Path, tasks: Sequence[str] | None = None) -> Side:
    """:func:`read_side_async` in an event loop of its own."""
    return run_coroutine(read_side_async(name, path, tasks))  # type: ignore[no-any-return]


async def read_side_async(name: str, path: str | Path, tasks: Sequence[str] | None = None) -> Side:
    """The runs of a log directory (one successful log per run) or of one log file, samples included; either a
    local path or an fsspec URL (``s3://bucket/run``). Everything is read in the running event loop, so a store is
    read through its one client; each log's samples are read one at a time
    (:func:`bediscover_inspect.evallogs.samples.read_samples_async`).

    A directory is read as :func:`bediscover_inspect.evallogs.scores.read_log_scores` reads it. What the report only
    notes makes the side incomplete here (:attr:`Side.incomplete`, one line each): a log that cannot be read, a
    suite log without the suite's measures, a log that ended with status ``error``, ``cancelled`` or ``started``
    when no successful log of its run (same task, model, variant, reasoning mode, seed) replaces it, two models
    with a successful log of the same run (task, variant, reasoning mode, seed), and a successful log left out for
    another of the same run and model whose generate settings differ. Such runs are not used.

    A URL ending in ``.eval`` or ``.json`` is taken for one log file, any other for a directory (a store is not
    asked what it holds before it is read, which would take a client of its own).

    Raises:
        CompareError: the path does not exist, or a single log file given is not a log of the suite.
    """
    path = str(path)
    if is_url(path):
        found = "file" if path.endswith(LOG_SUFFIXES) else "dir"
    else:
        try:
            found = kind(path)
        except (OSError, ValueError) as exc:  # a URL scheme without its package
            raise CompareError(f"cannot read {path}: {exc}") from exc
    if found == "missing":
        raise CompareError(f"not found: {path}")
    if found == "dir":
        return await _read_directory(name, path, tasks)
    return await _read_file(name, path, tasks)


LOG_SUFFIXES = (".eval", ".json")
"""The file names of Inspect's two log formats."""


async def _read_file(name: str, path: str, tasks: Sequence[str] | None) -> Side:
    try:
        log = await read_eval_log_async(path, header_only=True)
    except FileNotFoundError as exc:
        raise CompareError(f"not found: {path}") from exc
    except Exception as exc:  # noqa: BLE001 - one unreadable file is reported, never a traceback
        return Side(name, path, [], [], [f"{name} log {path} is unreadable: {type(exc).__name__}: {exc}"])
    metadata = log.eval.metadata if isinstance(log.eval.metadata, dict) else {}
    if metadata.get("benchmark") != BENCHMARK:
        raise CompareError(f"{path}: not a BeDiscovER log (task {log.eval.task})")
    if tasks and short_task_name(log.eval.task) not in tasks:
        return Side(name, path, [], [(path, f"task {log.eval.task} not among --tasks")], [])
    if log.status != "success":
        return Side(name, path, [], [], [f"{name} log {path} ended with status {log.status}"])
    try:
        run = await _run_of(path, log)
    except Exception as exc:  # noqa: BLE001 - a sample that cannot be read makes the log unreadable
        return Side(name, path, [], [], [f"{name} log {path} is unreadable: {type(exc).__name__}: {exc}"])
    return Side(name, path, [run], [], [])


async def _read_directory(name: str, path: str, tasks: Sequence[str] | None) -> Side:
    try:
        scores = await read_log_scores_async(path)
    except FileNotFoundError as exc:
        raise CompareError(f"not found: {path}") from exc
    except (OSError, ValueError) as exc:  # a store that refuses the listing, a URL scheme without its package
        raise CompareError(f"cannot read {path}: {exc}") from exc
    chosen = {str(row["log"]): row for _, row in scores.runs.iterrows()}
    skipped: list[tuple[str, str]] = []
    incomplete: list[str] = []
    conflicted: set[tuple[str, str, str, int]] = set()
    for log_path, reason in scores.skipped:
        if reason.startswith(NOT_OURS) or (reason.startswith(SUPERSEDED) and "status" in reason):
            skipped.append((log_path, reason))
            continue
        if reason.startswith(UNREADABLE):
            incomplete.append(f"{name} log {log_path} is {reason}")
            continue
        header = await read_eval_log_async(log_path, header_only=True)
        if tasks and short_task_name(header.eval.task) not in tasks:
            continue
        label = short_task_name(header.eval.task)
        if reason.startswith(NO_MEASURES):
            incomplete.append(f"{name} log {log_path} of {label} cannot be compared: {reason}")
        elif reason.startswith(SUPERSEDED):
            facts = run_facts(log_path, header)
            label = f"{facts['task']} (reasoning {facts['reasoning']}, {seed_text(int(facts['seed']))})"
            kept = next(
                (
                    other
                    for other, row in chosen.items()
                    if (row["task"], row["model"], row["variant"], row["reasoning"], row["seed"])
                    == (facts["task"], facts["model"], facts["variant"], facts["reasoning"], facts["seed"])
                ),
                None,
            )
            if kept is not None and chosen[kept]["generate"] != facts["generate"]:
                incomplete.append(
                    f"{name}: two settings compete for {label}: {log_path} (generate {facts['generate']}) and "
                    f"{kept} (generate {chosen[kept]['generate']}); keep one setting's logs per directory"
                )
                conflicted.add((facts["task"], facts["variant"], facts["reasoning"], int(facts["seed"])))
            elif kept is not None and "covers more samples" not in reason:
                incomplete.append(
                    f"{name}: two successful logs compete for {label}: {log_path} and {kept}, with as many samples "
                    "each; keep one log per run in a directory"
                )
                conflicted.add((facts["task"], facts["variant"], facts["reasoning"], int(facts["seed"])))
            else:
                skipped.append((log_path, reason))
        else:
            incomplete.append(
                f"{name} log {log_path} of {label} ended with {reason} and no successful log of the run replaces it"
            )
    by_run: dict[tuple[str, str, str, int], list[str]] = {}
    for log_path, row in chosen.items():
        if not tasks or row["task"] in tasks:
            by_run.setdefault((row["task"], row["variant"], row["reasoning"], int(row["seed"])), []).append(log_path)
    competing = {key: paths for key, paths in by_run.items() if len(paths) > 1}
    conflicted |= set(competing)
    for (task, _variant, reasoning, seed), paths in sorted(competing.items()):
        models = " and ".join(f"{chosen[p]['model']} ({p})" for p in sorted(paths))
        incomplete.append(
            f"{name}: two models compete for {task} (reasoning {reasoning}, {seed_text(seed)}): {models}; "
            "keep one model's logs per directory"
        )
    runs = []
    for key, paths in sorted(by_run.items()):
        if key in conflicted:
            continue
        try:
            runs.append(await _run_of(paths[0], await read_eval_log_async(paths[0], header_only=True)))
        except Exception as exc:  # noqa: BLE001 - a sample that cannot be read makes the log unreadable
            incomplete.append(f"{name} log {paths[0]} is {UNREADABLE}: {type(exc).__name__}: {exc}")
    return Side(name, path, runs, skipped, incomplete, conflicted)


# --------------------------------------------------------------------------------------- pairing


@dataclass
class RunPair:
    """A baseline run, its candidate run and the sample keys either was asked to run (sorted): a sample one run
    was asked to run and the other was not is missing from the other."""

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
    """A run as the output names it: ``"<task> (reasoning <mode>, seed <seed>)"``, ``seed not recorded`` for a log
    without a seed (:data:`~bediscover_inspect.evallogs.scores.NO_SEED`)."""
    return f"{run.task} (reasoning {run.reasoning}, {seed_text(run.seed)})"


def seed_text(seed: int) -> str:
    """``seed 0``; ``seed not recorded`` for :data:`~bediscover_inspect.evallogs.scores.NO_SEED` (a run made without
    ``--seed``)."""
    from bediscover_inspect.evallogs.scores import NO_SEED

    return "seed not recorded" if seed == NO_SEED else f"seed {seed}"


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
        problems.append(
            f"{name}: other task variant: {_variant_difference(a, b)}; paired baseline {a.path} with candidate {b.path}"
        )
    if not a.planned & b.planned:
        example_a = ", ".join(sorted(i for i, _ in a.planned)[:3])
        example_b = ", ".join(sorted(i for i, _ in b.planned)[:3])
        problems.append(
            f"{name}: other sample set: no sample in common (baseline ids {example_a} …; candidate "
            f"ids {example_b} …). If the sample ids were renamed, regenerate the baseline (make "
            "baseline)"
        )
    rows = ((a.samples.row(k), b.samples.row(k)) for k in pair.keys)
    differing = [
        (row_a, row_b)
        for row_a, row_b in rows
        if row_a is not None and row_b is not None and a.samples.target(row_a) != b.samples.target(row_b)
    ]
    if differing:
        row_a, row_b = differing[0]
        sample_id = a.samples.key_of(row_a)[0]
        problems.append(
            f"{name}: other sample set: {len(differing)} paired samples have another gold, e.g. "
            f"{sample_id}: {a.samples.target(row_a)!r} (baseline) vs {b.samples.target(row_b)!r} (candidate)"
        )
    return problems


@dataclass
class Pairing:
    """Run pairs, problems found (unlike runs) and one line per run on one side only."""

    pairs: list[RunPair]
    problems: list[str]
    unpaired: list[str]


def pair_runs(baseline: Side, candidate: Side) -> Pairing:
    """Pair runs on (task, variant, reasoning, seed); then a run left on each side with the same (task,
    reasoning, seed) and another variant is paired with a problem "other task variant" (refused unless
    ``--allow-mismatch``), unless either side holds competing logs of the other run's own variant
    (:attr:`Side.conflicted`: that run is there, only not usable, so the runs stay unpaired). Within a run pair the
    samples expected are those either log was asked to run (:attr:`Run.planned`), paired on (id, epoch)."""
    cand_by_key = {run.key: run for run in candidate.runs}
    pairs: list[RunPair] = []
    left_a = [run for run in baseline.runs if run.key not in cand_by_key and run.key not in candidate.conflicted]
    matched_b = {run.key for run in baseline.runs} & set(cand_by_key)
    left_b = [run for run in candidate.runs if run.key not in matched_b and run.key not in baseline.conflicted]
    for run in baseline.runs:
        if run.key in cand_by_key:
            other = cand_by_key[run.key]
            pairs.append(RunPair(run, other, sorted(run.planned | other.planned)))
    unpaired = []
    for run in left_a:
        same = [b for b in left_b if (b.task, b.reasoning, b.seed) == (run.task, run.reasoning, run.seed)]
        if (
            len(same) == 1
            and sum((a.task, a.reasoning, a.seed) == (run.task, run.reasoning, run.seed) for a in left_a) == 1
        ):
            left_b.remove(same[0])
            pairs.append(RunPair(run, same[0], sorted(run.planned | same[0].planned)))
        else:
            unpaired.append(f"baseline run {run_name(run)} [{run.variant}] has no candidate run ({run.path})")
    unpaired += [f"candidate run {run_name(run)} [{run.variant}] has no baseline run ({run.path})" for run in left_b]
    for side, theirs in ((baseline, candidate), (candidate, baseline)):
        unpaired += [
            f"{side.name} run {run_name(run)} [{run.variant}] has no usable {theirs.name} run (competing logs of it "
            f"in the {theirs.name}, listed above) ({run.path})"
            for run in side.runs
            if run.key in theirs.conflicted
        ]
    problems = [problem for pair in pairs for problem in _mismatches(pair)]
    return Pairing(pairs, problems, unpaired)
