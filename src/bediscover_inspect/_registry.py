"""inspect_ai entry point: importing this module registers the suite's tasks and the ``gguf`` model provider."""

# ruff: noqa: F401
from .models.gguf import gguf
from .tasks import all_tasks

TASKS = all_tasks()
