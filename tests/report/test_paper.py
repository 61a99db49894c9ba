"""The packaged paper numbers reproduce cells of Tables 2-6 (and a few appendix cells) of the paper text."""

from __future__ import annotations

import math

import pytest

from bediscover_inspect.report.paper import PAPER_COLUMNS, load_paper_results
from tests.conftest import PAPER_TEXT


def _table_line(table: int, model: str) -> list[str]:
    """The tab-separated cells of the row naming ``model`` in the block just above "Table N:"."""
    lines = PAPER_TEXT.read_text(encoding="utf-8").splitlines()
    caption = next(i for i, line in enumerate(lines) if line.startswith(f"Table {table}:"))
    j = caption - 1
    while not lines[j].strip():
        j -= 1
    while lines[j].strip():
        cells = lines[j].split("\t")
        if model in (c.strip() for c in cells[:2]):
            return cells
        j -= 1
    raise AssertionError(f"{model} not in Table {table}")


# (table, dataset, variant, model, reasoning, metric, cell index in the text row, mean, std)
CELLS = [
    (2, "just-manual", "basic", "Qwen3-1.7B", "on", "accuracy", 3, 38.9, 0.7),
    (2, "otherwise", "def", "Qwen3-14B", "on", "accuracy", 10, 45.2, 2.5),
    (2, "just-subtitle", "def+exp", "GPT-5-mini (low)", "on", "accuracy", 8, 62.9, 0.5),
    (2, "just-manual", "def+exp", "Llama-3.3-70B sheffield2025just", "", "accuracy", 5, 75.0, None),
    (3, "tbd", "with-context", "Qwen3-32B", "on", "micro_f1", 3, 40.8, 0.5),
    (3, "tdd-man", "without-context", "GPT-5-mini (high)", "on", "micro_f1", 4, 36.7, 0.3),
    (3, "tot-arithmetic", "category:all", "DeepSeek-r1-0528", "on", "accuracy", 5, 63.3, 0.5),
    (3, "tbd", "", "DTRE wang2022dct", "", "micro_f1", 3, 70.2, None),
    (4, "disrpt25", "framework:eRST", "DeepSeek-r1-0528", "on", "accuracy", 3, 36.6, None),
    (4, "disrpt25", "framework:SDRT", "SeCoRel lalitha2025secorel", "", "accuracy", 7, 76.4, None),
    (5, "aan-abstract", "", "Qwen3-1.7B", "on", "pmr", 2, 21.1, 0.5),
    (5, "roc", "", "GPT-5-mini (high)", "on", "acc", 11, 87.3, 0.04),
    (5, "wiki-movies", "", "GPT-5-mini (high)", "on", "pmr", 14, 23.0, 0.5),
    (5, "nsf", "", "NAON-BART bin2023non", "", "acc", 9, 54.8, None),
    (6, "stac", "auto-regressive", "Qwen3-1.7B", "on", "link_f1", 3, 35.9, 1.8),
    (6, "molweni", "auto-regressive", "GPT-5-mini (high)", "on", "full_f1", 6, 30.2, 0.3),
    (6, "msdc", "", "Llama3 thompson2024llamipa", "", "full_f1", 8, 79.5, None),
    # appendix: the Table 13/14 cells discussed in the report README (std convention)
    (14, "just-manual", "def", "Qwen3-1.7B", "off", "accuracy", 2, 34.4, 0.0),
    (13, "just-manual", "basic", "Qwen3-0.6B", "off", "accuracy", 2, 17.3, 1.4),
]


@pytest.mark.paper
@pytest.mark.parametrize("table,dataset,variant,model,reasoning,metric,index,mean,std", CELLS)
def test_cell_matches_paper_text(table, dataset, variant, model, reasoning, metric, index, mean, std):
    df = load_paper_results()
    hit = df[
        (df.table == table)
        & (df.dataset == dataset)
        & (df.variant == variant)
        & (df.model == model)
        & (df.reasoning == reasoning)
        & (df.metric == metric)
    ]
    assert len(hit) == 1, hit
    row = hit.iloc[0]
    assert row["mean"] == pytest.approx(mean)
    if std is None:
        assert math.isnan(row["std"])
    else:
        assert row["std"] == pytest.approx(std)
    # the same number, as printed, sits in that cell of the paper text
    raw = _table_line(table, model)[index]
    printed = f"{mean:g}" if mean != int(mean) else f"{int(mean)}"
    assert printed in raw, (raw, printed)


def test_row_counts_per_main_table():
    """Every cell of Tables 2-6: 7 BeDiscovER models x columns, plus each baseline's printed cells."""
    counts = load_paper_results().groupby("table").size()
    assert counts[2] == 7 * 9 + 2 + 3 * 2
    assert counts[3] == 7 * 3 + 7 + 8
    assert counts[4] == 12 * 6
    assert counts[5] == 7 * 14 + 12 + 14 + 8 + 12
    assert counts[6] == 7 * 6 + 2 * 4 + 3 * 4 + 4
    assert set(counts.index) == {2, 3, 4, 5, 6} | set(range(13, 42))


def test_main_tables_agree_with_appendix():
    """Tables 2, 3, 5, 6 repeat appendix cells ("w/ reasoning"); one known misprint in the paper (19.0 vs 19.1)."""
    df = load_paper_results()
    main = df[df.table.isin([2, 3, 5, 6]) & (df.section == "BeDiscovER")]
    appendix = df[df.table >= 13]
    keys = ["task", "dataset", "variant", "model", "reasoning", "metric"]
    merged = main.merge(appendix, on=keys, suffixes=("_main", "_app"))
    assert len(merged) == len(main) == 7 * 9 + 7 * 3 + 7 * 14 + 7 * 6
    differ = merged[(merged.mean_main - merged.mean_app).abs() > 1e-9]
    assert [(r.table_main, r.dataset, r.model, r.mean_main, r.mean_app) for r in differ.itertuples()] == [
        (5, "arxiv-abstracts", "Qwen3-1.7B", 19.0, 19.1)
    ]


def test_columns_and_types():
    df = load_paper_results()
    assert tuple(df.columns) == PAPER_COLUMNS
    assert set(df.reasoning) == {"", "off", "on"}
    assert df["mean"].dtype == float
    assert df.loc[df.metric == "tok", "std"].isna().all()
