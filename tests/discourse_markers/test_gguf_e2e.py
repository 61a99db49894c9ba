"""One real-model run: the embedded SmolLM2-135M GGUF answers one sample of each dataset, end to end."""

from __future__ import annotations

import pytest

import bediscover_inspect._registry  # noqa: F401  (registers the gguf/ provider)
from bediscover_inspect.discourse_markers.dataset import LABELS
from bediscover_inspect.discourse_markers.task import discourse_markers
from bediscover_inspect.evallogs.results import measures_by_group
from bediscover_inspect.metrics import INVALID_ANSWER
from tests.helpers import run_eval


@pytest.mark.gguf
def test_embedded_model_scores_one_sample_per_dataset(tmp_path):
    log = run_eval(
        discourse_markers(prompt="def"),
        model="gguf/smollm2-135m",
        sample_id=["just-manual_000", "just-subtitle_090", "otherwise_000"],
        max_tokens=24,
        seed=0,
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success", log.error
    assert sorted(s.id for s in log.samples) == ["just-manual_000", "just-subtitle_090", "otherwise_000"]
    for sample in log.samples:
        score = sample.scores["discourse_marker_scorer"]
        dataset = sample.metadata["dataset"]
        assert score.answer in (*LABELS[dataset], INVALID_ANSWER)
        assert score.value["invalid"] == (1.0 if score.answer == INVALID_ANSWER else 0.0)
        assert 0 < score.value["output_tokens"] <= 24
        # the completion, after a first paragraph naming the cause when the reply stopped at the budget
        assert score.explanation.endswith(sample.output.completion)
        cut_off = sample.output.stop_reason == "max_tokens"
        assert score.value["cut_off"] == (1.0 if cut_off else 0.0)
        assert score.explanation.startswith("cut off at ") == (cut_off and score.answer == INVALID_ANSWER)
    assert list(measures_by_group(log)["accuracy"]) == ["all", "just-manual", "just-subtitle", "otherwise"]
