"""The persistent directory tiktoken's cached encodings live in (see :mod:`bediscover_inspect.offline`).

Kept apart from :mod:`.offline` so that the Inspect entry point (:mod:`._registry`, which calls
:func:`use_tiktoken_cache`) does not import the module ``python -m bediscover_inspect.offline`` runs.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV_VARS = ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")
"""The variables tiktoken reads its cache directory from, in its order of precedence."""


def persistent_cache_dir() -> Path:
    """The user cache this package keeps tiktoken files in: ``user_cache_dir("bediscover-inspect")/tiktoken``."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("bediscover-inspect")) / "tiktoken"


def use_tiktoken_cache() -> None:
    """Point tiktoken at :func:`persistent_cache_dir` for this process, unless a cache variable is already set.

    Sets ``TIKTOKEN_CACHE_DIR`` only when neither tiktoken variable is set, so a user's own setting always wins.
    """
    if not any(name in os.environ for name in CACHE_ENV_VARS):
        os.environ["TIKTOKEN_CACHE_DIR"] = str(persistent_cache_dir())
