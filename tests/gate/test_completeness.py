"""Completeness is a precondition of the verdict: a five-task comparison (12 samples per dataset) against candidate
logs edited through ``inspect_ai.log`` exits 3 with one line per missing thing, and only an explicit option
relaxes it."""

from __future__ import annotations

import math
import os
import shutil
import zlib
from pathlib import Path

import pytest
from inspect_ai.log import EvalError, read_eval_log, write_eval_log

from bediscover_inspect.cli import main
from bediscover_inspect.gate.compare import EXIT_INCOMPLETE, EXIT_UNTESTED, NO_CHANGE, TOO_FEW, compare
from bediscover_inspect.gate.compare_output import render
from tests.gate.suite import baseline_quality, edit_logs, write_suite

pytestmark = pytest.mark.slow  # five-task suites written and compared end to end, seconds each

TASKS = ("dialogue_parsing", "discourse_markers", "discourse_relations", "sentence_ordering", "temporal_reasoning")
COUNTS_KEPT = ("n_sentences", "link_gold", "full_gold", "turns", "output_tokens", "reasoning_tokens")


@pytest.fixture(scope="module")
def base(suite) -> Path:
    return suite("baseline")


def _compare(base: Path, candidate: Path, *options: str) -> int:
    return main(["compare", "--baseline", str(base), "--candidate", str(candidate), *options])


def _errored(log):
    log.status = "error"
    log.error = EvalError(message="RuntimeError: the server went away", traceback="", traceback_ansi="")


def test_identical_suites_pass_and_the_header_says_what_was_compared(base, capsys):
    result = compare(base, base)
    assert result.exit_code() == 0 and {c.verdict for c in result.cells} == {NO_CHANGE}
    assert (result.coverage.run_pairs, result.coverage.asked, result.coverage.paired) == (5, 504, 504)
    assert _compare(base, base) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "No regression (exit 0)."
    assert out[2] == (
        "compared: 5 run pairs (" + ", ".join(TASKS) + "); 504 of 504 samples asked of either side paired"
    )
    assert out[3].startswith("baseline: 504 samples asked in its runs, 0 missing, 0 errored, 0 unscored")


def test_errored_logs_without_a_replacement_are_incomplete(base, tmp_path, capsys):
    erroring = TASKS[:2] + TASKS[3:]
    candidate = edit_logs(base, tmp_path / "cand", _errored, tasks=erroring)
    result = compare(base, candidate)
    assert result.exit_code() == EXIT_INCOMPLETE
    ended = [line for line in result.incomplete if "ended with status error" in line]
    assert sorted(line.split(" of ")[1].split(" ")[0] for line in ended) == sorted(erroring)
    assert len([line for line in result.incomplete if "has no candidate run" in line]) == 4
    assert _compare(base, candidate) == 3
    captured = capsys.readouterr()
    assert captured.out.startswith("Incomplete: no verdict (8 things missing, listed below; exit 3).")
    assert "**Incomplete" in render(result, "markdown") and "No regression" not in render(result, "markdown")


def test_truncated_logs_are_incomplete(base, tmp_path):
    candidate = tmp_path / "cand"
    shutil.copytree(base, candidate)
    for task in ("discourse_relations", "sentence_ordering"):
        path = candidate / f"{task}.eval"
        path.write_bytes(path.read_bytes()[:3000])
    result = compare(base, candidate)
    unreadable = [line for line in result.incomplete if " is unreadable" in line]
    assert len(unreadable) == 2 and result.exit_code() == 3


def test_a_candidate_holding_one_of_five_logs_is_incomplete_even_when_identical(base, tmp_path):
    candidate = tmp_path / "cand"
    candidate.mkdir()
    shutil.copy(base / "discourse_markers.eval", candidate)
    result = compare(base, candidate, require_identical=True)
    assert not result.changes and result.exit_code() == 3
    assert sorted(line.split(" (")[0] for line in result.incomplete) == [
        f"baseline run {task}" for task in TASKS if task != "discourse_markers"
    ]
    # --tasks states that only one task is compared
    assert compare(base, candidate, tasks=["discourse_markers"], require_identical=True).exit_code() == 0


