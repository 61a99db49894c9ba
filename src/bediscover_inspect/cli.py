"""``bediscover``: run the whole suite over seeds and reasoning modes, and rebuild the paper's tables from logs.

    bediscover run --model vllm/Qwen/Qwen3-8B --reasoning both --seeds 0 1 42 --log-dir logs/qwen3-8b
    bediscover report --log-dir logs/qwen3-8b --out reports/qwen3-8b

``run`` builds one Inspect eval per task x seed x reasoning mode and hands them to ``inspect_ai.eval_set``:
re-running the same command after an interruption resumes the unfinished evals (finished samples are kept)
and skips the finished ones, so every sample is scored exactly once. The evals run concurrently (Inspect's
``max_tasks``, 10 by default) and share the model's ``--max-connections``. Live scores are off unless
``--score-display`` is given: Inspect recomputes every metric of a running eval while its samples complete, for
up to a tenth of the event loop per eval, so with several evals at once the metrics would hold the loop a large
share of the time and the server would wait (``benchmarks/results/README.md``); the logs' final scores are the same
either way. ``report`` is
:func:`bediscover_inspect.report.build.build_report`. See ``src/bediscover_inspect/report/README.md``.

Expected user errors (unknown task, bad ``-T``/``-M`` argument, missing data, unknown model provider, missing
log directory …) print one line ``bediscover <command>: error: …`` on stderr and exit with code 2;
``BEDISCOVER_TRACEBACK=1`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import re
import sys
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bediscover_inspect import workers
from bediscover_inspect._inspect_compat import PrerequisiteError, panels_without_scores
from bediscover_inspect.data import pinned
from bediscover_inspect.evallogs.scores import LogScores, ReportWarning, read_log_scores
from bediscover_inspect.plan.core import Plan, expected_from_logs, make_plan
from bediscover_inspect.plan.cost import CostConfigError, model_prices
from bediscover_inspect.plan.count import is_incremental, prompts_of
from bediscover_inspect.plan.render import budget_verdict, one_line, render
from bediscover_inspect.plan.spec import EvalGroup, RunSpec, SpecError, add_plan_arguments, add_run_arguments, run_spec
from bediscover_inspect.plan.timing import Timing, probe
from bediscover_inspect.plan.tokenizers import tokenizer_for
from bediscover_inspect.presets import model_family
from bediscover_inspect.run.calls import bound_calls
from bediscover_inspect.run.failures import is_disk_full
from bediscover_inspect.run.guard import RunRefused, check_server, closing_lines, lock_of, run_guard
from bediscover_inspect.run.interrupts import (
    EXIT_INTERRUPTED,
    RESUME_HINT,
    command_name,
    interrupted_line,
    interrupts,
)
from bediscover_inspect.run.options import UsageError, cap_error_counts, client_model_args, eval_set_options
from bediscover_inspect.run.winddown import interrupts_stop_the_eval_set
from bediscover_inspect.run_summary import print_run_summary
from bediscover_inspect.split import mark_part, piece_of, sample_counts
from bediscover_inspect.tasks import (
    TASK_ERRORS,
    TASK_NAMES,
    check_task_args,
    task_error_message,
    task_function,
    task_name_of,
    warnings_to_stderr,
)
from bediscover_inspect.tasks import one_line as message_line
from bediscover_inspect.workers import add_arguments as add_scale_arguments

if TYPE_CHECKING:
    from bediscover_inspect.report.build import Report


class TaskNotAvailable(UsageError, RuntimeError):
    """A task name that is not one of :data:`TASK_NAMES` or whose module cannot be imported."""


class TaskArgumentError(UsageError, ValueError):
    """A task refused its arguments (unknown ``-T`` name, bad value) or could not load its data."""


def resolve_task(name: str) -> Callable[..., Any]:
    """The ``@task`` function of ``name`` (from :data:`bediscover_inspect.tasks.TASKS`).

    Raises:
        TaskNotAvailable: unknown name (the message lists the valid ones).
    """
    try:
        return task_function(name)
    except KeyError as exc:
        raise TaskNotAvailable(str(exc.args[0])) from None


def parse_kv(items: Sequence[str] | None, flag: str) -> dict[str, Any]:
    """``["k=v", …]`` -> dict; values are read as JSON when they parse (numbers, true/false, lists), else strings.

    Raises:
        UsageError: an item without ``=`` (the message names the flag).
    """
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} expects key=value, got {item!r}")
        lowered = value.strip().lower()
        if lowered in {"true", "false"}:
            out[key] = lowered == "true"
            continue
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def build_tasks(
    task_names: Sequence[str],
    seeds: Sequence[int],
    modes: Sequence[bool],
    subset: str,
    task_args: dict[str, Any],
    model: str | None = None,
    reasoning_effort: str | None = None,
    cells: Collection[tuple[Any, ...]] | None = None,
    plan: Collection[tuple[Any, ...]] | None = None,
    warn: bool = True,
) -> list[Any]:
    """One :class:`inspect_ai.Task` per task x reasoning mode x seed; the seeds of a task and mode are shallow
    copies of one build (one dataset, solver and scorer; each its own generate config and metadata).

    ``task_args`` apply to every task, except keys ``<task>.<arg>`` (e.g. ``sentence_ordering.dataset``), which
    apply to that task only. The seed goes into the task's generate config (merged over the task's own Table 7 preset), so each eval's
    log records it (``plan.config.seed``) and ``eval_set`` tells the evals apart, and into the task's metadata
    (the eval's ``metadata.seed``, in the ``metadata`` column of Inspect's ``evals_df``); ``reasoning`` and
    ``subset`` are task arguments, next to any ``-T`` ones.

    The tasks are built before the eval starts, so no model is active yet: with ``model`` given, a task whose
    ``presets`` is ``auto`` (the default) gets ``presets=<family>`` read from ``model`` and ``reasoning_effort``
    (:func:`bediscover_inspect.presets.model_family`), as ``inspect eval`` would pick it.

    With ``cells`` given, only the evals ``(task, reasoning, seed)`` in it are built (a shard's or worker's share,
    :mod:`bediscover_inspect.workers`); every task's arguments are checked all the same. ``warn=False`` keeps the
    data warnings (absent datasets, a file's SHA-1) to the processes that run the evals.
    An entry
    ``(task, reasoning, seed, datasets)`` with ``datasets`` not empty is one part of an eval split by dataset
    (:mod:`bediscover_inspect.split`): built with ``dataset=datasets`` and marked as a part of the split that
    ``plan`` (the whole run's entries, default ``cells``) has for its eval.

    Raises:
        TaskNotAvailable: see :func:`resolve_task`.
        TaskArgumentError: a task function rejects its arguments or cannot load its data (the message names
            the task and its arguments).
    """
    from inspect_ai.model import GenerateConfig

    functions = {name: resolve_task(name) for name in task_names}
    _check_task_arg_names(task_args)
    tasks = []
    with warnings_to_stderr(warn):  # a skipped dataset is named once, not once per seed and mode
        for name in task_names:
            builder = _TaskBuilder.checked(functions[name], name, subset, task_args, model, reasoning_effort)
            for reasoning, seed in itertools.product(modes, (int(seed) for seed in seeds)):
                mine, parts = _cell_parts((name, reasoning, seed), cells, plan)
                for part in mine:
                    task = builder.build(reasoning, part, parts)
                    task.config = task.config.merge(GenerateConfig(seed=seed))
                    task.metadata = {**(task.metadata or {}), "seed": seed}
                    tasks.append(task)
    return tasks


def _check_task_arg_names(task_args: Mapping[str, Any]) -> None:
    """Refuse a ``-T <task>.<arg>`` of an unknown task and a ``-T`` argument that ``bediscover run`` sets itself
    (:data:`RUN_OPTIONS`).

    Raises:
        TaskArgumentError: the message names the argument and the tasks or the option to use instead.
    """
    for key in task_args:
        prefix, dot, arg = key.partition(".")
        if dot and prefix not in TASK_NAMES:
            raise TaskArgumentError(f"-T {key}: unknown task {prefix!r}; the tasks are: {', '.join(TASK_NAMES)}")
        if (arg if dot else key) in RUN_OPTIONS:
            raise TaskArgumentError(f"-T {key}: {RUN_OPTIONS[arg if dot else key]}")


def _cell_parts(
    cell: tuple[str, bool, int], cells: Collection[tuple[Any, ...]] | None, plan: Collection[tuple[Any, ...]] | None
) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """The parts of the eval ``cell`` (task, reasoning, seed) to build here (``()`` for the whole eval; every cell
    when ``cells`` is ``None``), and the parts that ``plan`` (default ``cells``) splits the eval into."""
    listed = [cell] if cells is None else cells
    mine = [tuple(c[3]) if len(c) > 3 else () for c in listed if tuple(c[:3]) == cell]
    parts = [tuple(c[3]) for c in plan or listed if tuple(c[:3]) == cell and len(c) > 3]
    return mine, parts


@dataclass
class _TaskBuilder:
    """Builds the evals of one task with its arguments: each mode and part once, whatever the number of seeds
    (loading a task's data takes up to a second); the whole task, which marks the parts of a split eval, once.

    Attributes:
        function: the task's ``@task`` function.
        name: the task's name.
        subset: ``paper`` or ``full``.
        own: the task's arguments (the shared ``-T`` ones and its own, ``presets`` resolved).
        given: what the user passed, for messages.
        whole: the whole task, once a part needed it.
        built: the tasks built, by reasoning mode, part and the parts of its split eval.
    """

    function: Callable[..., Any]
    name: str
    subset: str
    own: dict[str, Any]
    given: dict[str, Any]
    whole: Any = None
    built: dict[tuple[bool, tuple[str, ...], tuple[tuple[str, ...], ...]], Any] = field(default_factory=dict)

    @classmethod
    def checked(
        cls,
        function: Callable[..., Any],
        name: str,
        subset: str,
        task_args: Mapping[str, Any],
        model: str | None,
        reasoning_effort: str | None,
    ) -> _TaskBuilder:
        """The builder of task ``name`` with ``task_args`` (see :func:`build_tasks`), its arguments checked.

        Raises:
            TaskArgumentError: the task refuses its arguments.
        """
        shared = {k: v for k, v in task_args.items() if k.partition(".")[0] not in TASK_NAMES}
        own = shared | {k.partition(".")[2]: v for k, v in task_args.items() if k.partition(".")[0] == name}
        given = dict(own)
        if model is not None and str(own.get("presets", "auto")).strip().lower() == "auto":
            own["presets"] = model_family(model, reasoning_effort)
        try:
            check_task_args(name, own | {"subset": subset, "reasoning": False})
        except TASK_ERRORS as exc:
            raise TaskArgumentError(task_error_message(name, given, exc)) from exc
        return cls(function, name, subset, own, given)

    def build(self, reasoning: bool, part: tuple[str, ...], parts: Sequence[tuple[str, ...]]) -> Any:
        """The task in ``reasoning`` mode: whole (``part`` empty) or one ``part`` of those of its split eval; a
        shallow copy of the one build of that mode and part (Inspect reads a task's dataset, solver and scorer
        without changing them; the caller sets the copy's own ``config`` and ``metadata``).

        Raises:
            TaskArgumentError: the task function rejects its arguments or cannot load its data.
        """
        key = (reasoning, part, tuple(parts))
        if key not in self.built:
            try:
                task = self.function(subset=self.subset, reasoning=reasoning, **own_part(self.own, part))
                if part:
                    self.whole = self.whole or self.function(subset=self.subset, reasoning=False, **self.own)
                    mark_part(task, parts, part, self.own.get("dataset"), self.whole)
            except TASK_ERRORS as exc:
                raise TaskArgumentError(task_error_message(self.name, self.given, exc)) from exc
            self.built[key] = task
        return copy.copy(self.built[key])


def own_part(own: dict[str, Any], part: Sequence[str]) -> dict[str, Any]:
    """A task's arguments for one part of a split eval: ``own`` with ``dataset`` set to the part's datasets
    (``own`` itself for the whole task, ``part`` empty)."""
    return own | {"dataset": list(part)} if part else own


def plain_message(exc: BaseException) -> str:
    """An exception's message on one line, without Rich console markup (``[bold][blue]…[/blue][/bold]``) and
    without a leading ``ERROR:`` (the line that prints it already says error); its paragraphs become sentences
    (Inspect's ``ERROR: Unable to initialise OpenAI client\n\nNo OPENAI_API_KEY … defined in the environment.``
    -> ``Unable to initialise OpenAI client. No OPENAI_API_KEY … defined in the environment.``)."""
    parts = [message_line(Exception(part)) for part in re.split(r"\n\s*\n", str(exc))]
    parts = [part for part in parts if part]
    text = " ".join(part if i == len(parts) - 1 or part[-1] in ".:;!?" else f"{part}." for i, part in enumerate(parts))
    return re.sub(r"^error:\s*", "", text, flags=re.IGNORECASE)


def check_model(model: str, base_url: str | None, model_args: dict[str, Any]) -> Any:
    """Resolve ``--model`` once before any eval starts, so a missing package, API key or server is one message.

    Returns:
        The Inspect :class:`~inspect_ai.model.Model` (the eval set reuses it): a new one, not ``get_model``'s
        memoized instance, since the run changes it in place (:func:`~bediscover_inspect.run.calls.bound_calls`)
        and a provider reads its settings (a base URL from the environment) when it is created.

    Raises:
        UsageError: the provider cannot be used as configured; for ``vllm/`` without a server URL and without the
            ``vllm`` package, the message names both fixes.
    """
    from inspect_ai.model import get_model

    if model.startswith("vllm/") and not (base_url or os.environ.get("VLLM_BASE_URL")):
        import importlib.util

        if importlib.util.find_spec("vllm") is None:
            raise UsageError(
                f"--model {model}: no vLLM server to talk to and no vllm package to start one. Either point at a "
                "running server (VLLM_BASE_URL=http://HOST:PORT/v1 or --model-base-url), or install vllm "
                "(pip install 'bediscover-inspect[vllm]', a GPU machine) so Inspect starts `vllm serve` itself"
            )
    try:
        return get_model(model, base_url=base_url, memoize=False, **model_args)
    except PrerequisiteError as exc:  # a missing package or API key …
        raise UsageError(plain_message(exc)) from exc
    except ValueError as exc:  # Inspect's configuration checks (e.g. "Model API x of model 'x/m' not recognized")
        raise UsageError(f"{type(exc).__name__}: {plain_message(exc)}") from exc


def run_outcome(logs: Sequence[Any], n_tasks: int, log_dir: str, interrupted: bool) -> tuple[int, str]:
    """Exit code and closing line of ``bediscover run`` from the eval logs it left.

    0 when every eval succeeded (also when a Ctrl-C came too late to stop any); :data:`EXIT_INTERRUPTED` when the
    run was interrupted (Ctrl-C, or any log ``cancelled``); 1 when an eval failed. Every unfinished run gets the
    resume hint.
    """
    done = sum(1 for log in logs if log.status == "success")
    line = f"bediscover run: {done}/{n_tasks} evals complete in {log_dir}"
    if done == n_tasks:  # a Ctrl-C that came as the last eval ended stopped nothing
        return 0, line
    if interrupted or any(log.status == "cancelled" for log in logs):
        return EXIT_INTERRUPTED, f"{line}; interrupted ({RESUME_HINT})"
    if done < n_tasks:
        return 1, f"{line}; {n_tasks - done} unfinished ({RESUME_HINT})"
    return 0, line


RUN_OPTIONS = {
    "reasoning": "the reasoning mode is set by --reasoning off|on|both",
    "subset": "the subset is set by --subset paper|full",
}
"""Task parameters that ``bediscover run`` sets from its own options, with the option to use instead."""


def spec_of(args: argparse.Namespace) -> RunSpec:
    """The :class:`~bediscover_inspect.plan.spec.RunSpec` of a ``bediscover run`` / ``plan`` command line.

    Raises:
        UsageError: a bad ``-T`` argument, or options that contradict each other (``--table`` with ``--tasks`` …).
    """
    try:
        return run_spec(args, parse_kv(args.task_arg, "-T"))
    except SpecError as exc:
        raise UsageError(str(exc)) from exc


def plan_of(spec: RunSpec, resume: bool = True, warn: bool = False) -> Plan:
    """Count ``spec``'s run (:func:`bediscover_inspect.plan.core.make_plan`) with the model's tokenizer
    (:func:`~bediscover_inspect.plan.tokenizers.tokenizer_for`) and the ``--model-cost-config`` prices.

    Raises:
        UsageError: an unreadable cost file; TaskNotAvailable, TaskArgumentError: see :func:`build_tasks`.
    """
    tokenizer, why = tokenizer_for(spec.model, spec.base_url)
    notes = [f"prompt tokens by approximation: {why}"] if why else []
    try:
        prices = model_prices(spec.cost_config, spec.model) if spec.cost_config else None
    except CostConfigError as exc:
        raise UsageError(str(exc)) from exc

    warned: set[str] = set()

    def build(
        names: Sequence[str], seeds: Sequence[int], modes: Sequence[bool], task_args: dict[str, Any]
    ) -> list[Any]:
        first = warn and not set(names) <= warned  # a task's data warnings once, not once per mode
        warned.update(names)
        return build_tasks(
            names,
            seeds,
            modes,
            spec.subset,
            task_args,
            model=spec.model,
            reasoning_effort=spec.reasoning_effort,
            warn=first,
        )

    return make_plan(spec, build, tokenizer, prices, notes, resume=resume)


def cmd_plan(args: argparse.Namespace) -> int:
    """``bediscover plan``: print the plan of the ``bediscover run`` with the same arguments; exit 0, or
    :data:`~bediscover_inspect.plan.render.EXIT_OVER_BUDGET` / ``EXIT_BUDGET_UNCHECKED`` under ``--budget``."""
    spec = spec_of(args)
    plan = plan_of(spec, warn=True)
    if args.from_logs:
        _expect_from_logs(plan, args.from_logs)
    if args.probe or args.rate:
        plan.timing = timing_of(args, spec)
    print(render(plan, args.format))
    code, line = budget_verdict(plan, spec.budget)
    if code:
        print(f"bediscover plan: {line}", file=sys.stderr)
    return code


def _expect_from_logs(plan: Plan, from_logs: str) -> None:
    """Set ``plan``'s expected output tokens from the logs in ``from_logs`` (``plan --from-logs``), with a note
    naming the models they come from and one naming the evals they leave without.

    Raises:
        UsageError: ``from_logs`` is not a directory.
    """
    try:
        plan.expected, models = expected_from_logs(from_logs)
    except NotADirectoryError as exc:
        raise UsageError(str(exc)) from exc
    missing = sorted(
        {f"{r.task} reasoning {'on' if r.reasoning else 'off'}" for r in plan.rows}
        - {f"{task} reasoning {'on' if reasoning else 'off'}" for task, reasoning in plan.expected}
    )
    plan.notes.append(f"expected output tokens from {from_logs} (models: {', '.join(models) or 'none'})")
    if missing:
        plan.notes.append(f"no expected output tokens (no usage in --from-logs) for: {'; '.join(missing)}")


def timing_of(args: argparse.Namespace, spec: RunSpec) -> Timing:
    """The wall-time basis of ``bediscover plan``: ``--rate``, and with ``--probe N`` the first ``N`` prompts of
    the run's first eval (first group, task, reasoning mode and seed) sent to its model with the eval's generate
    config (the task's Table 7 presets under the command line's; no cache, no batch) and timed
    (:func:`bediscover_inspect.plan.timing.probe`).

    Raises:
        UsageError: the model cannot be used as configured, or a probe call fails (one line).
    """
    from inspect_ai.model import GenerateConfig

    rate = Timing(rate_per_min=args.rate)
    if not args.probe:
        return rate
    group = spec.groups[0]
    [task] = build_tasks(
        group.tasks[:1],
        spec.seeds[:1],
        spec.modes[:1],
        spec.subset,
        group.task_args,
        model=spec.model,
        reasoning_effort=spec.reasoning_effort,
        warn=False,
    )
    samples = list(task.dataset)[: spec.limit] if spec.limit else list(task.dataset)
    prompts = [call for calls in prompts_of(task, samples, is_incremental(task)) for call in calls][: args.probe]
    sent = {k: v for k, v in spec.generate.items() if k not in ("cache", "batch", "max_connections")}
    config = task.config.merge(GenerateConfig(**sent))
    model = check_model(spec.model, spec.base_url, client_model_args(spec.model, parse_kv(args.model_arg, "-M")))
    try:
        timed = probe(model, prompts, config, spec.generate.get("max_connections"))
    except Exception as exc:  # a provider's error: the plan's one line
        raise UsageError(f"--probe: a call to {spec.model} failed: {type(exc).__name__}: {plain_message(exc)}") from exc
    return Timing(timed.latency_s, timed.probe_calls, timed.connections, args.rate)


def cmd_run(args: argparse.Namespace) -> int:
    """``bediscover run``: the plan's one line (and ``--budget``'s check), then each group of evals of the
    :class:`~bediscover_inspect.plan.spec.RunSpec` in turn (one for a run without ``--table``)."""
    spec = spec_of(args)
    if len(spec.groups) > 1 and (args.workers > 1 or args.shard):
        raise UsageError(
            f"--table {spec.table} runs its {len(spec.groups)} prompt variants one after another in one process; "
            "drop --workers/--shard, or run one variant with --tasks and -T"
        )
    plan = None
    if args.worker is None and args.pieces is None:  # the first process prints the plan, a worker does not
        plan = plan_of(spec)
        code, line = budget_verdict(plan, spec.budget)
        if code:
            print(f"bediscover run: refused: {line}", file=sys.stderr)
            return code
        print(f"bediscover run: plan: {one_line(plan)}", flush=True)
    code = 0
    for group in spec.groups:
        if group.label:
            print(f"bediscover run: {group.label}", flush=True)
        code = max(code, run_group(args, spec, group, _group_totals(plan, group)))
        if code == EXIT_INTERRUPTED:
            break
    return code


def _group_totals(plan: Plan | None, group: EvalGroup) -> dict[str, Any] | None:
    """The plan's totals of one group of evals (``None`` without a plan: a worker process)."""
    return None if plan is None else plan.totals([row for row in plan.rows if row.group == group.label])


def run_group(args: argparse.Namespace, spec: RunSpec, group: EvalGroup, planned: dict[str, Any] | None = None) -> int:
    """Run one :class:`~bediscover_inspect.plan.spec.EvalGroup` of ``spec`` (its tasks x modes x seeds) in this
    process or over ``--workers``; returns the exit code. ``planned``: the group's plan totals, printed beside the
    actual figures under the end-of-run table."""
    args.tasks, args.seeds = list(group.tasks), list(spec.seeds)
    model_args = client_model_args(args.model, parse_kv(args.model_arg, "-M"))
    modes = list(spec.modes)
    options = dict(
        subset=args.subset, task_args=group.task_args, model=args.model, reasoning_effort=args.reasoning_effort
    )

    def sizes_of(name: str) -> dict[str, int]:
        [whole] = build_tasks([name], [0], [False], **options, warn=False)
        return sample_counts(whole)

    if args.parent is not None:  # a --workers process: it stops when its parent ends
        workers.watch_parent(args.parent)
    pieces = workers.pieces_of(args, modes, sizes_of)
    cells = workers.share(pieces, args.worker)
    model = None
    if cells:  # the model and its server first: their errors are the run's one line, before any data warning
        model = check_model(args.model, args.model_base_url, model_args)
        check_server(args.model, args.model_base_url, model_args)
    tasks = build_tasks(
        args.tasks,
        spec.seeds,
        modes,
        **options,
        cells=workers.one_cell_per_task(cells) if args.workers > 1 else cells,
        plan=pieces,
        warn=args.workers == 1,  # workers warn, each for the data it loads
    )
    if not cells or args.workers > 1:
        return _run_over_workers(args, cells, model, model_args, tasks, planned)
    return _run_here(args, spec, model=model, model_args=model_args, cells=cells, tasks=tasks, planned=planned)


def _run_over_workers(
    args: argparse.Namespace,
    cells: list[Any],
    model: Any,
    model_args: dict[str, Any],
    tasks: list[Any],
    planned: dict[str, Any] | None,
) -> int:
    """Run ``cells`` (this process's share of the group's evals, Inspect ``tasks`` built for them) over
    ``--workers`` processes (:func:`bediscover_inspect.workers.run_spread`) under the run's guard; print the run's
    table (``planned``: the group's plan totals) and closing line; return the exit code."""
    calls = workers.calls_per_cell(cells, tasks, args.limit)
    lock = lock_of(args) if cells else None
    with run_guard(args.model, args.model_base_url, model_args, args.log_dir, lock=lock) as guard:
        code, line = workers.run_spread(args, cells, model, calls, guard.lock)
    print_run_summary(workers.merge_and_list(args.log_dir, cells), args.log_dir, planned)
    print(line, file=sys.stderr if code else sys.stdout)
    return code


def _run_here(
    args: argparse.Namespace,
    spec: RunSpec,
    model: Any,
    model_args: dict[str, Any],
    cells: list[Any],
    tasks: list[Any],
    planned: dict[str, Any] | None,
) -> int:
    """Run ``tasks`` (built for ``cells``) through ``eval_set`` in this process under the run's guard (lock,
    server and disk watches); then the logs left, the run's table and closing lines; return the exit code."""
    with run_guard(args.model, args.model_base_url, model_args, args.log_dir, lock=lock_of(args)) as watch:
        bound_calls(model, args.timeout, watch.rate)
        logs, interrupted = _eval_set_logs(args, spec, model, tasks, watch)
        interrupted = interrupted or bool(interrupts())  # also one absorbed inside the eval set
        workers.remove_superseded(args.log_dir, {cell[:3] for cell in cells})  # under the lock: no other writer
        logs, interrupted = _logs_left(args.log_dir, cells, len(tasks), logs, interrupted)
        code, line = run_outcome(logs, len(tasks), args.log_dir, interrupted)
        workers.write_result(args.worker_result, logs, len(tasks))
        if not args.worker_result:  # a worker's evals are in its parent's table
            if args.shard or any(cell[3] for cell in cells):  # merge parts, list shards
                logs = workers.merge_and_list(args.log_dir, cells)
            print_run_summary(logs, args.log_dir, planned)
        code, lines = closing_lines(watch, code, line, logs, args.log_dir)
        for text in lines:
            print(text, file=sys.stderr if code or text is not lines[-1] else sys.stdout)
    return code


def _logs_left(
    log_dir: str, cells: list[Any], n_tasks: int, logs: Sequence[Any], interrupted: bool
) -> tuple[Sequence[Any], bool]:
    """The eval set's ``logs``, or, when it returned fewer than its ``n_tasks`` (none when Ctrl-C stopped it), what
    it left in ``log_dir`` for the ``cells`` (pieces: a split eval's part only, not the other workers' parts of
    it); ``interrupted`` also when one of those was cancelled."""
    if len(logs) >= n_tasks:
        return logs, interrupted
    pieces = {(*cell[:3], tuple(cell[3])) for cell in cells}
    left = workers.logs_of(workers.logs_in(log_dir), pieces, key=piece_of)
    return logs or left, interrupted or any(log.status == "cancelled" for log in left)


def _eval_set_logs(
    args: argparse.Namespace, spec: RunSpec, model: Any, tasks: list[Any], watch: Any
) -> tuple[Sequence[Any], bool]:
    """The logs of Inspect's ``eval_set`` over ``tasks`` (none when it was stopped or the disk filled, which
    ``watch`` then records), and whether a Ctrl-C stopped it.

    Raises:
        UsageError: a missing package or API key, an unknown model provider, Inspect's configuration checks.
    """
    from inspect_ai import eval_set

    with interrupts_stop_the_eval_set():  # the signal handlers of the eval set
        try:
            if interrupts():  # a Ctrl-C that a library absorbed while the tasks were built
                raise KeyboardInterrupt
            with panels_without_scores():  # the run ends with its own table
                _success, logs = workers.beside_other_writers(
                    eval_set,
                    tasks,
                    log_dir=args.log_dir,
                    model=model,
                    limit=args.limit,
                    max_tasks=args.max_tasks,
                    max_samples=args.max_samples,
                    log_dir_allow_dirty=True,
                    display=args.display,
                    score_display=args.score_display,
                    log_realtime=args.log_realtime,
                    model_cost_config=spec.cost_config,
                    **cap_error_counts(tasks, eval_set_options(args), args.limit),
                    **spec.generate,  # user flags win over the Table 7 presets
                )
            return logs, False
        except KeyboardInterrupt:
            return [], True
        except PrerequisiteError as exc:  # a missing package or API key, an unknown model provider …
            raise UsageError(plain_message(exc)) from exc
        except ValueError as exc:  # Inspect's configuration checks
            raise UsageError(f"{type(exc).__name__}: {plain_message(exc)}") from exc
        except OSError as exc:
            if not is_disk_full(exc):
                raise
            watch.disk.message = str(exc)
            return [], False


EXIT_INCOMPLETE = 3
"""Exit code of ``bediscover report`` when something is missing from the report (no cell, a seed or task, a log
not used: :func:`bediscover_inspect.report.build.incompleteness`), as ``bediscover compare`` exits on an incomplete
comparison; the files are written all the same."""


def cmd_report(args: argparse.Namespace) -> int:
    """``bediscover report``: the report of ``--log-dir`` in ``--out`` (and ``--table N``'s paper table); exit 0, or
    :data:`EXIT_INCOMPLETE` when something is missing from it.

    Raises:
        UsageError: ``--out`` is a file, an unknown ``--tasks`` or ``--paper-model``, a log directory that cannot be
            read, an output directory that cannot be written, an unknown ``--table``.
    """
    out, paper_models = _report_options(args)
    report = _report(args, out, paper_models, _read_logs(args.log_dir))
    for message in report.warnings:
        print(f"{'incomplete' if message in report.incomplete else 'warning'}: {message}", file=sys.stderr)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.table is not None:
        _write_paper_table(report, args.table, out)
    line = f"bediscover report: {len(report.cells)} cells, {len(report.files)} files in {args.out}"
    if report.incomplete:
        count = len(report.incomplete)
        print(
            f"{line}; incomplete: {count} thing{'s' if count > 1 else ''} missing (listed above; exit 3)",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    print(line)
    return 0


def _report_options(args: argparse.Namespace) -> tuple[Path, dict[str, str]]:
    """``report``'s output directory and ``--paper-model`` choices, checked with its ``--tasks``.

    Raises:
        UsageError: ``--out`` is a file, an unknown ``--tasks`` name, a bad ``--paper-model``.
    """
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out is not a directory: {out}")
    unknown = sorted(set(args.tasks or ()) - set(TASK_NAMES))
    if unknown:
        raise UsageError(f"unknown task(s) {', '.join(unknown)} in --tasks; choose from {', '.join(TASK_NAMES)}")
    # import cost: the report's modules and pandas (about 0.5 s CPU), only for `bediscover report`
    from bediscover_inspect.report.matching import parse_paper_models

    try:
        return out, parse_paper_models(args.paper_model)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _write_paper_table(report: Report, number: int, out: Path) -> None:
    """Write paper Table ``number`` of the report's cells into ``out`` and say where.

    Raises:
        UsageError: the paper has no such table.
    """
    # import cost: the report's modules and pandas (about 0.5 s CPU), only for `bediscover report`
    from bediscover_inspect.report.paper_table import write_paper_table

    try:
        written = write_paper_table(report.cells, number, out)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from exc
    print(f"bediscover report: paper Table {number} in {', '.join(str(path) for path in written)}")


def _read_logs(log_dir: str) -> LogScores:
    """The logs of ``report --log-dir`` with their class tables' labels, read in one event loop (so a store is read
    through one client).

    Raises:
        UsageError: not a directory, or a store or path that cannot be read.
    """
    try:
        return read_log_scores(log_dir, classes=True)
    except NotADirectoryError as exc:
        raise UsageError(f"--log-dir is not a directory: {log_dir}") from exc
    except (OSError, ValueError) as exc:
        raise UsageError(str(exc)) from exc


def _report(args: argparse.Namespace, out: Path, paper_models: dict[str, str], read: LogScores) -> Report:
    """:func:`~bediscover_inspect.report.build.build_report` of the logs ``read`` into ``out``, its warnings left to
    the command's own lines.

    Raises:
        UsageError: the output directory cannot be created or written.
    """
    # import cost: the report's modules and pandas (about 0.5 s CPU), only for `bediscover report`
    from bediscover_inspect.report.build import build_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReportWarning)  # printed by the command, once
        try:
            return build_report(
                args.log_dir,
                out,
                ddof=args.ddof,
                expected_seeds=args.seeds,
                tasks=args.tasks,
                plots=not args.no_plots,
                paper_models=paper_models,
                read=read,
            )
        except (FileNotFoundError, NotADirectoryError, PermissionError, FileExistsError) as exc:
            # the output directory cannot be created or written
            raise UsageError(f"{type(exc).__name__}: {exc}") from exc


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``bediscover`` argument parser (sub-commands ``run``, ``plan``, ``report``, ``compare``, ``rescore`` and
    ``fetch``). ``command``: the sub-command about to run, when known; the options of ``compare`` and ``rescore``
    are then added only when it is theirs (their modules take about 0.5 s CPU to import)."""
    parser = argparse.ArgumentParser(prog="bediscover", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run tasks x seeds x reasoning modes through inspect_ai.eval_set (resumable)")
    add_run_arguments(run)
    add_scale_arguments(run)
    run.set_defaults(func=cmd_run)

    plan = sub.add_parser(
        "plan", help="what `bediscover run` with the same arguments will send and cost, counted before it runs"
    )
    add_run_arguments(plan)
    add_scale_arguments(plan)
    add_plan_arguments(plan)
    plan.set_defaults(func=cmd_plan)

    report = sub.add_parser(
        "report",
        help="paper-style tables and plots from a log directory",
        description="Paper-style tables and plots from a log directory. Exit 0 when the report holds every run "
        "found or asked for; 3 when something is missing (no cell, a seed or task missing, a log not used: one "
        "'incomplete:' line each; the files are written all the same); 2 on a usage error.",
    )
    report.add_argument("--log-dir", required=True)
    report.add_argument("--out", default="reports", help="output directory (default %(default)s)")
    report.add_argument(
        "--ddof",
        type=int,
        choices=[0, 1],
        default=0,
        help="std over seeds: 0 population (default, the paper's convention), 1 sample",
    )
    report.add_argument(
        "--seeds",
        nargs="+",
        type=int,
        default=None,
        help="seeds every run should have (default: every seed found); one missing exits 3",
    )
    report.add_argument(
        "--tasks",
        nargs="+",
        type=task_name_of,
        default=None,
        metavar="TASK",
        help="report only these tasks, each of which every model/mode should have (default: every task found)",
    )
    report.add_argument("--no-plots", action="store_true")
    report.add_argument(
        "--table",
        type=int,
        default=None,
        metavar="N",
        help="also write the paper's Table N in its own layout (models x datasets, mean ± std over seeds, the "
        "paper's value and the difference): table-N.md, .csv and .tex in --out",
    )
    report.add_argument(
        "--paper-model",
        action="append",
        metavar="[SERVED=]PAPER",
        help="compare with this paper model: every model of the logs (PAPER), or one served name "
        "(SERVED=PAPER, e.g. 'gguf/./Qwen3-8B-Q4_K_M.gguf=Qwen3-8B'); repeatable",
    )
    report.set_defaults(func=cmd_report)

    compare_parser = sub.add_parser("compare", help="paired significance tests of a candidate against a baseline")
    rescore_parser = sub.add_parser("rescore", help="re-score existing logs with the current scorers")
    if command in (None, "compare"):
        # import cost: the gate's comparison (about 0.3 s CPU), only for `bediscover compare`
        from bediscover_inspect.gate import compare_output
        from bediscover_inspect.gate.compare import CompareError

        compare_output.add_arguments(compare_parser)
        compare_parser.set_defaults(func=_guarded(compare_output.run_command, CompareError))
    if command in (None, "rescore"):
        # import cost: the gate's re-scoring (about 0.3 s CPU), only for `bediscover rescore`
        from bediscover_inspect.gate import rescore

        rescore.add_arguments(rescore_parser)
        rescore_parser.set_defaults(func=_guarded(rescore.run_command, rescore.RescoreError))

    fetch_parser = sub.add_parser(
        "fetch", help="download and verify every pinned data file ahead of time (for machines without a network)"
    )
    pinned.add_arguments(fetch_parser)
    fetch_parser.set_defaults(func=_guarded(pinned.run_command, ValueError))
    return parser


def _guarded(
    command: Callable[[argparse.Namespace], int], error: type[Exception]
) -> Callable[[argparse.Namespace], int]:
    """``command`` with its expected ``error`` turned into a :class:`UsageError` (one line, exit 2)."""

    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except error as exc:
            raise UsageError(str(exc)) from exc

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bediscover`` console script; returns the process exit code."""
    given = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(given[0] if given else None).parse_args(given)
    args.argv = given  # what a worker process is started with
    try:
        return args.func(args)
    except (UsageError, RunRefused) as exc:  # expected errors: one line, no traceback, exit code 2 (as argparse)
        if os.environ.get("BEDISCOVER_TRACEBACK"):
            raise
        print(f"bediscover {args.command}: error: {exc}", file=sys.stderr)
        return 2


def console_main() -> None:
    """The ``bediscover`` console script: :func:`main`, then exit with its code.

    An interrupted run exits through ``os._exit`` once its closing line is printed: a thread of the eval that is
    still blocked (a model call in flight, say) would otherwise keep the interpreter from exiting.
    """
    try:
        code = main()
    except BaseException as exc:  # Ctrl-C before the eval set started (building tasks, loading the model …)
        if not isinstance(exc, KeyboardInterrupt) and not interrupts():
            raise  # an error that no Ctrl-C caused
        print(interrupted_line(command_name()), file=sys.stderr)
        code = EXIT_INTERRUPTED
    if code == EXIT_INTERRUPTED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    console_main()
