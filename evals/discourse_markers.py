"""``inspect eval evals/discourse_markers.py``: Task (1), discourse marker understanding."""

from bediscover_inspect.discourse_markers.task import discourse_markers

__all__ = ["discourse_markers"]
