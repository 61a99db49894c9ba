"""A large eval split by dataset into several ordinary Inspect evals, and their logs merged back into one.

``bediscover run --workers``/``--shard`` deal out evals (task x reasoning mode x seed). When a run has fewer evals
than client processes (``--workers`` x the shard count), a worker would sit idle while one eval (discourse
relations on ``full``, 32 corpora) holds the wall time. Such a run splits each eval's datasets (its ``dataset``
task parameter, which every task has) into ``ceil(processes / evals)`` parts of about equal sample counts
(:func:`balanced_parts`), each part an ordinary eval of the task with ``dataset=<its datasets>``. With
``--limit`` (the first N samples of the whole task, not of each part) nothing is split.

A part's log records the split in its task metadata (:data:`SPLIT`). Once every part of an eval has succeeded,
:func:`merge_parts` writes the eval's log: the parts' samples under the whole task's header, metrics recomputed
from them by Inspect (:func:`inspect_ai.log.recompute_metrics`), so it is the log one process would have written.
``report``, ``compare`` and ``rescore`` read that log; a part log is never used as a run
(:func:`bediscover_inspect.evallogs.scores.read_log_scores`).

The log directory decides a re-run's split (:func:`plan`): an eval that has a log of the whole task (finished, or
interrupted: Inspect resumes it) is not split, and one with part logs keeps their split, so a run resumed with
another number of workers resumes the same samples.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bediscover_inspect.evallogs.scores import parameters_of, short_task_name
from bediscover_inspect.metadata import SPLIT
from bediscover_inspect.tasks import task_function

MERGED = "merged_from"
"""Task-metadata key of a merged log: the file names of the part logs it holds."""

Cell = tuple[str, bool, int]
"""One eval of a run's grid: (task name, reasoning on, seed)."""

Piece = tuple[str, bool, int, tuple[str, ...]]
"""One eval a run starts: a cell and the datasets of its part (``()``: the whole task)."""


def balanced_parts(sizes: Mapping[str, int], count: int) -> list[tuple[str, ...]]:
    """``sizes`` (dataset -> samples, in the task's order) dealt into at most ``count`` parts of about equal
    samples: largest dataset first, each to the part with fewest samples so far (the longest-processing-time
    rule). Each part lists its datasets in the task's order; parts are ordered by their first dataset; no part is
    empty. ``balanced_parts({"a": 5, "b": 3, "c": 2}, 2) == [("a",), ("b", "c")]``."""
    order = list(sizes)
    totals = [0] * max(1, min(count, len(order)))
    members: list[list[str]] = [[] for _ in totals]
    for name in sorted(order, key=lambda n: (-sizes[n], order.index(n))):
        j = min(range(len(totals)), key=lambda k: (totals[k], k))
        totals[j] += sizes[name]
        members[j].append(name)
    parts = [tuple(sorted(m, key=order.index)) for m in members if m]
    return sorted(parts, key=lambda p: order.index(p[0]))


def parts_per_eval(evals: int, processes: int, limit: int | None) -> int:
    """Into how many parts each eval is split: ``ceil(processes / evals)`` when there are fewer evals than
    processes and no ``--limit``, else 1."""
    if limit is not None or evals == 0 or evals >= processes:
        return 1
    return math.ceil(processes / evals)


def plan(
    cells: Sequence[Cell],
    processes: int,
    limit: int | None,
    sizes_of: Callable[[str], Mapping[str, int]],
    existing: Mapping[Cell, list[tuple[str, ...]] | None],
) -> list[Piece]:
    """The evals a run starts for ``cells``, in grid order, each cell's parts together.

    Args:
        cells: the run's grid (before any shard's share).
        processes: client processes of the whole run (``--workers`` x shard count).
        limit: ``--limit`` (no split when given).
        sizes_of: task name -> its datasets' sample counts (called only for a task that is split).
        existing: what the log directory holds for a cell (:func:`existing_splits`): ``None`` for a log of the
            whole task (never split), a list of parts for a split already started (kept).
    """
    count = parts_per_eval(len(cells), processes, limit)
    split: dict[str, list[tuple[str, ...]]] = {}
    pieces: list[Piece] = []
    for cell in cells:
        if cell in existing:
            parts = existing[cell] or [()]
        elif count > 1:
            if cell[0] not in split:
                split[cell[0]] = balanced_parts(sizes_of(cell[0]), count)
            parts = split[cell[0]] if len(split[cell[0]]) > 1 else [()]
        else:
            parts = [()]
        pieces += [(*cell, part) for part in parts]
    return pieces


def sample_counts(task: Any) -> dict[str, int]:
    """Dataset -> samples of a built task, in the order of its ``dataset`` parameter (as loaded)."""
    counts = {str(name): 0 for name in task.metadata["parameters"]["dataset"]}
    for sample in task.dataset:
        name = str((sample.metadata or {})["dataset"])
        counts[name] = counts.get(name, 0) + 1
    return counts


