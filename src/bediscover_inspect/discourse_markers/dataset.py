"""Loading Task (1) data: Just-Manual, Just-Subtitle and Otherwise, as Inspect samples.

Files (authors' release, pinned in ``data.REGISTRY``): ``dm/just/test_id.json`` (239 records) and
``dm/otherwise/test_id.json`` (294). Both are evaluated whole in the paper (fraction 1.0).

Just is split by record id: ids 0–89 are **Just-Manual** (90 records, empty
``context2``/``context5``) and ids 90–238 are **Just-Subtitle** (149 records, both contexts non-empty). The
paper's Table 1 says 139 Just-Subtitle items; the data, the authors' ``data/dm/README.md`` ("90 manual + 149
subtitle") and the Just paper (149 sentences) say 149, which we follow.
"""

from __future__ import annotations

import re
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
from .prompts import LABELS, PROMPT_STYLES, user_prompt

DATASETS: tuple[str, ...] = ("just-manual", "just-subtitle", "otherwise")
"""Dataset names of Task (1), in the paper's column order (Table 2)."""

DATA_FILES: dict[str, str] = {
    "just-manual": "dm/just/test_id.json",
    "just-subtitle": "dm/just/test_id.json",
    "otherwise": "dm/otherwise/test_id.json",
}
"""Dataset -> file under the data root (the two Just datasets share one file)."""

FAMILY: dict[str, str] = {"just-manual": "just", "just-subtitle": "just", "otherwise": "otherwise"}
"""Dataset -> prompt family of Table 8 (``just`` or ``otherwise``)."""

JUST_MANUAL_LAST_ID = 89
"""Just records with ``id <= 89`` are Just-Manual, the rest Just-Subtitle."""

CONTEXTS: tuple[str, ...] = ("none", "2", "5")
"""Values of the ``context`` parameter: no preceding subtitle lines (paper), ``context2`` or ``context5``."""

_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*$")
_TRAILING_WEAK = re.compile(r"[\s,;:]+$")


def parse_datasets(dataset: str | Sequence[str] | None) -> list[str]:
    """The ``dataset`` parameter as names in the paper's order (see :func:`~bediscover_inspect.data.select_datasets`).

    Raises:
        ValueError: an unknown name or an empty selection; the message lists the valid choices.
    """
    return select_datasets(dataset, DATASETS, "dataset")


def check_context(context: str | int) -> str:
    """Return ``context`` as one of :data:`CONTEXTS` (``2`` and ``"2"`` both accepted).

    Raises:
        ValueError: any other value, naming the valid choices.
    """
    value = str(context).strip().lower()
    if value not in CONTEXTS:
        raise ValueError(f"context must be one of {list(CONTEXTS)}, got {context!r}")
    return value


def render_argument(argument: str) -> str:
    """One Otherwise argument as it goes inside its square brackets.

    Surrounding whitespace is removed; trailing ``,;:`` are dropped; an argument without sentence-final
    punctuation (``. ! ? …``, possibly followed by closing quotes or brackets) gets a final ``"."``. The
    authors' tokenised spacing (``change .``) is kept as it is in the data.
    """
    text = argument.strip()
    if _SENTENCE_END.search(text):
        return text
    return _TRAILING_WEAK.sub("", text) + "."


def render_otherwise(arg1: str, arg2: str) -> str:
    """``<TEXT>`` of an Otherwise record: ``[Arg1.] Otherwise, [Arg2.]``.

    The format is that of the paper's own worked examples in the Def+Exp prompt (Table 8, e.g.
    ``[We have to operate immediately.] Otherwise, [she will die.]``), which also says "Arg1 and Arg2 are placed
    within square brackets"; the system prompt's ``[Arg1]. Otherwise, [Arg2].`` names the same shape. Each
    argument keeps its own final punctuation (238 of 294 ``arg1`` already end with ``.``), see
    :func:`render_argument`; ``arg2`` is written as in the data (the connective was removed from it, so it
    usually starts in lower case, like the examples).
    """
    return f"[{render_argument(arg1)}] Otherwise, [{render_argument(arg2)}]"


def render_just(text: str, preceding: str = "") -> str:
    """``<TEXT>`` of a Just record: the target sentence, optionally after its preceding subtitle lines.

    With ``preceding == ""`` (the paper's setting, and always for Just-Manual) this is the sentence alone.
    Otherwise (``context`` parameter ``2`` or ``5``, an extension of ours) it is
    ``"Context: <preceding lines>\\n\\nSentence: <text>"``, so that the prompt's "the sentence above" / "the
    following sentence" still designates the target sentence only.
    """
    if not preceding:
        return text
    return f"Context: {preceding}\n\nSentence: {text}"


