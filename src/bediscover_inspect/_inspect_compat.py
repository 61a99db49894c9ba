"""Every private inspect_ai name the project uses, imported here and nowhere else (:data:`PRIVATE_NAMES`).

Inspect's public API (``inspect_ai``, ``inspect_ai.model``, ``inspect_ai.scorer``, ``inspect_ai.util`` …) is used
directly everywhere. The names here have no public equivalent in inspect-ai 0.3.x. After an Inspect upgrade,
``tests/shared/test_inspect_compat.py`` fails for each one that moved or went, naming it and its use; the
functions raise an ``ImportError`` saying the same when called, and the two exception classes fall back to
``Exception`` (the messages stay, Inspect's CLI then adds a traceback).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

PRIVATE_NAMES: dict[str, tuple[str, str]] = {
    "PrerequisiteError": (
        "inspect_ai._util.error",
        "Inspect's CLI prints it without a traceback: the data errors derive from it, bediscover run reads a "
        "provider that is not set up from it",
    ),
    "SilentException": (
        "inspect_ai._util.error",
        "Inspect's CLI exits 1 on it silently: a task that refused its arguments has printed its own message",
    ),
    "active_model": (
        "inspect_ai.model._model",
        "presets='auto' reads the Table 7 family of the model being evaluated while the task is built "
        "(get_model() would create one from INSPECT_EVAL_MODEL)",
    ),
    "active_generate_config": (
        "inspect_ai.model._generate_config",
        "scorers record the max_tokens sent (the task's preset merged with the command line) beside a cut-off reply",
    ),
    "sample_state": ("inspect_ai.solver._task_state", "tests: a scripted mock model answers the sample it serves"),
    "eval_results": (
        "inspect_ai._eval.task.results",
        "rescore computes a re-scored log's metrics over the scores it kept, as score_async does; benchmarks time "
        "Inspect's metric pass over sample scores",
    ),
    "metrics_from_log_header": (
        "inspect_ai._eval.score",
        "rescore's metric pass takes a log's own metrics (if it records any) as score_async does",
    ),
    "reducers_from_log_header": (
        "inspect_ai._eval.score",
        "rescore's metric pass takes a log's epoch reducers as score_async does",
    ),
    "resolve_scorer_metrics": (
        "inspect_ai._eval.task.task",
        "rescore's metric pass puts a log's own metrics on the scorers as score_async does",
    ),
    "eval_set_id_for_log_dir": (
        "inspect_ai._eval.evalset",
        "bediscover run --workers fixes the eval set id of the log dir (.eval-set-id) before its workers start",
    ),
    "run_coroutine": (
        "inspect_ai._util._async",
        "report reads a log directory (listing, headers, the class tables' logs) in one event loop with one "
        "store client, compare and bediscover run its headers (the public read_eval_log opens a new S3 client "
        "per log)",
    ),
    "filesystem": (
        "inspect_ai._util.file",
        "report, compare and rescore list a local log directory as list_eval_logs does, without reading the header "
        "of every log whose file name is not Inspect's (list_eval_logs reads all of them at once to name their task)",
    ),
    "_list_log_files": ("inspect_ai.log._file", "the same listing of a local log directory"),
    "_filter_log_files": ("inspect_ai.log._file", "the same listing: its log files, newest first"),
    "AsyncFilesystem": (
        "inspect_ai._util.asyncfiles",
        "report, compare and rescore copy a log on a store into a temporary file through the event loop's one "
        "store client before reading its samples one at a time (Inspect's read_eval_log copies it the same way)",
    ),
    "EvalRecorder": (
        "inspect_ai.log._recorders.eval",
        "rescore writes a re-scored .eval log a batch of samples at a time into the recorder's temporary file "
        "(its data[...].write_buffered_samples; the public write_eval_log takes a log holding every sample)",
    ),
    "_ZSTD_THREADS": (
        "inspect_ai._util.zipfile",
        "rescore's log writer compresses summaries.json on one thread (LogWriter: Inspect's worker threads queue "
        "the member's input in jobs of megabytes, a queue that grows with the log)",
    ),
    "get_deserializing_context": (
        "inspect_ai._util.constants",
        "rescore validates each sample of an .eval archive as read_eval_log validates them",
    ),
    "_resolve_sample_for_read": (
        "inspect_ai.log._file",
        "rescore resolves each sample of an .eval archive (its events' shared data, its timelines) as read_eval_log "
        "resolves them",
    ),
    "task_scores": (
        "inspect_ai._display.core.results",
        "bediscover run: the end-of-eval panel shows no metric rows (the run ends with its own table)",
    ),
    "task_can_retry": (
        "inspect_ai._display.core.results",
        "bediscover run: an interrupted eval's panel names no `inspect eval-retry` (the run prints its resume hint)",
    ),
    "py_logger": (
        "inspect_ai._eval.task.run",
        "bediscover run: the logger of Inspect's sample-error warnings, shown once per kind of error",
    ),
}
"""Name -> (the private Inspect module it comes from, what the project uses it for)."""

try:
    from inspect_ai._util.error import PrerequisiteError
except ImportError:  # pragma: no cover - an Inspect without it: the same message, with a traceback
    PrerequisiteError = Exception  # type: ignore[misc,assignment]

try:
    from inspect_ai._util.error import SilentException
except ImportError:  # pragma: no cover - an Inspect without it: the message, then a traceback
    SilentException = Exception  # type: ignore[misc,assignment]


def private_name(name: str) -> Any:
    """The private Inspect object ``name`` (a key of :data:`PRIVATE_NAMES`), imported from its module.

    Raises:
        ImportError: this Inspect no longer has it; the message names the module and what the project uses it for.
    """
    module, purpose = PRIVATE_NAMES[name]
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        from importlib.metadata import version

        raise ImportError(
            f"inspect-ai {version('inspect-ai')} has no {module}.{name} (used for: {purpose}); "
            "update bediscover_inspect/_inspect_compat.py"
        ) from exc


def active_model() -> Any | None:
    """The Inspect ``Model`` being evaluated, or ``None`` outside an eval; never creates one."""
    return private_name("active_model")()


def active_generate_config() -> Any:
    """The ``GenerateConfig`` of the running task (Inspect's default, all ``None``, outside one)."""
    return private_name("active_generate_config")()


def sample_state() -> Any | None:
    """The ``TaskState`` of the sample whose solver is running, or ``None`` outside a sample."""
    return private_name("sample_state")()


def run_coroutine(coroutine: Any) -> Any:
    """Run ``coroutine`` (one of Inspect's ``…_async`` log functions) to its result as Inspect's synchronous log
    functions do: one event loop with one async filesystem, so one S3 client for everything it reads."""
    return private_name("run_coroutine")(coroutine)


def local_log_files(log_dir: str) -> list[Any]:
    """The log files under the local directory ``log_dir`` (recursively), newest first: Inspect's
    ``list_eval_logs`` of a local directory, the same files in the same order, without its reading the header of
    each file whose name is not Inspect's (it reads them all at once, to name their task). Each entry has the
    ``name`` (``file://`` URL), ``mtime`` and ``size`` of the file (Inspect's ``FileInfo``)."""
    files = private_name("_list_log_files")(private_name("filesystem")(log_dir), log_dir, True)
    return list(private_name("_filter_log_files")(files, None, True, True))


async def download_log(location: str, dest: BinaryIO) -> None:
    """Copy the file at ``location`` (a store URL such as ``s3://bucket/run/x.eval``) into the open binary file
    ``dest``, through the running event loop's store client (:func:`run_coroutine` opens one per loop).

    Raises:
        FileNotFoundError: nothing at ``location``; the store's own errors otherwise.
    """
    async with private_name("AsyncFilesystem")() as filesystem:
        await filesystem.read_file_into(location, dest)


async def upload_log(source: BinaryIO, location: str) -> None:
    """Copy the open binary file ``source`` (from its current position) to ``location`` (a store URL), through the
    running event loop's store client, without reading it whole into memory."""
    async with private_name("AsyncFilesystem")() as filesystem:
        await filesystem.write_file_streaming(location, source)


def parse_sample(data: dict[str, Any]) -> Any:
    """The ``EvalSample`` of one parsed sample member of an ``.eval`` archive, as Inspect's ``read_eval_log`` reads
    the samples of such a log: validated in its deserialising context, its events' shared data resolved (attachments
    left as references)."""
    from inspect_ai.log import EvalSample

    sample = EvalSample.model_validate(data, context=private_name("get_deserializing_context")())
    return private_name("_resolve_sample_for_read")(sample, False)


class LogWriter:
    """Inspect's ``.eval`` writer (``EvalRecorder``) for a new log at a local path, fed one sample at a time, holding
    no sample once it is written.

    Samples are buffered by the writer and written into its temporary file every :attr:`SAMPLES_PER_WRITE`
    (``ZipLogFile.write_buffered_samples``, one summary journal entry per batch), so at most that many are held.
    Inspect's public ways hold every sample (``write_eval_log``), copy the whole log at every flush (the recorder's
    ``flush``), or journal each sample's summary by filtering every summary before it (``log_sample(...,
    write_through=True)``: quadratic in the samples). The recorder also keeps every sample's summary in memory
    (``ZipLogFile._summaries``) to write ``summaries.json`` at the finish; here each batch's journal entry (the same
    summaries, serialised by Inspect) is copied into a temporary file instead and ``summaries.json`` written from
    it: the same content as Inspect's (``[`` + the entries' items joined by ``,`` + ``]``), with the member's zip
    settings ``ZipFile.writestr`` gives. Use :meth:`start`, :meth:`write`, :meth:`finish`.
    """

    SAMPLES_PER_WRITE = 100
    """Samples buffered before they are written into the temporary file."""

    SUMMARIES = "summaries.json"
    """The archive member of every sample's summary (Inspect's ``SUMMARIES_JSON``)."""

    JOURNAL = "_journal/summaries/{}.json"
    """The archive member of the n-th batch's summaries (n from 1; Inspect's ``_journal_summary_path``)."""

    def __init__(self, path: str, header: Any) -> None:
        import os
        import tempfile

        self.path, self.header = path, header
        self._recorder = private_name("EvalRecorder")(os.path.dirname(path))
        self._buffered = 0
        self._summaries = tempfile.TemporaryFile()
        self._journalled = 0

    async def start(self) -> LogWriter:
        """Open the log and record the header's ``eval`` and ``plan`` (Inspect's ``log_init``, ``log_start``)."""
        await self._recorder.log_init(self.header.eval, self.path, clean=True)
        await self._recorder.log_start(self.header.eval, self.header.plan)
        return self

    def _zip_log(self) -> Any:
        """The recorder's ``ZipLogFile`` of this log."""
        return self._recorder.data[self._recorder._log_file_key(self.header.eval)]

    async def write(self, sample: Any) -> None:
        """Add one ``EvalSample``, condensed as ``write_eval_log`` writes it."""
        from inspect_ai.log import condense_sample

        await self._recorder.log_sample(self.header.eval, condense_sample(sample))
        self._buffered += 1
        if self._buffered >= self.SAMPLES_PER_WRITE:
            zip_log = self._zip_log()
            await zip_log.write_buffered_samples()
            self._buffered = 0
            self._take_summaries(zip_log)

    def _take_summaries(self, zip_log: Any) -> None:
        """Copy the summary journal entries written since the last call into the summaries file (each entry a JSON
        list: its items, comma-separated) and empty the recorder's list of summaries."""
        while self._journalled < zip_log._summary_counter:
            self._journalled += 1
            items = zip_log._zip.read(self.JOURNAL.format(self._journalled)).strip()[1:-1]
            if items:
                if self._summaries.tell():
                    self._summaries.write(b",")
                self._summaries.write(items)
        zip_log._summaries.clear()

    def _write_summaries(self, zip_log: Any) -> None:
        """Write ``summaries.json`` from the summaries file, the member made as ``ZipFile.writestr`` makes it, but
        compressed on this thread (:func:`one_zstd_thread`): Inspect's compressor hands the member's input to
        zstd's worker threads in jobs of several MB, and with the whole file written at once (about 3.4 KB of
        summary per sample of a discourse relations log) the jobs waiting for the two cores held 13 MB at 4,000
        samples and 35 MB at 10,000 (``benchmarks/results/log_reading_rescore.md``)."""
        import shutil
        import time
        import zipfile

        archive = zip_log._zip
        info = zipfile.ZipInfo(filename=self.SUMMARIES, date_time=time.localtime(time.time())[:6])
        info.compress_type = archive.compression
        info._compresslevel = archive.compresslevel  # type: ignore[attr-defined]
        info.external_attr = 0o600 << 16
        info.file_size = self._summaries.tell() + 2
        self._summaries.seek(0)
        with one_zstd_thread(), archive.open(info, mode="w") as member:
            member.write(b"[")
            shutil.copyfileobj(self._summaries, member)
            member.write(b"]")
        self._summaries.close()

    async def finish(self, log: Any) -> None:
        """Write the rest and the header of ``log`` (status, stats, results, reductions, error) and its ``eval``: the
        recorder writes the ``eval`` it was started with, so the header is then replaced by ``log``'s (Inspect's
        ``write_eval_log(header_only=True)``). ``summaries.json`` is written from the summaries file when the
        recorder writes it (the last batch's journal entry written by then)."""
        from inspect_ai.log import write_eval_log_async

        zip_log = self._zip_log()
        write = zip_log.write

        async def summaries_streamed(filename: str, data: Any) -> None:
            if filename != self.SUMMARIES:
                return await write(filename, data)
            async with zip_log._lock:
                self._take_summaries(zip_log)
                self._write_summaries(zip_log)

        zip_log.write = summaries_streamed
        await self._recorder.log_finish(
            self.header.eval,
            log.status,
            log.stats,
            log.results,
            log.reductions,
            log.error,
            invalidated=log.invalidated,
            log_updates=log.log_updates,
            config_updates=log.config_updates,
        )
        await write_eval_log_async(log, self.path, header_only=True)


@contextmanager
def one_zstd_thread() -> Iterator[None]:
    """While active, the zip members Inspect's zstandard compressor starts are compressed on the calling thread, in
    the same format (Inspect gives each member a compressor with worker threads, ``_ZSTD_THREADS``; zstd starts
    them at the member's first write)."""
    module = importlib.import_module(PRIVATE_NAMES["_ZSTD_THREADS"][0])
    saved = private_name("_ZSTD_THREADS")
    setattr(module, "_ZSTD_THREADS", 0)  # noqa: B010 - a private name, kept here
    try:
        yield
    finally:
        setattr(module, "_ZSTD_THREADS", saved)  # noqa: B010


def score_results(log: Any, scorers: list[Any], scores: list[dict[str, Any]], completed: int) -> tuple[Any, Any]:
    """``(results, reductions)`` of a log re-scored by ``scorers`` with ``action="overwrite"``, from the new
    ``SampleScore`` of each sample (``scores``, scorer name -> score, in the samples' order) and the count of samples
    without an error (``completed``): the metric pass ``score_async`` runs after scoring every sample
    (``inspect_ai/_eval/score.py``), over scores the caller kept. ``log``: the log's header; its
    ``results.total_samples`` is the sample count. ``tests/shared/test_inspect_compat.py`` pins the equality with
    ``score_async``'s results."""
    log_metrics = private_name("metrics_from_log_header")(log)
    resolved = private_name("resolve_scorer_metrics")(list(scorers), log_metrics) or []
    return eval_results(
        log.results.total_samples,
        scores,
        private_name("reducers_from_log_header")(log),
        resolved,
        log_metrics,
        [scorer.name for scorer in log.eval.scorers or []] or None,
        early_stopping=log.results.early_stopping,
        metadata=log.results.metadata,
        logged_samples=log.results.logged_samples,
        completed_samples=completed,
        headline_metric=log.eval.headline_metric,
    )


def eval_results(*args: Any, **kwargs: Any) -> Any:
    """Inspect's metric pass, ``(EvalResults, reductions)`` from sample scores (Inspect's own arguments)."""
    return private_name("eval_results")(*args, **kwargs)


def sample_error_logger() -> logging.Logger:
    """The logger Inspect's sample-error warnings come from (``log_sample_error`` in ``inspect_ai/_eval/task/run.py``)."""
    return private_name("py_logger")


def eval_set_id_for_log_dir(log_dir: str) -> str:
    """The eval set id kept in ``log_dir`` (its ``.eval-set-id`` file), written with a new one when absent."""
    return str(private_name("eval_set_id_for_log_dir")(log_dir))


@contextmanager
def panels_without_scores() -> Iterator[None]:
    """While active, the panel Inspect prints as each eval ends (every display mode) lists no metrics, and an
    interrupted eval's panel says how many samples were logged but suggests no ``inspect eval-retry``: ``bediscover
    run`` ends with its own table (:mod:`bediscover_inspect.run_summary`) and its own resume hint. The logs keep
    every metric."""
    module = importlib.import_module(PRIVATE_NAMES["task_scores"][0])
    saved = {name: getattr(module, name) for name in ("task_scores", "task_can_retry")}
    setattr(module, "task_scores", lambda scores, pad_edge=False: [])  # noqa: B010 - a private name, kept here
    setattr(module, "task_can_retry", lambda profile: False)  # noqa: B010
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
