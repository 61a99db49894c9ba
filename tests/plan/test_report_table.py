"""``bediscover report --table N``: the paper's table in its own layout, the paper's value and the difference."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from bediscover_inspect.cli import main

BASELINE = Path(__file__).resolve().parents[1] / "baseline"


@pytest.mark.slow
def test_report_table_34_in_the_paper_layout(tmp_path):
    args = ["report", "--log-dir", str(BASELINE), "--out", str(tmp_path), "--table", "34", "--no-plots"]
    assert main([*args, "--paper-model", "Qwen3-1.7B"]) == 0
    frame = pd.read_csv(tmp_path / "table-34.csv", dtype=str, keep_default_na=False)
    [row] = frame.to_dict("records")
    assert (row["model"], row["reasoning"], row["paper model"]) == ("gguf/smollm2-135m", "off", "Qwen3-1.7B")
    # Table 34 (NeurIPS abstracts), Qwen3-1.7B without reasoning: PMR 3.7, Acc 23.8; the baseline's model orders
    # none of its abstracts right
    assert (row["nips-abs pmr"], row["nips-abs pmr paper"], row["nips-abs pmr Δ"]) == ("0.0 ± 0.0", "3.7", "-3.7")
    assert (row["nips-abs acc paper"], row["nips-abs acc Δ"]) == ("23.8", "-23.8")
    assert list(frame.columns[:6]) == [
        "model",
        "reasoning",
        "paper model",
        "nips-abs acc",
        "nips-abs acc paper",
        "nips-abs acc Δ",
    ]
    tex = (tmp_path / "table-34.tex").read_text(encoding="utf-8")
    assert "0.0 $\\pm$ 0.0 & 3.7 & -3.7" in tex
    assert (tmp_path / "table-34.md").read_text(encoding="utf-8").startswith("# Table 34\n\n| model | reasoning |")
