"""Every fenced command block of the README runs as written, so a recipe cannot rot.

Each block is run by bash in a scratch directory that looks like a clone (``evals/`` linked in), with the test
venv's ``bin`` first on ``PATH`` and only these changes, so the run stays small and offline:

- every ``inspect eval`` and ``bediscover run`` gets ``-T per_dataset=1 --limit 1 --max-tokens 16`` appended (a tiny
  size: ``per_dataset`` builds only the first sample of each dataset, where ``--limit`` alone would build them all
  before Inspect cuts them; a later ``-T`` of the same name wins over the block's own), and ``bediscover run`` also
  ``-T dialogue_parsing.order=file``, so the one dialogue parsed is STAC's first (7 turns, one model call each)
  instead of the longest-first order's MSDC dialogue of 50 turns;
- a server URL of the README (``localhost:8000``, ``127.0.0.1:8080``) is replaced by a loopback server started by
  the test: the benchmarks' OpenAI-compatible model server (``benchmarks/model_server.py``) for vLLM, OpenAI and
  ``openai-api/``, and llama-cpp-python's own server where the README starts that one;
- a model file the README assumes present (``./Qwen3-8B-Q4_K_M.gguf``) is the embedded SmolLM2 file under that name.

What each block's test covers is in its docstring; a block no test knows fails :func:`test_every_block_is_run`.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PAPER_TEXT, REPO_ROOT
from tests.helpers import serving

README = REPO_ROOT / "README.md"
BIN = Path(sys.executable).parent

BLOCK_MARKERS = {
    "make demo": "test_set_up_block",
    "gguf/./Qwen3-8B-Q4_K_M.gguf": "test_running_real_models_block",
    "python -m llama_cpp.server": "test_embedded_model_server_block",
    "bediscover run --model vllm/Qwen/Qwen3-8B": "test_whole_suite_block",
    "bediscover compare --baseline logs/base": "test_regression_block",
    "--workers 4": "test_workers_and_shards_block",
    "bediscover fetch --to data/": "test_fetch_ahead_block",
}
"""A text each fenced block of the README contains -> the test that runs that block."""


SERVER_SETTINGS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "LOCAL_API_KEY",
    "LOCAL_BASE_URL",
    "VLLM_BASE_URL",
    "VLLM_API_KEY",
)
"""Settings of the caller's environment a block must not inherit: each test gives the ones its block needs."""


