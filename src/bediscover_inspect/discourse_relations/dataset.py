"""DISRPT 2025 corpora of BeDiscovER Task (3): corpus selection, record validation, samples.

Data: ``dr/disrpt25/<corpus>/test_id.json`` under the data root (the authors' ``read_raw.py`` output, one JSON
list per corpus, records in ``.rels`` order). The paper subset is the first ``int(frac * N)`` records of each
corpus (``data.load_records``; fractions ``data.DISRPT_PAPER_FRACTIONS``): 8,757 of 43,716 over the 38 corpora.

Absent corpora. With the default selection every corpus whose file the data root has is used and the others
are skipped *loudly*: a console warning and a ``reason`` per corpus in the task metadata
(``"LDC-licensed"`` for the four corpora the authors cannot distribute, ``"not in this data root"`` otherwise).
A corpus the user names explicitly must be there: its absence raises
:class:`~bediscover_inspect.data.DataFileMissingError`.
A user who restored an LDC corpus with the DISRPT tools and the authors' ``read_raw.py`` puts the file at
``<data root>/dr/disrpt25/<corpus>/test_id.json``; it loads with ``verified=None`` (no pinned SHA-1), which the
task metadata records.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from inspect_ai.dataset import Sample

from bediscover_inspect import data
from bediscover_inspect.data import DataFileMissingError, DataFormatError, require_field

from ..generation import prompt_messages
from .prompts import DIRECTION_TEXT, LABELS, LANGUAGE_NAMES, SYSTEM_PROMPT, user_prompt

logger = logging.getLogger(__name__)

CORPORA: tuple[str, ...] = tuple(sorted(data.DISRPT_PAPER_FRACTIONS))
"""The 38 DISRPT 2025 relation corpora ``<lang>.<framework>.<corpus>``, in the authors' ``DISRPT_TEST_NAMES``
order (alphabetical; ``load_data.py``)."""

FRAMEWORKS: tuple[str, ...] = ("dep", "erst", "iso", "pdtb", "rst", "sdrt")
"""The six frameworks of Table 4 (second part of a corpus name)."""

LANGUAGES: tuple[str, ...] = tuple(sorted(LANGUAGE_NAMES))
"""The 16 ISO 639-3 language codes of Table 27 (first part of a corpus name)."""

DISRPT_TEST_COUNTS: dict[str, int] = {
    corpus: int(data.REGISTRY[f"dr/disrpt25/{corpus}/test_id.json"].records or 0) for corpus in CORPORA
}
"""Final DISRPT 2025 test sizes, from the data registry (``shared/data/upstream/disrpt25/counts.tsv``,
``n_test_final``; sum 43,716). Used to say how many paper-subset relations an absent corpus would have
contributed."""

REASON_LDC = "LDC-licensed"
REASON_NOT_IN_ROOT = "not in this data root"
REASON_NOT_DOWNLOADABLE = "not in the download cache and could not be downloaded"

_RECORD_FIELDS: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("id", int), ("lang", str), ("framework", str), ("corpus", str), ("label", str), ("direction", str),
    ("u1", str), ("u2", str), ("context", list),
)


def corpus_path(corpus: str) -> str:
    """Path of a corpus file under the data root: ``dr/disrpt25/<corpus>/test_id.json``."""
    return f"dr/disrpt25/{corpus}/test_id.json"


def corpus_parts(corpus: str) -> tuple[str, str, str]:
    """``"deu.pdtb.pcc" -> ("deu", "pdtb", "pcc")`` (language code, framework, short corpus name)."""
    language, framework, short = corpus.split(".")
    return language, framework, short


def paper_subset_size(corpus: str) -> int:
    """Paper-subset size of a corpus: ``int(frac * N)`` with N the final test size (counts.tsv)."""
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


def select_corpora(
    corpora: str | Sequence[str] | None = None,
    languages: str | Sequence[str] | None = None,
    frameworks: str | Sequence[str] | None = None,
) -> tuple[list[str], bool]:
    """Resolve the selector parameters into a list of corpus names.

    Args:
        corpora: corpus names (``deu.pdtb.pcc``) or ``None`` for all 38.
        languages: ISO codes (``deu``) or English names (``German``), case-insensitive; ``None`` for all.
        frameworks: framework names (``pdtb``); ``None`` for all.

    Returns:
        ``(selected corpora in CORPORA order, explicit)``; ``explicit`` is ``True`` when ``corpora`` was given
        (then an absent file is an error rather than a skip).

    Raises:
        ValueError: an unknown corpus, language or framework (naming the valid choices), or an empty selection.
    """
    corpus_list = _as_list(corpora, "corpora")
    language_list = _as_list(languages, "languages")
    framework_list = _as_list(frameworks, "frameworks")
    if corpus_list is not None:
        unknown = [c for c in corpus_list if c not in CORPORA]
        if unknown:
            raise ValueError(f"unknown corpora {unknown}; valid corpora: {list(CORPORA)}")
    language_codes = None if language_list is None else {_language_code(v) for v in language_list}
    if framework_list is not None:
        framework_set = {f.lower() for f in framework_list}
        unknown = sorted(framework_set - set(FRAMEWORKS))
        if unknown:
            raise ValueError(f"unknown frameworks {unknown}; valid frameworks: {list(FRAMEWORKS)}")
    else:
        framework_set = None
    selected = [
        c
        for c in CORPORA
        if (corpus_list is None or c in corpus_list)
        and (language_codes is None or corpus_parts(c)[0] in language_codes)
        and (framework_set is None or corpus_parts(c)[1] in framework_set)
    ]
    if not selected:
        raise ValueError(
            f"no corpus matches corpora={corpus_list}, languages={language_list}, frameworks={framework_list}"
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


def record_to_sample(record: dict[str, Any], corpus: str, file: str = "<record>", index: int = 0) -> Sample:
    """One DISRPT relation -> Inspect sample with the Table 10 user prompt as input.

    Args:
        record: one object of ``test_id.json`` (fields ``id, lang, framework, corpus, label, direction, u1, u2,
            context`` are required; see ``shared/data/upstream/disrpt25/SOURCE.md``).
        corpus: full corpus name (``deu.pdtb.pcc``).
        file, index: where the record came from (for error messages).

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
        id=f"{corpus}_{values['id']}",
        input=prompt_messages(SYSTEM_PROMPT, user_prompt(
            values["lang"], values["corpus"], values["framework"], values["context"], values["direction"],
            values["u1"], values["u2"],
        )),
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


