"""An OpenAI-compatible chat-completions server that plays a served model, for the benchmarks.

    python benchmarks/model_server.py --slots 32 --fixed 0.4 --per-token 0.004 --port-file PORT_FILE

Loopback only (``127.0.0.1``), built on Starlette and uvicorn. ``POST /v1/chat/completions`` answers each of the
five tasks with a valid answer of realistic length, recognised from the prompt text (:func:`answer`): a label for
the label tasks, a JSON dict for ToT-Arithmetic, a ``<s n>`` sequence for sentence ordering, a
``LABEL(x, y)`` list for a dialogue turn. The answer is a pure function of the messages (seeded by their
hash), so a replay of the same prompts gets the same answers and the same latencies.

Latency model: a call holds one of ``--slots`` parallel slots (an ``asyncio.Semaphore``; calls beyond the slots
queue) for ``fixed + per_token × completion_tokens`` seconds, where ``completion_tokens`` counts the answer and
its reasoning tokens (reported in ``usage.completion_tokens_details.reasoning_tokens``, as vLLM and OpenAI do; the
reasoning text itself is not sent). ``POST /tokenize`` counts a chat request's prompt tokens as vLLM's endpoint
does, with the same count as ``usage.prompt_tokens`` (:func:`tokens`). ``GET /stats`` reports what the server saw since the last ``POST /reset``.

Reasoning-model shapes (``--shapes length=0.33,reasoning_only=0.1``: the share of calls given each shape, chosen
per call from the hash of its messages, so a replay gets the same shapes; :data:`SHAPES`): ``length`` — the budget
ends mid-analysis, ``finish_reason: "length"``, the partial analysis as content (a label named in passing, a dict,
order or relation list half written);
``reasoning_length`` — the budget ends inside the reasoning a reasoning parser separated: ``reasoning_content``
partial, content empty, ``"length"``; ``reasoning_only`` — the whole text, answer included, in
``reasoning_content`` and an empty content, ``"stop"`` (a misconfigured parser); ``unclosed_think`` — content
``<think>`` and a partial reasoning, ``"length"``. A reply cut off at the budget reports the request's
``max_tokens`` (else 256) as its completion tokens, so it holds its slot as long as the budget takes.

Inspect talks to it as to any OpenAI-compatible server (vLLM included):
``BENCH_BASE_URL=http://127.0.0.1:<port>/v1 BENCH_API_KEY=bench inspect eval … --model openai-api/bench/<name>``.
:func:`serve` starts it in a child process and stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import os
import random
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

MODEL_NAME = "bediscover-bench"
"""The model name the server reports; Inspect's model is ``openai-api/bench/bediscover-bench``."""

INSPECT_MODEL = f"openai-api/bench/{MODEL_NAME}"
"""``--model`` for Inspect (the provider reads ``BENCH_BASE_URL`` and ``BENCH_API_KEY``)."""


@dataclass(frozen=True)
class Latency:
    """Seconds a call holds a slot: ``fixed_s + per_token_s × completion_tokens``."""

    fixed_s: float
    per_token_s: float

    def __call__(self, completion_tokens: int) -> float:
        return self.fixed_s + self.per_token_s * completion_tokens


@dataclass(frozen=True)
class Reply:
    """One answer: its text, token counts and the task it was recognised as."""

    task: str
    text: str
    answer_tokens: int
    reasoning_tokens: int

    @property
    def completion_tokens(self) -> int:
        return self.answer_tokens + self.reasoning_tokens


