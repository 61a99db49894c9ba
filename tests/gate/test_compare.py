"""``bediscover compare`` end to end on real discourse-marker samples answered by a scripted solver: a planted
regression is blocked, identical runs (A/A) and a change within noise pass, unlike runs are refused."""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from bediscover_inspect.cli import main
from bediscover_inspect.discourse_markers.dataset import LABELS
from bediscover_inspect.discourse_markers.task import discourse_markers
from bediscover_inspect.gate.compare import (
    IMPROVED,
    NO_CHANGE,
    REGRESSED,
    SMALL_DROP,
    CompareError,
    MismatchError,
    compare,
)
from bediscover_inspect.gate.compare_output import plot_deltas, render
from tests.helpers import answer_with, run_eval

pytestmark = pytest.mark.slow  # discourse-marker runs through Inspect compared end to end, seconds each

PER_DATASET = 40
PLANTED = 20  # the first 20 "otherwise" samples are answered wrong in the regressed candidate


def _right(sample_id: str) -> bool:
    """Baseline rule: about three answers in four are right (fixed by the id)."""
    return zlib.crc32(sample_id.encode()) % 4 != 0


def _wrong_label(state) -> str:
    return next(label for label in LABELS[state.metadata["dataset"]] if label != state.metadata["gold"])


def _ids(task) -> list[str]:
    by_dataset: dict[str, list[str]] = {}
    for sample in task.dataset:
        by_dataset.setdefault(sample.metadata["dataset"], []).append(str(sample.id))
    return [i for ids in by_dataset.values() for i in ids[:PER_DATASET]]


def _run(directory: Path, right, prompt: str = "basic", seed: int = 0) -> Path:
    task = discourse_markers(prompt=prompt)
    answer = answer_with(lambda state: state.metadata["gold"] if right(state) else _wrong_label(state))
    [log] = run_eval(
        task,
        model="mockllm/model",
        solver=answer,
        sample_id=_ids(task),
        seed=seed,
        display="none",
        log_dir=str(directory),
    )
    assert log.status == "success"
    return directory


def _otherwise_rank(state) -> int:
    return int(str(state.sample_id).split("_")[1])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    base = _run(root / "base", lambda s: _right(str(s.sample_id)))
    # planted: otherwise_0 .. otherwise_19 all wrong
    regressed = _run(
        root / "regressed",
        lambda s: (
            _right(str(s.sample_id)) and not (s.metadata["dataset"] == "otherwise" and _otherwise_rank(s) < PLANTED)
        ),
    )
    # within noise: the first two right just-manual answers turn wrong, the first wrong one turns right
    manual = [f"just-manual_{i:03d}" for i in range(PER_DATASET)]
    flips = [i for i in manual if _right(i)][:2] + [i for i in manual if not _right(i)][:1]
    noisy = _run(root / "noisy", lambda s: _right(str(s.sample_id)) != (str(s.sample_id) in flips))
    return {"base": base, "regressed": regressed, "noisy": noisy, "flips": flips, "root": root}


def test_planted_regression_is_blocked_with_the_right_cells(runs):
    result = compare(runs["base"], runs["regressed"])
    names = {cell.name for cell in result.regressed}
    assert names == {
        "discourse_markers accuracy [all]",
        "discourse_markers accuracy [otherwise]",
        "discourse_markers weighted_f1 [all]",
        "discourse_markers weighted_f1 [otherwise]",
    }
    cell = next(c for c in result.cells if c.name == "discourse_markers accuracy [otherwise]")
    otherwise = [f"otherwise_{i:03d}" for i in range(PER_DATASET)]
    worse = sum(_right(i) for i in otherwise[:PLANTED])
    assert (cell.worse, cell.better, cell.pairs) == (worse, 0, PER_DATASET)
    assert cell.baseline == pytest.approx(sum(map(_right, otherwise)) / PER_DATASET)
    assert cell.delta == pytest.approx(-100 * worse / PER_DATASET)
    assert cell.p_value == pytest.approx(2 * 0.5**worse)
    for dataset in ("just-manual", "just-subtitle"):
        unchanged = next(c for c in result.cells if c.name == f"discourse_markers accuracy [{dataset}]")
        assert (unchanged.verdict, unchanged.p_value, unchanged.delta) == (NO_CHANGE, 1.0, 0.0)
    assert result.exit_code() == 1
    assert main(["compare", "--baseline", str(runs["base"]), "--candidate", str(runs["regressed"])]) == 1


