"""The suite's own regression gate: the committed SmolLM2 baseline (``tests/baseline/``, written by
``make baseline``) re-scored with the current scorers must give every sample the score it was committed with.

A failure names the task, scorer, dataset and sample whose score changed. When the change is intended (a parser
or scorer fix), or the datasets changed (renamed sample ids, another gold), regenerate the baseline with
``make baseline`` and commit it with the change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import bediscover_inspect.scoring
from bediscover_inspect.cli import build_tasks
from bediscover_inspect.evallogs.scores import read_log_scores
from bediscover_inspect.gate.compare import compare
from bediscover_inspect.gate.compare_output import render
from bediscover_inspect.gate.rescore import rescore
from bediscover_inspect.labels import ParsedLabel
from bediscover_inspect.tasks import TASK_NAMES

BASELINE = Path(__file__).resolve().parents[1] / "baseline"
FIX = "regenerate the baseline with `make baseline` if the change is intended"


@pytest.fixture(scope="module")
def rescored(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rescored")
    done, skipped = rescore(BASELINE, out)
    assert not skipped and len(done) == len(TASK_NAMES)
    return out


def test_baseline_covers_every_task_and_stays_small():
    runs = read_log_scores(BASELINE).runs
    assert sorted(runs["task"]) == sorted(TASK_NAMES)
    assert sum(path.stat().st_size for path in BASELINE.glob("*.eval")) < 1_000_000


def test_rescored_baseline_is_identical(rescored):
    result = compare(BASELINE, rescored, measures="all", require_identical=True)
    assert result.coverage.paired == result.coverage.asked == 84 and not result.incomplete
    changed = "\n".join(render(result, "table").split("changed sample scores", 1)[1:])
    assert not result.changes, f"sample scores changed ({FIX}):{changed}"
    assert result.exit_code(require_identical=True) == 0


def test_the_gate_fails_when_a_parser_changes(tmp_path, monkeypatch):
    """A parser that reads nothing turns every answered label invalid: the gate names those samples."""
    monkeypatch.setattr(
        bediscover_inspect.scoring,
        "parse_label",
        lambda completion, labels, aliases=None, cut_off=False: ParsedLabel(None),
    )
    rescore(BASELINE / "discourse_relations.eval", tmp_path)
    result = compare(BASELINE / "discourse_relations.eval", tmp_path / "discourse_relations.eval")
    answered = {c.sample_id for c in result.changes if "answer" in c.differences}
    assert answered and result.exit_code(require_identical=True) == 1
    assert all(set(c.differences) >= {"answer", "invalid"} for c in result.changes if c.sample_id in answered)
    assert "eng.sdrt.stac_0000" in answered  # its committed answer is "concession"


def test_baseline_samples_are_the_current_datasets():
    """Every baseline sample id still exists with the same gold; otherwise the datasets changed: regenerate."""
    runs = read_log_scores(BASELINE).runs
    from inspect_ai.log import read_eval_log

    for _, run in runs.iterrows():
        log = read_eval_log(run["log"])
        [task] = build_tasks([run["task"]], [0], [False], "paper", {})
        current = {str(sample.id): sample.target for sample in task.dataset}
        for sample in log.samples:
            assert str(sample.id) in current, f"{run['task']}: sample {sample.id} no longer exists ({FIX})"
            assert current[str(sample.id)] == sample.target, (
                f"{run['task']}: sample {sample.id} has another gold ({FIX})"
            )


def test_rescored_logs_hold_the_results_of_one_score_async_over_the_whole_log(rescored):
    """Scored in passes, the scores kept on disk and the metrics computed once after, each re-scored log holds the
    header (results, reductions, scorers) and samples ``score_async`` gives over the whole log read at once."""
    from inspect_ai.log import read_eval_log

    from bediscover_inspect._inspect_compat import run_coroutine
    from bediscover_inspect.gate.rescore import rescore_log

    for path in sorted(BASELINE.glob("*.eval")):
        whole = run_coroutine(rescore_log(read_eval_log(str(path))))
        streamed = read_eval_log(str(rescored / path.name))
        assert streamed.results is not None and streamed.results.scores, path.name
        for field in ("eval", "plan", "results", "stats"):  # as JSON: a NaN metric equals itself there
            assert getattr(streamed, field).model_dump_json() == getattr(whole, field).model_dump_json(), field
        assert streamed.status == whole.status == "success" and streamed.reductions == whole.reductions
        assert [(s.id, s.epoch, s.scores) for s in streamed.samples or []] == [
            (s.id, s.epoch, s.scores) for s in whole.samples or []
        ]
