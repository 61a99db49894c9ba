"""Task (4) of BeDiscovER, sentence ordering: seven datasets, answers as sentence markers (paper §6.1, Table 5,
Appendix B.4, Tables 32–38).

Usage::

    inspect eval evals/sentence_ordering.py --model gguf/smollm2-135m -T dataset=nips-abs
    inspect eval evals/sentence_ordering.py -T dataset=roc,nsf -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import task

from ..task_skeleton import Shared, TaskParts, suite_task
from .dataset import load_dataset
from .prompts import SYSTEM_PROMPT
from .scorer import sentence_ordering_scorer


@task
@suite_task
def sentence_ordering(dataset: str | Sequence[str] = "all", *, shared: Shared) -> TaskParts:
    """Reorder shuffled sentences into a coherent paragraph; the answer is ``<s 2> <s 1> …`` (Appendix B.4).

    Args:
        dataset: ``"all"`` (the seven of Table 5) or one name / a comma list / a list of aan-abstract,
            arxiv-abstracts, nips-abs, nsf, roc, sind-captions, wiki-movies (in the order given). Metrics are
            grouped by dataset.
        subset: ``"paper"`` — first ``int(frac·N)`` documents (806/898/377/814/883/808/836) — or ``"full"``.

    Raises:
        ValueError: a bad ``dataset``, ``subset``, ``reasoning``, ``presets`` or ``per_dataset`` (naming the valid
            choices). DataFileMissingError, DataFormatError: see :func:`.dataset.load_dataset`.
    """
    return TaskParts(
        load_dataset(dataset, **shared.loading), scorer=sentence_ordering_scorer(), system_prompt=SYSTEM_PROMPT
    )
