"""Loading Task (2) data: the three temporal-reasoning files as Inspect samples.

Files (authors' release, ``tr/<folder>/test_id.json``), each evaluated whole in the paper (fraction 1.0):

* ``tbd-ee`` (dataset ``tbd``, 1515 pairs) and ``tdd-man`` (1500 pairs): ``{"id", "doc_id", "lid", "document",
  "types": ["EVENT e4", "EVENT e5"], "gold": "BEFORE"}``; the document holds exactly the two target events as
  ``<EVENT eN>word</EVENT>``. TBD keeps its 20 duplicated (doc, e1, e2) pairs with contradictory labels (the
  paper's 1515 includes them); TDD-Man has no NONE gold although the prompt offers NONE.
* ``tot-arithmetic`` (1850 questions): ``{"id", "question", "instruction", "gold", "question_type"}``; ``gold``
  is a Python dict literal; ``question_type`` maps to the paper's Table 26 columns (:data:`TOT_CATEGORIES`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
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
from ..measures import SCORERS
from .prompts import (
    RELATION_LABELS,
    relation_user_prompt,
    tot_user_prompt,
)
from .tot_answers import parse_gold

DATASETS: tuple[str, ...] = ("tbd", "tdd-man", "tot-arithmetic")
"""Dataset names of the ``dataset`` task parameter (Table 3 columns TBD, TDD-Man, ToT-Ari)."""

DATA_FILES: dict[str, str] = {
    "tbd": "tr/tbd-ee/test_id.json",
    "tdd-man": "tr/tdd-man/test_id.json",
    "tot-arithmetic": "tr/tot-arithmetic/test_id.json",
}
"""File of each dataset under the data root (the authors' ``data/tr`` folder; TBD's folder is ``tbd-ee``)."""

RELATION_DATASETS: frozenset[str] = frozenset(SCORERS["relation_scorer"].datasets)
"""Datasets of temporal-relation pairs (scored by ``relation_scorer``)."""

(TOT_DATASET,) = SCORERS["tot_scorer"].datasets
"""The temporal-arithmetic dataset (scored by ``tot_scorer``)."""

CONTEXTS: tuple[str, ...] = ("document", "sentences")
"""``document``: the whole article (paper's main setting, Tables 3, 23, 25 "with context");
``sentences``: only the sentence(s) holding the two events (ablation, Tables 22, 24 "without context")."""

TOT_CATEGORIES: dict[str, str] = {
    "timezone": "tz",
    "add_subtract": "as",
    "schedule": "scd",
    "multi_op": "mop",
    "duration": "dur",
    "compare": "cmp",
    "trick": "trk",
}
"""ToT ``question_type`` → Table 26 column (tz, as, scd, mop, dur, cmp, trk; counts 100/350/250/350/200/350/250)."""

EVENT_TAG = re.compile(r"<EVENT (e\d+)>(.*?)</EVENT>", re.DOTALL)
"""A marked target event in a TBD / TDD-Man document, e.g. ``<EVENT e4>genocide</EVENT>``."""

_TYPE = re.compile(r"^EVENT (e\d+)$")


def parse_datasets(dataset: str | Sequence[str] | None) -> list[str]:
    """The ``dataset`` parameter as names, in the order given (see :func:`~bediscover_inspect.data.select_datasets`).

    Raises:
        ValueError: unknown name (the message lists the valid choices) or an empty selection.
    """
    return select_datasets(dataset, DATASETS, "dataset", paper_order=False)


def check_context(context: str) -> None:
    """Raise ``ValueError`` naming the valid choices unless ``context`` is one of :data:`CONTEXTS`."""
    if context not in CONTEXTS:
        raise ValueError(f"context must be one of {list(CONTEXTS)}, got {context!r}")


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    import pysbd

    return pysbd.Segmenter(language="en", clean=False, char_span=True)


@dataclass(frozen=True)
class _Marked:
    plain: str
    events: tuple[tuple[str, str, int, int], ...]  # (event id, word, start, end) in ``plain``


def _unmark(document: str) -> _Marked:
    pieces: list[str] = []
    events: list[tuple[str, str, int, int]] = []
    last = 0
    length = 0
    for match in EVENT_TAG.finditer(document):
        before = document[last : match.start()]
        pieces.append(before)
        length += len(before)
        word = match.group(2)
        events.append((match.group(1), word, length, length + len(word)))
        pieces.append(word)
        length += len(word)
        last = match.end()
    pieces.append(document[last:])
    return _Marked("".join(pieces), tuple(events))


@lru_cache(maxsize=64)
def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Sentence ``(start, end)`` character spans of ``text`` from pysbd (English rules, no download).

    pysbd's own offsets can land on an earlier copy of a repeated sentence, so each sentence is searched from
    the end of the previous one; the spans tile ``text`` (gaps go to the following sentence). Cached: the 3015
    TBD / TDD-Man pairs share 9 documents once the event marks are removed.
    """
    segments = _segmenter().segment(text)
    spans: list[tuple[int, int]] = []
    cursor = 0
    for segment in segments:
        start = text.find(segment.sent, cursor)
        if start < 0:  # pysbd altered the text (it should not with clean=False); keep the rest as one sentence
            break
        spans.append((cursor, start + len(segment.sent)))
        cursor = start + len(segment.sent)
    if cursor < len(text):
        if spans:
            spans[-1] = (spans[-1][0], len(text))
        else:
            spans.append((0, len(text)))
    return tuple(spans)


def event_sentences(document: str) -> str:
    """The sentences of ``document`` that hold a marked event, in document order, with the marks kept.

    Used for ``context="sentences"`` (paper §5.1.2 ablation: "limiting context to sentences containing the
    target events"). Sentences are split by pysbd on the document with the marks removed, then the marks are put
    back; selected sentences are stripped and joined with one space (one sentence when both events share it).

    Raises:
        ValueError: ``document`` holds no ``<EVENT eN>…</EVENT>`` mark.
    """
    marked = _unmark(document)
    if not marked.events:
        raise ValueError("document has no <EVENT eN>…</EVENT> mark")
    chosen: list[str] = []
    for start, end in sentence_spans(marked.plain):
        inside = [e for e in marked.events if e[2] < end and e[3] > start]
        if not inside:
            continue
        sentence = marked.plain[start:end]
        # re-insert marks right to left so earlier offsets stay valid
        for event_id, _word, e_start, e_end in sorted(inside, key=lambda e: e[2], reverse=True):
            a, b = max(e_start, start) - start, min(e_end, end) - start
            sentence = f"{sentence[:a]}<EVENT {event_id}>{sentence[a:b]}</EVENT>{sentence[b:]}"
        chosen.append(sentence.strip())
    return " ".join(chosen)


def relation_record_to_sample(
    record: dict[str, Any], dataset: str, context: str = "document", file: str = "?", index: int = 0, id_width: int = 0
) -> Sample:
    """One TBD / TDD-Man pair → Sample (id ``<dataset>_<id>``, input = Table 9 user prompt, target = gold label).

    The id is zero-padded to ``id_width`` digits (:func:`~bediscover_inspect.data.sample_id`).

    Metadata: ``dataset``, ``gold``, ``record_id``, ``doc_id``, ``lid``, ``events`` (the two ``types``),
    ``context``.

    Raises:
        DataFormatError: a missing / ill-typed field, a ``types`` entry not shaped ``"EVENT eN"``, a gold label
            outside :data:`RELATION_LABELS`, or a document whose marks are not exactly the two ``types`` events.
    """
    record_id = require_field(record, "id", file, index, (int, str))
    document = require_field(record, "document", file, index, str)
    types = require_field(record, "types", file, index, list)
    gold = require_field(record, "gold", file, index, str)
    where = f"{file}, record {index} (id={record_id!r})"
    ids = []
    for entry in types:
        match = _TYPE.match(entry) if isinstance(entry, str) else None
        if match is None:
            raise DataFormatError(f"{where}: field 'types' entry {entry!r} is not shaped 'EVENT eN'")
        ids.append(match.group(1))
    if len(ids) != 2:
        raise DataFormatError(f"{where}: field 'types' should name 2 events, got {len(ids)}")
    if gold not in RELATION_LABELS:
        raise DataFormatError(f"{where}: field 'gold' is {gold!r}, not one of {list(RELATION_LABELS)}")
    marked = sorted(m.group(1) for m in EVENT_TAG.finditer(document))
    if marked != sorted(ids):
        raise DataFormatError(f"{where}: field 'document' marks events {marked}, but field 'types' names {ids}")
    shown = document if context == "document" else event_sentences(document)
    return Sample(
        id=sample_id(dataset, record_id, id_width),
        input=relation_user_prompt(shown, types[0], types[1]),
        target=gold,
        metadata={
            "dataset": dataset,
            "gold": gold,
            "record_id": record_id,
            "doc_id": record.get("doc_id"),
            "lid": record.get("lid"),
            "events": list(types),
            "context": context,
        },
    )


def tot_record_to_sample(
    record: dict[str, Any], dataset: str = TOT_DATASET, file: str = "?", index: int = 0, id_width: int = 0
) -> Sample:
    """One ToT-Arithmetic question → Sample (input = question + instruction; target = the gold literal string).

    Id ``<dataset>_<id>``, zero-padded to ``id_width`` digits (:func:`~bediscover_inspect.data.sample_id`).

    Metadata: ``dataset``, ``gold`` (the literal string), ``gold_answer`` (the dict), ``question_type`` and
    ``category`` (Table 26 abbreviation, the grouping key of the per-category accuracy), ``record_id``.

    Raises:
        DataFormatError: a missing / ill-typed field, a gold that is not a dict literal, or an unknown
            ``question_type``.
    """
    record_id = require_field(record, "id", file, index, (int, str))
    question = require_field(record, "question", file, index, str)
    instruction = require_field(record, "instruction", file, index, str)
    gold = require_field(record, "gold", file, index, str)
    question_type = require_field(record, "question_type", file, index, str)
    where = f"{file}, record {index} (id={record_id!r})"
    try:
        gold_answer = parse_gold(gold)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as ex:  # all ast.literal_eval raises
        raise DataFormatError(f"{where}: field 'gold' is not a Python dict literal ({ex})") from None
    if question_type not in TOT_CATEGORIES:
        raise DataFormatError(f"{where}: field 'question_type' is {question_type!r}, not one of {list(TOT_CATEGORIES)}")
    return Sample(
        id=sample_id(dataset, record_id, id_width),
        input=tot_user_prompt(question, instruction),
        target=gold,
        metadata={
            "dataset": dataset,
            "gold": gold,
            "gold_answer": gold_answer,
            "question_type": question_type,
            "category": TOT_CATEGORIES[question_type],
            "record_id": record_id,
        },
    )


def record_to_sample(
    record: dict[str, Any], dataset: str, context: str = "document", file: str = "?", index: int = 0, id_width: int = 0
) -> Sample:
    """Dispatch one record of ``dataset`` to :func:`relation_record_to_sample` or :func:`tot_record_to_sample`.

    Raises:
        ValueError: unknown ``dataset`` / ``context``. DataFormatError: see the two functions.
    """
    check_context(context)
    if dataset in RELATION_DATASETS:
        return relation_record_to_sample(record, dataset, context, file, index, id_width)
    if dataset == TOT_DATASET:
        return tot_record_to_sample(record, dataset, file, index, id_width)
    raise ValueError(f"unknown temporal-reasoning dataset {dataset!r}; choose from {list(DATASETS)}")


def load_dataset(
    dataset: str | Sequence[str] | None = "all",
    context: str = "document",
    subset: str = "paper",
    data_dir: str | None = None,
    per_dataset: int | None = None,
) -> LoadedDataset:
    """Samples of the selected datasets (in the order given; records in file order) and what was read.

    Args:
        dataset: the ``dataset`` task parameter (see :func:`parse_datasets`); with ``"all"`` an absent file is
            skipped with a warning (and listed in the task metadata), a dataset named explicitly must be there.
        context: see :data:`CONTEXTS`.
        subset: ``"paper"`` or ``"full"`` (identical here: all three files are used whole, fraction 1.0).
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        per_dataset: only the first N samples of each dataset, in file order.

    Raises:
        ValueError: bad dataset, context, subset or per_dataset. DataFileMissingError: a file is absent (see
            :func:`bediscover_inspect.data.load_datasets`). DataFormatError: a malformed file or record.
    """
    check_context(context)

    def to_samples(name: str, loaded: LoadedRecords) -> Iterator[Sample]:
        for index, record in enumerate(loaded.records):
            yield record_to_sample(record, name, context, loaded.resolved.local_path, index, loaded.id_width)

    paths = {name: DATA_FILES[name] for name in parse_datasets(dataset)}
    return load_samples("temporal_reasoning", paths, is_explicit(dataset), to_samples, subset, data_dir, per_dataset)
