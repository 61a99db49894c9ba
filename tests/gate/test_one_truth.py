"""One truth per number: for every measure ``compare`` tests and every group a log reports it for, the value
``compare`` computes from the log's samples equals the metric the log reports — over the committed real logs of all
five tasks (``tests/baseline/``)."""

from __future__ import annotations

import math

import pytest
from inspect_ai.log import read_eval_log

from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.gate.cells import measure_value
from bediscover_inspect.gate.pairing import read_side
from bediscover_inspect.measures import CATALOG, SCORERS
from bediscover_inspect.tasks import TASK_NAMES
from tests.gate.suite import BASELINE


def _tested(scorer: str) -> tuple[str, ...]:
    """The measures ``compare --measures all`` tests for ``scorer``."""
    return SCORERS[scorer].headline + SCORERS[scorer].secondary


@pytest.mark.parametrize("task", TASK_NAMES)
def test_compare_computes_every_logged_measure_as_the_log_reports_it(task):
    path = BASELINE / f"{task}.eval"
    [run] = read_side("baseline", path).runs
    rows = read_results(read_eval_log(str(path), header_only=True))
    checked = set()
    for row in rows:
        scorer, name = row["scorer"], row["measure"]
        if name not in _tested(scorer):
            continue
        members = [
            sample.scores[scorer]
            for sample in run.samples.values()
            if scorer in sample.scores
            and (row["group_key"] == "all" or sample.groups.get(row["group_key"]) == row["group"])
        ]
        value = measure_value(CATALOG[name], members)
        assert value == pytest.approx(row["value"], abs=1e-9, nan_ok=True), (
            scorer,
            name,
            row["group_key"],
            row["group"],
        )
        checked.add((scorer, name))
    # every headline measure of the log's scorers is among those checked (a log written before a measure was added
    # to the catalog lacks that measure)
    assert {(s, m) for s in {r["scorer"] for r in rows} for m in SCORERS[s].headline} <= checked


def _mixed_runs(tmp_path):
    """Real runs whose measures are far from 0 and 1: sentence ordering answered with the gold order on every other
    document (the others reversed), dialogue parsing with the gold relation on every other turn."""
    from bediscover_inspect.dialogue_parsing.task import dialogue_parsing
    from bediscover_inspect.sentence_ordering.task import sentence_ordering
    from tests.helpers import run_eval, scripted_model
    from tests.shared.test_answer_extraction_e2e import _gold_order, _state, _turn_gold

    def order(messages):
        ids = _gold_order()
        ids = ids if int(_state().metadata["record_id"]) % 2 == 0 else ids[::-1]
        return " ".join(f"<s {k}>" for k in ids)

    def relation(messages):
        j, gold = _turn_gold(messages)
        return gold if j % 2 == 0 and gold else "No relation."

    for task, respond, limit in (
        (sentence_ordering(dataset="nips-abs"), order, 12),
        (dialogue_parsing(dataset="stac"), relation, 3),
    ):
        [log] = run_eval(task, model=scripted_model(respond), limit=limit, display="none", log_dir=str(tmp_path))
        assert log.status == "success"
    return sorted(tmp_path.glob("*.eval"))


@pytest.mark.filterwarnings("ignore")
def test_compare_computes_logged_measures_far_from_0_and_1(tmp_path):
    checked = 0
    for path in _mixed_runs(tmp_path):
        [run] = read_side("baseline", path).runs
        for row in read_results(read_eval_log(str(path), header_only=True)):
            scorer, name = row["scorer"], row["measure"]
            if name in _tested(scorer) and 0.05 < row["value"] < 0.95:
                members = [s.scores[scorer] for s in run.samples.values() if scorer in s.scores]
                assert measure_value(CATALOG[name], members) == pytest.approx(row["value"], abs=1e-9), name
                checked += 1
    assert checked >= 10


def test_a_rate_of_nothing_on_both_sides_is_no_change_and_not_tested():
    """The baseline's dialogues read no relation (invalid_rate 0/0, undefined in the log): compared with itself the
    cell is undefined on both sides, untested and unchanged, and the gate passes."""
    from bediscover_inspect.gate.compare import NO_CHANGE, compare

    result = compare(BASELINE, BASELINE, tasks=["dialogue_parsing"], measures="all")
    [cell] = [c for c in result.cells if c.measure == "invalid_rate" and c.group_key == "all"]
    assert math.isnan(cell.baseline) and math.isnan(cell.candidate) and math.isnan(cell.delta)
    assert (cell.tested, cell.verdict, cell.identical) == (False, NO_CHANGE, True)
    assert result.exit_code() == 0
