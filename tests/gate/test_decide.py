"""Tests that can decide: in a whole five-task comparison at the default settings a total collapse of any measure is
"regressed", and a planted 10-point drop is named — across a whole task, and on each task's largest dataset by task,
dataset and measure — with that dataset at its paper subset's size (12 samples in every other dataset)."""

from __future__ import annotations

import math
import shutil

import pytest
from inspect_ai.log import write_eval_log

from bediscover_inspect.gate.compare import REGRESSED, TOO_FEW, compare
from bediscover_inspect.gate.compare_output import render
from bediscover_inspect.gate.power import paper_datasets
from bediscover_inspect.measures import SCORERS as CATALOG_SCORERS
from tests.gate.suite import baseline_quality, task_log

pytestmark = pytest.mark.slow  # five-task suites written and compared end to end, one task at its paper subset's size

TASKS = ("discourse_markers", "temporal_reasoning", "discourse_relations", "sentence_ordering", "dialogue_parsing")
SCORERS = {
    "discourse_markers": ("discourse_marker_scorer",),
    "temporal_reasoning": ("relation_scorer", "tot_scorer"),
    "discourse_relations": ("discourse_relation_scorer",),
    "sentence_ordering": ("sentence_ordering_scorer",),
    "dialogue_parsing": ("dialogue_parsing_scorer",),
}


@pytest.fixture(scope="module")
def base(suite):
    return suite("baseline")


def _tot_invalid(task, dataset, index):
    """The baseline rule with every ToT sample answered invalid."""
    return "invalid" if dataset == "tot-arithmetic" else baseline_quality(task, dataset, index)


@pytest.fixture(scope="module")
def tot_invalid(base, tmp_path_factory):
    """The five-task suite under :func:`_tot_invalid`: the baseline's logs, temporal reasoning's rewritten."""
    directory = tmp_path_factory.mktemp("decide") / "tot-invalid"
    shutil.copytree(base, directory)
    write_eval_log(task_log("temporal_reasoning", quality=_tot_invalid), str(directory / "temporal_reasoning.eval"))
    return directory


def test_a_total_collapse_of_every_measure_of_every_task_is_regressed(suite):
    """From every answer right to every answer invalid: every measure that moves is regressed in its task's cell."""
    perfect, collapsed = suite("right"), suite("invalid")
    for measures in ("headline", "all"):
        result = compare(perfect, collapsed, measures=measures)
        assert result.settings["holm_family"] >= 60
        overall = [c for c in result.cells if c.group_key == "all"]
        changed = [c for c in overall if c.baseline != c.candidate]
        headline = [c for c in changed if c.headline]
        assert {(c.run, c.measure) for c in headline} == {
            (task, m) for task, scorers in SCORERS.items() for s in scorers for m in CATALOG_SCORERS[s].headline
        }
        if measures == "headline":  # the default: every headline measure of every task regressed
            assert {c.verdict for c in headline} == {REGRESSED}, [(c.name, c.p_holm) for c in headline]
        # with --measures all (149 cells) a 0/1 cell of 12 samples (ToT, sentence ordering's PMR) cannot reach
        # Holm's first threshold even when all 12 turn wrong (2 / 4096 > 0.05 / 149): too few samples, which
        # fails the gate as well
        assert {c.verdict for c in changed} <= {REGRESSED, TOO_FEW}
        assert result.exit_code() == 1


def test_a_collapse_a_cell_is_too_small_to_name_fails_as_untested(base, tot_invalid):
    """ToT has 12 samples, 8 answered right: 8 pairs turning wrong give p = 2/256, which Holm's first threshold
    over the comparison's cells (0.05/60) cannot reach: the cell cannot decide, and says so."""
    result = compare(base, tot_invalid)
    cell = next(c for c in result.cells if c.name == "temporal_reasoning accuracy [all]")
    assert (cell.could_worsen, cell.worse, cell.verdict, cell.tested) == (8, 8, TOO_FEW, False)
    assert cell.p_value == pytest.approx(2 / 256)
    assert [c.name for c in result.untested] == [cell.name] and result.exit_code() == 4


def test_dialogue_parsing_collapsing_to_zero_link_f1_is_regressed_with_its_test_named(base, suite, tmp_path):
    candidate = shutil.copytree(base, tmp_path / "cand")  # the other tasks as in the baseline
    shutil.copy(suite("invalid") / "dialogue_parsing.eval", candidate)
    result = compare(base, candidate)
    regressed = {c.name for c in result.regressed}
    assert {"dialogue_parsing link_f1 [all]", "dialogue_parsing full_f1 [all]"} <= regressed
    cell = next(c for c in result.cells if c.name == "dialogue_parsing link_f1 [all]")
    assert (cell.test, cell.candidate, cell.p_holm < 1e-6) == ("jackknife t", 0.0, True)
    assert "jackknife t" in render(result, "table").splitlines()[5]


