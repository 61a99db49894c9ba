"""Table 7's generation presets per model family, and the ``reasoning`` and ``presets`` task parameters.

Source: the paper's Appendix A, Table 7 and its caption. What each family gets, and how the command line
overrides it, is the table of the top-level README, "Generation settings"; :func:`family_preset` implements it,
:func:`model_family` picks the family from a model name, :func:`task_generation` resolves a task's ``presets``.
The preset is the *task's* generate config, so Inspect merges it under the eval's own (command-line options win);
the log's ``plan.config`` shows the merge and the task metadata's ``generation`` what the task set.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import GenerateConfig

from ._inspect_compat import active_model

PAPER_SEEDS: tuple[int, ...] = (0, 1, 42)
"""Seeds of every reported mean ± std (Appendix A, Table 7)."""

REASONING_PRESETS: dict[bool, dict[str, Any]] = {
    False: {"max_tokens": 2048, "temperature": 0.7, "top_p": 0.8},
    True: {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95},
}
"""Appendix A, Table 7, Qwen3 rows: ``reasoning -> {max_tokens, temperature, top_p}``."""


def reasoning_flag(reasoning: Any) -> bool:
    """The task parameter ``reasoning`` as a bool: ``True``/``False`` or the strings true/false, on/off, 1/0.

    Raises:
        ValueError: any other value (``-T reasoning=maybe``), naming the valid choices.
    """
    if isinstance(reasoning, bool):
        return reasoning
    if isinstance(reasoning, int) and reasoning in (0, 1):
        return bool(reasoning)
    if isinstance(reasoning, str) and reasoning.strip().lower() in _FLAG_WORDS:
        return _FLAG_WORDS[reasoning.strip().lower()]
    raise ValueError(f"reasoning must be true or false (also on/off, 1/0), got {reasoning!r}")


_FLAG_WORDS = {"true": True, "on": True, "1": True, "yes": True, "false": False, "off": False, "0": False, "no": False}


FAMILIES: tuple[str, ...] = (
    "qwen3",
    "deepseek-r1-distill",
    "deepseek-r1",
    "gpt-5-mini-low",
    "gpt-5-mini-high",
    "other",
)
"""Model families with their own generation preset (Table 7 rows, and ``other`` for a model of none)."""

PRESET_CHOICES: tuple[str, ...] = ("auto", *FAMILIES, "none")
"""Values of every task's ``presets`` parameter."""

WIDE_BUDGET_TASKS: frozenset[str] = frozenset({"dialogue_parsing"})
"""Tasks that get the high end of Table 7's ``max_new_tokens`` ranges (its caption: dialogue parsing)."""

WIDE_BUDGETS: dict[str, tuple[int, int]] = {"deepseek-r1": (4096, 16384), "gpt-5-mini-high": (8192, 32768)}
"""Table 7's ranges, ``family -> (other tasks, dialogue parsing)`` in tokens."""

LOW_EFFORTS: frozenset[str] = frozenset({"minimal", "low"})
"""``reasoning_effort`` values that select the GPT-5-mini (low) row; any other (``medium``, ``high``, or none
set, which OpenAI runs as ``medium``) selects the (high) row and its larger budget."""

_DEEPSEEK_R1 = re.compile(r"deepseek[-_ ]?r1|deepseek-reasoner")
_R1_DISTILL = re.compile(r"distill|qwen|llama")
_QWEN3 = re.compile(r"qwen3(?![.\d])")


def model_family(model: str, reasoning_effort: str | None = None) -> str:
    """The preset family (:data:`FAMILIES`) of a model name, read from its last path part, case ignored.

    * DeepSeek-R1 names (``deepseek-r1``, DeepSeek's API alias ``deepseek-reasoner``): ``deepseek-r1-distill``
      when the name also says ``distill``, ``qwen`` or ``llama`` (``DeepSeek-R1-Distill-Qwen-32B``,
      ``DeepSeek-R1-0528-Qwen3-8B``), else ``deepseek-r1``;
    * names starting with ``gpt-5-mini``: ``gpt-5-mini-low`` when ``reasoning_effort`` is in
      :data:`LOW_EFFORTS`, else ``gpt-5-mini-high``;
    * names containing ``qwen3`` not followed by a digit or dot, builds included (``Qwen/Qwen3-8B-AWQ``,
      ``./qwen3-8b-q4_k_m.gguf``, ``qwen3:8b``; not ``Qwen3.5``): ``qwen3``;
    * anything else: ``other``.

    Args:
        model: an Inspect model name (``vllm/Qwen/Qwen3-8B``, ``openai/gpt-5-mini``, ``gguf/./x.gguf``).
        reasoning_effort: the run's ``--reasoning-effort`` (only GPT-5-mini uses it).
    """
    name = model.rsplit("/", 1)[-1].lower()
    if _DEEPSEEK_R1.search(name):
        return "deepseek-r1-distill" if _R1_DISTILL.search(name) else "deepseek-r1"
    if name.startswith("gpt-5-mini"):
        return "gpt-5-mini-low" if reasoning_effort in LOW_EFFORTS else "gpt-5-mini-high"
    if _QWEN3.search(name):
        return "qwen3"
    return "other"


