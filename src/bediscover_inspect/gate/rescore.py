"""``bediscover rescore``: score existing logs again with the suite's current scorers, without calling a model.

    bediscover rescore logs/base --out logs/base-rescored
    bediscover compare --baseline logs/base --candidate logs/base-rescored --require-identical

Each successful suite log under the source (a directory, searched recursively, or one log file) has its scorers
looked up by name among the current scorers (:data:`SCORERS`) and run again over the logged samples with
:func:`inspect_ai.score_async` (``action="overwrite"``: the old scores and metrics are replaced, the samples'
completions, messages, metadata and store are kept). The new log is written under ``--out`` with the source file's
name. The scorers call no model; Inspect's ``mockllm/model`` stands in as the active model, so neither the model's
provider package nor its API key is needed.

Memory: an ``.eval`` log is opened once (a store's log copied into a temporary file) and its samples are read,
scored and written one at a time, in the order Inspect's ``read_eval_log`` sorts them (so the metrics see them in
the same order), into a temporary file that is then moved or uploaded to ``--out``: at most
:data:`SAMPLES_IN_FLIGHT` samples being scored and a batch waiting to be written
(:class:`~bediscover_inspect._inspect_compat.LogWriter`, which keeps no sample summary either) are in memory at
once. ``score_async`` is given :data:`SAMPLES_PER_PASS` samples at a time (it starts a task per sample it is given
and keeps their scores); each sample's new scores wait in a temporary file and are read back when every sample is
scored and written (:func:`_kept_scores`), and the metrics are computed over them by Inspect's own metric pass as
``score_async`` runs it (:func:`~bediscover_inspect._inspect_compat.score_results`): the results equal one
``score_async`` over the whole log. What grows with the samples (about 2 KB each between 4,000 and 10,000
samples, ``benchmarks/results/log_reading_rescore.md``) is those scores and the zip directories of the two
archives; ``summaries.json`` is compressed on one thread
(:meth:`~bediscover_inspect._inspect_compat.LogWriter.finish`). A ``.json`` log (one JSON document) is read
whole. Everything is read and written through the event loop's one store client.

What is replayed: each scorer reads what it reads in a live run — the final completion for the label tasks and
sentence ordering, the sample metadata for the gold — so a change of a parser, an alias list or a metric shows
up. Incremental dialogue parsing is the exception: its solver parses each turn while the model runs (the next
prompt shows the parse) and the scorer counts from that stored parse, so a change of the relation parser needs
a new run of the model (whether a turn echoes its prompt is decided by the scorer, so that is re-checked), and a
turn's stop reason is in its stored record only (a log written before it was recorded counts no turn cut off).
A label, ToT or ordering reply's stop reason is its logged output's; the ``max_tokens`` sent is not known to a
re-score, so the scores' ``max_tokens`` is ``None`` (:mod:`bediscover_inspect.causes`).
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import posixpath
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from inspect_ai import score_async
from inspect_ai.log import EvalResults, read_eval_log_async, write_eval_log_async
from inspect_ai.scorer import SampleScore

from bediscover_inspect._inspect_compat import LogWriter, parse_sample, run_coroutine, score_results, upload_log
from bediscover_inspect.evallogs.samples import member_key, open_archive, sample_members
from bediscover_inspect.evallogs.store import filesystem, is_url, kind, list_logs_async, local_path
from bediscover_inspect.gate.pairing import LOG_SUFFIXES
from bediscover_inspect.measures import SCORERS as CATALOG_SCORERS
from bediscover_inspect.metadata import BENCHMARK


class RescoreError(ValueError):
    """A source that cannot be re-scored (missing, no suite log, unknown scorer): the message names it."""


def _scorers() -> dict[str, Callable[[], Any]]:
    """Each catalog scorer's factory, from its task's ``scorer`` module (imported here: the task modules are
    imported only when a log is re-scored)."""
    return {
        name: getattr(importlib.import_module(f"bediscover_inspect.{s.task}.scorer"), name)
        for name, s in CATALOG_SCORERS.items()
    }


SCORERS: tuple[str, ...] = tuple(CATALOG_SCORERS)
"""The suite's scorers by the name a log records (``log.eval.scorers[i].name``): the measure catalog's
(:data:`bediscover_inspect.measures.SCORERS`)."""


SAMPLES_IN_FLIGHT = 8
"""Samples of a log read and being scored at once (each is parsed with its whole transcript)."""

SAMPLES_PER_PASS = 500
"""Samples given to one ``score_async`` call: it starts a task for each sample it is given at once and keeps each
one's scores and sample metadata until its own metric pass, so a log is scored in passes of this many."""


