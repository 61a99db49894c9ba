"""Task (3) of BeDiscovER, discourse relation recognition on DISRPT 2025 (paper §5.2, Table 4, Appendix B.3,
Tables 27–31).

Usage::

    inspect eval evals/discourse_relations.py --model <model>                    # paper subset, available corpora
    inspect eval evals/discourse_relations.py -T languages=deu,eng -T frameworks=pdtb
    inspect eval evals/discourse_relations.py -T corpora=deu.pdtb.pcc -T subset=full -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import Task, task

from ..generation import generate_with_thinking, reasoning_flag, task_generation
from ..metadata import task_metadata
from ..metrics import pooled_epochs
from .dataset import corpus_metadata, load_dataset, provenance, resolve_frameworks, resolve_languages
from .scorer import discourse_relation_scorer

VERSION = 2
"""Scoring version recorded in the log (``Task.version``): 2 = Inspect metrics per measure with standard errors."""


@task
def discourse_relations(
    corpora: str | Sequence[str] | None = None,
    languages: str | Sequence[str] | None = None,
    frameworks: str | Sequence[str] | None = None,
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
    presets: str = "auto",
    per_dataset: int | None = None,
) -> Task:
    """DISRPT 2025 relation classification into the 17 unified labels, with the Appendix B.3 prompt.

    Args:
        corpora: corpus names (``deu.pdtb.pcc``; list or comma-separated). Default: every one of the 38
            corpora whose file the data root has; absent ones are skipped with a warning and listed with their
            reason in the task metadata (``absent``). A named corpus that is absent raises
            ``DataFileMissingError``.
        languages: ISO 639-3 codes or English names (``deu`` / ``German``) to keep.
        frameworks: frameworks to keep (``dep``, ``erst``, ``iso``, ``pdtb``, ``rst``, ``sdrt``).
        subset: ``"paper"`` (first ``int(frac*N)`` relations per corpus; 8,757 over all 38) or ``"full"``.
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        reasoning: the paper's "w/ reasoning" generation preset and thinking switch (Table 7).
        presets: generation preset (``generation.PRESET_CHOICES``): ``auto`` (default) picks the Table 7
            row from the model's name, a family name forces one, ``none`` sends none (README,
            "Generation settings").
        per_dataset: only the first N samples of each corpus (file order; after ``subset``): a quick run that sees
            every corpus, where ``--limit N`` takes the first N of the whole task. ``None`` (default): all.

    The task metadata has the suite's keys (``parameters``: ``corpora`` as the corpora loaded, ``languages`` as
    ISO codes, ``frameworks``, ``None`` where not given; ``data`` with a ``sha1_check`` note for a file without a
    pinned SHA-1) plus ``samples_per_corpus`` and ``absent_paper_relations`` (:func:`.dataset.corpus_metadata`).

    Raises:
        ValueError: unknown corpus / language / framework / subset / reasoning / presets (naming the valid
            choices).
        DataFileMissingError, DataFormatError: see :func:`.dataset.load_dataset`.
    """
    reasoning = reasoning_flag(reasoning)
    generation = task_generation("discourse_relations", reasoning, presets)
    loaded = load_dataset(corpora, languages, frameworks, subset=subset, data_dir=data_dir, per_dataset=per_dataset)
    metadata = task_metadata(
        "discourse_relations",
        loaded.files,
        corpora=loaded.datasets,
        languages=resolve_languages(languages),
        frameworks=resolve_frameworks(frameworks),
        subset=subset,
        reasoning=reasoning,
        presets=generation.presets,
        generation=generation,
    )
    return Task(
        dataset=loaded.dataset,
        solver=[generate_with_thinking(reasoning)],
        scorer=discourse_relation_scorer(),
        config=generation.config,
        epochs=pooled_epochs(),
        version=VERSION,
        metadata=metadata | {"data": provenance(loaded)} | corpus_metadata(loaded),
    )
