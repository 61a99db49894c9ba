"""The answer-reading rules through the real tasks: scripted mockllm answers on the real mirrored data.

Each mock writes the way a reasoning model served without a reasoning parser does — thinking left in the text,
closed by a ``</think>`` with no opening tag, a wrong first draft, then the answer (looked up in the active
sample: the gold) — and the run must still score 100 %; cut-off thinking and hedges must be invalid.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage
from inspect_ai.solver import TaskState

from bediscover_inspect._inspect_compat import sample_state
from bediscover_inspect.dialogue_parsing.task import dialogue_parsing
from bediscover_inspect.discourse_markers.prompts import JUST_LABELS
from bediscover_inspect.discourse_markers.task import discourse_markers
from bediscover_inspect.discourse_relations.prompts import LABELS as DISRPT_LABELS
from bediscover_inspect.discourse_relations.task import discourse_relations
from bediscover_inspect.evallogs.results import measures_by_group
from bediscover_inspect.sentence_ordering.parsing import parse_order
from bediscover_inspect.sentence_ordering.task import sentence_ordering
from bediscover_inspect.temporal_reasoning.prompts import RELATION_LABELS
from bediscover_inspect.temporal_reasoning.task import temporal_reasoning
from tests.dialogue_parsing.test_e2e import _new_turn
from tests.helpers import run_eval, scripted_model

pytestmark = pytest.mark.filterwarnings("ignore:.*differs from the pinned")

LIMIT = 12


def _state() -> TaskState:
    state = sample_state()
    assert state is not None
    return state


def _run(tmp_path: Path, task: Task, respond: Callable[[Sequence[ChatMessage]], str], **kwargs) -> EvalLog:
    [log] = run_eval(task, model=scripted_model(respond), display="none", log_dir=str(tmp_path), **kwargs)
    assert log.status == "success", log.error
    return log


def _other(labels: Sequence[str], gold: str) -> str:
    return next(label for label in labels if label != gold)


def _draft_then_final(thinking: str, draft: str, final: str) -> str:
    return f"{thinking}\n</think>\n\nMy first thought was {draft}, but no.\nFinal answer: {final}"


# --- label tasks -----------------------------------------------------------------------------------------


LABEL_TASKS = [
    pytest.param(
        lambda: discourse_markers(dataset="just-manual"),
        "just-manual",
        JUST_LABELS,
        lambda s: s.metadata["gold"],
        id="discourse_markers",
    ),
    pytest.param(
        lambda: temporal_reasoning(dataset="tbd"),
        "tbd",
        RELATION_LABELS,
        lambda s: s.metadata["gold"],
        id="temporal_reasoning",
    ),
    pytest.param(
        lambda: discourse_relations(dataset="deu.rst.pcc"),
        "deu.rst.pcc",
        DISRPT_LABELS,
        lambda s: s.target.text,
        id="discourse_relations",
    ),
]


@pytest.mark.parametrize(("make_task", "dataset", "labels", "gold_of"), LABEL_TASKS)
def test_reasoning_and_a_corrected_draft_still_score_gold(tmp_path, make_task, dataset, labels, gold_of):
    def respond(messages):
        gold = gold_of(_state())
        other = _other(labels, gold)
        return _draft_then_final(f"Hmm, {other}? Or {gold}? Label: {other}.", other, gold)

    metrics = measures_by_group(_run(tmp_path, make_task(), respond, limit=LIMIT))
    assert metrics["accuracy"][dataset] == 1.0 and metrics["invalid"][dataset] == 0.0


@pytest.mark.parametrize(("make_task", "dataset", "labels", "gold_of"), LABEL_TASKS)
def test_unclosed_think_is_invalid_and_counted(tmp_path, make_task, dataset, labels, gold_of):
    log = _run(tmp_path, make_task(), lambda messages: f"<think>It is {gold_of(_state())}, because", limit=LIMIT)
    metrics = measures_by_group(log)
    assert metrics["accuracy"][dataset] == 0.0 and metrics["invalid"][dataset] == 1.0


@pytest.mark.parametrize(("make_task", "dataset", "labels", "gold_of"), LABEL_TASKS)
def test_hedge_is_invalid_and_flagged_ambiguous(tmp_path, make_task, dataset, labels, gold_of):
    def respond(messages):
        gold = gold_of(_state())
        return f"It is either {gold} or {_other(labels, gold)}."

    log = _run(tmp_path, make_task(), respond, limit=LIMIT)
    metrics = measures_by_group(log)
    assert metrics["accuracy"][dataset] == 0.0 and metrics["invalid"][dataset] == 1.0
    for sample in log.samples:
        [score] = [s for s in sample.scores.values() if s is not None and s.metadata]
        assert score.value["ambiguous"] == 1.0


# --- sentence ordering ------------------------------------------------------------------------------------


def _gold_order() -> list[int]:
    return [i + 1 for i in parse_order(_state().target.text).ids]


@pytest.mark.parametrize(
    "write",
    [
        lambda order: "First guess: <s 1> <s 2>?\n</think>\n\n" + " ".join(f"<s {k}>" for k in order),
        lambda order: "Maybe 1 2 3.</think>\nThe correct order is: " + ", ".join(map(str, order)),
        lambda order: "</think>```json\n" + str(order) + "\n```",
        lambda order: "</think>" + " -> ".join(f"Sentence {k}" for k in order),
    ],
    ids=["markers", "numbers", "json", "arrows"],
)
def test_sentence_ordering_after_reasoning_scores_gold_in_any_accepted_format(tmp_path, write):
    log = _run(tmp_path, sentence_ordering(dataset="nips-abs"), lambda messages: write(_gold_order()), limit=LIMIT)
    metrics = measures_by_group(log)
    assert metrics["pmr"]["nips-abs"] == 1.0 and metrics["invalid"]["nips-abs"] == 0.0


def test_sentence_ordering_digits_in_prose_and_cut_off_thinking_are_invalid(tmp_path):
    def respond(messages):
        order = _gold_order()
        if len(order) % 2:
            return f"<think>The order is {' '.join(f'<s {k}>' for k in order)}"
        return f"Sentence {order[0]} opens the abstract, then {order[1]} follows."

    metrics = measures_by_group(_run(tmp_path, sentence_ordering(dataset="nips-abs"), respond, limit=LIMIT))
    assert metrics["pmr"]["nips-abs"] == 0.0 and metrics["invalid"]["nips-abs"] == 1.0


# --- dialogue parsing -------------------------------------------------------------------------------------


def _turn_gold(messages: Sequence[ChatMessage]) -> tuple[int, str]:
    j = _new_turn(messages)
    return j, {t["turn"]: t["gold"] for t in _state().metadata["turns"]}[j]


def test_dialogue_parsing_reasoning_and_drafts_still_score_gold(tmp_path):
    def respond(messages):
        j, gold = _turn_gold(messages)
        if not gold:
            return f"Turn {j} starts something new.\n</think>\n\nNo relation."
        draft = f"COMMENT({j - 1},{j})" if "COMMENT" not in gold else f"RESULT({j - 1},{j})"
        return f"Is it {draft}?\n</think>\n\n{draft} was my draft, not right.\nAnswer: {gold}\n\nBecause the turn fits."

    log = _run(tmp_path, dialogue_parsing(dataset="stac"), respond, limit=3)
    metrics = measures_by_group(log)
    for key in ("link_f1", "full_f1"):
        assert metrics[key]["stac"] == 1.0, key
    assert metrics["invalid_rate"]["stac"] == 0.0


def test_dialogue_parsing_cut_off_thinking_reads_no_relation(tmp_path):
    def respond(messages):
        return f"<think>Surely {_turn_gold(messages)[1]} and then"

    metrics = measures_by_group(_run(tmp_path, dialogue_parsing(dataset="stac"), respond, limit=2))
    assert metrics["no_relation_rate"]["stac"] == 1.0 and metrics["link_f1"]["stac"] == 0.0
