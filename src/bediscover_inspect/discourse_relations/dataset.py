"""Loading Task (3) data: the DISRPT 2025 corpora as Inspect samples, and the corpus selectors.

Data: ``dr/disrpt25/<corpus>/test_id.json`` under the data root (the authors' ``read_raw.py`` output, one JSON
list per corpus, records in ``.rels`` order). The paper subset is the first ``int(frac * N)`` records of each
corpus (fractions ``data.DISRPT_PAPER_FRACTIONS``): 8,757 of 43,716 over the 38 corpora.

Absent corpora follow the suite's one rule (:func:`bediscover_inspect.data.load_datasets`): with the default
selection (no corpus named in ``dataset``; ``languages`` / ``frameworks`` only narrow it) every corpus whose file the data
root has is used and the others are skipped with one warning, their reasons recorded in the task metadata
``absent`` (the four LDC-licensed corpora the authors cannot distribute always are, unless restored); a corpus
named in ``dataset`` must be there. A user who restored an LDC corpus with the DISRPT tools and the authors'
``read_raw.py`` puts the file at ``<data root>/dr/disrpt25/<corpus>/test_id.json``; it loads with
``verified=None`` (no pinned SHA-1), which the task metadata records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from inspect_ai.dataset import Sample

from .. import data
from ..data import (
    DataFormatError,
    LoadedDataset,
    LoadedRecords,
    is_explicit,
    load_samples,
    require_field,
    sample_id,
)
from .prompts import DIRECTION_TEXT, LABELS, LANGUAGE_NAMES, user_prompt

CORPORA: tuple[str, ...] = tuple(sorted(data.DISRPT_PAPER_FRACTIONS))
"""The 38 DISRPT 2025 relation corpora ``<lang>.<framework>.<corpus>``, in the authors' ``DISRPT_TEST_NAMES``
order (alphabetical; ``load_data.py``)."""

FRAMEWORKS: tuple[str, ...] = ("dep", "erst", "iso", "pdtb", "rst", "sdrt")
"""The six frameworks of Table 4 (second part of a corpus name)."""

LANGUAGES: tuple[str, ...] = tuple(sorted(LANGUAGE_NAMES))
"""The 16 ISO 639-3 language codes of Table 27 (first part of a corpus name)."""


DATA_FILES: dict[str, str] = {corpus: f"dr/disrpt25/{corpus}/test_id.json" for corpus in CORPORA}
"""Corpus -> file under the data root (the authors' ``data/dr/disrpt25`` folder)."""


DISRPT_TEST_COUNTS: dict[str, int] = {corpus: int(data.REGISTRY[DATA_FILES[corpus]].records or 0) for corpus in CORPORA}
"""Final DISRPT 2025 test sizes, from the data registry (the DISRPT 2025 ``n_test_final`` counts; sum 43,716).
Used to say how many paper-subset relations an absent corpus would have contributed."""

_RECORD_FIELDS: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("id", int),
    ("lang", str),
    ("framework", str),
    ("corpus", str),
    ("label", str),
    ("direction", str),
    ("u1", str),
    ("u2", str),
    ("context", list),
)


def corpus_parts(corpus: str) -> tuple[str, str, str]:
    """``"deu.pdtb.pcc" -> ("deu", "pdtb", "pcc")`` (language code, framework, short corpus name)."""
    language, framework, short = corpus.split(".")
    return language, framework, short


def paper_subset_size(corpus: str) -> int:
    """Paper-subset size of a corpus: ``int(frac * N)`` with N the final test size (:data:`DISRPT_TEST_COUNTS`)."""
    return data.subset_size(DISRPT_TEST_COUNTS[corpus], data.DISRPT_PAPER_FRACTIONS[corpus])


