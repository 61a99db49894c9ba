"""Fetching pinned files ahead of time (``bediscover fetch``) and the test suite's own fetch, against a loopback
HTTP server laid out like GitHub's raw file host (``<owner>/<name>/<commit>/<path>``) that serves the files of the
data root and the reference root of this session: the same bytes as the pinned commits, where those are reachable.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bediscover_inspect.cli import main
from bediscover_inspect.data import PINNED_COMMIT, git_blob_sha1
from bediscover_inspect.data.pinned import REFERENCE_FILES, PinnedFile, data_files, ensure
from tests import conftest
from tests.conftest import REPO_ROOT
from tests.helpers import serving

DM = data_files(["discourse_markers"])  # dm/just and dm/otherwise: two small files
MAPPING = REFERENCE_FILES[0]


def lay_out(served: Path, files: list[PinnedFile], roots: dict[PinnedFile, Path]) -> None:
    """Link each file's local copy (``roots[file] / file.path``) to where the host serves it."""
    for file in files:
        link = served / file.repository / file.commit / file.source
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(roots[file] / file.path)


@pytest.fixture
def host(tmp_path, monkeypatch, data_root, upstream_root) -> Iterator[tuple[Path, list[str]]]:
    """The loopback host with the two dm files and the reference file; ``BEDISCOVER_FETCH_BASE_URL`` points at it."""
    served = tmp_path / "served"
    reference_root = upstream_root.parents[1]
    lay_out(served, [*DM, MAPPING], {DM[0]: data_root, DM[1]: data_root, MAPPING: reference_root})
    with serving(served) as (base, asked):
        monkeypatch.setenv("BEDISCOVER_FETCH_BASE_URL", base)
        yield served, asked


def test_fetch_verifies_writes_and_then_only_checks(host, tmp_path):
    _, asked = host
    outcomes = ensure([*DM, MAPPING], tmp_path / "root")
    assert [(o.status, o.file.path) for o in outcomes] == [
        ("fetched", "dm/just/test_id.json"),
        ("fetched", "dm/otherwise/test_id.json"),
        ("fetched", "data/upstream/disrpt25/_official/mapping_disrpt25.json"),
    ]
    assert asked == [
        f"/chuyuanli/BeDiscovER/{PINNED_COMMIT}/data/dm/just/test_id.json",
        f"/chuyuanli/BeDiscovER/{PINNED_COMMIT}/data/dm/otherwise/test_id.json",
        "/disrpt/sharedtask2025/30efe3716d6ff31ef583ab0103caccffba78286c/utils/mapping_disrpt25.json",
    ]
    for file in (*DM, MAPPING):
        assert git_blob_sha1((tmp_path / "root" / file.path).read_bytes()) == file.sha1
        mask = os.umask(0o022)
        os.umask(mask)
        assert (tmp_path / "root" / file.path).stat().st_mode & 0o777 == 0o666 & ~mask  # readable as any new file
    assert sorted(p.name for p in (tmp_path / "root" / "dm" / "just").iterdir()) == ["test_id.json"]
    again = ensure([*DM, MAPPING], tmp_path / "root")
    assert [o.status for o in again] == ["verified"] * 3 and len(asked) == 3  # checked on disk, not fetched


def test_checksum_mismatch_is_one_line_and_writes_nothing(host, tmp_path):
    served, _ = host
    link = served / MAPPING.repository / MAPPING.commit / MAPPING.source
    link.unlink()
    link.write_text('{"elaboration": "elaboration"}')
    [outcome] = ensure([MAPPING], tmp_path / "root")
    assert outcome.status == "failed" and not outcome.target.exists()
    line = outcome.line()
    assert "\n" not in line
    assert line.startswith("failed    data/upstream/disrpt25/_official/mapping_disrpt25.json: http://127.0.0.1:")
    assert f"expected {MAPPING.sha1}" in line and "DISRPT 2025 label mapping" in line
    assert "the host served other bytes than the pinned commit holds" in line
    assert not [p for p in (tmp_path / "root").rglob("*") if not p.is_dir()]  # no file, no partial download


