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
    LogScores,
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
        _planned(log, samples),
        _declared(log),
    )


def _epochs(log: Any) -> int:
    """The epochs the eval ran (``log.eval.config.epochs``; 1 when not set)."""
    return getattr(log.eval.config, "epochs", None) or 1


def _planned(log: Any, samples: RunSamples) -> frozenset[tuple[str, int]]:
    """:attr:`Run.planned` of the log whose header is ``log`` and whose samples are ``samples``."""
    epochs = _epochs(log)
    sample_ids = getattr(log.eval.dataset, "sample_ids", None) or sorted({i for i, _ in samples})
    return frozenset(samples.key((str(i), e)) for i in sample_ids for e in range(1, epochs + 1))


def _declared(log: Any) -> int | None:
    """:attr:`Run.declared` of the log whose header is ``log``."""
    declared = getattr(log.eval.dataset, "samples", None)
    return declared * _epochs(log) if declared is not None else None


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


async def _directory_scores(path: str) -> LogScores:
    """The directory's logs as :func:`~bediscover_inspect.evallogs.scores.read_log_scores` chooses them, without
    reading the sample summaries of a log that scored fewer samples than it was asked to run: the samples of each
    run used are read whole afterwards (:func:`_run_of`), and the runs' sample counts are not used.

    Raises:
        CompareError: the directory does not exist, or its store refuses the listing.
    """
    try:
        return await read_log_scores_async(path, scored=False)
    except FileNotFoundError as exc:
        raise CompareError(f"not found: {path}") from exc
    except (OSError, ValueError) as exc:  # a store that refuses the listing, a URL scheme without its package
        raise CompareError(f"cannot read {path}: {exc}") from exc


@dataclass
class _LeftOut:
    """What one side's directory leaves out, as :class:`Side` lists it: logs skipped quietly, lines that make the
    side incomplete, and run keys with competing logs."""

    skipped: list[tuple[str, str]] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    conflicted: set[tuple[str, str, str, int]] = field(default_factory=set)


def _skipped_quietly(reason: str) -> bool:
    """Whether a log the report leaves out does not matter to the comparison: another Inspect task's log, or an
    unfinished log whose run later succeeded."""
    return reason.startswith(NOT_OURS) or (reason.startswith(SUPERSEDED) and "status" in reason)


async def _sort_left_out(
    name: str, log_path: str, reason: str, chosen: dict[str, Any], tasks: Sequence[str] | None, out: _LeftOut
) -> None:
    """Record one log the report left out (``reason``) where it belongs in ``out``: skipped quietly, or a line
    that makes the side incomplete (nothing for a log of a task not among ``tasks``)."""
    if _skipped_quietly(reason):
        out.skipped.append((log_path, reason))
        return
    if reason.startswith(UNREADABLE):
        out.incomplete.append(f"{name} log {log_path} is {reason}")
        return
    header = await read_eval_log_async(log_path, header_only=True)
    label = short_task_name(header.eval.task)
    if tasks and label not in tasks:
        return
    if reason.startswith(NO_MEASURES):
        out.incomplete.append(f"{name} log {log_path} of {label} cannot be compared: {reason}")
    elif reason.startswith(SUPERSEDED):
        _sort_superseded(name, log_path, reason, run_facts(log_path, header), chosen, out)
    else:
        out.incomplete.append(
            f"{name} log {log_path} of {label} ended with {reason} and no successful log of the run replaces it"
        )


def _kept_for(facts: dict[str, Any], chosen: dict[str, Any]) -> str | None:
    """The path of the chosen log of the same run and model as ``facts`` (:func:`run_facts`), if any."""
    fields = ("task", "model", "variant", "reasoning", "seed")
    wanted = tuple(facts[f] for f in fields)
    return next((path for path, row in chosen.items() if tuple(row[f] for f in fields) == wanted), None)


def _sort_superseded(
    name: str, log_path: str, reason: str, facts: dict[str, Any], chosen: dict[str, Any], out: _LeftOut
) -> None:
    """A successful log left out for another of its run (``facts``, :func:`run_facts`): another generate setting
    or as many samples competes (the run is conflicted, a line of ``out.incomplete``); fewer samples is skipped."""
    label = f"{facts['task']} (reasoning {facts['reasoning']}, {seed_text(int(facts['seed']))})"
    key = (facts["task"], facts["variant"], facts["reasoning"], int(facts["seed"]))
    kept = _kept_for(facts, chosen)
    if kept is not None and chosen[kept]["generate"] != facts["generate"]:
        out.incomplete.append(
            f"{name}: two settings compete for {label}: {log_path} (generate {facts['generate']}) and "
            f"{kept} (generate {chosen[kept]['generate']}); keep one setting's logs per directory"
        )
        out.conflicted.add(key)
    elif kept is not None and "covers more samples" not in reason:
        out.incomplete.append(
            f"{name}: two successful logs compete for {label}: {log_path} and {kept}, with as many samples "
            "each; keep one log per run in a directory"
        )
        out.conflicted.add(key)
    else:
        out.skipped.append((log_path, reason))


