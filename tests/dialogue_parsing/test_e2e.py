"""End-to-end runs through Inspect with scripted mock models: the incremental agent, gold and garbage answers."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from bediscover_inspect._inspect_compat import sample_state
from bediscover_inspect.dialogue_parsing.dataset import DATA_FILES, DATASETS, load_dataset
from bediscover_inspect.dialogue_parsing.prompts import RELATIONS
from bediscover_inspect.dialogue_parsing.relations import format_relations, parse_gold, read_turn
from bediscover_inspect.dialogue_parsing.scorer import TurnCounts, count_turn
from bediscover_inspect.dialogue_parsing.solver import TURNS_STORE_KEY, incremental_parser, turn_prompt
from bediscover_inspect.dialogue_parsing.task import dialogue_parsing
from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.measures import SCORERS
from bediscover_inspect.metrics import INVALID_ANSWER
from tests.helpers import answer_with, run_eval, scripted_model

pytestmark = pytest.mark.filterwarnings("ignore:.*differs from the pinned")

NEW_TURN = re.compile(r"## New turn:\n\n(\d+)\. ")


def _new_turn(messages: Sequence[ChatMessage]) -> int:
    match = NEW_TURN.search(messages[-1].text)
    assert match is not None, messages[-1].text
    return int(match.group(1))


def _results(log: EvalLog) -> list[dict]:
    assert log.status == "success", log.error
    assert log.results is not None
    rows = read_results(log)
    assert {row["scorer"] for row in rows} == {"dialogue_parsing_scorer"}
    return rows


def _metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    """``{measure: {group: value}}`` of the log's results (group ``all`` for the overall value)."""
    table: dict[str, dict[str, float]] = {}
    for row in _results(log):
        table.setdefault(row["measure"], {})[row["group"]] = row["value"]
    return table


def _stderrs(log: EvalLog) -> dict[str, dict[str, float]]:
    table: dict[str, dict[str, float]] = {}
    for row in _results(log):
        table.setdefault(row["measure"], {})[row["group"]] = row["stderr"]
    return table


MEASURE_NAMES = list(SCORERS["dialogue_parsing_scorer"].measures)
"""The scorer's measures (log entry names), as the README lists them."""


def _run(tmp_path: Path, task, model, **kwargs) -> EvalLog:
    return run_eval(task, model=model, display="none", log_dir=str(tmp_path), **kwargs)[0]


def test_incremental_prompt_holds_own_predictions_not_gold(tmp_path: Path) -> None:
    """The model always answers PARALLEL(j-1, j); turn k's prompt must show those, never the gold."""

    def respond(messages: Sequence[ChatMessage]) -> str:
        j = _new_turn(messages)
        return f"Sure: PARALLEL({j - 1}, {j}) BOGUS({j - 1},{j})"

    log = _run(tmp_path, dialogue_parsing(dataset="stac", order="file"), scripted_model(respond), limit=1)
    sample = log.samples[0]
    assert sample.id == "stac_s1-league3-game3_1"
    users = [m.text for m in sample.messages if isinstance(m, ChatMessageUser)]
    n_turns = sample.metadata["n_turns"]
    assert len(users) == n_turns == 7
    assert "## Structure:\n\n\n\n## New turn:\n\n1. Gaeilgeoir: I have wheat and wood" in users[0]
    # gold of turns 1-3 is ELABORATION(0,1) QA_PAIR(0,2) QA_PAIR(0,3): the agent must not see it
    assert "## Structure:\n\nPARALLEL(0,1) PARALLEL(1,2) PARALLEL(2,3)\n\n## New turn:\n\n4. " in users[3]
    for k, prompt in enumerate(users, start=1):
        structure = prompt.split("## Structure:\n\n")[1].split("\n\n## New turn:")[0]
        assert structure == " ".join(f"PARALLEL({y - 1},{y})" for y in range(1, k))
        assert "QA_PAIR" not in structure and "ELABORATION" not in structure
    score = sample.scores["dialogue_parsing_scorer"]
    # by hand from the file: gold links of s1-league3-game3_1 with x = y - 1
    gold = [parse_gold(t["gold"]) for t in sample.metadata["turns"]]
    gold_links = sum(len({r.link for r in g}) for g in gold)
    hits = sum(1 for j, g in enumerate(gold, start=1) if (j - 1, j) in {r.link for r in g})
    counts = score.value
    assert (counts["link_tp"], counts["link_pred"], counts["link_gold"]) == (hits, 7, gold_links)
    assert counts["full_tp"] == 0  # no PARALLEL in this dialogue's gold
    assert counts["relations_invalid"] == 7 and counts["relations_read"] == 14
    assert counts["link_f1"] == pytest.approx(2 * hits / (7 + gold_links))  # the sample's own F1, for the viewer
    assert not {"counts"} & set(score.metadata)  # the counts live in the value only
    record = sample.store[TURNS_STORE_KEY][3]  # what the solver read, once
    assert record["completion"] == "Sure: PARALLEL(3, 4) BOGUS(3,4)"
    assert record["relations"] == [[3, 4, "PARALLEL"]] and record["invalid"] == ["BOGUS(3,4)"] and record["read"] == 2
    turn_records = score.metadata["turns"]
    assert turn_records[3]["predicted"] == "PARALLEL(3,4)" and turn_records[3]["invalid"] == ["BOGUS(3,4)"]
    metrics = _metrics(log)
    assert metrics["invalid_rate"]["stac"] == pytest.approx(0.5)
    assert metrics["link_precision"]["stac"] == pytest.approx(hits / 7)
    assert metrics["link_precision"]["all"] == pytest.approx(hits / 7)
    # one dialogue: every measure has an overall and a stac entry, each with a standard error (0 for one sample)
    assert sorted(metrics) == sorted(MEASURE_NAMES)
    assert all(set(groups) == {"all", "stac"} for groups in metrics.values())
    assert all(value == 0.0 for groups in _stderrs(log).values() for value in groups.values())
    info = [e for e in sample.events if e.event == "info" and (e.source or "").startswith("dialogue_parsing turn")]
    assert len(info) == 7 and info[0].data == {"turn": 1, "predicted": "PARALLEL(0,1)", "invalid": ["BOGUS(0,1)"]}


