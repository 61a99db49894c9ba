"""Task (1) of BeDiscovER: discourse marker understanding (Just-Manual, Just-Subtitle, Otherwise)."""

from .task import discourse_markers

__all__ = ["discourse_markers"]
