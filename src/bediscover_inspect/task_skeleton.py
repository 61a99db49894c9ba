"""What every task shares: the five shared parameters, their docs, and the assembly of the Inspect ``Task``.

A task module declares only what is its own — its parameters, how they load its samples, its scorer — and this
module adds the rest::

    @task
    @suite_task
    def sentence_ordering(dataset: str | Sequence[str] = "all", *, shared: Shared) -> TaskParts:
        \"\"\"<what the task is>

        Args:
            dataset: <the task's own parameters>
        \"\"\"
        return TaskParts(
            load_dataset(dataset, **shared.loading), scorer=sentence_ordering_scorer(), system_prompt=SYSTEM_PROMPT
        )

:func:`suite_task` gives the function the shared parameters (:data:`SHARED_PARAMETERS`: ``subset``, ``data_dir``,
``reasoning``, ``presets``, ``per_dataset``) after its own, and their docs (:data:`SHARED_DOCS`) after its own
``Args:``; it resolves ``reasoning`` and ``presets`` into the generation preset (:func:`.presets.task_generation`)
before the task loads anything, and builds the ``Task``: the body's dataset and scorer, its solver chain (the
task's system prompt, :func:`.messages.system_prompt`, then the body's solver, by default one generate with the
thinking switch, :func:`.thinking.generate_with_thinking`), the preset as the task's generate
config, :func:`.metrics.pooled_epochs`, :data:`VERSION`, and the task metadata (:func:`.metadata.task_metadata`)
whose ``parameters`` are every parameter of the signature as bound, defaults included.

Every task selects its datasets with the parameter ``dataset`` (``"all"``, one name, a comma list or a list);
a task with more selectors (discourse relations: ``languages``, ``frameworks``) names them in
``suite_task(selectors=…)``, and the task metadata lists them (``selectors``), so the report knows which parameters
only choose the cells a run fills.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from inspect_ai import Task
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from .data import LoadedDataset, check_per_dataset
from .messages import SystemPrompts, system_prompt
from .metadata import task_metadata
from .metrics import pooled_epochs
from .presets import PRESET_CHOICES, TaskGeneration, reasoning_flag, task_generation
from .thinking import generate_with_thinking

VERSION = 2
"""Scoring version every task's log records (``Task.version``): 2 = Inspect metrics per measure with standard
errors."""

DATASET_SELECTOR = "dataset"
"""The parameter every task selects its datasets with."""

_ARG = inspect.Parameter.POSITIONAL_OR_KEYWORD
SHARED_PARAMETERS: tuple[inspect.Parameter, ...] = (
    inspect.Parameter("subset", _ARG, default="paper", annotation="str"),
    inspect.Parameter("data_dir", _ARG, default=None, annotation="str | None"),
    inspect.Parameter("reasoning", _ARG, default=False, annotation="bool"),
    inspect.Parameter("presets", _ARG, default="auto", annotation="str"),
    inspect.Parameter("per_dataset", _ARG, default=None, annotation="int | None"),
)
"""The parameters every task takes after its own, in this order."""

SHARED_DOCS: dict[str, str] = {
    "subset": '``"paper"`` (the first ``int(frac·N)`` records of each file, the authors\' rule; the fractions are '
    'in the data registry) or ``"full"``.',
    "data_dir": "data root (else ``BEDISCOVER_DATA_DIR``, else the download cache, filled from the pinned commit).",
    "reasoning": "the paper's \"w/ reasoning\" setting: Table 7's preset of that column and the thinking switched on "
    "(true/false, also on/off, 1/0).",
    "presets": f"generation preset, one of {', '.join(f'``{c}``' for c in PRESET_CHOICES)}: ``auto`` (default) picks "
    "the Table 7 row from the model's name, a family name forces one, ``none`` sends none "
    "(:mod:`bediscover_inspect.presets`).",
    "per_dataset": "only the first N samples of each dataset (file order; after ``subset``): a quick run that sees "
    "every dataset, where ``--limit N`` takes the first N of the whole task. ``None`` (default): all.",
}
"""The docs of :data:`SHARED_PARAMETERS` (a task that documents one itself keeps its own)."""


@dataclass(frozen=True)
class Shared:
    """The shared parameters as resolved, handed to a task's body.

    Attributes:
        subset, data_dir, per_dataset: as given (``per_dataset`` checked: ``None`` or a whole number ≥ 1).
        reasoning: the ``reasoning`` parameter as a bool.
        generation: the generation preset the task was built with (``presets`` resolved).
    """

    subset: str
    data_dir: str | None
    reasoning: bool
    generation: TaskGeneration
    per_dataset: int | None

    @property
    def loading(self) -> dict[str, Any]:
        """``subset``, ``data_dir`` and ``per_dataset``, as every task's ``load_dataset`` takes them."""
        return {"subset": self.subset, "data_dir": self.data_dir, "per_dataset": self.per_dataset}


