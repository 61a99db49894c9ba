"""inspect_ai entry point: importing this module registers the suite's tasks and the ``gguf`` model provider.

The tasks are registered as ``bediscover_inspect/<name>`` through :func:`~bediscover_inspect.tasks.inspect_entries`
(the same entry as ``evals/<name>.py``: unknown ``-T`` names rejected, user errors as one line on stderr).
"""

# ruff: noqa: F401
from .models.gguf import gguf
from .tasks import inspect_entries

TASKS = inspect_entries()
