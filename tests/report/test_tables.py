"""Report tables from synthetic logs: mean ± std by hand, paper matching, missing seeds and tasks reported."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, EvalMetric, EvalScore, read_eval_log, write_eval_log
from inspect_ai.scorer import includes, match
from inspect_ai.solver import generate

from bediscover_inspect.evallogs.scores import NO_MEASURES, NOT_OURS, UNREADABLE, ReportWarning, read_log_scores
from bediscover_inspect.report.aggregate import aggregate, coverage_warnings
from bediscover_inspect.report.build import build_report
from bediscover_inspect.report.matching import match_paper, paper_model_name
from bediscover_inspect.report.paper import load_paper_results
from tests.helpers import scripted_model


def suite_entries(scores: dict[str, dict[str, float]]) -> dict[str, EvalMetric]:
    """Metric entries in the suite's results layout (``metrics.measure_metrics``): ``<measure>`` for ``all``,
    ``<measure>_<group>`` from ``grouped(<measure>(stat="value"), "dataset")`` for a dataset."""
    entries: dict[str, EvalMetric] = {}
    for measure, groups in scores.items():
        for group, value in groups.items():
            if group == "all":
                entries[measure] = EvalMetric(name=measure, group=measure, value=value)
            else:
                params = {
                    "metric": {"name": f"bediscover_inspect/{measure}", "params": {"stat": "value"}},
                    "group_key": "dataset",
                    "name_template": f"{measure}_{{group_name}}",
                }
                entries[f"{measure}_{group}"] = EvalMetric(
                    name=f"{measure}_{group}", group="grouped", value=value, params=params
                )
    return entries


TABLE7_QWEN3 = {
    False: {"max_tokens": 2048, "temperature": 0.7, "top_p": 0.8},
    True: {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95},
}
"""Appendix A, Table 7, the Qwen3 rows: what a run in the paper's setting sends."""


def write_log(
    template: EvalLog,
    directory: Path,
    *,
    task: str,
    model: str,
    seed: int,
    reasoning: bool,
    scores: dict[str, dict[str, float]],
    task_args: dict | None = None,
    samples: int = 10,
    status: str = "success",
    ours: bool = True,
    generate: dict | None = None,
    dataset_samples: int | None = None,
    name: str | None = None,
    metadata: dict | None = None,
    limit: int | None = None,
) -> Path:
    """A synthetic suite log: ``samples`` scored of ``dataset_samples`` (default: all; ``limit`` as
    ``--limit``), their ids ``<dataset>_<n>`` spread in turn over the datasets of ``scores`` (the groups but
    ``all``); generated with ``generate`` (default: Table 7's Qwen3 setting of the mode); ``metadata`` is merged
    into the task metadata (``data``, ``absent``, ``parameters``)."""
    log = template.model_copy(deep=True)
    log.status = status
    log.eval.metadata = ({"benchmark": "BeDiscovER", "task": task} if ours else {"task": task}) | (metadata or {})
    log.eval.config.limit = limit
    log.eval.task = f"bediscover_inspect/{task}"
    log.eval.model = model
    log.eval.task_args = {"reasoning": reasoning} | (task_args or {})
    log.plan.config.seed = seed
    for key, value in (TABLE7_QWEN3[reasoning] if generate is None else generate).items():
        setattr(log.plan.config, key, value)
    log.results.completed_samples = samples
    log.results.total_samples = samples
    datasets = list(dict.fromkeys(g for groups in scores.values() for g in groups if g != "all")) or ["d"]
    log.eval.dataset.sample_ids = [f"{datasets[i % len(datasets)]}_{i}" for i in range(samples)]
    log.eval.dataset.samples = samples if dataset_samples is None else dataset_samples
    log.results.scores = [EvalScore(name="s", scorer="s", metrics=suite_entries(scores))]
    path = directory / (name or f"{task}_{model.replace('/', '-')}_{reasoning}_{seed}_{status}.eval")
    write_eval_log(log, str(path))
    return path


QWEN = "vllm/Qwen/Qwen3-1.7B"