def mark_part(task: Any, parts: Sequence[tuple[str, ...]], part: tuple[str, ...], given: Any, whole: Any) -> None:
    """Record in ``task`` (the part ``part`` of ``parts``) the split it belongs to (:data:`SPLIT`); ``whole`` is the
    task built with the ``dataset`` argument ``given``."""
    task.metadata = dict(task.metadata) | {
        SPLIT: {
            "parts": [list(p) for p in parts],
            "part": list(parts).index(part) + 1,
            "given": given,
            "datasets": list(whole.metadata["parameters"]["dataset"]),
            "data": whole.metadata.get("data") or {},
            "absent": whole.metadata.get("absent") or {},
        }
    }


def split_of(log: Any) -> dict[str, Any] | None:
    """A part log's :data:`SPLIT` metadata; ``None`` for any other log."""
    metadata = log.eval.metadata if isinstance(log.eval.metadata, dict) else {}
    value = metadata.get(SPLIT)
    return value if isinstance(value, dict) else None


def cell_of(log: Any) -> Cell | None:
    """A log's (task, reasoning on, seed); ``None`` when its generate config has no seed."""
    config = getattr(log.plan, "config", None)
    seed = getattr(config, "seed", None)
    if seed is None:
        return None
    return short_task_name(log.eval.task), bool(parameters_of(log).get("reasoning", False)), int(seed)


def piece_of(log: Any) -> Piece | None:
    """A log's :data:`Piece`: its :func:`cell_of` and, for a part log, the datasets of its part (``()`` for any
    other log); ``None`` when it has no cell. The parts of one eval share the cell, so only the piece tells a
    worker's part from another worker's."""
    cell = cell_of(log)
    if cell is None:
        return None
    split = split_of(log)
    return (*cell, tuple(split["parts"][int(split["part"]) - 1]) if split else ())


def _whole_args(log: Any) -> str:
    """The task arguments a part log's whole eval was passed (its own without ``dataset``, plus what the whole was
    given), as JSON: equal for the parts of one eval."""
    split = split_of(log) or {}
    args = {k: v for k, v in (log.eval.task_args_passed or {}).items() if k != "dataset"}
    if split.get("given") is not None:
        args["dataset"] = split["given"]
    return json.dumps(args, sort_keys=True, default=str)


def existing_splits(headers: Sequence[Any], model: str) -> dict[Cell, list[tuple[str, ...]] | None]:
    """What a log directory's logs (``headers``) of ``model`` fix for a re-run's :func:`plan`: a cell with a log of
    the whole task, finished or not (Inspect resumes it) -> ``None``; else a cell with part logs -> the parts of the
    newest one."""
    found: dict[Cell, list[tuple[str, ...]] | None] = {}
    for log in sorted(headers, key=lambda h: str(h.eval.created)):
        cell = cell_of(log)
        if cell is None or log.eval.model != model or found.get(cell, []) is None:
            continue
        split = split_of(log)
        metadata = log.eval.metadata if isinstance(log.eval.metadata, dict) else {}
        if MERGED in metadata:  # the parts it was merged from decide
            continue
        if split is None:
            found[cell] = None
        else:
            found[cell] = [tuple(p) for p in split["parts"]]
    return found


def merge_parts(log_dir: str, headers: Sequence[Any]) -> list[Any]:
    """Write the merged log of every split eval whose parts have all succeeded (``headers``: the log directory's
    logs) and that has none yet; returns the headers of the logs written."""
    from inspect_ai.log import read_eval_log

    groups, merged = _split_groups(headers)
    written = []
    for key, parts in sorted(groups.items(), key=lambda item: str(item[0])):
        count = len(json.loads(key[3]))
        if sorted(parts) != list(range(1, count + 1)):
            continue
        logs = [read_eval_log(parts[j].location) for j in range(1, count + 1)]
        log = merged_log(logs)
        parameters = json.dumps(log.eval.metadata["parameters"], sort_keys=True, default=str)
        if (key[0], key[1], parameters) in merged:
            continue
        written.append(_write(log, log_dir))
    return written


def _split_groups(
    headers: Sequence[Any],
) -> tuple[dict[tuple[Any, ...], dict[int, Any]], set[tuple[Any, ...]]]:
    """The successful part logs of ``headers`` grouped by split eval (cell, model, whole arguments, parts) ->
    {part number: the newest log of that part}; and the (cell, model, parameters) of the merged logs there are."""
    groups: dict[tuple[Any, ...], dict[int, Any]] = {}
    merged: set[tuple[Any, ...]] = set()
    for log in headers:
        cell = cell_of(log)
        if cell is None or log.status != "success":
            continue
        split = split_of(log)
        metadata = log.eval.metadata if isinstance(log.eval.metadata, dict) else {}
        if split is None:
            if MERGED in metadata:
                merged.add((cell, log.eval.model, json.dumps(metadata.get("parameters"), sort_keys=True, default=str)))
            continue
        key = (cell, log.eval.model, _whole_args(log), json.dumps(split["parts"]))
        newer = groups.setdefault(key, {}).get(split["part"])
        if newer is None or str(newer.eval.created) < str(log.eval.created):
            groups[key][split["part"]] = log
    return groups, merged


