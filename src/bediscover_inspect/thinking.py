"""The thinking switch: Qwen3-style thinking on or off per model API, and the one-generate solver that sends it.

Thinking on/off travels differently per engine:

* servers that apply a chat template themselves (vLLM, SGLang, llama-cpp-python's server, any
  ``openai-api/`` server, and our in-process ``gguf/`` provider) take
  ``extra_body={"chat_template_kwargs": {"enable_thinking": …}}`` — Qwen3's switch;
* OpenAI reasoning models take ``--reasoning-effort`` from the user (the paper used GPT-5-mini low/high);
  nothing is sent for them here, since the OpenAI API rejects unknown body fields.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Generate, Solver, TaskState, solver

from .causes import REASONING_STORE_KEY
from .presets import reasoning_flag

CHAT_TEMPLATE_PROVIDERS: frozenset[str] = frozenset({"vllm", "sglang", "openai-api", "llama-cpp-python", "gguf", "hf"})
"""Model APIs (the part of ``--model`` before the first ``/``) that receive Qwen3's ``enable_thinking``."""


def thinking_kwargs(model_api: str, reasoning: bool, current: GenerateConfig | None = None) -> dict[str, Any]:
    """Generate-call keyword arguments that switch Qwen3-style thinking on or off for ``model_api``.

    Args:
        model_api: provider name, e.g. ``"vllm"``, ``"openai"``, ``"gguf"``.
        reasoning: desired thinking state.
        current: the active config; an ``enable_thinking`` the user already set in ``--extra-body`` wins,
            and other ``extra_body`` fields are kept.

    Returns:
        ``{"extra_body": {...}}`` for chat-template providers, else ``{}``.
    """
    if model_api not in CHAT_TEMPLATE_PROVIDERS:
        return {}
    extra_body = dict((current.extra_body if current else None) or {})
    template_kwargs = dict(extra_body.get("chat_template_kwargs") or {})
    template_kwargs.setdefault("enable_thinking", reasoning_flag(reasoning))
    extra_body["chat_template_kwargs"] = template_kwargs
    return {"extra_body": extra_body}


@solver
def generate_with_thinking(reasoning: bool) -> Solver:
    """Generate once, with the thinking switch of :func:`thinking_kwargs` for the active model; the sample store
    records ``reasoning`` (:data:`bediscover_inspect.causes.REASONING_STORE_KEY`) for the reader's rule on a
    cut-off reply.

    Args:
        reasoning: the task's ``reasoning`` parameter.
    """
    from inspect_ai.model import get_model

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        state.store.set(REASONING_STORE_KEY, bool(reasoning))
        return await generate(state, **thinking_kwargs(state.model.api, reasoning, model.config))

    return solve
