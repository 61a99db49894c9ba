"""Task (4) end to end on the real nips-abs file: prompt, counts, gold run, garbage answers, missing data, the log."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest

from bediscover_inspect.data import DataFileMissingError
from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.measures import SCORERS
from bediscover_inspect.sentence_ordering.dataset import DATASETS, load_dataset, record_to_sample
from bediscover_inspect.sentence_ordering.prompts import SYSTEM_PROMPT
from bediscover_inspect.sentence_ordering.task import sentence_ordering
from bediscover_inspect.task_skeleton import VERSION
from tests.conftest import REPO_ROOT
from tests.helpers import answer_with, run_eval, scripted_model

MEASURES = list(SCORERS["sentence_ordering_scorer"].measures)
"""The scorer's measures in the order of its metrics (Tables 32–38: Acc, Lumr, Pmr, Skip, Lcs, tok.; then τ)."""


def row(log, measure: str, group: str) -> dict:
    """The one result row of ``measure`` for ``group`` (``"all"`` = over every sample) in the log."""
    [found] = [
        r
        for r in read_results(log)
        if r["measure"] == measure
        and r["group"] == group
        and r["group_key"] == ("all" if group == "all" else "dataset")
    ]
    return found


def metric(log, measure: str, group: str) -> float:
    return row(log, measure, group)["value"]


def test_prompt_of_first_record(data_root):
    line = (data_root / "so" / "nips-abs" / "test_id.jsonl").read_text().splitlines()[0]
    record = json.loads(line)
    sample = record_to_sample(record, "nips-abs")
    lines = sample.input.split("\n")
    assert len(lines) == len(record["shuf_sents"])
    assert lines[0] == f"<s 1> {record['shuf_sents'][0]} </s 1>"
    assert lines[-1] == f"<s {len(lines)}> {record['shuf_sents'][-1]} </s {len(lines)}>"
    assert sample.id == "nips-abs_0"
    assert sample.target == " ".join(f"<s {int(i) + 1}>" for i in record["shuf_idx"])
    assert SYSTEM_PROMPT.startswith("A conversation between User and Assistant. The User provides a list of shuffled")
    assert SYSTEM_PROMPT.endswith("Do not include any sentence content. Do not repeat or modify any sentence tags.")