@dataclass(frozen=True)
class Rescored:
    """One log re-scored: ``source`` read, ``output`` written, ``samples`` scored."""

    source: str
    output: str
    samples: int


async def rescore_log(log: Any) -> Any:
    """The log re-scored by the current scorers of the names it records (the log given is not changed), in the
    running event loop.

    Raises:
        RescoreError: a scorer name that is not one of :data:`SCORERS`, or a log without samples.
    """

    scorers = _scorers_of(log)
    if not log.samples:
        raise RescoreError(f"log {log.location}: holds no samples to re-score (written with --no-log-samples?)")
    return await score_async(log, scorers, action="overwrite", model="mockllm/model", display="none")


def _scorers_of(log: Any) -> list[Any]:
    """The current scorers of the names ``log`` records.

    Raises:
        RescoreError: a name that is not one of :data:`SCORERS`, or none.
    """
    factories = _scorers()
    names = [scorer.name for scorer in (log.eval.scorers or [])]
    unknown = [name for name in names if name not in factories]
    if unknown or not names:
        raise RescoreError(
            f"log {log.location}: scorer(s) {unknown or names} are not scorers of the suite ({', '.join(SCORERS)})"
        )
    return [factories[name]() for name in names]


class _UnreadableSample(Exception):
    """A sample member of the log being re-scored cannot be read (the log is then left out as unreadable)."""


def _sort_key(key: tuple[str, int], typed: dict[str, Any]) -> tuple[int, str]:
    """Inspect's order of samples (``sort_samples``: epoch, then the id, a number zero-filled to 20 digits) of a
    member key, the id's type taken from the header's sample list (``typed``: id text -> id)."""
    sample_id = typed.get(key[0], key[0])
    return key[1], sample_id if isinstance(sample_id, str) else str(sample_id).zfill(20)


async def rescore_archive(location: str, header: Any, path: str) -> int:
    """Re-score the ``.eval`` log at ``location`` (a path or a store URL; ``header``: its header) into a new log at
    the local ``path``, one sample at a time (module docstring). Returns the samples written.

    The source archive's directory and the kept scores are let go before the log is finished: the finish reads
    the new archive's directory again (Inspect's writer reopens its file), into the memory they free.

    Raises:
        RescoreError: see :func:`rescore_log`.
        _UnreadableSample: a sample member that cannot be read or validated.
    """
    scorers = _scorers_of(header)
    with tempfile.TemporaryFile() as spill:  # each sample's new scores, pickled, until the metric pass
        writer, new, samples, completed = await _score_in_passes(location, header, path, scorers, spill)
        final = header.model_copy(update={"eval": header.eval.model_copy(update={"scorers": new.eval.scorers})})
        if final.results is not None:
            final.results = final.results.model_copy(update={"total_samples": samples})
        else:
            final.results = EvalResults(total_samples=samples)
        final.results, final.reductions = score_results(final, scorers, _kept_scores(spill, samples), completed)
    await writer.finish(final)
    return samples


