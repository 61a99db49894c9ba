"""BeDiscovER (Li et al., EACL 2026) as Inspect AI evaluations: five discourse tasks, one data root.

Importing the package points tiktoken at this package's persistent cache (:func:`.tiktoken_cache.use_tiktoken_cache`),
so ``mockllm/model`` finds the ``o200k_base`` file seeded by ``python -m bediscover_inspect.offline``.
"""

from .tiktoken_cache import use_tiktoken_cache

__version__ = "0.1.0"

use_tiktoken_cache()