def family_preset(family: str, reasoning: bool, task: str) -> dict[str, Any]:
    """The generate-config fields one family's preset sets for ``task`` (README, "Generation settings").

    Args:
        family: one of :data:`FAMILIES`, or ``"none"`` (returns ``{}``).
        reasoning: the task's ``reasoning`` parameter.
        task: the task name (``dialogue_parsing`` gets :data:`WIDE_BUDGETS`' high end).

    Returns:
        ``{field: value}`` of :class:`GenerateConfig` fields (``max_tokens``, ``temperature``, ``top_p``,
        ``verbosity``); fields Table 7 leaves at "-" are absent.

    Raises:
        ValueError: an unknown ``family`` or a bad ``reasoning``.
    """
    mode = reasoning_flag(reasoning)
    wide = task in WIDE_BUDGET_TASKS
    if family == "none":
        return {}
    if family == "qwen3":
        return dict(REASONING_PRESETS[mode])
    if family == "other":
        return {"max_tokens": REASONING_PRESETS[mode]["max_tokens"]}
    if family == "deepseek-r1-distill":
        return {"max_tokens": 4096}
    if family == "deepseek-r1":
        return {"max_tokens": WIDE_BUDGETS[family][wide]}
    if family == "gpt-5-mini-low":
        return {"max_tokens": 4096, "verbosity": "low"}
    if family == "gpt-5-mini-high":
        return {"max_tokens": WIDE_BUDGETS[family][wide], "verbosity": "low"}
    raise ValueError(f"unknown model family {family!r}; choose from {', '.join(FAMILIES)} or none")


class PresetWarning(UserWarning):
    """``presets="auto"`` found no model to read the family from (the task was built outside an eval)."""


@dataclass(frozen=True)
class TaskGeneration:
    """The generation preset one task was built with (:func:`task_generation`).

    Attributes:
        presets: the ``presets`` parameter as resolved (lower case).
        family: the family whose preset was used (:data:`FAMILIES`), ``"none"`` for ``presets="none"``.
        model: the model name ``auto`` read the family from; ``None`` when the family was given (as
            ``bediscover run`` gives it, read from ``--model``) or when no model was active.
        reasoning_effort: the effort ``auto`` read for GPT-5-mini (``None`` when not set or not read).
        fields: the generate-config fields the task sets (:func:`family_preset`).
    """

    presets: str
    family: str
    model: str | None = None
    reasoning_effort: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def config(self) -> GenerateConfig:
        """The task's :class:`GenerateConfig` (command-line generate options override it field by field)."""
        return GenerateConfig(**self.fields)

    def metadata(self) -> dict[str, Any]:
        """The task metadata's ``generation`` entry: ``presets``, ``family``, ``model``, ``reasoning_effort`` and
        ``sent`` (the fields the task set; the log's ``plan.config`` has them merged with the command line)."""
        return {
            "presets": self.presets,
            "family": self.family,
            "model": self.model,
            "reasoning_effort": self.reasoning_effort,
            "sent": dict(self.fields),
        }


def task_generation(task: str, reasoning: Any, presets: str = "auto") -> TaskGeneration:
    """Resolve a task's ``presets`` parameter into its generate config (README, "Generation settings").

    ``auto`` reads the family (:func:`model_family`) from the model Inspect is evaluating while it builds the
    task, with that model's ``reasoning_effort`` (``--reasoning-effort``). A task built in Python before an eval
    starts sees no model: it then warns (:class:`PresetWarning`) and uses ``other``; pass ``presets=<family>``,
    or hand ``eval()`` the task function or name so Inspect builds it for its model. ``bediscover run``
    resolves ``auto`` from ``--model`` itself (:func:`bediscover_inspect.cli.build_tasks`).

    Args:
        task: the task name (``dialogue_parsing`` …; see :data:`WIDE_BUDGET_TASKS`).
        reasoning: the task's ``reasoning`` parameter.
        presets: one of :data:`PRESET_CHOICES` (case ignored).

    Raises:
        ValueError: ``presets`` not in :data:`PRESET_CHOICES` or a bad ``reasoning``, naming the valid choices.
    """
    chosen = str(presets).strip().lower()
    if chosen not in PRESET_CHOICES:
        raise ValueError(f"presets must be one of {', '.join(PRESET_CHOICES)}, got {presets!r}")
    model_name = effort = None
    family = chosen
    if chosen == "auto":
        model = active_model()
        if model is None:
            warnings.warn(
                f"{task}: presets='auto' found no model being evaluated (the task was built before the eval "
                "started), so only Table 7's max_tokens is set; pass presets=<family> "
                f"({', '.join(FAMILIES)}) or give eval() the task function or name",
                PresetWarning,
                stacklevel=3,
            )
            family = "other"
        else:
            model_name, effort = str(model), model.config.reasoning_effort
            family = model_family(model_name, effort)
    return TaskGeneration(
        presets=chosen,
        family=family,
        model=model_name,
        reasoning_effort=effort,
        fields=family_preset(family, reasoning, task),
    )
