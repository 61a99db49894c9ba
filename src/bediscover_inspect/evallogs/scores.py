"""Reading a log directory: the suite's successful logs, one per run, as a long table of measures.

A run is one (task, model, setting, reasoning mode, seed). The measures come from each log's results through
:func:`bediscover_inspect.evallogs.results.read_results` (header only: no sample is read); the setting is the task's
resolved parameters recorded in its metadata (:mod:`bediscover_inspect.metadata`), so two logs of the same
setting are one run whatever was typed on the command line. The seed is the generate config's ``seed``
(``--seed``), the model ``log.eval.model``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bediscover_inspect.evallogs.pairs import Pairs, label_logs, read_pairs_async
from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.evallogs.store import local_path
from bediscover_inspect.metadata import BENCHMARK, SPLIT
from bediscover_inspect.presets import reasoning_flag

if TYPE_CHECKING:
    import pandas as pd

NOT_A_SETTING = frozenset({"reasoning", "data_dir", "presets", "per_dataset"})
"""Shared task parameters that do not make one experimental setting differ from another in the report: the
reasoning mode has its own column, ``data_dir`` and ``per_dataset`` only say where the data came from and how much
of it a run covers (the ``per_dataset`` column), and what ``presets`` sent is checked against Table 7 with the other
generation settings. A task's dataset selectors (:func:`selectors_of`) do not either: they choose which cells a
run fills."""

SELECTORS_OF_OLDER_LOGS = ("dataset", "datasets", "corpora", "languages", "frameworks")
"""The selectors of a log whose task metadata does not list them (``selectors``): the names the tasks used before
their metadata listed them."""

NO_SEED = -1
"""The ``seed`` of a log without one (a run made without ``--seed``): shown as "not recorded"."""

SUPERSEDED = "superseded"
"""Reason prefix of a log left out because a later log of the same run succeeded (e.g. a resumed eval set)."""

RUN_KEYS = ["task", "model", "reasoning", "variant"]
GROUP_KEYS = RUN_KEYS + ["scorer", "measure", "group_key", "group"]
"""The keys of one cell: a run, one scorer's measure, one group (two scorers of a task are two cells)."""

RUN_FACTS = ["log", "task", "model", "reasoning", "variant", "seed", "reasoning_effort", "samples"]
"""The facts of a run that every score row repeats (the first columns of :data:`COLUMNS` and :data:`RUN_COLUMNS`)."""

COLUMNS = RUN_FACTS + ["scorer", "measure", "group_key", "group", "value", "stderr"]

RUN_COLUMNS = RUN_FACTS + [
    "errored",
    "epochs",
    "dataset_samples",
    "limit",
    "sample_id",
    "per_dataset",
    "sample_counts",
    "generate",
    "subset",
    "data",
    "absent",
]
"""Columns of :attr:`LogScores.runs` (see there)."""

GENERATE_FIELDS = ("max_tokens", "temperature", "top_p", "verbosity")
"""Generate-config fields the report compares with the paper's Table 7."""


class ReportWarning(UserWarning):
    """A problem in the log directory the report shows rather than hides (missing seed or task, failed log)."""


def short_task_name(task: str) -> str:
    """``bediscover_inspect/sentence_ordering`` -> ``sentence_ordering`` (the registry prefix dropped)."""
    return task.rsplit("/", 1)[-1]


def parameters_of(log: Any) -> dict[str, Any]:
    """The task parameters of a log: the resolved ``parameters`` of its task metadata, else its task arguments."""
    metadata = log.eval.metadata or {}
    parameters = metadata.get("parameters") if isinstance(metadata, dict) else None
    return dict(parameters) if isinstance(parameters, dict) else dict(log.eval.task_args or {})


def selectors_of(log: Any) -> tuple[str, ...]:
    """The task parameters of a log that only choose datasets: its task metadata's ``selectors``
    (:func:`bediscover_inspect.task_skeleton.suite_task`), else :data:`SELECTORS_OF_OLDER_LOGS`."""
    metadata = log.eval.metadata or {}
    selectors = metadata.get("selectors") if isinstance(metadata, dict) else None
    return tuple(selectors) if isinstance(selectors, list) else SELECTORS_OF_OLDER_LOGS


