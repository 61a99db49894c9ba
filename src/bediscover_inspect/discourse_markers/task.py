"""Task (1) of BeDiscovER, discourse marker understanding (paper §4, Table 2, Appendix B.1, Tables 13–21).

Usage::

    inspect eval evals/discourse_markers.py --model gguf/smollm2-135m -T prompt=def+exp
    inspect eval evals/discourse_markers.py -T dataset=just-subtitle -T context=2 -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import task

from ..task_skeleton import Shared, TaskParts, suite_task
from .dataset import FAMILY, check_context, load_dataset
from .prompts import SYSTEM_PROMPTS
from .scorer import discourse_marker_scorer


@task
@suite_task
def discourse_markers(
    dataset: str | Sequence[str] = "all",
    prompt: str = "basic",
    context: str = "none",
    *,
    shared: Shared,
) -> TaskParts:
    """Discourse function of "just" (Just-Manual, Just-Subtitle) and "otherwise" (Otherwise).

    Args:
        dataset: ``"all"`` (default: 90 + 149 + 294 samples) or any of ``just-manual``, ``just-subtitle``,
            ``otherwise`` (one, comma-separated, or a list). Metrics are grouped by dataset.
        prompt: ``basic`` | ``def`` | ``def+exp`` — the three prompt formats of Appendix B.1 (Table 8).
        context: ``none`` (paper) | ``2`` | ``5`` — preceding subtitle lines shown for Just-Subtitle
            (``context2`` / ``context5`` of the data; an extension, see README).
        subset: ``paper`` | ``full`` (the same for this task: the paper uses every record).

    Raises:
        ValueError: a bad ``dataset``, ``prompt``, ``context``, ``subset``, ``reasoning``, ``presets`` or
            ``per_dataset`` (naming the valid choices). DataFileMissingError, DataFormatError: see
            :func:`.dataset.load_dataset`.
    """
    context = check_context(context)
    loaded = load_dataset(dataset, prompt=prompt, context=context, **shared.loading)
    return TaskParts(
        loaded,
        scorer=discourse_marker_scorer(),
        system_prompt={name: SYSTEM_PROMPTS[FAMILY[name]] for name in loaded.datasets},
        parameters={"context": context},
    )