async def _score_in_passes(
    location: str, header: Any, path: str, scorers: list[Any], spill: Any
) -> tuple[LogWriter, Any, int, int]:
    """Score every sample of the ``.eval`` log at ``location`` in passes of :data:`SAMPLES_PER_PASS`, each sample
    written to a new log at ``path`` and its new scores pickled into ``spill`` as it is scored.

    Returns:
        ``(writer, last pass's log, samples, samples without an error)``: the writer still open.
    """
    typed = {str(i): i for i in getattr(header.eval.dataset, "sample_ids", None) or []}
    completed = 0
    async with open_archive(location) as archive:
        members = sorted(sample_members(archive), key=lambda info: _sort_key(member_key(info), typed))
        if not members:
            raise RescoreError(f"log {location}: holds no samples to re-score (written with --no-log-samples?)")
        writer = await LogWriter(path, header).start()
        gate = anyio.Semaphore(SAMPLES_IN_FLIGHT)
        new = header
        for first in range(0, len(members), SAMPLES_PER_PASS):
            batch = members[first : first + SAMPLES_PER_PASS]

            @asynccontextmanager
            async def sample(index: int, batch: list[Any] = batch, first: int = first) -> AsyncIterator[Any]:
                nonlocal completed
                async with gate:
                    try:
                        data = parse_sample(json.loads(archive.read(batch[index])))
                    except Exception as exc:  # noqa: BLE001 - the log is reported unreadable, as a whole read would
                        raise _UnreadableSample(f"{batch[index].filename}: {type(exc).__name__}: {exc}") from exc
                    yield data
                    pickle.dump((first + index, data.id, data.metadata, data.scores or {}), spill)
                    completed += data.error is None
                    await writer.write(data)

            new = await score_async(
                _pass_header(header, len(batch)),
                scorers,
                action="overwrite",
                model="mockllm/model",
                display="none",
                samples=sample,
            )
    return writer, new, len(members), completed


def _kept_scores(spill: Any, samples: int) -> list[dict[str, SampleScore]]:
    """The ``SampleScore`` of each sample's new scores, as ``score_async`` keeps them for its metric pass (the score,
    the sample's id and metadata, the scorer's name), in the samples' order, samples without a score left out, from
    the records pickled into ``spill`` (``(position, id, metadata, scores)``, in the order the samples were scored).

    The records wait on disk while the samples are scored and written, and the scores are built here at once after,
    rather than one by one among the whole samples parsed and written after each (peak RSS of a 43,716-sample log
    504 -> 480 MB, ``benchmarks/results/log_reading_rescore.md``). Equal dicts are held once (:class:`_Shared`); the
    pickled scores are Inspect's objects as they were.
    """
    shared = _Shared()
    kept: list[dict[str, SampleScore] | None] = [None] * samples
    spill.seek(0)
    while True:
        try:
            position, sample_id, metadata, scores = pickle.load(spill)
        except EOFError:
            break
        metadata = shared(metadata)
        for score in scores.values():
            score.value, score.metadata = shared(score.value), shared(score.metadata)
        # built without validation, which would copy the shared metadata
        kept[position] = {
            name: SampleScore.model_construct(score=score, sample_id=sample_id, sample_metadata=metadata, scorer=name)
            for name, score in scores.items()
        }
    return [scores for scores in kept if scores]


class _Shared:
    """Equal dicts kept once: a kept score's value and metadata and its sample's metadata repeat across samples (the
    same gold, dataset, counts), so each distinct one is held once, up to :attr:`LIMIT` distinct ones (any later one
    is kept as it is). Dicts are equal when their JSON texts are (so in the same key order); one that is not JSON
    is kept as it is. Nothing that reads the kept scores (Inspect's metric pass, the suite's metrics) changes them."""

    LIMIT = 20_000

    def __init__(self) -> None:
        self._seen: dict[str, Any] = {}

    def __call__(self, value: Any) -> Any:
        """``value``, or the equal dict seen before it."""
        if not isinstance(value, dict):
            return value
        try:
            key = json.dumps(value)
        except (TypeError, ValueError):
            return value
        seen = self._seen.get(key)
        if seen is not None:
            return seen
        if len(self._seen) < self.LIMIT:
            self._seen[key] = value
        return value


