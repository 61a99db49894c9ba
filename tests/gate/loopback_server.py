"""An OpenAI-compatible chat-completions server on 127.0.0.1 that answers ``good`` requests and then returns
malformed JSON: ``python loopback_server.py PORT_FILE GOOD ANSWER [SHAPE ...]``.

It binds a free port, writes it to ``PORT_FILE`` and serves ``POST /v1/chat/completions`` until killed. The first
``GOOD`` requests get a well-formed completion whose text is ``ANSWER``; every later one a truncated JSON body
(HTTP 200), as a server that breaks mid-run sends.

The ``SHAPE`` words, taken in turn per request (default ``answer``), give a well-formed completion the shape of a
reasoning model's reply: ``answer`` (``ANSWER``, ``finish_reason: "stop"``); ``length`` (a partial analysis naming
``ANSWER``'s last word in passing, ``"length"``, the request's ``max_tokens`` as completion tokens); ``reasoning_length`` (the
partial analysis in ``reasoning_content``, empty content, ``"length"``); ``reasoning_only`` (``ANSWER`` only in
``reasoning_content``, empty content, ``"stop"``); ``unclosed_think`` (``<think>`` and the partial analysis,
``"length"``).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

_lock = threading.Lock()
_served = 0


SHAPES = ("answer", "length", "reasoning_length", "reasoning_only", "unclosed_think")


def _message(answer: str, shape: str, budget: int) -> tuple[dict[str, str], str, int]:
    """``(message, finish_reason, completion_tokens)`` of one reply in ``shape`` (module docstring)."""
    word = answer.split(":", 1)[-1].strip()  # "Answer: so" -> "so": named in passing, not stated
    partial = f"Weighing the options, {word} looks right, but before committing let me check whether the"
    if shape == "length":
        return {"role": "assistant", "content": partial}, "length", budget
    if shape == "reasoning_length":
        return {"role": "assistant", "content": "", "reasoning_content": partial}, "length", budget
    if shape == "unclosed_think":
        return {"role": "assistant", "content": f"<think>{partial}"}, "length", budget
    if shape == "reasoning_only":
        return {"role": "assistant", "content": "", "reasoning_content": f"Thinking it over.\n{answer}"}, "stop", 8
    return {"role": "assistant", "content": answer}, "stop", 2


def _completion(model: str, answer: str, shape: str = "answer", budget: int = 256) -> bytes:
    message, finish, tokens = _message(answer, shape, budget)
    return json.dumps(
        {
            "id": "chatcmpl-loopback",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": tokens, "total_tokens": 10 + tokens},
        }
    ).encode()


def main() -> None:
    port_file, good, answer = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    shapes = sys.argv[4:] or ["answer"]
    unknown = sorted(set(shapes) - set(SHAPES))
    if unknown:
        sys.exit(f"loopback_server: unknown shape {unknown[0]!r}; choose from {', '.join(SHAPES)}")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            global _served
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            with _lock:
                _served += 1
                healthy, shape = _served <= good, shapes[(_served - 1) % len(shapes)]
            budget = int(request.get("max_completion_tokens") or request.get("max_tokens") or 256)
            model = request.get("model", "loopback")
            body = _completion(model, answer, shape, budget) if healthy else b'{"id": "chatcmpl-lo'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


def run_loopback(
    port_file: Path, monkeypatch: Any, arguments: list[str], log_dir: Path, limit: int, **eval_args: Any
) -> Any:
    """Start this server (``arguments``: ``GOOD ANSWER [SHAPE ...]``), run the discourse-markers task's
    ``otherwise`` dataset (``limit`` samples, one connection, no retries) against it as ``openai/loopback``, stop
    the server and return the eval log. ``eval_args`` go to ``inspect_ai.eval`` (``max_tokens`` …)."""
    import subprocess

    from bediscover_inspect.discourse_markers.task import discourse_markers
    from tests.helpers import run_eval

    server = subprocess.Popen([sys.executable, __file__, str(port_file), *arguments])
    try:
        for _ in range(200):
            if port_file.exists() and port_file.read_text():
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the loopback server did not start")
        monkeypatch.setenv("OPENAI_API_KEY", "loopback")
        [log] = run_eval(
            discourse_markers(dataset="otherwise"),
            model="openai/loopback",
            model_base_url=f"http://127.0.0.1:{port_file.read_text()}/v1",
            model_args={"responses_api": False},
            limit=limit,
            max_connections=1,
            max_retries=0,
            timeout=20,
            fail_on_error=False,
            display="none",
            log_dir=str(log_dir),
            **eval_args,
        )
    finally:
        server.kill()
        server.wait()
    return log


if __name__ == "__main__":
    main()