# ------------------------------------------------------------------------------------------------ answers
_JUST = ("Exclusionary", "Unelaboratory", "Unexplanatory", "Emphatic", "Temporal", "Adjective")
_OTHERWISE = ("Argumentation", "Consequence", "Exception", "Enumeration")
_TEMPORAL = ("BEFORE", "AFTER", "INCLUDES", "IS_INCLUDED", "SIMULTANEOUS", "NONE")
_DISRPT = (
    "elaboration",
    "conjunction",
    "causal",
    "contrast",
    "attribution",
    "temporal",
    "explanation",
    "condition",
    "concession",
    "purpose",
    "frame",
    "comment",
    "query",
    "reformulation",
    "mode",
    "organization",
    "alternation",
)
_STAC = (
    "QA_PAIR",
    "ACKNOWLEDGEMENT",
    "COMMENT",
    "ELABORATION",
    "CONTINUATION",
    "Q_ELABORATION",
    "RESULT",
    "CLARIF_Q",
    "CONTRAST",
    "EXPLANATION",
    "NARRATION",
    "CORRECTION",
    "BACKGROUND",
    "PARALLEL",
    "ALTERNATION",
    "CONDITIONAL",
)
_MSDC = (
    "ACKNOWLEDGEMENT",
    "CONTINUATION",
    "ELABORATION",
    "RESULT",
    "QA_PAIR",
    "CLARIF_Q",
    "CONFIRM_Q",
    "SEQUENCE",
    "NARRATION",
    "COMMENT",
    "CORRECTION",
    "CONTRAST",
    "EXPLANATION",
    "Q_ELABORATION",
    "ALTERNATION",
    "CONDITIONAL",
)
_NEW_TURN = re.compile(r"## New turn:\s*(\d+)\.")
_MARKER = re.compile(r"<s (\d+)>")
_TEMPLATE = re.compile(r"\{[^{}]*\}")
_KEY = re.compile(r"\"(\w+)\"\s*:")


def tokens(text: str) -> int:
    """Token count of ``text`` as a served model would report it: about four characters a token."""
    return max(1, math.ceil(len(text) / 4))


def _pick(rng: random.Random, labels: tuple[str, ...]) -> str:
    # labels are listed most frequent first; a model's answers are skewed the same way
    return labels[min(int(rng.expovariate(0.5)), len(labels) - 1)]


def _label(rng: random.Random, labels: tuple[str, ...]) -> str:
    # answers vary in length as a model's do: the bare label, or the label in a short sentence
    label = _pick(rng, labels)
    form = rng.random()
    if form < 0.6:
        return label
    if form < 0.85:
        return f"**{label}**"
    return f"The answer is {label}."


def _tot(rng: random.Random, user: str) -> str:
    template = _TEMPLATE.search(user)
    keys = _KEY.findall(template.group(0)) if template else []
    if "unordered list" in user and not keys:
        keys = ["unordered_list"]
    out: dict[str, Any] = {}
    for key in keys or ["answer"]:
        if key in {"H", "M", "S", "X", "Y", "Z"}:
            out[key] = rng.randint(0, 59)
        elif key == "unordered_list":
            out[key] = rng.sample(["Alice", "Bob", "Carol", "Dave", "Erin"], rng.randint(1, 3))
        elif key == "date" or "mm/dd/yyyy" in user:
            out[key] = f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(1900, 2030)}"
        elif "yyyy-mm-dd" in user:
            out[key] = f"{rng.randint(1900, 2030)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        elif "day_of_week" in user:
            out[key] = rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
        elif "<era>" in user:
            out[key] = f"{rng.randint(1, 2000)} {rng.choice(['BC', 'AD'])}"
        else:
            out[key] = rng.randint(1, 500)
    return json.dumps(out)


