"""Runs that are not the paper's setting: marked per cell (``differs``), listed in warnings.txt, saying what differs.

Synthetic logs cover each case alone; real suite logs (discourse markers and DISRPT with a scripted model) cover
``--limit`` with ``--max-tokens``, a data file whose SHA-1 is not the pinned one, ``subset=full`` on a corpus the
paper subsamples, and seeds that scored different samples.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pytest

from bediscover_inspect.data import REGISTRY
from bediscover_inspect.discourse_markers.task import discourse_markers
from bediscover_inspect.evallogs.scores import ReportWarning, read_log_scores
from bediscover_inspect.report.build import build_report
from bediscover_inspect.report.setting import generation_differences, log_differences
from tests.helpers import run_eval, scripted_model
from tests.report.test_tables import write_log

QWEN8 = "vllm/Qwen/Qwen3-8B"
JUST = "dm/just/test_id.json"


def _pinned(path: str, used: int, **changes) -> dict:
    info = REGISTRY[path]
    return {
        "path": path,
        "expected_sha1": info.sha1,
        "actual_sha1": info.sha1,
        "verified": True,
        "records_full": info.records,
        "records_used": used,
    } | changes


def _report(log_dir: Path, out: Path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReportWarning)
        return build_report(log_dir, out, plots=False, **kwargs)


def _differs(report, group: str = "just-manual", reasoning: str = "on") -> str:
    cells = report.cells
    rows = cells[(cells.group == group) & (cells.reasoning == reasoning) & (cells.measure == "accuracy")]
    assert len(rows) == 1, rows
    return rows.iloc[0]["differs"]


def _dm_log(template, directory: Path, seed: int = 0, **kwargs) -> Path:
    return write_log(
        template,
        directory,
        task="discourse_markers",
        model=QWEN8,
        seed=seed,
        reasoning=True,
        task_args={"prompt": "basic"},
        scores={"accuracy": {"just-manual": 0.5, "all": 0.5}},
        name=f"dm_{seed}_{len(list(directory.iterdir()))}.eval",
        **kwargs,
    )


def test_a_run_in_the_paper_setting_differs_in_nothing(template, tmp_path):
    for seed in (0, 1, 42):
        _dm_log(template, tmp_path, seed, samples=533, metadata={"data": {JUST: _pinned(JUST, 239)}})
    report = _report(tmp_path, tmp_path / "out")
    assert _differs(report) == ""
    assert report.cells["differs"].eq("").all()
    assert (tmp_path / "out" / "warnings.txt").read_text() == ""


def test_limit_is_marked_in_the_table_and_listed_with_what_differs(template, tmp_path):
    _dm_log(template, tmp_path, samples=2, dataset_samples=533, limit=2)
    report = _report(tmp_path, tmp_path / "out")
    assert _differs(report) == "samples: 2 of 533 scored (--limit 2), 2 of them just-manual"
    md = (tmp_path / "out" / "discourse_markers.md").read_text()
    assert "| differs |" in md.splitlines()[2] and "samples: 2 of 533 scored (--limit 2), 2 of them just-manual" in md
    [line] = (tmp_path / "out" / "warnings.txt").read_text().splitlines()
    assert line.startswith(
        "not the paper's setting, yet compared with it (1 cells): task discourse_markers, "
        "model vllm/Qwen/Qwen3-8B, reasoning on, prompt=basic"
    )
    assert line.endswith(": samples: 2 of 533 scored (--limit 2), 2 of them just-manual")
    assert line in report.warnings


def test_generate_config_other_than_table_7(template, tmp_path):
    _dm_log(template, tmp_path, generate={"max_tokens": 256, "temperature": 0.6, "top_p": 0.95})
    assert _differs(_report(tmp_path, tmp_path / "out")) == "max_tokens 256 (Table 7: 4096)"


def test_table_7_rows_per_model_family():
    qwen_on = {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95}
    assert generation_differences(qwen_on, "Qwen3-8B", "on", "discourse_markers") == []
    assert generation_differences(qwen_on, "Qwen3-8B", "off", "discourse_markers") == [
        "max_tokens 4096 (Table 7: 2048)",
        "temperature 0.6 (Table 7: 0.7)",
        "top_p 0.95 (Table 7: 0.8)",
    ]
    # DeepSeek: Table 7 sets no temperature / top-p ("-"); the Qwen3 presets sent to it are a difference
    assert generation_differences(qwen_on, "DeepSeek-r1-0528", "on", "discourse_markers") == [
        "temperature 0.6 (Table 7: not set)",
        "top_p 0.95 (Table 7: not set)",
    ]
    assert generation_differences({"max_tokens": 4096}, "DeepSeek-r1-0528", "on", "temporal_reasoning") == []
    # the higher max_new_tokens of the range is Table 7's caption's dialogue-parsing budget
    assert generation_differences({"max_tokens": 16384}, "DeepSeek-r1-0528", "on", "dialogue_parsing") == []
    assert generation_differences({"max_tokens": 16384}, "DeepSeek-r1-0528", "on", "discourse_markers") == [
        "max_tokens 16384 (Table 7: 4096)"
    ]
    assert (
        generation_differences({"max_tokens": 8192, "verbosity": "low"}, "GPT-5-mini (high)", "on", "sentence_ordering")
        == []
    )
    assert generation_differences({"max_tokens": 4096}, "GPT-5-mini (low)", "on", "sentence_ordering") == [
        "verbosity not set (Table 7: low)"
    ]
    # no paper model: max_tokens is checked against every model's row of the mode (off: Qwen3 2048, GPT-5-mini low
    # 4096 and high 8192, whose rows apply in either mode; on: 4096 and GPT-5-mini high's 8192); nothing else is
    assert generation_differences({}, None, "on", "discourse_markers") == [
        "max_tokens not set (Table 7, any model: 4096 or 8192)"
    ]
    assert generation_differences({"max_tokens": 256}, None, "off", "sentence_ordering") == [
        "max_tokens 256 (Table 7, any model: 2048 or 4096 or 8192)"
    ]
    assert generation_differences({"max_tokens": 16384}, None, "on", "dialogue_parsing") == []  # DeepSeek-r1's range
    assert generation_differences({"max_tokens": 2048, "temperature": 1.5}, None, "off", "discourse_markers") == []


def test_unverified_data_and_records_other_than_the_paper_subset(template, tmp_path):
    scidtb = "dr/disrpt25/eng.dep.scidtb/test_id.json"  # the paper takes int(0.1 × 1910) = 191 records
    data = {
        JUST: _pinned(JUST, 239, actual_sha1="0123456789abcdef", verified=False),
        "dm/otherwise/test_id.json": _pinned("dm/otherwise/test_id.json", 294),
    }
    _dm_log(template, tmp_path, metadata={"data": data})
    assert _differs(_report(tmp_path, tmp_path / "out")) == (
        "data dm/just/test_id.json: SHA-1 0123456789 is not the pinned 7c573e2081"
    )
    run = {
        "task": "discourse_relations",
        "model": QWEN8,
        "reasoning": "on",
        "samples": 1910,
        "dataset_samples": 1910,
        "subset": "full",
        "data": {scidtb: _pinned(scidtb, 1910)},
        "generate": {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95},
    }
    assert log_differences(run, "dataset", "eng.dep.scidtb") == [
        f"data {scidtb}: 1910 records used, the paper's subset has 191 (subset=full)"
    ]


def test_unequal_samples_across_seeds(template, tmp_path):
    _dm_log(template, tmp_path, 0, samples=533)
    _dm_log(template, tmp_path, 1, samples=533)
    _dm_log(template, tmp_path, 42, samples=400, dataset_samples=533)
    assert _differs(_report(tmp_path, tmp_path / "out")) == (
        "samples: 400 of 533 scored, 400 of them just-manual; samples per seed differ: 533/533/400 (seeds 0 1 42)"
    )


def test_absent_corpora_mark_the_framework_and_language_groups_they_belong_to():
    run = {
        "task": "discourse_relations",
        "model": QWEN8,
        "reasoning": "on",
        "samples": 10,
        "dataset_samples": 10,
        "absent": {"eng.pdtb.pdtb": "LDC-licensed: not distributed by the authors", "rus.rst.rrt": "absent"},
        "generate": {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95},
    }
    assert log_differences(run, "framework", "pdtb") == [
        "absent from the run: eng.pdtb.pdtb (LDC-licensed: not distributed by the authors)"
    ]
    assert log_differences(run, "language", "rus") == ["absent from the run: rus.rst.rrt (absent)"]
    assert log_differences(run, "language", "deu") == []
    assert log_differences(run, "dataset", "deu.pdtb.pcc") == []


def test_a_quantised_build_is_named_as_a_difference(template, tmp_path):
    write_log(
        template,
        tmp_path,
        task="discourse_markers",
        model="vllm/Qwen/Qwen3-8B-AWQ",
        seed=0,
        reasoning=True,
        task_args={"prompt": "basic"},
        scores={"accuracy": {"just-manual": 0.5}},
    )
    report = _report(tmp_path, tmp_path / "out")
    assert _differs(report) == "weights: Qwen3-8B-AWQ is a quantised build (AWQ) of Qwen3-8B"
    assert report.cells.loc[report.cells.measure == "accuracy", "paper_mean"].tolist() == [59.1]


# ------------------------------------------------------------------------------------------------ real logs


def _run(log_dir: Path, seed: int, answer: str = "Emphatic", **kwargs) -> None:
    eval_kwargs = {key: kwargs.pop(key) for key in ("limit", "max_tokens") if key in kwargs}
    task = discourse_markers(dataset="just-manual", presets="qwen3", **kwargs)  # the runs stand for Qwen3-8B
    [log] = run_eval(
        task,
        model=scripted_model(lambda messages: answer),
        seed=seed,
        display="none",
        log_dir=str(log_dir),
        **eval_kwargs,
    )
    assert log.status == "success", log.error


def test_real_logs_limit_and_max_tokens(tmp_path):
    """``inspect eval … --limit 3 --max-tokens 256`` (no reasoning): both named, with Table 7's value."""
    _run(tmp_path / "logs", 0, limit=3, max_tokens=256)
    report = _report(tmp_path / "logs", tmp_path / "out", paper_models={"mockllm/model": "Qwen3-8B"})
    assert _differs(report, reasoning="off") == (
        "samples: 3 of 90 scored (--limit 3), 3 of them just-manual; max_tokens 256 (Table 7: 2048)"
    )
    text = (tmp_path / "out" / "warnings.txt").read_text()
    assert "task discourse_markers, model mockllm/model, reasoning off" in text and "max_tokens 256" in text


