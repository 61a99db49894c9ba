"""``per_dataset``: the first N samples of each dataset / corpus in file order, in every task; zero-padded ids."""

from __future__ import annotations

import pytest

from bediscover_inspect.cli import TaskArgumentError, build_tasks
from bediscover_inspect.data import check_per_dataset, first_per_dataset, sample_id
from bediscover_inspect.tasks import task_function


def test_check_per_dataset_accepts_positive_whole_numbers_only():
    assert check_per_dataset(None) is None
    assert check_per_dataset(3) == 3
    assert check_per_dataset("12") == 12
    for bad in (0, -1, 2.5, True, "abc", "", [2]):
        with pytest.raises(ValueError, match=r"per_dataset must be a positive whole number .* got "):
            check_per_dataset(bad)


def test_first_per_dataset_stops_building_after_n():
    built = []

    def samples():
        for i in range(10):
            built.append(i)
            yield i

    assert first_per_dataset(samples(), 3) == [0, 1, 2]
    assert built == [0, 1, 2]  # the 4th sample is never built
    assert first_per_dataset(range(4), None) == [0, 1, 2, 3]


def test_sample_ids_are_zero_padded_to_the_file_width():
    assert sample_id("nips-abs", 2, 3) == "nips-abs_002"
    assert sample_id("tbd", 1514, 4) == "tbd_1514"
    assert sample_id("x", 12345, 3) == "x_12345"  # wider than the width: kept whole
    assert sample_id("stac", "s1-league3-game3_1", 3) == "stac_s1-league3-game3_1"  # a string id is kept
    assert sorted(sample_id("so", i, 3) for i in (10, 2, 100)) == ["so_002", "so_010", "so_100"]


EXPECTED_IDS = {  # the first two records of each dataset of the mirror's files (file order)
    "discourse_markers": [
        "just-manual_000",
        "just-manual_001",
        "just-subtitle_090",
        "just-subtitle_091",
        "otherwise_000",
        "otherwise_001",
    ],
    "temporal_reasoning": [
        "tbd_0000",
        "tbd_0001",
        "tdd-man_0000",
        "tdd-man_0001",
        "tot-arithmetic_0000",
        "tot-arithmetic_0001",
    ],
    "sentence_ordering": ["nips-abs_000", "nips-abs_001"],  # the mirror's one sentence-ordering file
    "dialogue_parsing": [
        "stac_s1-league3-game3_1",
        "stac_s1-league3-game3_2",
        "molweni_1038",
        "molweni_1035",
        "msdc_C51-B29-A26",
        "msdc_C78-B25-A3",
    ],  # dialogue names, in file order
}


@pytest.mark.parametrize("name", sorted(EXPECTED_IDS))
def test_every_dataset_of_a_task_contributes_its_first_n(name, data_root):
    order = {"order": "file"} if name == "dialogue_parsing" else {}  # default: the picked dialogues longest first
    task = task_function(name)(per_dataset=2, **order)
    assert [sample.id for sample in task.dataset] == EXPECTED_IDS[name]
    if order:  # the same dialogues, sorted by number of turns (most first)
        default = list(task_function(name)(per_dataset=2).dataset)
        assert sorted(str(sample.id) for sample in default) == sorted(EXPECTED_IDS[name])
        turns = [sample.metadata["n_turns"] for sample in default]
        assert turns == sorted(turns, reverse=True)


def test_discourse_relations_takes_the_first_n_of_every_corpus(data_root):
    task = task_function("discourse_relations")(per_dataset=1, languages="deu,eng", frameworks="pdtb")
    ids = [sample.id for sample in task.dataset]
    assert ids == ["deu.pdtb.pcc_000", "eng.pdtb.gentle_000", "eng.pdtb.gum_0000", "eng.pdtb.tedm_000"]
    assert task.metadata["samples_per_corpus"] == {
        "deu.pdtb.pcc": 1,
        "eng.pdtb.gentle": 1,
        "eng.pdtb.gum": 1,
        "eng.pdtb.tedm": 1,
    }


def test_a_bad_per_dataset_is_a_one_line_task_error(data_root):
    with pytest.raises(TaskArgumentError) as err:
        build_tasks(["sentence_ordering"], [0], [False], "paper", {"per_dataset": 0, "dataset": "nips-abs"})
    assert str(err.value) == (
        "cannot build task 'sentence_ordering' (per_dataset=0, dataset='nips-abs'): per_dataset must be a "
        "positive whole number (the first N samples of each dataset) or None, got 0"
    )
