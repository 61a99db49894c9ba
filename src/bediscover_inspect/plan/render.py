"""The plan for people (a table), for scripts (JSON, the totals at the top level) and as ``bediscover run``'s one
line; and the ``--budget`` verdict."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bediscover_inspect.plan.core import Plan
from bediscover_inspect.plan.count import Row
from bediscover_inspect.plan.timing import duration

EXIT_OVER_BUDGET = 5
"""Exit code of ``bediscover plan`` (and of a ``bediscover run`` that refuses to start) when the plan's ceiling or
expected cost is above ``--budget``."""

EXIT_BUDGET_UNCHECKED = 6
"""Exit code when ``--budget`` is given but the plan cannot price the run (no prices, or tokens not counted)."""

FORMATS = ("table", "json")
"""``bediscover plan --format`` choices."""


def _n(value: float | None, approx: bool = False) -> str:
    if value is None:
        return "not counted"
    return f"{'~' if approx else ''}{value:,.0f}"


def _usd(value: float | None) -> str:
    return "not priced" if value is None else f"${value:,.2f}"


def _mode(reasoning: bool) -> str:
    return "on" if reasoning else "off"


def budget_verdict(plan: Plan, budget: float | None) -> tuple[int, str]:
    """``(exit code, line)`` of ``--budget``: 0 and ``""`` within it (or no budget), :data:`EXIT_OVER_BUDGET` when
    the ceiling or expected cost is above it, :data:`EXIT_BUDGET_UNCHECKED` when the plan has no cost to check."""
    if budget is None:
        return 0, ""
    totals = plan.totals()
    costs = {"ceiling": totals["cost_ceiling"], "expected": plan.expected_cost()}
    if costs["ceiling"] is None:
        missing = "no prices for the model" if plan.prices is None else "tokens not counted"
        return EXIT_BUDGET_UNCHECKED, f"--budget ${budget:,.2f} cannot be checked: {missing}; {one_line(plan)}"
    over = [f"{name} cost {_usd(cost)}" for name, cost in costs.items() if cost is not None and cost > budget]
    if over:
        return EXIT_OVER_BUDGET, f"over --budget ${budget:,.2f}: {' and '.join(over)}; {one_line(plan)}"
    return 0, ""


def one_line(plan: Plan) -> str:
    """The plan's totals on one line: evals, samples (finished ones a resume skips), calls, prompt tokens, output
    ceiling, cost where priced, and the expected wall time (``not estimated`` without ``--probe`` or ``--rate``)."""
    t = plan.totals()
    approx = not t["prompt_tokens_exact"]
    parts = [
        f"{t['evals']} evals",
        f"{t['samples']:,} samples" + (f" ({t['samples_done']:,} finished, skipped)" if t["samples_done"] else ""),
        f"{t['calls']:,} model calls",
        f"{_n(t['prompt_tokens'], approx)} prompt tokens" + (" (approximate)" if approx and t["prompt_tokens"] else ""),
        f"output ceiling {_n(t['output_ceiling'])} tokens",
        f"cost ceiling {_usd(t['cost_ceiling'])}",
    ]
    if t["output_expected"] is not None:
        parts += [f"expected output {_n(t['output_expected'])} tokens", f"expected cost {_usd(t['cost_expected'])}"]
    parts.append(f"wall time {duration(t['wall_seconds'])}")
    return ", ".join(parts)


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(cell.ljust(w) if i < 4 else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, widths)))


def _row_cells(plan: Plan, name: str, dataset: str, mode: str, seed: str, rows: Sequence[Row]) -> list[str]:
    t = plan.totals(rows)
    approx = not t["prompt_tokens_exact"]
    return [
        name,
        dataset,
        mode,
        seed,
        f"{t['samples']:,}",
        f"{t['samples_done']:,}",
        f"{t['calls']:,}",
        _n(t["prompt_tokens"], approx),
        _n(t["output_ceiling"]),
        _usd(t["cost_ceiling"]) if plan.prices else "-",
    ]


HEADER = ("task", "dataset", "mode", "seed", "samples", "done", "calls", "prompt tok", "output ceiling", "cost ceiling")


def render_table(plan: Plan) -> str:
    """The plan for people: the setting, one line per eval and dataset, a subtotal per task, the total, the notes."""
    lines = _setting_lines(plan)
    table = _table_cells(plan)
    widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(HEADER)]
    lines += ["", _line(HEADER, widths), _line(["-" * w for w in widths], widths)]
    lines += [_line(r, widths) for r in table]
    if plan.expected:
        lines += ["", "expected output tokens per call (from logs): mean, 90th percentile, mean reasoning"]
        for (task, reasoning), (mean, p90, thinking) in sorted(plan.expected.items()):
            lines.append(f"  {task} reasoning {_mode(reasoning)}: {mean:,.0f}, {p90:,.0f}, {thinking:,.0f}")
    lines += ["", f"total: {one_line(plan)}"]
    lines += [f"note: {note}" for note in [*plan.notes, plan.timing.basis()]]
    return "\n".join(lines)


def _table_cells(plan: Plan) -> list[list[str]]:
    """The table's rows of cells: one per eval and dataset, a subtotal ``(all)`` after each task (of a group), and
    the total."""
    table: list[list[str]] = []
    for group in dict.fromkeys((row.group, row.task) for row in plan.rows):
        mine = [row for row in plan.rows if (row.group, row.task) == group]
        name = group[0] or group[1]
        for row in mine:
            table.append(_row_cells(plan, name, row.dataset, _mode(row.reasoning), str(row.seed), [row]))
        table.append(_row_cells(plan, name, "(all)", "", "", mine))
    table.append(_row_cells(plan, "total", "", "", "", plan.rows))
    return table


def _setting_lines(plan: Plan) -> list[str]:
    """The opening lines of :func:`render_table`: model, table, evals, seeds, modes, subset and limit; the
    tokenizer; the prices where known."""
    spec = plan.spec
    lines = [
        f"bediscover plan: {spec.model}"
        + (f", paper Table {spec.table}" if spec.table else "")
        + f", {spec.evals} evals (seeds {' '.join(map(str, spec.seeds))}; reasoning "
        + "/".join(_mode(m) for m in spec.modes)
        + f"; subset {spec.subset}"
        + (f"; --limit {spec.limit}" if spec.limit else "")
        + ")",
        f"prompt tokens: {plan.tokenizer.name if plan.tokenizer else 'not counted'}",
    ]
    if plan.prices:
        p = plan.prices
        lines.append(
            f"prices (USD per million tokens, {p.source}): input {p.input:g}, output {p.output:g}"
            + (f"; --batch: x{0.5:g} except incremental dialogue parsing" if plan.batch else "")
        )
    return lines


def _row_json(row: Row) -> dict[str, Any]:
    return {
        "group": row.group,
        "task": row.task,
        "dataset": row.dataset,
        "reasoning": row.reasoning,
        "seed": row.seed,
        "samples": row.samples,
        "samples_done": row.samples_done,
        "calls": row.calls,
        "prompt_tokens": row.prompt_tokens,
        "output_ceiling": row.output_ceiling,
        "incremental": row.incremental,
    }


def render_json(plan: Plan) -> str:
    """The plan as JSON: the totals at the top level (``wall_seconds``: ``null`` when not estimated), then ``model``, ``table``, ``tokenizer``, ``prices``,
    ``per_task`` (the totals of each task), ``rows`` (one per eval and dataset) and ``notes``."""
    spec = plan.spec
    per_task = {
        task: plan.totals([r for r in plan.rows if r.task == task]) for task in dict.fromkeys(r.task for r in plan.rows)
    }
    out = plan.totals() | {
        "model": spec.model,
        "table": spec.table,
        "seeds": list(spec.seeds),
        "reasoning": [_mode(m) for m in spec.modes],
        "tokenizer": plan.tokenizer.name if plan.tokenizer else None,
        "prices": None if plan.prices is None else vars(plan.prices),
        "batch": plan.batch,
        "wall_time_basis": plan.timing.basis(),
        "per_task": per_task,
        "expected_per_call": [
            {"task": task, "reasoning": _mode(reasoning), "mean": mean, "p90": p90, "reasoning_mean": thinking}
            for (task, reasoning), (mean, p90, thinking) in sorted(plan.expected.items())
        ],
        "rows": [_row_json(row) for row in plan.rows],
        "notes": plan.notes,
    }
    return json.dumps(out, indent=2)


def render(plan: Plan, format: str) -> str:
    """The plan in ``format`` (:data:`FORMATS`)."""
    return render_json(plan) if format == "json" else render_table(plan)
