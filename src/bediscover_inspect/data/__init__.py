"""Data root, pinned sources, download and verification, and the paper's subsets (one module per job).

* :mod:`.registry` — the pinned files (commit, git blob SHA-1, record count, paper fraction);
* :mod:`.fetch` — where a file is found (``data_dir`` → ``BEDISCOVER_DATA_DIR`` → user cache, downloaded from
  the pinned commit and verified), and the one download path of every pinned file;
* :mod:`.pinned` — fetching every pinned file ahead of time (``bediscover fetch``), the tests' reference files;
* :mod:`.records` — reading a file's records and checking their fields;
* :mod:`.select` — dataset selectors, the paper subset, loading the records of the selected datasets;
* :mod:`.errors` — :class:`DataFileMissingError`, :class:`DataFormatError`.
"""

from .errors import DataFileMissingError, DataFormatError
from .fetch import (
    ENV_CACHE_DIR,
    ENV_DATA_DIR,
    ENV_OFFLINE,
    ResolvedFile,
    cache_dir,
    default_fetch,
    download_file,
    git_blob_sha1,
    resolve_data_file,
)
from .records import require_field
from .registry import (
    DISRPT_PAPER_FRACTIONS,
    PINNED_COMMIT,
    PINNED_REPOSITORY,
    REGISTRY,
    DataFile,
    data_file_info,
)
from .select import (
    SUBSETS,
    LoadedDataset,
    LoadedFiles,
    LoadedRecords,
    Subset,
    check_per_dataset,
    check_subset,
    first_per_dataset,
    is_explicit,
    load_datasets,
    load_records,
    load_samples,
    sample_id,
    select_datasets,
    subset_size,
)

__all__ = [
    "DISRPT_PAPER_FRACTIONS",
    "ENV_CACHE_DIR",
    "ENV_DATA_DIR",
    "ENV_OFFLINE",
    "PINNED_COMMIT",
    "PINNED_REPOSITORY",
    "REGISTRY",
    "SUBSETS",
    "DataFile",
    "DataFileMissingError",
    "DataFormatError",
    "LoadedDataset",
    "LoadedFiles",
    "LoadedRecords",
    "ResolvedFile",
    "Subset",
    "cache_dir",
    "check_per_dataset",
    "check_subset",
    "first_per_dataset",
    "data_file_info",
    "is_explicit",
    "default_fetch",
    "download_file",
    "git_blob_sha1",
    "load_datasets",
    "load_records",
    "load_samples",
    "require_field",
    "resolve_data_file",
    "sample_id",
    "select_datasets",
    "subset_size",
]