def setting_parameters(log: Any) -> dict[str, Any]:
    """The parameters that make a log's experimental setting: :func:`parameters_of` without :data:`NOT_A_SETTING`
    and without its selectors (:func:`selectors_of`)."""
    ignored = NOT_A_SETTING | set(selectors_of(log))
    return {k: v for k, v in parameters_of(log).items() if k not in ignored}


def _reasoning_of(parameters: dict[str, Any]) -> str:
    """``on`` / ``off``: a log's ``reasoning`` parameter read as the task read it (:func:`.presets.reasoning_flag`).

    Raises:
        ValueError: a value the task itself would have refused (no such log can come from a suite task).
    """
    return "on" if reasoning_flag(parameters.get("reasoning", False)) else "off"


def variant_of(log: Any) -> str:
    """The setting of a run: its :func:`setting_parameters`, ``k=v`` comma-joined, sorted."""
    items = sorted(setting_parameters(log).items())
    return ",".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in items)


def eval_seed(log: Any) -> int | None:
    """The generation seed an eval ran with: the plan's generate config (the task's, with ``--seed`` merged in),
    else the model's generate config; ``None`` when neither sets one.

    Args:
        log: an :class:`inspect_ai.log.EvalLog` (the header is enough).
    """
    plan = getattr(log, "plan", None)
    if plan is not None and plan.config.seed is not None:
        return int(plan.config.seed)
    seed = log.eval.model_generate_config.seed
    return None if seed is None else int(seed)


def _seed_and_effort(log: Any) -> tuple[int | None, str | None]:
    for config in (getattr(log.plan, "config", None), getattr(log.eval, "model_generate_config", None)):
        if config is not None and config.seed is not None:
            return int(config.seed), config.reasoning_effort
    config = getattr(log.plan, "config", None)
    return None, (config.reasoning_effort if config is not None else None)


@dataclass
class LogScores:
    """Scores of every log under a directory (see :func:`read_log_scores`).

    Attributes:
        scores: one row per (log, measure, group): columns ``log``, ``task``, ``model``, ``reasoning``
            (``off``/``on``), ``variant`` (:func:`variant_of`), ``seed`` (int, :data:`NO_SEED` when the log has none),
            ``reasoning_effort``, ``samples`` (distinct samples of the row's group scored in that log,
            :func:`group_samples`; ``None`` where the log does not say),
            ``scorer`` (the scorer that logged the measure), ``measure``, ``group_key``, ``group`` (``all`` for the overall value), ``value`` and ``stderr``
            (floats, as logged).
        skipped: ``(log path, reason)`` for logs left out: reasons starting with :data:`SUPERSEDED` are
            interrupted or older logs of a run that has a successful log (normal after a resumed
            ``eval_set``); any other reason (``status error`` …, :data:`UNREADABLE` for a file that cannot be
            read, :data:`NOT_OURS` for another Inspect task's log) means that log was not used.
        classes: ``{log path: {dataset: {(gold label, predicted label): answers}}}`` of every label-choice log in
            ``scores`` (:func:`bediscover_inspect.evallogs.pairs.read_pairs_async`), when read with ``classes=True``;
            empty otherwise.
    """

    scores: pd.DataFrame
    skipped: list[tuple[str, str]] = field(default_factory=list)
    runs: pd.DataFrame = field(default_factory=lambda: _tables([], [])[1])
    classes: dict[str, Pairs] = field(default_factory=dict)
    tasks_of: dict[str, str] = field(default_factory=dict)
    """Task (short name) of each suite log whose header could be read, by path: the task of a log left out."""


UNREADABLE = "unreadable"
"""Reason prefix of a log file that could not be read (truncated, corrupt, not an Inspect log)."""

NOT_OURS = "not a BeDiscovER log"
"""Reason prefix of a log whose task metadata lacks ``benchmark: BeDiscovER`` (another Inspect task)."""

SPLIT_PART = "success, one part of an eval split by dataset (used once every part has run, merged into one log)"
"""Status shown for a part log (:mod:`bediscover_inspect.split`): never a run of its own; the log merged from all
the parts is."""

NO_MEASURES = "no suite measures"
"""Reason prefix of a successful BeDiscovER log without the suite's measure metrics (written by a version of the
suite before task version 2: re-run it)."""


