"""One ``bediscover run`` spread over several client processes (``--workers``) and machines (``--shard``).

The run's grid is its evals, one per task x reasoning mode x seed, in the order ``bediscover run`` builds them
(:func:`grid`), a large eval split by dataset when the run has fewer evals than processes
(:mod:`bediscover_inspect.split`). ``--shard i/n`` keeps every n-th eval starting at the i-th (:func:`share`), so n machines given
``1/n`` … ``n/n`` cover the grid once between them, each writing into the same log directory (any fsspec URL
Inspect accepts, such as ``s3://bucket/run``). ``--workers N`` splits the shard's evals the same way over N OS
processes on this machine (:func:`run_workers`): each is an ordinary ``bediscover run`` of its share, so an ordinary
Inspect ``eval_set`` into the same log directory, resumable on its own; re-running with any other number of workers
or shards resumes the same evals, because Inspect matches an eval to its log by task, arguments and generate
config, and the connection limit is not part of that.

The model's ``--max-connections`` (else the provider's default) is divided between the workers in proportion to the
model calls each is expected to make (:func:`connection_shares`, :func:`expected_calls`), so the server sees the
total the user asked for and the workers finish together. Ctrl-C reaches the workers once (each
runs in its own process group and the first process forwards the signal), each stops as a single run does, and
the run exits with 130; a second Ctrl-C stops them at once. Workers stop when the first process ends in any other
way (SIGKILL included), and hold the log directory's lock until they have. A worker ended by a signal is named in
the closing line: by the Ctrl-C (or SIGTERM) passed on to it as stopped by it, the run exiting 130; by any other
signal as killed by it with its likely cause, the run exiting 1 with its evals unfinished.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bediscover_inspect import split
from bediscover_inspect._inspect_compat import eval_set_id_for_log_dir
from bediscover_inspect.evallogs.store import filesystem, kind, read_headers
from bediscover_inspect.models.health import cause_and_fix
from bediscover_inspect.run.interrupts import EXIT_INTERRUPTED, RESUME_HINT
from bediscover_inspect.run.options import UsageError, epochs_of, whole_number
from bediscover_inspect.split import Cell, Piece, cell_of

T = TypeVar("T")
R = TypeVar("R")


LOG_READERS = frozenset({"read_eval_log_async", "read_eval_log_headers_async", "read_eval_log_sample_summaries_async"})
"""Inspect's functions that read a log file (``inspect_ai/log/_file.py``): an error raised inside them while a run
lists its log directory is a log that another process is writing, or has just removed, at that moment."""


def beside_other_writers(eval_set: Callable[..., R], *args: Any, attempts: int = 5, **kwargs: Any) -> R:
    """``eval_set(*args, **kwargs)``, called again (up to ``attempts`` times, a second apart) when it fails reading
    a log that another worker or shard is writing into the same directory at that moment.

    Inspect's ``eval_set`` reads every log header in its log directory when it starts and ends; a ``.eval`` file
    another process is rewriting has no end-of-central-directory record yet (``ValueError: EOCD not found``), one
    it has just created no header yet (``KeyError: '_journal/start.json'``), and
    one that another eval set replaced after resuming it is gone between the listing and the read
    (``FileNotFoundError``). Inspect's reader also opens the file anew for each member it reads, so a log that
    its writer replaces between two reads is read with the central directory of one version and the bytes of
    the next: when the final, compacted version is shorter than where the earlier one kept a member, the read
    finds nothing there (``struct.error: unpack_from requires a buffer of at least 30 bytes``), and elsewhere
    it finds another member's bytes (a ``zlib.error`` or a JSON error). Either way the eval set stops although
    its own evals finished. Calling it again resumes: finished evals are skipped.
    Any error raised inside :data:`LOG_READERS` is retried; any other error, or the last attempt's, is raised.
    """
    for _ in range(attempts - 1):
        try:
            return eval_set(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - raised again below unless it comes from reading a log
            if not {frame.name for frame in traceback.extract_tb(exc.__traceback__)} & LOG_READERS:
                raise
            time.sleep(1.0)
    return eval_set(*args, **kwargs)


@dataclass(frozen=True)
class Part:
    """The ``index``-th of ``count`` equal shares of a list (1-based, as ``--shard 2/4``)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_part(text: str) -> Part:
    """``"2/4"`` -> ``Part(2, 4)``; argparse type of ``--shard``.

    Raises:
        argparse.ArgumentTypeError: not ``i/n`` with whole numbers ``1 <= i <= n``.
    """
    index, slash, count = text.partition("/")
    try:
        part = Part(int(index), int(count)) if slash else None
    except ValueError:
        part = None
    if part is None or not 1 <= part.index <= part.count:
        raise argparse.ArgumentTypeError(f"expected i/n with whole numbers 1 <= i <= n (e.g. 2/4), got {text!r}")
    return part


