"""Shared scorer pieces: the score of one label-choice answer (discourse markers, temporal relations, DISRPT).

A label-choice scorer reads only the final completion (never the reasoning), parses it with
:func:`bediscover_inspect.labels.parse_label` against the dataset's label set and aliases, and returns a
:class:`~inspect_ai.scorer.Score` whose value holds every number the label metrics reduce (see
:mod:`bediscover_inspect.metrics`): ``accuracy`` and ``invalid`` (0/1), ``ambiguous`` (0/1: several labels
named, no stated choice, scored invalid), ``echo``, ``cut_off`` and ``reasoning_only`` (0/1: the reply stopped at the
budget, its text was only in the reasoning; :mod:`bediscover_inspect.causes`), ``output_tokens`` and
``reasoning_tokens``. ``Score.answer`` is the label read (or
:data:`~bediscover_inspect.metrics.INVALID_ANSWER`); the gold label is the sample's metadata ``gold``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from .causes import cause_metadata, cause_note, cause_of, cause_values, explained, state_reply
from .labels import copies_prompt, final_text, parse_label
from .metrics import INVALID_ANSWER
from .tokens import token_values


def prompt_text(state: TaskState) -> str:
    """The prompt an answer may echo: the sample's last user message (``TaskState.input_text``), ``""`` for a
    state that has no input."""
    try:
        return state.input_text
    except (AttributeError, ValueError):
        return ""


def label_score(state: TaskState, labels: Sequence[str], aliases: Mapping[str, str] | None = None) -> Score:
    """Score one label-choice answer against the sample's gold label (sample metadata ``gold``).

    Args:
        state: the sample's state after generation (``state.output.completion`` is read, by the reader's rule
            for a cut-off reply: :mod:`bediscover_inspect.labels`, "Cut off at the budget").
        labels: the dataset's label set, as its prompt lists it.
        aliases: spelling variants accepted for the labels (``variant -> label``).

    Returns:
        The score: value keys as in the module docstring; ``answer`` the label read; ``explanation`` the
        completion (after a line saying why, for an answer lost to a cut-off or reasoning-only reply:
        :func:`~bediscover_inspect.causes.cause_note`); ``metadata`` the parse's ``rule`` (the layer of
        :func:`~bediscover_inspect.labels.parse_label` that decided, ``None`` when invalid), ``candidates`` (labels
        named, in order), ``echo``, ``markup`` (the answer holds markup: :func:`~bediscover_inspect.labels.has_markup`)
        and ``cut_off`` flags, and the reply's ``cause``, ``stop_reason`` and ``max_tokens``
        (:func:`~bediscover_inspect.causes.cause_metadata`).

    Raises:
        KeyError: the sample metadata has no ``gold``.
    """
    gold = str(state.metadata["gold"])
    reply = state_reply(state)
    completion = reply.completion
    parsed = parse_label(reply.text, labels, aliases, cut_off=reply.cut_off)
    echo = parsed.echo or (parsed.invalid and copies_prompt(final_text(reply.text).text, prompt_text(state)))
    cause = cause_of(reply, parsed.invalid, echo, parsed.markup, parsed.ambiguous)
    return Score(
        value={
            "accuracy": 1.0 if parsed.label == gold else 0.0,
            "invalid": 1.0 if parsed.invalid else 0.0,
            "ambiguous": 1.0 if parsed.ambiguous else 0.0,
            "echo": 1.0 if echo else 0.0,
            **cause_values(reply),
            **token_values(state.output),
        },
        answer=parsed.label if parsed.label is not None else INVALID_ANSWER,
        explanation=explained(cause_note(reply, cause), completion),
        metadata={
            "rule": parsed.rule,
            "candidates": list(parsed.candidates),
            "echo": parsed.echo,
            "markup": parsed.markup,
            "cut_off": parsed.cut_off,
            **cause_metadata(reply, cause),
        },
    )