def record_to_sample(
    record: dict[str, Any],
    dataset: str,
    prompt: str = "basic",
    context: str = "none",
    file: str = "?",
    index: int = 0,
    id_width: int = 0,
) -> Sample:
    """One record of the authors' file -> an Inspect :class:`Sample`.

    Args:
        record: the JSON object (Just: ``id, text, gold, context2, context5``; Otherwise: ``id, arg1, arg2,
            gold``).
        dataset: one of :data:`DATASETS`.
        prompt: one of :data:`PROMPT_STYLES` (Table 8 user prompt).
        context: one of :data:`CONTEXTS`; used for Just-Subtitle only.
        file, index: where the record came from, for error messages.
        id_width: digits the record id is zero-padded to in the sample id (:func:`~bediscover_inspect.data.sample_id`).

    Returns:
        A sample with id ``<dataset>_<record id>``, input ``[system, user]`` messages, target the gold label,
        and metadata ``dataset``, ``gold``, ``record_id``, ``prompt``, ``context`` and ``text`` (the rendered
        passage).

    Raises:
        DataFormatError: a missing or mistyped field, or a gold label outside the dataset's label set (names
            file, record and field).
    """
    record_id = require_field(record, "id", file, index, int)
    gold = require_field(record, "gold", file, index, str)
    if gold not in LABELS[dataset]:
        raise DataFormatError(
            f"{file}, record {index} (id={record_id!r}): field 'gold' is {gold!r}, "
            f"not one of the {dataset} labels {list(LABELS[dataset])}"
        )
    family = FAMILY[dataset]
    if family == "just":
        sentence = require_field(record, "text", file, index, str)
        preceding = ""
        if dataset == "just-subtitle" and context != "none":
            preceding = require_field(record, f"context{context}", file, index, str)
        passage = render_just(sentence, preceding)
    else:
        arg1 = require_field(record, "arg1", file, index, str)
        arg2 = require_field(record, "arg2", file, index, str)
        passage = render_otherwise(arg1, arg2)
    return Sample(
        id=sample_id(dataset, record_id, id_width),
        input=user_prompt(family, prompt, passage),
        target=gold,
        metadata={
            "dataset": dataset,
            "gold": gold,
            "record_id": record_id,
            "prompt": prompt,
            "context": context if dataset == "just-subtitle" else "none",
            "text": passage,
        },
    )


def _belongs(record: dict[str, Any], dataset: str, file: str, index: int) -> bool:
    if dataset == "otherwise":
        return True
    record_id = require_field(record, "id", file, index, int)
    return (record_id <= JUST_MANUAL_LAST_ID) == (dataset == "just-manual")


def load_dataset(
    dataset: str | Sequence[str] | None = "all",
    prompt: str = "basic",
    context: str = "none",
    subset: str = "paper",
    data_dir: str | None = None,
    per_dataset: int | None = None,
) -> LoadedDataset:
    """Samples of the selected datasets (in :data:`DATASETS` order) and what was read.

    Args:
        dataset: the ``dataset`` task parameter (see :func:`parse_datasets`); with ``"all"`` an absent file is
            skipped with a warning, a dataset named explicitly must be there.
        prompt, context: see :func:`record_to_sample`.
        subset: ``"paper"`` or ``"full"`` (identical here: Task 1 is evaluated whole, fraction 1.0).
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        per_dataset: only the first N samples of each dataset, in file order.

    Raises:
        ValueError: bad dataset, prompt, context, subset or per_dataset. DataFileMissingError: a file is absent (see
            :func:`bediscover_inspect.data.load_datasets`). DataFormatError: a malformed file or record.
    """
    if prompt not in PROMPT_STYLES:
        raise ValueError(f"prompt must be one of {list(PROMPT_STYLES)}, got {prompt!r}")
    context = check_context(context)

    def to_samples(name: str, loaded: LoadedRecords) -> Iterator[Sample]:
        file = loaded.resolved.local_path
        for index, record in enumerate(loaded.records):
            if _belongs(record, name, file, index):
                yield record_to_sample(record, name, prompt, context, file, index, loaded.id_width)

    paths = {name: DATA_FILES[name] for name in parse_datasets(dataset)}
    return load_samples("discourse_markers", paths, is_explicit(dataset), to_samples, subset, data_dir, per_dataset)