def test_identical_candidate_passes(runs, capsys):
    result = compare(runs["base"], runs["base"])
    assert {cell.verdict for cell in result.cells} == {NO_CHANGE}
    assert not result.changes and result.exit_code(require_identical=True) == 0
    assert (result.coverage.asked, result.coverage.paired, result.incomplete) == (120, 120, [])
    assert (
        main(["compare", "--baseline", str(runs["base"]), "--candidate", str(runs["base"]), "--require-identical"]) == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("No regression, and every paired sample scored identically (--require-identical; exit 0).")
    assert "120 of 120 samples asked of either side paired" in out


def test_change_within_noise_passes_but_is_seen_sample_by_sample(runs):
    result = compare(runs["base"], runs["noisy"])
    cell = next(c for c in result.cells if c.name == "discourse_markers accuracy [just-manual]")
    assert (cell.worse, cell.better, cell.verdict) == (2, 1, NO_CHANGE)
    assert cell.p_value == pytest.approx(1.0)  # 2 of 3 discordant pairs: binomial two-sided p = 1
    assert result.exit_code() == 0
    assert sorted(change.sample_id for change in result.changes) == sorted(runs["flips"])
    assert result.exit_code(require_identical=True) == 1


def test_improvement_is_not_a_regression(runs):
    result = compare(runs["regressed"], runs["base"])
    assert not result.regressed
    assert {c.name for c in result.cells if c.verdict == IMPROVED} >= {"discourse_markers accuracy [otherwise]"}


def test_max_drop_and_holm_family(runs):
    worse = sum(_right(f"otherwise_{i:03d}") for i in range(PLANTED))
    drop = 100 * worse / PER_DATASET  # accuracy[otherwise] fell by this many points
    result = compare(runs["base"], runs["regressed"], max_drop=drop + 0.5)
    cell = next(c for c in result.cells if c.name == "discourse_markers accuracy [otherwise]")
    assert cell.verdict == SMALL_DROP and cell.delta == pytest.approx(-drop)
    assert result.settings["holm_family"] == len(result.cells) == 8


def test_outputs_markdown_json_and_plot(runs, tmp_path):
    result = compare(runs["base"], runs["regressed"])
    markdown = render(result, "markdown")
    assert "**4 cells regressed: " in markdown and "| run | measure |" in markdown
    headline_rows = [line for line in markdown.splitlines() if line.startswith("| discourse_markers")]
    assert "**regressed**" in headline_rows[0]  # worst first
    payload = json.loads(render(result, "json"))
    assert payload["exit_code"] == 1 and payload["settings"]["max_missing"] == 0
    cell = next(c for c in payload["cells"] if c["name"] == "discourse_markers accuracy [otherwise]")
    assert cell["verdict"] == REGRESSED and cell["test"] == "McNemar exact"
    assert "regressed" in render(result, "table")
    png = plot_deltas(result, tmp_path / "deltas.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_other_prompt_variant_is_refused_unless_allowed(runs, tmp_path):
    other = _run(tmp_path / "def", lambda s: _right(str(s.sample_id)), prompt="def")
    with pytest.raises(MismatchError, match="other task variant: prompt: 'basic' \\(baseline\\) vs 'def'"):
        compare(runs["base"], other)
    assert main(["compare", "--baseline", str(runs["base"]), "--candidate", str(other)]) == 2
    result = compare(runs["base"], other, allow_mismatch=True)
    assert any("prompt" in warning for warning in result.warnings)
    assert result.exit_code() == 0


def _edited(source: Path, target: Path, edit) -> Path:
    [path] = list(source.glob("*.eval"))
    log = read_eval_log(str(path))
    edit(log)
    target.mkdir()
    write_eval_log(log, str(target / path.name))
    return target


def test_other_data_version_and_samples_are_refused(runs, tmp_path):
    def other_data(log):
        log.eval.metadata["data"]["dm/just/test_id.json"]["actual_sha1"] = "0" * 40

    def other_version(log):
        log.eval.task_version = 1

    def other_gold(log):
        log.samples[0].target = "something else"

    def renamed(log):
        for sample in log.samples:
            sample.id = f"{sample.id}_x"
        log.eval.dataset.sample_ids = [f"{i}_x" for i in log.eval.dataset.sample_ids]

    cases = [
        (other_data, "other data: dm/just/test_id.json has SHA-1"),
        (other_version, "other task version: 2"),
        (other_gold, "1 paired samples have another gold"),
        (renamed, "no sample in common"),
    ]
    for i, (edit, message) in enumerate(cases):
        with pytest.raises(MismatchError, match=message):
            compare(runs["base"], _edited(runs["base"], tmp_path / str(i), edit))


def test_seeds_are_paired_within_seed_and_pooled(runs, tmp_path):
    # seed 0 of each side is the module's run of that side (seed 0), copied; seed 1 is run here
    two_base = shutil.copytree(runs["base"], tmp_path / "b")
    two_cand = shutil.copytree(runs["regressed"], tmp_path / "c")
    _run(two_base, lambda s: _right(str(s.sample_id)), seed=1)
    _run(
        two_cand,
        lambda s: (
            _right(str(s.sample_id)) and not (s.metadata["dataset"] == "otherwise" and _otherwise_rank(s) < PLANTED)
        ),
        seed=1,
    )
    result = compare(two_base, two_cand)
    cell = next(c for c in result.cells if c.name == "discourse_markers accuracy [otherwise]")
    single = next(c for c in compare(runs["base"], runs["regressed"]).cells if c.name == cell.name)
    assert (cell.worse, cell.pairs, cell.seeds) == (2 * single.worse, 2 * PER_DATASET, [0, 1])


def test_bad_options_and_paths_are_usage_errors(runs, tmp_path, capsys):
    with pytest.raises(CompareError, match="not found"):
        compare(tmp_path / "missing", runs["base"])
    with pytest.raises(CompareError, match="--max-missing must be a whole number >= 0, got -1"):
        compare(runs["base"], runs["base"], max_missing=-1)
    for max_drop in ("nan", "inf", "1e309", "100", "-1"):  # each would turn the gate off or is no drop at all
        with pytest.raises(CompareError, match=r"--max-drop must be a number of points in \[0, 100\), got "):
            compare(runs["base"], runs["base"], max_drop=float(max_drop))
    assert main(["compare", "--baseline", str(tmp_path / "missing"), "--candidate", str(runs["base"])]) == 2
    assert "bediscover compare: error: not found" in capsys.readouterr().err


def test_an_unreadable_log_beside_the_candidate_makes_it_incomplete(runs, tmp_path):
    candidate = tmp_path / "cand"
    shutil.copytree(runs["base"], candidate)
    broken = candidate / "broken.eval"
    broken.write_bytes(next(candidate.glob("*.eval")).read_bytes()[:3000])  # a truncated copy
    result = compare(runs["base"], candidate)
    [line] = result.incomplete
    assert line.startswith(f"candidate log {broken} is unreadable")
    assert result.exit_code() == 3 and line in render(result, "markdown")
