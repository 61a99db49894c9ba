"""Task (4) sentence ordering: seven datasets, text-to-marker answers (paper §6.1, Appendix B.4).

Data: ``so/<dataset>/test_id.jsonl`` of the authors' release (Re-BART's processed files plus ``id``): each record
has ``shuf_sents`` (the model input, in shuffled order), ``orig_sents`` (gold order) and ``shuf_idx`` (strings;
``shuf_sents[int(shuf_idx[k])] == orig_sents[k]``), so the gold answer is ``shuf_idx`` as 1-based markers.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from ..data import DataFormatError, check_subset, load_records, require_field, select_datasets
from ..generation import generate_with_thinking, generation_config, prompt_messages
from .prompts import SYSTEM_PROMPT, marker_sequence, user_prompt
from .scorer import canonical_ids, sentence_ordering_scorer

DATASETS: tuple[str, ...] = (
    "aan-abstract",
    "arxiv-abstracts",
    "nips-abs",
    "nsf",
    "roc",
    "sind-captions",
    "wiki-movies",
)
"""The seven datasets of Table 1 / Table 5, as named in the authors' ``data/so`` folder."""


def data_path(dataset: str) -> str:
    """Path of a dataset's file under the data root, e.g. ``so/nips-abs/test_id.jsonl``."""
    return f"so/{dataset}/test_id.jsonl"


def parse_datasets(datasets: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """The ``datasets`` parameter as names, in the order given (see :func:`~bediscover_inspect.data.select_datasets`).

    Raises:
        ValueError: an unknown dataset name (the message lists the valid ones).
    """
    return select_datasets(datasets, DATASETS, "datasets", paper_order=False)


def record_to_sample(record: dict[str, Any], dataset: str, file: str = "?", index: int = 0) -> Sample:
    """One document → one Sample (id ``<dataset>_<id>``; input = Table 11 user prompt; target = gold markers).

    Raises:
        DataFormatError: missing/ill-typed fields, an empty document, or a ``shuf_idx`` that is not n integer
            indices into ``shuf_sents``.
    """
    shuffled = require_field(record, "shuf_sents", file, index, list)
    raw_order = require_field(record, "shuf_idx", file, index, list)
    record_id = require_field(record, "id", file, index, (int, str))
    where = f"{file}, record {index} (id={record_id!r})"
    if not shuffled or not all(isinstance(s, str) and s.strip() for s in shuffled):
        raise DataFormatError(f"{where}: field 'shuf_sents' must be a non-empty list of non-empty strings")
    if not all((isinstance(i, str) and i.isdigit()) or (isinstance(i, int) and not isinstance(i, bool))
               for i in raw_order):
        raise DataFormatError(f"{where}: field 'shuf_idx' must hold integers (or digit strings), got {raw_order}")
    gold_order = [int(i) for i in raw_order]
    if len(gold_order) != len(shuffled) or not all(0 <= i < len(shuffled) for i in gold_order):
        raise DataFormatError(
            f"{where}: field 'shuf_idx' must hold {len(shuffled)} indices into 'shuf_sents', got {raw_order}"
        )
    return Sample(
        id=f"{dataset}_{record_id}",
        input=prompt_messages(SYSTEM_PROMPT, user_prompt(shuffled)),
        target=marker_sequence(gold_order),
        metadata={
            "dataset": dataset,
            "record_id": record_id,
            "gold": marker_sequence(gold_order),
            "gold_order": gold_order,
            "canonical_ids": canonical_ids(shuffled),
            "n_sentences": len(shuffled),
        },
    )


@task
def sentence_ordering(
    datasets: str | list[str] = "all",
    subset: str = "paper",
    data_dir: str | None = None,
    reasoning: bool = False,
) -> Task:
    """BeDiscovER Task (4): reorder shuffled sentences; answer ``<s 2> <s 1> …`` (Appendix B.4).

    Args:
        datasets: ``"all"`` (the seven of Table 5) or one name / a comma list / a list of
            aan-abstract, arxiv-abstracts, nips-abs, nsf, roc, sind-captions, wiki-movies.
        subset: ``"paper"`` — first ``int(frac·N)`` documents (806/898/377/814/883/808/836) — or ``"full"``.
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        reasoning: Table 7 "w/ reasoning" preset and thinking switch on.

    Raises:
        ValueError: bad ``datasets`` / ``subset``. DataFileMissingError: a dataset's file is absent.
    """
    check_subset(subset)
    samples: list[Sample] = []
    provenance: dict[str, Any] = {}
    for dataset in parse_datasets(datasets):
        loaded = load_records(data_path(dataset), data_dir, subset)
        provenance[dataset] = loaded.provenance()
        file = loaded.resolved.local_path
        samples.extend(record_to_sample(r, dataset, file, i) for i, r in enumerate(loaded.records))
    return Task(
        dataset=MemoryDataset(samples, name="bediscover_sentence_ordering"),
        solver=[generate_with_thinking(reasoning)],
        scorer=sentence_ordering_scorer(),
        config=generation_config(reasoning),
        metadata={"benchmark": "BeDiscovER", "task": "sentence_ordering", "subset": subset, "data": provenance},
    )
