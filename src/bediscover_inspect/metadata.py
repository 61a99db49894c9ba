"""What every task's log says about how it was made (``log.eval.metadata``), read back by the report and compare.

Keys: ``benchmark`` (:data:`BENCHMARK`, which marks a log as this suite's), ``task``, ``parameters`` (every task
parameter as resolved, defaults included, so two logs of the same setting compare equal whatever was typed on the
command line), ``selectors`` (the parameters that only choose which datasets a run covers), ``data`` (each file read: source, expected and actual git blob SHA-1, records used), ``absent``
(datasets of the default selection that were skipped, with the reason) and ``generation`` (the generation preset
the task set: ``presets``, ``family``, ``model``, ``reasoning_effort``, ``sent``;
:meth:`bediscover_inspect.presets.TaskGeneration.metadata`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .data import LoadedFiles
from .presets import TaskGeneration

BENCHMARK = "BeDiscovER"
"""Value of ``benchmark`` in the task metadata of every log of this suite."""

SPLIT = "split"
"""Task-metadata key of a part's log: ``parts`` (every part's datasets, in order), ``part`` (this one's index,
from 1), ``given`` (the ``dataset`` argument the whole eval was given, ``None`` for the task's default), and the
whole task's ``datasets`` (loaded), ``data`` and ``absent`` metadata."""


def task_metadata(
    task: str,
    files: LoadedFiles,
    parameters: dict[str, Any],
    *,
    selectors: Sequence[str] = ("dataset",),
    generation: TaskGeneration | None = None,
) -> dict[str, Any]:
    """The task metadata of one task (keys in the module docstring).

    Args:
        task: the task's name (``discourse_markers`` …).
        files: what the task loaded (:func:`bediscover_inspect.data.load_datasets`).
        generation: the task's resolved generation preset (:func:`bediscover_inspect.presets.task_generation`);
            no ``generation`` key when ``None``.
        parameters: the task's parameters as resolved (``dataset`` as the list of names, ``reasoning`` a bool …).
        selectors: the parameters that choose datasets (:func:`bediscover_inspect.task_skeleton.suite_task`).
    """
    metadata = {
        "benchmark": BENCHMARK,
        "task": task,
        "parameters": parameters,
        "selectors": list(selectors),
        "data": files.provenance(),
        "absent": dict(files.absent),
    }
    if generation is not None:
        metadata["generation"] = generation.metadata()
    return metadata