def grid(task_names: Sequence[str], modes: Sequence[bool], seeds: Sequence[int]) -> list[Cell]:
    """Every eval of a run, task-major then reasoning mode then seed: the order of ``bediscover run``'s evals."""
    return [(name, reasoning, int(seed)) for name in task_names for reasoning in modes for seed in seeds]


def share(cells: Sequence[T], part: Part | None) -> list[T]:
    """The evals of ``part``: every ``part.count``-th one starting at the ``part.index``-th (all when ``None``).

    Deterministic: the same command line gives every machine the same grid, so shards ``1/n`` … ``n/n`` are
    disjoint and cover it. Taking every n-th (not n blocks) spreads each task's seeds and modes over the shares.
    """
    if part is None:
        return list(cells)
    return list(cells[part.index - 1 :: part.count])


def connection_shares(total: int, workers: int, loads: Sequence[float] | None = None) -> list[int]:
    """``total`` model connections divided between ``workers`` processes, in proportion to their ``loads``.

    Each worker gets one connection, and the rest go by the largest-remainder method in proportion to ``loads``
    (the model calls each worker is expected to make, :func:`expected_calls`), ties to the earlier worker; without
    loads (or all zero) the shares are equal. The shares add up to ``total``, so the server sees the limit the user
    gave, not ``workers`` times it: ``connection_shares(10, 4) == [3, 3, 2, 2]``,
    ``connection_shares(128, 2, [17792, 5242]) == [98, 30]``. A worker with a fifth of the calls holding half the
    connections would leave them idle once its evals end while the others queue.

    Raises:
        ValueError: ``total < workers`` (a worker would get no connection), ``workers < 1``, or ``loads`` not one
            non-negative number per worker.
    """
    if workers < 1 or total < workers:
        raise ValueError(f"{total} connections cannot be shared by {workers} workers (each needs at least one)")
    weights = [1.0] * workers if loads is None or not any(loads) else [float(load) for load in loads]
    if len(weights) != workers or min(weights) < 0:
        raise ValueError(f"expected {workers} non-negative loads, got {list(loads or [])}")
    spare = total - workers
    exact = [spare * w / sum(weights) for w in weights]
    shares = [int(x) for x in exact]
    by_remainder = sorted(range(workers), key=lambda j: (-(exact[j] - shares[j]), j))
    for j in by_remainder[: spare - sum(shares)]:
        shares[j] += 1
    return [1 + share for share in shares]


def expected_calls(task: Any, limit: int | None = None) -> int:
    """Model calls an eval of the built Inspect ``task`` is expected to make: per sample one, or a dialogue's
    turns for incremental dialogue parsing (sample metadata ``n_turns``), over the first ``limit`` samples (all
    when ``None``), times the task's epochs. Used to weigh the workers' connection shares."""
    samples = list(task.dataset)[:limit] if limit else list(task.dataset)
    return sum(int((sample.metadata or {}).get("n_turns", 1)) for sample in samples) * epochs_of(task)


