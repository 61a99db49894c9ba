"""Counting a run before it starts: per eval and dataset its samples, model calls, prompt tokens and output
ceiling, and what a resume would skip.

The prompts are rendered as the run sends them: each sample's messages after the task's first solver (the
Appendix B system prompt, :func:`bediscover_inspect.messages.system_prompt`), then for incremental dialogue
parsing one prompt per turn, ``[system prompt, turn prompt]``, built by the parser's own
:func:`~bediscover_inspect.dialogue_parsing.solver.turn_prompt` from the *gold* structure of the earlier turns (the
run's prompts carry the model's predictions instead, so their size differs by the length of the predicted
relations; the plan says so).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageUser, ModelName
from inspect_ai.solver import TaskState

from bediscover_inspect.dialogue_parsing.solver import turn_prompt
from bediscover_inspect.plan.tokenizers import Message, Tokenizer

GOLD_STRUCTURE_NOTE = (
    "incremental dialogue parsing: prompts planned from the gold structure (the run sends the model's own "
    "predictions, shorter or longer)"
)
"""The plan's note on incremental dialogue parsing's prompt tokens."""


@dataclass(frozen=True)
class SampleCount:
    """One sample as planned: its dataset, its model calls and their prompt tokens (``None``: not counted)."""

    dataset: str
    calls: int
    prompt_tokens: int | None


@dataclass
class EvalCount:
    """One eval (task x reasoning mode x seed of a group) as planned.

    Attributes:
        group, task, reasoning, seed: which eval.
        samples: sample id -> :class:`SampleCount`, over the first ``--limit`` samples and the task's epochs.
        max_tokens: the output budget of each call (the merged generate config), ``None`` when none is set.
        done: ids of the samples a resume keeps (finished in the log directory).
        incremental: the eval makes one call per dialogue turn (prompts planned from the gold structure).
    """

    group: str
    task: str
    reasoning: bool
    seed: int
    samples: dict[Any, SampleCount]
    max_tokens: int | None
    done: frozenset[Any] = field(default_factory=frozenset)
    incremental: bool = False


def _text(message: ChatMessage) -> str:
    return message.text


def _as_messages(messages: Iterable[ChatMessage]) -> list[Message]:
    return [(message.role, _text(message)) for message in messages]


async def _first_solver_messages(task: Any, samples: Sequence[Any]) -> dict[str, list[ChatMessage]]:
    """Dataset -> the messages the task's first solver puts before a sample's own (the Appendix B system prompt,
    which depends only on the sample's dataset), rendered once per dataset by running that solver."""
    first = task.solver[0]
    model = ModelName("plan/plan")
    marker = ChatMessageUser(content="")

    async def generate(state: TaskState, **_: Any) -> TaskState:  # never called by the system-prompt solver
        return state

    prefixes: dict[str, list[ChatMessage]] = {}
    for sample in samples:
        dataset = str((sample.metadata or {}).get("dataset", ""))
        if dataset in prefixes:
            continue
        state = TaskState(model, sample.id or 0, 1, "", [marker], metadata=dict(sample.metadata or {}))
        state = await first(state, generate)
        prefixes[dataset] = [message for message in state.messages if message is not marker]
    return prefixes


def prompts_of(task: Any, samples: Sequence[Any], incremental: bool) -> list[list[list[Message]]]:
    """Per sample, the prompt of each of its model calls as the run renders it (module docstring)."""
    prefixes = {
        name: _as_messages(messages) for name, messages in asyncio.run(_first_solver_messages(task, samples)).items()
    }
    prompts: list[list[list[Message]]] = []
    for sample in samples:
        own = [("user", sample.input)] if isinstance(sample.input, str) else _as_messages(sample.input)
        messages = prefixes[str((sample.metadata or {}).get("dataset", ""))] + own
        if not incremental:
            prompts.append([messages])
            continue
        system = [message for message in messages if message[0] == "system"]
        metadata = sample.metadata or {}
        edus: list[str] = list(metadata["edus"])
        gold: dict[int, str] = {}
        calls = []
        for turn in metadata["turns"]:
            j = int(turn["turn"])
            calls.append([*system, ("user", turn_prompt(edus, gold, j))])
            gold[j] = str(turn.get("gold") or "")
        prompts.append(calls)
    return prompts


def _epochs(task: Any) -> int:
    epochs = task.epochs if isinstance(task.epochs, int) else getattr(task.epochs, "epochs", 1)
    return max(1, int(epochs or 1))


def is_incremental(task: Any) -> bool:
    """Whether ``task`` parses dialogues turn by turn (one model call per turn): its samples carry ``n_turns``."""
    first = next(iter(task.dataset), None)
    return first is not None and "n_turns" in (first.metadata or {})


def count_samples(
    task: Any, reasoning: bool, limit: int | None, tokenizer: Tokenizer | None
) -> tuple[dict[Any, SampleCount], bool]:
    """The :class:`SampleCount` of each sample the eval of the built ``task`` runs (the first ``limit``, times the
    task's epochs), and whether it is incremental; prompt tokens by ``tokenizer`` (``None``: not counted).

    Identical prompts are counted once (a task's seeds and reasoning modes often share them)."""
    samples = list(task.dataset)[:limit] if limit else list(task.dataset)
    incremental = is_incremental(task)
    epochs = _epochs(task)
    prompts = prompts_of(task, samples, incremental)
    tokens: list[int | None] = [None] * len(samples)
    if tokenizer is not None:
        unique: dict[tuple[Message, ...], int] = {}
        for calls in prompts:
            for messages in calls:
                unique.setdefault(tuple(messages), len(unique))
        counted = tokenizer.count(list(unique), reasoning)
        tokens = [sum(counted[unique[tuple(messages)]] for messages in calls) for calls in prompts]
    counts = {
        sample.id: SampleCount(
            str((sample.metadata or {}).get("dataset", "")),
            len(calls) * epochs,
            None if count is None else count * epochs,
        )
        for sample, calls, count in zip(samples, prompts, tokens, strict=True)
    }
    return counts, incremental


@dataclass(frozen=True)
class Row:
    """The plan of one eval's dataset: what the eval sends for it, and what a resume skips.

    ``calls``, ``prompt_tokens`` and ``output_ceiling`` count what the run will send (finished samples left out);
    ``samples`` and ``samples_done`` count all of the dataset's samples and the finished ones.
    """

    group: str
    task: str
    dataset: str
    reasoning: bool
    seed: int
    samples: int
    samples_done: int
    calls: int
    prompt_tokens: int | None
    output_ceiling: int | None
    incremental: bool


def rows_of(evals: Sequence[EvalCount]) -> list[Row]:
    """One :class:`Row` per eval and dataset (datasets in the order of the eval's samples)."""
    rows = []
    for count in evals:
        datasets = list(dict.fromkeys(sample.dataset for sample in count.samples.values()))
        rows += [_dataset_row(count, dataset) for dataset in datasets]
    return rows


def _total(tokens: Sequence[int | None]) -> int | None:
    """The sum of prompt ``tokens``, ``None`` when one of them was not counted."""
    return None if any(t is None for t in tokens) else sum(t or 0 for t in tokens)


def _dataset_row(count: EvalCount, dataset: str) -> Row:
    """The :class:`Row` of one ``dataset`` of an eval: its samples, those a resume skips, and the calls, prompt
    tokens and output ceiling of the rest."""
    mine = [(sid, s) for sid, s in count.samples.items() if s.dataset == dataset]
    todo = [s for sid, s in mine if sid not in count.done]
    calls = sum(s.calls for s in todo)
    return Row(
        group=count.group,
        task=count.task,
        dataset=dataset,
        reasoning=count.reasoning,
        seed=count.seed,
        samples=len(mine),
        samples_done=len(mine) - len(todo),
        calls=calls,
        prompt_tokens=_total([s.prompt_tokens for s in todo]),
        output_ceiling=None if count.max_tokens is None else calls * count.max_tokens,
        incremental=count.incremental,
    )
