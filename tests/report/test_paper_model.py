"""The paper model of a served name: build suffixes recognised, ``--paper-model`` to name it, a note when none."""

from __future__ import annotations

import pytest

from bediscover_inspect.cli import main
from bediscover_inspect.report.matching import (
    base_model_name,
    paper_model_match,
    paper_model_name,
    paper_model_names,
    parse_paper_models,
    quantisation_of,
)
from tests.report.test_tables import write_log

PAPER_MODELS = [
    "Qwen3-0.6B",
    "Qwen3-1.7B",
    "Qwen3-4B",
    "Qwen3-8B",
    "Qwen3-14B",
    "Qwen3-32B",
    "DS-r1-distill-Qwen",
    "DeepSeek-r1-0528",
    "GPT-5-mini (low)",
    "GPT-5-mini (high)",
]


@pytest.mark.parametrize(
    "served,paper,quantised",
    [
        ("gguf/./Qwen3-8B-Q4_K_M.gguf", "Qwen3-8B", ["Q4_K_M"]),
        ("vllm/Qwen/Qwen3-8B-AWQ", "Qwen3-8B", ["AWQ"]),
        ("vllm/Qwen/Qwen3-8B-FP8", "Qwen3-8B", ["FP8"]),
        ("openai-api/local/unsloth/Qwen3-14B-GGUF", "Qwen3-14B", []),
        ("openai-api/hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M", "Qwen3-8B", ["Q4_K_M"]),
        ("vllm/Qwen/Qwen3-32B-GPTQ-Int4", "Qwen3-32B", ["GPTQ", "Int4"]),
        ("gguf/models/qwen3-0.6b-q8_0.gguf", "Qwen3-0.6B", ["q8_0"]),
        ("vllm/Qwen/Qwen3-4B-BF16", "Qwen3-4B", []),
        ("vllm/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B-AWQ", "DS-r1-distill-Qwen", ["AWQ"]),
    ],
)
def test_build_suffixes_name_the_same_model(served, paper, quantised):
    assert paper_model_name(served) == paper
    assert quantisation_of(served) == quantised


@pytest.mark.parametrize(
    "served",
    [
        "vllm/Qwen/Qwen3-4B-Instruct-2507",
        "vllm/Qwen/Qwen3-8B-Base",
        "vllm/Qwen/Qwen2.5-7B-Instruct",
        "gguf/smollm2-135m",
        "mockllm/model",
    ],
)
def test_other_models_match_nothing(served):
    assert paper_model_name(served) is None


def test_base_model_name_keeps_what_names_another_model():
    assert base_model_name("gguf/./Qwen3-8B-Q4_K_M.gguf") == ("Qwen3-8B", ["Q4_K_M", "gguf"])
    assert base_model_name("Qwen3-4B-Instruct-2507") == ("Qwen3-4B-Instruct-2507", [])


def test_paper_model_option():
    assert paper_model_names() == PAPER_MODELS
    assert parse_paper_models(["qwen3-8b"]) == {"*": "Qwen3-8B"}
    assert parse_paper_models(["gguf/./my-model.gguf=Qwen3-8B", "x=GPT-5-mini"]) == {
        "gguf/./my-model.gguf": "Qwen3-8B",
        "x": "GPT-5-mini",
    }
    with pytest.raises(ValueError, match=r"'Qwen3-9B' is not a model of the paper; choose from Qwen3-0.6B, "):
        parse_paper_models(["Qwen3-9B"])
    with pytest.raises(ValueError, match="PAPER or SERVED=PAPER"):
        parse_paper_models(["=Qwen3-8B"])
    # a mapping wins over the name; GPT-5-mini takes low / high from the run's effort
    mapping = parse_paper_models(["my-model.gguf=Qwen3-8B", "gpt=GPT-5-mini"])
    assert paper_model_match("gguf/./my-model.gguf", None, mapping) == ("Qwen3-8B", "--paper-model")
    assert paper_model_match("openai/gpt", "high", mapping) == ("GPT-5-mini (high)", "--paper-model")
    assert paper_model_match("openai/gpt", None, mapping) == (None, "")
    assert paper_model_match("vllm/Qwen/Qwen3-14B", None, mapping) == ("Qwen3-14B", "name")
    assert paper_model_match("vllm/Qwen/Qwen3-14B", None, parse_paper_models(["Qwen3-32B"])) == (
        "Qwen3-32B",
        "--paper-model",
    )


def _log(template, directory, model):
    write_log(
        template,
        directory,
        task="discourse_markers",
        model=model,
        seed=0,
        reasoning=True,
        task_args={"prompt": "basic"},
        scores={"accuracy": {"just-manual": 0.5}},
    )


def test_report_says_when_no_paper_model_matched_and_takes_the_option(template, tmp_path, capsys):
    _log(template, tmp_path / "logs", "gguf/./my-finetune.gguf")
    assert main(["report", "--log-dir", str(tmp_path / "logs"), "--out", str(tmp_path / "a"), "--no-plots"]) == 0
    note = (
        "no paper model for gguf/./my-finetune.gguf: its cells have no paper numbers. Name one with "
        "--paper-model PAPER or --paper-model 'gguf/./my-finetune.gguf=PAPER'; the paper's models: "
        + ", ".join(PAPER_MODELS)
    )
    assert f"note: {note}" in capsys.readouterr().err.splitlines()
    assert f"- {note}" in (tmp_path / "a" / "report.md").read_text().splitlines()
    assert (tmp_path / "a" / "warnings.txt").read_text() == ""  # a note, not a problem of the log directory

    assert (
        main(
            [
                "report",
                "--log-dir",
                str(tmp_path / "logs"),
                "--out",
                str(tmp_path / "b"),
                "--no-plots",
                "--paper-model",
                "gguf/./my-finetune.gguf=Qwen3-8B",
            ]
        )
        == 0
    )
    assert "no paper model" not in capsys.readouterr().err
    md = (tmp_path / "b" / "discourse_markers.md").read_text()
    assert "| 59.1 ± 2.9 | -9.1 |" in md and "Qwen3-8B (T13)" in md  # Table 13, Qwen3-8B w/ reasoning


def test_a_bad_paper_model_is_one_line_exit_2(template, tmp_path, capsys):
    _log(template, tmp_path / "logs", "gguf/./Qwen3-8B-Q4_K_M.gguf")
    assert (
        main(["report", "--log-dir", str(tmp_path / "logs"), "--out", str(tmp_path / "o"), "--paper-model", "Llama-3"])
        == 2
    )
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(
        "bediscover report: error: --paper-model 'Llama-3': 'Llama-3' is not a model of the "
        "paper; choose from Qwen3-0.6B"
    )


def test_the_readme_gguf_example_gets_the_paper_column(template, tmp_path, capsys):
    _log(template, tmp_path / "logs", "gguf/./Qwen3-8B-Q4_K_M.gguf")
    assert main(["report", "--log-dir", str(tmp_path / "logs"), "--out", str(tmp_path / "o"), "--no-plots"]) == 0
    md = (tmp_path / "o" / "discourse_markers.md").read_text()
    assert "| 59.1 ± 2.9 | -9.1 |" in md
    assert "weights: Qwen3-8B-Q4_K_M.gguf is a quantised build (Q4_K_M) of Qwen3-8B" in md
    assert "weights: Qwen3-8B-Q4_K_M.gguf" in (tmp_path / "o" / "warnings.txt").read_text()