def worker_command() -> list[str]:
    """How to start another ``bediscover`` process: the program that started this one when it is a ``bediscover``
    entry (the console script, ``python -m bediscover_inspect.cli``, or a script calling ``console_main``), else
    ``python -m bediscover_inspect.cli``."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path and callable(getattr(main, "console_main", None)):
        spec = getattr(main, "__spec__", None)
        if spec is not None:  # started with ``python -m <module>``: a module of a package runs only that way
            return [sys.executable, "-m", spec.name]
        return [sys.executable, os.path.abspath(path)]
    return [sys.executable, "-m", "bediscover_inspect.cli"]


def add_arguments(run: argparse.ArgumentParser) -> None:
    """``bediscover run``'s ``--workers``, ``--shard`` and ``--log-realtime`` (and the hidden options a worker
    process is given).

    ``--log-realtime`` is Inspect's ``log_realtime``, off unless given: the live sample buffer (each running
    sample's events written to a SQLite database for ``inspect view``) cost 38 → 29 ms of client CPU per call on
    served discourse relations (``benchmarks/results/README.md``); the log files hold the same either way."""
    run.add_argument(
        "--workers",
        type=whole_number(1),
        default=1,
        metavar="N",
        help="spread the evals over N client processes on this machine, sharing --max-connections (default 1)",
    )
    run.add_argument(
        "--shard",
        type=parse_part,
        default=None,
        metavar="I/N",
        help="run only the I-th of N deterministic shares of the evals (1 <= I <= N), one per machine; "
        "all shards write into the same --log-dir (an s3:// URL or a shared disk)",
    )
    run.add_argument(
        "--log-realtime",
        action="store_true",
        help="stream each running sample's events to Inspect's viewer as they happen (off by default: it costs "
        "about a quarter of the client's CPU per call; the logs are the same, and finished samples still show)",
    )
    run.add_argument("--worker", type=parse_part, default=None, help=argparse.SUPPRESS)
    run.add_argument("--worker-result", default=None, help=argparse.SUPPRESS)
    run.add_argument("--pieces", default=None, help=argparse.SUPPRESS)
    run.add_argument("--parent", type=int, default=None, help=argparse.SUPPRESS)


def pieces_of(args: argparse.Namespace, modes: Sequence[bool], sizes_of: Callable[[str], Any]) -> list[Piece]:
    """The evals this ``bediscover run`` process is to run: the :func:`grid` of ``--tasks``, ``modes`` and
    ``--seeds`` with large evals split by dataset (:func:`bediscover_inspect.split.plan`, for ``--workers`` x the
    shard count processes, kept as the log directory already has them), then its ``--shard``'s :func:`share`; a
    worker process reads its parent's list (``--pieces``), of which it runs its ``--worker`` :func:`share`.

    ``sizes_of``: task name -> its datasets' sample counts (:func:`bediscover_inspect.split.sample_counts`)."""
    if args.pieces:
        listed = json.loads(Path(args.pieces).read_text(encoding="utf-8"))
        return [(t, bool(r), int(s), tuple(d)) for t, r, s, d in listed]
    cells = grid(args.tasks, modes, args.seeds)
    processes = args.workers * (args.shard.count if args.shard else 1)
    existing = split.existing_splits(logs_in(args.log_dir), args.model) if _exists(args.log_dir) else {}
    return share(split.plan(cells, processes, args.limit, sizes_of, existing), args.shard)


def one_cell_per_task(cells: Sequence[T]) -> list[T]:
    """The first cell of each task among ``cells``: enough to weigh them, since a task's seeds and reasoning modes
    ask the same samples (:func:`calls_per_cell`)."""
    first: dict[str, T] = {}
    for cell in cells:
        first.setdefault(cell[0], cell)  # type: ignore[index]
    return list(first.values())


def calls_per_cell(cells: Sequence[tuple[Any, ...]], tasks: Sequence[Any], limit: int | None) -> list[int]:
    """Expected model calls of each of ``cells``, from ``tasks`` built for :func:`one_cell_per_task` of them
    (in that order) by :func:`expected_calls` with ``--limit``."""
    calls = {cell[0]: expected_calls(task, limit) for cell, task in zip(one_cell_per_task(cells), tasks)}
    return [calls[cell[0]] for cell in cells]


def _exists(log_dir: str) -> bool:
    return kind(log_dir) == "dir"


def logs_in(log_dir: str) -> list[Any]:
    """Headers of the readable logs under ``log_dir`` (what an interrupted eval set leaves)."""
    from inspect_ai.log import list_eval_logs

    # an unreadable file counts as unfinished
    return [log for log in read_headers(list_eval_logs(log_dir)) if not isinstance(log, Exception)]