def _pass_header(header: Any, samples: int) -> Any:
    """The header one score pass over ``samples`` samples is given: ``results.total_samples`` the samples it scores
    (``score_async`` reads the count from there), the dataset's sample id list left out (``score_async`` copies
    the header it is given and does not read the list)."""
    results = header.results or EvalResults()
    dataset = header.eval.dataset.model_copy(update={"sample_ids": None})
    return header.model_copy(
        update={
            "eval": header.eval.model_copy(update={"dataset": dataset}),
            "results": results.model_copy(update={"total_samples": samples}),
        }
    )


def rescore(source: str | Path, out: str | Path) -> tuple[list[Rescored], list[tuple[str, str]]]:
    """Re-score every successful suite log under ``source`` into ``out`` (module docstring); either may be a
    local path or an fsspec URL (``s3://bucket/run``). Everything is read and written in one event loop, so a store
    is used through one client; one log is re-scored at a time, its samples streamed (module docstring).

    A URL ending in ``.eval`` or ``.json`` is taken for one log file, any other for a directory (a store is not
    asked what it holds first, which would take a client of its own).

    Returns:
        ``(rescored, skipped)``: the logs written, and ``(path, reason)`` of logs left as they are (another
        Inspect task, not successful).

    Raises:
        RescoreError: ``source`` does not exist, ``out`` is a file, the source directory itself, inside it or
            holding it (:func:`refuse_nested`), no log was re-scored, or a log cannot be (see :func:`rescore_log`).
    """
    source, out = str(source), str(out)
    try:
        source_kind = _kind(source)
        out_kind = "file" if is_url(out) and out.endswith(LOG_SUFFIXES) else "dir" if is_url(out) else kind(out)
    except (OSError, ValueError) as exc:  # a store that refuses the listing, a URL scheme without its package
        raise RescoreError(f"cannot read {source} or {out}: {exc}") from exc
    if source_kind == "missing":
        raise RescoreError(f"not found: {source}")
    if out_kind == "file":
        raise RescoreError(f"--out is not a directory: {out}")
    (source_fs, source_root), (out_fs, out_root) = filesystem(source), filesystem(out)
    if source_kind == "dir" and type(source_fs) is type(out_fs):
        refuse_nested(source, source_root, out, out_root, local=not is_url(source))
    elif type(source_fs) is type(out_fs) and overwrites_source(source_root, out_root, local=not is_url(source)):
        raise RescoreError(f"--out {out} holds the source log {source}: re-scoring would overwrite it")
    done, skipped = run_coroutine(_rescore_all(source, source_kind, source_root, out))
    if not done:
        raise RescoreError(f"{source}: no successful {BENCHMARK} log to re-score")
    return done, skipped


def _kind(location: str) -> str:
    """``"dir"``, ``"file"`` or ``"missing"`` (:func:`~bediscover_inspect.evallogs.store.kind`); a URL is told by
    its name (:data:`~bediscover_inspect.gate.pairing.LOG_SUFFIXES`: a file), never by asking the store."""
    if is_url(location):
        return "file" if location.endswith(LOG_SUFFIXES) else "dir"
    return kind(location)