def test_a_local_copy_with_other_bytes_is_replaced(host, tmp_path):
    target = tmp_path / "root" / DM[0].path
    target.parent.mkdir(parents=True)
    target.write_text("[]")
    [outcome] = ensure([DM[0]], tmp_path / "root")
    assert outcome.status == "replaced" and outcome.detail == f", was SHA-1 {git_blob_sha1(b'[]')[:10]}"
    assert git_blob_sha1(target.read_bytes()) == DM[0].sha1


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_host_is_one_line_with_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("BEDISCOVER_FETCH_BASE_URL", f"http://127.0.0.1:{_closed_port()}")
    [outcome] = ensure([DM[0]], tmp_path / "root")
    line = outcome.line()
    assert outcome.status == "failed" and "\n" not in line
    assert line.startswith("failed    dm/just/test_id.json: http://127.0.0.1:")
    assert "download failed:" in line and "Connection refused" in line and "dataset 'just'" in line
    assert "check the network (or BEDISCOVER_FETCH_BASE_URL)" in line and "bediscover fetch --to DIR" in line
    assert not (tmp_path / "root").exists()


def test_fetch_command(host, tmp_path, capsys):
    assert main(["fetch", "--tasks", "discourse_markers", "--to", str(tmp_path / "data")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"fetched   dm/just/test_id.json ({DM[0].sha1[:10]})",
        f"fetched   dm/otherwise/test_id.json ({DM[1].sha1[:10]})",
        f"2 of 2 files in place under {tmp_path / 'data'} (2 fetched)",
    ]
    assert main(["fetch", "--tasks", "dm", "--to", str(tmp_path / "data")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"2 of 2 files in place under {tmp_path / 'data'} (2 verified)"
    assert main(["fetch", "--reference", "--to", str(tmp_path / "reference")]) == 0
    assert (tmp_path / "reference" / MAPPING.path).is_file()


def test_fetch_command_failures_exit_1(host, tmp_path, capsys):
    """Every pinned file of a task is tried; the ones the host lacks are named on stderr and the exit is 1."""
    assert main(["fetch", "--tasks", "temporal_reasoning", "dm", "--to", str(tmp_path / "data")]) == 1
    captured = capsys.readouterr()
    errors = captured.err.splitlines()
    assert len(errors) == 4 and errors[-1] == "3 file(s) failed: see the lines above"
    assert all(
        line.endswith(
            "download failed: HTTP Error 404: File not found (dataset 'tbd-ee'); the host answered but does not "
            "serve this file: check the host (BEDISCOVER_FETCH_BASE_URL)".replace("tbd-ee", line.split("/")[1])
        )
        for line in errors[:3]
    )
    assert [line.split(":")[0] for line in errors[:3]] == [
        "failed    tr/tbd-ee/test_id.json",
        "failed    tr/tdd-man/test_id.json",
        "failed    tr/tot-arithmetic/test_id.json",
    ]
    assert captured.out.splitlines()[-1] == f"2 of 5 files in place under {tmp_path / 'data'} (2 fetched)"
    assert main(["fetch", "--tasks", "ordering"]) == 2
    assert "unknown task 'ordering'" in capsys.readouterr().err


def _pytest(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BEDISCOVER_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=REPO_ROOT,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow  # a pytest process of its own
def test_the_suite_fetches_its_reference_files(host, tmp_path, data_root):
    """With no reference root, a test that reads the DISRPT mapping runs on the copy fetched into the cache."""
    base = os.environ["BEDISCOVER_FETCH_BASE_URL"]
    env = {"BEDISCOVER_FETCH_BASE_URL": base, "BEDISCOVER_CACHE_DIR": str(tmp_path / "cache")}
    test = "tests/discourse_relations/test_prompts.py::test_labels_are_the_17_of_the_system_prompt_and_of_the_official_mapping"
    proc = _pytest([test], env | {"BEDISCOVER_DATA_DIR": str(data_root)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
    assert git_blob_sha1((tmp_path / "cache" / "reference" / MAPPING.path).read_bytes()) == MAPPING.sha1


@pytest.mark.slow  # a pytest process of its own
def test_the_suite_stops_on_a_file_it_cannot_fetch(tmp_path):
    """No data root and a host that cannot be reached: one line per file, before collecting, exit 4 (usage)."""
    env = {"BEDISCOVER_FETCH_BASE_URL": f"http://127.0.0.1:{_closed_port()}", "BEDISCOVER_CACHE_DIR": str(tmp_path)}
    proc = _pytest(["tests/data/test_data.py::test_unknown_path"], env)
    assert proc.returncode == 4
    lines = [line for line in proc.stderr.splitlines() if line.startswith("failed ")]
    assert len(lines) == 42  # 41 data files and the reference file
    assert "the tests could not fetch 42 pinned file(s)" in proc.stderr
    assert all("Connection refused" in line for line in lines)


class _Item:
    def __init__(self, nodeid: str, paper: bool) -> None:
        self.nodeid, self.paper = nodeid, paper

    def get_closest_marker(self, name: str) -> object:
        return self.paper and name == "paper"


def test_paper_tests_without_the_paper_text_stop_with_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(conftest, "paper_text_path", lambda: tmp_path / "paper" / "bediscover_paper.txt")
    items = [_Item("a::test_code", False), _Item("b::test_table_10", True), _Item("c::test_table_9", True)]
    with pytest.raises(pytest.UsageError) as stop:
        conftest.pytest_collection_modifyitems(None, items)
    assert str(stop.value) == (
        "2 selected tests compare with the paper's text, which is not a public file: set BEDISCOVER_REFERENCE_DIR "
        "to a directory holding paper/bediscover_paper.txt, or leave them out with -m 'not paper' "
        "(first: b::test_table_10)"
    )
    conftest.pytest_collection_modifyitems(None, items[:1])  # no paper test selected: nothing to say


def test_a_reference_root_without_the_reference_files_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(conftest, "_GIVEN_REFERENCE", str(tmp_path))
    monkeypatch.setattr(conftest, "REFERENCE_ROOT", tmp_path)
    with pytest.raises(pytest.UsageError) as stop:
        conftest.pytest_configure(None)
    assert str(stop.value) == (
        f"BEDISCOVER_REFERENCE_DIR: {tmp_path / MAPPING.path} is missing (DISRPT 2025 label mapping (each corpus "
        f"label -> one of the 17 unified labels), {MAPPING.url}; `bediscover fetch --reference --to DIR` fetches it)"
    )


def test_a_data_root_without_the_tests_files_is_refused(tmp_path, monkeypatch, data_root):
    """A given data root must hold the tests' 41 files (one holding more is fine): each missing one is named."""
    (tmp_path / "dm" / "just").mkdir(parents=True)
    (tmp_path / "dm" / "just" / "test_id.json").symlink_to(data_root / "dm" / "just" / "test_id.json")
    (tmp_path / "so" / "roc").mkdir(parents=True)
    (tmp_path / "so" / "roc" / "test_id.jsonl").write_text("")  # not one of the tests' files: ignored
    monkeypatch.setattr(conftest, "_GIVEN_DATA", str(tmp_path))
    monkeypatch.delenv("BEDISCOVER_FETCH_BASE_URL", raising=False)
    with pytest.raises(pytest.UsageError) as stop:
        conftest.pytest_configure(None)
    lines = str(stop.value).splitlines()
    assert len(lines) == 40 and all(line.startswith(f"BEDISCOVER_DATA_DIR: {tmp_path}/") for line in lines)
    assert lines[0] == (
        f"BEDISCOVER_DATA_DIR: {tmp_path}/ddp/molweni/test_id.json is missing (dataset 'molweni', "
        f"https://raw.githubusercontent.com/chuyuanli/BeDiscovER/{PINNED_COMMIT}/data/ddp/molweni/test_id.json; "
        "`bediscover fetch --to DIR` fetches it)"
    )