@dataclass
class TaskParts:
    """What a task's body returns: its own parts of the ``Task``.

    Attributes:
        loaded: the samples and the files they came from (:func:`bediscover_inspect.data.load_samples`).
        scorer: the task's scorer(s).
        system_prompt: the task's system prompt (Appendix B), one text or one per dataset; the first solver of the
            chain inserts it (:func:`.messages.system_prompt`), so ``Sample.input`` holds only the user prompt.
        solver: the solver after the system prompt; ``None``: one generate with the thinking switch.
        parameters: the task's own parameters as resolved, where that differs from what was given (e.g. language
            names as ISO codes); ``dataset`` is always recorded as the datasets loaded.
        metadata: task-metadata keys of the task's own, added to (or replacing) the suite's.
    """

    loaded: LoadedDataset
    scorer: Scorer | list[Scorer]
    system_prompt: SystemPrompts
    solver: Solver | list[Solver] | None = None
    parameters: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


TaskBody = Callable[..., TaskParts]


@overload
def suite_task(body: TaskBody, /) -> Callable[..., Task]: ...


@overload
def suite_task(*, selectors: Sequence[str] = ...) -> Callable[[TaskBody], Callable[..., Task]]: ...


def suite_task(body: TaskBody | None = None, /, *, selectors: Sequence[str] = (DATASET_SELECTOR,)) -> Any:
    """Make a task's body (its own parameters + ``shared``, returning :class:`TaskParts`) a task function.

    The task function's signature is the body's own parameters, then :data:`SHARED_PARAMETERS`; its docstring is the
    body's with :data:`SHARED_DOCS` added to ``Args:``; its name is the body's (the task's name). Use it under
    Inspect's ``@task``.

    Args:
        body: the task's body; its parameter ``shared`` receives :class:`Shared`.
        selectors: the parameters that choose datasets (recorded in the task metadata ``selectors``); must include
            :data:`DATASET_SELECTOR`.

    Raises:
        ValueError: (when the task is built) a bad ``reasoning``, ``presets`` or ``per_dataset``, naming the valid
            choices; whatever the body raises for its own parameters or its data.
    """
    if DATASET_SELECTOR not in selectors:
        raise ValueError(f"every task selects its datasets with {DATASET_SELECTOR!r}; got selectors {selectors!r}")

    def decorate(body: TaskBody) -> Callable[..., Task]:
        name = body.__name__
        own = [p for p in inspect.signature(body).parameters.values() if p.name != "shared"]
        signature = inspect.Signature([*own, *SHARED_PARAMETERS], return_annotation="Task")

        @functools.wraps(body)
        def build(*args: Any, **kwargs: Any) -> Task:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            given = dict(bound.arguments)
            reasoning = reasoning_flag(given["reasoning"])
            generation = task_generation(name, reasoning, given["presets"])
            data_dir = os.fspath(given["data_dir"]) if given["data_dir"] is not None else None
            shared = Shared(given["subset"], data_dir, reasoning, generation, check_per_dataset(given["per_dataset"]))
            parts = body(**{p.name: given[p.name] for p in own}, shared=shared)
            parameters = given | {
                DATASET_SELECTOR: parts.loaded.datasets,
                "data_dir": data_dir,
                "reasoning": reasoning,
                "presets": generation.presets,
                "per_dataset": shared.per_dataset,
            }
            metadata = task_metadata(
                name, parts.loaded.files, parameters | parts.parameters, selectors=selectors, generation=generation
            )
            solver = parts.solver if parts.solver is not None else generate_with_thinking(reasoning)
            return Task(
                dataset=parts.loaded.dataset,
                solver=[system_prompt(parts.system_prompt), *(solver if isinstance(solver, list) else [solver])],
                scorer=parts.scorer,
                config=generation.config,
                epochs=pooled_epochs(),
                version=VERSION,
                metadata=metadata | parts.metadata,
            )

        build.__signature__ = signature  # type: ignore[attr-defined]
        build.__doc__ = with_shared_docs(body.__doc__ or "")
        return build

    return decorate(body) if body is not None else decorate


_ARGS_HEADER = re.compile(r"^(?P<indent>[ \t]*)Args:[ \t]*$", re.MULTILINE)


def with_shared_docs(doc: str) -> str:
    """``doc`` with :data:`SHARED_DOCS` added at the end of its ``Args:`` section (a new one if it has none),
    except for a parameter the section documents itself."""
    match = _ARGS_HEADER.search(doc)
    indent = match.group("indent") if match else "    "
    lines = doc.splitlines()
    if match is None:
        at = len(lines)
        lines[at:at] = ["", f"{indent}Args:"]
        at = len(lines)
    else:
        start = doc[: match.start()].count("\n") + 1
        at = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    section = "\n".join(lines[:at])
    added = [
        f"{indent}    {name}: {text}"
        for name, text in SHARED_DOCS.items()
        if not re.search(rf"^\s+(\w+, )*{name}(, \w+)*:", section, re.MULTILINE)
    ]
    return "\n".join(lines[:at] + added + lines[at:])
