"""Task (3) of BeDiscovER, discourse relation recognition on DISRPT 2025 (paper §5.2, Table 4, Appendix B.3,
Tables 27–31).

Usage::

    inspect eval evals/discourse_relations.py --model <model>                    # paper subset, available corpora
    inspect eval evals/discourse_relations.py -T languages=deu,eng -T frameworks=pdtb
    inspect eval evals/discourse_relations.py -T dataset=deu.pdtb.pcc -T subset=full -T reasoning=true
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import task

from ..task_skeleton import Shared, TaskParts, suite_task
from .dataset import corpus_metadata, load_dataset, provenance, resolve_frameworks, resolve_languages
from .prompts import SYSTEM_PROMPT
from .scorer import discourse_relation_scorer


@task
@suite_task(selectors=("dataset", "languages", "frameworks"))
def discourse_relations(
    dataset: str | Sequence[str] = "all",
    languages: str | Sequence[str] | None = None,
    frameworks: str | Sequence[str] | None = None,
    *,
    shared: Shared,
) -> TaskParts:
    """DISRPT 2025 relation classification into the 17 unified labels, with the Appendix B.3 prompt.

    Args:
        dataset: ``"all"`` (default: every one of the 38 corpora whose file the data root has; absent ones are
            skipped with a warning and listed with their reason in the task metadata, ``absent``) or corpus names
            (``deu.pdtb.pcc``; list or comma-separated). A named corpus that is absent raises
            ``DataFileMissingError``.
        languages: ISO 639-3 codes or English names (``deu`` / ``German``) to keep.
        frameworks: frameworks to keep (``dep``, ``erst``, ``iso``, ``pdtb``, ``rst``, ``sdrt``).
        subset: ``"paper"`` (first ``int(frac*N)`` relations per corpus; 8,757 over all 38) or ``"full"``.

    The task metadata has the suite's keys (``parameters``: ``dataset`` as the corpora loaded, ``languages`` as
    ISO codes, ``frameworks``, ``None`` where not given; ``data`` with a ``sha1_check`` note for a file without a
    pinned SHA-1) plus ``samples_per_corpus`` and ``absent_paper_relations`` (:func:`.dataset.corpus_metadata`).

    Raises:
        ValueError: unknown corpus / language / framework, or a bad ``subset``, ``reasoning``, ``presets`` or
            ``per_dataset`` (naming the valid choices).
        DataFileMissingError, DataFormatError: see :func:`.dataset.load_dataset`.
    """
    loaded = load_dataset(dataset, languages, frameworks, **shared.loading)
    return TaskParts(
        loaded,
        scorer=discourse_relation_scorer(),
        system_prompt=SYSTEM_PROMPT,
        parameters={"languages": resolve_languages(languages), "frameworks": resolve_frameworks(frameworks)},
        metadata={"data": provenance(loaded)} | corpus_metadata(loaded),
    )
