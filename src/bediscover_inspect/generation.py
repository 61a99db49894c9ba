"""Generation settings shared by every task: the paper's reasoning presets and the thinking switch.

Paper, Appendix A, Table 7 (Qwen3 rows): without reasoning ``max_new_tokens`` 2048, temperature 0.7,
top-p 0.8; with reasoning 4096, 0.6, 0.95; seeds 0, 1, 42.

The presets are the *task's* generate config, so anything given on the command line (``--temperature``,
``--max-tokens``, ``--seed`` …) wins, as Inspect merges the task config under the eval's own.

Thinking on/off travels differently per engine:

* servers that apply a chat template themselves (vLLM, SGLang, llama-cpp-python's server, any
  ``openai-api/`` server, and our in-process ``gguf/`` provider) take
  ``extra_body={"chat_template_kwargs": {"enable_thinking": …}}`` — Qwen3's switch;
* OpenAI reasoning models take ``--reasoning-effort`` from the user (the paper used GPT-5-mini low/high);
  nothing is sent for them here, since the OpenAI API rejects unknown body fields.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

PAPER_SEEDS: tuple[int, ...] = (0, 1, 42)
"""Seeds of every reported mean ± std (Appendix A, Table 7)."""

REASONING_PRESETS: dict[bool, dict[str, Any]] = {
    False: {"max_tokens": 2048, "temperature": 0.7, "top_p": 0.8},
    True: {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95},
}
"""Appendix A, Table 7, Qwen3 rows: ``reasoning -> {max_tokens, temperature, top_p}``."""

CHAT_TEMPLATE_PROVIDERS: frozenset[str] = frozenset(
    {"vllm", "sglang", "openai-api", "llama-cpp-python", "gguf", "hf"}
)
"""Model APIs (the part of ``--model`` before the first ``/``) that receive Qwen3's ``enable_thinking``."""


def reasoning_flag(reasoning: Any) -> bool:
    """The task parameter ``reasoning`` as a bool: ``True``/``False`` or the strings true/false, on/off, 1/0.

    Raises:
        ValueError: any other value (``-T reasoning=maybe``), naming the valid choices.
    """
    if isinstance(reasoning, bool):
        return reasoning
    if isinstance(reasoning, int) and reasoning in (0, 1):
        return bool(reasoning)
    if isinstance(reasoning, str) and reasoning.strip().lower() in _FLAG_WORDS:
        return _FLAG_WORDS[reasoning.strip().lower()]
    raise ValueError(f"reasoning must be true or false (also on/off, 1/0), got {reasoning!r}")


_FLAG_WORDS = {"true": True, "on": True, "1": True, "yes": True, "false": False, "off": False, "0": False, "no": False}


def generation_config(reasoning: bool, **overrides: Any) -> GenerateConfig:
    """The task-level generate config for one reasoning mode (Table 7), plus any task-specific overrides.

    Args:
        reasoning: ``True`` for the "w/ reasoning" columns, ``False`` for "w/o reasoning".
        overrides: extra :class:`GenerateConfig` fields (e.g. a larger ``max_tokens`` for dialogue parsing).

    Returns:
        A :class:`GenerateConfig`; command-line generate options override it field by field.

    Raises:
        ValueError: ``reasoning`` is not a boolean flag (see :func:`reasoning_flag`).
    """
    return GenerateConfig(**(REASONING_PRESETS[reasoning_flag(reasoning)] | overrides))


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


def prompt_messages(system_prompt: str, user_prompt: str) -> list[ChatMessage]:
    """A sample's input: the task's system prompt, then the user prompt (both verbatim, Appendix B).

    Every task builds its ``Sample.input`` this way, so the system prompt is in the sample from the start:
    inserting it in front of the messages while the sample runs makes Inspect log a state diff that rewrites
    the whole first message. Each sample gets its own two messages (own ids; editing one sample's input changes
    no other).
    """
    return [ChatMessageSystem(content=system_prompt), ChatMessageUser(content=user_prompt)]


@solver
def generate_with_thinking(reasoning: bool) -> Solver:
    """Generate once, with the thinking switch of :func:`thinking_kwargs` for the active model.

    Args:
        reasoning: the task's ``reasoning`` parameter.
    """
    from inspect_ai.model import get_model

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        return await generate(state, **thinking_kwargs(state.model.api, reasoning, model.config))

    return solve


def usage_tokens(output: ModelOutput | None) -> tuple[int, int]:
    """``(output_tokens, reasoning_tokens)`` of one generation, 0 where the provider reported nothing.

    ``output_tokens`` includes reasoning tokens when the provider counts them together (OpenAI, vLLM);
    the paper's "tok." columns are the reasoning tokens (Appendix C).
    """
    usage = output.usage if output is not None else None
    if usage is None:
        return 0, 0
    return int(usage.output_tokens or 0), int(usage.reasoning_tokens or 0)
