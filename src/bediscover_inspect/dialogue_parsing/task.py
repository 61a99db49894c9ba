"""Task (5) Dialogue Discourse Parsing (paper §6.2, Table 6, Tables 39-41, Appendix B.5).

``inspect eval evals/dialogue_parsing.py -T dataset=stac -T mode=incremental``
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.solver import Solver

from bediscover_inspect.data import check_subset, select_datasets
from bediscover_inspect.dialogue_parsing.dataset import DATASETS, MODES, make_dataset
from bediscover_inspect.dialogue_parsing.scorer import dialogue_parsing_scorer
from bediscover_inspect.dialogue_parsing.solver import incremental_parser
from bediscover_inspect.generation import generate_with_thinking, generation_config


def resolve_datasets(dataset: str | list[str]) -> list[str]:
    """The ``dataset`` parameter as names in :data:`DATASETS` order (see :func:`bediscover_inspect.data.select_datasets`).

    Raises:
        ValueError: an unknown name or an empty selection; the message lists the valid choices.
    """
    return select_datasets(dataset, DATASETS, "dataset")


@task
def dialogue_parsing(
    dataset: str | list[str] = "all",
    mode: str = "incremental",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
) -> Task:
    """Dialogue discourse parsing on STAC, Molweni and MSDC.

    Args:
        dataset: ``"all"`` (default), ``stac``, ``molweni``, ``msdc``, or several (comma-separated / list).
        mode: ``"incremental"`` (paper's main "auto-regressive" setting: one sample per dialogue, the model
            sees its own earlier predictions) or ``"single-turn"`` (oracle: one sample per record with the gold
            structure in the prompt).
        subset: ``"paper"`` or ``"full"`` (identical here: the paper uses every record, fraction 1.0).
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        reasoning: paper's "w/ reasoning" setting (Table 7 preset + thinking switch).

    Raises:
        ValueError: bad ``dataset``, ``mode`` or ``subset`` (naming the valid choices).
    """
    datasets = resolve_datasets(dataset)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")
    check_subset(subset)
    samples, provenance = make_dataset(datasets, mode, subset, data_dir)
    solver: Solver = incremental_parser(reasoning) if mode == "incremental" else generate_with_thinking(reasoning)
    return Task(
        dataset=samples,
        solver=solver,
        scorer=dialogue_parsing_scorer(),
        config=generation_config(reasoning),
        metadata={
            "benchmark": "BeDiscovER",
            "task": "dialogue_parsing",
            "data": provenance,
            "mode": mode,
            "datasets": datasets,
            "reasoning": reasoning,
        },
    )
