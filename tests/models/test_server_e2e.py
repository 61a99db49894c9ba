"""End to end through a real OpenAI-compatible server: llama-cpp-python's own server on loopback.

The server (``python -m llama_cpp.server``, extra ``llama-cpp-python[server]``) serves the SmolLM2-135M GGUF
on 127.0.0.1 at a free port; Inspect reaches it through its ``openai-api/`` and ``llama-cpp-python/``
providers, with the suite's thinking switch (``extra_body={"chat_template_kwargs": {"enable_thinking":
False}}``) sent by :func:`bediscover_inspect.thinking.generate_with_thinking`. Nothing leaves the machine.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from inspect_ai import Task, eval
from inspect_ai.scorer import includes
from inspect_ai.solver import system_message

from bediscover_inspect.models.gguf import resolve_model_path
from bediscover_inspect.thinking import generate_with_thinking

from .tiny_task import SAMPLES, SYSTEM

STARTUP_TIMEOUT_S = 180.0
"""Upper bound on the wait for the server to answer ``GET /v1/models`` (loads a 98 MB GGUF)."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """Start llama-cpp-python's server on loopback; yields its ``/v1`` base URL; stops it afterwards."""
    port = _free_port()
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(resolve_model_path("smollm2-135m")),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
    ]
    with open(log, "wb") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with opener.open(f"{base_url}/models", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server not up after {STARTUP_TIMEOUT_S:.0f}s:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def _request_body(sample) -> dict:
    """The request Inspect logged for a sample's (only) model call (OpenAI client kwargs), attachments resolved."""
    event = next(e for e in sample.events if e.event == "model")
    text = json.dumps(event.call.request)
    for key, value in (sample.attachments or {}).items():
        text = text.replace(f"attachment://{key}", json.dumps(value)[1:-1])
    return json.loads(text)


@pytest.mark.slow
@pytest.mark.gguf
@pytest.mark.parametrize("model", ["openai-api/llamacpp/smollm2-135m", "llama-cpp-python/smollm2-135m"])
def test_tiny_task_through_llama_cpp_server(llama_server, model, tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMACPP_API_KEY", "local")  # openai-api/llamacpp/... reads LLAMACPP_*; no real key
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    task = Task(
        dataset=list(SAMPLES),
        solver=[system_message(SYSTEM), generate_with_thinking(reasoning=False)],
        scorer=includes(),
    )
    [log] = eval(
        task,
        model=model,
        model_base_url=llama_server,
        display="none",
        log_dir=str(tmp_path),
        seed=42,
        max_tokens=24,
        temperature=0.7,
        top_p=0.8,
    )
    assert log.status == "success", log.error
    assert len(log.samples) == 2
    for sample in log.samples:
        assert sample.scores["includes"].value in ("C", "I")
        assert sample.output.completion.strip()
        assert 0 < sample.output.usage.output_tokens <= 24
        body = _request_body(sample)
        # the thinking switch, as the OpenAI client's extra_body (merged into the JSON body on the wire;
        # llama-cpp-python's server accepts the field and ignores it, vLLM/SGLang apply it)
        assert body["extra_body"] == {"chat_template_kwargs": {"enable_thinking": False}}
        assert body["messages"][0] == {"role": "system", "content": SYSTEM}
        assert body["seed"] == 42 and body["max_tokens"] == 24
    assert log.results.scores[0].metrics["accuracy"].value in (0.0, 0.5, 1.0)