def _logs_by_run(chosen: dict[str, Any], tasks: Sequence[str] | None) -> dict[tuple[str, str, str, int], list[str]]:
    """The chosen logs (of ``tasks``, default all) by run key (:attr:`Run.key`): more than one is two models."""
    by_run: dict[tuple[str, str, str, int], list[str]] = {}
    for log_path, row in chosen.items():
        if not tasks or row["task"] in tasks:
            by_run.setdefault((row["task"], row["variant"], row["reasoning"], int(row["seed"])), []).append(log_path)
    return by_run


def _sort_competing_models(
    name: str, by_run: dict[tuple[str, str, str, int], list[str]], chosen: dict[str, Any], out: _LeftOut
) -> None:
    """Each run with logs of two models: conflicted, and a line of ``out.incomplete``."""
    competing = {key: paths for key, paths in by_run.items() if len(paths) > 1}
    out.conflicted |= set(competing)
    for (task, _variant, reasoning, seed), paths in sorted(competing.items()):
        models = " and ".join(f"{chosen[p]['model']} ({p})" for p in sorted(paths))
        out.incomplete.append(
            f"{name}: two models compete for {task} (reasoning {reasoning}, {seed_text(seed)}): {models}; "
            "keep one model's logs per directory"
        )


async def _usable_runs(name: str, by_run: dict[tuple[str, str, str, int], list[str]], out: _LeftOut) -> list[Run]:
    """The :class:`Run` of each run not conflicted, in run-key order; a log whose samples cannot be read is a line
    of ``out.incomplete``."""
    runs = []
    for key, paths in sorted(by_run.items()):
        if key in out.conflicted:
            continue
        try:
            runs.append(await _run_of(paths[0], await read_eval_log_async(paths[0], header_only=True)))
        except Exception as exc:  # noqa: BLE001 - a sample that cannot be read makes the log unreadable
            out.incomplete.append(f"{name} log {paths[0]} is {UNREADABLE}: {type(exc).__name__}: {exc}")
    return runs


async def _read_directory(name: str, path: str, tasks: Sequence[str] | None) -> Side:
    """The side of a log directory (:func:`read_side_async`): what the report left out sorted, two models of a run
    found, then each usable run read."""
    scores = await _directory_scores(path)
    chosen = {str(row["log"]): row for _, row in scores.runs.iterrows()}
    out = _LeftOut()
    for log_path, reason in scores.skipped:
        await _sort_left_out(name, log_path, reason, chosen, tasks, out)
    by_run = _logs_by_run(chosen, tasks)
    _sort_competing_models(name, by_run, chosen, out)
    runs = await _usable_runs(name, by_run, out)
    return Side(name, path, runs, out.skipped, out.incomplete, out.conflicted)


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


def _setting_mismatches(name: str, a: Run, b: Run) -> list[str]:
    """How runs ``a`` (baseline) and ``b`` (candidate) were made differently: task version, data, variant."""
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
    return problems


def _disjoint_samples(name: str, a: Run, b: Run) -> list[str]:
    """A problem when runs ``a`` and ``b`` were asked to run no sample in common (three ids of each as examples)."""
    if a.planned & b.planned:
        return []
    example_a = ", ".join(sorted(i for i, _ in a.planned)[:3])
    example_b = ", ".join(sorted(i for i, _ in b.planned)[:3])
    return [
        f"{name}: other sample set: no sample in common (baseline ids {example_a} …; candidate "
        f"ids {example_b} …). If the sample ids were renamed, regenerate the baseline (make "
        "baseline)"
    ]