def merge_and_list(log_dir: str, pieces: Sequence[Piece]) -> list[Any]:
    """After a run: the merged log of each split eval whose parts have all succeeded
    (:func:`bediscover_inspect.split.merge_parts`) and the viewer's listings of ``log_dir`` with every log
    (Inspect's ``logs.json``, each worker's eval set having written its own, and :func:`write_eval_set_listing`),
    then the logs of ``pieces``' evals in ``log_dir`` for the run's table, a part left out when its eval has a
    merged log."""
    headers = logs_in(log_dir) if pieces else []
    if any(piece[3] for piece in pieces):
        headers += split.merge_parts(log_dir, headers)
    if headers:
        from inspect_ai.log import write_log_dir_manifest

        write_log_dir_manifest(log_dir)
        write_eval_set_listing(log_dir, headers)
    logs = logs_of(headers, {piece[:3] for piece in pieces})
    whole = {split.cell_of(log) for log in logs if split.split_of(log) is None}
    return [log for log in logs if split.split_of(log) is None or split.cell_of(log) not in whole]


def run_spread(
    args: argparse.Namespace,
    pieces: Sequence[Piece],
    model: Any,
    calls: Sequence[int] | None = None,
    lock: int | None = None,
) -> tuple[int, str]:
    """Run ``pieces`` (the shard's evals) over ``min(--workers, len(pieces))`` worker processes; exit code and
    closing line. No pieces (a shard beyond the number of evals) is a run with nothing to do: code 0.

    The connections shared are ``--max-connections``, else the provider's default for ``model``
    (``model.api.max_connections()``), in proportion to the expected model ``calls`` of each cell
    (:func:`expected_calls`; equal shares without them). The eval set id is fixed before the workers start (Inspect
    keeps it in the log directory), so the workers' logs share it. The workers inherit ``lock`` (the descriptor
    of the log directory's lock, :func:`bediscover_inspect.run.lock.log_dir_lock`), so it is held while any of
    them lives. The caller then writes the viewer's listings once more (:func:`merge_and_list`).

    Raises:
        bediscover_inspect.run.options.UsageError: fewer connections than workers.
    """
    if not pieces:
        return 0, f"bediscover run: no evals in shard {args.shard} (more shards than evals): nothing to do"
    count = min(args.workers, len(pieces))
    connections = args.max_connections or model.api.max_connections()
    if connections < count:
        raise UsageError(f"--max-connections {connections} cannot be shared by {count} workers (each needs one)")
    import fsspec

    fs, root = fsspec.core.url_to_fs(args.log_dir)
    fs.makedirs(root, exist_ok=True)
    eval_set_id_for_log_dir(args.log_dir)
    loads = [sum(share(calls, Part(j, count))) for j in range(1, count + 1)] if calls else None
    with tempfile.TemporaryDirectory(prefix="bediscover-pieces-") as scratch:
        listed = Path(scratch) / "pieces.json"
        listed.write_text(json.dumps([[t, r, s, list(d)] for t, r, s, d in pieces]), encoding="utf-8")
        argv = [*args.argv, "--pieces", str(listed)]
        results, forwarded = run_workers(argv, count, connections, args.display, loads, () if lock is None else (lock,))
    return outcome(results, len(pieces), args.log_dir, forwarded)


def write_eval_set_listing(log_dir: str, headers: Sequence[Any]) -> None:
    """Write Inspect's ``eval-set.json`` in ``log_dir`` (the eval set's tasks, which ``inspect view`` shows) naming
    the task of every log in ``headers`` that belongs to the directory's eval set, the newest log per task id.

    Each worker's or shard's Inspect eval set writes the file with its own tasks only, so the last one to finish
    would otherwise hide the others' from the viewer's eval-set page."""
    eval_set_id = eval_set_id_for_log_dir(log_dir)
    newest: dict[str, Any] = {}
    for log in sorted(headers, key=lambda h: str(h.eval.created)):
        if log.eval.eval_set_id == eval_set_id:
            newest[log.eval.task_id] = log
    tasks = [
        {
            "name": log.eval.task,
            "task_id": log.eval.task_id,
            "task_file": log.eval.task_file,
            "task_args": log.eval.task_args_passed or {},
            "model": log.eval.model,
            "model_args": log.eval.model_args or {},
            "sequence": sequence,
        }
        for sequence, log in enumerate(newest.values())
    ]
    fs, root = filesystem(log_dir)
    with fs.open(f"{root.rstrip('/')}/eval-set.json", "w", encoding="utf-8") as out:
        json.dump({"eval_set_id": eval_set_id, "tasks": tasks}, out, indent=2, default=str)


