"""Fixtures of the report tests: one real (tiny) Inspect log whose header the synthetic suite logs reuse."""

from __future__ import annotations

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.scorer import Score, grouped, mean, scorer
from inspect_ai.solver import generate

from tests.helpers import scripted_model


@scorer(metrics=[{"accuracy": [grouped(mean(), "dataset")]}])
def _toy_scorer():
    async def score(state, target):
        return Score(value={"accuracy": float(state.output.completion == target.text)})

    return score


@pytest.fixture(scope="session")
def template(tmp_path_factory) -> EvalLog:
    """One real (tiny) log whose header the synthetic logs reuse."""
    task = Task(
        dataset=[Sample(input="x", target="A", id="a", metadata={"dataset": "d"})],
        solver=generate(),
        scorer=_toy_scorer(),
        name="toy",
    )
    [log] = eval(task, model=scripted_model(["A"]), log_dir=str(tmp_path_factory.mktemp("tpl")), display="none")
    assert log.status == "success"
    return log
