"""Task (1) discourse markers: ``inspect eval evals/discourse_markers.py -T prompt=def+exp --model ...``.

Inspect discovers the tasks of a file by their ``@task`` decorators, so this thin file declares one that
forwards every parameter to :func:`bediscover_inspect.discourse_markers.task.discourse_markers`.
"""

from inspect_ai import Task, task

from bediscover_inspect.discourse_markers import task as _impl


@task
def discourse_markers(
    dataset: str | list[str] = "all",
    prompt: str = "basic",
    context: str = "none",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
) -> Task:
    """See :func:`bediscover_inspect.discourse_markers.task.discourse_markers`."""
    return _impl.discourse_markers(
        dataset=dataset, prompt=prompt, context=context, subset=subset, data_dir=data_dir, reasoning=reasoning
    )
