"""Loaders and prompts of Task (2) on the real mirrored files (counts, ids, rendered prompts, data quirks)."""

from __future__ import annotations

import collections
import json
import re

import pytest

from bediscover_inspect.data import DataFormatError
from bediscover_inspect.temporal_reasoning.dataset import (
    TOT_CATEGORIES,
    event_sentences,
    load_dataset,
    parse_datasets,
    record_to_sample,
)
from bediscover_inspect.temporal_reasoning.prompts import RELATION_SYSTEM_PROMPT, TOT_SYSTEM_PROMPT
from bediscover_inspect.temporal_reasoning.task import temporal_reasoning
from tests.conftest import PAPER_TEXT


def _records(data_root, folder):
    return json.loads((data_root / "tr" / folder / "test_id.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def samples():
    loaded = {}
    for dataset in ("tbd", "tdd-man", "tot-arithmetic"):
        loaded[dataset] = list(load_dataset(dataset).dataset)
    return loaded


def test_counts_and_ids_match_the_paper(samples):
    # Table 1: 1515 / 1,500 / 1,850
    assert {k: len(v) for k, v in samples.items()} == {"tbd": 1515, "tdd-man": 1500, "tot-arithmetic": 1850}
    # ids zero-padded to each file's width (4 digits: 1515, 1500, 1850 records)
    assert samples["tbd"][0].id == "tbd_0000" and samples["tdd-man"][-1].id == "tdd-man_1499"
    assert samples["tot-arithmetic"][35].id == "tot-arithmetic_0035"
    for group in samples.values():
        assert len({s.id for s in group}) == len(group)


def test_label_and_category_counts(samples):
    tbd = collections.Counter(s.target for s in samples["tbd"])
    assert tbd == {"NONE": 642, "BEFORE": 390, "AFTER": 291, "IS_INCLUDED": 76, "INCLUDES": 68, "SIMULTANEOUS": 48}
    tdd = collections.Counter(s.target for s in samples["tdd-man"])
    assert tdd == {"INCLUDES": 572, "BEFORE": 401, "IS_INCLUDED": 293, "AFTER": 188, "SIMULTANEOUS": 46}
    categories = collections.Counter(s.metadata["category"] for s in samples["tot-arithmetic"])
    assert categories == {"as": 350, "cmp": 350, "mop": 350, "scd": 250, "trk": 250, "dur": 200, "tz": 100}


def test_tbd_contradictory_duplicates_are_kept_and_counted(samples):
    # SOURCE.md: 20 duplicated (doc, e1, e2) pairs, one real relation and one NONE each; identical prompts.
    by_prompt = collections.defaultdict(list)
    for sample in samples["tbd"]:
        by_prompt[sample.input].append(sample.target)
    contradictory = [golds for golds in by_prompt.values() if len(set(golds)) > 1]
    assert len(by_prompt) == 1495 and len(contradictory) == 20
    assert all(len(g) == 2 and "NONE" in g for g in contradictory)
    # the best any prompt-determined answer can reach on TBD
    ceiling = sum(max(collections.Counter(g).values()) for g in by_prompt.values())
    assert ceiling == 1495  # 98.68 %
    assert len({s.input for s in samples["tdd-man"]}) == 1500


def test_tbd_prompt_rendered_against_table9(samples):
    sample = samples["tbd"][0]
    text = sample.input
    assert text.startswith("Given the document:\nADDIS ABABA, Ethiopia (AP)_ The Organization of African Unity")
    assert "Hutu-organized <EVENT e4>genocide</EVENT> of more" in text
    assert "member-states <EVENT e5>meeting</EVENT> in the" in text
    assert text.endswith(
        "\n\nQuesiton: What is the temporal relation of EVENT e4 with respect to EVENT e5? "
        "Choose one of the following labels: [IS_INCLUDED, INCLUDES, SIMULTANEOUS, BEFORE, AFTER, NONE]."
    )
    assert sample.target == "BEFORE" and sample.metadata["gold"] == "BEFORE"
    assert sample.metadata["dataset"] == "tbd" and sample.metadata["doc_id"] == "APW19980227.0489"


def test_tdd_prompt_rendered_against_table9(samples):
    sample = samples["tdd-man"][0]
    assert sample.input.startswith("Given the document:\nBUDAPEST, Hungary (AP)_ Tired of being sidelined")
    assert "Farkas is <EVENT e2>leaving</EVENT> for" in sample.input
    assert sample.input.endswith(
        "Quesiton: What is the temporal relation of EVENT e2 with respect to EVENT e11? "
        "Choose one of the following labels: [IS_INCLUDED, INCLUDES, SIMULTANEOUS, BEFORE, AFTER, NONE]."
    )
    assert sample.target == "SIMULTANEOUS"


def test_tot_prompt_rendered_against_table9(samples):
    sample = samples["tot-arithmetic"][0]
    assert sample.input == (
        "The war started in 360 BC and went on for 8 years. What year did the war end in?\n"
        'Answer with the form of: {"answer": <year> <era>}, where year is yyyy and era is one of "BC" or "AD". '
        "Eg: 1958 BC"
    )
    assert sample.target == "{'answer': '352 BC'}"
    assert sample.metadata["gold_answer"] == {"answer": "352 BC"}
    assert sample.metadata["category"] == "as" and sample.metadata["question_type"] == "add_subtract"


def _paper_prompt_lines() -> list[str]:
    text = PAPER_TEXT.read_text(encoding="utf-8")
    section = text[text.index("B.2 Task (2) Temporal Reasoning") : text.index("B.3 Task (3)")]
    return [line.strip() for line in section.splitlines() if line.strip()]


@pytest.mark.paper
def test_system_prompts_are_the_papers_words():
    lines = _paper_prompt_lines()
    relation = next(line for line in lines if line.startswith("A conversation") and "temporal relation" in line)
    labels = next(line for line in lines if line.startswith("Choose one of the following six labels"))
    assert RELATION_SYSTEM_PROMPT == relation + "\n" + labels
    tot = next(line for line in lines if line.startswith("A conversation") and "arithmetic" in line)
    assert TOT_SYSTEM_PROMPT == tot
    question = next(line for line in lines if line.startswith("Quesiton:"))
    template = re.escape(question).replace(re.escape("<EVENT> <EVENT ID>"), r"EVENT e\d+")
    sample = record_to_sample(_first_tbd_record(), "tbd")
    assert re.search(template + r"$", sample.input)


def _first_tbd_record():
    from tests.conftest import DATA_ROOT

    return _records(DATA_ROOT, "tbd-ee")[0]


def test_sentences_context_on_a_real_tbd_record(data_root):
    record = _records(data_root, "tbd-ee")[0]
    shown = event_sentences(record["document"])
    assert shown == (
        "ADDIS ABABA, Ethiopia (AP)_ The Organization of African Unity said Friday it would investigate the "
        "Hutu-organized <EVENT e4>genocide</EVENT> of more than 500,000 minority Tutsis in Rwanda nearly four "
        "years ago. Foreign ministers of member-states <EVENT e5>meeting</EVENT> in the Ethiopian capital agreed "
        "to set up a seven-member panel to investigate who shot down Rwandan President Juvenal Habyarimana's "
        "plane on April 6, 1994."
    )
    sample = record_to_sample(record, "tbd", context="sentences")
    assert sample.input == (
        f"Given the document:\n{shown}\n\nQuesiton: What is the temporal relation of EVENT e4 with respect to "
        "EVENT e5? Choose one of the following labels: [IS_INCLUDED, INCLUDES, SIMULTANEOUS, BEFORE, AFTER, NONE]."
    )
    assert sample.metadata["context"] == "sentences"


def test_sentences_context_same_sentence_and_far_apart(data_root):
    # TBD id 5: both events in one sentence -> one sentence shown
    record = _records(data_root, "tbd-ee")[5]
    assert event_sentences(record["document"]) == (
        "The assassination <EVENT e11>touched</EVENT> off a murderous <EVENT e12>rampage</EVENT> by Hutu "
        "security forces and civilians, who slaughtered mainly Tutsis but also Hutus who favored reconciliation "
        "with the minority."
    )
    # every TDD-Man pair keeps both marks and is much shorter than its document
    for record in _records(data_root, "tdd-man")[:200]:
        shown = event_sentences(record["document"])
        assert shown.count("<EVENT ") == 2 and shown.count("</EVENT>") == 2
        assert len(shown) < len(record["document"])


def test_all_sentence_contexts_keep_both_events():
    for dataset in ("tbd", "tdd-man"):
        loaded = load_dataset(dataset, context="sentences").dataset
        assert all(s.input.count("<EVENT e") == 2 for s in loaded)


def test_bad_parameters_name_the_choices():
    with pytest.raises(ValueError, match="tot-arithmetic"):
        parse_datasets("tbd-ee")
    with pytest.raises(ValueError, match="document"):
        temporal_reasoning(dataset="tbd", context="window")
    with pytest.raises(ValueError, match="paper"):
        temporal_reasoning(dataset="tbd", subset="half")
    assert parse_datasets("tot-arithmetic,tbd") == ["tot-arithmetic", "tbd"]
    assert parse_datasets("all") == ["tbd", "tdd-man", "tot-arithmetic"]


def test_task_metadata_records_provenance():
    task = temporal_reasoning(dataset="tot-arithmetic")
    data = task.metadata["data"]["tr/tot-arithmetic/test_id.json"]
    assert data["actual_sha1"] == "766efaae20a7def7f2d2339ce7116c80449afe81" and data["verified"] is True
    assert data["records_used"] == 1850
    assert len(task.dataset) == 1850 and len(task.scorer) == 1
    assert task.version == 2 and task.metadata["benchmark"] == "BeDiscovER" and task.metadata["absent"] == {}
    assert task.metadata["parameters"] == {
        "dataset": ["tot-arithmetic"],
        "context": "document",
        "subset": "paper",
        "data_dir": None,
        "reasoning": False,
        "presets": "auto",
        "per_dataset": None,
    }
    assert len(temporal_reasoning(dataset="tbd,tdd-man").scorer) == 1 and len(temporal_reasoning().scorer) == 2


def test_absent_file_skipped_by_default_and_an_error_when_named(tmp_path, data_root, caplog):
    import logging
    import shutil

    from bediscover_inspect.data import DataFileMissingError

    target = tmp_path / "tr" / "tdd-man" / "test_id.json"
    target.parent.mkdir(parents=True)
    shutil.copy(data_root / "tr" / "tdd-man" / "test_id.json", target)
    with caplog.at_level(logging.WARNING):
        task = temporal_reasoning(data_dir=str(tmp_path))
    assert {s.metadata["dataset"] for s in task.dataset} == {"tdd-man"} and len(task.dataset) == 1500
    assert task.metadata["absent"] == {"tbd": "not in this data root", "tot-arithmetic": "not in this data root"}
    assert task.metadata["parameters"]["dataset"] == ["tdd-man"] and len(task.scorer) == 1  # relation scorer only
    assert any("absent and skipped" in r.getMessage() and "tbd" in r.getMessage() for r in caplog.records)
    with pytest.raises(DataFileMissingError, match="tot-arithmetic"):
        temporal_reasoning(dataset="tdd-man,tot-arithmetic", data_dir=str(tmp_path))


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"id": 7, "document": "x <EVENT e1>a</EVENT> <EVENT e2>b</EVENT>", "types": ["EVENT e1", "EVENT e2"]}, "gold"),
        (
            {"id": 7, "document": "x <EVENT e1>a</EVENT>", "types": ["EVENT e1", "EVENT e2"], "gold": "BEFORE"},
            "document",
        ),
        ({"id": 7, "document": "x", "types": ["e1", "e2"], "gold": "BEFORE"}, "types"),
        (
            {
                "id": 7,
                "document": "x <EVENT e1>a</EVENT> <EVENT e2>b</EVENT>",
                "types": ["EVENT e1", "EVENT e2"],
                "gold": "VAGUE",
            },
            "gold",
        ),
    ],
)
def test_bad_relation_record_names_file_record_and_field(record, field):
    with pytest.raises(DataFormatError, match=rf"f\.json, record 3 \(id=7\).*'{field}'"):
        record_to_sample(record, "tbd", "document", "f.json", 3)


def test_bad_tot_record_names_file_record_and_field():
    good = {"id": 9, "question": "q", "instruction": "i", "gold": "{'answer': '1'}", "question_type": "trick"}
    record_to_sample(good, "tot-arithmetic", file="t.json", index=1)
    with pytest.raises(DataFormatError, match=r"t\.json, record 1 \(id=9\).*'gold'"):
        record_to_sample(good | {"gold": '{"answer": nope'}, "tot-arithmetic", file="t.json", index=1)
    with pytest.raises(DataFormatError, match=r"'question_type'"):
        record_to_sample(good | {"question_type": "calendar"}, "tot-arithmetic", file="t.json", index=1)
    with pytest.raises(DataFormatError, match=r"missing field 'instruction'"):
        record_to_sample({k: v for k, v in good.items() if k != "instruction"}, "tot-arithmetic", file="t.json")
    assert set(TOT_CATEGORIES.values()) == {"tz", "as", "scd", "mop", "dur", "cmp", "trk"}