@pytest.mark.slow
def test_gold_run_scores_one_on_all_377(tmp_path):
    task = sentence_ordering(dataset="nips-abs")
    assert len(task.dataset) == 377
    [log] = run_eval(
        task, model="mockllm/model", solver=answer_with(lambda s: s.target.text), display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success"
    assert log.results.completed_samples == 377
    for name in ("pmr", "acc", "lcs", "skip", "kendall_tau"):
        assert metric(log, name, "nips-abs") == 1.0, name
        assert metric(log, name, "all") == 1.0, name
    assert metric(log, "lumr", "nips-abs") == 0.0
    assert metric(log, "invalid", "all") == 0.0
    for name in ("pmr", "acc", "lcs", "skip", "lumr", "invalid"):  # every document the same: no spread
        assert row(log, name, "nips-abs")["stderr"] == 0.0, name
    assert row(log, "kendall_tau", "nips-abs")["stderr"] == pytest.approx(0.0, abs=1e-12)


def test_doc_235_identical_sentences(data_root, tmp_path):
    record = json.loads((data_root / "so" / "nips-abs" / "test_id.jsonl").read_text().splitlines()[235])
    assert record["id"] == 235 and record["shuf_idx"].count("7") == 2 and "14" not in record["shuf_idx"]
    sample = record_to_sample(record, "nips-abs")
    # the model names the other copy ("? )" sits at shuffled 7 and 14) where the gold repeats 7
    order = [int(i) for i in record["shuf_idx"]]
    second = order.index(7, order.index(7) + 1)
    order[second] = 14
    answer = " ".join(f"<s {i + 1}>" for i in order)
    task = sentence_ordering(dataset="nips-abs")
    [log] = run_eval(
        task,
        model="mockllm/model",
        solver=answer_with(lambda s: answer),
        sample_id=sample.id,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.results.completed_samples == 1
    assert metric(log, "pmr", "nips-abs") == 1.0


def test_garbage_answers_are_invalid_and_counted(tmp_path):
    answers = ["no idea", "<s 2> <s 1>", "", "sentence one then two"] * 5
    task = sentence_ordering(dataset="nips-abs")
    [log] = run_eval(task, model=scripted_model(answers), limit=20, display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.results.completed_samples == 20
    assert metric(log, "invalid", "nips-abs") == pytest.approx(15 / 20)
    assert metric(log, "lumr", "nips-abs") >= 15 / 20


@pytest.mark.slow
def test_scripted_mock_scores_377_samples(tmp_path):
    task = sentence_ordering(dataset="nips-abs")
    [log] = run_eval(task, model=scripted_model(lambda messages: "<s 1> <s 2>"), display="none", log_dir=str(tmp_path))
    assert log.results.total_samples == 377 and log.results.completed_samples == 377
    assert log.eval.metadata["data"]["so/nips-abs/test_id.jsonl"]["verified"] is True


def test_missing_dataset_names_file_and_sha(data_root):
    with pytest.raises(DataFileMissingError) as err:
        sentence_ordering(dataset="roc", data_dir=str(data_root))
    message = str(err.value)
    assert "so/roc/test_id.jsonl" in message and "8306eae8296f58f2dc356abed8d64b4345cdda85" in message
    assert "BEDISCOVER_DATA_DIR" in message and "data_dir" in message


def test_bad_dataset_name():
    with pytest.raises(ValueError, match="nips-abs"):
        sentence_ordering(dataset="nips")


@pytest.mark.slow
def test_cli_missing_dataset_exits_nonzero(data_root, tmp_path):
    env = os.environ | {"BEDISCOVER_DATA_DIR": str(data_root)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "inspect_ai",
            "eval",
            "evals/sentence_ordering.py",
            "-T",
            "dataset=roc",
            "--model",
            "mockllm/model",
            "--log-dir",
            str(tmp_path),
            "--display",
            "plain",
        ],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode != 0
    assert "so/roc/test_id.jsonl" in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "record, message",
    [
        ({"id": 1, "shuf_sents": [], "shuf_idx": []}, "non-empty list"),
        ({"id": 1, "shuf_sents": ["a", 2], "shuf_idx": ["0", "1"]}, "non-empty strings"),
        ({"id": 1, "shuf_sents": ["a", "b"], "shuf_idx": ["0", 1.9]}, "must hold integers"),
        ({"id": 1, "shuf_sents": ["a", "b"], "shuf_idx": [True, "0"]}, "must hold integers"),
        ({"id": 1, "shuf_sents": ["a", "b"], "shuf_idx": ["0", "2"]}, "2 indices into 'shuf_sents'"),
    ],
)
def test_bad_records_name_file_record_and_field(record, message):
    from bediscover_inspect.data import DataFormatError

    with pytest.raises(DataFormatError, match=r"x.jsonl, record 4 \(id=1\)") as err:
        record_to_sample(record, "nips-abs", "x.jsonl", 4)
    assert message in str(err.value)


def test_log_layout_version_and_metadata(tmp_path):
    """Task version, resolved parameters, every measure with its standard error overall and per dataset, in the
    column order of Tables 32–38."""
    task = sentence_ordering(dataset="nips-abs")
    [log] = run_eval(
        task, model=scripted_model(lambda messages: "<s 2> <s 1>"), limit=5, display="none", log_dir=str(tmp_path)
    )
    assert log.eval.task_version == VERSION == 2
    assert log.eval.metadata["parameters"] == {
        "dataset": ["nips-abs"],
        "subset": "paper",
        "data_dir": None,
        "reasoning": False,
        "presets": "auto",
        "per_dataset": None,
    }
    assert log.eval.metadata["absent"] == {}
    [score] = log.results.scores  # one results view: no epoch reduction
    # the headline first, named, with its standard error under "stderr": the header of inspect view
    assert list(score.metrics)[:4] == ["pmr", "stderr", "pmr_nips-abs", "pmr_stderr_nips-abs"]
    overall = [name for name, entry in score.metrics.items() if "group_key" not in (entry.params or {})]
    assert overall == ["pmr", "stderr"] + [entry for m in MEASURES if m != "pmr" for entry in (m, m + "_stderr")]
    rows = read_results(log)
    assert sorted((r["measure"], r["group"]) for r in rows) == sorted(
        (m, g) for m in MEASURES for g in ("all", "nips-abs")
    )
    assert all(r["stderr"] == r["stderr"] for r in rows)  # no NaN: every measure logged its standard error


def test_evals_df_gives_every_measure_with_its_standard_error(tmp_path):
    """``inspect_ai.analysis.evals_df`` (needs pyarrow, a dependency) reads the log's measures as columns."""
    from inspect_ai.analysis import evals_df

    task = sentence_ordering(dataset="nips-abs")
    [log] = run_eval(
        task, model=scripted_model(lambda messages: "<s 2> <s 1>"), limit=3, display="none", log_dir=str(tmp_path)
    )
    frame = evals_df(str(tmp_path), quiet=True)
    assert len(frame) == 1
    [score] = log.results.scores
    # the headline is PMR with its standard error (the entry named "stderr", which evals_df reads)
    assert frame["score_headline_metric"].iloc[0] == "pmr"
    assert frame["score_headline_value"].iloc[0] == score.metrics["pmr"].value
    assert frame["score_headline_stderr"].iloc[0] == score.metrics["stderr"].value
    for measure in ("pmr", "acc", "lcs", "kendall_tau", "invalid"):
        stderr = "stderr" if measure == "pmr" else f"{measure}_stderr"
        for entry in (measure, stderr, f"{measure}_nips-abs", f"{measure}_stderr_nips-abs"):
            column = f"score_sentence_ordering_scorer_{entry}"
            assert frame[column].iloc[0] == pytest.approx(score.metrics[entry].value, nan_ok=True), column


def test_logged_measures_equal_hand_computed_values(tmp_path):
    """Six documents answered right, reversed or with no marker: micro Acc / LCS, means and standard errors."""
    import numpy as np

    from bediscover_inspect.sentence_ordering import ordering_metrics as om

    task = sentence_ordering(dataset="nips-abs")
    docs = list(task.dataset)[:6]
    position = {doc.id: k for k, doc in enumerate(docs)}

    def answer(state):
        order, k = state.metadata["gold_order"], position[state.sample_id]
        if k % 3 == 2:
            return "no idea"
        return " ".join(f"<s {i + 1}>" for i in (order if k % 3 == 0 else reversed(order)))

    [log] = run_eval(
        task, model="mockllm/model", solver=answer_with(answer), limit=6, display="none", log_dir=str(tmp_path)
    )
    golds = [s.metadata["gold_order"] for s in docs]
    preds = [g if k % 3 == 0 else g[::-1] if k % 3 == 1 else [] for k, g in enumerate(golds)]
    n = np.array([len(g) for g in golds], dtype=float)
    correct = np.array([om.correct_positions(g, p) for g, p in zip(golds, preds, strict=True)], dtype=float)
    lcs = np.array([om.longest_common_subsequence(g, p) for g, p in zip(golds, preds, strict=True)], dtype=float)
    pmr = np.array([om.perfect_match(g, p) for g, p in zip(golds, preds, strict=True)], dtype=float)
    tau = np.array([om.kendall_tau(g, p) for g, p in zip(golds, preds, strict=True)])
    assert metric(log, "acc", "all") == pytest.approx(correct.sum() / n.sum(), abs=1e-12)
    assert metric(log, "lcs", "nips-abs") == pytest.approx(lcs.sum() / n.sum(), abs=1e-12)
    assert metric(log, "pmr", "all") == pytest.approx(2 / 6)
    assert row(log, "pmr", "all")["stderr"] == pytest.approx(np.std(pmr, ddof=1) / np.sqrt(6), abs=1e-12)
    assert metric(log, "kendall_tau", "all") == pytest.approx(tau.mean(), abs=1e-12)
    assert metric(log, "invalid", "all") == pytest.approx(2 / 6)
    assert metric(log, "lumr", "all") == pytest.approx(2 / 6)
    # bootstrap standard error of micro Acc: 1000 resamples of the six documents, numpy seed 0
    draws = np.random.default_rng(0).integers(0, 6, size=(1000, 6))
    resampled = np.array([correct[d].sum() / n[d].sum() for d in draws])
    assert row(log, "acc", "all")["stderr"] == pytest.approx(float(np.std(resampled)), abs=1e-12)
    assert 0 < row(log, "acc", "all")["stderr"] < 0.5


def test_default_selection_skips_absent_datasets_with_a_warning(caplog):
    """With ``dataset=all`` the mirror's one file loads; the six absent ones are skipped, warned and recorded."""
    with caplog.at_level(logging.WARNING):
        loaded = load_dataset("all")
    absent = [name for name in DATASETS if name != "nips-abs"]
    assert loaded.datasets == ["nips-abs"] and len(loaded.dataset) == 377
    assert list(loaded.files.absent) == absent
    assert set(loaded.files.absent.values()) == {"not in this data root"}
    [warning] = [r.getMessage() for r in caplog.records if "absent and skipped" in r.getMessage()]
    assert all(name in warning for name in absent)
    task = sentence_ordering()
    assert task.metadata["absent"] == loaded.files.absent
    assert task.metadata["parameters"]["dataset"] == ["nips-abs"]


def test_an_explicitly_named_absent_dataset_is_one_clear_error(data_root):
    with pytest.raises(DataFileMissingError) as err:
        sentence_ordering(dataset="aan-abstract", data_dir=str(data_root))
    message = str(err.value)
    assert "so/aan-abstract/test_id.jsonl" in message and "6b581452bed3aeef16473d01ae1d5163c975654b" in message
    assert "BEDISCOVER_DATA_DIR" in message
    with pytest.raises(DataFileMissingError) as err:  # several named: one error listing every absent file
        sentence_ordering(dataset="nips-abs,roc,nsf", data_dir=str(data_root))
    message = str(err.value)
    assert "2 BeDiscovER data files not found" in message
    assert "so/roc/test_id.jsonl" in message and "so/nsf/test_id.jsonl" in message
    assert "so/nips-abs/test_id.jsonl" not in message


def test_epochs_pool_every_answer(tmp_path):
    """--epochs 2, right then wrong answer per document: each (document, epoch) is one observation, so the micro
    Acc and LCS sum both epochs' counts and PMR is 0.5."""
    calls: dict[str, int] = {}
    task = sentence_ordering(dataset="nips-abs")
    gold = {s.input: s.target for s in task.dataset}

    def right_then_wrong(messages):
        text = messages[-1].text
        calls[text] = calls.get(text, 0) + 1
        return gold[text] if calls[text] == 1 else "no markers"

    [log] = run_eval(
        task,
        model=scripted_model(right_then_wrong),
        limit=3,
        epochs=2,
        display="none",
        log_dir=str(tmp_path),
        max_connections=1,
    )
    assert metric(log, "acc", "all") == metric(log, "pmr", "all") == metric(log, "lcs", "all") == 0.5
    assert metric(log, "invalid", "nips-abs") == 0.5
