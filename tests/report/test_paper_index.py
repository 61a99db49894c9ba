"""The paper index finds, for every cell of the suite's baseline logs under each of the paper's models and modes,
the row that filtering the paper's rows cell by cell (the rules of ``match_paper``, written out with pandas) finds."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd
import pytest

from bediscover_inspect.evallogs.scores import read_log_scores
from bediscover_inspect.report.aggregate import aggregate
from bediscover_inspect.report.matching import (
    _DATASET_ALIASES,
    PaperIndex,
    _variant_candidates,
    canonical_measure,
    normalised,
    paper_model_match,
    read_paper_settings,
    with_paper,
)
from bediscover_inspect.report.paper import load_paper_results

BASELINE = Path(__file__).resolve().parents[1] / "baseline"

SERVED = (
    ("vllm/Qwen/Qwen3-8B", ""),
    ("vllm/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", ""),
    ("together/deepseek-ai/DeepSeek-R1-0528", ""),
    ("openai/gpt-5-mini", "high"),
)
"""Served names of paper models with both modes (Qwen3), reasoning on only (the DeepSeek models) and either
mode (GPT-5-mini, by reasoning effort)."""


PAPER = read_paper_settings(load_paper_results())
"""The paper's rows, settings read as the report reads them."""


@cache
def _rows_of(task: str, name: str) -> pd.DataFrame:
    """The paper's BeDiscovER rows of one task and paper model, with each metric's shared key."""
    rows = PAPER[(PAPER.task == task) & (PAPER.model == name) & (PAPER.section == "BeDiscovER")]
    return rows.assign(_key=rows.metric.map(canonical_measure))


def _filtered(
    task: str, group_key: str, group: str, variant: str, name: str, reasoning: str, measure: str
) -> pd.Series | None:
    """The paper's row for one cell, by filtering the paper's rows step by step (``match_paper``'s rules)."""
    if group == "all":
        return None
    rows = _rows_of(task, name)
    if not name.startswith("GPT-5-mini"):
        rows = rows[rows.reasoning == reasoning]
    rows = rows[rows._key == canonical_measure(measure)]
    if rows.empty:
        return None
    g = normalised(group)
    kind = {"framework": "framework", "language": "language", "category": "category"}.get(group_key.lower(), "")
    sub = rows.variant.str.partition(":")
    if kind:
        rows = rows[(sub[0] == kind) & (sub[2].map(normalised) == g)]
    elif task == "discourse_relations":
        rows = rows[(sub[0] == "corpus") & (sub[2].map(normalised) == g)]
    else:
        dataset = _DATASET_ALIASES.get(g)
        rows = rows[rows.dataset == dataset]
        if dataset == "tot-arithmetic":
            rows = rows[rows.variant == "category:all"]
        if len(set(rows.variant) - {""}) > 1:
            rows = rows[rows.variant.map(normalised).isin(_variant_candidates(variant))]
    if rows.empty:
        return None
    rows = rows.assign(_appendix=rows.table >= 13).sort_values(["_appendix", "table"], ascending=[False, True])
    return rows.iloc[0]


@pytest.fixture(scope="module")
def baseline_cells() -> pd.DataFrame:
    """The baseline's cells (one model, reasoning off), each (task, group, setting, measure) once."""
    cells = aggregate(read_log_scores(BASELINE).scores)
    return cells.drop_duplicates(["task", "group_key", "group", "variant", "measure"])


@pytest.mark.slow
def test_the_index_finds_the_row_filtering_finds_for_every_baseline_cell(baseline_cells):
    """Every measure the paper reports (by its shared key, each once per group and setting), under each paper model
    in both modes; the measures it does not report are the next test's (under one model)."""
    reported = set(PAPER.metric.map(canonical_measure))
    keyed = baseline_cells.assign(_key=baseline_cells.measure.map(canonical_measure))
    cells = keyed[keyed._key.isin(reported)].drop_duplicates(["task", "group_key", "group", "variant", "_key"])
    index = PaperIndex(load_paper_results())
    found = 0
    for model, effort in SERVED:
        name, _ = paper_model_match(model, effort or None)
        assert name is not None
        for reasoning in ("off", "on"):
            for cell in cells.itertuples(index=False):
                args = (cell.task, cell.group_key, cell.group, cell.variant, name, reasoning, cell.measure)
                want = _filtered(*args)
                at = index.find(*args)
                assert (None if at is None else index.rows.index[at]) == (None if want is None else want.name), args
                found += want is not None
    assert len(cells) > 200 and found > 700


def test_with_paper_fills_each_cell_from_its_row(baseline_cells):
    """Every baseline cell, under Qwen3-8B with reasoning on: the paper columns of the row filtering finds."""
    cells = baseline_cells.assign(model="vllm/Qwen/Qwen3-8B", reasoning="on")
    out = with_paper(cells)
    for cell in out.itertuples(index=False):
        row = _filtered(cell.task, cell.group_key, cell.group, cell.variant, "Qwen3-8B", "on", cell.measure)
        if row is None:
            assert cell.paper_model == "" and pd.isna(cell.paper_mean) and pd.isna(cell.paper_table)
            continue
        assert (cell.paper_model, cell.paper_table, cell.paper_mean) == ("Qwen3-8B", row.table, row["mean"])
        assert cell.paper_note == row.reading_note
        assert cell.paper_std == row["std"] or (pd.isna(cell.paper_std) and pd.isna(row["std"]))
        assert cell.diff == pytest.approx(cell.mean - row["mean"], nan_ok=True)
