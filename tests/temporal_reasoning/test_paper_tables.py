"""The paper's own tables: micro-F1 equals weighted recall (i.e. accuracy) in Tables 22-25, and which detail
table Table 3 quotes for TBD and TDD-Man (the README's "Evaluation report" relies on both facts)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import PAPER_TEXT

pytestmark = pytest.mark.paper

_CELL = re.compile(r"\$([0-9.]+)_\{[0-9.]+\}\$|([0-9]+)|-")


def _table_rows(caption_start: str) -> dict[str, list[float | None]]:
    """Rows of the detail table whose caption starts with ``caption_start``: model -> 10 numbers (None for -)."""
    lines = PAPER_TEXT.read_text(encoding="utf-8").splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith(caption_start))
    rows: dict[str, list[float | None]] = {}
    for line in reversed(lines[:end]):
        if line.startswith("Model\t"):
            break
        cells = line.split("\t")
        if len(cells) < 12:
            continue
        values = []
        for cell in cells[2:12]:
            match = _CELL.fullmatch(cell.strip())
            assert match, (caption_start, cell)
            number = match.group(1) or match.group(2)
            values.append(float(number) if number else None)
        rows[cells[0]] = values
    return rows


def test_micro_f1_equals_weighted_recall_in_tables_22_to_25():
    for table in ("Table 22:", "Table 23:", "Table 24:", "Table 25:"):
        rows = _table_rows(table)
        assert len(rows) == 10, table
        for model, values in rows.items():
            # columns: micro-F1, w-Pre, w-Rec, w-F1, tok. (w/o reasoning) then the same w/ reasoning
            for offset in (0, 5):
                assert values[offset] == values[offset + 2], (table, model, offset)


def test_table3_quotes_table23_for_tbd_and_table24_for_tdd_man():
    table3 = {  # Table 3, "BeDiscovER" rows: TBD, TDD-Man micro-F1
        "Qwen3-14B": (39.8, 29.5),
        "Qwen3-32B": (40.8, 31.6),
        "DS-r1-distill-Qwen": (23.8, 18.6),
        "DeepSeek-r1-0528": (33.1, 22.2),
        "GPT-5-mini (high)": (43.4, 36.7),
    }
    t23, t24, t25 = _table_rows("Table 23:"), _table_rows("Table 24:"), _table_rows("Table 25:")
    for model, (tbd, tdd) in table3.items():
        assert t23[model][5] == tbd  # TBD "with context" (full document), w/ reasoning
        assert t24[model][5] == tdd  # TDD-Man table captioned "without context"
        assert t25[model][5] != tdd
