"""Prices of a run: Inspect's ``--model-cost-config`` file (model name -> ``input``, ``output``,
``input_cache_write``, ``input_cache_read`` in USD per million tokens), read as Inspect reads it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

BATCH_PRICE_FACTOR = 0.5
"""Price of a batched call relative to a synchronous one: OpenAI's Batch API bills half the synchronous price
(its pricing page, "Batch API"). Incremental dialogue parsing's calls are not batched (each turn waits for the
previous one's answer), so they pay the full price."""


class CostConfigError(ValueError):
    """The ``--model-cost-config`` file cannot be read or has no usable prices for the model (one line)."""


@dataclass(frozen=True)
class Prices:
    """USD per million tokens of one model (Inspect's ``ModelCost``), and where they came from (the file)."""

    input: float
    output: float
    input_cache_write: float
    input_cache_read: float
    source: str

    def cost(self, prompt_tokens: float, output_tokens: float, factor: float = 1.0) -> float:
        """USD of ``prompt_tokens`` input and ``output_tokens`` output tokens, times ``factor``."""
        return factor * (prompt_tokens * self.input + output_tokens * self.output) / 1e6


def _read(path: str) -> Any:
    text = Path(path).read_text(encoding="utf-8")
    if path.endswith((".yaml", ".yml")):
        import yaml

        return yaml.safe_load(text)
    import json

    try:
        return json.loads(text)
    except ValueError:
        import yaml

        return yaml.safe_load(text)


def model_prices(path: str, model: str) -> Prices | None:
    """The prices of ``model`` in the cost file ``path`` (YAML or JSON, Inspect's ``--model-cost-config``); ``None``
    when the file has no entry for the model (the plan then says so).

    The entry is the one keyed by the model name as given to ``--model`` (``openai/gpt-5-mini``), else by its name
    without the provider (``gpt-5-mini``).

    Raises:
        CostConfigError: the file is missing, unreadable, not a mapping, or the model's entry lacks a price (the
            message names the file, the model and the field).
    """
    try:
        data = _read(path)
    except (OSError, ValueError) as exc:
        raise CostConfigError(f"--model-cost-config {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise CostConfigError(f"--model-cost-config {path}: expected a mapping of model -> prices")
    entry = data.get(model, data.get(model.partition("/")[2]))
    if entry is None:
        return None
    if not isinstance(entry, dict):
        raise CostConfigError(f"--model-cost-config {path}: {model}: expected input, output, … prices")
    values = {}
    for name in ("input", "output", "input_cache_write", "input_cache_read"):
        try:
            values[name] = float(entry[name])
        except (KeyError, TypeError, ValueError):
            raise CostConfigError(
                f"--model-cost-config {path}: {model}: field {name!r} missing or not a number (USD per million tokens)"
            ) from None
    return Prices(**values, source=path)
