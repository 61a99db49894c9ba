"""Loaders on the real mirrored files: counts, ids, label distributions, quirks, bad data and bad parameters."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest

from bediscover_inspect.data import DataFileMissingError, DataFormatError
from bediscover_inspect.discourse_markers.dataset import (
    load_dataset,
    parse_datasets,
    render_argument,
    render_otherwise,
)
from bediscover_inspect.discourse_markers.task import discourse_markers
from tests.helpers import assert_sha1_warning


@pytest.fixture(scope="module")
def all_samples():
    loaded = load_dataset(["just-manual", "just-subtitle", "otherwise"])
    return list(loaded.dataset), loaded.files.provenance()


def _by(samples, dataset):
    return [s for s in samples if s.metadata["dataset"] == dataset]


def test_counts_and_ids(all_samples):
    samples, _ = all_samples
    counts = Counter(s.metadata["dataset"] for s in samples)
    # Just-Subtitle: 149 in the data (the paper's Table 1 says 139)
    assert counts == {"just-manual": 90, "just-subtitle": 149, "otherwise": 294}
    # record ids zero-padded to the file's width (3 digits: ids 0 … 238 and 0 … 293), so they sort as text
    assert [s.id for s in _by(samples, "just-manual")] == [f"just-manual_{i:03d}" for i in range(90)]
    assert [s.id for s in _by(samples, "just-subtitle")] == [f"just-subtitle_{i:03d}" for i in range(90, 239)]
    assert [s.id for s in _by(samples, "otherwise")] == [f"otherwise_{i:03d}" for i in range(294)]
    assert _by(samples, "just-manual")[5].id == "just-manual_005"
    assert len({s.id for s in samples}) == 533


def test_label_distributions_match_source_md(all_samples):
    samples, _ = all_samples
    manual = Counter(s.target for s in _by(samples, "just-manual"))
    assert set(manual.values()) == {15} and len(manual) == 6
    assert Counter(s.target for s in _by(samples, "just-subtitle")) == {
        "Exclusionary": 60,
        "Temporal": 33,
        "Unexplanatory": 22,
        "Emphatic": 21,
        "Unelaboratory": 12,
        "Adjective": 1,
    }
    assert Counter(s.target for s in _by(samples, "otherwise")) == {
        "Argumentation": 131,
        "Exception": 74,
        "Consequence": 53,
        "Enumeration": 36,
    }
    assert all(s.metadata["gold"] == s.target for s in samples)


def test_provenance_names_pinned_bytes(all_samples):
    _, provenance = all_samples
    assert set(provenance) == {"dm/just/test_id.json", "dm/otherwise/test_id.json"}
    assert provenance["dm/just/test_id.json"]["actual_sha1"] == "7c573e2081f9ad851265e26f543ae51a0c4e3341"
    assert provenance["dm/otherwise/test_id.json"]["records_used"] == 294
    assert all(p["verified"] is True for p in provenance.values())


def test_subset_paper_equals_full_for_task1():
    paper = load_dataset(["otherwise", "just-subtitle"], subset="paper").dataset
    full = load_dataset(["otherwise", "just-subtitle"], subset="full").dataset
    assert [s.id for s in paper] == [s.id for s in full]


def test_context_parameter_shows_preceding_subtitle_lines():
    none = load_dataset(["just-subtitle"], context="none").dataset
    two = load_dataset(["just-subtitle"], context="2").dataset
    five = load_dataset(["just-subtitle"], context=5).dataset
    s100 = {s.id: s for s in none}["just-subtitle_100"]
    assert s100.metadata["text"] == "Hi, Bruce, I just got dumped."
    t2 = {s.id: s for s in two}["just-subtitle_100"].metadata["text"]
    assert t2 == (
        'Context: And then I think, "I\'ve got tickets on the floor." And I realized, "No, no, no, what I need '
        'is a sign."\n\nSentence: Hi, Bruce, I just got dumped.'
    )
    t5 = {s.id: s for s in five}["just-subtitle_100"].metadata["text"]
    assert t5.startswith('Context: And I think, "This is going to be the worst day of my life."')
    assert t5.endswith("\n\nSentence: Hi, Bruce, I just got dumped.")
    # the duplicated target "It's just..." (ids 134, 137; different golds) differs only by its context
    texts_none = {s.id: s.metadata["text"] for s in none}
    texts_two = {s.id: s.metadata["text"] for s in two}
    assert texts_none["just-subtitle_134"] == texts_none["just-subtitle_137"] == "It's just..."
    assert texts_two["just-subtitle_134"] != texts_two["just-subtitle_137"]


def test_context_does_not_touch_manual_or_otherwise():
    plain = load_dataset(["just-manual", "otherwise"], context="none").dataset
    ctx = load_dataset(["just-manual", "otherwise"], context="5").dataset
    assert [s.input for s in plain] == [s.input for s in ctx]
    assert {s.metadata["context"] for s in ctx} == {"none"}


@pytest.mark.parametrize(
    ("argument", "rendered"),
    [
        ("A maintenance man walked by .", "A maintenance man walked by ."),
        (
            "A low range of hills lifted in the north, yellow, rumpled, threadbare",
            "A low range of hills lifted in the north, yellow, rumpled, threadbare.",
        ),
        ("  why not?  ", "why not?"),
        ('he said "stop."', 'he said "stop."'),
        ("the list goes on,", "the list goes on."),
    ],
)
def test_render_argument(argument, rendered):
    assert render_argument(argument) == rendered


def test_render_otherwise_matches_paper_example_shape():
    assert (
        render_otherwise("We have to operate immediately", "she will die.")
        == "[We have to operate immediately.] Otherwise, [she will die.]"
    )


def test_every_otherwise_rendering_has_the_shape(all_samples):
    samples, _ = all_samples
    for s in _by(samples, "otherwise"):
        text = s.metadata["text"]
        assert text.startswith("[") and text.endswith("]") and text.count("] Otherwise, [") == 1, s.id


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("all", ["just-manual", "just-subtitle", "otherwise"]),
        (None, ["just-manual", "just-subtitle", "otherwise"]),
        ("otherwise", ["otherwise"]),
        ("otherwise, just-manual", ["just-manual", "otherwise"]),
        (["just-subtitle"], ["just-subtitle"]),
    ],
)
def test_parse_datasets(value, expected):
    assert parse_datasets(value) == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dataset": "just"}, "just-manual"),
        ({"dataset": ""}, "otherwise"),
        ({"prompt": "definition"}, r"def\+exp"),
        ({"context": "3"}, "'none', '2', '5'"),
        ({"subset": "half"}, "'paper', 'full'"),
    ],
)
def test_bad_parameters_name_valid_choices(kwargs, message):
    with pytest.raises(ValueError, match=message):
        discourse_markers(**kwargs)


def _copy_root(data_root, tmp_path):
    for name in ("just", "otherwise"):
        (tmp_path / "dm" / name).mkdir(parents=True)
        shutil.copy(data_root / "dm" / name / "test_id.json", tmp_path / "dm" / name / "test_id.json")
    return tmp_path


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(DataFileMissingError, match="dm/otherwise/test_id.json"):
        discourse_markers(dataset="otherwise", data_dir=str(tmp_path))


@pytest.mark.parametrize(
    ("file", "index", "change", "message"),
    [
        ("otherwise", 5, lambda r: r.pop("arg2"), r"record 5 \(id=5\): missing field 'arg2'"),
        ("otherwise", 7, lambda r: r.update(gold="Contrast"), r"record 7 \(id=7\): field 'gold' is 'Contrast'"),
        ("just", 3, lambda r: r.update(text=None), r"record 3 \(id=3\): field 'text' should be str"),
        ("just", 120, lambda r: r.pop("context2"), r"record 120 \(id=120\): missing field 'context2'"),
    ],
)
def test_bad_record_names_file_record_and_field(data_root, tmp_path, file, index, change, message):
    root = _copy_root(data_root, tmp_path)
    path = root / "dm" / file / "test_id.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    change(records[index])
    path.write_text(json.dumps(records), encoding="utf-8")
    with assert_sha1_warning():
        with pytest.raises(DataFormatError, match=message) as error:
            discourse_markers(context="2", data_dir=str(root))
    assert str(path) in str(error.value)