def _ordering(rng: random.Random, markers: list[str]) -> str:
    order = list(dict.fromkeys(markers))
    for _ in range(rng.randint(0, len(order) // 2)):  # a few neighbours swapped: partly right, as models are
        i = rng.randrange(max(len(order) - 1, 1))
        order[i : i + 2] = order[i : i + 2][::-1]
    return " ".join(f"<s {m}>" for m in order)


def _relations(rng: random.Random, j: int, labels: tuple[str, ...]) -> str:
    parents = {j - 1}
    if j > 1 and rng.random() < 0.25:
        parents.add(rng.randrange(max(0, j - 6), j - 1))
    return " ".join(f"{_pick(rng, labels)}({x},{j})" for x in sorted(parents))


def answer(messages: list[dict[str, Any]], reasoning_tokens: int = 0) -> Reply:
    """The server's answer to ``messages`` (OpenAI chat format), recognising the task from the prompt text.

    ``reasoning_tokens`` is the mean number of reasoning tokens per call (drawn uniformly from 0 to twice it).
    """
    system = next((_text(m) for m in messages if m.get("role") in ("system", "developer")), "")
    user = next((_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
    rng = random.Random(hashlib.blake2b(f"{system}\x00{user}".encode(), digest_size=8).digest())
    turn = _NEW_TURN.search(user)
    markers = _MARKER.findall(user)
    if turn:
        task, text = "dialogue_parsing", _relations(rng, int(turn.group(1)), _MSDC if "Minecraft" in system else _STAC)
    elif markers:
        task, text = "sentence_ordering", _ordering(rng, markers)
    elif "temporal arithmetic" in system:
        task, text = "temporal_reasoning", _tot(rng, user)
    elif "**temporal relation**" in system:
        task, text = "temporal_reasoning", _label(rng, _TEMPORAL)
    elif "‘just’" in system:
        task, text = "discourse_markers", _label(rng, _JUST)
    elif "‘otherwise’" in system:
        task, text = "discourse_markers", _label(rng, _OTHERWISE)
    elif "## Labels:" in system:
        task, text = "discourse_relations", _label(rng, _DISRPT)
    else:
        task, text = "other", "OK."
    reasoning = rng.randint(0, 2 * reasoning_tokens) if reasoning_tokens > 0 else 0
    return Reply(task, text, tokens(text), reasoning)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):  # content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


SHAPES: tuple[str, ...] = ("length", "reasoning_length", "reasoning_only", "unclosed_think")
"""Reply shapes of a reasoning model that :func:`shaped` produces besides a plain answer (module docstring)."""

CUT_OFF_SHAPES = frozenset({"length", "reasoning_length", "unclosed_think"})
"""The shapes that stop at the budget (``finish_reason: "length"``)."""

DEFAULT_BUDGET = 256
"""Completion tokens of a cut-off reply when the request sends no ``max_tokens``."""


def parse_shapes(text: str) -> dict[str, float]:
    """``length=0.33,reasoning_only=0.1`` -> ``{"length": 0.33, "reasoning_only": 0.1}``.

    Raises:
        ValueError: an unknown shape, a share outside 0–1, or shares summing above 1 (names it).
    """
    shares: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, share = item.partition("=")
        if name not in SHAPES:
            raise ValueError(f"--shapes: unknown shape {name!r}; choose from {', '.join(SHAPES)}")
        shares[name] = float(share)
        if not 0 <= shares[name] <= 1:
            raise ValueError(f"--shapes: the share of {name} must be between 0 and 1, got {share}")
    if sum(shares.values()) > 1:
        raise ValueError(f"--shapes: the shares sum to {sum(shares.values())}, above 1")
    return shares


def shape_of(messages: list[dict[str, Any]], shares: dict[str, float]) -> str:
    """The shape of the reply to ``messages``: ``answer`` or one of :data:`SHAPES`, drawn with ``shares`` from the
    hash of the messages (a replay gets the same shape)."""
    if not shares:
        return "answer"
    key = json.dumps([_text(m) for m in messages]).encode()
    draw = random.Random(hashlib.blake2b(key + b"\x00shape", digest_size=8).digest()).random()
    for name, share in shares.items():
        if draw < share:
            return name
        draw -= share
    return "answer"


def shaped(reply: Reply, shape: str, budget: int | None) -> tuple[dict[str, Any], str, int, int]:
    """``(message, finish_reason, completion_tokens, reasoning_tokens)`` of ``reply`` in ``shape`` (module
    docstring); a cut-off shape reports ``budget`` (else :data:`DEFAULT_BUDGET`) completion tokens."""
    # a label named in passing (no answer marker); a dict, order or relation list only half written
    label = not any(mark in reply.text for mark in ("{", "<s", "("))
    named = re.sub(r"^The answer is |[*.]", "", reply.text) if label else reply.text[: len(reply.text) // 2]
    partial = f"Weighing the options, {named} looks right, but before committing let me check whether the"
    cut = budget or DEFAULT_BUDGET
    if shape == "length":
        return {"role": "assistant", "content": partial}, "length", cut, 0
    if shape == "reasoning_length":
        return {"role": "assistant", "content": "", "reasoning_content": partial}, "length", cut, cut
    if shape == "unclosed_think":
        return {"role": "assistant", "content": f"<think>{partial}"}, "length", cut, 0
    if shape == "reasoning_only":
        thought = f"Weighing the options, the answer is:\n{reply.text}"
        return (
            {"role": "assistant", "content": "", "reasoning_content": thought},
            "stop",
            tokens(thought),
            tokens(thought),
        )
    message = {"role": "assistant", "content": reply.text}
    return message, "stop", reply.completion_tokens, reply.reasoning_tokens


# ------------------------------------------------------------------------------------------------ the server
@dataclass
class Stats:
    """What the server saw since the last reset; seconds are ``time.monotonic()`` of the server process."""

    requests: int = 0
    latency_sum_s: float = 0.0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    waiting: int = 0
    max_waiting: int = 0
    first_arrival: float | None = None
    last_end: float | None = None
    tasks: dict[str, int] | None = None
    shapes: dict[str, int] | None = None


def create_app(slots: int, latency: Latency, reasoning_tokens: int = 0, shapes: dict[str, float] | None = None) -> Any:
    """The Starlette application: chat completions, model list, stats, reset, health; ``shapes``: the share of
    calls per reply shape (:func:`parse_shapes`)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    state = {"stats": Stats(tasks={}, shapes={}), "slots": None}

    def semaphore() -> asyncio.Semaphore:  # created inside the server's event loop
        if state["slots"] is None:
            state["slots"] = asyncio.Semaphore(slots)
        return state["slots"]

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        stats: Stats = state["stats"]
        now = time.monotonic()
        stats.first_arrival = now if stats.first_arrival is None else stats.first_arrival
        reply = answer(body.get("messages") or [], reasoning_tokens)
        shape = shape_of(body.get("messages") or [], shapes or {})
        budget = body.get("max_completion_tokens") or body.get("max_tokens")
        message, finish, completion_tokens, reasoning_used = shaped(reply, shape, budget)
        seconds = latency(completion_tokens)
        stats.waiting += 1
        stats.max_waiting = max(stats.max_waiting, stats.waiting)
        async with semaphore():
            stats.waiting -= 1
            stats.in_flight += 1
            stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
            await asyncio.sleep(seconds)
            stats.in_flight -= 1
        stats.requests += 1
        stats.latency_sum_s += seconds
        stats.completion_tokens += completion_tokens
        stats.reasoning_tokens += reasoning_used
        stats.tasks[reply.task] = stats.tasks.get(reply.task, 0) + 1
        stats.shapes[shape] = stats.shapes.get(shape, 0) + 1
        stats.last_end = time.monotonic()
        prompt_tokens = sum(tokens(_text(m)) for m in body.get("messages") or [])
        return JSONResponse(
            {
                "id": f"chatcmpl-{stats.requests}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", MODEL_NAME),
                "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                    "completion_tokens_details": {"reasoning_tokens": reasoning_used},
                },
            }
        )

    async def tokenize(request: Request) -> JSONResponse:
        # vLLM's /tokenize: the prompt tokens a chat request of these messages is billed (counted as usage is)
        body = await request.json()
        return JSONResponse({"count": sum(tokens(_text(m)) for m in body.get("messages") or [])})

    async def models(request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": MODEL_NAME, "object": "model", "owned_by": "bench"}]})

    async def stats(request: Request) -> JSONResponse:
        return JSONResponse(asdict(state["stats"]))

    async def reset(request: Request) -> JSONResponse:
        state["stats"] = Stats(tasks={}, shapes={})
        return JSONResponse({"ok": True})

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True, "slots": slots, "latency": asdict(latency)})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/tokenize", tokenize, methods=["POST"]),
            Route("/stats", stats, methods=["GET"]),
            Route("/reset", reset, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
        ]
    )


def run_server(
    slots: int, latency: Latency, reasoning_tokens: int, port_file: Path, shapes: dict[str, float] | None = None
) -> None:
    """Serve on a free loopback port until terminated; the port is written to ``port_file`` once bound."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        create_app(slots, latency, reasoning_tokens, shapes),
        log_level="warning",
        access_log=False,
        timeout_keep_alive=120,
        backlog=4096,
    )
    server = uvicorn.Server(config)
    port_file.write_text(str(sock.getsockname()[1]))
    server.run(sockets=[sock])


@dataclass
class Served:
    """A running server (see :func:`serve`): its base URL, the env Inspect needs, stats and reset."""

    base_url: str
    proc: subprocess.Popen

    @property
    def env(self) -> dict[str, str]:
        return {"BENCH_BASE_URL": self.base_url, "BENCH_API_KEY": "bench"}

    def _call(self, path: str, method: str = "GET") -> dict[str, Any]:
        request = urllib.request.Request(
            self.base_url.removesuffix("/v1") + path, method=method, data=b"" if method == "POST" else None
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def stats(self) -> dict[str, Any]:
        return self._call("/stats")

    def reset(self) -> None:
        self._call("/reset", "POST")


@contextlib.contextmanager
def serve(
    slots: int, latency: Latency, reasoning_tokens: int = 0, work: Path | None = None, shapes: str = ""
) -> Iterator[Served]:
    """Start the server in a child process, wait until it answers, yield it, stop it; ``shapes`` as ``--shapes``."""
    import tempfile

    with tempfile.TemporaryDirectory(dir=work) as tmp:
        port_file = Path(tmp) / "port"
        proc = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--slots",
                str(slots),
                "--fixed",
                str(latency.fixed_s),
                "--per-token",
                str(latency.per_token_s),
                "--reasoning-tokens",
                str(reasoning_tokens),
                "--port-file",
                str(port_file),
                "--shapes",
                shapes,
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            served = None
            deadline = time.monotonic() + 60
            while served is None:
                if proc.poll() is not None:
                    raise RuntimeError(f"model server exited with {proc.returncode}")
                if time.monotonic() > deadline:
                    raise RuntimeError("model server did not start within 60 s")
                if port_file.exists() and port_file.read_text():
                    candidate = Served(f"http://127.0.0.1:{port_file.read_text()}/v1", proc)
                    with contextlib.suppress(OSError):
                        candidate._call("/health")
                        served = candidate
                if served is None:
                    time.sleep(0.05)
            yield served
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slots", type=int, default=32, help="parallel slots; further calls queue")
    parser.add_argument("--fixed", type=float, default=0.4, help="fixed seconds per call")
    parser.add_argument("--per-token", type=float, default=0.004, help="seconds per completion token")
    parser.add_argument("--reasoning-tokens", type=int, default=0, help="mean reasoning tokens per call")
    parser.add_argument("--port-file", type=Path, required=True, help="the bound port is written here")
    parser.add_argument(
        "--shapes",
        default="",
        help=f"share of calls per reasoning-model reply shape, e.g. length=0.33,reasoning_only=0.1 ({', '.join(SHAPES)})",
    )
    args = parser.parse_args(argv)
    try:
        shapes = parse_shapes(args.shapes)
    except ValueError as exc:
        parser.error(str(exc))
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    run_server(args.slots, Latency(args.fixed, args.per_token), args.reasoning_tokens, args.port_file, shapes)


if __name__ == "__main__":
    main(sys.argv[1:])
