"""Offline doubles for tests: scripted mockllm outputs with usage set, a gold-answer solver, a loopback file host.

Plain ``mockllm/model`` counts tokens with tiktoken's o200k_base, which needs a download unless the cache
is seeded; giving every output a :class:`ModelUsage` avoids that path entirely.
"""

from __future__ import annotations

import http.server
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from bediscover_inspect._inspect_compat import panels_without_scores


def output_with_usage(text: str, output_tokens: int | None = None, reasoning_tokens: int | None = None) -> ModelOutput:
    """A mockllm :class:`ModelOutput` with ``text`` and explicit usage (tokens default to whitespace words)."""
    out = ModelOutput.from_content(model="mockllm", content=text)
    n = output_tokens if output_tokens is not None else len(text.split())
    out.usage = ModelUsage(input_tokens=1, output_tokens=n, total_tokens=n + 1, reasoning_tokens=reasoning_tokens)
    return out


def scripted_model(respond: Callable[[Sequence[ChatMessage]], str] | Sequence[str]) -> Model:
    """mockllm whose answers come from ``respond(messages)`` (or a fixed list, in order), usage set."""
    if callable(respond):
        fn = respond

        def outputs(input, tools, tool_choice, config):  # noqa: ANN001 (mockllm callback signature)
            return output_with_usage(fn(input))

        return get_model("mockllm/model", custom_outputs=outputs)
    return get_model("mockllm/model", custom_outputs=[output_with_usage(t) for t in respond])


def run_eval(tasks: Any, **options: Any) -> list[EvalLog]:
    """Inspect's ``eval`` as a test runs it in its own process: without the live sample buffer
    (``log_realtime=False``, ``bediscover run``'s default too) unless the test asks for it. The buffer writes every
    sample event to a SQLite file for ``inspect view``'s live display, which no test reads; it is about a third of
    the CPU of an in-process run of a whole dataset (533 discourse-marker samples: 13.1 -> 8.3 s). With
    ``display="none"`` the panel Inspect lays out as the eval ends, shown nowhere, lists no metrics
    (:func:`panels_without_scores`, as in ``bediscover run``): rich lays out every metric of every scorer even on a
    quiet console, most of the CPU of a small eval (three temporal samples: 2.2 -> 0.6 s); the log keeps them all."""
    options = {"log_realtime": False} | options
    if options.get("display") != "none":
        return inspect_eval(tasks, **options)
    with panels_without_scores():
        return inspect_eval(tasks, **options)


@solver
def answer_with(answer: Callable[[TaskState], str]) -> Solver:
    """Solver that skips the model and answers ``answer(state)`` (e.g. the gold target), usage set."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = output_with_usage(answer(state))
        return state

    return solve


@contextmanager
def assert_sha1_warning() -> Iterator[None]:
    """Assert that the block logs the data root's warning for a file whose git blob SHA-1 differs from the pin."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("bediscover_inspect.data.fetch")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
    assert any("differs from the pinned" in r.getMessage() for r in records), [r.getMessage() for r in records]


def model_input(task: Task, sample: Sample) -> list[ChatMessage]:
    """The messages a sample's model call gets: the sample's input after the task's first solver, the one that
    puts the task's system prompt before it (:func:`bediscover_inspect.messages.system_prompt`)."""
    import asyncio

    from inspect_ai.model import ChatMessageUser, ModelName

    messages: list[ChatMessage] = (
        [ChatMessageUser(content=sample.input)] if isinstance(sample.input, str) else list(sample.input)
    )
    state = TaskState(
        ModelName("mockllm/model"), sample.id or "", 1, sample.input, messages, metadata=dict(sample.metadata or {})
    )
    first = cast(Sequence[Solver], task.solver)[0]  # the task's solver chain

    async def generate(state: TaskState, **kwargs: Any) -> TaskState:
        raise AssertionError("the system prompt solver does not generate")

    return asyncio.run(first(state, generate)).messages


@contextmanager
def serving(directory: Path) -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server for ``directory``: its base URL and the list of paths asked for."""
    asked: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(directory), **kwargs)

        def log_message(self, *args):  # keep test output quiet
            asked.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits for the loop to look at its flag, once per poll interval (0.5 s by default)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()