def _gold_model():
    """Answers each turn with its gold, looked up in the active sample's metadata (turn from the prompt)."""

    def respond(messages: Sequence[ChatMessage]) -> str:
        state = sample_state()
        assert state is not None
        gold = {t["turn"]: t["gold"] for t in state.metadata["turns"]}
        return gold[_new_turn(messages)]

    return scripted_model(respond)


def _check_gold_run(log: EvalLog, dataset: str, turns: int, samples: int, empty: int) -> None:
    metrics = _metrics(log)
    assert len(log.samples) == samples
    assert sum(s.scores["dialogue_parsing_scorer"].value["turns"] for s in log.samples) == turns
    stderrs = _stderrs(log)
    for key in ("link_f1", "full_f1", "link_precision", "link_recall", "full_precision", "full_recall"):
        assert metrics[key][dataset] == metrics[key]["all"] == 1.0, key
        assert stderrs[key][dataset] == stderrs[key]["all"] == 0.0, key  # every resample is perfect too
    assert metrics["invalid_rate"][dataset] == 0.0
    assert metrics["no_relation_rate"][dataset] == pytest.approx(empty / turns)


TURNS = {"stac": 1045, "molweni": 3930, "msdc": 4914}
"""Turns (records) of each data file."""

EMPTY_GOLD = {"stac": 4, "molweni": 19, "msdc": 8}
"""Turns without gold relations: their gold answer is empty, so no relation is read."""


def _reference_dialogues(data_root: Path, dataset: str) -> dict[str, list[dict]]:
    """The data file's records grouped by dialogue (``doc_id`` ``<dialogue>_<turn>``), in file order, read with
    ``json`` alone: the reference the loader is checked against."""
    dialogues: dict[str, list[dict]] = {}
    for record in json.loads((data_root / DATA_FILES[dataset]).read_text(encoding="utf-8")):
        dialogues.setdefault(record["doc_id"].rpartition("_")[0], []).append(record)
    return dialogues


def _gold_subset(data_root: Path, dataset: str) -> dict[str, list[dict]]:
    """The records of the first two dialogues of the file and of the first dialogue with an empty-gold turn."""
    dialogues = _reference_dialogues(data_root, dataset)
    names = list(dialogues)[:2]
    names += [next(n for n in dialogues if n not in names and any(not r["gold"].strip() for r in dialogues[n]))]
    return {name: dialogues[name] for name in names}


@pytest.mark.slow
@pytest.mark.parametrize("dataset", DATASETS)
def test_gold_run_incremental(tmp_path: Path, data_root: Path, dataset: str) -> None:
    """The agent answering each turn with its gold scores 1 everywhere, on three dialogues of each dataset (one
    with an empty-gold turn); every turn of every dialogue is read the same way by
    :func:`test_every_gold_answer_reads_as_its_gold_relations`."""
    subset = _gold_subset(data_root, dataset)
    ids = [f"{dataset}_{name}" for name in subset]
    log = _run(tmp_path, dialogue_parsing(dataset=dataset, mode="incremental"), _gold_model(), sample_id=ids)
    records = [r for rs in subset.values() for r in rs]
    _check_gold_run(log, dataset, len(records), len(subset), sum(not r["gold"].strip() for r in records))