async def _rescore_all(
    source: str, source_kind: str, source_root: str, out: str
) -> tuple[list[Rescored], list[tuple[str, str]]]:
    """:func:`rescore`'s reading, scoring and writing, in the running event loop."""
    if source_kind == "dir":
        try:
            paths = sorted(local_path(info.name) for info in await list_logs_async(source))
        except FileNotFoundError as exc:
            raise RescoreError(f"not found: {source}") from exc
    else:
        paths = [source]
    out_fs, out_root = filesystem(out)
    done: list[Rescored] = []
    skipped: list[tuple[str, str]] = []
    for path in paths:
        try:
            header = await read_eval_log_async(path, header_only=True)
        except Exception as exc:  # noqa: BLE001 - reported and skipped, never a traceback
            skipped.append((path, f"unreadable: {type(exc).__name__}: {exc}"))
            continue
        metadata = header.eval.metadata if isinstance(header.eval.metadata, dict) else {}
        if metadata.get("benchmark") != BENCHMARK:
            skipped.append((path, f"not a {BENCHMARK} log"))
            continue
        if header.status != "success":
            skipped.append((path, f"status {header.status}"))
            continue
        inner = filesystem(path)[1]
        relative = posixpath.relpath(inner, source_root) if source_kind == "dir" else posixpath.basename(inner)
        target = posixpath.join(out_root, relative)
        location = out_fs.unstrip_protocol(target) if is_url(out) else posixpath.join(out, relative)
        with tempfile.TemporaryDirectory() as work:
            written = os.path.join(work, posixpath.basename(inner))
            try:
                samples = await _rescore_into(path, header, written)
            except _UnreadableSample as exc:
                skipped.append((path, f"unreadable: {exc}"))
                continue
            if is_url(out):  # a store has no directories to make
                with open(written, "rb") as file:
                    await upload_log(file, location)
            else:
                out_fs.makedirs(posixpath.dirname(target), exist_ok=True)
                shutil.move(written, local_path(location))
        done.append(Rescored(path, location, samples))
    return done, skipped


async def _rescore_into(path: str, header: Any, written: str) -> int:
    """Re-score the log at ``path`` into the local file ``written``: an ``.eval`` log sample by sample
    (:func:`rescore_archive`), a ``.json`` log read whole. Returns the samples written."""
    if not path.endswith(".json"):
        return await rescore_archive(path, header, written)
    try:
        log = await read_eval_log_async(path)
    except Exception as exc:  # noqa: BLE001 - reported as unreadable, never a traceback
        raise _UnreadableSample(f"{type(exc).__name__}: {exc}") from exc
    new = await rescore_log(log)
    await write_eval_log_async(new, written)
    return len(new.samples or [])


def refuse_nested(source: str, source_root: str, out: str, out_root: str, local: bool) -> None:
    """Refuse an ``--out`` that is the source directory, inside it, or holds it (paths within one filesystem;
    ``local``: resolved first, so a symbolic link or ``..`` does not hide it): the re-scored logs would join the
    source's runs, and every later ``compare --baseline`` of the source (or ``report`` of ``--out``) would find two
    logs of each run.

    Raises:
        RescoreError: the message names both locations.
    """
    import os

    a, b = (os.path.realpath(p) if local else p.rstrip("/") for p in (source_root, out_root))
    if a == b:
        raise RescoreError(f"--out {out} is the source directory; give another directory (the source logs are kept)")
    if b.startswith(a.rstrip("/") + "/"):
        raise RescoreError(
            f"--out {out} is inside the source {source}: its logs would be read as more runs of the source; "
            "give a directory outside it"
        )
    if a.startswith(b.rstrip("/") + "/"):
        raise RescoreError(
            f"--out {out} holds the source {source}: the re-scored logs would sit beside the source's runs; give a "
            "directory outside it"
        )


def overwrites_source(source_root: str, out_root: str, local: bool) -> bool:
    """Whether the re-scored log of the single log ``source_root`` would be written over it (``--out`` is its
    directory)."""
    import os
    import posixpath

    target = posixpath.join(out_root, posixpath.basename(source_root))
    return (os.path.realpath(target) == os.path.realpath(source_root)) if local else target == source_root


def add_arguments(parser: Any) -> None:
    """The options of ``bediscover rescore``."""
    parser.add_argument("source", metavar="LOG_OR_DIR", help="a log file or a log directory (searched recursively)")
    parser.add_argument("--out", required=True, help="directory for the re-scored logs (same file names)")


def run_command(args: Any) -> int:
    """Run ``bediscover rescore`` from parsed arguments; prints one line per log; returns 0."""
    done, skipped = rescore(args.source, args.out)
    for path, reason in skipped:
        print(f"note: left out {path}: {reason}", file=sys.stderr)
    for item in done:
        print(f"rescored {item.source} -> {item.output} ({item.samples} samples)")
    print(f"bediscover rescore: {len(done)} logs in {args.out}")
    return 0