@pytest.fixture()
def log_dir(template, tmp_path) -> Path:
    acc = {0: 0.30, 1: 0.36, 42: 0.33}
    tok = {0: 500.0, 1: 520.0, 42: 540.0}
    for seed in (0, 1, 42):
        write_log(
            template,
            tmp_path,
            task="discourse_markers",
            model=QWEN,
            seed=seed,
            reasoning=True,
            task_args={"prompt": "def"},
            scores={
                "accuracy": {"just-manual": acc[seed], "all": acc[seed]},
                "invalid": {"just-manual": 0.1 * (seed == 0), "all": 0.0},
                "reasoning_tokens": {"just-manual": tok[seed], "all": tok[seed]},
                "output_tokens": {"just-manual": tok[seed] + 4, "all": tok[seed] + 4},
            },
        )
    # w/o reasoning: seed 42 missing, and the sentence_ordering task only in this mode
    for seed in (0, 1):
        write_log(
            template,
            tmp_path,
            task="discourse_markers",
            model=QWEN,
            seed=seed,
            reasoning=False,
            task_args={"prompt": "def"},
            scores={
                "accuracy": {"just-manual": 0.2 + 0.1 * seed, "all": 0.25},
                "reasoning_tokens": {"just-manual": 0.0, "all": 0.0},
                "output_tokens": {"just-manual": 3.0, "all": 3.0},
            },
        )
    for seed in (0, 1, 42):
        write_log(
            template,
            tmp_path,
            task="sentence_ordering",
            model=QWEN,
            seed=seed,
            reasoning=False,
            scores={"pmr": {"nips-abs": 0.1, "all": 0.1}, "reasoning_tokens": {"nips-abs": 0.0, "all": 0.0}},
        )
    # a failed log must not be counted
    write_log(
        template,
        tmp_path,
        task="discourse_markers",
        model=QWEN,
        seed=42,
        reasoning=False,
        task_args={"prompt": "def"},
        scores={"accuracy": {"just-manual": 0.9}},
        status="error",
    )
    return tmp_path


def test_mean_and_population_std_by_hand(log_dir):
    agg = aggregate(read_log_scores(log_dir).scores)
    cell = agg[
        (agg.task == "discourse_markers")
        & (agg.reasoning == "on")
        & (agg.measure == "accuracy")
        & (agg.group == "just-manual")
    ].iloc[0]
    # 30, 36, 33 %: mean 33, population std sqrt((9 + 9 + 0) / 3) = sqrt(6)
    assert cell["mean"] == pytest.approx(33.0)
    assert cell["std"] == pytest.approx(math.sqrt(6.0))
    assert cell["seeds"] == "0 1 42"
    assert cell["samples"] == "10/10/10"
    tokens = agg[(agg.reasoning == "on") & (agg.measure == "reasoning_tokens") & (agg.group == "just-manual")]
    assert tokens.iloc[0]["mean"] == pytest.approx(520.0)  # tokens are not scaled to percent
    assert tokens.iloc[0]["std"] == pytest.approx(math.sqrt((400 + 0 + 400) / 3))
    invalid = agg[(agg.reasoning == "on") & (agg.measure == "invalid") & (agg.group == "just-manual")]
    assert invalid.iloc[0]["mean"] == pytest.approx(10.0 / 3)


def test_sample_std_on_request(log_dir):
    agg = aggregate(read_log_scores(log_dir).scores, ddof=1)
    cell = agg[(agg.reasoning == "on") & (agg.measure == "accuracy") & (agg.group == "just-manual")].iloc[0]
    assert cell["std"] == pytest.approx(3.0)  # sqrt(18 / 2)


def test_missing_seed_and_task_reported_not_averaged(log_dir):
    read = read_log_scores(log_dir)
    assert [reason for _, reason in read.skipped] == ["status error"]
    agg = aggregate(read.scores)
    off = agg[
        (agg.task == "discourse_markers")
        & (agg.reasoning == "off")
        & (agg.measure == "accuracy")
        & (agg.group == "just-manual")
    ].iloc[0]
    assert off["seeds"] == "0 1" and off["n_seeds"] == 2
    assert off["mean"] == pytest.approx(25.0)  # the failed seed-42 log (90 %) is not in the mean
    messages = coverage_warnings(read.scores)
    assert any("missing seed(s) [42] for task discourse_markers" in m and "reasoning off" in m for m in messages)
    assert "missing task sentence_ordering for model vllm/Qwen/Qwen3-1.7B, reasoning on" in messages
    assert len(messages) == 2


