"""Loading the DISRPT corpora from the real mirror: paper-subset counts, absent corpora, selectors, bad data."""

from __future__ import annotations

import json
import logging
import shutil

import pytest

from bediscover_inspect.data import DISRPT_PAPER_FRACTIONS, DataFileMissingError, DataFormatError
from bediscover_inspect.data.select import REASON_LICENSED, REASON_NOT_IN_ROOT
from bediscover_inspect.discourse_relations.dataset import (
    CORPORA,
    DATA_FILES,
    DISRPT_TEST_COUNTS,
    load_dataset,
    paper_subset_size,
    record_to_sample,
    select_corpora,
)
from bediscover_inspect.discourse_relations.task import discourse_relations

# The 6 corpora not in the mirror (shared/data/MANIFEST.md): 4 LDC-licensed, 2 missing offline.
ABSENT = {
    "eng.pdtb.pdtb": REASON_LICENSED,
    "eng.rst.rstdt": REASON_LICENSED,
    "tur.pdtb.tdb": REASON_LICENSED,
    "zho.pdtb.cdtb": REASON_LICENSED,
    "eng.sdrt.msdc": REASON_NOT_IN_ROOT,
    "rus.rst.rrt": REASON_NOT_IN_ROOT,
}


def test_38_corpora_and_the_papers_totals():
    """Table 1's 8,757 of 43,716 relations over 38 corpora; the corpora in the order of the authors'
    ``DISRPT_TEST_NAMES`` (``load_data.py`` at the pinned commit), which is alphabetical."""
    assert len(CORPORA) == 38
    assert sum(DISRPT_TEST_COUNTS.values()) == 43716
    assert sum(paper_subset_size(c) for c in CORPORA) == 8757
    assert list(CORPORA) == sorted(CORPORA) == sorted(DISRPT_PAPER_FRACTIONS)


def test_paper_subset_over_the_mirror_is_7370_with_6_absent_corpora(caplog):
    with caplog.at_level(logging.WARNING):
        task = discourse_relations()
    # 8,757 minus the absent corpora's paper rows: 214 + 215 + 210 + 227 (LDC) + 240 (msdc) + 281 (rrt) = 1,387.
    assert sum(paper_subset_size(c) for c in ABSENT) == 1387
    assert len(task.dataset) == 8757 - 1387 == 7370
    assert task.metadata["absent"] == dict(sorted(ABSENT.items()))
    assert task.metadata["absent_paper_relations"]["rus.rst.rrt"] == 281
    assert task.metadata["absent_paper_relations"] == {c: paper_subset_size(c) for c in sorted(ABSENT)}
    counts = task.metadata["samples_per_corpus"]
    assert len(counts) == 32
    assert counts["eng.dep.covdtb"] == 258 and counts["eng.erst.gum"] == 250 and counts["ces.rst.crdt"] == 148
    assert all(counts[c] == paper_subset_size(c) for c in counts)
    assert set(task.metadata["data"]) == {DATA_FILES[c] for c in counts}
    assert task.metadata["data"][DATA_FILES["deu.pdtb.pcc"]]["verified"] is True
    assert task.metadata["data"][DATA_FILES["eng.erst.gum"]]["mirror_status"] == "approximate"
    assert task.metadata["parameters"] == {
        "dataset": list(counts),
        "languages": None,
        "frameworks": None,
        "subset": "paper",
        "data_dir": None,
        "reasoning": False,
        "presets": "auto",
        "per_dataset": None,
    }
    assert task.version == 2 and task.metadata["benchmark"] == "BeDiscovER"
    # loud on the console: one warning naming every absent corpus and its reason
    warning = [r.getMessage() for r in caplog.records if "absent and skipped" in r.getMessage()]
    assert len(warning) == 1
    assert all(f"{c} ({reason})" in warning[0] for c, reason in ABSENT.items())
    ids = [s.id for s in task.dataset]
    assert len(set(ids)) == len(ids) and ids[0] == "ces.rst.crdt_000" and ids[-1] == "zho.rst.sctb_158"


def test_explicitly_requested_absent_corpus_is_an_error():
    with pytest.raises(DataFileMissingError, match="rus.rst.rrt"):
        discourse_relations(dataset="rus.rst.rrt")
    with pytest.raises(DataFileMissingError, match="LDC-licensed"):
        discourse_relations(dataset=["deu.pdtb.pcc", "eng.pdtb.pdtb"])


def test_selectors_and_full_subset():
    task = discourse_relations(languages="German", subset="full")
    assert task.metadata["samples_per_corpus"] == {"deu.pdtb.pcc": 194, "deu.rst.pcc": 273}
    assert task.metadata["absent"] == {} and task.metadata["absent_paper_relations"] == {}
    # parameters as resolved: a language by name or by code gives the same metadata
    assert task.metadata["parameters"] == discourse_relations(languages="deu", subset="full").metadata["parameters"]
    assert task.metadata["parameters"]["languages"] == ["deu"]
    selected, explicit = select_corpora(languages="tur,zho", frameworks=["pdtb"])
    assert selected == ["tur.pdtb.tdb", "tur.pdtb.tedm", "zho.pdtb.cdtb", "zho.pdtb.ted"] and not explicit
    task = discourse_relations(languages="tur,zho", frameworks="pdtb")
    assert task.metadata["samples_per_corpus"] == {"tur.pdtb.tedm": 254, "zho.pdtb.ted": 266}
    assert task.metadata["absent"] == {"tur.pdtb.tdb": REASON_LICENSED, "zho.pdtb.cdtb": REASON_LICENSED}
    assert task.metadata["parameters"]["languages"] == ["tur", "zho"]
    assert task.metadata["parameters"]["frameworks"] == ["pdtb"]
    assert select_corpora(dataset="eng.rst.oll,pol.iso.pdc") == (["eng.rst.oll", "pol.iso.pdc"], True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dataset": "deu.pdtb.xyz"}, "valid corpora"),
        ({"languages": "klingon"}, "valid languages"),
        ({"frameworks": "sdrt,amr"}, "valid frameworks"),
        ({"languages": "tha", "frameworks": "rst"}, "no corpus matches"),
        ({"subset": "half"}, r"\['paper', 'full'\]"),
    ],
)
def test_bad_parameters_name_the_valid_choices(kwargs, message):
    with pytest.raises(ValueError, match=message):
        discourse_relations(**kwargs)


