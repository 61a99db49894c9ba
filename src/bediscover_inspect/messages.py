"""The task's system prompt (Appendix B), added by the first solver of every task's chain.

A sample's ``Sample.input`` is its own user prompt only, so the log viewer's sample list shows each sample's own
input; :func:`system_prompt` puts the paper's system prompt in front of it when the sample runs, and the model
receives ``[system prompt, user prompt]`` as the paper's Appendix B writes them.
"""

from __future__ import annotations

from collections.abc import Mapping

from inspect_ai.model import ChatMessageSystem
from inspect_ai.solver import Generate, Solver, TaskState, solver

SystemPrompts = str | Mapping[str, str]
"""A task's system prompt: one text for every sample, or one per dataset (key: the sample metadata ``dataset``)."""


def system_prompt_text(prompts: SystemPrompts, dataset: str) -> str:
    """The system prompt of a sample of ``dataset``.

    Raises:
        KeyError: ``prompts`` is a mapping without ``dataset`` (naming the datasets it has).
    """
    if isinstance(prompts, str):
        return prompts
    if dataset not in prompts:
        raise KeyError(f"no system prompt for dataset {dataset!r} (have {sorted(prompts)})")
    return prompts[dataset]


@solver
def system_prompt(prompts: SystemPrompts) -> Solver:
    """Insert the task's system prompt (verbatim, Appendix B) before the sample's messages.

    Like Inspect's ``system_message`` solver, but the text is inserted as written (no ``{…}`` template
    formatting, the prompts hold braces) and may differ per dataset.

    Args:
        prompts: one system prompt, or one per dataset name (the sample metadata ``dataset`` chooses).

    Raises:
        KeyError: (while a sample runs) ``prompts`` is a mapping without the sample's dataset.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        text = system_prompt_text(prompts, str(state.metadata.get("dataset")))
        state.messages.insert(0, ChatMessageSystem(content=text))
        return state

    return solve