@pytest.mark.slow
@pytest.mark.parametrize("dataset", DATASETS)
def test_gold_run_single_turn(tmp_path: Path, data_root: Path, dataset: str) -> None:
    records = [r for rs in _gold_subset(data_root, dataset).values() for r in rs]
    task = dialogue_parsing(dataset=dataset, mode="single-turn")
    log = _run(
        tmp_path,
        task,
        scripted_model(["unused"]),
        solver=answer_with(lambda s: s.metadata["gold"]),
        sample_id=[f"{dataset}_{r['doc_id']}" for r in records],
    )
    _check_gold_run(log, dataset, len(records), len(records), sum(not r["gold"].strip() for r in records))


def _assert_gold_read_back(total: TurnCounts, dataset: str) -> None:
    assert total.turns == TURNS[dataset]
    assert total.link_tp == total.link_pred == total.link_gold > 0
    assert total.full_tp == total.full_pred == total.full_gold > 0
    assert (total.relations_invalid, total.no_relation) == (0, EMPTY_GOLD[dataset])


@pytest.mark.parametrize("dataset", DATASETS)
def test_every_gold_answer_reads_as_its_gold_relations(dataset: str) -> None:
    """Over the whole dataset, each turn's gold given as the answer is read (:func:`read_turn`, against the turn's
    prompt as each mode builds it, the incremental one from the relations read so far as the agent does) as exactly
    its gold relations: nothing invalid, no echo, every count of the F1s equal on both sides."""
    relations = RELATIONS[dataset]
    total = TurnCounts()
    for sample in load_dataset(dataset, "single-turn").dataset:
        meta = sample.metadata
        assert isinstance(sample.input, str)
        parsed = read_turn(meta["gold"], sample.input, meta["turn"], relations, meta["n_edus"])
        total = total + count_turn(parsed, parse_gold(meta["gold"]))
    _assert_gold_read_back(total, dataset)
    total = TurnCounts()
    for sample in load_dataset(dataset, "incremental", order="file").dataset:
        edus, predicted = sample.metadata["edus"], {}
        for turn in sample.metadata["turns"]:
            j = turn["turn"]
            parsed = read_turn(turn["gold"], turn_prompt(edus, predicted, j), j, relations, len(edus))
            predicted[j] = format_relations(parsed.valid)
            total = total + count_turn(parsed, parse_gold(turn["gold"]))
    _assert_gold_read_back(total, dataset)


def test_garbage_answers_never_crash_and_count_invalid(tmp_path: Path) -> None:
    rng = random.Random(0)
    alphabet = "QA_PAIR(),0123456789 xyz\n<think>*"

    def respond(messages: Sequence[ChatMessage]) -> str:
        j = _new_turn(messages)
        noise = "".join(rng.choice(alphabet) for _ in range(40))
        return f"{noise} NOT_A_LABEL(0,{j}) QA_PAIR({j},{j + 1})"

    log = _run(
        tmp_path,
        dialogue_parsing(dataset="molweni", mode="incremental", order="file"),
        scripted_model(respond),
        limit=5,
    )
    metrics = _metrics(log)
    assert len(log.samples) == 5
    total = {
        k: sum(s.scores["dialogue_parsing_scorer"].value[k] for s in log.samples)
        for k in ("turns", "relations_invalid", "relations_read")
    }
    assert total["relations_invalid"] >= 2 * total["turns"]
    assert metrics["invalid_rate"]["molweni"] == pytest.approx(total["relations_invalid"] / total["relations_read"])


def test_hostile_answers_are_invalid_and_never_fed_back(tmp_path: Path) -> None:
    """Through the whole pipeline: a 5,000-digit number, parents outside the dialogue and a 100,000-character
    garbage tail are read as invalid relations (counted), the eval succeeds, and only the valid relation
    reaches the next turn's structure."""
    huge = "9" * 5000

    def respond(messages: Sequence[ChatMessage]) -> str:
        j = _new_turn(messages)
        return (
            f"QAP({huge}, {j}) QA_PAIR(99999999999999999999,{j}) QA_PAIR(1000000,{j}) "
            f"QA_PAIR({j + 50},{j}) COMMENT({j - 1},{j}) " + "ha" * 50_000
        )

    log = _run(tmp_path, dialogue_parsing(dataset="stac", order="file"), scripted_model(respond), limit=1)
    metrics = _metrics(log)
    sample = log.samples[0]
    assert sample.metadata["n_turns"] == 7 and len(sample.metadata["edus"]) == 8  # j + 50 is never an utterance
    users = [m.text for m in sample.messages if isinstance(m, ChatMessageUser)]
    for k, prompt in enumerate(users, start=1):
        structure = prompt.split("## Structure:\n\n")[1].split("\n\n## New turn:")[0]
        assert structure == " ".join(f"COMMENT({y - 1},{y})" for y in range(1, k))
    counts = sample.scores["dialogue_parsing_scorer"].value
    assert (counts["relations_read"], counts["relations_invalid"], counts["link_pred"]) == (35, 28, 7)
    assert metrics["invalid_rate"]["stac"] == pytest.approx(28 / 35)


