"""Task (2) temporal reasoning: `inspect eval evals/temporal_reasoning.py -T dataset=tbd --model ...`."""

from bediscover_inspect.temporal_reasoning.task import temporal_reasoning

__all__ = ["temporal_reasoning"]
