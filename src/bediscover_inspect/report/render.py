"""Paper-style tables: one wide table per task (``mean ± std`` per measure, the paper's number and Δ)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from bediscover_inspect.measures import is_token_measure, measure_order
from bediscover_inspect.report.matching import PAPER_NOTE_LABELS

NOT_REPORTED = "not reported by the provider"
"""The text of a token cell without a measurement: the provider sent no token usage with its replies."""

UNDEFINED = "undefined (nothing counted)"
"""The text of another measure's cell without a value: a rate of nothing (dialogue parsing's ``invalid_rate`` when
no relation was read, ``Measure.empty``), never shown as 0."""


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def format_cell(mean: float, std: float, digits: int = 1, low: float | None = None, high: float | None = None) -> str:
    """``mean ± std [low, high]`` (std or interval left out where missing); empty for a missing mean."""
    if _missing(mean):
        return ""
    text = f"{mean:.{digits}f}" if _missing(std) else f"{mean:.{digits}f} ± {std:.{digits}f}"
    if not _missing(low) and not _missing(high):
        text += f" [{low:.{digits}f}, {high:.{digits}f}]"
    return text


def _cell(value: Any) -> str:
    """One markdown table cell: NaN empty; ``|`` escaped and line breaks flattened so a cell stays one cell."""
    if isinstance(value, float) and math.isnan(value):
        return ""
    return " ".join(str(value).splitlines()).replace("\\", "\\\\").replace("|", "\\|")


def markdown(df: pd.DataFrame) -> str:
    """``df`` as a GitHub markdown table (cells per :func:`_cell`)."""
    header = "| " + " | ".join(_cell(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def task_table(cells: pd.DataFrame) -> pd.DataFrame:
    """One task's cells as a paper-style wide table.

    Rows: ([scorer, where the task has several,] group key, group, variant, model, reasoning); columns: each
    measure, in the order of the task's scorers (:func:`~bediscover_inspect.measures.measure_order`: the paper's
    main-table measures first, e.g. PMR, Acc, LCS, τ for sentence ordering), as
    ``mean ± std [95 % interval]`` (the cut-off rate followed by ``of max_tokens N``, the budget sent, where the
    cells carry ``max_tokens``)
    (:func:`format_cell`; tokens per sample for token measures, percent otherwise; a token measure without a
    mean is :data:`NOT_REPORTED`, another measure without one :data:`UNDEFINED`), then for measures with a paper
    number ``<measure> (paper)`` and ``<measure> Δ``; then ``paper row`` (paper model and tables), ``paper note``
    (where the paper is read against its caption; only when some row has one), ``differs`` (what the run does
    differently from the paper's setting, :mod:`~bediscover_inspect.report.setting`; empty: the paper's setting),
    ``seeds`` (present) and ``samples`` (scored per seed).
    """
    index = _row_keys(cells)
    measures = measure_order(cells["measure"], cells["scorer"].unique() if "scorer" in cells else None)
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for cell in cells.to_dict("records"):  # one pass: a pandas filter per row and measure costs most of the time
        groups.setdefault(tuple(cell[key] for key in index), []).append(cell)
    rows: list[dict[str, Any]] = []
    for key in sorted(groups):
        row = dict(zip(index, key))
        first: dict[str, dict[str, Any]] = {}
        for cell in groups[key]:
            first.setdefault(cell["measure"], cell)
        for measure in measures:
            if measure in first:
                row |= _measure_columns(measure, first[measure])
        rows.append(row | _row_facts(groups[key]))
    table = pd.DataFrame(rows)
    tail = [c for c in ("paper row", "paper note", "differs", "seeds", "samples") if c in table.columns]
    return table[[c for c in table.columns if c not in tail] + tail]


def _row_keys(cells: pd.DataFrame) -> list[str]:
    """What tells a task table's rows apart: group key, group, variant, model and reasoning, after the scorer where
    the task has several (temporal reasoning: one row per scorer)."""
    index = ["group_key", "group", "variant", "model", "reasoning"]
    return ["scorer", *index] if "scorer" in cells and cells["scorer"].nunique() > 1 else index


def _measure_columns(measure: str, cell: dict[str, Any]) -> dict[str, str]:
    """A row's columns of one ``measure`` from its ``cell`` (a row of the cells): the measure's value and, where the
    paper has a number, ``<measure> (paper)`` and ``<measure> Δ`` (as :func:`task_table` describes)."""
    digits = 0 if is_token_measure(measure) else 1
    value = format_cell(cell["mean"], cell["std"], digits, cell["ci95_low"], cell["ci95_high"])
    if _missing(cell["mean"]):
        value = NOT_REPORTED if is_token_measure(measure) else UNDEFINED
    elif measure == "cut_off_rate" and cell.get("max_tokens"):
        value += f" of max_tokens {cell['max_tokens']}"
    columns = {measure: value}
    if not math.isnan(cell["paper_mean"]):
        columns[f"{measure} (paper)"] = format_cell(cell["paper_mean"], cell["paper_std"], digits)
        columns[f"{measure} Δ"] = "" if _missing(cell["diff"]) else f"{cell['diff']:+.{digits}f}"
    return columns


def _row_facts(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """The columns after the measures of a row's ``cells`` (rows of the cells, in order): ``paper row``,
    ``paper note`` (only where there is one), ``differs``, ``seeds`` and ``samples``."""
    first = cells[0]
    hits = [cell for cell in cells if cell["paper_model"] != ""]
    tables = ",".join(f"T{int(t)}" for t in sorted({cell["paper_table"] for cell in hits}))
    facts: dict[str, Any] = {"paper row": f"{hits[0]['paper_model']} ({tables})" if hits else ""}
    notes = (
        sorted({PAPER_NOTE_LABELS.get(c["paper_note"], c["paper_note"]) for c in hits} - {""})
        if "paper_note" in first
        else []
    )
    if notes:
        facts["paper note"] = " ".join(notes)
    facts["differs"] = first.get("differs", "")
    facts["seeds"] = first["seeds"]
    facts["samples"] = first["samples"]
    return facts