def group_samples(counts: dict[str, int], datasets: list[str], total: int, group_key: str, group: str) -> int | None:
    """Samples a cell of one log holds: its group's own, not the log's total.

    Args:
        counts: samples per dataset of the log (:func:`_sample_counts`; empty when not recorded).
        datasets: the datasets the cell's scorer has groups for (``group_key`` ``dataset``), e.g. TBD and TDD-Man
            for temporal reasoning's relation scorer.
        total: distinct samples of the log (:func:`_distinct_samples`).
        group_key, group: the cell's group.

    Returns:
        ``dataset``: that dataset's samples; ``all``: the samples of the scorer's datasets; a DISRPT ``framework``
        or ``language`` group: the samples of the corpora naming it (``eng.pdtb.gum`` is in ``eng`` and ``pdtb``);
        ``None`` where the log header does not say (a ToT ``category``, or no sample ids recorded), and ``total``
        for ``all`` without sample ids.
    """
    if not counts:
        return total if group_key == "all" else None
    if group_key == "dataset":
        return counts.get(group)
    if group_key == "all":
        return sum(counts.get(name, 0) for name in datasets) if datasets else total
    if group_key in {"framework", "language"}:
        return sum(counts.get(name, 0) for name in datasets if group in name.split("."))
    return None


def _log_rows(facts: dict[str, Any], log: Any) -> list[dict[str, Any]]:
    """The score rows of one successful log (see :class:`LogScores`) whose :func:`run_facts` are ``facts``;
    ``samples`` per :func:`group_samples`."""
    base = {key: facts[key] for key in COLUMNS if key in facts}
    results = read_results(log)
    datasets: dict[str, list[str]] = {}
    for row in results:
        if row["group_key"] == "dataset" and row["group"] not in datasets.setdefault(row["scorer"], []):
            datasets[row["scorer"]].append(row["group"])
    return [
        base
        | {key: row[key] for key in ("scorer", "measure", "group_key", "group", "value", "stderr")}
        | {
            "samples": group_samples(
                facts["sample_counts"],
                datasets.get(row["scorer"], []),
                facts["samples"],
                row["group_key"],
                row["group"],
            )
        }
        for row in results
    ]


def _generate_config(log: Any) -> dict[str, Any]:
    """The generate settings a log's requests went out with: the eval's config (task preset merged with the
    command line, ``log.plan.config``) over the model's own (``log.eval.model_generate_config``)."""
    sent: dict[str, Any] = {}
    for config in (getattr(log.eval, "model_generate_config", None), getattr(log.plan, "config", None)):
        for name in GENERATE_FIELDS:
            value = getattr(config, name, None) if config is not None else None
            if value is not None:
                sent[name] = value
    return sent


def _sample_counts(log: Any, scored: frozenset[str] | None = None) -> dict[str, int]:
    """Samples per dataset among the log's sample ids (``<dataset>_<record id>``), only those in ``scored`` when
    given; empty when not recorded."""
    counts: dict[str, int] = {}
    for sample_id in getattr(log.eval.dataset, "sample_ids", None) or ():
        if scored is not None and str(sample_id) not in scored:
            continue
        dataset = str(sample_id).split("_", 1)[0]
        counts[dataset] = counts.get(dataset, 0) + 1
    return counts


def _asked(log: Any) -> int:
    """(sample, epoch) pairs a log was asked to run: its sample ids × ``eval.config.epochs`` (0 when the header
    lists no ids)."""
    config = getattr(log.eval, "config", None)
    return len(getattr(log.eval.dataset, "sample_ids", None) or ()) * (getattr(config, "epochs", None) or 1)


def some_not_scored(log: Any) -> bool:
    """Whether a successful log's header counts fewer samples completed without error
    (``results.completed_samples``) than it was asked to run (:func:`_asked`): its samples must then be read to
    tell which were scored (:func:`scored_ids_async`)."""
    results = getattr(log, "results", None)
    return results is not None and int(results.completed_samples or 0) < _asked(log)


async def scored_ids_async(location: str) -> frozenset[str]:
    """Ids of the samples of a log scored in at least one epoch (ended without error, with a score), from its
    sample summaries (Inspect's ``read_eval_log_sample_summaries_async``)."""
    from inspect_ai.log import read_eval_log_sample_summaries_async

    summaries = await read_eval_log_sample_summaries_async(location)
    return frozenset(str(s.id) for s in summaries if s.error is None and s.scores)