def _as_list(value: str | Sequence[str] | None, name: str) -> list[str] | None:
    """Task parameters arrive as a list or, from ``-T name=a,b``, as one comma-separated string."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    cleaned = [str(item).strip() for item in items if str(item).strip()]
    if not cleaned:
        raise ValueError(f"{name} is empty; leave it unset to use every available corpus")
    return cleaned


def _language_code(value: str) -> str:
    lowered = value.lower()
    if lowered in LANGUAGE_NAMES:
        return lowered
    for code, name in LANGUAGE_NAMES.items():
        if name.lower() == lowered:
            return code
    choices = [f"{code} ({name})" for code, name in sorted(LANGUAGE_NAMES.items())]
    raise ValueError(f"unknown language {value!r}; valid languages: {choices}")


def _framework(value: str) -> str:
    lowered = value.lower()
    if lowered not in FRAMEWORKS:
        raise ValueError(f"unknown framework {value!r}; valid frameworks: {list(FRAMEWORKS)}")
    return lowered


def _resolve(value: str | Sequence[str] | None, name: str, order: Sequence[str], canonical: Any) -> list[str] | None:
    names = _as_list(value, name)
    if names is None:
        return None
    chosen = {canonical(item) for item in names}
    return [item for item in order if item in chosen]


def resolve_languages(languages: str | Sequence[str] | None) -> list[str] | None:
    """The ``languages`` parameter as ISO codes in :data:`LANGUAGES` order (``"German,eng"`` -> ``["deu", "eng"]``).

    Raises:
        ValueError: an unknown language (naming the valid ones) or an empty list.
    """
    return _resolve(languages, "languages", LANGUAGES, _language_code)


def resolve_frameworks(frameworks: str | Sequence[str] | None) -> list[str] | None:
    """The ``frameworks`` parameter in :data:`FRAMEWORKS` order, lower case (``None``: not given).

    Raises:
        ValueError: an unknown framework (naming the valid ones) or an empty list.
    """
    return _resolve(frameworks, "frameworks", FRAMEWORKS, _framework)


def select_corpora(
    dataset: str | Sequence[str] | None = "all",
    languages: str | Sequence[str] | None = None,
    frameworks: str | Sequence[str] | None = None,
) -> tuple[list[str], bool]:
    """Resolve the selector parameters into a list of corpus names.

    Args:
        dataset: corpus names (``deu.pdtb.pcc``), or ``"all"`` / ``None`` for all 38.
        languages: ISO codes (``deu``) or English names (``German``), case-insensitive; ``None`` for all.
        frameworks: framework names (``pdtb``); ``None`` for all.

    Returns:
        ``(selected corpora in CORPORA order, explicit)``; ``explicit`` is ``True`` when ``dataset`` names corpora
        (then an absent file is an error rather than a skip).

    Raises:
        ValueError: an unknown corpus, language or framework (naming the valid choices), or an empty selection.
    """
    corpus_list = _as_list(dataset, "dataset") if is_explicit(dataset) else None
    if corpus_list is not None:
        unknown = [c for c in corpus_list if c not in CORPORA]
        if unknown:
            raise ValueError(f"dataset: unknown corpora {unknown}; valid corpora: 'all' or {list(CORPORA)}")
    language_codes = resolve_languages(languages)
    framework_names = resolve_frameworks(frameworks)
    selected = [
        c
        for c in CORPORA
        if (corpus_list is None or c in corpus_list)
        and (language_codes is None or corpus_parts(c)[0] in language_codes)
        and (framework_names is None or corpus_parts(c)[1] in framework_names)
    ]
    if not selected:
        raise ValueError(
            f"no corpus matches dataset={corpus_list or 'all'}, languages={_as_list(languages, 'languages')}, "
            f"frameworks={_as_list(frameworks, 'frameworks')}"
        )
    return selected, corpus_list is not None


def _validated(record: dict[str, Any], corpus: str, file: str, index: int) -> dict[str, Any]:
    values = {name: require_field(record, name, file, index, kind) for name, kind in _RECORD_FIELDS}
    where = f"{file}, record {index} (id={record.get('id')!r})"
    if isinstance(values["id"], bool):
        raise DataFormatError(f"{where}: field 'id' should be int, got bool")
    language, framework, short = corpus_parts(corpus)
    for name, expected in (("lang", language), ("framework", framework), ("corpus", short)):
        if values[name] != expected:
            raise DataFormatError(f"{where}: field {name!r} is {values[name]!r}, but the file is corpus {corpus}")
    if values["label"] not in LABELS:
        raise DataFormatError(f"{where}: field 'label' is {values['label']!r}, not one of the 17 labels {list(LABELS)}")
    if values["direction"] not in DIRECTION_TEXT:
        raise DataFormatError(
            f"{where}: field 'direction' is {values['direction']!r}, expected one of {list(DIRECTION_TEXT)}"
        )
    if not all(isinstance(part, str) for part in values["context"]):
        raise DataFormatError(f"{where}: field 'context' should be a list of strings")
    return values


def record_to_sample(
    record: dict[str, Any], corpus: str, file: str = "<record>", index: int = 0, id_width: int = 0
) -> Sample:
    """One DISRPT relation -> Inspect sample with the Table 10 user prompt as input.

    Args:
        record: one object of ``test_id.json`` (fields ``id, lang, framework, corpus, label, direction, u1, u2,
            context`` are required).
        corpus: full corpus name (``deu.pdtb.pcc``).
        file, index: where the record came from (for error messages).
        id_width: digits the record id is zero-padded to in the sample id (:func:`~bediscover_inspect.data.sample_id`).

    Returns:
        ``Sample(id="<corpus>_<record id>", target=gold label)`` with metadata ``dataset`` (= corpus, the
        grouping key), ``gold``, ``corpus``, ``framework``, ``language`` (ISO code), ``language_name``,
        ``direction`` and ``rel_type``.

    Raises:
        DataFormatError: a missing or mistyped field, a label outside the 17, an unknown direction, or a
            ``lang`` / ``framework`` / ``corpus`` field that disagrees with the corpus name.
    """
    values = _validated(record, corpus, file, index)
    language, framework, _ = corpus_parts(corpus)
    return Sample(
        id=sample_id(corpus, values["id"], id_width),
        input=user_prompt(
            values["lang"],
            values["corpus"],
            values["framework"],
            values["context"],
            values["direction"],
            values["u1"],
            values["u2"],
        ),
        target=values["label"],
        metadata={
            "dataset": corpus,
            "gold": values["label"],
            "corpus": corpus,
            "framework": framework,
            "language": language,
            "language_name": LANGUAGE_NAMES[language],
            "direction": values["direction"],
            "rel_type": record.get("type"),
        },
    )


SHA1_CHECK_UNPINNED = "none: no pinned SHA-1 (LDC-licensed corpus restored by the user)"
"""Provenance note ``sha1_check`` of a file loaded without a pinned SHA-1 to verify."""


def corpus_metadata(loaded: LoadedDataset) -> dict[str, Any]:
    """Task-metadata keys of Task (3) beside the suite's own (:func:`bediscover_inspect.metadata.task_metadata`).

    Returns:
        ``samples_per_corpus`` (corpus -> samples used, in order) and ``absent_paper_relations`` (absent corpus ->
        paper-subset relations it would have contributed, :func:`paper_subset_size`).
    """
    counts = Counter(sample.metadata["dataset"] for sample in loaded.dataset)
    return {
        "samples_per_corpus": {corpus: counts[corpus] for corpus in loaded.files.records},
        "absent_paper_relations": {corpus: paper_subset_size(corpus) for corpus in loaded.files.absent},
    }


def provenance(loaded: LoadedDataset) -> dict[str, dict[str, Any]]:
    """Each file's provenance (:meth:`LoadedFiles.provenance`), with ``sha1_check`` for a file with no pinned SHA-1."""
    data = loaded.files.provenance()
    for entry in data.values():
        if entry["verified"] is None:
            entry["sha1_check"] = SHA1_CHECK_UNPINNED
    return data


