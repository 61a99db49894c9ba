"""Loaders on the real mirrored files: counts, ids, data quirks, prompts, windows, bad data and parameters."""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

import pytest

from bediscover_inspect.data import REGISTRY, DataFormatError, git_blob_sha1
from bediscover_inspect.dialogue_parsing.dataset import DATASETS, load_dataset, parse_datasets
from bediscover_inspect.dialogue_parsing.prompts import RELATIONS, SYSTEM_PROMPTS
from bediscover_inspect.dialogue_parsing.relations import parse_gold
from bediscover_inspect.dialogue_parsing.solver import turn_prompt
from bediscover_inspect.dialogue_parsing.task import dialogue_parsing
from tests.conftest import PAPER_TEXT
from tests.helpers import assert_sha1_warning

pytestmark = pytest.mark.filterwarnings("ignore:.*differs from the pinned")  # the mirror's msdc is a rebuild

TURNS = {"stac": 1045, "molweni": 3930, "msdc": 4914}
DIALOGUES = {"stac": 109, "molweni": 500, "msdc": 101}


@pytest.fixture(scope="module")
def single() -> dict[str, list]:
    return {d: list(load_dataset(d, "single-turn").dataset) for d in DATASETS}


@pytest.fixture(scope="module")
def incremental() -> dict[str, list]:
    return {d: list(load_dataset(d, "incremental", order="file").dataset) for d in DATASETS}


@pytest.mark.parametrize("dataset", DATASETS)
def test_counts(dataset: str, single: dict, incremental: dict) -> None:
    assert len(single[dataset]) == TURNS[dataset]
    assert len(incremental[dataset]) == DIALOGUES[dataset]
    assert sum(s.metadata["n_turns"] for s in incremental[dataset]) == TURNS[dataset]
    assert len({s.id for s in single[dataset]}) == TURNS[dataset]


def test_stable_ids_and_metadata(single: dict, incremental: dict) -> None:
    first = single["stac"][0]
    assert first.id == "stac_s1-league3-game3_1_01"
    assert first.metadata == {
        "dataset": "stac",
        "dialogue": "s1-league3-game3_1",
        "turn": 1,
        "doc_id": "s1-league3-game3_1_01",
        "gold": "ELABORATION(0,1)",
        "n_edus": 8,
    }
    dialogue = incremental["stac"][0]
    assert dialogue.id == "stac_s1-league3-game3_1"
    assert dialogue.metadata["edus"][:2] == [
        "0. Gaeilgeoir: anyone have clay? :)",
        "1. Gaeilgeoir: I have wheat and wood",
    ]
    assert dialogue.metadata["turns"][6] == {
        "turn": 7,
        "doc_id": "s1-league3-game3_1_07",
        "gold": "ACKNOWLEDGEMENT(5,7) ACKNOWLEDGEMENT(2,7) ACKNOWLEDGEMENT(3,7)",
    }
    assert incremental["molweni"][0].id == "molweni_1038"
    # n_edus (the valid parents' bound) is the dialogue's length in both modes
    assert {s.metadata["n_edus"] for s in single["stac"][:7]} == {len(dialogue.metadata["edus"])} == {8}


@pytest.mark.parametrize(
    ("dataset", "backward", "duplicate_pair_turns", "empty_gold", "relations"),
    # the corpora's documented counts: backward STAC 8 / MSDC 56; duplicate pairs STAC 2 / MSDC 7;
    # empty gold 4 / 19 / 8; relations STAC 1127, Molweni 3911, MSDC 6018
    [("stac", 8, 2, 4, 1127), ("molweni", 0, 0, 19, 3911), ("msdc", 56, 7, 8, 6018)],
)
def test_gold_quirks(
    dataset: str, backward: int, duplicate_pair_turns: int, empty_gold: int, relations: int, single: dict
) -> None:
    golds = [parse_gold(s.metadata["gold"]) for s in single[dataset]]
    # the checks of the loader hold on the real files: labels of the prompt's set, no self-loop, every parent
    # (backward ones included) an utterance of its dialogue, i.e. every gold relation is a valid prediction
    for sample, gold in zip(single[dataset], golds, strict=True):
        assert all(r.label in RELATIONS[dataset] and r.x != r.y and r.x < sample.metadata["n_edus"] for r in gold)
    assert sum(len(g) for g in golds) == relations
    assert sum(1 for g in golds for r in g if r.x > r.y) == backward
    assert sum(1 for g in golds if len({r.link for r in g}) < len(g)) == duplicate_pair_turns
    assert sum(1 for g in golds if not g) == empty_gold