def _other_golds(name: str, pair: RunPair) -> list[str]:
    """A problem when paired samples have another gold (target) on the two sides: how many, and the first."""
    a, b = pair.baseline, pair.candidate
    rows = ((a.samples.row(k), b.samples.row(k)) for k in pair.keys)
    differing = [
        (row_a, row_b)
        for row_a, row_b in rows
        if row_a is not None and row_b is not None and a.samples.target(row_a) != b.samples.target(row_b)
    ]
    if not differing:
        return []
    row_a, row_b = differing[0]
    sample_id = a.samples.key_of(row_a)[0]
    return [
        f"{name}: other sample set: {len(differing)} paired samples have another gold, e.g. "
        f"{sample_id}: {a.samples.target(row_a)!r} (baseline) vs {b.samples.target(row_b)!r} (candidate)"
    ]


def _mismatches(pair: RunPair) -> list[str]:
    """Why a run pair is unlike (empty when alike): version, data, variant, sample set."""
    a, b = pair.baseline, pair.candidate
    name = run_name(a)
    return _setting_mismatches(name, a, b) + _disjoint_samples(name, a, b) + _other_golds(name, pair)


@dataclass
class Pairing:
    """Run pairs, problems found (unlike runs) and one line per run on one side only."""

    pairs: list[RunPair]
    problems: list[str]
    unpaired: list[str]


def _pair(a: Run, b: Run) -> RunPair:
    """The pair of runs ``a`` (baseline) and ``b`` (candidate), expecting every sample either was asked to run."""
    return RunPair(a, b, sorted(a.planned | b.planned))


def _slot(run: Run) -> tuple[str, str, int]:
    """(task, reasoning, seed): the run key without the variant."""
    return run.task, run.reasoning, run.seed


def _pair_other_variants(left_a: list[Run], left_b: list[Run]) -> tuple[list[RunPair], list[Run], list[Run]]:
    """Pair each baseline run left over with the one candidate run left over of the same :func:`_slot` and another
    variant, when each side has exactly one there. Returns the pairs and the runs left unpaired on each side."""
    pairs, unpaired_a, unpaired_b = [], [], list(left_b)
    for run in left_a:
        same = [b for b in unpaired_b if _slot(b) == _slot(run)]
        if len(same) == 1 and sum(_slot(a) == _slot(run) for a in left_a) == 1:
            unpaired_b.remove(same[0])
            pairs.append(_pair(run, same[0]))
        else:
            unpaired_a.append(run)
    return pairs, unpaired_a, unpaired_b


def _unusable_lines(side: Side, theirs: Side) -> list[str]:
    """A line per run of ``side`` whose run on the other side has competing logs (:attr:`Side.conflicted`)."""
    return [
        f"{side.name} run {run_name(run)} [{run.variant}] has no usable {theirs.name} run (competing logs of it "
        f"in the {theirs.name}, listed above) ({run.path})"
        for run in side.runs
        if run.key in theirs.conflicted
    ]


def _left_over(runs: list[Run], taken: set[tuple[str, str, str, int]], conflicted: set) -> list[Run]:
    """The runs whose key is neither among ``taken`` (paired on the key) nor ``conflicted`` on the other side."""
    return [run for run in runs if run.key not in taken and run.key not in conflicted]


def _no_run_lines(side: str, other: str, runs: list[Run]) -> list[str]:
    """A line per run of ``side`` that found no run of the ``other`` side."""
    return [f"{side} run {run_name(run)} [{run.variant}] has no {other} run ({run.path})" for run in runs]


def pair_runs(baseline: Side, candidate: Side) -> Pairing:
    """Pair runs on (task, variant, reasoning, seed); then a run left on each side with the same (task,
    reasoning, seed) and another variant is paired with a problem "other task variant" (refused unless
    ``--allow-mismatch``), unless either side holds competing logs of the other run's own variant
    (:attr:`Side.conflicted`: that run is there, only not usable, so the runs stay unpaired). Within a run pair the
    samples expected are those either log was asked to run (:attr:`Run.planned`), paired on (id, epoch)."""
    cand_by_key = {run.key: run for run in candidate.runs}
    pairs = [_pair(run, cand_by_key[run.key]) for run in baseline.runs if run.key in cand_by_key]
    left_a = _left_over(baseline.runs, set(cand_by_key), candidate.conflicted)
    left_b = _left_over(candidate.runs, {run.key for run in baseline.runs}, baseline.conflicted)
    variant_pairs, unpaired_a, unpaired_b = _pair_other_variants(left_a, left_b)
    pairs += variant_pairs
    unpaired = _no_run_lines("baseline", "candidate", unpaired_a) + _no_run_lines("candidate", "baseline", unpaired_b)
    unpaired += _unusable_lines(baseline, candidate) + _unusable_lines(candidate, baseline)
    problems = [problem for pair in pairs for problem in _mismatches(pair)]
    return Pairing(pairs, problems, unpaired)