def test_single_turn_parent_bound_is_the_dialogue_length(tmp_path: Path) -> None:
    """Single-turn samples carry their dialogue's length: a backward parent inside it is valid, one past it not."""
    task = dialogue_parsing(dataset="stac", mode="single-turn")

    def answer(state) -> str:  # noqa: ANN001
        j, n = state.metadata["turn"], state.metadata["n_edus"]
        return f"COMMENT({n - 1},{j}) COMMENT({n},{j}) COMMENT({'9' * 5000},{j})"

    log = _run(tmp_path, task, scripted_model(["unused"]), solver=answer_with(answer), limit=7)
    _metrics(log)
    for sample in log.samples:
        score = sample.scores["dialogue_parsing_scorer"]
        j, n = sample.metadata["turn"], sample.metadata["n_edus"]
        assert n == 8
        expected = [] if j == n - 1 else [f"COMMENT({n - 1},{j})"]  # the last turn cannot be its own parent
        assert score.answer.split() == (expected or [INVALID_ANSWER])  # nothing readable: the suite's <invalid>
        assert score.value["relations_invalid"] == 3 - len(expected)


def test_dialogue_stopped_by_a_limit_is_scored_on_the_turns_it_answered(tmp_path: Path) -> None:
    """A message limit stops the agent mid-dialogue: the answered turns stay in the store and are scored."""

    def respond(messages: Sequence[ChatMessage]) -> str:
        j = _new_turn(messages)
        return f"QA_PAIR({j - 1},{j})"

    log = _run(
        tmp_path, dialogue_parsing(dataset="stac", order="file"), scripted_model(respond), limit=1, message_limit=6
    )
    sample = log.samples[0]
    assert sample.limit is not None and sample.limit.type == "message"
    calls = [e for e in sample.events if e.event == "model"]
    records = sample.store["dialogue_parsing_turns"]
    # system + (user, assistant) per turn: the third turn's assistant message is the 7th, over the limit of 6
    assert len(calls) == len(records) == 3
    assert [r["turn"] for r in records] == [1, 2, 3] and records[2]["completion"] == "QA_PAIR(2,3)"
    turns = sample.scores["dialogue_parsing_scorer"].metadata["turns"]
    assert len(turns) == sample.metadata["n_turns"] == 7
    assert [t["answered"] for t in turns] == [True] * 3 + [False] * 4
    assert [t["predicted"] for t in turns[:4]] == ["QA_PAIR(0,1)", "QA_PAIR(1,2)", "QA_PAIR(2,3)", ""]
    # the unanswered turns count: their gold is missed and they read no relation
    value = sample.scores["dialogue_parsing_scorer"].value
    gold = [parse_gold(t["gold"]) for t in sample.metadata["turns"]]
    hits = sum(1 for j, g in enumerate(gold[:3], start=1) if (j - 1, j) in {r.link for r in g})
    assert (value["turns"], value["no_relation"], value["link_pred"]) == (7, 4, 3)
    assert (value["link_tp"], value["link_gold"]) == (hits, sum(len({r.link for r in g}) for g in gold))
    assert value["output_tokens"] == 3  # one word per answered turn (the scripted usage)


@solver
def _overwrite_stored_completions() -> Solver:
    """After the agent: replace every stored completion by one that would parse to other relations."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        for record in state.store.get(TURNS_STORE_KEY):
            record["completion"] = f"COMMENT(0,{record['turn']})"
        return state

    return solve


def test_scorer_counts_what_the_agent_read_without_parsing_again(tmp_path: Path) -> None:
    """The answer of a turn is parsed once, by the agent: the scorer counts the stored relations, so changing
    the stored completions afterwards changes no count."""

    def respond(messages: Sequence[ChatMessage]) -> str:
        j = _new_turn(messages)
        return f"QA_PAIR({j - 1},{j})"

    task = dialogue_parsing(dataset="stac")
    plain = _run(tmp_path / "plain", task, scripted_model(respond), limit=2)
    altered = _run(
        tmp_path / "altered",
        task,
        scripted_model(respond),
        limit=2,
        solver=[incremental_parser(), _overwrite_stored_completions()],
    )
    for before, after in zip(plain.samples, altered.samples, strict=True):
        assert after.store[TURNS_STORE_KEY][0]["completion"] == "COMMENT(0,1)"
        assert after.scores["dialogue_parsing_scorer"].value == before.scores["dialogue_parsing_scorer"].value
        assert after.scores["dialogue_parsing_scorer"].answer.split()[:2] == ["QA_PAIR(0,1)", "QA_PAIR(1,2)"]
    assert _metrics(altered) == _metrics(plain)
