"""Task (2) of BeDiscovER, temporal reasoning: TimeBank-Dense, TDD-Man and ToT-Arithmetic (paper §5.1, Table 3,
Appendix B.2, Tables 22–26).

Usage::

    inspect eval evals/temporal_reasoning.py --model gguf/smollm2-135m -T dataset=tbd
    inspect eval evals/temporal_reasoning.py -T dataset=tdd-man -T context=sentences -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import Task, task
from inspect_ai.scorer import Scorer

from ..generation import generate_with_thinking, reasoning_flag, task_generation
from ..metadata import task_metadata
from ..metrics import pooled_epochs
from .dataset import RELATION_DATASETS, TOT_DATASET, load_dataset
from .scorer import relation_scorer, tot_scorer

VERSION = 2
"""Scoring version recorded in the log (``Task.version``): 2 = Inspect metrics per measure with standard errors."""


@task
def temporal_reasoning(
    dataset: str | Sequence[str] = "all",
    context: str = "document",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
    presets: str = "auto",
    per_dataset: int | None = None,
) -> Task:
    """Temporal relation of two marked events (TBD, TDD-Man) and temporal arithmetic (ToT-Arithmetic).

    Args:
        dataset: ``"all"`` (default: tbd 1515, tdd-man 1500, tot-arithmetic 1850 samples) or one name / a
            comma list / a list of ``tbd``, ``tdd-man``, ``tot-arithmetic`` (samples in the order given).
        context: TBD / TDD-Man input: ``"document"`` (full article; the paper's main setting) or
            ``"sentences"`` (only the sentences holding the two events; the Tables 22/24 ablation).
            No effect on ToT.
        subset: ``"paper"`` or ``"full"`` (identical here: all three files are used whole, fraction 1.0).
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        reasoning: the paper's "w/ reasoning" setting (Table 7 presets, thinking switched on).
        presets: generation preset (``generation.PRESET_CHOICES``): ``auto`` (default) picks the Table 7
            row from the model's name, a family name forces one, ``none`` sends none (README,
            "Generation settings").
        per_dataset: only the first N samples of each dataset (file order; after ``subset``): a quick run that sees
            every dataset, where ``--limit N`` takes the first N of the whole task. ``None`` (default): all.

    The task runs only the scorers its loaded datasets need: ``relation_scorer`` for TBD / TDD-Man,
    ``tot_scorer`` for ToT-Arithmetic.

    Raises:
        ValueError: a bad ``dataset``, ``context``, ``subset``, ``reasoning`` or ``presets`` (naming the valid
            choices).
        DataFileMissingError, DataFormatError: see :func:`.dataset.load_dataset`.
    """
    reasoning = reasoning_flag(reasoning)
    generation = task_generation("temporal_reasoning", reasoning, presets)
    loaded = load_dataset(dataset, context=context, subset=subset, data_dir=data_dir, per_dataset=per_dataset)
    scorers: list[Scorer] = []
    if RELATION_DATASETS & set(loaded.datasets):
        scorers.append(relation_scorer())
    if TOT_DATASET in loaded.datasets:
        scorers.append(tot_scorer())
    return Task(
        dataset=loaded.dataset,
        solver=[generate_with_thinking(reasoning)],
        scorer=scorers,
        config=generation.config,
        epochs=pooled_epochs(),
        version=VERSION,
        metadata=task_metadata(
            "temporal_reasoning",
            loaded.files,
            dataset=loaded.datasets,
            context=context,
            subset=subset,
            reasoning=reasoning,
            presets=generation.presets,
            generation=generation,
        ),
    )
