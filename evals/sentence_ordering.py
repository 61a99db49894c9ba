"""``inspect eval evals/sentence_ordering.py``: the suite's sentence_ordering task (parameters and docs: its package).

Inspect finds the tasks of a file by the ``@task`` decorators in the file itself, so this file declares one that
forwards to the package's task. :func:`~bediscover_inspect.tasks.inspect_entry` gives it the task's signature and
docs, rejects unknown ``-T`` names, and prints a refused argument or a data error as one line on stderr.
"""

from typing import Any

from inspect_ai import Task, task

from bediscover_inspect.tasks import inspect_entry, task_function

_impl = task_function("sentence_ordering")


@task
@inspect_entry("sentence_ordering")
def sentence_ordering(**task_args: Any) -> Task:
    return _impl(**task_args)