def merged_log(parts: Sequence[Any]) -> Any:
    """One eval log from the logs of every part of a split eval (read whole, in part order): the first part's
    header with the whole task's arguments and metadata and every part's scorers, every part's samples in the whole
    task's dataset order, summed usage, and metrics recomputed from the samples.

    Raises:
        ValueError: a part without samples (see :func:`inspect_ai.log.recompute_metrics`).
    """
    from inspect_ai.log import recompute_metrics

    task_function(short_task_name(parts[0].eval.task))  # registers the task's scorers and metrics

    first = parts[0].model_copy(deep=True)
    split = split_of(first) or {}
    order = {name: j for j, name in enumerate(split["datasets"])}
    # the same parts give the same ids (and file name): two shards that merge at once write one log; a task id of
    # its own, as Inspect's eval set removes the older logs of a task id
    digest = hashlib.sha1(" ".join(p.eval.eval_id for p in parts).encode()).hexdigest()
    first.eval.eval_id, first.eval.task_id = digest[:22], digest[22:]
    first.eval.scorers = _merged_scorers(parts)
    first.eval.task_args_passed, first.eval.task_args = _whole_task_args(first, split)
    first.eval.metadata = _merged_metadata(first, split, parts)
    first.eval.dataset.samples = sum(p.eval.dataset.samples or 0 for p in parts)
    first.eval.dataset.sample_ids = _merged_sample_ids(parts, order)
    first.samples = _merged_samples(parts, order)
    first.stats.started_at = min(p.stats.started_at for p in parts)
    first.stats.completed_at = max(p.stats.completed_at for p in parts)
    first.stats.model_usage = _summed_usage(parts)
    recompute_metrics(first)
    return first


def _merged_samples(parts: Sequence[Any], order: Mapping[str, int]) -> list[Any]:
    """Every part's samples in the whole task's dataset ``order`` (dataset -> position), then by epoch."""
    samples = [sample for part in parts for sample in part.samples or []]
    samples.sort(key=lambda s: (order.get(str((s.metadata or {}).get("dataset")), len(order)), s.epoch))
    return samples


def _merged_sample_ids(parts: Sequence[Any], order: Mapping[str, int]) -> list[Any]:
    """Every part's sample ids in the whole task's dataset ``order`` (an id starts with its dataset's name)."""
    ids: list[Any] = []
    for part in parts:
        ids += list(part.eval.dataset.sample_ids or [])
    ids.sort(key=lambda i: order.get(str(i).split("_", 1)[0], len(order)))
    return ids


def _whole_task_args(first: Any, split: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The whole task's arguments (passed, resolved): the first part's without its ``dataset``, plus the
    ``dataset`` the whole task was given (:func:`mark_part`)."""
    passed = {k: v for k, v in (first.eval.task_args_passed or {}).items() if k != "dataset"}
    resolved = dict(first.eval.task_args or {})
    resolved.pop("dataset", None)
    if split.get("given") is not None:
        passed["dataset"] = resolved["dataset"] = split["given"]
    return passed, resolved


def _merged_metadata(first: Any, split: Mapping[str, Any], parts: Sequence[Any]) -> dict[str, Any]:
    """The whole task's metadata: the first part's without :data:`SPLIT`, with the whole task's datasets, data
    files and absent datasets, and the part logs' file names under :data:`MERGED`."""
    metadata = {k: v for k, v in first.eval.metadata.items() if k != SPLIT}
    metadata["parameters"] = dict(metadata["parameters"]) | {"dataset": split["datasets"]}
    metadata |= {"data": split["data"], "absent": split["absent"], MERGED: [_name(p.location) for p in parts]}
    return metadata


def _merged_scorers(parts: Sequence[Any]) -> list[Any]:
    """Every part's scorers, each name once, in order of first appearance (a part's task has the scorers of its
    datasets only: temporal reasoning's relations and ToT)."""
    scorers: dict[str, Any] = {}
    for part in parts:
        scorers |= {scorer.name: scorer for scorer in part.eval.scorers or [] if scorer.name not in scorers}
    return list(scorers.values())


def _summed_usage(parts: Sequence[Any]) -> dict[str, Any]:
    """Model usage summed over the parts, per model."""
    usage: dict[str, Any] = {}
    for part in parts:
        for model, used in part.stats.model_usage.items():
            usage[model] = usage[model] + used if model in usage else used
    return usage


def _name(location: str) -> str:
    return str(location).replace("\\", "/").rsplit("/", 1)[-1]


def _write(log: Any, log_dir: str) -> Any:
    """Write ``log`` into ``log_dir`` under Inspect's file-name pattern (``<created>_<task>_<eval id>.eval``,
    ``created`` the first part's)."""
    from inspect_ai.log import write_eval_log

    created = str(log.eval.created).replace(":", "-").replace("+", "-")
    task = short_task_name(log.eval.task).replace("_", "-")
    location = f"{str(log_dir).rstrip('/')}/{created}_{task}_{log.eval.eval_id}.eval"
    write_eval_log(log, location)
    log.location = location
    return log
