"""inspect_ai entry point: importing this module registers the suite's tasks and the ``gguf`` model provider."""

# ruff: noqa: F401
from .sentence_ordering.task import sentence_ordering
from .models.gguf import gguf
from .discourse_relations.task import discourse_relations
from .discourse_markers.task import discourse_markers
from .temporal_reasoning.task import temporal_reasoning
from .dialogue_parsing.task import dialogue_parsing