def logs_of(logs: Sequence[Any], wanted: Collection[Any], key: Callable[[Any], Any] = cell_of) -> list[Any]:
    """The eval logs (headers) among ``logs`` whose ``key`` is one of ``wanted``: what one worker or shard left in a
    log directory it shares with others; a log :func:`superseded` by a later one of its eval is left out.

    ``key`` is :func:`~bediscover_inspect.split.cell_of` (task, reasoning, seed) by default, or
    :func:`~bediscover_inspect.split.piece_of` to take a part log only for its own part (a worker's part of a split
    eval is not another worker's)."""
    stale = {id(log) for log in superseded(logs)}
    return [log for log in logs if key(log) in wanted and id(log) not in stale]


def superseded(logs: Sequence[Any]) -> list[Any]:
    """The logs among ``logs`` (headers) that are not the newest of their eval (Inspect's ``task_id``, kept by a
    resumed eval; the newest by the time its file name starts with): what an earlier, interrupted or killed run
    left of an eval that a later run resumed. Inspect seeds the resumed eval's log with the earlier one's samples;
    it removes the earlier logs of the run that called it, but leaves a ``started`` log (a killed process's) and
    those of other processes in place, since it cannot know that nobody is still writing them."""
    newest: dict[str, Any] = {}
    for log in logs:
        seen = newest.get(log.eval.task_id)
        if seen is None or _written(log) > _written(seen):
            newest[log.eval.task_id] = log
    return [log for log in logs if newest[log.eval.task_id] is not log]


def _written(log: Any) -> str:
    """The start of a log's file name: the time Inspect created it (``2026-12-06T03-51-15-00-00_…``)."""
    return str(log.location).rsplit("/", 1)[-1]


def remove_superseded(log_dir: str, cells: Collection[Cell]) -> None:
    """Delete the :func:`superseded` logs of ``cells`` in ``log_dir`` whose eval's newest log is not ``started``
    (a newest log cut short keeps the earlier ones beside it); called by the process that holds the log
    directory's lock for those evals (:mod:`bediscover_inspect.run.lock`), so no other process is writing them.
    A log that cannot be deleted stays (the run's table leaves it out all the same)."""
    fs, _ = filesystem(log_dir)
    logs = logs_in(log_dir)
    stale = superseded(logs)
    newest = [log for log in logs if all(log is not old for old in stale)]
    cut_short = {log.eval.task_id for log in newest if log.status == "started"}
    for log in stale:
        if cell_of(log) in cells and log.eval.task_id not in cut_short:
            try:
                fs.rm(str(log.location))
            except OSError:
                pass


def write_result(path: str | None, logs: Sequence[Any], total: int) -> None:
    """Write a worker's count of successful evals among ``logs`` (out of ``total``) as JSON to ``path``
    (nothing when ``None``: not a worker)."""
    if path:
        done = sum(1 for log in logs if log.status == "success")
        Path(path).write_text(json.dumps({"done": done, "total": total}), encoding="utf-8")