def load_dataset(
    dataset: str | Sequence[str] | None = "all",
    languages: str | Sequence[str] | None = None,
    frameworks: str | Sequence[str] | None = None,
    subset: str = "paper",
    data_dir: str | None = None,
    per_dataset: int | None = None,
) -> LoadedDataset:
    """Samples of the selected corpora (in :data:`CORPORA` order, records in file order) and what was read.

    Args:
        dataset, languages, frameworks: the selector task parameters (:func:`select_corpora`).
        subset: ``"paper"`` (first ``int(frac * N)`` relations of each corpus) or ``"full"``.
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        per_dataset: only the first N relations of each corpus (after the subset), in file order.

    Returns:
        :class:`~bediscover_inspect.data.LoadedDataset`; its ``datasets`` are the corpora loaded.

    Raises:
        ValueError: bad selector, ``subset`` or ``per_dataset``. DataFileMissingError: a corpus named in ``dataset`` is absent, or
            no selected corpus is available at all (one error listing every absent file). DataFormatError: a
            malformed file or record.
    """
    selected, explicit = select_corpora(dataset, languages, frameworks)

    def to_samples(corpus: str, loaded: LoadedRecords) -> Iterator[Sample]:
        for index, record in enumerate(loaded.records):
            yield record_to_sample(record, corpus, loaded.resolved.local_path, index, loaded.id_width)

    paths = {corpus: DATA_FILES[corpus] for corpus in selected}
    return load_samples(
        "discourse_relations", paths, explicit, to_samples, subset, data_dir, per_dataset, name="disrpt25"
    )
