"""``inspect eval evals/discourse_markers.py``: the suite's discourse_markers task (parameters and docs: its package).

Inspect finds the tasks of a file by the ``@task`` decorators in the file itself, so this file declares one that
forwards to the package's task with that task's own signature.
"""

from functools import wraps
from typing import Any

from inspect_ai import Task, task

from bediscover_inspect.tasks import task_function

_impl = task_function("discourse_markers")


@task
@wraps(_impl, assigned=("__doc__",))  # signature and docs of the task; name and module of this file
def discourse_markers(**task_args: Any) -> Task:
    return _impl(**task_args)
