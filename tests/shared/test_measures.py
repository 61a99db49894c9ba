"""The measure catalog: every logged metric is the catalog's formula, macro-F1 is scikit-learn's, the headline
is named with its standard error, and the report keeps two scorers of one task apart."""

from __future__ import annotations

import math

import pytest
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from sklearn.metrics import f1_score

from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.evallogs.scores import read_log_scores
from bediscover_inspect.measures import CATALOG, SCORERS, headline, measures_of, scorer_metrics
from bediscover_inspect.metrics import INVALID_ANSWER
from bediscover_inspect.report.aggregate import aggregate
from bediscover_inspect.report.build import build_report
from tests.conftest import REPO_ROOT
from tests.helpers import run_eval, scripted_model

BASELINE = REPO_ROOT / "tests" / "baseline"
TASKS = ("discourse_markers", "temporal_reasoning", "discourse_relations", "sentence_ordering", "dialogue_parsing")


def _samples(log: EvalLog, scorer: str) -> tuple[list[dict], list[str], list[str | None]]:
    """``(Score.value dicts, gold labels, answers)`` of the samples ``scorer`` scored in ``log``."""
    values, gold, answers = [], [], []
    for sample in log.samples or []:
        score = (sample.scores or {}).get(scorer)
        if score is not None:
            values.append(score.value)
            gold.append(str((sample.metadata or {}).get("gold", "")))
            answers.append(score.answer)
    return values, gold, answers


@pytest.fixture(scope="module")
def baseline_logs() -> dict[str, EvalLog]:
    return {task: read_eval_log(str(BASELINE / f"{task}.eval")) for task in TASKS}


def test_every_scorer_of_every_task_is_in_the_catalog(baseline_logs):
    scorers = {score.name for log in baseline_logs.values() for score in log.results.scores}
    assert scorers == set(SCORERS)
    for spec in SCORERS.values():
        assert set(spec.headline) | set(spec.secondary) <= set(spec.measures) <= set(CATALOG)
    # each log's headline, by the field's name (paper Tables 2-6)
    assert {s: headline(s).title for s in SCORERS} == {
        "discourse_marker_scorer": "accuracy",
        "relation_scorer": "micro-F1",
        "tot_scorer": "accuracy",
        "discourse_relation_scorer": "accuracy",
        "sentence_ordering_scorer": "PMR",
        "dialogue_parsing_scorer": "link-F1",
    }


def test_catalog_formula_equals_every_logged_measure_on_the_baseline_logs(baseline_logs):
    """For every measure of every scorer: ``Measure.compute`` over the logged samples' values equals the logged
    overall metric (read back by ``read_results``), so compare and the log share one definition."""
    checked, predating = 0, 0
    for log in baseline_logs.values():
        logged = {(r["scorer"], r["measure"]): r["value"] for r in read_results(log) if r["group"] == "all"}
        for spec in SCORERS.values():
            if not any(score.name == spec.scorer for score in log.results.scores):
                continue
            values, gold, answers = _samples(log, spec.scorer)
            for measure in measures_of(spec.scorer):
                if (spec.scorer, measure.name) not in logged:
                    assert measure.name == "macro_f1"  # a baseline log that predates it: scored below
                    predating += 1
                    continue
                kwargs = {"gold": gold, "answers": answers} if measure.kind == "label" else {}
                value, expected = measure.compute(values, **kwargs), logged[(spec.scorer, measure.name)]
                assert value == expected or (math.isnan(value) and math.isnan(expected)), measure.name
                checked += 1
    # markers, relations (+ micro-F1), ToT, DISRPT (12 with macro-F1), ordering, dialogue: every measure once
    assert checked + predating == 12 + 13 + 7 + 12 + 13 + 13 and checked >= 66


@pytest.mark.parametrize(
    ("task", "scorer"),
    [
        ("discourse_markers", "discourse_marker_scorer"),
        ("temporal_reasoning", "relation_scorer"),
        ("discourse_relations", "discourse_relation_scorer"),
    ],
)
def test_macro_f1_is_sklearns_on_real_answers(baseline_logs, task, scorer):
    """Macro-F1 over the baseline's real answers, overall and per dataset, against scikit-learn's
    ``f1_score(average="macro")`` (labels: gold ∪ predicted, an invalid answer a label of its own)."""
    log = baseline_logs[task]
    values, gold, answers = _samples(log, scorer)
    pred = [a if a is not None else INVALID_ANSWER for a in answers]
    macro = CATALOG["macro_f1"]
    expected = f1_score(gold, pred, average="macro", zero_division=0)
    assert macro.compute(values, gold, answers) == pytest.approx(expected, abs=1e-12)
    # the rescored metrics (what a new log holds): the same number, per dataset too
    scored = _scored(log, scorer)
    entries = _entries(scorer, scored)
    assert entries["macro_f1"] == pytest.approx(expected, abs=1e-12)
    for dataset in sorted({s.metadata["dataset"] for s in scored}):
        rows = [i for i, s in enumerate(scored) if s.metadata["dataset"] == dataset]
        want = f1_score([gold[i] for i in rows], [pred[i] for i in rows], average="macro", zero_division=0)
        assert entries[f"macro_f1_{dataset}"] == pytest.approx(want, abs=1e-12), dataset


