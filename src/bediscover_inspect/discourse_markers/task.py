"""Task (1) of BeDiscovER, discourse marker understanding (paper §4, Table 2, Appendix B.1, Tables 13–21).

Usage::

    inspect eval evals/discourse_markers.py --model gguf/smollm2-135m -T prompt=def+exp
    inspect eval evals/discourse_markers.py -T dataset=just-subtitle -T context=2 -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import Task, task

from ..generation import generate_with_thinking, reasoning_flag, task_generation
from ..metadata import task_metadata
from ..metrics import pooled_epochs
from .dataset import check_context, load_dataset
from .scorer import discourse_marker_scorer

VERSION = 2
"""Scoring version recorded in the log (``Task.version``): 2 = Inspect metrics per measure with standard errors."""


@task
def discourse_markers(
    dataset: str | Sequence[str] = "all",
    prompt: str = "basic",
    context: str = "none",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
    presets: str = "auto",
    per_dataset: int | None = None,
) -> Task:
    """Discourse function of "just" (Just-Manual, Just-Subtitle) and "otherwise" (Otherwise).

    Args:
        dataset: ``"all"`` (default: 90 + 149 + 294 samples) or any of ``just-manual``, ``just-subtitle``,
            ``otherwise`` (one, comma-separated, or a list). Metrics are grouped by dataset.
        prompt: ``basic`` | ``def`` | ``def+exp`` — the three prompt formats of Appendix B.1 (Table 8).
        context: ``none`` (paper) | ``2`` | ``5`` — preceding subtitle lines shown for Just-Subtitle
            (``context2`` / ``context5`` of the data; an extension, see README).
        subset: ``paper`` | ``full`` (the same for this task: the paper uses every record).
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else download from the pinned commit).
        reasoning: the paper's "w/ reasoning" setting (Table 7 presets, thinking switched on).
        presets: generation preset (``generation.PRESET_CHOICES``): ``auto`` (default) picks the Table 7
            row from the model's name, a family name forces one, ``none`` sends none (README,
            "Generation settings").
        per_dataset: only the first N samples of each dataset (file order; after ``subset``): a quick run that sees
            every dataset, where ``--limit N`` takes the first N of the whole task. ``None`` (default): all.

    Raises:
        ValueError: a bad ``dataset``, ``prompt``, ``context``, ``subset``, ``reasoning`` or ``presets`` (naming
            the valid choices). DataFileMissingError, DataFormatError: see :func:`.dataset.load_dataset`.
    """
    reasoning = reasoning_flag(reasoning)
    generation = task_generation("discourse_markers", reasoning, presets)
    context = check_context(context)
    loaded = load_dataset(
        dataset, prompt=prompt, context=context, subset=subset, data_dir=data_dir, per_dataset=per_dataset
    )
    return Task(
        dataset=loaded.dataset,
        solver=[generate_with_thinking(reasoning)],
        scorer=discourse_marker_scorer(),
        config=generation.config,
        epochs=pooled_epochs(),
        version=VERSION,
        metadata=task_metadata(
            "discourse_markers",
            loaded.files,
            dataset=loaded.datasets,
            prompt=prompt,
            context=context,
            subset=subset,
            reasoning=reasoning,
            presets=generation.presets,
            generation=generation,
        ),
    )
