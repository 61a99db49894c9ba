"""Data root resolution, pinned SHA-1s, download (fake transport and a loopback HTTP server), subsets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bediscover_inspect import data
from bediscover_inspect.data import (
    REGISTRY,
    DataFileMissingError,
    DataFormatError,
    download_file,
    git_blob_sha1,
    load_records,
    resolve_data_file,
    subset_size,
)
from tests.helpers import assert_sha1_warning, serving


def test_git_blob_sha1_matches_git():
    # `printf 'hello\n' | git hash-object --stdin`
    assert git_blob_sha1(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_registry_covers_manifest():
    assert len(REGISTRY) == 53  # 49 files of MANIFEST.md + 4 LDC DISRPT corpora
    assert sum(1 for f in REGISTRY.values() if f.task == "dr") == 38
    nips = REGISTRY["so/nips-abs/test_id.jsonl"]
    assert nips.sha1 == "055e25330ac621e9a1c8eeee4a86b3474ff83df6" and nips.paper_fraction == 1.0


def test_paper_subset_counts_reproduce_table_1():
    counts = {f.dataset: subset_size(f.records, f.paper_fraction) for f in REGISTRY.values() if f.task == "so"}
    assert counts == {
        "aan-abstract": 806,
        "arxiv-abstracts": 898,
        "nips-abs": 377,
        "nsf": 814,
        "roc": 883,
        "sind-captions": 808,
        "wiki-movies": 836,
    }
    dr = [f for f in REGISTRY.values() if f.task == "dr"]
    assert len(dr) == 38
    # paper §5.2 / Table 1: 43,716 test relations over 38 corpora, 8,757 evaluated
    assert sum(f.records for f in dr) == 43716
    assert sum(subset_size(f.records, f.paper_fraction) for f in dr) == 8757


def test_the_data_root_holds_the_tests_files(data_root):
    """The tests' data root: the 39 files the mirror holds byte for byte, with their pinned SHA-1s; the 2 the mirror
    holds as rebuilds (the authors' files when fetched); none of the 8 the mirror lacks or of the 4 LDC corpora."""
    checked = 0
    for info in REGISTRY.values():
        local = data_root / info.path
        if info.mirror_status == "exact":
            assert git_blob_sha1(local.read_bytes()) == info.sha1, info.path
            checked += 1
        elif info.mirror_status == "approximate":
            assert local.is_file(), info.path
        else:
            assert not local.exists(), info.path
    assert checked == 39  # 39 exact, 2 approximate, 8 missing, 4 licensed


def test_load_records_paper_and_full(data_root):
    full = load_records("dr/disrpt25/eng.rst.umuc/test_id.json", data_root, "full")
    paper = load_records("dr/disrpt25/eng.rst.umuc/test_id.json", data_root, "paper")
    assert len(full.records) == 484 and len(paper.records) == int(0.5 * 484) == 242
    assert paper.records == full.records[:242]  # first records in file order, no shuffle
    assert paper.provenance()["verified"] is True and paper.provenance()["records_used"] == 242
    with pytest.raises(ValueError, match="paper"):
        load_records("dm/just/test_id.json", data_root, "half")


def test_a_file_with_other_bytes_loads_with_a_warning(data_root, tmp_path):
    """A file under a data root whose SHA-1 is not the pinned one (a rebuild, an edited copy) loads, with a warning,
    and its provenance says so."""
    records = json.loads((data_root / "dm" / "just" / "test_id.json").read_text(encoding="utf-8"))
    edited = tmp_path / "dm" / "just" / "test_id.json"
    edited.parent.mkdir(parents=True)
    edited.write_text(json.dumps(records[:-1]), encoding="utf-8")
    with assert_sha1_warning():
        loaded = load_records("dm/just/test_id.json", tmp_path, "full")
    assert loaded.resolved.verified is False and len(loaded.records) == 238
    assert loaded.resolved.actual_sha1 == git_blob_sha1(edited.read_bytes()) != loaded.resolved.expected_sha1


def test_missing_file_under_explicit_root(data_root):
    with pytest.raises(DataFileMissingError) as err:
        resolve_data_file("so/wiki-movies/test_id.jsonl", data_root)
    message = str(err.value)
    for part in (
        "wiki-movies",
        "so/wiki-movies/test_id.jsonl",
        "96d7ce9b1698e974fbba9c48be249981f9e8f225",
        "-T data_dir",
        "BEDISCOVER_DATA_DIR",
    ):
        assert part in message


def test_unknown_path():
    with pytest.raises(KeyError, match="so/nips-abs/test_id.jsonl"):
        resolve_data_file("so/nips/test_id.jsonl")


@pytest.fixture
def cache_only(monkeypatch, tmp_path):
    """No data root: files come from the download cache in tmp_path."""
    monkeypatch.delenv("BEDISCOVER_DATA_DIR", raising=False)
    monkeypatch.delenv("BEDISCOVER_OFFLINE", raising=False)
    monkeypatch.delenv("BEDISCOVER_FETCH_BASE_URL", raising=False)
    monkeypatch.setenv("BEDISCOVER_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / data.PINNED_COMMIT


def test_download_with_fake_transport(cache_only, data_root):
    real = (data_root / "dm" / "otherwise" / "test_id.json").read_bytes()
    urls = []

    def fetch(url: str) -> bytes:
        urls.append(url)
        return real

    resolved = resolve_data_file("dm/otherwise/test_id.json", fetch=fetch)
    assert urls == [
        f"https://raw.githubusercontent.com/chuyuanli/BeDiscovER/{data.PINNED_COMMIT}/data/dm/otherwise/test_id.json"
    ]
    assert resolved.source == "cache" and resolved.verified is True
    assert Path(resolved.local_path) == cache_only / "dm" / "otherwise" / "test_id.json"
    # second call uses the cache, no fetch
    resolve_data_file("dm/otherwise/test_id.json", fetch=lambda url: pytest.fail("fetched twice"))
    assert [p.name for p in (cache_only / "dm" / "otherwise").iterdir()] == ["test_id.json"]


def test_corrupt_download_leaves_nothing(cache_only):
    with pytest.raises(DataFileMissingError, match="expected da8a9f1b"):
        resolve_data_file("dm/otherwise/test_id.json", fetch=lambda url: b"[]")
    assert not (cache_only / "dm" / "otherwise" / "test_id.json").exists()


def test_offline_download_error_is_clear(cache_only):
    def no_network(url: str) -> bytes:
        raise OSError("Temporary failure in name resolution")

    with pytest.raises(DataFileMissingError) as err:
        resolve_data_file("so/roc/test_id.jsonl", fetch=no_network)
    message = str(err.value)
    assert "roc" in message and "8306eae8296f58f2dc356abed8d64b4345cdda85" in message
    assert "name resolution" in message and "BEDISCOVER_DATA_DIR" in message


def test_offline_flag_skips_download(cache_only, monkeypatch):
    monkeypatch.setenv("BEDISCOVER_OFFLINE", "1")
    with pytest.raises(DataFileMissingError, match="BEDISCOVER_OFFLINE"):
        resolve_data_file("so/nsf/test_id.jsonl", fetch=lambda url: pytest.fail("must not fetch"))


def test_download_from_loopback_server(tmp_path, data_root, monkeypatch):
    """The real urllib transport against a local HTTP server laid out like the repository."""
    served = tmp_path / "served" / "chuyuanli" / "BeDiscovER" / data.PINNED_COMMIT / "data" / "dm" / "just"
    served.mkdir(parents=True)
    (served / "test_id.json").write_bytes((data_root / "dm" / "just" / "test_id.json").read_bytes())
    with serving(tmp_path / "served") as (base, asked):
        monkeypatch.setenv("BEDISCOVER_FETCH_BASE_URL", base)
        target = download_file(REGISTRY["dm/just/test_id.json"], tmp_path / "cache")
    assert asked == [f"/chuyuanli/BeDiscovER/{data.PINNED_COMMIT}/data/dm/just/test_id.json"]
    assert git_blob_sha1(target.read_bytes()) == "7c573e2081f9ad851265e26f543ae51a0c4e3341"
    assert len(json.loads(target.read_text())) == 239


def test_bad_json_names_file_and_line(tmp_path):
    root = tmp_path / "root"
    bad = root / "so" / "nips-abs" / "test_id.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"id": 0}\n{"id": 1,,}\n')
    with assert_sha1_warning():
        with pytest.raises(DataFormatError, match=r"test_id.jsonl, line 2"):
            load_records("so/nips-abs/test_id.jsonl", root)
    not_list = root / "dm" / "just" / "test_id.json"
    not_list.parent.mkdir(parents=True)
    not_list.write_text('{"id": 0}')
    with assert_sha1_warning():
        with pytest.raises(DataFormatError, match="expected a JSON list"):
            load_records("dm/just/test_id.json", root)


def test_json_errors_read_as_one_sentence_on_one_line(tmp_path):
    from bediscover_inspect.data.records import read_records

    whole = tmp_path / "t.json"
    whole.write_text('[{"id": 0},\n {"id": 1, "text": "never closed}]')
    with pytest.raises(DataFormatError) as err:  # json's msg ends in "at": no "starting at at line"
        read_records(str(whole))
    assert str(err.value) == f"{whole}: not valid JSON (Unterminated string starting at: line 2 column 20)"
    lines = tmp_path / "t.jsonl"
    lines.write_text('{"id": 0}\n{"id": 1, "x": "\x01"}\n')
    with pytest.raises(DataFormatError) as err:
        read_records(str(lines))
    assert str(err.value) == f"{lines}, line 2: not valid JSON (Invalid control character at: column 17)"
    with pytest.raises(DataFormatError) as err:  # the streamed prefix (ijson): yajl's first line, no caret
        read_records(str(whole), limit=2)
    assert str(err.value) == f"{whole}: not valid JSON after 1 complete records (parse error: premature EOF)"
    whole.write_text('[{"id": 0}, {"id": 1 "x": 2}]')
    with pytest.raises(DataFormatError) as err:
        read_records(str(whole), limit=2)
    assert str(err.value) == (
        f"{whole}: not valid JSON after 1 complete records (parse error: after key and "
        "value, inside map, I expect ',' or '}')"
    )


def _root_with(tmp_path, path: str, content: bytes) -> Path:
    root = tmp_path / "root"
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    return root


def test_empty_file_is_an_error_not_a_silent_drop(tmp_path):
    root = _root_with(tmp_path, "dm/just/test_id.json", b"[]")
    with assert_sha1_warning(), pytest.raises(DataFormatError, match=r"just/test_id.json: the file holds no records"):
        load_records("dm/just/test_id.json", root)


def test_non_utf8_names_file_and_offset(tmp_path):
    root = _root_with(tmp_path, "dm/just/test_id.json", b'[{"id": 0, "text": "\xff"}]')
    with assert_sha1_warning(), pytest.raises(DataFormatError, match=r"not UTF-8 text .* offset 20"):
        load_records("dm/just/test_id.json", root)


def test_duplicate_ids_name_both_records(tmp_path):
    root = _root_with(tmp_path, "dm/just/test_id.json", b'[{"id": 0}, {"id": 1}, {"id": 1}]')
    with assert_sha1_warning(), pytest.raises(DataFormatError, match=r"record 2: field 'id' repeats 1 of record 1"):
        load_records("dm/just/test_id.json", root)


def test_require_field_rejects_json_true_as_int():
    with pytest.raises(DataFormatError, match=r"f.json, record 3 \(id=True\): field 'id' should be int, got bool"):
        data.require_field({"id": True}, "id", "f.json", 3, int)
    assert data.require_field({"id": 7}, "id", "f.json", 3, (int, str)) == 7


def test_select_datasets_shared_by_every_task_selector():
    choices = ("a", "b", "c")
    assert data.select_datasets(None, choices) == ["a", "b", "c"]
    assert data.select_datasets("c, a,c", choices) == ["a", "c"]
    assert data.select_datasets("c, a,c", choices, paper_order=False) == ["c", "a"]
    assert data.select_datasets(["b", "all"], choices) == ["a", "b", "c"]
    with pytest.raises(
        ValueError, match=r"corpora must be 'all' or one or more of \['a', 'b', 'c'\].*unknown: \['d'\]"
    ):
        data.select_datasets("a,d", choices, "corpora")
    with pytest.raises(ValueError, match="one or more of"):
        data.select_datasets(" , ", choices)
