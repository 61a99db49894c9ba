"""``--table N``: the runs of a paper table, read from the paper's own rows (``paper_results.csv``)."""

from __future__ import annotations

import pytest

from bediscover_inspect.cli import main
from bediscover_inspect.report.table_runs import paper_table, paper_tables


def test_table_2_runs_the_three_prompt_formats_with_reasoning():
    table = paper_table(2)
    assert {g.task for g in table.groups} == {"discourse_markers"}
    assert sorted(dict(g.args)["prompt"] for g in table.groups) == ["basic", "def", "def+exp"]
    assert table.modes == (True,)
    assert table.seeds == (0, 1, 42)


def test_table_3_is_one_eval_per_seed_with_the_full_documents():
    # TBD's "with context" and TDD-Man's column (read as the full-document setting, Tables 24/25's swapped
    # captions) and ToT-Arithmetic (no context setting) share one group: every dataset, context=document
    [group] = paper_table(3).groups
    assert group.task == "temporal_reasoning"
    assert group.args == (("context", "document"),)
    assert paper_table(3).modes == (True,)


def test_appendix_tables_name_their_dataset_setting_and_both_modes():
    [group] = paper_table(22).groups
    assert group.args == (("dataset", ("tbd",)), ("context", "sentences"))
    assert paper_table(22).modes == (False, True)
    [group] = paper_table(24).groups  # printed "without context", whose numbers are the full-document setting
    assert group.args == (("dataset", ("tdd-man",)), ("context", "document"))
    [group] = paper_table(32).groups
    assert group.args == (("dataset", ("aan-abstract",)),)
    modes = {dict(g.args)["mode"] for g in paper_table(39).groups}
    assert modes == {"incremental", "single-turn"}
    assert all(dict(g.args)["dataset"] == ("stac",) for g in paper_table(39).groups)


def test_disrpt_corpus_tables_list_their_corpora_and_the_views_run_every_corpus():
    [group] = paper_table(28).groups
    corpora = dict(group.args)["dataset"]
    assert "ces.rst.crdt" in corpora and "deu.pdtb.pcc" in corpora
    assert sum(len(dict(paper_table(n).groups[0].args)["dataset"]) for n in (28, 29, 30, 31)) == 38
    assert paper_table(4).groups[0].args == () and paper_table(27).groups[0].args == ()


def test_every_table_of_the_paper_is_there():
    assert sorted(paper_tables()) == [2, 3, 4, 5, 6, *range(13, 42)]


def test_table_with_tasks_or_unknown_table_is_one_line_exit_2(capsys):
    assert main(["plan", "--model", "openai/gpt-5-mini", "--table", "5", "--tasks", "sentence_ordering"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("bediscover plan: error: --table 5 sets the tasks, reasoning modes and seeds itself; drop --tasks")
    assert main(["plan", "--model", "openai/gpt-5-mini", "--table", "7"]) == 2
    assert "the paper has no table 7 of BeDiscovER results" in capsys.readouterr().err


@pytest.mark.parametrize("number", [2, 39])
def test_a_table_plan_counts_each_variant(number, capsys, tmp_path):
    code = main(
        ["plan", "--model", "openai/gpt-5-mini", "--table", str(number), "--limit", "2", "--log-dir", str(tmp_path)]
        + ["--format", "json"]
    )
    assert code == 0
    import json

    plan = json.loads(capsys.readouterr().out)
    groups = {row["group"] for row in plan["rows"]}
    assert len(groups) == len(paper_table(number).groups)
    assert plan["seeds"] == [0, 1, 42]
    assert plan["evals"] == len(groups) * 3 * len(paper_table(number).modes)
