"""The plan of a ``bediscover run``: what it runs and with which options, built once from its command line.

``bediscover run`` and ``bediscover plan`` take the same arguments (:func:`add_run_arguments`, the one place a run
option is declared); :func:`run_spec` reads them into a :class:`RunSpec`, which ``run`` executes (in one process or
over ``--workers``) and ``plan`` counts (:mod:`bediscover_inspect.plan.count`). The generate options a run sends
(:attr:`RunSpec.generate`) are derived here and nowhere else.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bediscover_inspect.presets import PAPER_SEEDS
from bediscover_inspect.run.options import add_arguments as add_run_bounds
from bediscover_inspect.run.options import whole_number
from bediscover_inspect.tasks import TASK_NAMES, task_name_of

REASONING_CHOICES: dict[str, tuple[bool, ...]] = {"off": (False,), "on": (True,), "both": (False, True)}
"""``--reasoning`` -> the reasoning modes run (the paper's "w/o" and "w/ reasoning" settings)."""

TABLE_SETS = ("--tasks", "--reasoning", "--seeds")
"""The options ``--table`` sets itself (giving one of them as well is an error)."""

DEFAULT_CACHE_EXPIRY = "1W"
"""``--cache`` without a value: Inspect's :class:`~inspect_ai.model.CachePolicy` default expiry (one week)."""


class SpecError(ValueError):
    """The run's arguments contradict each other (``--table`` with ``--tasks`` …); the CLI prints one line."""


@dataclass(frozen=True)
class EvalGroup:
    """Evals that share their task arguments: every task of ``tasks`` x reasoning mode x seed.

    Attributes:
        tasks: task names, in the suite's order.
        task_args: ``-T`` arguments (``<task>.<arg>`` keys apply to that task only).
        label: how the plan and the run name the group (empty for a run of one group).
    """

    tasks: tuple[str, ...]
    task_args: dict[str, Any]
    label: str = ""


@dataclass(frozen=True)
class RunSpec:
    """What one ``bediscover run`` command runs.

    Attributes:
        model: the Inspect model (``--model``).
        groups: the evals, one group per set of task arguments (several for a paper table with prompt variants,
            which run one after another).
        seeds, modes: the seeds and reasoning modes of every group.
        subset, limit, log_dir: ``--subset``, ``--limit`` (samples per eval), ``--log-dir``.
        reasoning_effort, base_url: ``--reasoning-effort``, ``--model-base-url``.
        generate: generate-config fields the command line sets (they override the tasks' Table 7 presets).
        table: the paper table (``--table``) the run reproduces, else ``None``.
        cost_config: ``--model-cost-config`` (prices per million tokens), else ``None``.
        budget: ``--budget`` in USD, else ``None``.
    """

    model: str
    groups: tuple[EvalGroup, ...]
    seeds: tuple[int, ...]
    modes: tuple[bool, ...]
    subset: str = "paper"
    limit: int | None = None
    log_dir: str = "logs/bediscover"
    reasoning_effort: str | None = None
    base_url: str | None = None
    generate: dict[str, Any] = field(default_factory=dict)
    table: int | None = None
    cost_config: str | None = None
    budget: float | None = None

    @property
    def evals(self) -> int:
        """Evals of the run: tasks x reasoning modes x seeds, over the groups."""
        return sum(len(group.tasks) for group in self.groups) * len(self.modes) * len(self.seeds)


def _batch(text: str | None) -> bool | int | None:
    if text is None:
        return None
    return True if text == "true" else int(text)


def generate_options(args: argparse.Namespace) -> dict[str, Any]:
    """The generate-config fields of a ``bediscover run`` command line: ``--reasoning-effort``,
    ``--max-connections``, ``--max-tokens``, ``--temperature``, ``--top-p`` (user flags win over the Table 7
    presets), ``--batch`` (``True`` or a batch size) and ``--cache`` (Inspect's
    :class:`~inspect_ai.model.CachePolicy` with the given expiry)."""
    generate: dict[str, Any] = {}
    if args.reasoning_effort:
        generate["reasoning_effort"] = args.reasoning_effort
    if args.max_connections:
        generate["max_connections"] = args.max_connections
    for name in ("max_tokens", "temperature", "top_p"):
        if getattr(args, name) is not None:
            generate[name] = getattr(args, name)
    if args.batch is not None:
        generate["batch"] = _batch(args.batch)
    if getattr(args, "cache", None):
        from inspect_ai.model import CachePolicy

        generate["cache"] = CachePolicy(expiry=args.cache)
    return generate


def given_options(argv: Sequence[str], options: Sequence[str]) -> list[str]:
    """Those of ``options`` (``--tasks`` …) given on the command line ``argv`` (also as ``--tasks=…``)."""
    return [option for option in options if any(arg == option or arg.startswith(f"{option}=") for arg in argv)]


def _check_seeds(seeds: Sequence[int]) -> None:
    """Refuse a seed given twice or a negative one.

    Raises:
        SpecError: naming the seed.
    """
    repeated = sorted({seed for seed in seeds if seeds.count(seed) > 1})
    if repeated:
        raise SpecError(f"--seeds: {', '.join(map(str, repeated))} given more than once; give each seed once")
    negative = [seed for seed in seeds if seed < 0]
    if negative:
        raise SpecError(f"--seeds: {negative[0]} is negative; a seed is a whole number >= 0 (the paper's: 0 1 42)")


def _table_runs(
    table: int, argv: Sequence[str], task_args: dict[str, Any]
) -> tuple[tuple[EvalGroup, ...], tuple[bool, ...], tuple[int, ...]]:
    """``--table N``'s groups (one per prompt variant or parsing mode, ``-T`` arguments added to each), reasoning
    modes and seeds.

    Raises:
        SpecError: ``argv`` also gives one of :data:`TABLE_SETS`, or the paper has no such table.
    """
    clash = given_options(argv, TABLE_SETS)
    if clash:
        raise SpecError(f"--table {table} sets the tasks, reasoning modes and seeds itself; drop {', '.join(clash)}")
    # import cost: the paper's tables are read with pandas (about 0.5 s CPU), only for --table
    from bediscover_inspect.report.table_runs import paper_table

    try:
        chosen = paper_table(table)
    except KeyError as exc:
        raise SpecError(str(exc.args[0])) from None
    several = len(chosen.groups) > 1
    groups = tuple(
        EvalGroup((group.task,), group.task_args | task_args, group.label if several else "") for group in chosen.groups
    )
    return groups, tuple(chosen.modes), tuple(chosen.seeds)


def run_spec(args: argparse.Namespace, task_args: dict[str, Any]) -> RunSpec:
    """The :class:`RunSpec` of a parsed ``bediscover run`` / ``plan`` command line; ``task_args`` its parsed
    ``-T`` arguments.

    With ``--table N`` the tasks, reasoning modes, seeds and task arguments are the table's
    (:func:`bediscover_inspect.report.table_runs.paper_table`), one group per prompt variant or parsing mode; ``-T``
    arguments are added to every group.

    Raises:
        SpecError: a seed given twice or negative, ``--table`` with one of :data:`TABLE_SETS`, or an unknown table number.
    """
    _check_seeds(args.seeds)
    groups: tuple[EvalGroup, ...] = (EvalGroup(tuple(args.tasks), dict(task_args)),)
    modes = REASONING_CHOICES[args.reasoning]
    seeds = tuple(int(seed) for seed in args.seeds)
    table = getattr(args, "table", None)
    if table is not None:
        groups, modes, seeds = _table_runs(table, getattr(args, "argv", []), task_args)
    return RunSpec(
        model=args.model,
        groups=groups,
        seeds=seeds,
        modes=modes,
        subset=args.subset,
        limit=args.limit,
        log_dir=args.log_dir,
        reasoning_effort=args.reasoning_effort,
        base_url=args.model_base_url,
        generate=generate_options(args),
        table=table,
        cost_config=getattr(args, "model_cost_config", None),
        budget=getattr(args, "budget", None),
    )


def _usd(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an amount in USD >= 0, got {text!r}")
    return value


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected calls per minute > 0, got {text!r}")
    return value


def add_run_arguments(run: argparse.ArgumentParser) -> None:
    """Every option of ``bediscover run``, which ``bediscover plan`` takes as well (so a user swaps one word), but
    the scale options of :func:`bediscover_inspect.workers.add_arguments` (the CLI adds those to both)."""
    run.add_argument("--model", required=True, help="Inspect model, e.g. vllm/Qwen/Qwen3-8B, openai/gpt-5-mini")
    run.add_argument(
        "--tasks",
        nargs="+",
        type=task_name_of,
        default=list(TASK_NAMES),
        metavar="TASK",
        help=f"tasks to run (default: all): {' '.join(TASK_NAMES)}; a task's eval file (evals/<task>.py) also names it",
    )
    run.add_argument("--reasoning", choices=list(REASONING_CHOICES), default="both")
    run.add_argument("--seeds", nargs="+", type=int, default=list(PAPER_SEEDS))
    run.add_argument(
        "--table",
        type=int,
        default=None,
        metavar="N",
        help="the tasks, datasets, prompt variants, reasoning modes and seeds of the paper's Table N (2-6, 13-41)",
    )
    run.add_argument("--subset", choices=["paper", "full"], default="paper")
    run.add_argument("--log-dir", default="logs/bediscover", help="eval-set log directory (default %(default)s)")
    run.add_argument("--limit", type=whole_number(1), default=None, help="samples per eval (testing)")
    run.add_argument("-M", dest="model_arg", action="append", metavar="K=V", help="model argument (repeatable)")
    run.add_argument(
        "-T",
        dest="task_arg",
        action="append",
        metavar="K=V",
        help="task argument (repeatable); <task>.<arg>=v for one task only",
    )
    run.add_argument("--model-base-url", default=None)
    run.add_argument(
        "--reasoning-effort",
        choices=["minimal", "low", "medium", "high"],
        default=None,
        help="OpenAI reasoning models (the paper: gpt-5-mini low / high)",
    )
    run.add_argument(
        "--batch",
        nargs="?",
        const="true",
        default=None,
        help="use the provider's batch API (OpenAI); optional batch size",
    )
    run.add_argument(
        "--cache",
        nargs="?",
        const=DEFAULT_CACHE_EXPIRY,
        default=None,
        metavar="EXPIRY",
        help="Inspect's model-output cache, entries kept for EXPIRY (default 1W; e.g. 12h, 3D, 6M); the expiry is "
        "part of the cache key, so changing it misses every entry",
    )
    run.add_argument(
        "--model-cost-config",
        default=None,
        metavar="FILE",
        help="YAML or JSON of model prices (Inspect's format: model -> input, output, input_cache_write, "
        "input_cache_read in USD per million tokens); Inspect tracks the run's cost with it, the plan prices it",
    )
    run.add_argument(
        "--budget",
        type=_usd,
        default=None,
        metavar="USD",
        help="refuse to start when the plan's ceiling or expected cost is above USD",
    )
    run.add_argument("--max-connections", type=int, default=None)
    run.add_argument("--max-tokens", type=int, default=None, help="override the Table 7 max_tokens preset")
    run.add_argument("--temperature", type=float, default=None, help="override the Table 7 temperature preset")
    run.add_argument("--top-p", type=float, default=None, help="override the Table 7 top_p preset")
    run.add_argument("--max-tasks", type=int, default=None)
    run.add_argument("--max-samples", type=int, default=None)
    run.add_argument("--display", default=None, choices=["full", "conversation", "rich", "plain", "log", "none"])
    run.add_argument(
        "--score-display",
        action="store_true",
        help="recompute the scores while the evals run (Inspect's live scores; off by default: with several evals "
        "at once they hold Inspect's event loop a large share of the time); the final scores are the same",
    )
    add_run_bounds(run)


def add_plan_arguments(plan: argparse.ArgumentParser) -> None:
    """The options of ``bediscover plan`` beyond ``bediscover run``'s: ``--format``, ``--from-logs``, and the
    wall-time options ``--probe`` and ``--rate`` (:mod:`bediscover_inspect.plan.timing`)."""
    plan.add_argument(
        "--format", choices=["table", "json"], default="table", help="a table for people or JSON (default %(default)s)"
    )
    plan.add_argument(
        "--from-logs",
        default=None,
        metavar="DIR",
        help="logs of an earlier, similar run (same model family, tasks and modes): the expected output and "
        "reasoning tokens per call (mean, 90th percentile) and the expected cost",
    )
    plan.add_argument(
        "--probe",
        type=whole_number(1),
        default=None,
        metavar="N",
        help="send the run's first N prompts to the model, one at a time, and time them: expected wall time = "
        "calls x mean latency / connections (--max-connections, else the provider's default); these N calls are "
        "real and billed",
    )
    plan.add_argument(
        "--rate",
        type=_rate,
        default=None,
        metavar="CALLS_PER_MIN",
        help="the server's rate: expected wall time at least calls / rate (with --probe, the larger of the two)",
    )