def run_facts(path: str, log: Any, scored: frozenset[str] | None = None) -> dict[str, Any]:
    """How one successful log was made, as :attr:`LogScores.runs` lists it.

    ``scored``: the ids of the samples scored (:func:`scored_ids_async`), for a log some of whose samples were not
    (:func:`some_not_scored`); ``None``: every sample listed was scored.

    Keys: the run keys and ``samples`` (distinct samples scored) of :class:`LogScores`; ``errored`` (distinct
    samples listed and not scored: ended in error), ``epochs`` (``log.eval.config.epochs``, 1 when not set),
    ``dataset_samples`` (samples of the task's dataset
    before ``--limit``, ``log.eval.dataset.samples``), ``limit`` and ``sample_id`` (``log.eval.config``, ``None``
    when not given), ``sample_counts`` (dataset -> samples scored, from the sample ids), ``generate``
    (:data:`GENERATE_FIELDS` that were set, :func:`_generate_config`), ``subset`` (task parameter), ``data``
    (the task metadata's file provenance: path -> ``verified``, SHA-1s, ``records_used`` …) and ``absent``
    (dataset -> reason it was skipped).
    """
    parameters = parameters_of(log)
    seed, effort = _seed_and_effort(log)
    metadata = log.eval.metadata if isinstance(log.eval.metadata, dict) else {}
    config = getattr(log.eval, "config", None)
    dataset = getattr(log.eval, "dataset", None)
    return {
        "log": path,
        "task": short_task_name(log.eval.task),
        "model": log.eval.model,
        "reasoning": _reasoning_of(parameters),
        "variant": variant_of(log),
        "seed": NO_SEED if seed is None else seed,
        "reasoning_effort": effort or "",
        "samples": len(scored) if scored is not None else round(_distinct_samples(log)),
        "errored": len(set(map(str, getattr(dataset, "sample_ids", None) or ())) - scored) if scored is not None else 0,
        "epochs": getattr(config, "epochs", None) or 1,
        "dataset_samples": getattr(dataset, "samples", None),
        "limit": getattr(config, "limit", None),
        "sample_id": getattr(config, "sample_id", None),
        "per_dataset": (log.eval.task_args or {}).get("per_dataset"),
        "sample_counts": _sample_counts(log, scored),
        "generate": _generate_config(log),
        "subset": parameters.get("subset"),
        "data": dict(metadata.get("data") or {}),
        "absent": dict(metadata.get("absent") or {}),
    }


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _distinct_samples(log: Any) -> float:
    """Distinct samples a log scored: ``results.completed_samples`` counts each (sample, epoch) once, so it is
    divided by ``eval.config.epochs`` (3 samples run with ``--epochs 2`` -> 6 completed -> 3)."""
    config = getattr(log.eval, "config", None)
    epochs = getattr(config, "epochs", None) or 1
    return int(log.results.completed_samples or 0) / epochs


def _run_preference(log: Any) -> tuple[float, str]:
    """Sort key of two successful logs of one run (same task, model, variant, reasoning, seed): distinct samples
    (:func:`_distinct_samples`, so a 3-sample run with 2 epochs is not "more" than a 5-sample run), then
    creation time; the larger is kept."""
    return _distinct_samples(log), str(log.eval.created)


def read_log_scores(log_dir: str | Path, classes: bool = False) -> LogScores:
    """Read the header of every Inspect log under ``log_dir`` (a local path or an fsspec URL such as
    ``s3://bucket/run``) into a long table of scores; with ``classes``, also the samples of each label-choice log
    used, for its (gold, predicted) label pairs counted (:attr:`LogScores.classes`).

    Everything is read in one event loop, so a store is read through one client
    (:func:`bediscover_inspect.evallogs.store.list_logs_async`).

    Only logs of this suite (task metadata ``benchmark: BeDiscovER``) with ``status == "success"`` are used, and
    of an eval split by dataset only the log merged from its parts (a part is listed as unfinished, :data:`SPLIT_PART`);
    for the same (task, model, task arguments, seed) the one with the most distinct samples wins, then the most
    recently created (an interrupted then resumed eval set can leave an earlier failed log; a later ``--limit``
    smoke run never replaces a full run). Logs left out are listed in :attr:`LogScores.skipped`,
    among them files that cannot be read (reason starting with :data:`UNREADABLE`: truncated, corrupt, not an
    Inspect log) and logs of other Inspect tasks (reason starting with :data:`NOT_OURS`); one bad file never
    stops the others from being read.

    Raises:
        FileNotFoundError: ``log_dir`` does not exist.
        NotADirectoryError: ``log_dir`` is not a directory.
        OSError, ValueError: see :func:`bediscover_inspect.evallogs.store.check_log_dir`.
    """
    from bediscover_inspect._inspect_compat import run_coroutine

    return run_coroutine(read_log_scores_async(str(log_dir), classes))  # type: ignore[no-any-return]


