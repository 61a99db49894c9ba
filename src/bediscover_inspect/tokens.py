"""Token counts of one generation, as the provider reported them (the paper's "tok." columns, Appendix C).

A provider that sends no ``usage`` with a reply has not measured its tokens: the counts are ``None`` (``null``
in ``Score.value``), never 0, and the token measures leave that sample out of their means
(:func:`bediscover_inspect.metrics.values_of` reads ``None`` as NaN, which the means and ratios skip).
"""

from __future__ import annotations

from inspect_ai.model import ModelOutput


def usage_tokens(output: ModelOutput | None) -> tuple[int | None, int | None]:
    """``(output_tokens, reasoning_tokens)`` of one generation; ``(None, None)`` when the provider reported no
    usage (or there was no generation).

    ``output_tokens`` includes reasoning tokens when the provider counts them together (OpenAI, vLLM);
    the paper's "tok." columns are the reasoning tokens (Appendix C). A usage without a reasoning count (a
    server that does not fill ``completion_tokens_details``) gives 0 reasoning tokens.
    """
    usage = output.usage if output is not None else None
    if usage is None:
        return None, None
    return int(usage.output_tokens or 0), int(usage.reasoning_tokens or 0)


def token_values(output: ModelOutput | None) -> dict[str, float | None]:
    """The ``Score.value`` entries ``output_tokens`` and ``reasoning_tokens`` of one generation
    (:func:`usage_tokens`; ``None`` where the provider reported no usage)."""
    counts = usage_tokens(output)
    return {
        key: None if count is None else float(count)
        for key, count in zip(("output_tokens", "reasoning_tokens"), counts, strict=True)
    }
