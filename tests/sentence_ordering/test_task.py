"""Task (4) end to end on the real nips-abs file: prompt, counts, gold run, garbage answers, missing data."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from inspect_ai import eval as inspect_eval

from bediscover_inspect.metrics import measures_by_group
from bediscover_inspect.data import DataFileMissingError
from bediscover_inspect.sentence_ordering.prompts import SYSTEM_PROMPT
from bediscover_inspect.sentence_ordering.task import record_to_sample, sentence_ordering
from tests.conftest import REPO_ROOT
from tests.helpers import answer_with, scripted_model


def metric(log, score_name: str, group: str) -> float:
    return measures_by_group(log)[score_name][group]


def test_prompt_of_first_record(data_root):
    line = (data_root / "so" / "nips-abs" / "test_id.jsonl").read_text().splitlines()[0]
    record = json.loads(line)
    sample = record_to_sample(record, "nips-abs")
    lines = sample.input[-1].text.split("\n")
    assert len(lines) == len(record["shuf_sents"])
    assert lines[0] == f"<s 1> {record['shuf_sents'][0]} </s 1>"
    assert lines[-1] == f"<s {len(lines)}> {record['shuf_sents'][-1]} </s {len(lines)}>"
    assert sample.id == "nips-abs_0"
    assert sample.target == " ".join(f"<s {int(i) + 1}>" for i in record["shuf_idx"])
    assert SYSTEM_PROMPT.startswith("A conversation between User and Assistant. The User provides a list of shuffled")
    assert SYSTEM_PROMPT.endswith("Do not include any sentence content. Do not repeat or modify any sentence tags.")


def test_gold_run_scores_one_on_all_377(tmp_path):
    task = sentence_ordering(datasets="nips-abs")
    assert len(task.dataset) == 377
    [log] = inspect_eval(task, model="mockllm/model", solver=answer_with(lambda s: s.target.text),
                         display="none", log_dir=str(tmp_path))
    assert log.status == "success"
    assert log.results.completed_samples == 377
    for name in ("pmr", "acc", "lcs", "skip", "kendall_tau"):
        assert metric(log, name, "nips-abs") == 1.0, name
    assert metric(log, "lumr", "nips-abs") == 0.0
    assert metric(log, "invalid", "all") == 0.0


def test_doc_235_identical_sentences(data_root, tmp_path):
    record = json.loads((data_root / "so" / "nips-abs" / "test_id.jsonl").read_text().splitlines()[235])
    assert record["id"] == 235 and record["shuf_idx"].count("7") == 2 and "14" not in record["shuf_idx"]
    sample = record_to_sample(record, "nips-abs")
    # the model names the other copy ("? )" sits at shuffled 7 and 14) where the gold repeats 7
    order = [int(i) for i in record["shuf_idx"]]
    second = order.index(7, order.index(7) + 1)
    order[second] = 14
    answer = " ".join(f"<s {i + 1}>" for i in order)
    task = sentence_ordering(datasets="nips-abs")
    [log] = inspect_eval(task, model="mockllm/model", solver=answer_with(lambda s: answer),
                         sample_id=sample.id, display="none", log_dir=str(tmp_path))
    assert log.results.completed_samples == 1
    assert metric(log, "pmr", "nips-abs") == 1.0


def test_garbage_answers_are_invalid_and_counted(tmp_path):
    answers = ["no idea", "<s 2> <s 1>", "", "sentence one then two"] * 5
    task = sentence_ordering(datasets="nips-abs")
    [log] = inspect_eval(task, model=scripted_model(answers), limit=20, display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.results.completed_samples == 20
    assert metric(log, "invalid", "nips-abs") == pytest.approx(15 / 20)
    assert metric(log, "lumr", "nips-abs") >= 15 / 20


def test_scripted_mock_scores_377_samples(tmp_path):
    task = sentence_ordering(datasets="nips-abs")
    [log] = inspect_eval(task, model=scripted_model(lambda messages: "<s 1> <s 2>"),
                         display="none", log_dir=str(tmp_path))
    assert log.results.total_samples == 377 and log.results.completed_samples == 377
    assert log.eval.metadata["data"]["nips-abs"]["verified"] is True


def test_missing_dataset_names_file_and_sha(data_root):
    with pytest.raises(DataFileMissingError) as err:
        sentence_ordering(datasets="roc", data_dir=str(data_root))
    message = str(err.value)
    assert "so/roc/test_id.jsonl" in message and "8306eae8296f58f2dc356abed8d64b4345cdda85" in message
    assert "BEDISCOVER_DATA_DIR" in message and "data_dir" in message


def test_bad_dataset_name():
    with pytest.raises(ValueError, match="nips-abs"):
        sentence_ordering(datasets="nips")


def test_cli_missing_dataset_exits_nonzero(data_root, tmp_path):
    env = os.environ | {"BEDISCOVER_DATA_DIR": str(data_root)}
    proc = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "evals/sentence_ordering.py", "-T", "datasets=roc",
         "--model", "mockllm/model", "--log-dir", str(tmp_path), "--display", "plain"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode != 0
    assert "so/roc/test_id.jsonl" in proc.stdout + proc.stderr


@pytest.mark.parametrize("record, message", [
    ({"id": 1, "shuf_sents": [], "shuf_idx": []}, "non-empty list"),
    ({"id": 1, "shuf_sents": ["a", 2], "shuf_idx": ["0", "1"]}, "non-empty strings"),
    ({"id": 1, "shuf_sents": ["a", "b"], "shuf_idx": ["0", 1.9]}, "must hold integers"),
    ({"id": 1, "shuf_sents": ["a", "b"], "shuf_idx": [True, "0"]}, "must hold integers"),
    ({"id": 1, "shuf_sents": ["a", "b"], "shuf_idx": ["0", "2"]}, "2 indices into 'shuf_sents'"),
])
def test_bad_records_name_file_record_and_field(record, message):
    from bediscover_inspect.data import DataFormatError

    with pytest.raises(DataFormatError, match=r"x.jsonl, record 4 \(id=1\)") as err:
        record_to_sample(record, "nips-abs", "x.jsonl", 4)
    assert message in str(err.value)
