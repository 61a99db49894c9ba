"""``compare``'s columns of a run's samples: every sample rebuilt from them equals the sample read (value dicts with
their keys in order and their types), and a cell read from them fails as the measure catalog's reading of value
dicts does."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from inspect_ai.scorer import Score

from bediscover_inspect._inspect_compat import run_coroutine
from bediscover_inspect.evallogs.samples import LogSample, read_samples_async
from bediscover_inspect.gate.columns import CellScores, Part, RunSamples
from bediscover_inspect.measures import ValueColumns
from bediscover_inspect.metrics import INVALID_ANSWER
from tests.gate.suite import BASELINE


def _samples(location: str) -> list[LogSample]:
    async def read() -> list[LogSample]:
        return [sample async for sample in read_samples_async(location)]

    return run_coroutine(read())  # type: ignore[no-any-return]


def _sample(sample_id: str, value: dict, answer: str | None = "A", error: str | None = None) -> LogSample:
    return LogSample(
        id=sample_id,
        epoch=1,
        target=["x", "y"],
        metadata={"gold": "A", "dataset": "d1", "language": "eng"},
        scores={"s": Score(value=value, answer=answer), "plain": Score(value=float("nan"))},
        error=error,
    )


@pytest.mark.parametrize("name", sorted(p.name for p in BASELINE.glob("*.eval")))
def test_each_baseline_sample_is_rebuilt_as_read(name):
    samples = _samples(str(BASELINE / name))
    run = RunSamples()
    for sample in samples:
        run.add(sample)
    run.finish()
    assert len(run) == len(samples) > 0
    for sample in samples:
        row = run[(str(sample.id), sample.epoch)]
        assert row.target == (sample.target if isinstance(sample.target, str) else json.dumps(sample.target))
        groups = ("dataset", "framework", "language", "category")
        assert row.groups == {k: str(sample.metadata[k]) for k in groups if k in sample.metadata}
        assert row.error == sample.error
        dict_scores = {k: s for k, s in sample.scores.items() if isinstance(s.value, dict)}
        assert set(row.scores) == set(dict_scores)
        for scorer, score in dict_scores.items():
            kept = row.scores[scorer]
            assert list(kept.value.items()) == list(score.value.items())
            assert [type(v) for v in kept.value.values()] == [type(v) for v in score.value.values()]
            assert kept.answer == (str(score.answer) if score.answer is not None else INVALID_ANSWER)
            assert kept.gold == str(sample.metadata.get("gold", ""))


def test_values_keep_their_type_order_and_oddities():
    value = {"b": 1.5, "a": 1, "none": None, "flag": True, "text": "x", "big": 2**60, "nan": math.nan}
    run = RunSamples()
    run.add(_sample("s1", value, answer=None, error="boom"))
    run.add(_sample("s2", {"a": 0}))
    run.finish()
    row = run[("s1", 1)]
    kept = row.scores["s"].value
    assert [(k, type(v)) for k, v in kept.items()] == [(k, type(v)) for k, v in value.items()]
    assert kept["big"] == 2**60 and kept["text"] == "x" and kept["none"] is None and math.isnan(kept["nan"])
    assert row.scores["s"].answer == INVALID_ANSWER and row.error == "boom" and row.target == '["x", "y"]'
    assert row.non_finite == ["s nan nan", "plain nan"]
    assert run[("s2", 1)].scores["s"].value == {"a": 0} and run[("s2", 1)].non_finite == ["plain nan"]
    assert run.scorer_names(run.row(("s1", 1)) or 0) == {"s"}


def _cell(values: list[dict]) -> CellScores:
    run = RunSamples()
    for i, value in enumerate(values):
        run.add(_sample(f"s{i}", value))
    run.finish()
    columns = run.scorers["s"]
    return CellScores([Part(columns, np.arange(len(values)))])


def test_a_cell_reads_a_key_as_the_catalog_reads_value_dicts():
    values = [{"k": 1, "j": None}, {"k": 0.25, "j": 2.0}, {"k": True, "j": 3}]
    cell = _cell(values)
    for key in ("k", "j"):
        np.testing.assert_array_equal(cell[key], ValueColumns(values)[key])
    np.testing.assert_array_equal(cell.causes("j"), [0.0, 2.0, 3.0])
    np.testing.assert_array_equal(cell.causes("absent"), [0.0, 0.0, 0.0])
    assert cell.gold == ["A", "A", "A"] and cell.answers == ["A", "A", "A"] and len(cell) == 3


@pytest.mark.parametrize(
    "values",
    [
        [{"k": 1.0}, {"j": 1.0}],  # a value without the key
        [{"k": 1.0}, {"k": "text"}],  # no number there
        [{"j": 1.0}, {"j": 2.0}],  # no value has it
    ],
)
def test_a_cell_fails_naming_the_value_as_the_catalog_does(values):
    with pytest.raises(ValueError) as catalog:
        ValueColumns(values)["k"]
    with pytest.raises(ValueError) as columns:
        _cell(values)["k"]
    assert str(columns.value) == str(catalog.value)