HEADERS_AT_ONCE = 16
"""Log headers read concurrently (:func:`read_log_scores_async`): each batch is reduced to its rows and run facts
before the next is read, so the headers held at once do not grow with the number of logs."""


async def read_log_scores_async(log_dir: str, classes: bool = False, scored: bool = True) -> LogScores:
    """:func:`read_log_scores` in the running event loop (so through its one store client). The headers are read
    :data:`HEADERS_AT_ONCE` at a time and only their rows and run facts kept; the class tables' logs are read one
    sample at a time (:func:`bediscover_inspect.evallogs.pairs.read_pairs_async`).

    ``scored=False``: the sample summaries of a log that scored fewer samples than it was asked to run
    (:func:`some_not_scored`) are not read, so its run facts' ``samples``, ``errored`` and ``sample_counts`` and its
    rows' ``samples`` count from the header alone (as for a log that scored every sample); which logs are chosen
    does not change (:func:`_run_preference` reads the header). For a caller that reads the samples itself
    (``bediscover compare``)."""
    from bediscover_inspect.evallogs.store import list_logs_async, read_headers_async

    infos = await list_logs_async(log_dir)
    chosen = _RunChooser()
    for start in range(0, len(infos), HEADERS_AT_ONCE):
        batch = infos[start : start + HEADERS_AT_ONCE]
        for info, log in zip(batch, await read_headers_async([info.name for info in batch]), strict=True):
            # a log whose header counts fewer samples completed than asked: which ones were scored
            partial = scored and not isinstance(log, Exception) and log.status == "success" and some_not_scored(log)
            chosen.add(local_path(info.name), log, await scored_ids_async(info.name) if partial else None)
    read = chosen.result()
    if classes:
        read.classes = {log: await read_pairs_async(log, task) for log, task in label_logs(read.scores).items()}
    return read


@dataclass
class _Chosen:
    """A successful log kept for its run: its :func:`run_facts`, score rows (:func:`_log_rows`) and
    :func:`_run_preference`."""

    path: str
    facts: dict[str, Any]
    rows: list[dict[str, Any]]
    preference: tuple[float, str]


def _run_key(log: Any) -> tuple:
    """(task, model, variant, reasoning mode, seed) of a suite log: the logs of one run share it."""
    seed, _ = _seed_and_effort(log)
    parameters = parameters_of(log)
    return (
        short_task_name(log.eval.task),
        log.eval.model,
        variant_of(log),
        _reasoning_of(parameters),
        seed,
    )


def _no_measures(log: Any) -> str:
    """The reason a successful suite log without the suite's measure metrics is left out (:data:`NO_MEASURES`)."""
    return (
        f"{NO_MEASURES}: its results hold none of the suite's measure metrics "
        f"(task version {log.eval.task_version}; written by an older version of "
        "the suite: re-run it)"
    )


def _why_kept(kept: _Chosen, lost: _Chosen) -> str:
    """Why ``kept`` was preferred to ``lost``, as the reason of the log left out says it."""
    (kept_samples, kept_created), (lost_samples, lost_created) = kept.preference, lost.preference
    if kept_samples > lost_samples:
        return "covers more samples"
    if kept_created > lost_created:
        return "is newer"
    return "has the same samples and time, and was read later"


