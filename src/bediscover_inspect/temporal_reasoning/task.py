"""Task (2) of BeDiscovER, temporal reasoning: TimeBank-Dense, TDD-Man and ToT-Arithmetic (paper §5.1, Table 3,
Appendix B.2, Tables 22–26).

Usage::

    inspect eval evals/temporal_reasoning.py --model gguf/smollm2-135m -T dataset=tbd
    inspect eval evals/temporal_reasoning.py -T dataset=tdd-man -T context=sentences -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import task
from inspect_ai.scorer import Scorer

from ..task_skeleton import Shared, TaskParts, suite_task
from .dataset import RELATION_DATASETS, TOT_DATASET, load_dataset
from .prompts import RELATION_SYSTEM_PROMPT, TOT_SYSTEM_PROMPT
from .scorer import relation_scorer, tot_scorer


@task
@suite_task
def temporal_reasoning(dataset: str | Sequence[str] = "all", context: str = "document", *, shared: Shared) -> TaskParts:
    """Temporal relation of two marked events (TBD, TDD-Man) and temporal arithmetic (ToT-Arithmetic).

    Args:
        dataset: ``"all"`` (default: tbd 1515, tdd-man 1500, tot-arithmetic 1850 samples) or one name / a
            comma list / a list of ``tbd``, ``tdd-man``, ``tot-arithmetic`` (samples in the order given).
        context: TBD / TDD-Man input: ``"document"`` (full article; the paper's main setting) or
            ``"sentences"`` (only the sentences holding the two events; the Tables 22/24 ablation).
            No effect on ToT.
        subset: ``"paper"`` or ``"full"`` (identical here: all three files are used whole, fraction 1.0).

    The task runs only the scorers its loaded datasets need: ``relation_scorer`` for TBD / TDD-Man,
    ``tot_scorer`` for ToT-Arithmetic.

    Raises:
        ValueError: a bad ``dataset``, ``context``, ``subset``, ``reasoning``, ``presets`` or ``per_dataset``
            (naming the valid choices). DataFileMissingError, DataFormatError: see :func:`.dataset.load_dataset`.
    """
    loaded = load_dataset(dataset, context=context, **shared.loading)
    scorers: list[Scorer] = []
    if RELATION_DATASETS & set(loaded.datasets):
        scorers.append(relation_scorer())
    if TOT_DATASET in loaded.datasets:
        scorers.append(tot_scorer())
    system_prompts = {
        name: TOT_SYSTEM_PROMPT if name == TOT_DATASET else RELATION_SYSTEM_PROMPT for name in loaded.datasets
    }
    return TaskParts(loaded, scorer=scorers, system_prompt=system_prompts)
