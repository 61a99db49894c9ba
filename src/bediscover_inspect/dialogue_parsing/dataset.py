"""Loading Task (5) data: one sample per record (single turn) or per dialogue (incremental).

Files (authors' release): ``ddp/{stac,molweni,msdc}/test_id.json``, 1045 / 3930 / 4914 records in 109 / 500 / 101
dialogues. There is one record per new turn j >= 1: ``doc_id`` = ``<dialogue>_<j:02d>``, ``context`` (the last 17
utterances, one a line), ``structure`` (the gold relations whose head is in that window), ``new_turn`` and
``gold``. The paper uses every record (fraction 1.0), so ``subset="paper"`` and ``"full"`` are the same here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.dataset import Sample

from ..data import (
    DataFormatError,
    LoadedDataset,
    LoadedRecords,
    is_explicit,
    load_samples,
    require_field,
    select_datasets,
)
from .prompts import RELATIONS, user_prompt
from .relations import format_relations, parse_gold, window_start

DATASETS: tuple[str, ...] = ("stac", "molweni", "msdc")
"""Dataset names (paper Table 6 columns; folders under ``ddp/``)."""

DATA_FILES: dict[str, str] = {name: f"ddp/{name}/test_id.json" for name in DATASETS}
"""Dataset -> file under the data root."""

MODES: tuple[str, ...] = ("incremental", "single-turn")
"""Task modes: the paper's "auto-regressive" main setting and its oracle "single turn" (Appendix C.5)."""

ORDERS: tuple[str, ...] = ("longest-first", "file")
"""Sample orders of the incremental mode: longest dialogue (most turns) first, or the data files' order."""


def parse_datasets(dataset: str | Sequence[str] | None) -> list[str]:
    """The ``dataset`` parameter as names in :data:`DATASETS` order (:func:`bediscover_inspect.data.select_datasets`).

    Raises:
        ValueError: an unknown name or an empty selection; the message lists the valid choices.
    """
    return select_datasets(dataset, DATASETS, "dataset")


def check_order(order: str) -> str:
    """Return ``order`` if it is one of :data:`ORDERS`.

    Raises:
        ValueError: any other value, naming the valid choices.
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {list(ORDERS)}, got {order!r}")
    return order


def check_mode(mode: str) -> str:
    """Return ``mode`` if it is one of :data:`MODES`.

    Raises:
        ValueError: any other value, naming the valid choices.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")
    return mode


@dataclass(frozen=True)
class Turn:
    """One checked record: new turn index, its text line, gold relations (the data's spelling)."""

    index: int
    doc_id: str
    record_id: Any
    new_turn: str
    gold: str


def split_doc_id(doc_id: str, file: str, index: int) -> tuple[str, int]:
    """``"<dialogue>_<j>"`` -> ``(dialogue, j)``; dialogue names may contain ``_`` (``s1-league3-game3_1``).

    Raises:
        DataFormatError: no ``_<integer>`` suffix.
    """
    dialogue, _, turn = doc_id.rpartition("_")
    if not dialogue or not turn.isdigit():
        raise DataFormatError(f"{file}, record {index}: doc_id {doc_id!r} is not '<dialogue>_<turn number>'")
    return dialogue, int(turn)


def check_record(
    record: dict[str, Any], file: str, index: int, relations: Sequence[str], n_edus: int | None = None
) -> Turn:
    """Validate one record and return its :class:`Turn`.

    Args:
        record: one object of the data file.
        file: the file's path (for messages); index: the record's position in it.
        relations: the dataset's relation set (``prompts.RELATIONS[dataset]``); a gold label must be in it.
        n_edus: number of utterances of the record's dialogue, when known; a gold parent must be below it.

    Raises:
        DataFormatError: a missing / mistyped field, a ``new_turn`` not numbered like the ``doc_id``, or a
            ``gold`` that is not ``LABEL(x,j)`` relations on this turn with a label of ``relations`` and a
            parent x that is an utterance of the dialogue other than j (file, record and field named). The
            real STAC / Molweni / MSDC files pass: every gold label is in the prompt's set, there is no
            self-loop, and every parent (backward ones included) is an utterance of its dialogue.
    """
    doc_id = require_field(record, "doc_id", file, index, str)
    for name in ("context", "structure", "new_turn", "gold"):
        require_field(record, name, file, index, str)
    _, turn = split_doc_id(doc_id, file, index)
    where = f"{file}, record {index} (doc_id={doc_id!r})"
    if not record["new_turn"].startswith(f"{turn}. "):
        raise DataFormatError(
            f"{where}: field 'new_turn' should start with '{turn}. ', got {record['new_turn'][:40]!r}"
        )
    try:
        gold = parse_gold(record["gold"])
    except ValueError as ex:
        raise DataFormatError(f"{where}: field 'gold': {ex}") from ex
    for relation in gold:
        if relation.y != turn:
            raise DataFormatError(f"{where}: field 'gold' has {relation} whose head is not the new turn {turn}")
        if relation.label not in relations:
            raise DataFormatError(
                f"{where}: field 'gold' has {relation} whose label {relation.label!r} is not one of the "
                f"dataset's relations {list(relations)}"
            )
        if relation.x == relation.y:
            raise DataFormatError(f"{where}: field 'gold' has {relation}, a self-loop (parent = head)")
        if n_edus is not None and relation.x >= n_edus:
            raise DataFormatError(
                f"{where}: field 'gold' has {relation} whose parent is not an utterance of the dialogue "
                f"(ids 0 … {n_edus - 1})"
            )
    return Turn(turn, doc_id, record.get("id"), record["new_turn"], format_relations(gold))