def _scored(log: EvalLog, scorer: str) -> list:
    return [s for s in log.samples or [] if scorer in (s.scores or {})]


def _entries(scorer: str, samples: list) -> dict[str, float]:
    """Every metric entry ``scorer``'s metric list computes over ``samples`` (their logged scores)."""
    from inspect_ai.scorer import SampleScore

    scores = [SampleScore(score=s.scores[scorer], sample_id=s.id, sample_metadata=s.metadata) for s in samples]
    entries: dict[str, float] = {}
    for metric in scorer_metrics(scorer):
        value = metric(scores)
        if isinstance(value, dict):
            entries.update(value)
    return entries


def test_a_run_logs_macro_f1_and_names_its_headline_for_evals_df(tmp_path):
    """A scripted discourse-markers run on real data: the log holds macro-F1 equal to scikit-learn's on its own
    gold and answers, and ``evals_df`` names the headline (accuracy) with its standard error."""
    from inspect_ai.analysis import evals_df

    from bediscover_inspect.discourse_markers.task import discourse_markers

    task = discourse_markers(dataset="just-manual")
    labels = sorted({str(s.target) for s in task.dataset})
    gold_of = {s.input: str(s.target) for s in task.dataset}
    calls = iter(range(10_000))

    def respond(messages):  # right on every third answer, else one fixed label; every fifth unreadable
        k = next(calls)
        return "no idea" if k % 5 == 4 else gold_of[messages[-1].text] if k % 3 == 0 else labels[0]

    [log] = run_eval(
        task, model=scripted_model(respond), limit=30, display="none", log_dir=str(tmp_path), max_connections=1
    )
    assert log.status == "success", log.error
    [score] = log.results.scores
    _values, gold, answers = _samples(log, "discourse_marker_scorer")
    pred = [a if a is not None else INVALID_ANSWER for a in answers]
    assert INVALID_ANSWER in pred and len(set(gold)) > 1
    macro = f1_score(gold, pred, average="macro", zero_division=0)
    assert score.metrics["macro_f1"].value == pytest.approx(macro)
    assert macro != pytest.approx(sum(g == p for g, p in zip(gold, pred)) / len(gold))  # not accuracy again
    assert score.metrics["macro_f1_stderr"].value > 0.0
    assert list(score.metrics)[:2] == ["accuracy", "stderr"]
    frame = evals_df(str(tmp_path), quiet=True)
    assert frame["score_headline_metric"].iloc[0] == "accuracy" == headline("discourse_marker_scorer").name
    accuracy = sum(g == p for g, p in zip(gold, pred)) / len(gold)
    assert frame["score_headline_value"].iloc[0] == pytest.approx(accuracy)
    n = len(gold)
    assert frame["score_headline_stderr"].iloc[0] == pytest.approx(
        math.sqrt(accuracy * (1 - accuracy) * n / (n - 1)) / math.sqrt(n)
    )
    assert frame["score_discourse_marker_scorer_macro_f1"].iloc[0] == score.metrics["macro_f1"].value
    # the report reads it like every measure: a column of the task table, in percent, headline first
    report = build_report(tmp_path, tmp_path / "report", plots=False)
    cell = report.cells[(report.cells.measure == "macro_f1") & (report.cells.group == "just-manual")]
    assert cell["mean"].iloc[0] == pytest.approx(100 * macro)
    table = (tmp_path / "report" / "discourse_markers.md").read_text(encoding="utf-8")
    header = table.splitlines()[2].split(" | ")
    assert "macro_f1" in header and header.index("accuracy") < header.index("macro_f1")


def _with_seed(log: EvalLog, seed: int) -> EvalLog:
    log = log.model_copy(deep=True)
    log.plan.config.seed = seed
    log.eval.model_generate_config.seed = seed
    return log


def test_report_keeps_the_two_temporal_scorers_apart(tmp_path, baseline_logs):
    """The real temporal-reasoning log has a relation scorer and a ToT scorer that both report accuracy, invalid and
    token means over ``all``: as two seeds they are two cells of two seeds each, never one cell of four."""
    log = baseline_logs["temporal_reasoning"]
    logged = {(r["scorer"], r["measure"], r["group"]): r["value"] for r in read_results(log)}
    for seed in (0, 1):
        write_eval_log(_with_seed(log, seed), str(tmp_path / f"temporal_reasoning_seed{seed}.eval"))
    cells = aggregate(read_log_scores(tmp_path).scores)
    overall = cells[(cells.measure == "accuracy") & (cells.group == "all")].set_index("scorer")
    assert sorted(overall.index) == ["relation_scorer", "tot_scorer"]
    assert list(overall.n_seeds) == [2, 2] and list(overall.seeds) == ["0 1", "0 1"]
    for scorer in ("relation_scorer", "tot_scorer"):
        assert overall.loc[scorer, "mean"] == pytest.approx(100 * logged[(scorer, "accuracy", "all")])
        assert overall.loc[scorer, "std"] == 0.0  # the same log twice: no spread across seeds
    assert logged[("relation_scorer", "accuracy", "all")] != logged[("tot_scorer", "accuracy", "all")]
    assert (cells.n_seeds == 2).all()
