"""Task (3) of BeDiscovER: discourse relation recognition on DISRPT 2025 (paper §5.2, Appendix B.3).

Usage::

    inspect eval evals/discourse_relations.py --model <model>                    # paper subset, available corpora
    inspect eval evals/discourse_relations.py -T languages=deu,eng -T frameworks=pdtb
    inspect eval evals/discourse_relations.py -T corpora=deu.pdtb.pcc -T subset=full -T reasoning=true
"""

from __future__ import annotations

from typing import Sequence

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset

from bediscover_inspect.generation import generate_with_thinking, generation_config

from .dataset import load_corpora, paper_subset_size, select_corpora
from .scorer import discourse_relation_scorer


@task
def discourse_relations(
    corpora: str | Sequence[str] | None = None,
    languages: str | Sequence[str] | None = None,
    frameworks: str | Sequence[str] | None = None,
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
) -> Task:
    """DISRPT 2025 relation classification into the 17 unified labels, with the Appendix B.3 prompt.

    Args:
        corpora: corpus names (``deu.pdtb.pcc``; list or comma-separated). Default: every one of the 38
            corpora whose file the data root has; absent ones are skipped with a console warning and listed
            with their reason in the task metadata (``absent_corpora``). A named corpus that is absent raises
            ``DataFileMissingError``.
        languages: ISO 639-3 codes or English names (``deu`` / ``German``) to keep.
        frameworks: frameworks to keep (``dep``, ``erst``, ``iso``, ``pdtb``, ``rst``, ``sdrt``).
        subset: ``"paper"`` (first ``int(frac*N)`` relations per corpus; 8,757 over all 38) or ``"full"``.
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        reasoning: the paper's "w/ reasoning" generation preset and thinking switch (Table 7).

    Raises:
        ValueError: unknown corpus / language / framework / subset (naming the valid choices).
        DataFileMissingError, DataFormatError: see :func:`.dataset.load_corpora`.
    """
    selected, explicit = select_corpora(corpora, languages, frameworks)
    loaded = load_corpora(selected, explicit, subset, data_dir)
    return Task(
        dataset=MemoryDataset(loaded.samples, name="disrpt25"),
        solver=[generate_with_thinking(reasoning)],
        scorer=discourse_relation_scorer(),
        config=generation_config(reasoning),
        metadata={
            "benchmark": "BeDiscovER",
            "task": "discourse_relations",
            "data": loaded.provenance,
            "absent_corpora": loaded.absent,
            "absent_paper_relations": {c: paper_subset_size(c) for c in loaded.absent},
            "samples_per_corpus": loaded.counts,
            "subset": subset,
            "reasoning": reasoning,
        },
    )
