"""Task (5) of BeDiscovER: dialogue discourse parsing (STAC, Molweni, MSDC; incremental or single-turn)."""

from .task import dialogue_parsing

__all__ = ["dialogue_parsing"]