def readme_blocks() -> list[str]:
    """The README's fenced ``bash`` blocks, each as its text."""
    return re.findall(r"^```bash\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.S | re.M)


def block_with(marker: str) -> str:
    """The one README block containing ``marker``."""
    [block] = [block for block in readme_blocks() if marker in block]
    return block


def shrink(block: str) -> str:
    """``block`` with ``-T per_dataset=1 --limit 1 --max-tokens 16`` appended to each ``inspect eval`` and
    ``bediscover run``, and ``-T dialogue_parsing.order=file`` to each ``bediscover run`` (see the module's doc)."""
    lines = block.replace("\\\n", " ").splitlines()
    tiny = "-T per_dataset=1 --limit 1 --max-tokens 16"
    return "\n".join(
        f"{line} {tiny} -T dialogue_parsing.order=file"
        if re.search(r"\bbediscover run\b", line)
        else f"{line} {tiny}"
        if re.search(r"\binspect eval\b", line)
        else line
        for line in lines
    )


@pytest.fixture()
def clone(tmp_path) -> Path:
    """A scratch working directory with the repository's ``evals/``, as in a fresh clone."""
    work = tmp_path / "clone"
    work.mkdir()
    (work / "evals").symlink_to(REPO_ROOT / "evals")
    return work


def run_block(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """Run ``script`` with bash (``-e``: the first failing command fails the block) and the venv first on PATH."""
    full_env = {k: v for k, v in os.environ.items() if k not in SERVER_SETTINGS}
    full_env |= {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"} | env
    proc = subprocess.run(
        ["bash", "-e", "-c", script], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=1200
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\n{script}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture()
def served() -> Iterator[str]:
    """The base URL of the benchmarks' loopback OpenAI-compatible model server (no latency)."""
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    try:
        import model_server
    finally:
        sys.path.remove(str(REPO_ROOT / "benchmarks"))
    with model_server.serve(slots=8, latency=model_server.Latency(0.0, 0.0)) as server:
        yield server.base_url


def logs_in(directory: Path) -> list[Path]:
    """The ``.eval`` logs under ``directory``."""
    return sorted(directory.rglob("*.eval"))


def test_every_block_is_run():
    """Each fenced block is claimed by exactly one marker, so a new block needs a test here."""
    blocks = readme_blocks()
    assert blocks, "no ```bash blocks found in README.md"
    for block in blocks:
        claimed = [marker for marker in BLOCK_MARKERS if marker in block]
        assert len(claimed) == 1, f"README block claimed by {claimed} (needs exactly one test):\n{block}"
    assert len(blocks) == len(BLOCK_MARKERS)


@pytest.mark.slow
def test_set_up_block(tmp_path):
    """``make demo``: its recipe with ``LIMIT=1 MAX_TOKENS=16`` on the installed venv (``-o install -o deps``: the
    venv is not rebuilt), which scores one NeurIPS abstract with the embedded model; ``make check`` and ``make test``: their recipes are
    lint, format check, mypy and pytest, without the slow and gguf tests for ``check``, and for ``test`` the lint
    beside the tests (dry runs: running them would run this suite inside itself)."""
    commands = [line.split("#")[0].strip() for line in block_with("make demo").splitlines()]
    assert commands == ["make demo", "make check", "make test"]
    venv = str(BIN.parent)
    logs = tmp_path / "logs"
    run_block(
        f"make -s --no-print-directory -C {REPO_ROOT} -o install -o deps demo LIMIT=1 MAX_TOKENS=16 VENV={venv}",
        tmp_path,
        INSPECT_LOG_DIR=str(logs),
    )
    [log] = logs_in(logs)
    from inspect_ai.log import read_eval_log

    header = read_eval_log(str(log), header_only=True)
    assert (header.status, header.eval.model, header.results.completed_samples) == ("success", "gguf/smollm2-135m", 1)
    # `make test` installs, then runs `lint` and `pytest-all` side by side in a make of its own
    dry = run_block(f"make -n --no-print-directory -C {REPO_ROOT} -o install test VENV={venv}", tmp_path).stdout
    assert dry.splitlines()[0] == "make --no-print-directory -j2 pytest-all lint"
    # the paper-text checks run when BEDISCOVER_REFERENCE_DIR holds the paper's text, else both targets leave them out
    paper = PAPER_TEXT.is_file() and bool(os.environ.get("BEDISCOVER_REFERENCE_DIR"))
    for targets, last in (
        ("lint pytest-all", "pytest -q -n auto" if paper else "pytest -q -n auto -m 'not paper'"),
        ("check", "pytest -q -n auto -m 'not slow and not gguf" + ("'" if paper else " and not paper'")),
    ):
        dry = run_block(
            f"make -n --no-print-directory -C {REPO_ROOT} -o {venv}/.installed {targets} VENV={venv}", tmp_path
        ).stdout
        commands = [line.split(" ", 1) for line in dry.splitlines() if line.strip() and not line.startswith("echo ")]
        assert [" ".join([words[0].rsplit("/", 1)[-1], *words[1:]]) for words in commands] == [
            "ruff check src tests evals benchmarks scripts",
            "ruff format --check src tests evals benchmarks scripts",
            "mypy",
            last,
        ]


@pytest.mark.slow
def test_running_real_models_block(clone, served, tmp_path):
    """The four ``inspect eval`` lines: a local GGUF in-process (the embedded file named as the README's Qwen3
    file, so Qwen3's presets apply), vLLM through ``VLLM_BASE_URL``, OpenAI through ``OPENAI_BASE_URL`` and an
    ``openai-api/local/`` server with ``LOCAL_API_KEY``, the three servers played by the loopback model server.
    Not covered: OpenAI's Responses API (the loopback server speaks chat completions, so the OpenAI line gets
    ``-M responses_api=false``) and a real GPT-5-mini."""
    from bediscover_inspect.models.gguf import resolve_model_path

    (clone / "Qwen3-8B-Q4_K_M.gguf").symlink_to(resolve_model_path("smollm2-135m"))
    script = shrink(block_with("gguf/./Qwen3-8B-Q4_K_M.gguf"))
    script = script.replace("http://localhost:8000/v1", served).replace("http://127.0.0.1:8080/v1", served)
    script = script.replace("<served-name>", "bediscover-bench")
    script = script.replace("--model openai/gpt-5-mini", "--model openai/gpt-5-mini -M responses_api=false")
    logs = tmp_path / "logs"
    run_block(script, clone, INSPECT_LOG_DIR=str(logs), OPENAI_BASE_URL=served, OPENAI_API_KEY="test")
    models = {}
    from inspect_ai.log import read_eval_log

    for log in logs_in(logs):
        header = read_eval_log(str(log), header_only=True)
        assert header.status == "success", (log, header.error)
        models[header.eval.model] = header.eval.metadata["generation"]["family"]
    assert models == {
        "gguf/./Qwen3-8B-Q4_K_M.gguf": "qwen3",
        "vllm/Qwen/Qwen3-8B": "qwen3",
        "openai/gpt-5-mini": "gpt-5-mini-low",
        "openai-api/local/bediscover-bench": "other",
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.slow
def test_embedded_model_server_block(clone, tmp_path):
    """llama-cpp-python's server on the embedded GGUF (its path from ``python -m bediscover_inspect.models.gguf``),
    then one discourse-markers sample through ``openai-api/local/smollm2`` with ``LOCAL_API_KEY``, then the server
    stopped: the recipe exactly, on a free port instead of 8080."""
    port = _free_port()
    script = shrink(block_with("python -m llama_cpp.server")).replace("8080", str(port))
    logs = tmp_path / "logs"
    run_block(script, clone, INSPECT_LOG_DIR=str(logs))
    from inspect_ai.log import read_eval_log

    [log] = logs_in(logs)
    header = read_eval_log(str(log), header_only=True)
    assert (header.status, header.eval.model, header.results.completed_samples) == (
        "success",
        "openai-api/local/smollm2",
        1,
    )


@pytest.mark.slow
def test_whole_suite_block(clone, served):
    """``bediscover run`` over all five tasks, seeds 0 1 42 and both reasoning modes against the loopback server as
    vLLM, then ``bediscover report`` on its logs: 30 evals of one sample each, and the report's files."""
    script = shrink(block_with("bediscover run --model vllm/Qwen/Qwen3-8B"))
    proc = run_block(script, clone, VLLM_BASE_URL=served)
    assert len(logs_in(clone / "logs" / "qwen3-8b")) == 30
    assert "bediscover run: 30/30 evals complete in logs/qwen3-8b" in proc.stdout
    assert (clone / "reports" / "qwen3-8b" / "cells.csv").is_file()


@pytest.mark.slow
def test_regression_block(clone, served):
    """Two ``bediscover run`` (five tasks, seed 0, reasoning off) against the loopback server as vLLM, answering
    both models alike, then ``bediscover compare``: exit 0, nothing regressed, a markdown file."""
    script = shrink(block_with("bediscover compare --baseline logs/base"))
    run_block(script, clone, VLLM_BASE_URL=served)
    assert len(logs_in(clone / "logs" / "base")) == len(logs_in(clone / "logs" / "cand")) == 5
    assert "regressed" in (clone / "compare.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_workers_and_shards_block(clone, served):
    """``--workers 4`` (15 evals of one sample over four worker processes) and one shard of eight (``--shard 1/8``)
    then ``bediscover report``, against the loopback server as vLLM. The object store of the README
    (``s3://my-bucket/…``) is a local directory here; the S3 path itself is tested against a loopback store in
    ``tests/cli``."""
    script = shrink(block_with("--workers 4")).replace("s3://my-bucket/runs/q17-full", "store/q17-full")
    script = script.replace("--out reports/q17-full", '--out reports/q17-full || echo "report exit $?"')
    proc = run_block(script, clone, VLLM_BASE_URL=served, SLURM_ARRAY_TASK_ID="1")
    assert len(logs_in(clone / "logs" / "q17")) == 15
    assert "15/15 evals complete" in proc.stdout
    shard = logs_in(clone / "store" / "q17-full")
    assert 1 <= len(shard) < 30  # one eighth of the 30 evals (5 tasks x 3 seeds x 2 modes), rounded
    assert (clone / "reports" / "q17-full" / "cells.csv").is_file()
    # one shard of eight ran: the report names the seeds and tasks the other shards hold and exits 3
    assert "report exit 3" in proc.stdout and "incomplete: missing seed(s)" in proc.stderr


@pytest.mark.slow
def test_fetch_ahead_block(clone, data_root, upstream_root):
    """``bediscover fetch`` into a data root and a reference root, from a loopback host holding the pinned files
    (``BEDISCOVER_FETCH_BASE_URL``); the data line limited to the Task (1) files (``--tasks discourse_markers``)."""
    from bediscover_inspect.data.pinned import REFERENCE_FILES, data_files

    host = clone.parent / "host"
    files = [*data_files(["discourse_markers"]), *REFERENCE_FILES]
    for file in files:
        link = host / file.repository / file.commit / file.source
        link.parent.mkdir(parents=True, exist_ok=True)
        root = upstream_root.parents[1] if file in REFERENCE_FILES else data_root
        link.symlink_to(root / file.path)
    block = block_with("bediscover fetch --to data/").replace("--to data/", "--to data/ --tasks discourse_markers")
    with serving(host) as (base, asked):
        proc = run_block(block, clone, BEDISCOVER_FETCH_BASE_URL=base)
    assert len(asked) == 3
    assert proc.stdout.count("fetched   ") == 3
    assert "2 of 2 files in place under data (2 fetched)" in proc.stdout
    assert (clone / "data" / "dm" / "just" / "test_id.json").is_file()
    assert (clone / "ref" / REFERENCE_FILES[0].path).is_file()
