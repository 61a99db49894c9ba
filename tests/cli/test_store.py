"""Log directories on an object store: two ``bediscover run --shard`` processes into one bucket of a real
S3-compatible server on loopback (SeaweedFS), then ``report``, ``compare`` and ``rescore`` reading the ``s3://`` URL:
the report equals a one-process run's on local disk, cell for cell."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from bediscover_inspect.cli import main
from bediscover_inspect.report.build import build_report
from tests.s3_server import s3_server

from .slow_runner import run_here

RUNNER = Path(__file__).with_name("slow_runner.py")
BASELINE = Path(__file__).resolve().parents[1] / "baseline"
REPO = Path(__file__).resolve().parents[2]
BUCKET = "bediscover-test"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``s3://<bucket>`` on a SeaweedFS server started for this module, with the environment pointing at it."""
    import s3fs

    with s3_server(tmp_path_factory.mktemp("seaweedfs")) as env, pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        s3fs.S3FileSystem.clear_instance_cache()
        s3fs.S3FileSystem().mkdir(BUCKET)
        yield f"s3://{BUCKET}"
        s3fs.S3FileSystem.clear_instance_cache()


def _argv(log_dir: str, *extra: str) -> list[str]:
    """``bediscover run`` of 2 tasks x 2 modes (seed 0), 3 samples each, with the offline ``slowmock/model``."""
    argv = ["run", "--model", "slowmock/model", "--tasks", "sentence_ordering", "temporal_reasoning"]
    argv += ["--seeds", "0", "--reasoning", "both", "--limit", "3", "--log-dir", log_dir, "--display", "none"]
    return argv + ["-T", "sentence_ordering.dataset=nips-abs", "-T", "temporal_reasoning.dataset=tbd", *extra]


def _run(log_dir: str, counter: Path, *extra: str) -> subprocess.Popen:
    """:func:`_argv` in a process of its own."""
    env = os.environ | {"BEDISCOVER_TEST_COUNTER": str(counter), "BEDISCOVER_TEST_DELAY": "0"}
    cmd = [sys.executable, str(RUNNER), *_argv(log_dir, *extra)]
    return subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _finish(proc: subprocess.Popen) -> str:
    output = proc.communicate(timeout=900)[0].decode()
    assert proc.returncode == 0, output[-3000:]
    return output


def _cells(report_cells: pd.DataFrame) -> pd.DataFrame:
    return report_cells.sort_values(list(report_cells.columns[:8])).reset_index(drop=True)


def _count_clients(monkeypatch: pytest.MonkeyPatch, command: list[str]) -> list[str]:
    """The store clients (aiobotocore's ``create_client`` calls) ``bediscover <command>`` opens; asserts exit 0."""
    from aiobotocore.session import AioSession

    clients: list[str] = []
    create_client = AioSession.create_client

    def counted(self: AioSession, service_name: str, *args: object, **kwargs: object) -> object:
        clients.append(service_name)
        return create_client(self, service_name, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(AioSession, "create_client", counted)
        assert main(command) == 0, command
    return clients


@pytest.mark.slow
def test_two_shards_into_the_store_report_as_one_local_process(store, tmp_path, monkeypatch):
    remote, local = f"{store}/shards", str(tmp_path / "local")
    shards = [_run(remote, tmp_path / f"calls{i}.txt", "--shard", f"{i}/2") for i in (1, 2)]
    code, output = run_here(_argv(local), tmp_path / "calls_local.txt")  # in this process, beside the shards
    assert code == 0, output[-3000:]
    outputs = [_finish(proc) for proc in shards]
    assert f"bediscover run: 2/2 evals complete in {remote}" in outputs[0]
    assert f"bediscover run: 2/2 evals complete in {remote}" in outputs[1]
    calls = [len((tmp_path / f"calls{i}.txt").read_text().splitlines()) for i in (1, 2)]
    assert calls == [6, 6]  # 2 evals x 3 samples each

    on_store = build_report(remote, tmp_path / "report_store", plots=False)
    on_disk = build_report(local, tmp_path / "report_local", plots=False)
    assert len(on_store.cells) > 0 and list(on_store.cells.columns) == list(on_disk.cells.columns)
    pd.testing.assert_frame_equal(_cells(on_store.cells), _cells(on_disk.cells))
    assert on_store.warnings == on_disk.warnings == []
    for name in ("sentence_ordering.md", "temporal_reasoning.md"):
        assert (tmp_path / "report_store" / name).read_text() == (tmp_path / "report_local" / name).read_text()

    # the command line reads the URL too (it used to be taken for a local path), through one S3 client: the
    # listing, the 4 headers and the 2 temporal-reasoning logs its class tables read whole, in one event loop
    report = ["report", "--log-dir", remote, "--out", str(tmp_path / "cli_report"), "--no-plots"]
    assert _count_clients(monkeypatch, report) == ["s3"]
    for name in ("sentence_ordering.md", "temporal_reasoning.md", "classes/per_class.csv", "classes/confusion.csv"):
        assert (tmp_path / "cli_report" / name).read_text() == (tmp_path / "report_local" / name).read_text()

    # compare pairs every sample of the store's run with the local run's: no score differs; rescore reads the store
    # and writes into it (same file names), and the gate passes on the result; each through one S3 client, however
    # many logs (4 on each side here).
    for command, expected in (
        (["compare", "--baseline", remote, "--candidate", local, "--require-identical"], ["s3"]),
        (["rescore", remote, "--out", f"{store}/rescored"], ["s3"]),
        (["compare", "--baseline", remote, "--candidate", f"{store}/rescored", "--require-identical"], ["s3"]),
    ):
        assert _count_clients(monkeypatch, command) == expected, command
    import s3fs

    names = sorted(path.rsplit("/", 1)[-1] for path in s3fs.S3FileSystem().ls(f"{BUCKET}/shards"))
    rescored = sorted(path.rsplit("/", 1)[-1] for path in s3fs.S3FileSystem().ls(f"{BUCKET}/rescored"))
    assert rescored == [name for name in names if name.endswith(".eval")] and len(rescored) == 4


def test_compare_and_rescore_open_one_store_client_whatever_the_logs(store, monkeypatch, capsys):
    """The five baseline logs on the store: compare (store against local, then store against store) and rescore
    (store into store) each read every log, sample by sample, and write through one S3 client."""
    import s3fs

    remote = f"{store}/baseline"
    s3fs.S3FileSystem().put([str(p) for p in sorted(BASELINE.glob("*.eval"))], f"{BUCKET}/baseline/")
    baseline = ["compare", "--baseline", remote, "--candidate", str(BASELINE), "--require-identical"]
    assert _count_clients(monkeypatch, baseline) == ["s3"]
    assert _count_clients(monkeypatch, ["rescore", remote, "--out", f"{store}/rescored_baseline"]) == ["s3"]
    assert "bediscover rescore: 5 logs in" in capsys.readouterr().out
    again = ["compare", "--baseline", remote, "--candidate", f"{store}/rescored_baseline", "--require-identical"]
    assert _count_clients(monkeypatch, again) == ["s3"]
    rescored = sorted(p.rsplit("/", 1)[-1] for p in s3fs.S3FileSystem().ls(f"{BUCKET}/rescored_baseline"))
    assert rescored == sorted(p.name for p in BASELINE.glob("*.eval"))


def test_a_missing_store_prefix_is_one_line_exit_2(store, capsys):
    assert main(["report", "--log-dir", f"{store}/nothing-here", "--out", "unused"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"bediscover report: error: log directory not found: {store}/nothing-here"