def _error_most(log):
    for sample in log.samples:
        if zlib.crc32(str(sample.id).encode()) % 10 != 0:
            sample.error = EvalError(message="APIError: malformed JSON", traceback="", traceback_ansi="")
            sample.scores = None


def test_errored_samples_are_incomplete_beyond_max_missing(base, tmp_path):
    candidate = edit_logs(base, tmp_path / "cand", _error_most)
    errored = sum(zlib.crc32(f"{s}".encode()) % 10 != 0 for s in _sample_ids(base))
    result = compare(base, candidate)
    assert result.coverage.problems["candidate"]["errored"] == errored > 400
    assert result.coverage.paired == 504 - errored and result.exit_code() == 3
    assert len(result.incomplete) == 5  # one line per run
    assert all(" samples errored (" in line for line in result.incomplete)
    assert compare(base, candidate, max_missing=errored - 1).exit_code() == 3
    tolerated = compare(base, candidate, max_missing=errored, allow_untested=True)
    assert not tolerated.incomplete and any(n.startswith("tolerated (--max-missing") for n in tolerated.notes)


def _sample_ids(directory: Path) -> list[str]:
    return [str(s.id) for p in sorted(directory.glob("*.eval")) for s in read_eval_log(str(p)).samples]


def _missing_and_unscored(log):
    log.samples[0].scores = {}
    del log.samples[1]


def test_missing_and_unscored_samples_are_named(base, tmp_path):
    candidate = edit_logs(base, tmp_path / "cand", _missing_and_unscored, tasks=("discourse_markers",))
    result = compare(base, candidate)
    assert sorted(result.incomplete) == [
        f"candidate discourse_markers (reasoning off, seed 0): 1 of 36 samples missing (just-manual_0001) in "
        f"{candidate / 'discourse_markers.eval'}",
        f"candidate discourse_markers (reasoning off, seed 0): 1 of 36 samples unscored (just-manual_0000) in "
        f"{candidate / 'discourse_markers.eval'}",
    ]
    assert compare(base, candidate, max_missing=2).exit_code() == 0


def _nan(every: int):
    def edit(log):
        for i, sample in enumerate(log.samples):
            if i % every == 0:
                for score in sample.scores.values():
                    score.value = {k: v if k in COUNTS_KEPT else math.nan for k, v in score.value.items()}

    return edit


@pytest.mark.parametrize("every", [1, 2], ids=["all", "half"])
def test_non_finite_scores_are_incomplete_whatever_the_tolerance(base, tmp_path, every):
    candidate = edit_logs(base, tmp_path / "cand", _nan(every))
    result = compare(base, candidate, max_missing=10_000)
    assert result.exit_code() == 3 and len(result.incomplete) == 5
    assert all("samples with a NaN or infinite score (" in line for line in result.incomplete)


def test_two_models_for_the_same_runs_are_refused_whatever_the_file_times(base, suite, tmp_path):
    candidate = tmp_path / "cand"
    shutil.copytree(base, candidate)
    other = suite("invalid")
    for path in sorted(other.glob("*.eval")):
        log = read_eval_log(str(path))
        log.eval.model = "openai/other-model"
        write_eval_log(log, str(candidate / f"{path.stem}-other.eval"))
    codes = []
    for other_is_newer in (True, False):
        for path in candidate.glob("*.eval"):
            stamp = 2_000_000_000 if path.stem.endswith("-other") == other_is_newer else 1_000_000_000
            os.utime(path, (stamp, stamp))
        result = compare(base, candidate)
        codes.append(result.exit_code())
        competing = [line for line in result.incomplete if "two models compete" in line]
        assert len(competing) == 5 and all("openai/other-model" in line for line in competing)
    assert codes == [3, 3]