def record_to_sample(record: dict[str, Any], dataset: str, n_edus: int, file: str = "", index: int = 0) -> Sample:
    """Single-turn sample (the paper's oracle "single turn"): the record's own context and gold structure.

    Id ``<dataset>_<doc_id>``; input = the Table 12 user prompt (the task adds the system prompt); target = gold.
    Metadata: ``dataset``, ``dialogue``, ``turn`` (j), ``doc_id``, ``gold`` (possibly ``""``), ``n_edus``
    (utterances of the record's dialogue, :func:`dialogue_lengths`: the valid parents of a predicted relation
    are ``0 … n_edus - 1`` but j, ``relations`` module rule 4).
    """
    file = file or DATA_FILES[dataset]
    turn = check_record(record, file, index, RELATIONS[dataset], n_edus)
    dialogue, _ = split_doc_id(turn.doc_id, file, index)
    return Sample(
        id=f"{dataset}_{turn.doc_id}",
        input=user_prompt(record["context"], record["structure"], record["new_turn"]),
        target=turn.gold,
        metadata={
            "dataset": dataset,
            "dialogue": dialogue,
            "turn": turn.index,
            "doc_id": turn.doc_id,
            "gold": turn.gold,
            "n_edus": n_edus,
        },
    )


def dialogue_lengths(records: list[dict[str, Any]], file: str) -> dict[str, int]:
    """``dialogue -> number of utterances`` (its last turn + 1) over the records of one file.

    Raises:
        DataFormatError: a record without a well-formed ``doc_id``.
    """
    lengths: dict[str, int] = {}
    for index, record in enumerate(records):
        dialogue, turn = split_doc_id(require_field(record, "doc_id", file, index, str), file, index)
        lengths[dialogue] = max(lengths.get(dialogue, 0), turn + 1)
    return lengths


def group_dialogues(records: list[dict[str, Any]], file: str) -> dict[str, list[tuple[int, dict[str, Any]]]]:
    """Records grouped by dialogue, in file order: ``dialogue -> [(record index, record), …]``.

    Raises:
        DataFormatError: a dialogue's records are not contiguous or its turns are not 1, 2, 3 … in order.
    """
    groups: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    last: str | None = None
    for index, record in enumerate(records):
        doc_id = require_field(record, "doc_id", file, index, str)
        dialogue, turn = split_doc_id(doc_id, file, index)
        if dialogue != last and dialogue in groups:
            raise DataFormatError(f"{file}, record {index} (doc_id={doc_id!r}): dialogue {dialogue!r} is split")
        expected = len(groups.get(dialogue, [])) + 1
        if turn != expected:
            raise DataFormatError(
                f"{file}, record {index} (doc_id={doc_id!r}): turn {turn} of dialogue {dialogue!r}, expected "
                f"{expected} (records of a dialogue must be turns 1, 2, 3 … in order)"
            )
        groups.setdefault(dialogue, []).append((index, record))
        last = dialogue
    return groups


