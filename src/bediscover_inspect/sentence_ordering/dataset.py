"""Loading Task (4) data: the seven sentence-ordering datasets of Table 5, one sample per document.

Files: ``so/<dataset>/test_id.jsonl`` of the authors' release (Re-BART's processed files plus ``id``). Each
record has ``shuf_sents`` (the model input, in shuffled order), ``orig_sents`` (gold order) and ``shuf_idx``
(strings; ``shuf_sents[int(shuf_idx[k])] == orig_sents[k]``), so the gold answer is ``shuf_idx`` as 1-based
markers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from inspect_ai.dataset import Sample

from ..data import (
    DataFormatError,
    LoadedDataset,
    LoadedRecords,
    is_explicit,
    load_samples,
    require_field,
    sample_id,
    select_datasets,
)
from .prompts import marker_sequence, user_prompt

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

DATA_FILES: dict[str, str] = {name: f"so/{name}/test_id.jsonl" for name in DATASETS}
"""Dataset -> file under the data root (the authors' ``data/so`` folder)."""


def canonical_ids(shuffled_sentences: Sequence[str]) -> list[int]:
    """For each shuffled index, the first index holding an identical sentence (identity when all differ)."""
    first: dict[str, int] = {}
    return [first.setdefault(s, i) for i, s in enumerate(shuffled_sentences)]


def parse_datasets(dataset: str | Sequence[str] | None) -> list[str]:
    """The ``dataset`` parameter as names, in the order given (see :func:`~bediscover_inspect.data.select_datasets`).

    Raises:
        ValueError: an unknown dataset name or an empty selection (the message lists the valid ones).
    """
    return select_datasets(dataset, DATASETS, "dataset", paper_order=False)


def record_to_sample(
    record: dict[str, Any], dataset: str, file: str = "?", index: int = 0, id_width: int = 0
) -> Sample:
    """One document -> one Sample.

    Args:
        record: the JSON object (``id``, ``shuf_sents``, ``shuf_idx``; ``orig_sents`` is not needed).
        dataset: one of :data:`DATASETS`.
        file, index: where the record came from, for error messages.
        id_width: digits the record id is zero-padded to in the sample id (:func:`~bediscover_inspect.data.sample_id`).

    Returns:
        A sample with id ``<dataset>_<record id>``, input ``[system, user]`` messages (Table 11), target and
        metadata ``gold`` the gold order as markers (``<s 3> <s 1> …``), and metadata ``dataset``,
        ``record_id``, ``gold_order`` (0-based shuffled indices), ``canonical_ids`` (see
        :func:`canonical_ids`) and ``n_sentences``.

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
    if not all(
        (isinstance(i, str) and i.isdigit()) or (isinstance(i, int) and not isinstance(i, bool)) for i in raw_order
    ):
        raise DataFormatError(f"{where}: field 'shuf_idx' must hold integers (or digit strings), got {raw_order}")
    gold_order = [int(i) for i in raw_order]
    if len(gold_order) != len(shuffled) or not all(0 <= i < len(shuffled) for i in gold_order):
        raise DataFormatError(
            f"{where}: field 'shuf_idx' must hold {len(shuffled)} indices into 'shuf_sents', got {raw_order}"
        )
    gold = marker_sequence(gold_order)
    return Sample(
        id=sample_id(dataset, record_id, id_width),
        input=user_prompt(shuffled),
        target=gold,
        metadata={
            "dataset": dataset,
            "record_id": record_id,
            "gold": gold,
            "gold_order": gold_order,
            "canonical_ids": canonical_ids(shuffled),
            "n_sentences": len(shuffled),
        },
    )


def load_dataset(
    dataset: str | Sequence[str] | None = "all",
    subset: str = "paper",
    data_dir: str | None = None,
    per_dataset: int | None = None,
) -> LoadedDataset:
    """Samples of the selected datasets (in the order given; ``all`` in :data:`DATASETS` order) and what was read.

    Args:
        dataset: the ``dataset`` task parameter (see :func:`parse_datasets`); with ``"all"`` an absent file is
            skipped with a warning and recorded, a dataset named explicitly must be there.
        subset: ``"paper"`` (the first ``int(frac·N)`` documents of each file) or ``"full"``.
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        per_dataset: only the first N documents of each dataset (after the subset), in file order.

    Raises:
        ValueError: bad ``dataset``, ``subset`` or ``per_dataset``. DataFileMissingError: a file is absent (see
            :func:`bediscover_inspect.data.load_datasets`). DataFormatError: a malformed file or record.
    """

    def to_samples(name: str, loaded: LoadedRecords) -> Iterator[Sample]:
        for index, record in enumerate(loaded.records):
            yield record_to_sample(record, name, loaded.resolved.local_path, index, loaded.id_width)

    paths = {name: DATA_FILES[name] for name in parse_datasets(dataset)}
    return load_samples("sentence_ordering", paths, is_explicit(dataset), to_samples, subset, data_dir, per_dataset)
