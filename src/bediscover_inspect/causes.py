"""Why an answer could not be used: a reply cut off at the token budget, a reply whose text is only in the
reasoning (every task).

**The reply** (:func:`read_reply`). From one generation (``ModelOutput``) the scorers take:

* ``cut_off`` — the generation stopped at the budget: Inspect's ``stop_reason`` is ``max_tokens`` (OpenAI
  ``finish_reason: "length"``) or ``model_length`` (the context window ended it). A provider that reports no stop
  reason (``unknown``) is taken as cut off when its output tokens reached the ``max_tokens`` sent, or when its text
  ends inside an unclosed ``<think>``; otherwise as finished.
* ``reasoning_only`` — the reply is not cut off, its answer text is empty (no content, or nothing after the last
  ``</think>``) and its reasoning is not (a reasoning block such as vLLM's ``reasoning_content``, or a closed
  ``<think>`` span): the text is only in the reasoning. A server whose reasoning parser swallows the answer gives
  this on every sample; a reply cut off inside its reasoning is ``cut_off`` instead (raise the budget).
* reasoning and content both present: the content is the answer and the reasoning is never read, whatever it
  says; cut off with both, the reply's reasoning had closed (the server split it off), so its content is read as
  an unfinished answer.
* the output and reasoning tokens of the usage and the ``max_tokens`` sent (the active generate config; unknown,
  ``None``, when a log is re-scored).

**The reader's rule for a cut-off reply** is stated once, in :mod:`bediscover_inspect.labels` ("Cut off at the
budget"): only an answer stated after the reasoning has closed counts. :func:`read_reply` applies its step 1
(``Reply.text`` is ``""`` for cut-off thinking, ``Reply.unfinished``); each task's reader applies step 2.

**Cause** (:func:`cause_of`, ``Score.metadata["cause"]``): for an answer that could not be used, the first that
applies of ``cut_off``, ``reasoning_only``, ``echo`` (a copy of the prompt), ``markup``, ``ambiguous`` (several
labels, no choice) and ``unreadable``; ``None`` for an answer that was used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspect_ai.model import ContentReasoning, ModelOutput

from ._inspect_compat import active_generate_config
from .labels import THINK_CLOSE, FinalText, final_text
from .tokens import usage_tokens

CUT_OFF_STOPS: frozenset[str] = frozenset({"max_tokens", "model_length"})
"""Inspect stop reasons of a generation ended by a budget: the ``max_tokens`` sent or the model's context."""

CAUSES: tuple[str, ...] = ("cut_off", "reasoning_only", "echo", "markup", "ambiguous", "unreadable")
"""Why an answer could not be used, in the order :func:`cause_of` tries them (module docstring)."""

REASONING_STORE_KEY = "bediscover_reasoning"
"""Sample-store key under which the generating solver records the task's ``reasoning`` parameter (the reader's
rule, step 1, needs it; a log without it was generated with reasoning off)."""


@dataclass(frozen=True)
class Reply:
    """What one generation says about its own end (module docstring).

    Attributes:
        text: the text the reader reads: the completion, or ``""`` when it is cut-off thinking (the reader's
            rule, step 1).
        completion: the completion as the provider returned it (``ModelOutput.completion``).
        stop_reason: Inspect's stop reason (``stop``, ``max_tokens``, ``model_length``, ``unknown`` …); ``None``
            without a generation.
        cut_off: the generation stopped at the budget.
        reasoning_only: not cut off, the answer text is empty and the reasoning is not.
        unfinished: cut off before the reasoning closed (nothing is read).
        output_tokens, reasoning_tokens: the usage (``None``: not reported).
        max_tokens: the budget sent (``None``: unknown).
    """

    text: str
    completion: str = ""
    stop_reason: str | None = None
    cut_off: bool = False
    reasoning_only: bool = False
    unfinished: bool = False
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    max_tokens: int | None = None


def _reasoning_blocks(output: ModelOutput) -> list[ContentReasoning]:
    content = output.message.content if output.choices else ""
    return [c for c in content if isinstance(c, ContentReasoning)] if isinstance(content, list) else []


def read_reply(output: ModelOutput | None, reasoning: bool = False, max_tokens: int | None = None) -> Reply:
    """The :class:`Reply` of one generation (rules in the module docstring).

    Args:
        output: the generation (``state.output``, or one dialogue turn's output); ``None``: no generation.
        reasoning: the task's ``reasoning`` parameter (thinking asked for).
        max_tokens: the budget sent (``GenerateConfig.max_tokens``), ``None`` when unknown.

    Returns:
        The reply; never raises.
    """
    if output is None or not output.choices:
        return Reply("", max_tokens=max_tokens)
    completion = output.completion or ""
    output_tokens, reasoning_tokens = usage_tokens(output)
    stop = str(output.stop_reason) if output.stop_reason is not None else None
    final = final_text(completion)
    blocks = _reasoning_blocks(output)
    cut_off = _stopped_at_budget(stop, final.cut_off, output_tokens, max_tokens)
    has_reasoning = _has_reasoning(blocks, completion[: len(completion) - len(final.text)])
    unfinished = cut_off and _unfinished(final, _reasoning_closed(blocks, completion, reasoning), has_reasoning)
    reasoning_only = not cut_off and not final.text.strip() and has_reasoning
    return Reply(
        "" if unfinished else completion,
        completion,
        stop,
        cut_off,
        reasoning_only,
        unfinished,
        output_tokens,
        reasoning_tokens,
        max_tokens,
    )


