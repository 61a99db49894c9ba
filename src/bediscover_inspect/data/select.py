"""Choosing what to load: dataset selectors of the task parameters, the paper subset, and the records of a file."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal, TypeVar

from .errors import DataFileMissingError, DataFormatError
from .fetch import ResolvedFile, resolve_data_file
from .records import read_records
from .registry import DataFile, data_file_info

logger = logging.getLogger(__name__)

Subset = Literal["paper", "full"]
SUBSETS: tuple[str, ...] = ("paper", "full")


def subset_size(n_records: int, fraction: float) -> int:
    """Number of records in the paper subset: ``int(fraction * n_records)`` (authors' ``load_data.py``)."""
    return int(fraction * n_records)


def check_subset(subset: str) -> None:
    """Raise ``ValueError`` naming the valid choices unless ``subset`` is ``"paper"`` or ``"full"``."""
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {list(SUBSETS)}, got {subset!r}")


def is_explicit(value: str | Sequence[str] | None) -> bool:
    """Whether a dataset selector names datasets (``"a,b"``, ``["a"]``) rather than the default ``all``/``None``."""
    if value is None:
        return False
    items = value.split(",") if isinstance(value, str) else [str(item) for item in value]
    names = [item.strip() for item in items if item.strip()]
    return bool(names) and "all" not in names


def _selected_names(value: str | Sequence[str] | None) -> list[str]:
    """The names a dataset selector gives (``None``: ``["all"]``; a comma-separated string split), blanks dropped."""
    if value is None:
        return ["all"]
    items = value.split(",") if isinstance(value, str) else list(value)
    return [str(item).strip() for item in items if str(item).strip()]


def select_datasets(
    value: str | Sequence[str] | None, choices: Sequence[str], parameter: str = "dataset", paper_order: bool = True
) -> list[str]:
    """Normalise a dataset-selector task parameter (``-T dataset=a,b`` arrives as one comma-separated string).

    Args:
        value: ``None`` or ``"all"`` (every choice), one name, a comma-separated string, or a list of names.
        choices: the valid names, in the paper's order.
        parameter: the parameter's name, for the error message.
        paper_order: return the names in ``choices`` order (else in the order given); duplicates dropped.

    Raises:
        ValueError: an unknown name or an empty selection; the message lists the valid choices.
    """
    names = _selected_names(value)
    if "all" in names:
        return list(choices)
    unknown = [name for name in names if name not in choices]
    if unknown or not names:
        raise ValueError(
            f"{parameter} must be 'all' or one or more of {list(choices)}; got {value!r}"
            + (f" (unknown: {unknown})" if unknown else "")
        )
    return [name for name in choices if name in names] if paper_order else list(dict.fromkeys(names))


@dataclass(frozen=True)
class LoadedRecords:
    """Records of one file after subsetting, with where they came from."""

    info: DataFile
    resolved: ResolvedFile
    records: list[dict[str, Any]]
    n_full: int

    @property
    def id_width(self) -> int:
        """Digits of the file's largest record id, ``N - 1`` for ``N = n_full`` records (every BeDiscovER file
        numbers its records ``0 … N-1``): the width :func:`sample_id` pads to, the same for every subset."""
        return len(str(max(self.n_full - 1, 0)))

    def provenance(self) -> dict[str, Any]:
        """Resolved-file provenance plus record counts (for task metadata)."""
        return self.resolved.provenance() | {
            "mirror_status": self.info.mirror_status,
            "records_full": self.n_full,
            "records_used": len(self.records),
        }


def load_records(
    path: str,
    data_dir: str | os.PathLike[str] | None = None,
    subset: str = "paper",
    fetch: Callable[[str], bytes] | None = None,
) -> LoadedRecords:
    """Load the records of one benchmark file, restricted to the paper subset or not.

    Args:
        path: file under the data root (key of :data:`REGISTRY`).
        data_dir: explicit data root (else ``BEDISCOVER_DATA_DIR``, else the download cache).
        subset: ``"paper"`` (first ``int(frac * N)`` records in file order, the authors' rule) or ``"full"``.
        fetch: download transport for tests.

    Returns:
        :class:`LoadedRecords`; records are freshly parsed dicts (callers may mutate them).

    Raises:
        ValueError: bad ``subset``. DataFileMissingError: see :func:`resolve_data_file`.
        DataFormatError: the file is not a JSON list (``.json``) or JSON lines (``.jsonl``) of objects.
    """
    check_subset(subset)
    info = data_file_info(path)
    resolved = resolve_data_file(path, data_dir, fetch)
    if subset == "paper" and resolved.verified and info.records is not None:
        # the pinned bytes: N is known, so only the paper prefix needs parsing
        n = subset_size(info.records, info.paper_fraction)
        limit = n if n < info.records else None  # a whole file parses faster with json.loads
        records = read_records(resolved.local_path, limit)
        if len(records) != n:
            raise DataFormatError(f"{resolved.local_path}: {len(records)} records, the pinned file has {info.records}")
        return LoadedRecords(info, resolved, list(records), info.records)
    records = read_records(resolved.local_path)
    n = len(records) if subset == "full" else subset_size(len(records), info.paper_fraction)
    if info.records is not None and len(records) != info.records and resolved.verified is not False:
        logger.warning("%s: %d records, the pinned file has %d", resolved.local_path, len(records), info.records)
    return LoadedRecords(info, resolved, list(records[:n]), len(records))


def sample_id(dataset: str, record_id: Any, width: int = 0) -> str:
    """Sample id ``<dataset>_<record id>``, a whole-number id zero-padded to ``width`` digits.

    With ``width`` = :attr:`LoadedRecords.id_width`, ids sort in file order as text (the log viewer sorts them
    so): ``nips-abs_002`` before ``nips-abs_010``. Other ids (strings) are kept as they are.
    """
    if isinstance(record_id, int) and not isinstance(record_id, bool) and record_id >= 0:
        return f"{dataset}_{record_id:0{width}d}"
    return f"{dataset}_{record_id}"


def check_per_dataset(per_dataset: Any) -> int | None:
    """The ``per_dataset`` task parameter: ``None`` (every sample) or a positive whole number.

    Raises:
        ValueError: anything else (``0``, ``-1``, ``2.5``, ``true``, ``"abc"``), naming the parameter.
    """
    if per_dataset is None:
        return None
    if isinstance(per_dataset, str) and per_dataset.strip().isdigit():
        per_dataset = int(per_dataset)
    if isinstance(per_dataset, bool) or not isinstance(per_dataset, int) or per_dataset < 1:
        raise ValueError(
            f"per_dataset must be a positive whole number (the first N samples of each dataset) or None, "
            f"got {per_dataset!r}"
        )
    return per_dataset


T = TypeVar("T")


def first_per_dataset(samples: Iterable[T], per_dataset: int | None) -> list[T]:
    """The first ``per_dataset`` of one dataset's ``samples`` in file order (all with ``None``).

    Each task calls it once per dataset with a lazy iterable, so the samples after the first N are never built
    (nor their records checked): ``-T per_dataset=2`` is a quick run that sees every dataset, where ``--limit``
    takes the first N samples of the whole task (the first dataset only).
    """
    return list(islice(samples, per_dataset))


REASON_LICENSED = "LDC-licensed: not distributed by the authors"
REASON_NOT_IN_ROOT = "not in this data root"
REASON_NOT_DOWNLOADABLE = "not in the download cache and could not be downloaded"


@dataclass(frozen=True)
class LoadedFiles:
    """The records of the selected datasets, and the datasets left out.

    Attributes:
        records: dataset -> its :class:`LoadedRecords` (datasets sharing one file share the object), in the
            order given.
        absent: dataset -> reason it was skipped (only with the default selection, see :func:`load_datasets`).
    """

    records: dict[str, LoadedRecords]
    absent: dict[str, str]

    def provenance(self) -> dict[str, dict[str, Any]]:
        """Each file read -> :meth:`LoadedRecords.provenance` (for the task metadata ``data``)."""
        return {loaded.info.path: loaded.provenance() for loaded in self.records.values()}


def _absent_reason(info: DataFile, data_dir: str | os.PathLike[str] | None) -> str:
    if info.mirror_status == "licensed":
        return REASON_LICENSED
    if data_dir is not None or os.environ.get("BEDISCOVER_DATA_DIR"):
        return REASON_NOT_IN_ROOT
    return REASON_NOT_DOWNLOADABLE


def load_datasets(
    paths: dict[str, str],
    explicit: bool,
    subset: str = "paper",
    data_dir: str | os.PathLike[str] | None = None,
    task: str = "task",
    fetch: Callable[[str], bytes] | None = None,
) -> LoadedFiles:
    """Load the records of every selected dataset, with one behaviour for absent files in every task.

    * A dataset the user named (``explicit``) must be there: if any named file is absent, one
      :class:`DataFileMissingError` lists every absent file with its SHA-1 and the options.
    * With the default selection (``all``), an absent file is skipped: one warning names each dataset and its
      reason, and :attr:`LoadedFiles.absent` records it (the task puts it in its metadata, the report shows it).
      The four LDC-licensed DISRPT corpora are always in this case for users who did not restore them.
    * If nothing at all could be loaded, the error lists every absent file.

    Args:
        paths: dataset -> file under the data root (keys of the registry), in the order to load.
        explicit: the user named the datasets.
        subset, data_dir, fetch: see :func:`load_records`.
        task: task name, for the messages.

    Raises:
        ValueError: bad ``subset``. DataFileMissingError: as above. DataFormatError: a malformed file.
    """
    check_subset(subset)
    records, missing = _records_of(paths, subset, data_dir, fetch)
    absent = {
        dataset: _absent_reason(data_file_info(path), data_dir) for dataset, path in paths.items() if path in missing
    }
    if missing and (explicit or not records):
        raise _all_missing(task, list(missing.values()))
    if absent:
        logger.warning(
            "%s: %d of the %d selected datasets are absent and skipped: %s",
            task,
            len(absent),
            len(paths),
            "; ".join(f"{name} ({reason})" for name, reason in absent.items()),
        )
    return LoadedFiles(records, absent)


def _records_of(
    paths: dict[str, str],
    subset: str,
    data_dir: str | os.PathLike[str] | None,
    fetch: Callable[[str], bytes] | None,
) -> tuple[dict[str, LoadedRecords], dict[str, DataFileMissingError]]:
    """The records of each dataset of ``paths`` whose file could be found (a file shared by datasets read once),
    and the error of each file that could not (by path)."""
    by_path: dict[str, LoadedRecords] = {}
    records: dict[str, LoadedRecords] = {}
    missing: dict[str, DataFileMissingError] = {}
    for dataset, path in paths.items():
        if path in missing:
            continue
        try:
            if path not in by_path:
                by_path[path] = load_records(path, data_dir, subset, fetch)
            records[dataset] = by_path[path]
        except DataFileMissingError as error:
            missing[path] = error
    return records, missing


def _all_missing(task: str, errors: list[DataFileMissingError]) -> DataFileMissingError:
    """One error for every file not found: the file's own error when there is one, else one listing them all with
    their hints once each."""
    if len(errors) == 1:
        return errors[0]
    hints = list(dict.fromkeys(error.hint for error in errors))
    what = "; ".join(error.what for error in errors)
    return DataFileMissingError(
        f"{task}: {len(errors)} BeDiscovER data files not found: {what}. " + " ".join(hints),
        what=what,
        hint=" ".join(hints),
    )


@dataclass(frozen=True)
class LoadedDataset:
    """What every task's ``load_dataset`` returns.

    Attributes:
        dataset: the Inspect dataset (samples in the selected datasets' order, records in file order).
        files: the records read and the datasets skipped (:class:`LoadedFiles`).
        datasets: the datasets the samples come from, in order (the selection minus the absent ones).
    """

    dataset: Any
    files: LoadedFiles
    datasets: list[str]


def load_samples(
    task: str,
    paths: Mapping[str, str],
    explicit: bool,
    to_samples: Callable[[str, LoadedRecords], Iterable[Any]],
    subset: str = "paper",
    data_dir: str | os.PathLike[str] | None = None,
    per_dataset: Any = None,
    name: str | None = None,
    name_suffix: str = "",
) -> LoadedDataset:
    """Every task's loader: the selected datasets' records (:func:`load_datasets`) turned into one Inspect dataset.

    Args:
        task: the task's name (messages, and the dataset's default name ``<task>_<dataset>+<dataset>…``).
        paths: dataset -> file under the data root, in the order the samples should come.
        explicit: the user named the datasets (an absent one is then an error, see :func:`load_datasets`).
        to_samples: ``(dataset, its records) -> samples`` of one dataset in file order; a generator, so that
            with ``per_dataset`` the samples after the first N are never built (:func:`first_per_dataset`).
        subset, data_dir: see :func:`load_records`.
        per_dataset: the ``per_dataset`` task parameter (:func:`check_per_dataset`).
        name: the Inspect dataset's name, if not the default; ``name_suffix`` is appended to the default.

    Returns:
        :class:`LoadedDataset` with an Inspect ``MemoryDataset`` of the samples, datasets in ``paths`` order.

    Raises:
        ValueError: bad ``subset`` or ``per_dataset``. DataFileMissingError, DataFormatError: see
            :func:`load_datasets` (and whatever ``to_samples`` raises for a malformed record).
    """
    from inspect_ai.dataset import MemoryDataset

    per_dataset = check_per_dataset(per_dataset)
    files = load_datasets(dict(paths), explicit, subset, data_dir, task)
    samples: list[Any] = []
    for dataset, loaded in files.records.items():
        samples.extend(first_per_dataset(to_samples(dataset, loaded), per_dataset))
    names = list(files.records)
    return LoadedDataset(MemoryDataset(samples, name=name or f"{task}_{'+'.join(names)}{name_suffix}"), files, names)
