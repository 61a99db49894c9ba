"""End-to-end runs of the task through Inspect: gold answers, hand-computed scripted answers, garbage, CLI."""

from __future__ import annotations

import math
import os
import random
import statistics
import subprocess
import sys

import pytest
from inspect_ai import task_with
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import ChatMessageAssistant, ContentReasoning, ContentText, ModelOutput, ModelUsage, get_model
from sklearn.metrics import precision_recall_fscore_support

from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.measures import CATALOG
from bediscover_inspect.metrics import label_stderr
from bediscover_inspect.temporal_reasoning.prompts import RELATION_SYSTEM_PROMPT, TOT_SYSTEM_PROMPT
from bediscover_inspect.temporal_reasoning.task import temporal_reasoning
from tests.conftest import REPO_ROOT
from tests.helpers import answer_with, run_eval, scripted_model


def _metrics(log, scorer: str, group_key: str = "dataset") -> dict[str, dict[str, float]]:
    """``{measure: {group: value}}`` of one scorer: the groups of ``group_key``, plus ``"all"`` (the overall
    value) for ``dataset``."""
    keys = (group_key, "all") if group_key == "dataset" else (group_key,)
    out: dict[str, dict[str, float]] = {}
    for row in read_results(log):
        if row["scorer"] == scorer and row["group_key"] in keys:
            out.setdefault(row["measure"], {})[row["group"]] = row["value"]
    return out


def _stderr(log, scorer: str, measure: str, group: str = "all") -> float:
    [row] = [r for r in read_results(log) if r["scorer"] == scorer and r["measure"] == measure and r["group"] == group]
    return row["stderr"]


def _scored(log, scorer: str) -> int:
    return next(s.scored_samples for s in log.results.scores if s.scorer == scorer)


