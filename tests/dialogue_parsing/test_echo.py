"""An echo of a turn's prompt is no answer: through the real task with a scripted mockllm that echoes some turns'
prompts (incremental agent and single-turn mode), the echoed turns are invalid, never fed back, and counted in
the ``echo`` measure."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ChatMessageUser

from bediscover_inspect._inspect_compat import sample_state
from bediscover_inspect.dialogue_parsing.relations import ParsedTurn, as_echo, read_turn
from bediscover_inspect.dialogue_parsing.solver import TURNS_STORE_KEY
from bediscover_inspect.dialogue_parsing.task import dialogue_parsing
from bediscover_inspect.evallogs.results import measures_by_group
from bediscover_inspect.metrics import INVALID_ANSWER
from tests.helpers import run_eval, scripted_model

pytestmark = pytest.mark.filterwarnings("ignore:.*differs from the pinned")

NEW_TURN = re.compile(r"## New turn:\n\n(\d+)\. ")
STRUCTURE = re.compile(r"## Structure:\n\n(.*)\n\n## New turn:")


def _turn(messages: Sequence[ChatMessage]) -> int:
    match = NEW_TURN.search(messages[-1].text)
    assert match is not None
    return int(match.group(1))


def _run(tmp_path, task, respond, limit: int) -> EvalLog:
    [log] = run_eval(task, model=scripted_model(respond), display="none", log_dir=str(tmp_path), limit=limit)
    assert log.status == "success", log.error
    return log


def test_incremental_echoed_turns_are_invalid_not_fed_back_and_counted(tmp_path):
    """Odd turns echo their prompt, even turns answer QA_PAIR(j-1, j). Turn 3's prompt shows QA_PAIR(1,2), so its
    echo reads that relation: invalid (wrong head, and an echo). By hand over the 7 turns: relations read
    0 + 1 + 1 + 1 + 2 + 1 + 3 = 9 (an echo reads the structure its prompt shows), invalid 1 + 2 + 3 = 6, no
    relation read on turn 1 only, echoes 4 of 7."""

    def respond(messages: Sequence[ChatMessage]) -> str:
        j = _turn(messages)
        return messages[-1].text if j % 2 else f"QA_PAIR({j - 1},{j})"

    log = _run(tmp_path, dialogue_parsing(dataset="stac", order="file"), respond, limit=1)
    [sample] = log.samples
    prompts = [m.text for m in sample.messages if isinstance(m, ChatMessageUser)]
    structures = [STRUCTURE.search(p).group(1) for p in prompts]  # type: ignore[union-attr]
    assert structures == [
        "",
        "",
        "QA_PAIR(1,2)",
        "QA_PAIR(1,2)",
        "QA_PAIR(1,2) QA_PAIR(3,4)",
        "QA_PAIR(1,2) QA_PAIR(3,4)",
        "QA_PAIR(1,2) QA_PAIR(3,4) QA_PAIR(5,6)",
    ]
    records = sample.store[TURNS_STORE_KEY]
    assert [r["echo"] for r in records] == [True, False, True, False, True, False, True]
    assert [r["prompt"] for r in records] == prompts
    assert records[2]["relations"] == [] and records[2]["invalid"] == ["QA_PAIR(1,2)"]
    score = sample.scores["dialogue_parsing_scorer"]
    value = score.value
    assert (value["relations_read"], value["relations_invalid"], value["no_relation"]) == (9, 6, 1)
    assert (value["link_pred"], value["full_pred"]) == (3, 3)
    assert value["echo"] == pytest.approx(4 / 7)
    assert [t["echo"] for t in score.metadata["turns"]] == [True, False, True, False, True, False, True]
    assert "| 1 | " in score.explanation and "echo of the prompt" in score.explanation
    metrics = measures_by_group(log)
    assert metrics["echo"]["stac"] == pytest.approx(4 / 7)
    assert metrics["invalid_rate"]["stac"] == pytest.approx(6 / 9)


def test_single_turn_echo_is_invalid_and_counted(tmp_path):
    """Every other sample (in the order they are asked) echoes its prompt; the others answer nothing readable."""
    given: dict[object, int] = {}

    def respond(messages: Sequence[ChatMessage]) -> str:
        state = sample_state()
        assert state is not None
        index = given.setdefault(state.sample_id, len(given))
        return messages[-1].text if index % 2 == 0 else "I cannot tell."

    log = _run(tmp_path, dialogue_parsing(dataset="stac", mode="single-turn"), respond, limit=4)
    for sample in log.samples:
        score = sample.scores["dialogue_parsing_scorer"]
        echoed = given[sample.id] % 2 == 0
        assert score.value["echo"] == float(echoed)
        assert score.value["link_pred"] == 0 and score.answer == INVALID_ANSWER
        assert score.value["relations_invalid"] == score.value["relations_read"]
    assert measures_by_group(log)["echo"]["stac"] == pytest.approx(0.5)


def test_an_answer_that_quotes_one_line_of_its_prompt_is_no_echo():
    prompt = (
        "## Context:\n\n0. Gaeilgeoir: anyone have wood to spare for sheep?\n1. Shawn: I have wheat and wood\n\n"
        "## Structure:\n\nQA_PAIR(0,1)\n\n## New turn:\n\n2. Gaeilgeoir: great, I'll give you a sheep for one\n\n"
        "Question: What is the discourse structure of the new turn in relation to the context? "
        "Provide the answer in the format: RELATION(S_ID1, S_ID2)."
    )
    quoting = "The new turn '2. Gaeilgeoir: great, I'll give you a sheep for one' answers 1: QA_PAIR(1,2)"
    read = read_turn(quoting, prompt, 2, ["QA_PAIR"], 3)
    assert not read.echo and [str(r) for r in read.valid] == ["QA_PAIR(1,2)"]
    echoed = read_turn(prompt + "\nQA_PAIR(1,2)", prompt, 2, ["QA_PAIR"], 3)
    assert echoed.echo and echoed.valid == () and echoed.invalid == ("QA_PAIR(0,1)",)
    assert as_echo(as_echo(read)) == as_echo(read) == ParsedTurn((), ("QA_PAIR(1,2)",), 1, "prose", 0, False, True)