def _read_done(path: Path) -> int | None:
    """Finished evals a worker wrote with :func:`write_result`; ``None`` when it left none (killed, crashed)."""
    try:
        return int(json.loads(path.read_text(encoding="utf-8"))["done"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


PR_SET_PDEATHSIG = 1
"""``prctl`` option (``<linux/prctl.h>``): the signal a process receives when its parent ends."""


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` for a worker process: on Linux, ``prctl(PR_SET_PDEATHSIG, SIGTERM)``, so the worker is
    stopped (as by a Ctrl-C: it writes its logs and ends) when the ``bediscover run`` that started it ends in any
    way, SIGKILL included; a parent already gone by then stops it at once. ``None`` elsewhere (workers then
    watch their parent themselves: :func:`watch_parent`)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)  # loaded before the fork: the child only calls it
    parent = os.getpid()

    def preexec() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent ended before the call
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def watch_parent(parent: int, every: float = 1.0) -> None:
    """In a worker process off Linux: a daemon thread that sends this process SIGTERM once its parent ``parent``
    (the ``bediscover run`` that started it) has ended, checked every ``every`` seconds (see
    :func:`die_with_parent`)."""
    import threading

    if sys.platform.startswith("linux"):
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="bediscover-parent-watch", daemon=True).start()


def run_workers(
    argv: Sequence[str],
    workers: int,
    connections: int,
    display: str | None,
    loads: Sequence[float] | None = None,
    keep: Sequence[int] = (),
) -> tuple[list[tuple[int, int | None]], frozenset[int]]:
    """Run ``bediscover run`` ``argv`` as ``workers`` processes, the j-th with ``--worker j/workers`` (its
    :func:`share` of the grid) and its :func:`connection_shares` of ``connections`` by ``loads``; wait for all of
    them.

    Every worker gets ``argv`` with ``--workers 1 --worker j/N --max-connections c`` appended (argparse keeps the
    last value), and ``--display plain`` unless ``display`` was given (several full-screen displays in one
    terminal overwrite each other). Each runs in its own process group: a Ctrl-C in the terminal reaches this
    process alone, which forwards SIGINT to every worker still running, so each receives each Ctrl-C once (the
    first stops it as it stops a single run, a second at once). SIGTERM is forwarded the same way. A worker
    whose parent ends in any other way (SIGKILL) is stopped too (:func:`die_with_parent`). The workers inherit the
    descriptors ``keep`` (the log directory's lock).

    Returns:
        Per worker in order: its exit code and the evals it finished (``None`` when it left no count: killed, or
        failed before its eval set ended); and the signals forwarded to the workers (for :func:`outcome`).

    Raises:
        ValueError: see :func:`connection_shares`.
    """
    limits = connection_shares(connections, workers, loads)
    extra_display = [] if display else ["--display", "plain"]
    procs: list[subprocess.Popen[bytes]] = []
    forwarded: set[int] = set()

    def forward(signum: int, frame: Any) -> None:
        forwarded.add(signum)
        for proc in procs:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signum)
                except ProcessLookupError:
                    pass

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    with tempfile.TemporaryDirectory(prefix="bediscover-workers-") as scratch:
        paths = [Path(scratch) / f"worker-{j}.json" for j in range(1, workers + 1)]
        try:
            for j, (limit, path) in enumerate(zip(limits, paths, strict=True), start=1):
                command = [*worker_command(), *argv, "--workers", "1", "--worker", f"{j}/{workers}"]
                command += ["--max-connections", str(limit), "--worker-result", str(path), *extra_display]
                command += ["--parent", str(os.getpid())]
                procs.append(
                    subprocess.Popen(command, start_new_session=True, pass_fds=keep, preexec_fn=die_with_parent())
                )
            codes = [proc.wait() for proc in procs]
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return [(code, _read_done(path)) for code, path in zip(codes, paths, strict=True)], frozenset(forwarded)


def outcome(
    results: Sequence[tuple[int, int | None]], evals: int, log_dir: str, forwarded: Collection[int] = ()
) -> tuple[int, str]:
    """Exit code and closing line of a run of ``evals`` evals over workers (``results`` and ``forwarded``, the
    signal numbers passed on to the workers, of :func:`run_workers`).

    The code is 130 (:data:`~bediscover_inspect.run.interrupts.EXIT_INTERRUPTED`) when any worker was interrupted
    (exited 130, or ended by a forwarded signal: ``worker 2/2 stopped by the SIGINT (Ctrl-C) passed on to it``),
    else 1 when a worker was killed by a signal not forwarded (the line names it, the signal, its likely cause and
    the fix: ``worker 2/2 was killed by SIGKILL (likely cause: …)``), else the largest worker code (0 when every
    worker finished its evals); every unfinished run gets the resume hint.
    """
    codes = [code for code, _ in results]
    ended = [(j, -code) for j, code in enumerate(codes, start=1) if code < 0]
    stopped = any(signum in forwarded for _, signum in ended)
    done = sum(count or 0 for _, count in results)
    code = EXIT_INTERRUPTED if EXIT_INTERRUPTED in codes or stopped else 1 if ended else max(codes, default=0)
    line = f"bediscover run: {done}/{evals} evals complete in {log_dir} ({len(results)} workers)"
    for j, signum in ended:
        name = _signal_name(signum)
        if signum in forwarded:
            name += " (Ctrl-C)" if signum == signal.SIGINT else ""
            line += f"; worker {j}/{len(results)} stopped by the {name} passed on to it"
        else:
            line += f"; worker {j}/{len(results)} was killed by {name} ({cause_and_fix(signum)})"
    if code == EXIT_INTERRUPTED:
        return code, f"{line}; interrupted ({RESUME_HINT})"
    if code or done < evals:
        return code or 1, f"{line}; {evals - done} unfinished ({RESUME_HINT})"
    return 0, line


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
