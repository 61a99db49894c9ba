"""Task (4) of BeDiscovER, sentence ordering: seven datasets, answers as sentence markers (paper §6.1, Table 5,
Appendix B.4, Tables 32–38).

Usage::

    inspect eval evals/sentence_ordering.py --model gguf/smollm2-135m -T datasets=nips-abs
    inspect eval evals/sentence_ordering.py -T datasets=roc,nsf -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import Task, task

from ..generation import generate_with_thinking, reasoning_flag, task_generation
from ..metadata import task_metadata
from ..metrics import pooled_epochs
from .dataset import load_dataset
from .scorer import sentence_ordering_scorer

VERSION = 2
"""Scoring version recorded in the log (``Task.version``): 2 = Inspect metrics per measure with standard errors."""


@task
def sentence_ordering(
    datasets: str | Sequence[str] = "all",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
    presets: str = "auto",
    per_dataset: int | None = None,
) -> Task:
    """Reorder shuffled sentences into a coherent paragraph; the answer is ``<s 2> <s 1> …`` (Appendix B.4).

    Args:
        datasets: ``"all"`` (the seven of Table 5) or one name / a comma list / a list of aan-abstract,
            arxiv-abstracts, nips-abs, nsf, roc, sind-captions, wiki-movies (in the order given). Metrics are
            grouped by dataset.
        subset: ``"paper"`` — first ``int(frac·N)`` documents (806/898/377/814/883/808/836) — or ``"full"``.
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else download from the pinned commit).
        reasoning: the paper's "w/ reasoning" setting (Table 7 presets, thinking switched on).
        presets: generation preset (``generation.PRESET_CHOICES``): ``auto`` (default) picks the Table 7
            row from the model's name, a family name forces one, ``none`` sends none (README,
            "Generation settings").
        per_dataset: only the first N samples of each dataset (file order; after ``subset``): a quick run that sees
            every dataset, where ``--limit N`` takes the first N of the whole task. ``None`` (default): all.

    Raises:
        ValueError: a bad ``datasets``, ``subset``, ``reasoning`` or ``presets`` (naming the valid choices).
        DataFileMissingError, DataFormatError: see :func:`.dataset.load_dataset`.
    """
    reasoning = reasoning_flag(reasoning)
    generation = task_generation("sentence_ordering", reasoning, presets)
    loaded = load_dataset(datasets, subset=subset, data_dir=data_dir, per_dataset=per_dataset)
    return Task(
        dataset=loaded.dataset,
        solver=[generate_with_thinking(reasoning)],
        scorer=sentence_ordering_scorer(),
        config=generation.config,
        epochs=pooled_epochs(),
        version=VERSION,
        metadata=task_metadata(
            "sentence_ordering",
            loaded.files,
            datasets=loaded.datasets,
            subset=subset,
            reasoning=reasoning,
            presets=generation.presets,
            generation=generation,
        ),
    )
