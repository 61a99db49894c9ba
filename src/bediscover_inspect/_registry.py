"""inspect_ai entry point: importing this module registers the suite's tasks and the ``gguf`` model provider, and
points tiktoken at this package's persistent cache (:func:`.tiktoken_cache.use_tiktoken_cache`), so that
``mockllm/model`` finds the ``o200k_base`` file seeded by ``python -m bediscover_inspect.offline``. Inspect imports
it at the start of every eval (``inspect eval``, ``eval()``, ``eval_set()``, hence ``bediscover run``).

The tasks are registered as ``bediscover_inspect/<name>`` through :func:`~bediscover_inspect.tasks.inspect_entries`
(the same entry as ``evals/<name>.py``: unknown ``-T`` names rejected, user errors as one line on stderr).
"""

# ruff: noqa: F401
from .models.gguf import gguf
from .tasks import inspect_entries
from .tiktoken_cache import use_tiktoken_cache

use_tiktoken_cache()

TASKS = inspect_entries()
