"""Task (4) sentence ordering: ``inspect eval evals/sentence_ordering.py -T datasets=nips-abs --model ...``.

Inspect finds tasks in a file by its ``@task`` decorators, so this thin file declares one that forwards to the
package's task (also registered as ``bediscover_inspect/sentence_ordering``).
"""

from inspect_ai import Task, task

from bediscover_inspect.sentence_ordering import task as _impl


@task
def sentence_ordering(
    datasets: str | list[str] = "all", subset: str = "paper", data_dir: str | None = None, reasoning: bool = False
) -> Task:
    """See :func:`bediscover_inspect.sentence_ordering.task.sentence_ordering`."""
    return _impl.sentence_ordering(datasets=datasets, subset=subset, data_dir=data_dir, reasoning=reasoning)
