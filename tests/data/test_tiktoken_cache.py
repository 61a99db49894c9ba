"""The seeded tiktoken o200k_base survives a cleared temporary directory (persistent user cache)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bediscover_inspect.offline import tiktoken_cache_dir
from bediscover_inspect.tiktoken_cache import use_tiktoken_cache
from tests.conftest import REPO_ROOT


def _python(code: str, tmpdir: Path, cache_home: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    env |= {"TMPDIR": str(tmpdir), "XDG_CACHE_HOME": str(cache_home)} | extra
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_seeded_encoding_loads_after_tmp_is_cleared(tmp_path):
    first_tmp, fresh_tmp, cache_home = tmp_path / "tmp1", tmp_path / "tmp2", tmp_path / "cache"
    first_tmp.mkdir(), fresh_tmp.mkdir()
    seeded = _python(
        "from bediscover_inspect.offline import seed_tiktoken_cache; print(seed_tiktoken_cache())",
        first_tmp,
        cache_home,
    )
    assert seeded.returncode == 0, seeded.stderr
    # tiktoken's cache key is the sha1 of the blob URL (tiktoken.load.read_file_cached)
    assert seeded.stdout.strip() == str(
        cache_home / "bediscover-inspect" / "tiktoken" / "fb374d419588a4632f3f557e76b4b70aebbca790"
    )
    # a new process with an empty temporary directory, no network: tiktoken must find the file via the package
    loaded = _python(
        "import bediscover_inspect._registry, tiktoken; print(tiktoken.get_encoding('o200k_base').encode('hello world'))",
        fresh_tmp,
        cache_home,
    )
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert loaded.stdout.strip() == "[24912, 2375]"  # o200k_base token ids of "hello world"


def test_a_users_cache_variable_wins(tmp_path, monkeypatch):
    """What importing Inspect's entry point (:mod:`bediscover_inspect._registry`) does to the environment, in this
    process: :func:`use_tiktoken_cache` leaves a user's ``TIKTOKEN_CACHE_DIR`` or ``DATA_GYM_CACHE_DIR`` alone and
    seeds into that directory."""
    own = tmp_path / "own"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(own))
    use_tiktoken_cache()
    assert [os.environ["TIKTOKEN_CACHE_DIR"], str(tiktoken_cache_dir())] == [str(own), str(own)]
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR")
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(own))
    use_tiktoken_cache()
    assert ["TIKTOKEN_CACHE_DIR" in os.environ, str(tiktoken_cache_dir())] == [False, str(own)]


@pytest.mark.slow
def test_importing_the_package_sets_no_variable_and_an_eval_does(tmp_path):
    """Only Inspect's entry point (loaded at the start of every eval) points tiktoken at the package's cache."""
    code = (
        "import os, bediscover_inspect, bediscover_inspect.report; print('TIKTOKEN_CACHE_DIR' in os.environ)\n"
        "from inspect_ai import Task, eval\n"
        "from inspect_ai.dataset import Sample\n"
        "from inspect_ai.model import ModelOutput, ModelUsage, get_model\n"
        "output = ModelOutput.from_content('mockllm/model', 'x')\n"
        "output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)\n"
        "model = get_model('mockllm/model', custom_outputs=[output])\n"
        "eval(Task(dataset=[Sample(input='x')]), model=model, display='none', log_dir={log_dir!r})\n"
        "print(os.environ.get('TIKTOKEN_CACHE_DIR'))"
    ).format(log_dir=str(tmp_path / "logs"))
    proc = _python(code, tmp_path, tmp_path / "cache")
    assert proc.stdout.split() == ["False", str(tmp_path / "cache" / "bediscover-inspect" / "tiktoken")], proc.stderr


def test_data_check_names_a_missing_demo_file_in_one_line(tmp_path, monkeypatch, capsys):
    from bediscover_inspect import offline

    monkeypatch.setenv("BEDISCOVER_DATA_DIR", str(tmp_path))
    assert offline.main(["--data", "so/nips-abs/test_id.jsonl"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith("error: BeDiscovER data file not found: so/nips-abs/test_id.jsonl (dataset 'nips-abs'")
    assert f"Looked in {tmp_path} (BEDISCOVER_DATA_DIR)" in err[0]


def test_data_check_reports_where_a_file_is_and_its_sha1(tmp_path, monkeypatch, capsys):
    from bediscover_inspect import offline

    (tmp_path / "so" / "nips-abs").mkdir(parents=True)
    (tmp_path / "so" / "nips-abs" / "test_id.jsonl").write_text('{"id": 1}\n')
    monkeypatch.setenv("BEDISCOVER_DATA_DIR", str(tmp_path))
    assert offline.main(["--data", "so/nips-abs/test_id.jsonl"]) == 0
    assert capsys.readouterr().out == (
        f"data: so/nips-abs/test_id.jsonl at {tmp_path}/so/nips-abs/test_id.jsonl (env, SHA-1 differs from the pinned one)\n"
    )
