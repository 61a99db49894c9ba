"""``bediscover plan``: what a :class:`~bediscover_inspect.plan.spec.RunSpec` will send, counted before it runs.

:func:`make_plan` builds each task once per group and reasoning mode (a task's seeds ask the same samples),
renders and counts its prompts (:mod:`.count`), reads which samples a resume keeps from the log directory
(:func:`finished_samples`) and prices the result (:mod:`.cost`). :class:`Plan` holds the rows and the totals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from inspect_ai.log import read_eval_log_sample_summaries

from bediscover_inspect.evallogs.store import kind, read_headers
from bediscover_inspect.plan.cost import BATCH_PRICE_FACTOR, Prices
from bediscover_inspect.plan.count import GOLD_STRUCTURE_NOTE, EvalCount, Row, count_samples, rows_of
from bediscover_inspect.plan.spec import RunSpec
from bediscover_inspect.plan.timing import Timing
from bediscover_inspect.plan.tokenizers import Tokenizer
from bediscover_inspect.split import cell_of, split_of

BuildTasks = Callable[[Sequence[str], Sequence[int], Sequence[bool], dict[str, Any]], list[Any]]
"""``(task names, seeds, modes, task args) -> built tasks``, task-major then mode then seed
(:func:`bediscover_inspect.cli.build_tasks`)."""


@dataclass
class Plan:
    """A counted run.

    Attributes:
        spec: what runs.
        rows: one per eval and dataset (:class:`~.count.Row`).
        tokenizer: what counted the prompt tokens (``None``: not counted).
        prices: the model's prices (``None``: no ``--model-cost-config`` entry).
        batch: ``--batch`` is set (non-incremental calls at :data:`~.cost.BATCH_PRICE_FACTOR`).
        notes: what the plan could not count, or counted by approximation, one line each.
        timing: what the wall time is estimated from (:mod:`.timing`; not estimated by default).
    """

    spec: RunSpec
    rows: list[Row]
    tokenizer: Tokenizer | None
    prices: Prices | None = None
    batch: bool = False
    notes: list[str] = field(default_factory=list)
    expected: dict[tuple[str, bool], tuple[float, float, float]] = field(default_factory=dict)
    """``(task, reasoning) -> (mean, 90th percentile, mean reasoning)`` output tokens per call, from
    ``--from-logs``."""
    timing: Timing = field(default_factory=Timing)

    def expected_cost(self, rows: Sequence[Row] | None = None) -> float | None:
        """The cost of ``rows`` (all by default) at the expected (mean) output tokens per call; ``None`` without
        :attr:`expected` for every row's task and mode, or without prices."""
        rows = self.rows if rows is None else rows
        if self.expected_output(rows) is None:
            return None
        return self.cost(rows, lambda row: row.calls * self.expected[(row.task, row.reasoning)][0])

    def cost(self, rows: Sequence[Row], output_of: Callable[[Row], float | None]) -> float | None:
        """USD of ``rows`` at :attr:`prices`, with ``output_of(row)`` output tokens per row; ``None`` when a price,
        a prompt count or an output count is missing."""
        if self.prices is None:
            return None
        total = 0.0
        for row in rows:
            output = output_of(row)
            if row.prompt_tokens is None or output is None:
                return None
            factor = BATCH_PRICE_FACTOR if self.batch and not row.incremental else 1.0
            total += self.prices.cost(row.prompt_tokens, output, factor)
        return total

    def totals(self, rows: Sequence[Row] | None = None) -> dict[str, Any]:
        """The figures of ``rows`` (all by default): evals, samples, samples a resume skips, calls, prompt tokens,
        output ceiling and ceiling cost, expected output and cost, and expected wall time in seconds
        (:meth:`.timing.Timing.wall_seconds`) (``None`` where not counted)."""
        rows = self.rows if rows is None else rows
        calls = sum(row.calls for row in rows)
        return {
            "evals": len({(row.group, row.task, row.reasoning, row.seed) for row in rows}),
            "samples": sum(row.samples for row in rows),
            "samples_done": sum(row.samples_done for row in rows),
            "calls": calls,
            "prompt_tokens": _sum_or_none([row.prompt_tokens for row in rows]),
            "prompt_tokens_exact": bool(self.tokenizer and self.tokenizer.exact),
            "output_ceiling": _sum_or_none([row.output_ceiling for row in rows]),
            "cost_ceiling": self.cost(rows, lambda row: row.output_ceiling),
            "output_expected": self.expected_output(rows),
            "cost_expected": self.expected_cost(rows),
            "wall_seconds": self.timing.wall_seconds(calls),
        }

    def expected_output(self, rows: Sequence[Row] | None = None) -> float | None:
        """Output tokens of ``rows`` at :attr:`expected`'s mean per call; ``None`` where a task and mode has none."""
        rows = self.rows if rows is None else rows
        if not self.expected or any((row.task, row.reasoning) not in self.expected for row in rows):
            return None
        return sum(row.calls * self.expected[(row.task, row.reasoning)][0] for row in rows)


