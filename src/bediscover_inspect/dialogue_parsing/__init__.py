"""Task (5) Dialogue Discourse Parsing: STAC, Molweni, MSDC, incremental or single-turn."""

from bediscover_inspect.dialogue_parsing.task import dialogue_parsing

__all__ = ["dialogue_parsing"]
