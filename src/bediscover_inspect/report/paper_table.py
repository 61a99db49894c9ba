"""``bediscover report --table N``: one paper table in the paper's own layout, for every model of the logs.

Rows: each model run of the logs (model, reasoning effort, and the reasoning mode where the table reports both);
columns: the table's datasets (or DISRPT frameworks, languages, corpora; ToT-Arithmetic's categories) and metrics,
with the prompt variant where the table has several, as the paper prints them (its BeDiscovER rows,
:func:`~bediscover_inspect.report.paper.load_paper_results`). Each cell is ``mean ± std`` over seeds; beside it the
paper's value for the paper model the run is matched with (``bediscover report``'s matching) and the difference.
Written as markdown, CSV and LaTeX (``table-N.md``, ``table-N.csv``, ``table-N.tex``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from bediscover_inspect.measures import paper_key
from bediscover_inspect.report.matching import normalised, read_paper_settings
from bediscover_inspect.report.paper import load_paper_results
from bediscover_inspect.report.render import format_cell, markdown
from bediscover_inspect.report.table_runs import VARIANT_ARGS, paper_table


@dataclass(frozen=True)
class Column:
    """One column of a paper table: where its number comes from in the paper and in our cells."""

    dataset: str
    variant: str
    metric: str
    group_key: str
    group: str
    label: str


def _our_group(task: str, dataset: str, variant: str) -> tuple[str, str]:
    """The report's ``(group_key, group)`` of a paper column (``framework:DEP`` -> ``("framework", "DEP")``)."""
    kind, _, value = variant.partition(":")
    if kind == "corpus":
        return "dataset", value
    if kind in ("framework", "language"):
        return kind, value
    if kind == "category":
        return ("dataset", dataset) if value == "all" else ("category", value)
    return "dataset", dataset


def table_columns(number: int) -> list[Column]:
    """The columns of paper Table ``number`` in the paper's order (its rows' order in ``paper_results.csv``).

    Raises:
        KeyError: no such table (see :func:`bediscover_inspect.report.table_runs.paper_table`).
    """
    paper_table(number)
    rows = read_paper_settings(load_paper_results())
    rows = rows[(rows.table == number) & (rows.section == "BeDiscovER")]
    variants = rows.variant[rows.variant.map(lambda v: ":" not in v)].unique()
    columns = []
    for dataset, variant, metric, task in (
        rows[["dataset", "variant", "metric", "task"]].drop_duplicates().itertuples(index=False)
    ):
        group_key, group = _our_group(task, dataset, variant)
        shown = group if group_key != "dataset" or variant.startswith("corpus:") else dataset
        label = f"{shown} {metric}" + (f" ({variant})" if len(variants) > 1 and ":" not in variant else "")
        columns.append(Column(dataset, variant, metric, group_key, group, label))
    return columns


def _variant_matches(task: str, variant: str, ours: str) -> bool:
    """Whether a cell's task arguments (``prompt=def,context=document``) are the paper variant's."""
    wanted = VARIANT_ARGS.get(task, {}).get(variant)
    if not wanted:
        return True
    given = dict(item.partition("=")[::2] for item in str(ours).split(",") if "=" in item)
    return all(normalised(given.get(key, "")) == normalised(value) for key, value in wanted.items())


def paper_table_frame(cells: pd.DataFrame, number: int) -> pd.DataFrame:
    """Table ``number`` from the report's ``cells`` (:attr:`~bediscover_inspect.report.build.Report.cells`).

    Returns:
        One row per model run (``model``, ``reasoning``; ``paper model`` matched), per column ``<label>``
        (``mean ± std`` in percent, or tokens), ``<label> paper`` and ``<label> Δ`` (ours minus paper, points).
    """
    table = paper_table(number)
    task = table.groups[0].task
    columns = table_columns(number)
    modes = {"on" if m else "off" for m in table.modes}
    mine = cells[(cells.task == task) & cells.reasoning.isin(modes)]
    paper = read_paper_settings(load_paper_results())
    paper = paper[(paper.table == number) & (paper.section == "BeDiscovER")]
    out = []
    runs = mine.sort_values("paper_model", ascending=False).drop_duplicates(["model", "reasoning_effort", "reasoning"])
    for run in runs.sort_values(["model", "reasoning_effort", "reasoning"]).itertuples(index=False):
        row: dict[str, object] = {"model": run.model + (f" ({run.reasoning_effort})" if run.reasoning_effort else "")}
        if len(modes) > 1:
            row["reasoning"] = run.reasoning
        row["paper model"] = run.paper_model or ""
        these = mine[
            (mine.model == run.model)
            & (mine.reasoning_effort == run.reasoning_effort)
            & (mine.reasoning == run.reasoning)
        ]
        for column in columns:
            row |= _column_cells(column, _our_cell(these, column, task), _paper_value(paper, column, run))
        out.append(row)
    return pd.DataFrame(out)


