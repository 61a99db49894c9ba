"""Task (3) discourse relations: ``inspect eval evals/discourse_relations.py -T languages=deu --model ...``.

Inspect finds tasks in a file by its ``@task`` decorators, so this thin file declares one that forwards to the
package's task (``bediscover_inspect.discourse_relations.task``), where the parameters are documented.
"""

from inspect_ai import Task, task

from bediscover_inspect.discourse_relations import task as _impl


@task
def discourse_relations(
    corpora: str | list[str] | None = None,
    languages: str | list[str] | None = None,
    frameworks: str | list[str] | None = None,
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
) -> Task:
    """DISRPT 2025 relation classification (see ``bediscover_inspect.discourse_relations.task``)."""
    return _impl.discourse_relations(
        corpora=corpora, languages=languages, frameworks=frameworks, subset=subset, data_dir=data_dir,
        reasoning=reasoning,
    )
