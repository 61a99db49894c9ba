"""Task (2) temporal reasoning (TimeBank-Dense, TDD-Man, ToT-Arithmetic)."""

from .task import temporal_reasoning

__all__ = ["temporal_reasoning"]