def test_real_logs_per_dataset_is_named(tmp_path):
    """``-T per_dataset=4``: every sample of the (smaller) dataset is scored, yet the run is not the paper's."""
    _run(tmp_path / "logs", 0, per_dataset=4)
    report = _report(tmp_path / "logs", tmp_path / "out", paper_models={"mockllm/model": "Qwen3-8B"})
    assert _differs(report, reasoning="off") == "samples: only the first 4 of each dataset (-T per_dataset=4)"


@pytest.mark.slow
def test_real_logs_unverified_data_and_unequal_seeds(tmp_path):
    """A data root whose Just file differs from the pinned bytes; seed 1 stopped after 5 samples."""
    root = tmp_path / "data"
    shutil.copytree(Path(os.environ["BEDISCOVER_DATA_DIR"]) / "dm", root / "dm")
    (root / JUST).write_bytes((root / JUST).read_bytes() + b"\n")  # the same records, other bytes
    _run(tmp_path / "logs", 0, data_dir=str(root))
    _run(tmp_path / "logs", 1, data_dir=str(root), limit=5)
    runs = read_log_scores(tmp_path / "logs").runs
    assert [facts[JUST]["verified"] for facts in runs["data"]] == [False, False]
    report = _report(tmp_path / "logs", tmp_path / "out", paper_models={"mockllm/model": "Qwen3-8B"})
    differs = _differs(report, reasoning="off").split("; ")
    assert (
        differs[0]
        == "data dm/just/test_id.json: SHA-1 "
        + runs["data"][0][JUST]["actual_sha1"][:10]
        + " is not the pinned 7c573e2081"
    )
    assert "samples: 5 of 90 scored (--limit 5), 5 of them just-manual" in differs
    assert differs[-1] == "samples per seed differ: 90/5 (seeds 0 1)"