def _reasoning_closed(blocks: list[ContentReasoning], completion: str, reasoning: bool) -> bool:
    """Whether the reasoning has closed: returned apart from the text (a reasoning block), closed by a ``</think>``
    in the text, or not asked for (``reasoning`` off: the text is the answer)."""
    return bool(blocks) or THINK_CLOSE.search(completion) is not None or not reasoning


def _unfinished(final: FinalText, closed: bool, has_reasoning: bool) -> bool:
    """Whether a reply cut off at the budget is unfinished thinking (nothing of it is read): an unclosed
    ``<think>``, reasoning asked for that never ``closed``, or reasoning with no text after it (a reasoning block
    with no text after it: the server never saw the reasoning end)."""
    return final.cut_off or not closed or (has_reasoning and not final.text.strip())


def _has_reasoning(blocks: list[ContentReasoning], before_answer: str) -> bool:
    """Whether the reply holds reasoning: a reasoning block with text (or redacted), or text ``before_answer``
    (the reasoning left in the text, :func:`~bediscover_inspect.labels.final_text`)."""
    return any((b.reasoning or "").strip() or b.redacted for b in blocks) or bool(before_answer.strip())


def _stopped_at_budget(stop: str | None, unclosed: bool, output_tokens: int | None, max_tokens: int | None) -> bool:
    """Whether a reply stopped at the budget: its stop reason says so (:data:`CUT_OFF_STOPS`), or, with no stop
    reason, its text ends in an ``unclosed`` ``<think>`` or its output tokens reached ``max_tokens``."""
    if stop in CUT_OFF_STOPS:
        return True
    if stop not in (None, "unknown"):
        return False
    return unclosed or (
        max_tokens is not None and output_tokens is not None and max_tokens > 0 and output_tokens >= max_tokens
    )


def budget_sent() -> int | None:
    """The ``max_tokens`` of the active generate config (the task's preset merged with the command line), ``None``
    outside an eval or when none was set (a log re-scored by :mod:`bediscover_inspect.gate.rescore`)."""
    return active_generate_config().max_tokens


def state_reply(state: Any) -> Reply:
    """:func:`read_reply` of a sample's ``state.output``, with the ``reasoning`` the solver recorded
    (:data:`REASONING_STORE_KEY`) and :func:`budget_sent`."""
    return read_reply(state.output, bool(state.store.get(REASONING_STORE_KEY, False)), budget_sent())


def cause_of(
    reply: Reply, invalid: bool, echo: bool = False, markup: bool = False, ambiguous: bool = False
) -> str | None:
    """Why the answer could not be used (the first of :data:`CAUSES` that applies), ``None`` when it was."""
    if not invalid:
        return None
    flags = (reply.cut_off, reply.reasoning_only, echo, markup, ambiguous)
    return next((cause for cause, flag in zip(CAUSES, flags, strict=False) if flag), "unreadable")


def cause_values(reply: Reply) -> dict[str, float]:
    """The ``Score.value`` entries ``cut_off`` and ``reasoning_only`` (0/1) of one reply."""
    return {"cut_off": float(reply.cut_off), "reasoning_only": float(reply.reasoning_only)}


def cause_metadata(reply: Reply, cause: str | None) -> dict[str, Any]:
    """The ``Score.metadata`` entries ``cause``, ``stop_reason`` and ``max_tokens`` (the budget sent)."""
    return {"cause": cause, "stop_reason": reply.stop_reason, "max_tokens": reply.max_tokens}


def cause_note(reply: Reply, cause: str | None) -> str:
    """One line for the viewer's explanation of an answer that could not be used because of its reply (``""``
    otherwise): ``cut off at 256 tokens of max_tokens=256 (stop reason max_tokens), inside its reasoning: no answer
    read``,
    ``text only in the reasoning: the content is empty (check the server's reasoning parser)``."""
    if cause == "cut_off":
        tokens = "an unknown number of" if reply.output_tokens is None else str(reply.output_tokens)
        budget = f" of max_tokens={reply.max_tokens}" if reply.max_tokens is not None else ""
        where = "inside its reasoning" if reply.unfinished else "before a stated answer"
        return f"cut off at {tokens} tokens{budget} (stop reason {reply.stop_reason}), {where}: no answer read"
    if cause == "reasoning_only":
        return (
            "text only in the reasoning: the reply's content is empty (check the server's reasoning parser, "
            "e.g. vLLM --reasoning-parser)"
        )
    return ""


def explained(note: str, text: str) -> str:
    """``text`` with ``note`` as its first paragraph (``text`` alone when ``note`` is empty)."""
    return f"{note}\n\n{text}" if note else text