def test_build_report_writes_tables_with_paper_numbers(log_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = build_report(log_dir, out)
    assert sum(issubclass(w.category, ReportWarning) for w in caught) == 3  # 2 coverage + 1 unused log
    cells = report.cells
    cell = cells[(cells.reasoning == "on") & (cells.measure == "accuracy") & (cells.group == "just-manual")].iloc[0]
    # Table 14 (Just-Manual, "definition" prompt), Qwen3-1.7B w/ reasoning: 40.7 ± 4.2
    assert (cell.paper_model, cell.paper_table, cell.paper_mean, cell.paper_std) == ("Qwen3-1.7B", 14, 40.7, 4.2)
    assert cell["diff"] == pytest.approx(33.0 - 40.7)
    # the paper's tok. (Table 14: 1624 w/ reasoning, 3 w/o) is set beside output_tokens, not reasoning_tokens
    tok = cells[(cells.measure == "output_tokens") & (cells.group == "just-manual")].set_index("reasoning")
    assert (tok.loc["on", "paper_mean"], tok.loc["on", "mean"], tok.loc["off", "paper_mean"]) == (1624.0, 524.0, 3.0)
    reasoning = cells[(cells.measure == "reasoning_tokens") & (cells.group == "just-manual")]
    assert reasoning.paper_mean.isna().all() and set(reasoning["mean"]) == {520.0, 0.0}
    so = cells[(cells.task == "sentence_ordering") & (cells.measure == "pmr") & (cells.group == "nips-abs")].iloc[0]
    # Table 34 (NeurIPS abstracts), Qwen3-1.7B w/o reasoning: Pmr 3.7 ± 0.0; ours 10.0
    assert (so.paper_table, so.paper_mean, so["diff"]) == (34, 3.7, pytest.approx(6.3))
    md = (out / "discourse_markers.md").read_text()
    assert "33.0 ± 2.4" in md and "40.7 ± 4.2" in md and "-7.7" in md
    assert "| 0 1 |" in md  # the seeds present for the incomplete run
    assert "missing seed(s) [42]" in (out / "report.md").read_text()
    pngs = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert "discourse_markers__just-manual__prompt-def.png" in pngs
    assert (out / "plots" / pngs[0]).read_bytes()[:4] == b"\x89PNG"


def test_model_names_match_loosely():
    assert paper_model_name("vllm/Qwen/Qwen3-8B") == "Qwen3-8B"
    assert paper_model_name("openai-api/local/qwen3-32b") == "Qwen3-32B"
    assert paper_model_name("openai/gpt-5-mini", "low") == "GPT-5-mini (low)"
    assert paper_model_name("openai/gpt-5-mini", "high") == "GPT-5-mini (high)"
    assert paper_model_name("openai/gpt-5-mini", None) is None
    assert paper_model_name("vllm/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B") == "DS-r1-distill-Qwen"
    assert paper_model_name("mockllm/model") is None


def test_settings_and_groups_match_the_right_paper_table():
    paper = load_paper_results()
    # dialogue parsing: our "incremental" mode is the paper's auto-regressive setting (Table 39, STAC)
    hit = match_paper(
        paper,
        "dialogue_parsing",
        "dataset",
        "stac",
        "dataset=all,mode=incremental,subset=paper",
        "vllm/Qwen/Qwen3-14B",
        "on",
        "",
        "link_f1",
    )
    assert (hit.table, hit["mean"], hit["std"]) == (39, 61.3, 0.5)  # Table 6 prints the std as 0.8
    # temporal reasoning, TDD-Man: the captions of Tables 24 and 25 read as swapped, so the full document is
    # Table 24 and the event sentences Table 25, each hit saying so (TBD keeps its captions: 23 / 22)
    hit = match_paper(
        paper,
        "temporal_reasoning",
        "dataset",
        "tdd-man",
        "context=sentences,dataset=all",
        "vllm/Qwen/Qwen3-32B",
        "off",
        "",
        "micro_f1",
    )
    assert (hit.table, hit["mean"]) == (25, 24.9) and "Tables 24 and 25" in hit.reading_note
    hit = match_paper(
        paper,
        "temporal_reasoning",
        "dataset",
        "tdd-man",
        "context=document,dataset=all",
        "vllm/Qwen/Qwen3-32B",
        "off",
        "",
        "micro_f1",
    )
    assert (hit.table, hit["mean"]) == (24, 27.5) and "Tables 24 and 25" in hit.reading_note
    hit = match_paper(
        paper,
        "temporal_reasoning",
        "dataset",
        "tbd",
        "context=document,dataset=all",
        "vllm/Qwen/Qwen3-32B",
        "off",
        "",
        "micro_f1",
    )
    assert (hit.table, hit["mean"], hit.reading_note) == (23, 27.8, "")
    # DISRPT: framework group (Table 4, reported "w/ reasoning"), language (Table 27), corpus (Table 28)
    hit = match_paper(
        paper, "discourse_relations", "framework", "pdtb", "", "openai/gpt-5-mini", "on", "high", "accuracy"
    )
    assert (hit.table, hit["mean"]) == (4, 47.4)
    hit = match_paper(paper, "discourse_relations", "language", "tha", "", "vllm/Qwen/Qwen3-14B", "on", "", "accuracy")
    assert (hit.table, hit["mean"]) == (27, 55.8)
    hit = match_paper(
        paper, "discourse_relations", "dataset", "deu.pdtb.pcc", "", "vllm/Qwen/Qwen3-8B", "off", "", "accuracy"
    )
    assert (hit.table, hit["mean"], hit["std"]) == (28, 20.6, 0.5)
    # ToT category (Table 26): accuracy grouped by the sample metadata "category"
    hit = match_paper(
        paper,
        "temporal_reasoning",
        "category",
        "tz",
        "context=document,dataset=all",
        "vllm/Qwen/Qwen3-8B",
        "off",
        "",
        "accuracy",
    )
    assert (hit.table, hit["mean"], hit["std"]) == (26, 45.3, 0.7)
    # a prompt style the run does not name: several paper settings, so no guess
    assert (
        match_paper(paper, "discourse_markers", "dataset", "otherwise", "", "vllm/Qwen/Qwen3-8B", "on", "", "accuracy")
        is None
    )


def _bad_files(template: EvalLog, directory: Path, scratch: Path) -> dict[str, Path]:
    """The robustness tester's unreadable files: garbage named .eval, a real log cut in half, junk JSON."""
    garbage = directory / "fake.eval"
    garbage.write_text("garbage\n")
    whole = write_log(
        template, scratch, task="sentence_ordering", model=QWEN, seed=7, reasoning=True, scores={"pmr": {"all": 0.5}}
    )
    data = whole.read_bytes()
    truncated = directory / "2026-01-01T00-00-00-00-00_sentence-ordering_half.eval"
    truncated.write_bytes(data[: len(data) // 2])
    junk = directory / "2026-01-01T00-00-00-00-00_discourse-markers_abc.json"
    junk.write_text('{"version": 2, "status": "success"}')  # AssertionError: Must encounter a 'eval'
    return {"garbage": garbage, "truncated": truncated, "junk": junk}


def test_unreadable_logs_are_skipped_with_a_warning_naming_them(log_dir, template, tmp_path_factory):
    bad = _bad_files(template, log_dir, tmp_path_factory.mktemp("whole"))
    read = read_log_scores(log_dir)
    reasons = {Path(path).name: reason for path, reason in read.skipped}
    for path in bad.values():
        assert reasons[path.name].startswith(UNREADABLE), reasons
    assert "EOCD" in reasons["fake.eval"]
    assert set(read.scores.task) == {"discourse_markers", "sentence_ordering"}  # the rest is still read

    out = tmp_path_factory.mktemp("report")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = build_report(log_dir, out, plots=False)
    warned = "\n".join(str(w.message) for w in caught if issubclass(w.category, ReportWarning))
    assert not report.cells.empty and (out / "discourse_markers.md").exists()
    for text in (
        (out / "warnings.txt").read_text(),
        (out / "report.md").read_text(),
        warned,
        "\n".join(report.warnings),
    ):
        for path in bad.values():
            assert str(path) in text, (path, text)
    # the tables are the same as without the bad files
    cell = report.cells[
        (report.cells.reasoning == "on") & (report.cells.measure == "accuracy") & (report.cells.group == "just-manual")
    ].iloc[0]
    assert cell["mean"] == pytest.approx(33.0) and cell["seeds"] == "0 1 42"


def test_logs_of_other_inspect_tasks_are_skipped_with_a_warning(log_dir, template, tmp_path):
    # a genuinely unrelated task with its own scorers, run for real
    unrelated = Task(
        dataset=[Sample(input="x", target="A")], solver=generate(), scorer=[match(), includes()], name="unrelated"
    )
    [log] = eval(unrelated, model=scripted_model(["A"]), log_dir=str(log_dir), display="none")
    assert log.status == "success"
    # another task that happens to be named like ours, without the BeDiscovER marker
    impostor = write_log(
        template,
        log_dir,
        task="discourse_markers",
        model=QWEN,
        seed=5,
        reasoning=True,
        task_args={"prompt": "def"},
        scores={"accuracy": {"just-manual": 0.99}},
        ours=False,
    )
    read = read_log_scores(log_dir)
    reasons = {Path(path).name: reason for path, reason in read.skipped}
    assert reasons[impostor.name].startswith(NOT_OURS)
    assert reasons[Path(log.location).name].startswith(NOT_OURS) and "'unrelated'" in reasons[Path(log.location).name]
    assert "unrelated" not in set(read.scores.task)
    assert -1 not in set(read.scores.seed) and 5 not in set(read.scores.seed)

    out = tmp_path / "report"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReportWarning)
        report = build_report(log_dir, out, plots=False)
    assert not (out / "unrelated.md").exists()
    cell = report.cells[
        (report.cells.reasoning == "on") & (report.cells.measure == "accuracy") & (report.cells.group == "just-manual")
    ].iloc[0]
    assert cell["seeds"] == "0 1 42" and cell["mean"] == pytest.approx(33.0)  # the impostor's 99 % is not in it
    text = (out / "warnings.txt").read_text()
    assert str(impostor) in text and Path(log.location).name in text and NOT_OURS in text


def test_a_log_in_the_old_one_score_per_measure_layout_is_skipped_with_a_reason(log_dir, template):
    """Session-1 logs had one EvalScore per measure with ``grouped_<group>`` metrics: named, not misread."""
    old = template.model_copy(deep=True)
    old.eval.metadata = {"benchmark": "BeDiscovER", "task": "discourse_markers"}
    old.eval.task = "bediscover_inspect/discourse_markers"
    old.plan.config.seed = 9
    old.results.scores = [
        EvalScore(
            name="accuracy",
            scorer="s",
            metrics={"grouped_just-manual": EvalMetric(name="just-manual", group="grouped", value=0.9)},
        )
    ]
    path = log_dir / "old_layout.eval"
    write_eval_log(old, str(path))
    read = read_log_scores(log_dir)
    reasons = {Path(p).name: reason for p, reason in read.skipped}
    assert reasons["old_layout.eval"].startswith(NO_MEASURES)
    assert 9 not in set(read.scores.seed) and not read.scores.empty


def test_a_log_in_the_old_one_metric_per_scorer_layout_is_skipped_with_a_reason(log_dir, template):
    """Logs of task version 1 had one metric per scorer with entries ``<measure>/<group>``: named, not misread."""
    old = template.model_copy(deep=True)
    old.eval.metadata = {"benchmark": "BeDiscovER", "task": "discourse_markers"}
    old.eval.task = "bediscover_inspect/discourse_markers"
    old.plan.config.seed = 8
    old.results.scores = [
        EvalScore(
            name="s",
            scorer="s",
            metrics={"accuracy/all": EvalMetric(name="accuracy/all", group="discourse_marker_measures", value=0.9)},
        )
    ]
    write_eval_log(old, str(log_dir / "old_v1.eval"))
    reasons = {Path(p).name: reason for p, reason in read_log_scores(log_dir).skipped}
    assert reasons["old_v1.eval"].startswith(NO_MEASURES) and "re-run" in reasons["old_v1.eval"]


def test_the_same_run_from_an_eval_file_and_the_registry_counts_once(template, tmp_path):
    """``inspect eval evals/x.py`` logs task ``x``, ``bediscover run`` logs ``bediscover_inspect/x``: one run."""
    first = write_log(
        template,
        tmp_path,
        task="discourse_markers",
        model=QWEN,
        seed=0,
        reasoning=False,
        task_args={"prompt": "def"},
        scores={"accuracy": {"just-manual": 0.2}},
    )
    second = read_eval_log(str(first))
    second.eval.task = "discourse_markers"
    second.eval.created = "2099-01-01T00:00:00+00:00"
    second.results.scores[0].metrics["accuracy_just-manual"].value = 0.4
    write_eval_log(second, str(tmp_path / "from_eval_file.eval"))
    read = read_log_scores(tmp_path)
    assert list(read.scores["value"]) == [0.4]
    assert [Path(p).name for p, reason in read.skipped if reason.startswith("superseded")] == [first.name]


def test_a_later_smoke_run_never_replaces_a_fuller_run_of_the_same_seed(template, tmp_path):
    """``--limit 5`` after a full run of the same seed: the full run's value is the one reported."""
    full = write_log(
        template,
        tmp_path,
        task="discourse_markers",
        model=QWEN,
        seed=0,
        reasoning=False,
        task_args={"prompt": "def"},
        scores={"accuracy": {"just-manual": 0.2}},
        samples=400,
    )
    smoke = read_eval_log(str(full))
    smoke.eval.created = "2099-01-01T00:00:00+00:00"
    smoke.results.completed_samples = 5
    smoke.results.scores[0].metrics["accuracy_just-manual"].value = 0.8
    write_eval_log(smoke, str(tmp_path / "smoke.eval"))
    read = read_log_scores(tmp_path)
    assert list(read.scores["value"]) == [0.2] and list(read.scores["samples"]) == [400]
    [(path, reason)] = read.skipped
    assert Path(path).name == "smoke.eval" and "covers more samples" in reason and full.name in reason


def test_epochs_do_not_make_a_smoke_run_look_larger(template, tmp_path):
    """3 samples × 2 epochs (6 completed) against 5 samples × 1 epoch: the 5-sample run is the fuller one."""
    full = write_log(
        template,
        tmp_path,
        task="discourse_markers",
        model=QWEN,
        seed=0,
        reasoning=False,
        task_args={"prompt": "def"},
        scores={"accuracy": {"just-manual": 0.2}},
        samples=5,
    )
    smoke = read_eval_log(str(full))
    smoke.eval.created = "2099-01-01T00:00:00+00:00"
    smoke.eval.config.epochs = 2
    smoke.results.completed_samples = 6
    smoke.results.scores[0].metrics["accuracy_just-manual"].value = 0.8
    write_eval_log(smoke, str(tmp_path / "smoke_epochs.eval"))
    read = read_log_scores(tmp_path)
    assert list(read.scores["value"]) == [0.2]
    assert [Path(p).name for p, _ in read.skipped] == ["smoke_epochs.eval"]


def test_samples_column_counts_distinct_samples_not_epochs(template, tmp_path):
    """A run of 3 samples with ``--epochs 2`` (Inspect counts 6 completed) reports 3 samples."""
    path = write_log(
        template,
        tmp_path,
        task="discourse_markers",
        model=QWEN,
        seed=0,
        reasoning=False,
        task_args={"prompt": "def"},
        scores={"accuracy": {"just-manual": 0.2}},
        samples=6,
    )
    log = read_eval_log(str(path))
    log.eval.config.epochs = 2
    log.eval.dataset.sample_ids = log.eval.dataset.sample_ids[:3]  # 3 distinct samples, 6 completed
    write_eval_log(log, str(path))
    assert list(read_log_scores(tmp_path).scores["samples"]) == [3]


def test_samples_column_counts_each_groups_own_samples(template, tmp_path):
    """8 samples over two datasets (ids spread in turn: 4 + 4, then 2 more given to one): each dataset row shows
    its own count, the overall row the sum; a group the header cannot count is left empty."""
    path = write_log(
        template,
        tmp_path,
        task="discourse_markers",
        model=QWEN,
        seed=0,
        reasoning=False,
        task_args={"prompt": "def"},
        scores={"accuracy": {"just-manual": 0.5, "otherwise": 0.25, "all": 0.4}},
        samples=8,
    )
    log = read_eval_log(str(path))
    log.eval.dataset.sample_ids = [f"just-manual_{i}" for i in range(3)] + [f"otherwise_{i}" for i in range(5)]
    write_eval_log(log, str(path))
    scores = read_log_scores(tmp_path).scores
    assert dict(zip(scores["group"], scores["samples"])) == {"just-manual": 3, "otherwise": 5, "all": 8}
    cells = aggregate(scores)
    assert dict(zip(cells["group"], cells["samples"])) == {"just-manual": "3", "otherwise": "5", "all": "8"}


def test_group_samples_of_the_relation_scorer_and_disrpt_groups():
    from bediscover_inspect.evallogs.scores import group_samples

    counts = {"tbd": 2, "tdd-man": 3, "tot-arithmetic": 4}
    # temporal reasoning's relation scorer scores TBD and TDD-Man only: its overall row holds 2 + 3
    assert group_samples(counts, ["tbd", "tdd-man"], 9, "all", "all") == 5
    assert group_samples(counts, ["tot-arithmetic"], 9, "dataset", "tot-arithmetic") == 4
    assert group_samples(counts, ["tot-arithmetic"], 9, "category", "as") is None  # not in the header
    corpora = {"eng.pdtb.gum": 2, "eng.rst.gum": 3, "deu.pdtb.pcc": 7}
    assert group_samples(corpora, list(corpora), 12, "framework", "pdtb") == 9
    assert group_samples(corpora, list(corpora), 12, "language", "eng") == 5
    assert group_samples({}, [], 12, "all", "all") == 12 and group_samples({}, [], 12, "dataset", "x") is None


def test_intervals_stay_inside_the_measures_range():
    """A rate's 95 % interval is clipped to [0, 100] %, Kendall's τ's to [−100, 100], a token count's at 0 (mean ∓
    1.96 se by hand)."""
    import pandas as pd

    rows = [
        # measure, value, stderr: invalid 2 % ± 5 -> [-7.8, 11.8] clipped low; pmr 99 % ± 5 -> [89.2, 108.8] clipped
        # high; 40 output tokens ± 24 -> [-7.0, 87.0] clipped at 0
        ("invalid", 0.02, 0.05),
        ("pmr", 0.99, 0.05),
        ("output_tokens", 40.0, 24.0),
        # τ −9.4 ± 3.3 (×100) -> [−15.868, −2.932]: below 0, inside τ's range, kept; τ −0.95 ± 0.05 -> [−104.8,
        # −85.2] clipped at −100
        ("kendall_tau", -0.094, 0.033),
    ]
    scores = pd.DataFrame(
        [
            {
                "log": "a.eval",
                "task": "sentence_ordering",
                "model": "m",
                "reasoning": "off",
                "variant": "",
                "seed": 0,
                "reasoning_effort": "",
                "samples": 10,
                "scorer": "sentence_ordering_scorer",
                "measure": measure,
                "group_key": "all",
                "group": "all",
                "value": value,
                "stderr": stderr,
            }
            for measure, value, stderr in rows
        ]
    )
    cells = aggregate(scores).set_index("measure")
    assert cells.loc["invalid", "ci95_low"] == 0.0
    assert cells.loc["invalid", "ci95_high"] == pytest.approx(2 + 1.959964 * 5, abs=1e-4)
    assert cells.loc["pmr", "ci95_low"] == pytest.approx(99 - 1.959964 * 5, abs=1e-4)
    assert cells.loc["pmr", "ci95_high"] == 100.0
    assert cells.loc["output_tokens", "ci95_low"] == 0.0
    assert cells.loc["output_tokens", "ci95_high"] == pytest.approx(40 + 1.959964 * 24, abs=1e-4)
    assert cells.loc["kendall_tau", "ci95_low"] == pytest.approx(-9.4 - 1.959964 * 3.3, abs=1e-4)  # -15.868
    assert cells.loc["kendall_tau", "ci95_high"] == pytest.approx(-9.4 + 1.959964 * 3.3, abs=1e-4)  # -2.932
    reversed_tau = aggregate(scores.assign(value=-0.95, stderr=0.05)).set_index("measure")
    assert reversed_tau.loc["kendall_tau", "ci95_low"] == -100.0
    assert reversed_tau.loc["kendall_tau", "ci95_high"] == pytest.approx(-95 + 1.959964 * 5, abs=1e-4)


def test_each_task_table_leads_with_its_headline_measures():
    """Sentence ordering: PMR, then the paper's other ordering measures, before invalid, echo and tokens; temporal
    reasoning: micro-F1 (relations) before the ToT scorer's accuracy-only measures."""
    from bediscover_inspect.measures import measure_order

    so = ["invalid", "echo", "output_tokens", "reasoning_tokens", "pmr", "acc", "lumr", "skip", "lcs", "kendall_tau"]
    assert measure_order(so, ["bediscover_inspect/sentence_ordering_scorer"]) == [
        "pmr",
        "acc",
        "lcs",
        "kendall_tau",
        "lumr",
        "skip",
        "output_tokens",
        "reasoning_tokens",
        "invalid",
        "echo",
    ]
    tr = ["invalid", "accuracy", "weighted_f1", "micro_f1"]
    assert measure_order(tr, ["relation_scorer", "tot_scorer"]) == ["micro_f1", "weighted_f1", "accuracy", "invalid"]


def test_markdown_cells_escape_pipes_and_line_breaks():
    import pandas as pd

    from bediscover_inspect.report.render import markdown

    table = pd.DataFrame(
        {"group": ["a|b", "two\nlines", "cr\rlf\r\nend", "back\\|slash"], "value": [1.5, float("nan"), 2.0, 3.0]}
    )
    assert markdown(table).splitlines() == [
        "| group | value |",
        "|---|---|",
        "| a\\|b | 1.5 |",
        "| two lines |  |",
        "| cr lf end | 2.0 |",
        "| back\\\\\\|slash | 3.0 |",
    ]


def test_tdd_man_is_compared_with_the_swapped_tables_and_the_report_says_so(template, tmp_path):
    """Full-document TDD-Man (context=document) is Table 24, event sentences Table 25 (captions read as swapped);
    the cell carries the note, the task table a "paper note" column, report.md a line; TBD cells carry none."""
    for context, value in (("document", 0.30), ("sentences", 0.20)):
        write_log(
            template,
            tmp_path / "logs",
            task="temporal_reasoning",
            model="vllm/Qwen/Qwen3-14B",
            seed=0,
            reasoning=True,
            task_args={"context": context},
            scores={"micro_f1": {"tdd-man": value, "tbd": value}},
            name=f"tr_{context}.eval",
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReportWarning)
        report = build_report(tmp_path / "logs", tmp_path / "out", plots=False)
    cells = report.cells[report.cells.measure == "micro_f1"].set_index(["group", "variant"])
    document, sentences = cells.loc[("tdd-man", "context=document")], cells.loc[("tdd-man", "context=sentences")]
    assert (document.paper_table, document.paper_mean) == (24, 29.5)  # = Table 3's TDD-Man, Qwen3-14B
    assert (sentences.paper_table, sentences.paper_mean) == (25, 24.0)
    assert "Tables 24 and 25 are read as swapped" in document.paper_note
    assert cells.loc[("tbd", "context=document"), "paper_table"] == 23
    assert cells.loc[("tbd", "context=document"), "paper_note"] == ""
    md = (tmp_path / "out" / "temporal_reasoning.md").read_text()
    assert "| paper note |" in md.splitlines()[2]
    assert "| TDD-Man: Tables 24/25 read with their captions swapped (see Notes) |" in md
    assert (
        "- where the paper is ambiguous: TDD-Man: the captions of Tables 24 and 25 are read as swapped"
        in (tmp_path / "out" / "report.md").read_text()
    )


def test_a_rate_of_nothing_is_undefined_in_the_report_never_zero():
    """msdc read no relation in either seed: its ``invalid_rate`` is NaN and the table says "undefined"; stac read
    relations in seed 0 (25 % invalid) but none in seed 1: no mean over the one seed that has a rate."""
    import pandas as pd

    from bediscover_inspect.report.render import UNDEFINED, task_table

    rows = [("msdc", 0, float("nan")), ("msdc", 1, float("nan")), ("stac", 0, 0.25), ("stac", 1, float("nan"))]
    scores = pd.DataFrame(
        [
            {
                "log": f"{seed}.eval",
                "task": "dialogue_parsing",
                "model": "m",
                "reasoning": "off",
                "variant": "",
                "seed": seed,
                "reasoning_effort": "",
                "samples": 2,
                "scorer": "dialogue_parsing_scorer",
                "measure": "invalid_rate",
                "group_key": "dataset",
                "group": group,
                "value": value,
                "stderr": float("nan"),
            }
            for group, seed, value in rows
        ]
    )
    cells = aggregate(scores)
    assert cells["mean"].isna().all()
    table = task_table(cells.assign(paper_mean=float("nan"), paper_model="", paper_table=float("nan")))
    assert list(table["invalid_rate"]) == [UNDEFINED, UNDEFINED] and UNDEFINED == "undefined (nothing counted)"