def _sum_or_none(values: Sequence[int | None]) -> int | None:
    """The sum of ``values``, ``None`` when one of them was not counted."""
    return None if None in values else sum(v or 0 for v in values)


def _headers(log_dir: str) -> list[Any]:
    """Headers of the readable logs under ``log_dir`` (an unreadable one counts as unfinished)."""
    from inspect_ai.log import list_eval_logs

    return [log for log in read_headers(list_eval_logs(log_dir)) if not isinstance(log, Exception)]


def finished_samples(log_dir: str, model: str, spec: RunSpec) -> dict[tuple[str, str, bool, int], frozenset[Any]]:
    """``(group label, task, reasoning, seed) -> ids of the samples a resume keeps``, from the logs of ``model`` in
    ``log_dir`` (nothing when it does not exist).

    A finished eval (status ``success``) keeps every sample; an unfinished one the samples its log holds that
    completed without error (what Inspect's eval set reuses when it resumes the eval). A log is matched to an eval
    by task, reasoning mode, seed and the group's own task arguments; the newest such log counts.
    """
    if kind(log_dir) != "dir":
        return {}
    headers = sorted(
        (log for log in _headers(log_dir) if log.eval.model == model and split_of(log) is None),
        key=lambda log: str(log.eval.created),
    )
    found: dict[tuple[str, str, bool, int], frozenset[Any]] = {}
    for group in spec.groups:
        for log in headers:
            cell = cell_of(log)
            if cell is not None and cell[0] in group.tasks and _same_args(log, group.task_args, cell[0]):
                found[(group.label, *cell)] = _kept_samples(log)
    return found


def _kept_samples(log: Any) -> frozenset[Any]:
    """The ids of the samples a resume keeps of ``log``: ``{"*"}`` (all) for a finished eval, else those that
    completed without error."""
    if log.status == "success":
        return frozenset({"*"})
    summaries = read_eval_log_sample_summaries(log.location)
    return frozenset(s.id for s in summaries if s.error is None and s.completed is not False)


def _same_args(log: Any, task_args: dict[str, Any], task: str) -> bool:
    """Whether ``log`` was run with the group's arguments for ``task`` (``<task>.<arg>`` and shared keys)."""
    passed = log.eval.task_args_passed or {}
    for key, value in task_args.items():
        prefix, dot, arg = key.partition(".")
        if dot and prefix != task:
            continue
        name = arg if dot else key
        if _norm(passed.get(name)) != _norm(value):
            return False
    return True


def _norm(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_norm(v) for v in value)
    if isinstance(value, str) and "," in value:
        return tuple(v.strip() for v in value.split(","))
    return value


def make_plan(
    spec: RunSpec,
    build: BuildTasks,
    tokenizer: Tokenizer | None,
    prices: Prices | None = None,
    notes: Sequence[str] = (),
    resume: bool = True,
) -> Plan:
    """Count ``spec``'s run: every group's tasks built by ``build`` once per reasoning mode (the first seed), their
    prompts counted by ``tokenizer``, the samples finished in ``spec.log_dir`` left out (``resume``).

    Raises:
        whatever ``build`` raises for a task that refuses its arguments or misses its data.
    """
    done = finished_samples(spec.log_dir, spec.model, spec) if resume else {}
    evals: list[EvalCount] = []
    for group in spec.groups:
        for task_name in group.tasks:
            for reasoning in spec.modes:
                [task] = build([task_name], spec.seeds[:1], [reasoning], group.task_args)
                evals += _seed_counts(spec, group.label, task_name, reasoning, task, tokenizer, done)
    rows = rows_of(evals)
    out_notes = list(notes) + _plan_notes(spec, rows, tokenizer, prices)
    return Plan(spec, rows, tokenizer, prices, bool(spec.generate.get("batch")), out_notes)


