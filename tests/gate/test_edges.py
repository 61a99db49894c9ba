"""The gate at its edges: numeric options that would switch it off, duplicate baseline logs beside another prompt
variant, a rescore written into its own source, a log without a seed, intervals at n = 2 and an interval that
disagrees with the test. Discourse-marker logs of ``tests/gate/suite.py`` (three datasets)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import write_eval_log

from bediscover_inspect.cli import main
from bediscover_inspect.gate.compare import EXIT_INCOMPLETE, NO_CHANGE, MismatchError, compare
from bediscover_inspect.gate.compare_output import render, verdict_line
from tests.gate.suite import baseline_quality, edit_logs, task_log, write_suite

TASK = ("discourse_markers",)


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("edges")
    return {
        "base": write_suite(root / "base", 40, tasks=TASK),
        "collapse": write_suite(root / "collapse", 40, quality=lambda t, d, i: "wrong", tasks=TASK),
    }


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-drop", "nan", "--max-drop must be a number of points in [0, 100), got nan"),
        ("--max-drop", "inf", "--max-drop must be a number of points in [0, 100), got inf"),
        ("--max-drop", "-1", "--max-drop must be a number of points in [0, 100), got -1.0"),
        ("--max-drop", "100", "--max-drop must be a number of points in [0, 100), got 100.0"),
        ("--alpha", "nan", "--alpha must be a number in (0, 1), got nan"),
        ("--alpha", "inf", "--alpha must be a number in (0, 1), got inf"),
        ("--max-missing", "-1", "--max-missing must be a whole number >= 0, got -1"),
    ],
)
def test_a_numeric_option_that_would_switch_the_gate_off_is_refused_in_one_line(logs, capsys, option, value, message):
    # every accuracy cell falls from about 75 to 0 points: with --max-drop nan each was a "small drop", exit 0
    code = main(["compare", "--baseline", str(logs["base"]), "--candidate", str(logs["collapse"]), f"{option}={value}"])
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", f"bediscover compare: error: {message}\n")


def test_the_collapse_regresses_at_the_default_max_drop(logs):
    result = compare(logs["base"], logs["collapse"])
    assert result.exit_code() == 1
    assert "discourse_markers accuracy [all]" in {cell.name for cell in result.regressed}


def test_out_writes_the_report_and_prints_the_verdict(logs, tmp_path, capsys):
    out = tmp_path / "compare.md"
    code = main(
        ["compare", "--baseline", str(logs["base"]), "--candidate", str(logs["collapse"]), "--format", "markdown"]
        + ["--out", str(out)]
    )
    verdict = verdict_line(compare(logs["base"], logs["collapse"]))
    assert code == 1 and verdict.startswith("8 cells regressed: ")
    assert capsys.readouterr().out == f"{verdict} Report: {out}\n"
    assert f"**{verdict}**" in out.read_text()


def _prompt_def(log):
    log.eval.metadata["parameters"]["prompt"] = "def"
    log.eval.task_args["prompt"] = "def"


def test_two_copies_of_a_run_beside_another_variant_are_reported_never_paired_with_it(logs, tmp_path):
    # the baseline holds the candidate's run (prompt=basic) twice and a run of prompt=def: the copies compete, and
    # the def run is not the candidate's run, with --allow-mismatch or without
    baseline = tmp_path / "baseline"
    baseline.mkdir()
    log = task_log("discourse_markers", 40)
    write_eval_log(log, str(baseline / "a.eval"))
    write_eval_log(log, str(baseline / "b.eval"))
    _prompt_def(log)
    write_eval_log(log, str(baseline / "def.eval"))
    for allow in (False, True):
        result = compare(baseline, logs["base"], allow_mismatch=allow)
        assert result.exit_code() == EXIT_INCOMPLETE and result.pairing.pairs == [] and result.warnings == []
        first, second, third = result.incomplete
        assert first.startswith("baseline: two successful logs compete for discourse_markers (reasoning off, seed 0)")
        assert second.startswith("baseline run discourse_markers (reasoning off, seed 0) [context=none,prompt=def")
        assert second.endswith(f"has no candidate run ({baseline / 'def.eval'})")
        assert third.startswith("candidate run discourse_markers (reasoning off, seed 0) [context=none,prompt=basic")
        assert "has no usable baseline run (competing logs of it in the baseline" in third


def test_a_refusal_still_names_what_is_incomplete(logs, tmp_path):
    baseline = edit_logs(logs["base"], tmp_path / "baseline", _prompt_def)
    write_eval_log(task_log("sentence_ordering", 3), str(baseline / "so-1.eval"))
    write_eval_log(task_log("sentence_ordering", 3), str(baseline / "so-2.eval"))
    with pytest.raises(MismatchError) as refused:
        compare(baseline, logs["base"])
    message = str(refused.value)
    assert "other task variant: prompt: 'def' (baseline) vs 'basic' (candidate); paired baseline " in message
    assert "\nalso incomplete: baseline: two successful logs compete for sentence_ordering" in message


def test_allow_mismatch_names_the_logs_it_paired(logs, tmp_path):
    baseline = edit_logs(logs["base"], tmp_path / "baseline", _prompt_def)
    [warning] = compare(baseline, logs["base"], allow_mismatch=True).warnings
    assert warning.endswith(
        f"prompt: 'def' (baseline) vs 'basic' (candidate); paired baseline {baseline / 'discourse_markers.eval'} "
        f"with candidate {logs['base'] / 'discourse_markers.eval'}"
    )


def test_a_run_without_a_seed_is_named_seed_not_recorded(logs, tmp_path):
    def unseeded(log):
        log.plan.config.seed = None
        log.eval.model_generate_config.seed = None

    baseline = edit_logs(logs["base"], tmp_path / "baseline", unseeded)
    candidate = write_suite(tmp_path / "candidate", 3, tasks=("sentence_ordering",))
    result = compare(baseline, candidate)
    assert result.incomplete[0].startswith(
        "baseline run discourse_markers (reasoning off, seed not recorded) [context=none,prompt=basic,subset=paper] "
        "has no candidate run"
    )


def test_an_interval_at_two_pairs_stays_within_the_measures_range(tmp_path):
    # 2 pairs: t(1) = 12.7 times the jackknife se gave [-685.3, +585.3] points for a 0-1 accuracy
    base = write_suite(tmp_path / "b", {"otherwise": 2}, tasks=TASK)
    cand = write_suite(tmp_path / "c", {"otherwise": 2}, quality=lambda t, d, i: "wrong", tasks=TASK)
    cells = {cell.measure: cell for cell in compare(base, cand).cells}
    assert (cells["accuracy"].delta, cells["accuracy"].low, cells["accuracy"].high) == (-50.0, -100.0, 100.0)
    assert (cells["weighted_f1"].low, cells["weighted_f1"].high) == (-100.0, 100.0)


def test_an_interval_that_excludes_zero_beside_no_significant_change_says_which_decides(logs, tmp_path):
    # 5 right just-manual answers turn wrong (5 of 36 samples): McNemar 5 vs 0, p = 2 * 0.5**5 = 0.0625, while
    # the jackknife t interval of the all cell is [-25.8, -2.0]
    right = [i for i in range(12) if baseline_quality("discourse_markers", "just-manual", i) == "right"][:5]
    base = write_suite(tmp_path / "b", 12, tasks=TASK)
    cand = write_suite(
        tmp_path / "c",
        12,
        quality=lambda t, d, i: "wrong" if d == "just-manual" and i in right else baseline_quality(t, d, i),
        tasks=TASK,
    )
    result = compare(base, cand)
    cell = next(c for c in result.cells if c.name == "discourse_markers accuracy [all]")
    assert (cell.worse, cell.better, cell.p_value, cell.verdict) == (5, 0, 0.0625, NO_CHANGE)
    assert (round(cell.low, 1), round(cell.high, 1)) == (-25.8, -2.0)
    [note] = [n for n in result.notes if "interval that excludes 0" in n]
    assert note.startswith("4 cells with an interval that excludes 0 and no significant verdict (")
    assert "discourse_markers accuracy [all]" in note and note.endswith("the unadjusted interval does not decide")
    assert "the verdict follows p Holm, never the CI" in render(result, "table")


def test_rescore_refuses_an_out_inside_or_around_its_source(logs, tmp_path, capsys):
    source = logs["base"]
    for out, words in (
        (source / "sub", "is inside the source"),
        (source.parent, "holds the source"),
        (source, "is the source directory"),
    ):
        assert main(["rescore", str(source), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"bediscover rescore: error: --out {out} {words}" in err
    assert not (source / "sub").exists() and sorted(p.name for p in source.iterdir()) == ["discourse_markers.eval"]
    log = source / "discourse_markers.eval"
    assert main(["rescore", str(log), "--out", str(source)]) == 2
    assert "re-scoring would overwrite it" in capsys.readouterr().err


def test_rescore_leaves_out_a_log_with_an_unreadable_sample_and_writes_the_others(tmp_path, capsys):
    """The samples are read one at a time: one that cannot be parsed makes its log unreadable (a note, nothing
    written for it), as reading the log whole did; the other logs are re-scored."""
    import shutil
    import zipfile

    import zipfile_zstd  # noqa: F401 - Inspect's members are zstandard (stdlib from Python 3.14)

    source = tmp_path / "source"
    source.mkdir()
    baseline = Path(__file__).resolve().parents[1] / "baseline"
    shutil.copy(baseline / "temporal_reasoning.eval", source)
    with zipfile.ZipFile(baseline / "discourse_markers.eval") as original:
        members = [(info, original.read(info)) for info in original.infolist()]
    broken = next(info.filename for info, _ in members if info.filename.startswith("samples/"))
    with zipfile.ZipFile(source / "discourse_markers.eval", "w") as copy:
        for info, data in members:
            copy.writestr(info.filename, b"{not json" if info.filename == broken else data)
    assert main(["rescore", str(source), "--out", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    assert f"note: left out {source / 'discourse_markers.eval'}: unreadable: {broken}: JSONDecodeError" in captured.err
    assert "bediscover rescore: 1 logs in" in captured.out
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["temporal_reasoning.eval"]