@pytest.mark.slow
def test_gold_answers_score_one(tmp_path):
    """Default task = all three datasets; every 10th sample (487 of 4865, all datasets and ToT categories; the
    full 4865-sample run is the README's command, kept out of the suite for time) answered with its gold."""
    task = temporal_reasoning()
    assert len(task.dataset) == 4865
    every_tenth = set([s.id for s in task.dataset][::10])
    # the dataset filtered here, not by ``sample_id``: Inspect matches each sample against every id (4865 x 487)
    task = task_with(task, dataset=task.dataset.filter(lambda sample: sample.id in every_tenth))
    [log] = run_eval(
        task,
        solver=answer_with(lambda state: str(state.metadata["gold"])),
        model="mockllm/model",
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
    assert relation["ambiguous"] == {"tbd": 0.0, "tdd-man": 0.0, "all": 0.0}
    tot = _metrics(log, "tot_scorer")
    assert tot["accuracy"] == {"tot-arithmetic": 1.0, "all": 1.0}  # each scorer's overall covers its own samples
    assert _metrics(log, "tot_scorer", "category")["accuracy"] == {
        c: 1.0 for c in ("as", "cmp", "dur", "mop", "scd", "trk", "tz")
    }
    assert tot["invalid"]["tot-arithmetic"] == 0.0
    assert set(tot) == {
        "accuracy",
        "invalid",
        "echo",
        "cut_off_rate",
        "reasoning_only_rate",
        "output_tokens",
        "reasoning_tokens",
    }
    assert tot["cut_off_rate"]["all"] == 0.0 and tot["reasoning_only_rate"]["all"] == 0.0  # gold answers, stop


SCRIPT = {
    # TBD ids 0-5, gold BEFORE, INCLUDES, INCLUDES, IS_INCLUDED, SIMULTANEOUS, BEFORE
    "tbd_0000": "BEFORE",
    "tbd_0001": "The relation is INCLUDES.",
    "tbd_0002": "AFTER",
    "tbd_0003": "I don't know.",
    "tbd_0004": "simultaneous",
    "tbd_0005": "NONE",
    # ToT: as {'answer': '352 BC'}, cmp {'unordered_list': ['Kyle', 'Jason', 'Joe']}, tz {'hours': 5, 'minutes': 0}
    "tot-arithmetic_0000": '{"answer": "352 BC"}',
    "tot-arithmetic_0350": '{"unordered_list": ["Joe", "Kyle"]}',
    "tot-arithmetic_1750": "five hours",
}


def test_scripted_answers_hand_computed(tmp_path):
    task = temporal_reasoning()
    by_input = {s.input: s.id for s in task.dataset if s.id in SCRIPT}
    systems: dict[str, str] = {}

    def respond(messages):
        sample_id = by_input[messages[-1].text]
        systems[sample_id] = messages[0].text
        return SCRIPT[sample_id]

    [log] = run_eval(task, model=scripted_model(respond), sample_id=list(SCRIPT), display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.results.completed_samples == 9
    relation = _metrics(log, "relation_scorer")
    # right: 0, 1, 4; wrong: 2, 5; invalid: 3
    hits = [1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    assert relation["accuracy"]["tbd"] == pytest.approx(3 / 6)
    assert relation["micro_f1"]["tbd"] == pytest.approx(3 / 6)
    assert relation["weighted_recall"]["tbd"] == pytest.approx(3 / 6)
    # per-gold-label precision BEFORE 1, INCLUDES 1, IS_INCLUDED 0, SIMULTANEOUS 1; supports 2, 2, 1, 1
    assert relation["weighted_precision"]["tbd"] == pytest.approx(5 / 6)
    # F1: BEFORE 2/3, INCLUDES 2/3, IS_INCLUDED 0, SIMULTANEOUS 1
    assert relation["weighted_f1"]["tbd"] == pytest.approx((2 * 2 / 3 + 2 * 2 / 3 + 1) / 6)
    assert relation["invalid"]["tbd"] == pytest.approx(1 / 6)
    assert relation["ambiguous"]["tbd"] == 0.0
    assert "tot-arithmetic" not in relation["accuracy"]
    assert relation["accuracy"]["all"] == pytest.approx(3 / 6)  # the overall value covers the relation samples only
    # uncertainty: Inspect's stderr of the 0/1 mean (sample std / sqrt(n)); micro-F1 by seeded bootstrap
    assert _stderr(log, "relation_scorer", "accuracy", "tbd") == pytest.approx(statistics.stdev(hits) / 6**0.5)
    gold = ["BEFORE", "INCLUDES", "INCLUDES", "IS_INCLUDED", "SIMULTANEOUS", "BEFORE"]
    pred = ["BEFORE", "INCLUDES", "AFTER", "<invalid>", "SIMULTANEOUS", "NONE"]
    micro_se = _stderr(log, "relation_scorer", "micro_f1", "tbd")
    assert 0.1 < micro_se < 0.3 and micro_se == pytest.approx(
        label_stderr(gold, pred, CATALOG["micro_f1"].of_confusions)
    )
    # per-class P/R/F1 of the gold labels, against scikit-learn
    labels = sorted(set(gold))
    p, r, f, _ = precision_recall_fscore_support(gold, pred, labels=labels, zero_division=0)
    [entries] = [s.metrics for s in log.results.scores if s.name == "relation_scorer" and "f1_BEFORE" in s.metrics]
    for i, label in enumerate(labels):
        assert (
            entries[f"precision_{label}"].value,
            entries[f"recall_{label}"].value,
            entries[f"f1_{label}"].value,
        ) == pytest.approx((p[i], r[i], f[i])), label
    tot = _metrics(log, "tot_scorer")
    assert tot["accuracy"] == {"tot-arithmetic": pytest.approx(1 / 3), "all": pytest.approx(1 / 3)}
    assert _metrics(log, "tot_scorer", "category")["accuracy"] == {"as": 1.0, "cmp": 0.0, "tz": 0.0}
    assert tot["invalid"]["tot-arithmetic"] == pytest.approx(1 / 3)
    assert tot["output_tokens"]["tot-arithmetic"] == pytest.approx((3 + 3 + 2) / 3)  # whitespace words of the answers
    assert systems["tbd_0000"] == RELATION_SYSTEM_PROMPT and systems["tot-arithmetic_0000"] == TOT_SYSTEM_PROMPT
    samples = {s.id: s for s in log.samples}
    assert samples["tbd_0003"].scores["relation_scorer"].answer == "<invalid>"
    assert (
        "tot_scorer" not in samples["tbd_0003"].scores
        and "relation_scorer" not in samples["tot-arithmetic_0000"].scores
    )


@pytest.mark.parametrize(
    ("ids", "empty", "scored"),
    [
        (["tbd_0000", "tdd-man_0000"], "tot_scorer", "relation_scorer"),
        (["tot-arithmetic_0000"], "relation_scorer", "tot_scorer"),
    ],
)
def test_a_scorer_without_samples_reports_no_groups_and_does_not_crash(tmp_path, ids, empty, scored):
    """Each scorer returns None for the other kind: with ``--sample-id`` of one kind only, the other scorer gets no
    score at all (not an unscored one), its metrics run on the empty list, and its mean measures are NaN."""
    [log] = run_eval(
        temporal_reasoning(),
        solver=answer_with(lambda state: str(state.metadata["gold"])),
        model="mockllm/model",
        sample_id=ids,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success"
    counts = {s.scorer: (s.scored_samples, s.unscored_samples) for s in log.results.scores}
    assert counts == {empty: (0, 0), scored: (len(ids), 0)}
    assert all(set(sample.scores) == {scored} for sample in log.samples)
    rows = [r for r in read_results(log) if r["scorer"] == empty]
    assert {r["group"] for r in rows} == {"all"}  # no per-group entries without samples
    assert math.isnan(_metrics(log, empty)["accuracy"]["all"]) and math.isnan(_metrics(log, empty)["invalid"]["all"])
    assert _metrics(log, scored)["accuracy"]["all"] == 1.0


def test_reasoning_content_is_never_parsed(tmp_path):
    """The label / dict sits only in a reasoning block: the answer text is empty of it, so invalid."""

    def outputs(input, tools, tool_choice, config):  # mockllm callback signature
        is_tot = "temporal arithmetic" in input[0].text
        hidden = '{"answer": "352 BC"}' if is_tot else "BEFORE"
        message = ChatMessageAssistant(
            content=[ContentReasoning(reasoning=hidden), ContentText(text="I am not sure.")], model="mockllm"
        )
        out = ModelOutput.from_message(message)
        out.usage = ModelUsage(input_tokens=1, output_tokens=9, total_tokens=10, reasoning_tokens=5)
        return out

    [log] = run_eval(
        temporal_reasoning(),
        model=get_model("mockllm/model", custom_outputs=outputs),
        sample_id=["tbd_0000", "tot-arithmetic_0000"],
        display="none",
        log_dir=str(tmp_path),
    )
    assert _metrics(log, "relation_scorer")["invalid"]["all"] == 1.0
    assert _metrics(log, "relation_scorer")["reasoning_tokens"]["all"] == 5.0
    assert _metrics(log, "tot_scorer")["invalid"]["tot-arithmetic"] == 1.0


@pytest.mark.slow
def test_garbage_answers_never_crash_and_count_invalid(tmp_path):
    rng = random.Random(0)
    alphabet = "0123456789 .,;:!?-+=*/#@&%$[]()\n"  # no letters: neither a label nor a keyed dict

    def respond(messages):
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))

    task = temporal_reasoning(context="sentences")
    ids = [s.id for s in task.dataset][::200]
    [log] = run_eval(task, model=scripted_model(respond), sample_id=ids, display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.results.completed_samples == len(ids) == 25
    assert _metrics(log, "relation_scorer")["invalid"]["all"] == 1.0
    assert _metrics(log, "relation_scorer")["accuracy"]["all"] == 0.0
    assert _metrics(log, "tot_scorer")["invalid"]["tot-arithmetic"] == 1.0


@pytest.mark.slow
def test_cli_single_dataset_runs_with_plain_mockllm(data_root, tmp_path):
    env = os.environ | {"BEDISCOVER_DATA_DIR": str(data_root)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "inspect_ai",
            "eval",
            "evals/temporal_reasoning.py",
            "-T",
            "dataset=tot-arithmetic",
            "--model",
            "mockllm/model",
            "--limit",
            "3",
            "--log-dir",
            str(tmp_path),
            "--display",
            "none",
        ],
        check=False,
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    [info] = list_eval_logs(str(tmp_path))
    log = read_eval_log(info)
    assert log.status == "success" and log.results.completed_samples == 3
    assert {s.scorer for s in log.results.scores} == {"tot_scorer"}
    # mockllm's canned text holds no answer dict: invalid, counted
    assert _metrics(log, "tot_scorer")["invalid"]["tot-arithmetic"] == 1.0
    assert log.eval.metadata["data"]["tr/tot-arithmetic/test_id.json"]["verified"] is True
    assert log.eval.metadata["parameters"]["dataset"] == ["tot-arithmetic"] and log.eval.task_version == 2