def _sizes(task: str) -> dict[str, int]:
    """12 samples in every dataset of ``task`` in the committed baseline, and the paper subset's size in the
    largest dataset of each of its scorers (temporal reasoning: TBD for the relations, ToT)."""
    from inspect_ai.log import read_eval_log

    from tests.gate.suite import BASELINE

    present = sorted({s.metadata["dataset"] for s in read_eval_log(str(BASELINE / f"{task}.eval")).samples})
    paper = {d.name: d.n for d in paper_datasets() if d.task == task}
    sizes = dict.fromkeys(present, 12)
    for group in ([n for n in present if n != "tot-arithmetic"], [n for n in present if n == "tot-arithmetic"]):
        if group:
            largest = max(group, key=lambda name: (paper[name], name))
            sizes[largest] = paper[largest]
    return sizes


def _planted(task: str, datasets: set[str], sizes: dict[str, int]):
    """The baseline rule, with the first tenth (rounded up) of each named dataset's samples that it answers right
    turned invalid: a drop of at least 10 points in every headline measure of those datasets. Dialogue parsing
    turns a fifth: an invalid dialogue takes its predictions out of the F1's denominator with its true links."""
    share = 0.2 if task == "dialogue_parsing" else 0.1
    turned: set[tuple[str, int]] = set()
    for dataset in datasets:
        right = [i for i in range(sizes[dataset]) if baseline_quality(task, dataset, i) == "right"]
        turned |= {(dataset, i) for i in right[: math.ceil(share * sizes[dataset])]}

    def quality(t: str, dataset: str, index: int) -> str:
        return "invalid" if t == task and (dataset, index) in turned else baseline_quality(t, dataset, index)

    return quality


def _suite(directory, small, task, sizes, quality):
    """The five-task suite of ``small`` with ``task``'s log rewritten at ``sizes`` under ``quality``, in Inspect's
    JSON log format: its ``.eval`` writer de-duplicates each sample against every one written before it, so a log of
    the 3,377 samples of temporal reasoning takes 18 s of CPU to write as ``.eval`` and 0.5 s as JSON (the gate reads
    both formats; Inspect lists a JSON log only under a name of its own pattern, a timestamp first)."""
    directory.mkdir()
    for path in small.glob("*.eval"):
        if path.stem != task:
            shutil.copy(path, directory)
    write_eval_log(task_log(task, sizes, quality), str(directory / f"2026-01-01T00-00-00+00-00_{task}.json"))
    return directory


@pytest.mark.parametrize("task", TASKS)
def test_a_planted_ten_point_drop_is_named_across_the_task_and_on_its_largest_dataset(task, base, tmp_path):
    sizes = _sizes(task)
    baseline = _suite(tmp_path / "base", base, task, sizes, baseline_quality)
    whole = _suite(tmp_path / "whole", base, task, sizes, _planted(task, set(sizes), sizes))
    largest = max(sizes, key=lambda name: (sizes[name], name))
    one = _suite(tmp_path / "one", base, task, sizes, _planted(task, {largest}, sizes))
    scorers = [s for s in SCORERS[task] if (s == "tot_scorer") == (largest == "tot-arithmetic")]

    result = compare(baseline, whole)
    regressed = {c.name for c in result.regressed}
    for scorer in SCORERS[task]:
        assert {f"{task} {m} [all]" for m in CATALOG_SCORERS[scorer].headline} <= regressed, regressed
    assert all(c.task == task for c in result.regressed) and result.exit_code() == 1

    result = compare(baseline, one)
    regressed = {c.name for c in result.regressed}
    # a scorer with one dataset (ToT; sentence ordering, whose mirror has nips-abs only) has its "all" cell alone
    same_scorer = [n for n in sizes if (n == "tot-arithmetic") == (largest == "tot-arithmetic")]
    group = largest if len(same_scorer) > 1 else "all"
    headline = [m for s in scorers for m in CATALOG_SCORERS[s].headline]
    assert {f"{task} {m} [{group}]" for m in headline} <= regressed, (largest, regressed)
    assert all(c.group in ("all", largest) for c in result.regressed)
    cell = next(c for c in result.cells if c.name == f"{task} {headline[0]} [{group}]")
    assert round(cell.delta, 9) <= -10 and cell.pairs == sizes[largest]


def test_a_measure_two_scorers_report_is_named_with_its_scorer(base, tot_invalid):
    """Temporal reasoning's relation and ToT scorers both report ``invalid``: with ``--measures all`` each row names
    its scorer; ToT answered invalid throughout moves only ``tot_scorer/invalid`` (0 of 12 -> 12 of 12)."""
    result = compare(base, tot_invalid, measures="all", tasks=["temporal_reasoning"])
    invalid = {c.name: c for c in result.cells if c.measure == "invalid" and c.group_key == "all"}
    assert sorted(invalid) == [
        "temporal_reasoning relation_scorer/invalid [all]",
        "temporal_reasoning tot_scorer/invalid [all]",
    ]
    tot = invalid["temporal_reasoning tot_scorer/invalid [all]"]
    relations = invalid["temporal_reasoning relation_scorer/invalid [all]"]
    assert (tot.baseline, tot.candidate, tot.pairs) == (0.0, 1.0, 12)
    assert (relations.baseline, relations.candidate, relations.pairs) == (0.0, 0.0, 24)
    table = render(result, "table")
    assert "tot_scorer/invalid (lower better)" in table and "relation_scorer/invalid (lower better)" in table
    # a measure only one scorer reports keeps its plain name
    assert any(c.name == "temporal_reasoning micro_f1 [all]" for c in result.cells)
