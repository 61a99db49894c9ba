"""One real generation per dataset with the embedded SmolLM2-135M model (in-process llama.cpp, offline)."""

from __future__ import annotations

import pytest

import bediscover_inspect._registry  # noqa: F401  (registers the gguf/ provider)
from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.metrics import INVALID_ANSWER
from bediscover_inspect.temporal_reasoning.prompts import RELATION_LABELS, RELATION_SYSTEM_PROMPT, TOT_SYSTEM_PROMPT
from bediscover_inspect.temporal_reasoning.task import temporal_reasoning
from tests.helpers import run_eval

IDS = ["tbd_0005", "tdd-man_0000", "tot-arithmetic_1750"]


@pytest.mark.gguf
def test_embedded_model_one_sample_per_dataset(tmp_path):
    [log] = run_eval(
        temporal_reasoning(context="sentences"),
        model="gguf/smollm2-135m",
        sample_id=IDS,
        max_tokens=32,
        seed=0,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    samples = {s.id: s for s in log.samples}
    assert sorted(samples) == sorted(IDS)
    for sample_id in IDS[:2]:
        sample = samples[sample_id]
        assert [m.role for m in sample.messages] == ["system", "user", "assistant"]
        assert sample.messages[0].text == RELATION_SYSTEM_PROMPT
        score = sample.scores["relation_scorer"]
        assert score.answer in (*RELATION_LABELS, INVALID_ANSWER)
        assert score.value["invalid"] == (1.0 if score.answer == INVALID_ANSWER else 0.0)
        assert score.value["accuracy"] == (1.0 if score.answer == sample.target else 0.0)
        assert 0 < score.value["output_tokens"] <= 32
    tot = samples["tot-arithmetic_1750"]
    assert tot.messages[0].text == TOT_SYSTEM_PROMPT
    score = tot.scores["tot_scorer"]
    assert score.value["invalid"] == (1.0 if score.answer == INVALID_ANSWER else 0.0)
    rows = read_results(log)
    assert {r["group"] for r in rows if r["scorer"] == "tot_scorer" and r["group_key"] == "category"} == {"tz"}