def dialogue_to_sample(dialogue: str, items: list[tuple[int, dict[str, Any]]], dataset: str, file: str) -> Sample:
    """Incremental sample: one dialogue, walked turn by turn by :func:`solver.incremental_parser`.

    EDU 0 comes from the first record's ``context``, EDU j from record j's ``new_turn``; the solver rebuilds
    each turn's context window from these (so the data's per-record ``context`` is not used: it agrees
    everywhere but Molweni 5032_09, whose context skips EDU 8).

    Id ``<dataset>_<dialogue>``; input = the first turn's user prompt (the solver sends its own per turn);
    metadata: ``dataset``, ``dialogue``, ``edus`` (EDU lines, index = position), ``turns`` (one dict per
    new turn: ``turn``, ``doc_id``, ``gold``), ``n_turns``.
    """
    n_edus = split_doc_id(items[-1][1]["doc_id"], file, items[-1][0])[1] + 1  # turns are 1 … k (group_dialogues)
    turns = [check_record(record, file, index, RELATIONS[dataset], n_edus) for index, record in items]
    first_index, first = items[0]
    context_lines = first["context"].split("\n")
    for position, line in enumerate(context_lines):
        if not line.startswith(f"{position}. "):
            raise DataFormatError(
                f"{file}, record {first_index} (doc_id={first['doc_id']!r}): field 'context' line {position} "
                f"should start with '{position}. ' (first turn of dialogue {dialogue!r})"
            )
    if len(context_lines) != turns[0].index:
        raise DataFormatError(
            f"{file}, record {first_index} (doc_id={first['doc_id']!r}): field 'context' has "
            f"{len(context_lines)} lines, expected {turns[0].index} EDUs before the first turn"
        )
    edus = context_lines + [t.new_turn for t in turns]
    start = window_start(1)
    return Sample(
        id=f"{dataset}_{dialogue}",
        input=user_prompt("\n".join(edus[start:1]), "", edus[1]),
        target=" ".join(t.gold for t in turns if t.gold),
        metadata={
            "dataset": dataset,
            "dialogue": dialogue,
            "edus": edus,
            "turns": [{"turn": t.index, "doc_id": t.doc_id, "gold": t.gold} for t in turns],
            "n_turns": len(turns),
        },
    )


def load_dataset(
    dataset: str | Sequence[str] | None = "all",
    mode: str = "incremental",
    subset: str = "paper",
    data_dir: str | None = None,
    per_dataset: int | None = None,
    order: str = "longest-first",
) -> LoadedDataset:
    """Samples of the selected datasets (in :data:`DATASETS` order) in ``mode``, and what was read.

    Args:
        dataset: the ``dataset`` task parameter (see :func:`parse_datasets`); with ``"all"`` an absent file is
            skipped with a warning, a dataset named explicitly must be there.
        mode: ``"incremental"`` (one sample per dialogue, :func:`dialogue_to_sample`) or ``"single-turn"`` (one
            per record, :func:`record_to_sample`).
        subset: ``"paper"`` or ``"full"`` (identical here: the paper uses every record).
        data_dir: data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        order: incremental mode only: ``"longest-first"`` sorts the dialogues by number of turns, most first
            (stable, so equal lengths keep the file order); ``"file"`` keeps the data files' order. Inspect starts
            samples in dataset order, and a dialogue's turns run one after another, so a long dialogue started
            last bounds the run's wall time; the order changes no score. Single-turn samples keep the file order.
        per_dataset: only the first N samples of each dataset in file order (dialogues in ``incremental``
            mode, turns in ``single-turn``), taken before ``order`` sorts them.

    Raises:
        ValueError: bad dataset, mode, subset, per_dataset or order. DataFileMissingError: a file is absent (see
            :func:`bediscover_inspect.data.load_datasets`). DataFormatError: a malformed file or record.
    """
    paths = {name: DATA_FILES[name] for name in parse_datasets(dataset)}
    check_mode(mode)
    check_order(order)

    def to_samples(name: str, loaded: LoadedRecords) -> Iterator[Sample]:
        file = loaded.resolved.local_path
        if mode == "single-turn":
            lengths = dialogue_lengths(loaded.records, file)
            for index, record in enumerate(loaded.records):
                yield record_to_sample(
                    record, name, lengths[split_doc_id(record["doc_id"], file, index)[0]], file, index
                )
        else:
            for dialogue, items in group_dialogues(loaded.records, file).items():
                yield dialogue_to_sample(dialogue, items, name, file)

    loaded = load_samples(
        "dialogue_parsing",
        paths,
        is_explicit(dataset),
        to_samples,
        subset,
        data_dir,
        per_dataset,
        name_suffix=f"_{mode}",
    )
    if mode == "incremental" and order == "longest-first":  # stable: equal lengths keep the file order
        loaded.dataset.sort(key=lambda sample: -int((sample.metadata or {})["n_turns"]))
    return loaded
