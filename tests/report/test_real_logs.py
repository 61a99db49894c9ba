"""The report on real suite logs: discourse markers with a scripted model, two seeds, read back end to end."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from bediscover_inspect.discourse_markers.task import discourse_markers
from bediscover_inspect.evallogs.scores import ReportWarning
from bediscover_inspect.report.build import build_report
from tests.helpers import run_eval, scripted_model


@pytest.mark.slow
def test_report_reads_a_real_log_with_its_standard_errors_and_class_tables(tmp_path):
    """Otherwise's first 100 items (``per_dataset``; all four classes among them) answered 'Consequence' every
    time, seeds 0 and 1: accuracy = the share of Consequence items, the same for both seeds (std 0), an interval
    from the logged standard error, and a per-class table where Consequence has recall 100 and the other classes 0."""
    logs = tmp_path / "logs"
    for seed in (0, 1):
        task = discourse_markers(dataset="otherwise", per_dataset=100)
        [log] = run_eval(
            task, model=scripted_model(lambda messages: "Consequence"), seed=seed, display="none", log_dir=str(logs)
        )
        assert log.status == "success", log.error
    gold = [s.metadata["gold"] for s in discourse_markers(dataset="otherwise", per_dataset=100).dataset]
    share = 100 * gold.count("Consequence") / len(gold)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReportWarning)
        report = build_report(logs, tmp_path / "out", plots=False)
    cells = report.cells
    cell = cells[(cells.measure == "accuracy") & (cells.group == "otherwise")].iloc[0]
    assert cell["mean"] == pytest.approx(share) and cell["std"] == 0.0 and cell["seeds"] == "0 1"
    p = share / 100
    se = 100 * (p * (1 - p) / (len(gold) - 1)) ** 0.5  # stderr of a mean of 0/1 values (sample std / √n)
    assert cell["se"] == pytest.approx(se)
    assert cell["ci95_low"] == pytest.approx(share - 1.959964 * se, rel=1e-6)
    per_class = pd.read_csv(tmp_path / "out" / "classes" / "per_class.csv")
    recall = dict(zip(per_class.label, per_class.recall_mean))
    assert recall["Consequence"] == 100.0 and recall["Argumentation"] == 0.0
    confusion = pd.read_csv(tmp_path / "out" / "classes" / "confusion.csv")
    assert set(confusion.predicted) == {"Consequence"}
    assert confusion["count"].sum() == 2 * len(gold)  # summed over the two seeds
    md = (tmp_path / "out" / "discourse_markers.md").read_text()
    assert f"{share:.1f} ± 0.0 [" in md