class _RunChooser:
    """The :class:`LogScores` of logs given one at a time (:meth:`add`), as :func:`read_log_scores` describes;
    only each kept log's rows and facts are held, never its header."""

    def __init__(self) -> None:
        self.skipped: list[tuple[str, str]] = []
        self.latest: dict[tuple, _Chosen] = {}
        self.unfinished: list[tuple[tuple, str, str]] = []
        self.tasks_of: dict[str, str] = {}

    def add(self, path: str, log: Any, scored: frozenset[str] | None = None) -> None:
        """Take the log at ``path`` (local path or URL) with its header ``log`` (or the exception that reading it
        raised); ``scored``: the ids of its samples scored when it did not score every sample it lists
        (:func:`run_facts`)."""
        if isinstance(log, Exception):  # any unreadable file is reported and skipped, never fatal
            self.skipped.append((path, f"{UNREADABLE}: {_one_line(log)}"))
            return
        try:
            found = self._sort(path, log, scored)
        except Exception as exc:  # noqa: BLE001 - a malformed header is reported and skipped, never fatal
            self.skipped.append((path, f"{UNREADABLE}: malformed log header ({_one_line(exc)})"))
            return
        if found is not None:
            self._keep(*found)

    def _sort(self, path: str, log: Any, scored: frozenset[str] | None) -> tuple[tuple, _Chosen] | None:
        """The run key (:func:`_run_key`) and :class:`_Chosen` of a successful suite log with the suite's measures;
        any other header is recorded (another task's log, unfinished, a part of a split eval, no measures) and
        gives ``None``.

        Raises:
            Exception: whatever a malformed header raises (:meth:`add` reports it).
        """
        metadata = log.eval.metadata or {}
        if not isinstance(metadata, dict) or metadata.get("benchmark") != BENCHMARK:
            self.skipped.append((path, f"{NOT_OURS}: task {log.eval.task!r} has no metadata benchmark={BENCHMARK!r}"))
            return None
        self.tasks_of[path] = short_task_name(log.eval.task)
        key = _run_key(log)
        if log.status != "success" or log.results is None:
            status = log.status if log.status != "success" else "success without results"
            self.unfinished.append((key, path, status))
            return None
        if isinstance(metadata.get(SPLIT), dict):
            self.unfinished.append((key, path, SPLIT_PART))
            return None
        facts = run_facts(path, log, scored)
        rows = _log_rows(facts, log)
        if not rows:
            self.skipped.append((path, _no_measures(log)))
            return None
        return key, _Chosen(path, facts, rows, _run_preference(log))

    def _keep(self, key: tuple, chosen: _Chosen) -> None:
        """Keep ``chosen`` for its run unless the log already kept is preferred (:attr:`_Chosen.preference`); the
        other is left out as :data:`SUPERSEDED`. A smoke run (``--limit``) never replaces a fuller run of the same
        seed: most samples first, then newest."""
        previous = self.latest.get(key)
        if previous is None:
            self.latest[key] = chosen
            return
        lost, kept = sorted([previous, chosen], key=lambda item: item.preference)
        self.skipped.append(
            (lost.path, f"{SUPERSEDED}: another successful log of the same run {_why_kept(kept, lost)} ({kept.path})")
        )
        self.latest[key] = kept

    def result(self) -> LogScores:
        """The :class:`LogScores` of the logs added (its ``classes`` empty)."""
        skipped = list(self.skipped)
        for key, path, status in self.unfinished:
            if key in self.latest:
                skipped.append((path, f"{SUPERSEDED}: status {status}, the same run later succeeded"))
            else:
                skipped.append((path, f"status {status}"))
        rows = [row for chosen in self.latest.values() for row in chosen.rows]
        scores, runs = _tables(rows, [chosen.facts for chosen in self.latest.values()])
        return LogScores(scores, skipped, runs, tasks_of=self.tasks_of)


def _tables(rows: list[dict[str, Any]], facts: list[dict[str, Any]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The :attr:`LogScores.scores` table of score ``rows`` (:data:`COLUMNS`) and the :attr:`LogScores.runs`
    table of run ``facts`` (:data:`RUN_COLUMNS`)."""
    # import cost: pandas (about 0.5 s CPU) only where the tables are built, not in `bediscover run` or its workers
    import pandas as pd

    runs = pd.DataFrame(facts, columns=RUN_COLUMNS)
    for column in (
        "dataset_samples",
        "limit",
        "sample_id",
        "per_dataset",
    ):  # as logged: None stays None, 5 stays 5 (not 5.0)
        runs[column] = pd.Series([row[column] for row in facts], index=runs.index, dtype=object)
    return pd.DataFrame(rows, columns=COLUMNS), runs