def _ldc_record(i: int, label: str = "causal") -> dict:
    return {
        "id": i,
        "lang": "eng",
        "framework": "pdtb",
        "corpus": "pdtb",
        "label": label,
        "type": "implicit",
        "doc_id": "wsj_0001",
        "u1": f"unit one {i}",
        "u2": f"unit two {i}",
        "direction": "1<2",
        "context": ["", f"unit one {i} unit two {i}", ""],
    }


def test_user_restored_ldc_corpus_loads_unverified(tmp_path):
    target = tmp_path / "dr" / "disrpt25" / "eng.pdtb.pdtb" / "test_id.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps([_ldc_record(i) for i in range(40)]), encoding="utf-8")
    task = discourse_relations(dataset="eng.pdtb.pdtb", data_dir=str(tmp_path))
    assert len(task.dataset) == 2  # int(0.05 * 40)
    provenance = task.metadata["data"][DATA_FILES["eng.pdtb.pdtb"]]
    assert provenance["verified"] is None and provenance["expected_sha1"] is None
    assert provenance["sha1_check"].startswith("none: no pinned SHA-1")
    # default selection on this root: the restored corpus is used, the other 37 are reported absent
    task = discourse_relations(data_dir=str(tmp_path), subset="full")
    assert task.metadata["samples_per_corpus"] == {"eng.pdtb.pdtb": 40}
    assert len(task.metadata["absent"]) == 37
    assert task.metadata["absent"]["deu.pdtb.pcc"] == REASON_NOT_IN_ROOT
    assert task.metadata["absent"]["zho.pdtb.cdtb"] == REASON_LICENSED


def test_no_selected_corpus_available_is_an_error(tmp_path):
    with pytest.raises(DataFileMissingError, match="pol.iso.pdc"):  # the one ISO corpus, named by its file
        discourse_relations(frameworks="iso", data_dir=str(tmp_path))
    with pytest.raises(DataFileMissingError, match="2 BeDiscovER data files not found.*deu.pdtb.pcc.*deu.rst.pcc"):
        discourse_relations(languages="deu", data_dir=str(tmp_path))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("u2"), r"record 1 \(id=1\): missing field 'u2'"),
        (lambda r: r.update(label="Causal"), r"record 1 \(id=1\): field 'label' is 'Causal'"),
        (lambda r: r.update(direction="2>1"), r"field 'direction' is '2>1'"),
        (lambda r: r.update(corpus="gum"), r"field 'corpus' is 'gum', but the file is corpus eng.pdtb.pdtb"),
        (lambda r: r.update(context="one string"), r"field 'context' should be list"),
        (lambda r: r.update(context=["a", 3, "b"]), r"field 'context' should be a list of strings"),
    ],
)
def test_bad_records_name_file_record_and_field(tmp_path, change, message):
    records = [_ldc_record(i) for i in range(20)]
    change(records[1])
    target = tmp_path / "dr" / "disrpt25" / "eng.pdtb.pdtb" / "test_id.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(DataFormatError, match=message) as info:
        load_dataset(dataset="eng.pdtb.pdtb", subset="full", data_dir=str(tmp_path))
    assert str(target) in str(info.value)


def test_record_to_sample_direction_unknown_for_thai(data_root):
    path = data_root / "dr" / "disrpt25" / "tha.pdtb.tdtb" / "test_id.json"
    record = json.loads(path.read_text(encoding="utf-8"))[0]
    sample = record_to_sample(record, "tha.pdtb.tdtb", str(path), 0)
    assert "## Language:\ntha\n\n## Corpus:\ntdtb\n\n## Framework:\npdtb\n" in sample.input
    assert "## Direction:\nUnknown.\n" in sample.input
    assert sample.metadata["language"] == "tha" and sample.metadata["framework"] == "pdtb"


def test_mirror_copy_is_not_modified(tmp_path, data_root):
    """A copied mirror root gives the same samples (the loader reads, never writes)."""
    source = data_root / "dr" / "disrpt25" / "spa.rst.sctb" / "test_id.json"
    target = tmp_path / "dr" / "disrpt25" / "spa.rst.sctb" / "test_id.json"
    target.parent.mkdir(parents=True)
    shutil.copy(source, target)
    a = discourse_relations(dataset="spa.rst.sctb", data_dir=str(tmp_path))
    b = discourse_relations(dataset="spa.rst.sctb")
    assert [s.input for s in a.dataset] == [s.input for s in b.dataset]
    assert a.metadata["data"][DATA_FILES["spa.rst.sctb"]]["source"] == "data_dir"
    assert b.metadata["data"][DATA_FILES["spa.rst.sctb"]]["source"] == "env"