@pytest.mark.paper
def test_system_prompts_verbatim_from_paper() -> None:
    text = PAPER_TEXT.read_text(encoding="utf-8")
    start = "A conversation between User and Assistant. The User provides a"
    paragraphs = [p for p in text.splitlines() if p.startswith(start)]
    stac_molweni = next(p for p in paragraphs if "boardgame dialogue history / Ubuntu chat log" in p).strip()
    msdc = next(p for p in paragraphs if "Minecraft game history" in p).strip()
    assert SYSTEM_PROMPTS["msdc"] == msdc
    both = "boardgame dialogue history / Ubuntu chat log"
    assert SYSTEM_PROMPTS["stac"] == stac_molweni.replace(both, "boardgame dialogue history")
    assert SYSTEM_PROMPTS["molweni"] == stac_molweni.replace(both, "Ubuntu chat log")


def test_user_prompt_fields(single: dict) -> None:
    record_7 = single["stac"][6]
    user = record_7.input
    assert user.startswith("## Context:\n\n0. Gaeilgeoir: anyone have clay? :)\n1. Gaeilgeoir: I have wheat and wood\n")
    structure = "ELABORATION(0,1) QA_PAIR(0,2) QA_PAIR(0,3) COMMENT(3,4) QA_PAIR(0,5) ELABORATION(5,6)"
    assert f"\n\n## Structure:\n\n{structure}\n\n" in user
    assert "\n\n## New turn:\n\n7. Gaeilgeoir: oh well\n\nQuestion: What is the discourse structure" in user
    assert user.endswith("Provide the answer in the format: RELATION(S_ID1, S_ID2).")


def _structure_of(prompt: str) -> str:
    return prompt.split("## Structure:\n\n")[1].split("\n\n## New turn:")[0]


@pytest.mark.parametrize(("dataset", "gapped"), [("stac", 32), ("molweni", 105), ("msdc", 121)])
def test_gold_fed_incremental_prompts_equal_single_turn_prompts(
    dataset: str, gapped: int, single: dict, incremental: dict
) -> None:
    """With its own predictions equal to gold, the agent sees the data file's prompt of each turn, except that
    the structure has no empty slot where the file's shows a gold head without relation as a double space
    (``gapped`` such prompts per corpus).

    One known exception: Molweni 5032_09, whose data ``context`` skips EDU 8 (a glitch of the file).
    """
    expected = {s.id: s.input for s in single[dataset]}
    differing, collapsed = [], 0
    for sample in incremental[dataset]:
        gold = {t["turn"]: t["gold"] for t in sample.metadata["turns"]}
        for t in sample.metadata["turns"]:
            ours, theirs = turn_prompt(sample.metadata["edus"], gold, t["turn"]), expected[f"{dataset}_{t['doc_id']}"]
            structure = _structure_of(theirs)
            compact = " ".join(structure.split())
            if structure != compact and t["doc_id"] != "5032_09":
                collapsed += 1
                theirs = theirs.replace(f"## Structure:\n\n{structure}\n\n", f"## Structure:\n\n{compact}\n\n")
            assert "  " not in _structure_of(ours)
            if ours != theirs:
                differing.append(t["doc_id"])
    assert differing == (["5032_09"] if dataset == "molweni" else [])
    assert collapsed == gapped


EXPECTED_STAC_TURN_4_AFTER_AN_EMPTY_TURN = """## Context:

0. Gaeilgeoir: anyone have clay? :)
1. Gaeilgeoir: I have wheat and wood
2. yiin: no sorry
3. inca: not any more,

## Structure:

ELABORATION(0,1) QA_PAIR(0,3)

## New turn:

4. inca: sorry

Question: What is the discourse structure of the new turn in relation to the context? \
Provide the answer in the format: RELATION(S_ID1, S_ID2)."""


def test_rendered_prompt_after_a_turn_without_prediction(incremental: dict) -> None:
    # STAC dialogue s1-league3-game3_1: the model found no relation for turn 2; turn 4's structure skips it
    sample = incremental["stac"][0]
    assert sample.id == "stac_s1-league3-game3_1"
    predicted = {1: "ELABORATION(0,1)", 2: "", 3: "QA_PAIR(0,3)"}
    assert turn_prompt(sample.metadata["edus"], predicted, 4) == EXPECTED_STAC_TURN_4_AFTER_AN_EMPTY_TURN
    # nothing predicted at all: an empty structure section
    assert "## Structure:\n\n\n\n## New turn:" in turn_prompt(sample.metadata["edus"], {1: "", 2: ""}, 3)