@dataclass
class LoadedCorpora:
    """Samples of the selected corpora plus what the task metadata must say about them.

    Attributes:
        samples: all samples, corpora in :data:`CORPORA` order, records in file order.
        provenance: corpus -> ``LoadedRecords.provenance()`` (+ ``sha1_check`` note for unpinned files).
        absent: corpus -> reason (``"LDC-licensed"``, ``"not in this data root"`` …) for skipped corpora.
        counts: corpus -> number of samples used.
    """

    samples: list[Sample] = field(default_factory=list)
    provenance: dict[str, dict[str, Any]] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def _absent_reason(corpus: str, data_dir: str | None) -> str:
    if data.REGISTRY[corpus_path(corpus)].mirror_status == "licensed":
        return REASON_LDC
    if data_dir is not None or os.environ.get(data.ENV_DATA_DIR):
        return REASON_NOT_IN_ROOT
    return REASON_NOT_DOWNLOADABLE


def load_corpora(
    corpora: Iterable[str], explicit: bool, subset: str = "paper", data_dir: str | None = None
) -> LoadedCorpora:
    """Load and convert the selected corpora.

    Args:
        corpora: corpus names (validated by :func:`select_corpora`).
        explicit: the user named the corpora; a missing file then raises instead of being skipped.
        subset: ``"paper"`` or ``"full"`` (``data.load_records``).
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).

    Returns:
        :class:`LoadedCorpora`. Skipped corpora are logged with one WARNING naming each and its reason.

    Raises:
        ValueError: bad ``subset``. DataFileMissingError: an explicitly requested corpus is absent, or no
        selected corpus is available at all. DataFormatError: a malformed file or record.
    """
    data.check_subset(subset)
    loaded = LoadedCorpora()
    for corpus in corpora:
        try:
            records = data.load_records(corpus_path(corpus), data_dir, subset)
        except DataFileMissingError:
            if explicit:
                raise
            loaded.absent[corpus] = _absent_reason(corpus, data_dir)
            continue
        provenance = records.provenance()
        if records.resolved.verified is None:
            provenance["sha1_check"] = "none: no pinned SHA-1 (LDC-licensed corpus restored by the user)"
        loaded.provenance[corpus] = provenance
        file = records.resolved.local_path
        for index, record in enumerate(records.records):
            loaded.samples.append(record_to_sample(record, corpus, file, index))
        loaded.counts[corpus] = len(records.records)
    if loaded.absent:
        missing = sum(paper_subset_size(c) for c in loaded.absent)
        logger.warning(
            "discourse_relations: %d of the selected %d DISRPT corpora are absent and skipped "
            "(%d paper-subset relations): %s",
            len(loaded.absent),
            len(loaded.absent) + len(loaded.provenance),
            missing,
            "; ".join(f"{c}: {reason}" for c, reason in loaded.absent.items()),
        )
    if not loaded.samples:
        raise DataFileMissingError(
            f"none of the selected DISRPT corpora is available ({loaded.absent}); "
            f"pass -T data_dir=DIR or set {data.ENV_DATA_DIR}"
        )
    return loaded