def test_a_cell_too_small_to_test_fails_unless_allowed(tmp_path):
    base = write_suite(tmp_path / "base", per_dataset=5, tasks=("discourse_markers",))

    def two_worse(task, dataset, index):
        quality = baseline_quality(task, dataset, index)
        return "wrong" if dataset == "otherwise" and index < 2 and quality == "right" else quality

    candidate = write_suite(tmp_path / "cand", per_dataset=5, quality=two_worse, tasks=("discourse_markers",))
    result = compare(base, candidate)
    untested = {c.name for c in result.untested}
    assert {"discourse_markers accuracy [otherwise]", "discourse_markers weighted_f1 [otherwise]"} <= untested
    assert all(c.verdict == TOO_FEW for c in result.untested)
    unchanged = next(c for c in result.cells if c.name == "discourse_markers accuracy [just-manual]")
    assert unchanged.verdict == NO_CHANGE and not unchanged.tested  # identical values: nothing to test
    assert result.exit_code() == EXIT_UNTESTED
    assert _compare(base, candidate) == 4 and _compare(base, candidate, "--allow-untested") == 0


def test_a_renamed_scorer_leaves_its_samples_unscored_not_its_cells_silently_out(base, tmp_path):
    def rename(log):
        for sample in log.samples or []:
            sample.scores = {"renamed_scorer": next(iter((sample.scores or {}).values()))}

    candidate = edit_logs(base, tmp_path / "cand", rename, tasks=("discourse_relations",))
    result = compare(base, candidate)
    assert result.exit_code() == EXIT_INCOMPLETE
    relations = [line for line in result.incomplete if "discourse_relations" in line]
    assert len(relations) == 1 and "samples unscored" in relations[0]
    relation_samples = len(read_eval_log(str(base / "discourse_relations.eval")).samples or [])
    assert result.coverage.problems["candidate"]["unscored"] == relation_samples == 384  # 32 corpora x 12
    assert result.coverage.asked - result.coverage.paired == relation_samples


def test_two_successful_logs_of_one_run_with_as_many_samples_are_refused_whatever_the_file_times(base, suite, tmp_path):
    candidate = tmp_path / "cand"
    shutil.copytree(base, candidate)
    collapsed = suite("invalid")
    for path in sorted(collapsed.glob("*.eval")):
        shutil.copy(path, candidate / f"{path.stem}-retry.eval")
    codes = []
    for retry_is_newer in (True, False):
        for path in candidate.glob("*.eval"):
            stamp = 2_000_000_000 if path.stem.endswith("-retry") == retry_is_newer else 1_000_000_000
            os.utime(path, (stamp, stamp))
        result = compare(base, candidate)
        codes.append(result.exit_code())
        competing = [line for line in result.incomplete if "two successful logs compete" in line]
        assert len(competing) == 5 and all("-retry.eval" in line for line in competing)
    assert codes == [3, 3]


def _first(count: int, declared: bool = True):
    """The log as an eval run on its first ``count`` samples: results and sample list cut. ``declared`` keeps the
    task's sample count in the header (``--limit``, ``--sample-id``, samples removed from the file); without it
    the header says the dataset had ``count`` samples (a dataset selector)."""

    def edit(log):
        log.samples = log.samples[:count]
        log.eval.dataset.sample_ids = [s.id for s in log.samples]
        if not declared:
            log.eval.dataset.samples = count

    return edit


@pytest.mark.parametrize("declared", [True, False], ids=["limit", "selector"])
def test_a_candidate_run_on_fewer_samples_than_the_baseline_is_incomplete(base, tmp_path, capsys, declared):
    candidate = edit_logs(base, tmp_path / "cand", _first(30, declared), tasks=("discourse_markers",))
    result = compare(base, candidate)
    assert result.incomplete == [
        "candidate discourse_markers (reasoning off, seed 0): 6 of 36 samples not run (not in its log's sample "
        "list: --limit, --sample-id, a dataset selector, or removed from the log) (otherwise_0006, otherwise_0007, "
        f"otherwise_0008 …) in {candidate / 'discourse_markers.eval'}"
    ]
    assert (result.coverage.asked, result.coverage.paired, result.coverage.problems["candidate"]["not run"]) == (
        504,
        498,
        6,
    )
    assert _compare(base, candidate) == 3 and _compare(base, candidate, "--max-missing", "5") == 3
    assert _compare(base, candidate, "--max-missing", "6") == 0
    capsys.readouterr()


