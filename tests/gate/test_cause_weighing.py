"""The gate weighs why answers were lost: a regression whose newly wrong samples were newly cut off at the budget
(or newly reasoning-only) says so in its verdict line and per cell in JSON, still exits 1; a budget that differs
between the sides is noted."""

from __future__ import annotations

import json

from bediscover_inspect.gate.cells import newly_lost
from bediscover_inspect.gate.columns import Scored
from bediscover_inspect.gate.compare import compare
from bediscover_inspect.gate.compare_output import render
from bediscover_inspect.measures import CATALOG
from tests.gate.suite import edit_logs, write_suite

TASK = ("discourse_markers",)


def _set_causes(cut: bool, only: int = 0, budget: int | None = None):
    """An ``edit_logs`` edit: with ``cut``, every invalid sample cut off but the first ``only`` ones, which are
    reasoning-only; no other sample either."""

    def edit(log):
        invalid = 0
        for sample in log.samples:
            for score in sample.scores.values():
                lost = cut and score.value["invalid"] == 1.0
                invalid += lost
                flags = {"cut_off": float(lost and invalid > only), "reasoning_only": float(lost and invalid <= only)}
                score.value = dict(score.value) | flags
        if budget is not None:
            log.plan.config.max_tokens = budget

    return edit


def test_a_regression_of_cut_off_answers_names_them(tmp_path):
    # three datasets of 30 samples; the candidate loses a third of each
    right = write_suite(tmp_path / "right", 30, lambda task, dataset, index: "right", TASK)
    worse = write_suite(
        tmp_path / "worse", 30, lambda task, dataset, index: "invalid" if index % 3 == 0 else "right", TASK
    )
    base = edit_logs(right, tmp_path / "base", _set_causes(False))
    cand = edit_logs(worse, tmp_path / "cand", _set_causes(True, only=1))
    result = compare(base, cand)
    assert result.exit_code() == 1
    [cell] = [c for c in result.regressed if c.measure == "accuracy" and c.group_key == "all"]
    assert (cell.newly_worse, cell.newly_cut_off, cell.newly_reasoning_only) == (30, 29, 1)
    line = render(result, "table").splitlines()[0]
    assert (
        "accuracy [all] (of its 30 newly wrong samples: 29 newly cut off at the budget and 1 newly with their" in line
    )
    assert line.endswith("(exit 1).")
    cells = json.loads(render(result, "json"))["cells"]
    assert {(c["name"], c["newly_cut_off"]) for c in cells if c["measure"] == "accuracy"} >= {(cell.name, 29)}


def test_a_regression_without_cut_offs_says_nothing_more_and_a_budget_change_is_noted(tmp_path):
    right = write_suite(tmp_path / "right", 30, lambda task, dataset, index: "right", TASK)
    worse = write_suite(
        tmp_path / "worse", 30, lambda task, dataset, index: "invalid" if index % 3 == 0 else "right", TASK
    )
    base = edit_logs(right, tmp_path / "base", _set_causes(False, budget=4096))
    cand = edit_logs(worse, tmp_path / "cand", _set_causes(False, budget=256))
    result = compare(base, cand)
    line = render(result, "table").splitlines()[0]
    assert result.exit_code() == 1 and "newly" not in line
    assert any("max_tokens 4096 (baseline) vs 256 (candidate)" in note for note in result.notes)


def test_newly_lost_counts_per_measure_kind():
    base = [Scored({"accuracy": 1.0, "cut_off": 0.0}, "A", "A"), Scored({"accuracy": 1.0, "cut_off": 0.0}, "A", "A")]
    cand = [
        Scored({"accuracy": 0.0, "cut_off": 1.0}, "<invalid>", "A"),
        Scored({"accuracy": 1.0, "cut_off": 1.0}, "A", "A"),
    ]
    # the second sample was cut off too, but its answer still counts: not newly wrong
    assert newly_lost(CATALOG["accuracy"], base, cand) == {
        "newly_worse": 1,
        "newly_cut_off": 1,
        "newly_reasoning_only": 0,
    }
    assert newly_lost(CATALOG["weighted_f1"], base, cand)["newly_cut_off"] == 1
    # a log without the cause values counts none
    old = [Scored({"accuracy": 1.0}, "A", "A")]
    assert newly_lost(CATALOG["accuracy"], old, [Scored({"accuracy": 0.0}, "B", "A")])["newly_cut_off"] == 0
