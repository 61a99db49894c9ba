"""One real-model run: the embedded SmolLM2-135M GGUF answers one relation from each of 3 corpora (3 languages)."""

from __future__ import annotations

import pytest

import bediscover_inspect._registry  # noqa: F401  (registers the gguf/ provider)
from bediscover_inspect.discourse_relations.prompts import LABELS, SYSTEM_PROMPT
from bediscover_inspect.discourse_relations.task import discourse_relations
from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.metrics import INVALID_ANSWER
from tests.helpers import run_eval

IDS = ["deu.pdtb.pcc_000", "eng.rst.oll_000", "zho.dep.scidtb_000"]


@pytest.mark.gguf
def test_embedded_model_answers_three_languages(tmp_path):
    log = run_eval(
        discourse_relations(dataset="deu.pdtb.pcc,eng.rst.oll,zho.dep.scidtb"),
        model="gguf/smollm2-135m",
        sample_id=IDS,
        max_tokens=16,
        seed=0,
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success", log.error
    assert sorted(s.id for s in log.samples) == IDS
    for sample in log.samples:
        assert [m.role for m in sample.messages] == ["system", "user", "assistant"]
        assert sample.messages[0].text == SYSTEM_PROMPT
        score = sample.scores["discourse_relation_scorer"]
        assert score.answer in (*LABELS, INVALID_ANSWER)
        assert score.value["invalid"] == (1.0 if score.answer == INVALID_ANSWER else 0.0)
        assert score.value["accuracy"] == (1.0 if score.answer == sample.target else 0.0)
        assert 0 < score.value["output_tokens"] <= 16
    assert {r["group"] for r in read_results(log) if r["group_key"] == "language"} == {"deu", "eng", "zho"}
