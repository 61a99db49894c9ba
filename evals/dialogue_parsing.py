"""Task (5) dialogue discourse parsing: ``inspect eval evals/dialogue_parsing.py -T dataset=stac --model ...``.

Inspect finds tasks in a file by its ``@task`` decorators, so this thin file declares one that forwards to the
package's task (``bediscover_inspect.dialogue_parsing.task.dialogue_parsing``).
"""

from inspect_ai import Task, task

from bediscover_inspect.dialogue_parsing import task as _impl


@task
def dialogue_parsing(
    dataset: str | list[str] = "all",
    mode: str = "incremental",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
) -> Task:
    """See :func:`bediscover_inspect.dialogue_parsing.task.dialogue_parsing`."""
    return _impl.dialogue_parsing(dataset=dataset, mode=mode, subset=subset, data_dir=data_dir, reasoning=reasoning)
