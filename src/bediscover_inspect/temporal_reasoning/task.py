"""Task (2) temporal reasoning: TimeBank-Dense, TDD-Man and ToT-Arithmetic (paper §5.1, Appendix B.2).

``inspect eval evals/temporal_reasoning.py [-T dataset=tbd|tdd-man|tot-arithmetic] [-T context=sentences]``.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer

from ..data import check_subset, load_records
from ..generation import generate_with_thinking, generation_config
from .dataset import DATA_PATHS, RELATION_DATASETS, check_context, parse_datasets, record_to_sample
from .scorer import relation_scorer, tot_scorer

def load_samples(
    datasets: list[str], subset: str, data_dir: str | None, context: str
) -> tuple[list[Sample], dict[str, Any]]:
    """Samples of ``datasets`` in order, and each file's provenance (for the task metadata).

    Raises:
        DataFileMissingError: a file is absent. DataFormatError: a bad record (file, record and field named).
    """
    samples: list[Sample] = []
    provenance: dict[str, Any] = {}
    for dataset in datasets:
        loaded = load_records(DATA_PATHS[dataset], data_dir, subset)
        provenance[dataset] = loaded.provenance()
        file = loaded.resolved.local_path
        samples.extend(record_to_sample(r, dataset, context, file, i) for i, r in enumerate(loaded.records))
    return samples, provenance


@task
def temporal_reasoning(
    dataset: str | list[str] = "all",
    context: str = "document",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
) -> Task:
    """BeDiscovER Task (2): temporal relation of two marked events (TBD, TDD-Man); temporal arithmetic (ToT).

    Args:
        dataset: ``"all"`` (default: tbd 1515, tdd-man 1500, tot-arithmetic 1850 samples) or one name / a
            comma list / a list of ``tbd``, ``tdd-man``, ``tot-arithmetic``.
        context: TBD / TDD-Man input: ``"document"`` (full article; the paper's main setting) or
            ``"sentences"`` (only the sentences holding the two events; the Tables 22/24 ablation).
            No effect on ToT.
        subset: ``"paper"`` or ``"full"`` (identical here: all three files are used whole, fraction 1.0).
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        reasoning: Table 7 "w/ reasoning" preset and thinking switch on.

    Raises:
        ValueError: bad ``dataset`` / ``context`` / ``subset`` (the message names the valid choices).
        DataFileMissingError: a dataset's file is absent. DataFormatError: a malformed record.
    """
    check_subset(subset)
    check_context(context)
    datasets = parse_datasets(dataset)
    samples, provenance = load_samples(datasets, subset, data_dir, context)
    scorers: list[Scorer] = []
    if RELATION_DATASETS & set(datasets):
        scorers.append(relation_scorer())
    if "tot-arithmetic" in datasets:
        scorers.append(tot_scorer())
    return Task(
        dataset=MemoryDataset(samples, name="bediscover_temporal_reasoning"),
        solver=[generate_with_thinking(reasoning)],
        scorer=scorers,
        config=generation_config(reasoning),
        metadata={
            "benchmark": "BeDiscovER",
            "task": "temporal_reasoning",
            "datasets": datasets,
            "context": context,
            "subset": subset,
            "data": provenance,
        },
    )
