"""Task (5) of BeDiscovER, dialogue discourse parsing (paper §6.2, Table 6, Appendix B.5, Tables 39-41).

Usage::

    inspect eval evals/dialogue_parsing.py --model gguf/smollm2-135m -T dataset=stac --limit 2
    inspect eval evals/dialogue_parsing.py -T mode=single-turn -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import task

from ..task_skeleton import Shared, TaskParts, suite_task
from ..thinking import generate_with_thinking
from .dataset import load_dataset
from .prompts import SYSTEM_PROMPTS
from .scorer import dialogue_parsing_scorer
from .solver import incremental_parser


@task
@suite_task
def dialogue_parsing(
    dataset: str | Sequence[str] = "all",
    mode: str = "incremental",
    order: str = "longest-first",
    *,
    shared: Shared,
) -> TaskParts:
    """Dialogue discourse parsing on STAC, Molweni and MSDC.

    Args:
        dataset: ``"all"`` (default: 109 + 500 + 101 dialogues, 1045 + 3930 + 4914 turns) or any of ``stac``,
            ``molweni``, ``msdc`` (one, comma-separated, or a list). Metrics are grouped by dataset.
        mode: ``"incremental"`` (the paper's main "auto-regressive" setting: one sample per dialogue, the model
            sees its own earlier predictions) or ``"single-turn"`` (oracle: one sample per record with the gold
            structure in the prompt).
        order: incremental mode: ``"longest-first"`` (default; the dialogues with most turns start first, which
            shortens the wall time against a served model) or ``"file"`` (the data files' order). No score
            changes; ``--limit N`` takes the first N samples of this order.
        subset: ``"paper"`` or ``"full"`` (identical here: the paper uses every record, fraction 1.0).

    Raises:
        ValueError: a bad ``dataset``, ``mode``, ``order``, ``subset``, ``reasoning``, ``presets`` or ``per_dataset``
            (naming the valid choices). DataFileMissingError, DataFormatError: see :func:`.dataset.load_dataset`.
    """
    loaded = load_dataset(dataset, mode=mode, order=order, **shared.loading)
    incremental = mode == "incremental"
    solver = incremental_parser(shared.reasoning) if incremental else generate_with_thinking(shared.reasoning)
    return TaskParts(
        loaded,
        scorer=dialogue_parsing_scorer(),
        system_prompt={name: SYSTEM_PROMPTS[name] for name in loaded.datasets},
        solver=solver,
    )