def test_real_logs_subset_full_on_a_subsampled_corpus(tmp_path):
    """DISRPT eng.dep.scidtb: the paper scores 191 of its 1910 relations; subset=full scores them all."""
    from bediscover_inspect.discourse_relations.task import discourse_relations

    task = discourse_relations(dataset="eng.dep.scidtb", subset="full", presets="qwen3")
    [log] = run_eval(
        task,
        model=scripted_model(lambda messages: "elaboration"),
        seed=0,
        display="none",
        log_dir=str(tmp_path / "logs"),
        limit=2,
    )
    assert log.status == "success", log.error
    report = _report(tmp_path / "logs", tmp_path / "out", paper_models={"mockllm/model": "Qwen3-8B"})
    differs = _differs(report, group="eng.dep.scidtb", reasoning="off")
    assert differs == (
        "samples: 2 of 1910 scored (--limit 2), 2 of them eng.dep.scidtb; data "
        "dr/disrpt25/eng.dep.scidtb/test_id.json: 1910 records used, the paper's subset has 191 "
        "(subset=full)"
    )


@pytest.mark.slow
def test_real_logs_in_the_paper_setting_differ_in_nothing(tmp_path):
    _run(tmp_path / "logs", 0)
    _run(tmp_path / "logs", 1)
    report = _report(tmp_path / "logs", tmp_path / "out", paper_models={"mockllm/model": "Qwen3-8B"})
    assert _differs(report, reasoning="off") == ""
    assert (tmp_path / "out" / "warnings.txt").read_text() == ""