def test_a_baseline_run_on_fewer_samples_than_the_candidate_is_incomplete(base, tmp_path):
    short = edit_logs(base, tmp_path / "base", _first(11), tasks=("sentence_ordering",))
    result = compare(short, base)
    assert len(result.incomplete) == 1 and result.incomplete[0].startswith(
        "baseline sentence_ordering (reasoning off, seed 0): 1 of 12 samples not run"
    )
    assert result.exit_code() == 3


def test_both_sides_run_on_the_same_fewer_samples_are_compared_and_the_header_says_so(base, tmp_path):
    short = edit_logs(base, tmp_path / "base", _first(30), tasks=("discourse_markers",))
    result = compare(short, short)
    assert result.exit_code() == 0 and (result.coverage.asked, result.coverage.paired) == (498, 498)
    assert (
        "discourse_markers (reasoning off, seed 0): 30 of its task's 36 samples compared; neither log lists the "
        "other 6 (--limit, --sample-id, or removed from both logs)"
    ) in result.notes


def _epochs(count: int, present: int):
    """The log as an eval of ``count`` epochs holding the samples of its first ``present`` epochs."""

    def edit(log):
        log.samples = [s.model_copy(update={"epoch": e}) for e in range(1, present + 1) for s in log.samples]
        log.eval.config.epochs = count

    return edit


def test_an_epoch_the_baseline_ran_and_the_candidate_did_not_is_incomplete(base, tmp_path):
    two = edit_logs(base, tmp_path / "base", _epochs(2, 2), tasks=("discourse_markers",))
    one = edit_logs(base, tmp_path / "cand", _epochs(1, 1), tasks=("discourse_markers",))
    result = compare(two, one)
    assert result.incomplete == [
        "candidate discourse_markers (reasoning off, seed 0): 36 of 72 samples not run (not in its log's sample "
        "list: --limit, --sample-id, a dataset selector, or removed from the log) (just-manual_0000 (epoch 2), "
        f"just-manual_0001 (epoch 2), just-manual_0002 (epoch 2) …) in {one / 'discourse_markers.eval'}"
    ]
    both = compare(two, two)
    assert both.exit_code() == 0 and both.coverage.asked == 504 + 36


def test_an_epoch_missing_from_a_log_of_two_epochs_is_incomplete(base, tmp_path):
    two = edit_logs(base, tmp_path / "base", _epochs(2, 2), tasks=("discourse_markers",))
    half = edit_logs(base, tmp_path / "cand", _epochs(2, 1), tasks=("discourse_markers",))
    result = compare(two, half)
    assert len(result.incomplete) == 1 and "36 of 72 samples missing" in result.incomplete[0]
    assert "(just-manual_0000 (epoch 2)," in result.incomplete[0] and result.exit_code() == 3


def test_a_nan_scalar_score_is_named_nan_and_never_tolerated(base, tmp_path):
    def scalar_nan(log):
        for score in log.samples[0].scores.values():
            score.value = math.nan

    candidate = edit_logs(base, tmp_path / "cand", scalar_nan, tasks=("temporal_reasoning",))
    result = compare(base, candidate, max_missing=10_000)
    assert result.incomplete == [
        "candidate temporal_reasoning (reasoning off, seed 0): 1 of 36 samples with a NaN or infinite score "
        f"(tbd_0000: relation_scorer nan) in {candidate / 'temporal_reasoning.eval'}"
    ]
    assert result.coverage.problems["candidate"]["non-finite"] == 1
    assert result.coverage.problems["candidate"]["unscored"] == 0
