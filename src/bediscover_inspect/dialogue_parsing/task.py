"""Task (5) of BeDiscovER, dialogue discourse parsing (paper §6.2, Table 6, Appendix B.5, Tables 39-41).

Usage::

    inspect eval evals/dialogue_parsing.py --model gguf/smollm2-135m -T dataset=stac --limit 2
    inspect eval evals/dialogue_parsing.py -T mode=single-turn -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import Task, task
from inspect_ai.solver import Solver

from ..generation import generate_with_thinking, reasoning_flag, task_generation
from ..metadata import task_metadata
from ..metrics import pooled_epochs
from .dataset import load_dataset
from .scorer import dialogue_parsing_scorer
from .solver import incremental_parser

VERSION = 2
"""Scoring version recorded in the log (``Task.version``): 2 = Inspect metrics per measure with standard errors."""


@task
def dialogue_parsing(
    dataset: str | Sequence[str] = "all",
    mode: str = "incremental",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
    presets: str = "auto",
    order: str = "longest-first",
    per_dataset: int | None = None,
) -> Task:
    """Dialogue discourse parsing on STAC, Molweni and MSDC.

    Args:
        dataset: ``"all"`` (default: 109 + 500 + 101 dialogues, 1045 + 3930 + 4914 turns) or any of ``stac``,
            ``molweni``, ``msdc`` (one, comma-separated, or a list). Metrics are grouped by dataset.
        mode: ``"incremental"`` (the paper's main "auto-regressive" setting: one sample per dialogue, the model
            sees its own earlier predictions) or ``"single-turn"`` (oracle: one sample per record with the gold
            structure in the prompt).
        subset: ``"paper"`` or ``"full"`` (identical here: the paper uses every record, fraction 1.0).
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else download from the pinned commit).
        reasoning: the paper's "w/ reasoning" setting (Table 7 presets, thinking switched on).
        presets: generation preset (``generation.PRESET_CHOICES``): ``auto`` (default) picks the Table 7
            row from the model's name, a family name forces one, ``none`` sends none (README,
            "Generation settings").
        order: incremental mode: ``"longest-first"`` (default; the dialogues with most turns start first, which
            shortens the wall time against a served model) or ``"file"`` (the data files' order). No score
            changes; ``--limit N`` takes the first N samples of this order.
        per_dataset: only the first N samples of each dataset (file order; after ``subset``): a quick run that sees
            every dataset, where ``--limit N`` takes the first N of the whole task. ``None`` (default): all.

    Raises:
        ValueError: a bad ``dataset``, ``mode``, ``subset``, ``reasoning``, ``presets`` or ``order`` (naming the valid
            choices).
            DataFileMissingError, DataFormatError: see :func:`.dataset.load_dataset`.
    """
    reasoning = reasoning_flag(reasoning)
    generation = task_generation("dialogue_parsing", reasoning, presets)
    loaded = load_dataset(dataset, mode=mode, subset=subset, data_dir=data_dir, per_dataset=per_dataset, order=order)
    solver: Solver = incremental_parser(reasoning) if mode == "incremental" else generate_with_thinking(reasoning)
    return Task(
        dataset=loaded.dataset,
        solver=solver,
        scorer=dialogue_parsing_scorer(),
        config=generation.config,
        epochs=pooled_epochs(),
        version=VERSION,
        metadata=task_metadata(
            "dialogue_parsing",
            loaded.files,
            dataset=loaded.datasets,
            mode=mode,
            subset=subset,
            reasoning=reasoning,
            presets=generation.presets,
            order=order,
            generation=generation,
        ),
    )
