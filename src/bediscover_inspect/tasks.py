"""The one list of the suite's tasks, in the paper's order: the entry-point registry, ``evals/`` and the CLI read it.

Each task's parameters are those of its ``@task`` function, exported by its package
(``bediscover_inspect.<name>``); nothing else re-declares them. Task modules are imported on first use, so the
CLI starts without importing every task.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

TASK_NAMES: tuple[str, ...] = (
    "discourse_markers", "temporal_reasoning", "discourse_relations", "sentence_ordering", "dialogue_parsing",
)
"""The five tasks (paper §4, §5.1, §5.2, §6.1, §6.2); ``bediscover_inspect.<name>`` exports ``<name>``."""


def task_function(name: str) -> Callable[..., Any]:
    """The ``@task`` function of ``name``.

    Raises:
        KeyError: an unknown name; the message lists the tasks.
    """
    if name not in TASK_NAMES:
        raise KeyError(f"unknown task {name!r}; choose from {', '.join(TASK_NAMES)}")
    return getattr(importlib.import_module(f"bediscover_inspect.{name}"), name)


def all_tasks() -> dict[str, Callable[..., Any]]:
    """Every task name -> its ``@task`` function (imports every task)."""
    return {name: task_function(name) for name in TASK_NAMES}