def test_prompt_size_bounded_by_window(incremental: dict) -> None:
    longest = max(incremental["msdc"], key=lambda s: s.metadata["n_turns"])
    assert longest.metadata["n_turns"] >= 100
    edus = longest.metadata["edus"]
    # worst case: every earlier turn predicted with three relations
    predicted = {j: f"COMMENT({j - 1},{j}) RESULT(0,{j}) NARRATION(1,{j})" for j in range(1, len(edus))}
    last = turn_prompt(edus, predicted, len(edus) - 1)
    context = last.split("## Context:\n\n")[1].split("\n\n## Structure:")[0].split("\n")
    structure = last.split("## Structure:\n\n")[1].split("\n\n## New turn:")[0]
    assert len(context) == 17 and context[0].startswith(f"{len(edus) - 18}. ")
    heads = {int(m) for m in re.findall(r",(\d+)\)", structure)}
    assert heads == set(range(len(edus) - 18, len(edus) - 1))


def test_bad_parameters_name_the_choices() -> None:
    with pytest.raises(ValueError, match=r"\['stac', 'molweni', 'msdc'\]"):
        dialogue_parsing(dataset="stacc")
    with pytest.raises(ValueError, match=r"\['incremental', 'single-turn'\]"):
        dialogue_parsing(dataset="stac", mode="autoregressive")
    with pytest.raises(ValueError, match=r"\['paper', 'full'\]"):
        dialogue_parsing(dataset="stac", subset="half")
    assert parse_datasets("msdc, stac") == ["stac", "msdc"]
    assert parse_datasets("all") == ["stac", "molweni", "msdc"]


def _broken_root(tmp_path: Path, data_root: Path, edit) -> Path:
    records = json.loads((data_root / "ddp/stac/test_id.json").read_text(encoding="utf-8"))
    edit(records)
    target = tmp_path / "ddp" / "stac" / "test_id.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(records), encoding="utf-8")
    return tmp_path


@pytest.mark.filterwarnings("ignore:.*differs from the pinned")
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r[3].pop("gold"), r"record 3 \(id=3\): missing field 'gold'"),
        (lambda r: r[3].update(gold="QA_PAIR(0,2)"), r"s1-league3-game3_1_04.*'gold' has QA_PAIR\(0,2\)"),
        (lambda r: r[3].update(gold="QA_PAIR 0 4"), r"s1-league3-game3_1_04.*field 'gold': not a relation"),
        (lambda r: r[3].update(new_turn="9. inca: sorry"), r"field 'new_turn' should start with '4. '"),
        # unknown gold labels, self-loops and parents past the dialogue are load errors
        (
            lambda r: r[3].update(gold="FOOBAR(0,4)"),
            r"record 3 \(doc_id='s1-league3-game3_1_04'\): field 'gold' has FOOBAR\(0,4\) whose label 'FOOBAR' is not",
        ),
        (
            lambda r: r[3].update(gold="QA_PAIR(0,4) CONFIRM_Q(1,4)"),  # an MSDC label, not a STAC one
            r"record 3 .*field 'gold' has CONFIRM_Q\(1,4\) whose label 'CONFIRM_Q' is not one of the dataset's",
        ),
        (
            lambda r: r[1].update(gold="COMMENT(2,2)"),
            r"record 1 \(doc_id='s1-league3-game3_1_02'\): field 'gold' has COMMENT\(2,2\), a self-loop",
        ),
        (
            lambda r: r[3].update(gold="QA_PAIR(8,4)"),  # the dialogue has utterances 0 … 7
            r"record 3 .*field 'gold' has QA_PAIR\(8,4\) whose parent is not an utterance of the dialogue \(ids 0 … 7\)",
        ),
    ],
)
@pytest.mark.parametrize("mode", ["single-turn", "incremental"])
def test_bad_data_names_file_record_field(tmp_path: Path, data_root: Path, edit, message: str, mode: str) -> None:
    root = _broken_root(tmp_path, data_root, edit)
    with pytest.raises(DataFormatError, match=message) as info:
        dialogue_parsing(dataset="stac", mode=mode, data_dir=str(root))
    assert "ddp/stac/test_id.json" in str(info.value)


@pytest.mark.filterwarnings("ignore:.*differs from the pinned")
def test_missing_turn_breaks_only_incremental(tmp_path: Path, data_root: Path) -> None:
    root = _broken_root(tmp_path, data_root, lambda r: r.pop(3))
    assert len(load_dataset("stac", "single-turn", data_dir=str(root)).dataset) == 1044
    with pytest.raises(DataFormatError, match=r"turn 5 of dialogue 's1-league3-game3_1', expected 4"):
        load_dataset("stac", "incremental", data_dir=str(root))


