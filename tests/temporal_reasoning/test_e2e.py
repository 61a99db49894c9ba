"""End-to-end runs of the task through Inspect: gold answers, hand-computed scripted answers, garbage, CLI."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import ChatMessageAssistant, ContentReasoning, ContentText, ModelOutput, ModelUsage, get_model

from bediscover_inspect.metrics import measures_by_group
from bediscover_inspect.temporal_reasoning.prompts import RELATION_SYSTEM_PROMPT, TOT_SYSTEM_PROMPT
from bediscover_inspect.temporal_reasoning.task import temporal_reasoning
from tests.conftest import REPO_ROOT
from tests.helpers import answer_with, scripted_model


def _metrics(log, scorer: str) -> dict[str, dict[str, float]]:
    """``{score key: {group: value}}`` of one scorer in an eval log."""
    return measures_by_group(log, scorer)


def _scored(log, scorer: str) -> int:
    return next(s.scored_samples for s in log.results.scores if s.scorer == scorer)


def test_gold_answers_score_one(tmp_path):
    """Default task = all three datasets; every 10th sample (487 of 4865, all datasets and ToT categories; the
    full 4865-sample run is the README's command, kept out of the suite for time) answered with its gold."""
    task = temporal_reasoning()
    assert len(task.dataset) == 4865
    ids = [s.id for s in task.dataset][::10]
    [log] = inspect_eval(
        task,
        solver=answer_with(lambda state: str(state.metadata["gold"])),
        model="mockllm/model",
        sample_id=ids,
        display="none",
        log_dir=str(tmp_path),
        max_samples=500,
        log_samples=False,
    )
    assert log.status == "success" and log.results.completed_samples == 487
    assert _scored(log, "relation_scorer") == 152 + 150 and _scored(log, "tot_scorer") == 185
    relation = _metrics(log, "relation_scorer")
    for key in ("micro_f1", "accuracy", "weighted_precision", "weighted_recall", "weighted_f1"):
        assert relation[key] == {"tbd": 1.0, "tdd-man": 1.0, "all": 1.0}, key
    assert relation["invalid"] == {"tbd": 0.0, "tdd-man": 0.0, "all": 0.0}
    tot = _metrics(log, "tot_scorer")
    assert tot["accuracy"] == {"tot-arithmetic": 1.0}  # one dataset: no "all" beside the relation scorer's
    assert tot["accuracy_by_category"] == {c: 1.0 for c in ("as", "cmp", "dur", "mop", "scd", "trk", "tz")}
    assert tot["invalid"]["tot-arithmetic"] == 0.0


SCRIPT = {
    # TBD ids 0-5, gold BEFORE, INCLUDES, INCLUDES, IS_INCLUDED, SIMULTANEOUS, BEFORE
    "tbd_0": "BEFORE",
    "tbd_1": "The relation is INCLUDES.",
    "tbd_2": "AFTER",
    "tbd_3": "I don't know.",
    "tbd_4": "simultaneous",
    "tbd_5": "NONE",
    # ToT: as {'answer': '352 BC'}, cmp {'unordered_list': ['Kyle', 'Jason', 'Joe']}, tz {'hours': 5, 'minutes': 0}
    "tot-arithmetic_0": '{"answer": "352 BC"}',
    "tot-arithmetic_350": '{"unordered_list": ["Joe", "Kyle"]}',
    "tot-arithmetic_1750": "five hours",
}


def test_scripted_answers_hand_computed(tmp_path):
    task = temporal_reasoning()
    by_input = {s.input[-1].text: s.id for s in task.dataset if s.id in SCRIPT}
    systems: dict[str, str] = {}

    def respond(messages):
        sample_id = by_input[messages[-1].text]
        systems[sample_id] = messages[0].text
        return SCRIPT[sample_id]

    [log] = inspect_eval(
        task, model=scripted_model(respond), sample_id=list(SCRIPT), display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success" and log.results.completed_samples == 9
    relation = _metrics(log, "relation_scorer")
    # right: 0, 1, 4; wrong: 2, 5; invalid: 3
    assert relation["accuracy"]["tbd"] == pytest.approx(3 / 6)
    assert relation["micro_f1"]["tbd"] == pytest.approx(3 / 6)
    assert relation["weighted_recall"]["tbd"] == pytest.approx(3 / 6)
    # per-gold-label precision BEFORE 1, INCLUDES 1, IS_INCLUDED 0, SIMULTANEOUS 1; supports 2, 2, 1, 1
    assert relation["weighted_precision"]["tbd"] == pytest.approx(5 / 6)
    # F1: BEFORE 2/3, INCLUDES 2/3, IS_INCLUDED 0, SIMULTANEOUS 1
    assert relation["weighted_f1"]["tbd"] == pytest.approx((2 * 2 / 3 + 2 * 2 / 3 + 1) / 6)
    assert relation["invalid"]["tbd"] == pytest.approx(1 / 6)
    assert "tot-arithmetic" not in relation["accuracy"]
    tot = _metrics(log, "tot_scorer")
    assert tot["accuracy"] == {"tot-arithmetic": pytest.approx(1 / 3)}
    assert tot["accuracy_by_category"] == {"as": 1.0, "cmp": 0.0, "tz": 0.0}
    assert tot["invalid"]["tot-arithmetic"] == pytest.approx(1 / 3)
    assert tot["output_tokens"]["tot-arithmetic"] == pytest.approx((3 + 3 + 2) / 3)  # whitespace words of the answers
    assert systems["tbd_0"] == RELATION_SYSTEM_PROMPT and systems["tot-arithmetic_0"] == TOT_SYSTEM_PROMPT
    samples = {s.id: s for s in log.samples}
    assert samples["tbd_3"].scores["relation_scorer"].answer == "<invalid>"
    assert "tot_scorer" not in samples["tbd_3"].scores and "relation_scorer" not in samples["tot-arithmetic_0"].scores


def test_reasoning_content_is_never_parsed(tmp_path):
    """The label / dict sits only in a reasoning block: the answer text is empty of it, so invalid."""

    def outputs(input, tools, tool_choice, config):  # noqa: ANN001 (mockllm callback signature)
        is_tot = "temporal arithmetic" in input[0].text
        hidden = '{"answer": "352 BC"}' if is_tot else "BEFORE"
        message = ChatMessageAssistant(
            content=[ContentReasoning(reasoning=hidden), ContentText(text="I am not sure.")], model="mockllm"
        )
        out = ModelOutput.from_message(message)
        out.usage = ModelUsage(input_tokens=1, output_tokens=9, total_tokens=10, reasoning_tokens=5)
        return out

    [log] = inspect_eval(
        temporal_reasoning(),
        model=get_model("mockllm/model", custom_outputs=outputs),
        sample_id=["tbd_0", "tot-arithmetic_0"],
        display="none",
        log_dir=str(tmp_path),
    )
    assert _metrics(log, "relation_scorer")["invalid"]["all"] == 1.0
    assert _metrics(log, "relation_scorer")["reasoning_tokens"]["all"] == 5.0
    assert _metrics(log, "tot_scorer")["invalid"]["tot-arithmetic"] == 1.0


def test_garbage_answers_never_crash_and_count_invalid(tmp_path):
    rng = random.Random(0)
    alphabet = "0123456789 .,;:!?-+=*/#@&%$[]()\n"  # no letters: neither a label nor a keyed dict

    def respond(messages):
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))

    task = temporal_reasoning(context="sentences")
    ids = [s.id for s in task.dataset][::200]
    [log] = inspect_eval(task, model=scripted_model(respond), sample_id=ids, display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.results.completed_samples == len(ids) == 25
    assert _metrics(log, "relation_scorer")["invalid"]["all"] == 1.0
    assert _metrics(log, "relation_scorer")["accuracy"]["all"] == 0.0
    assert _metrics(log, "tot_scorer")["invalid"]["tot-arithmetic"] == 1.0


def test_cli_single_dataset_runs_with_plain_mockllm(data_root, tmp_path):
    env = os.environ | {"BEDISCOVER_DATA_DIR": str(data_root)}
    proc = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "evals/temporal_reasoning.py", "-T", "dataset=tot-arithmetic",
         "--model", "mockllm/model", "--limit", "3", "--log-dir", str(tmp_path), "--display", "none"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    [info] = list_eval_logs(str(tmp_path))
    log = read_eval_log(info)
    assert log.status == "success" and log.results.completed_samples == 3
    assert {s.scorer for s in log.results.scores} == {"tot_scorer"}
    # mockllm's canned text holds no answer dict: invalid, counted
    assert _metrics(log, "tot_scorer")["invalid"]["tot-arithmetic"] == 1.0
    assert log.eval.metadata["data"]["tot-arithmetic"]["verified"] is True
