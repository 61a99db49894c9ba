"""Task (2) temporal reasoning: ``inspect eval evals/temporal_reasoning.py -T dataset=tbd --model ...``.

Inspect discovers the tasks of a file by their ``@task`` decorators, so this thin file declares one that
forwards every parameter to :func:`bediscover_inspect.temporal_reasoning.task.temporal_reasoning`.
"""

from inspect_ai import Task, task

from bediscover_inspect.temporal_reasoning import task as _impl


@task
def temporal_reasoning(
    dataset: str | list[str] = "all",
    context: str = "document",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
) -> Task:
    """See :func:`bediscover_inspect.temporal_reasoning.task.temporal_reasoning`."""
    return _impl.temporal_reasoning(
        dataset=dataset, context=context, subset=subset, data_dir=data_dir, reasoning=reasoning
    )