@pytest.mark.paper
def test_user_prompt_template_verbatim_from_paper() -> None:
    text = PAPER_TEXT.read_text(encoding="utf-8")
    section = text.split("B.5 Task (5) Dialogue Discourse Parsing")[1].split("Table 12:")[0]
    paper_lines = [line.strip() for line in section.split("User prompt:")[1].splitlines() if line.strip()]
    from bediscover_inspect.dialogue_parsing.prompts import USER_PROMPT_TEMPLATE

    ours = USER_PROMPT_TEMPLATE.format(context="<CONTEXT>", structure="<STRUCTURE>", new_turn="<NEW TURN>")
    assert ours.split("\n\n") == paper_lines


def test_task_metadata_version_and_the_msdc_provenance(data_root: Path) -> None:
    """Every parameter is in the log metadata as resolved; msdc's provenance says whether its bytes are the pinned
    ones (the project's data mirror holds a rebuild, which loads with a SHA-1 warning; the authors' file does not)."""
    path = "ddp/msdc/test_id.json"
    pinned = git_blob_sha1((data_root / path).read_bytes()) == REGISTRY[path].sha1
    with nullcontext() if pinned else assert_sha1_warning():
        task = dialogue_parsing(dataset="msdc, stac", mode="single-turn")
    assert task.version == 2
    assert task.metadata["parameters"] == {
        "dataset": ["stac", "msdc"],
        "mode": "single-turn",
        "subset": "paper",
        "data_dir": None,
        "reasoning": False,
        "presets": "auto",
        "order": "longest-first",
        "per_dataset": None,
    }
    data = task.metadata["data"]
    assert data["ddp/stac/test_id.json"]["verified"] is True
    assert data["ddp/msdc/test_id.json"]["verified"] is pinned
    assert data["ddp/msdc/test_id.json"]["records_used"] == TURNS["msdc"]
    assert task.metadata["absent"] == {}
    assert len(task.dataset) == TURNS["stac"] + TURNS["msdc"]


def _root_with_stac_only(tmp_path: Path, data_root: Path) -> Path:
    target = tmp_path / "ddp" / "stac" / "test_id.json"
    target.parent.mkdir(parents=True)
    target.write_bytes((data_root / "ddp/stac/test_id.json").read_bytes())
    return tmp_path


def test_absent_file_is_skipped_by_default_and_an_error_when_named(
    tmp_path: Path, data_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from bediscover_inspect.data import DataFileMissingError

    root = str(_root_with_stac_only(tmp_path, data_root))
    with caplog.at_level(logging.WARNING):
        loaded = load_dataset("all", "incremental", data_dir=root)
    assert "dialogue_parsing: 2 of the 3 selected datasets are absent and skipped" in caplog.text
    assert loaded.datasets == ["stac"] and len(loaded.dataset) == DIALOGUES["stac"]
    assert set(loaded.files.absent) == {"molweni", "msdc"}
    task = dialogue_parsing(data_dir=root)
    assert task.metadata["parameters"]["dataset"] == ["stac"] and set(task.metadata["absent"]) == {"molweni", "msdc"}
    with pytest.raises(DataFileMissingError, match=r"ddp/molweni/test_id\.json.*ddp/msdc/test_id\.json"):
        dialogue_parsing(dataset="stac,molweni,msdc", data_dir=root)
    with pytest.raises(DataFileMissingError, match=r"ddp/msdc/test_id\.json"):
        load_dataset("msdc", "single-turn", data_dir=root)


def test_longest_dialogues_first_is_the_file_order_stably_sorted_by_turns(data_root: Path) -> None:
    """Default order: most turns first, ties in file order; counted from the raw STAC file, not from the loader."""
    records = json.loads((data_root / "ddp/stac/test_id.json").read_text(encoding="utf-8"))
    counts = Counter(record["doc_id"].rsplit("_", 1)[0] for record in records)  # dialogue -> turns, file order
    expected = [f"stac_{name}" for name, _ in sorted(counts.items(), key=lambda item: -item[1])]
    assert expected[:3] == ["stac_s2-league4-game2_36", "stac_pilot02_5", "stac_s2-league4-game2_35"]
    loaded = list(load_dataset("stac").dataset)
    assert [sample.id for sample in loaded] == expected
    assert [sample.metadata["n_turns"] for sample in loaded[:3]] == [36, 32, 32]


def test_order_is_checked_and_single_turn_keeps_the_file_order() -> None:
    with pytest.raises(ValueError, match=r"order must be one of \['longest-first', 'file'\], got 'random'"):
        load_dataset("stac", order="random")
    assert next(iter(load_dataset("stac", "single-turn").dataset)).id == "stac_s1-league3-game3_1_01"