def _our_cell(these: pd.DataFrame, column: Column, task: str) -> pd.Series | None:
    """The cell of one model run's cells ``these`` that a paper ``column`` shows, ``None`` when the run has none."""
    hit = these[
        (these.group_key == column.group_key)
        & (these.group.map(normalised) == normalised(column.group))
        & (these.measure.map(paper_key) == paper_key(column.metric))
        & these.variant.map(lambda v: _variant_matches(task, column.variant, v))
    ]
    return hit.iloc[0] if not hit.empty else None


def _paper_value(paper: pd.DataFrame, column: Column, run: Any) -> float:
    """The paper's number in ``column`` for the paper model matched with the model ``run`` (NaN when none)."""
    match = paper[
        (paper.model == run.paper_model)
        & (paper.dataset == column.dataset)
        & (paper.variant == column.variant)
        & (paper.metric == column.metric)
        & (paper.reasoning == run.reasoning)
    ]
    return float(match["mean"].iloc[0]) if not match.empty else math.nan


def _column_cells(column: Column, ours: pd.Series | None, value: float) -> dict[str, str]:
    """A column's three cells: ours (``mean ± std``), the paper's ``value`` and the difference (ours − paper)."""
    diff = float(ours["mean"]) - value if ours is not None and not math.isnan(value) else math.nan
    return {
        column.label: "" if ours is None else format_cell(ours["mean"], ours["std"]),
        f"{column.label} paper": "" if math.isnan(value) else f"{value:.1f}",
        f"{column.label} Δ": "" if math.isnan(diff) else f"{diff:+.1f}",
    }


def latex(frame: pd.DataFrame, number: int) -> str:
    """``frame`` as a LaTeX ``tabular`` (``±`` as ``$\\pm$``, ``Δ`` as ``$\\Delta$``), captioned with the table."""

    def tex(value: object) -> str:
        text = str(value).replace("&", "\\&").replace("%", "\\%").replace("_", "\\_")
        return text.replace("±", "$\\pm$").replace("Δ", "$\\Delta$")

    lines = [
        "\\begin{table}[t]",
        "\\centering",
        "\\begin{tabular}{" + "l" * 2 + "r" * (len(frame.columns) - 2) + "}",
        "\\toprule",
        " & ".join(tex(c) for c in frame.columns) + " \\\\",
        "\\midrule",
        *(" & ".join(tex(v) for v in row) + " \\\\" for row in frame.itertuples(index=False)),
        "\\bottomrule",
        "\\end{tabular}",
        f"\\caption{{Table {number} of the paper, reproduced (mean $\\pm$ std over seeds; paper value and difference)}}",
        "\\end{table}",
    ]
    return "\n".join(lines) + "\n"


def write_paper_table(cells: pd.DataFrame, number: int, out_dir: Path) -> list[Path]:
    """Write Table ``number`` as ``table-<N>.md``, ``.csv`` and ``.tex`` in ``out_dir``; returns the paths."""
    frame = paper_table_frame(cells, number)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"table-{number}.{ext}" for ext in ("md", "csv", "tex")]
    paths[0].write_text(f"# Table {number}\n\n" + markdown(frame) + "\n", encoding="utf-8")
    frame.to_csv(paths[1], index=False)
    paths[2].write_text(latex(frame, number), encoding="utf-8")
    return paths