def _seed_counts(
    spec: RunSpec,
    group: str,
    task_name: str,
    reasoning: bool,
    task: Any,
    tokenizer: Tokenizer | None,
    done: dict[tuple[str, str, bool, int], frozenset[Any]],
) -> list[EvalCount]:
    """The :class:`~.count.EvalCount` of one built ``task`` in ``reasoning`` mode for each of ``spec``'s seeds,
    the samples a resume keeps (``done``, :func:`finished_samples`) left out."""
    samples, incremental = count_samples(task, reasoning, spec.limit, tokenizer)
    max_tokens = spec.generate.get("max_tokens")
    budget = max_tokens if max_tokens is not None else task.config.max_tokens
    counts = []
    for seed in spec.seeds:
        kept = done.get((group, task_name, reasoning, int(seed)), frozenset())
        kept = frozenset(samples) if "*" in kept else kept
        counts.append(EvalCount(group, task_name, reasoning, int(seed), samples, budget, kept, incremental))
    return counts


def _plan_notes(spec: RunSpec, rows: Sequence[Row], tokenizer: Tokenizer | None, prices: Prices | None) -> list[str]:
    """What the plan could not count, or counts from the gold structure, one line each."""
    notes = []
    if any(row.incremental for row in rows):
        notes.append(GOLD_STRUCTURE_NOTE)
    if any(row.output_ceiling is None for row in rows):
        notes.append("output ceiling not counted: no max_tokens is set for some evals (the provider's default)")
    if tokenizer is None:
        notes.append("prompt tokens not counted")
    if prices is None:
        notes.append(
            f"cost not priced: no prices for {spec.model}"
            + (f" in {spec.cost_config}" if spec.cost_config else " (give --model-cost-config FILE)")
        )
    return notes


def _per_call_tokens(summary: Any) -> tuple[float, float] | None:
    """A sample's output and reasoning tokens per model call (its usage divided by its turns, sample metadata
    ``n_turns``); ``None`` for a sample that ended in error or reported no usage."""
    usage = list(summary.model_usage.values())
    if not usage or summary.error is not None:
        return None
    calls = int((summary.metadata or {}).get("n_turns", 1) or 1)
    return sum(u.output_tokens for u in usage) / calls, sum(u.reasoning_tokens or 0 for u in usage) / calls


def expected_from_logs(log_dir: str) -> tuple[dict[tuple[str, bool], tuple[float, float, float]], list[str]]:
    """Output tokens per model call of earlier runs (``--from-logs DIR``): ``(task, reasoning) -> (mean, 90th
    percentile, mean reasoning tokens)`` over every sample of the logs under ``log_dir`` that reported usage, and
    the models they came from.

    A sample's usage is its model calls' (Inspect's ``model_usage``); an incremental dialogue-parsing sample's is
    divided by its turns (sample metadata ``n_turns``), so every value is per call.

    Raises:
        NotADirectoryError: ``log_dir`` is not a log directory.
    """

    if kind(log_dir) != "dir":
        raise NotADirectoryError(f"--from-logs is not a log directory: {log_dir}")
    per_call: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    models: set[str] = set()
    for log in _headers(log_dir):
        cell = cell_of(log)
        if cell is None:
            continue
        for summary in read_eval_log_sample_summaries(log.location):
            tokens = _per_call_tokens(summary)
            if tokens is not None:
                per_call.setdefault((cell[0], cell[1]), []).append(tokens)
                models.add(log.eval.model)
    expected = {
        key: (
            float(np.mean([o for o, _ in values])),
            float(np.percentile([o for o, _ in values], 90)),
            float(np.mean([r for _, r in values])),
        )
        for key, values in per_call.items()
    }
    return expected, sorted(models)
