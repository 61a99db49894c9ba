"""Token counts of one generation, as the provider reported them (the paper's "tok." columns, Appendix C)."""

from __future__ import annotations

from inspect_ai.model import ModelOutput


def usage_tokens(output: ModelOutput | None) -> tuple[int, int]:
    """``(output_tokens, reasoning_tokens)`` of one generation, 0 where the provider reported nothing.

    ``output_tokens`` includes reasoning tokens when the provider counts them together (OpenAI, vLLM);
    the paper's "tok." columns are the reasoning tokens (Appendix C).
    """
    usage = output.usage if output is not None else None
    if usage is None:
        return 0, 0
    return int(usage.output_tokens or 0), int(usage.reasoning_tokens or 0)
