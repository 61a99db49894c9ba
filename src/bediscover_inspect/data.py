"""Data root, pinned sources, download and verification, and the paper's subsets.

Every task reads the authors' processed files (``chuyuanli/BeDiscovER`` at :data:`PINNED_COMMIT`) through
one *data root*: a directory laid out like the repository's ``data/`` folder
(``<task>/<dataset>/test_id.json``, ``.jsonl`` for sentence ordering).

Resolution order for a file (see ``shared/DESIGN.md``, "Data root"):

1. the task parameter ``data_dir``;
2. the environment variable ``BEDISCOVER_DATA_DIR``;
3. the user cache (``$BEDISCOVER_CACHE_DIR`` or the platform cache dir), filled on first use by downloading
   the file from the pinned commit, written atomically and checked against its git blob SHA-1.

With an explicit data root (1 or 2) nothing is downloaded: a missing file is a :class:`DataFileMissingError`
naming the dataset, the file, its SHA-1 and the data-root options. A file whose SHA-1 differs from the pinned
one loads with a warning, and :func:`load_records` reports the mismatch in its provenance so a log always says
which data it scored.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import urllib.request
import warnings
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

logger = logging.getLogger(__name__)

PINNED_REPOSITORY = "chuyuanli/BeDiscovER"
"""The authors' public data repository (paper, Table 1 and footnotes)."""

PINNED_COMMIT = "f99bd2a3585ddf28ea880568747fbb3281de6e77"
"""The commit every file below is pinned to (``shared/data/MANIFEST.md``)."""

DOWNLOAD_URL_TEMPLATE = "https://raw.githubusercontent.com/{repository}/{commit}/data/{path}"
"""Where a real user's copy of a file comes from: the repository's ``data/<path>`` at the pinned commit."""

ENV_DATA_DIR = "BEDISCOVER_DATA_DIR"
ENV_CACHE_DIR = "BEDISCOVER_CACHE_DIR"
ENV_OFFLINE = "BEDISCOVER_OFFLINE"

Subset = Literal["paper", "full"]
SUBSETS: tuple[str, ...] = ("paper", "full")


@dataclass(frozen=True)
class DataFile:
    """One pinned file of the authors' release.

    Attributes:
        path: path under the data root, e.g. ``"so/nips-abs/test_id.jsonl"``.
        sha1: git blob SHA-1 at :data:`PINNED_COMMIT` (``None`` for the LDC-licensed DISRPT corpora, which
            the authors do not distribute: a user-restored file cannot be checked).
        records: number of records in the full file (``None`` when unknown here).
        paper_fraction: the paper subset is the first ``int(paper_fraction * records)`` records in file order
            (``load_data.py`` of the authors; fractions from ``shared/data/MANIFEST.md`` and, for DISRPT,
            ``upstream/disrpt25/bediscover_frac_map.json``).
        mirror_status: ``exact`` / ``approximate`` / ``missing`` in the offline mirror, ``licensed`` for LDC.
    """

    path: str
    sha1: str | None
    records: int | None
    paper_fraction: float
    mirror_status: str

    @property
    def task(self) -> str:
        """Task folder: ``dm``, ``tr``, ``dr``, ``so`` or ``ddp``."""
        return self.path.split("/")[0]

    @property
    def dataset(self) -> str:
        """Dataset (or DISRPT corpus) folder name, e.g. ``nips-abs`` or ``deu.pdtb.pcc``."""
        return self.path.split("/")[-2]


# Sentence-ordering fractions reproduce the paper's 806/898/377/814/883/808/836 (Table 1; MANIFEST.md).
_SO_FRACTIONS = {
    "aan-abstract": 0.3,
    "arxiv-abstracts": 0.005,
    "nips-abs": 1.0,
    "nsf": 0.04,
    "roc": 0.09,
    "sind-captions": 0.16,
    "wiki-movies": 0.25,
}

# DISRPT 2025 per-corpus fractions: BeDiscovER load_data.py DISRPT_FRAC_MAP (43,716 -> 8,757 relations).
DISRPT_PAPER_FRACTIONS: dict[str, float] = {
    "ces.rst.crdt": 1.0, "deu.pdtb.pcc": 1.0, "deu.rst.pcc": 1.0, "eng.dep.covdtb": 0.1,
    "eng.dep.scidtb": 0.1, "eng.erst.gentle": 0.1, "eng.erst.gum": 0.07, "eng.pdtb.gentle": 0.3,
    "eng.pdtb.gum": 0.15, "eng.pdtb.pdtb": 0.05, "eng.pdtb.tedm": 0.7, "eng.rst.oll": 1.0,
    "eng.rst.rstdt": 0.1, "eng.rst.sts": 0.8, "eng.rst.umuc": 0.5, "eng.sdrt.msdc": 0.04,
    "eng.sdrt.stac": 0.2, "eus.rst.ert": 0.5, "fas.rst.prstc": 0.4, "fra.sdrt.annodis": 0.4,
    "ita.pdtb.luna": 0.6, "nld.rst.nldt": 0.6, "pcm.pdtb.disconaija": 0.2, "pol.iso.pdc": 0.3,
    "por.pdtb.crpc": 0.2, "por.pdtb.tedm": 0.7, "por.rst.cstn": 1.0, "rus.rst.rrt": 0.1,
    "spa.rst.rststb": 0.5, "spa.rst.sctb": 1.0, "tha.pdtb.tdtb": 0.2, "tur.pdtb.tdb": 0.5,
    "tur.pdtb.tedm": 0.7, "zho.dep.scidtb": 1.0, "zho.pdtb.cdtb": 0.3, "zho.pdtb.ted": 0.2,
    "zho.rst.gcdt": 0.2, "zho.rst.sctb": 1.0,
}

# DISRPT 2025 final test sizes of the four LDC corpora (upstream/disrpt25/counts.tsv); not distributed.
_LDC_CORPORA = {"eng.pdtb.pdtb": 4295, "eng.rst.rstdt": 2155, "tur.pdtb.tdb": 421, "zho.pdtb.cdtb": 758}

# (path, git blob SHA-1, mirror status, records) as in shared/data/MANIFEST.md; the record counts of the two
# DISRPT corpora missing from the mirror are the final test sizes of upstream/disrpt25/counts.tsv.
_MANIFEST: tuple[tuple[str, str, str, int | None], ...] = (
    ("ddp/molweni/test_id.json", "fb5ba8c4505a5f73eb3f5f437dbfe4e8b7ba9192", "exact", 3930),
    ("ddp/msdc/test_id.json", "420452812107626884c3c76fc7020cae1e225b75", "approximate", 4914),
    ("ddp/stac/test_id.json", "f0a57ab6c35d8d5d684f9d74da1d05f5ebfe17ac", "exact", 1045),
    ("dm/just/test_id.json", "7c573e2081f9ad851265e26f543ae51a0c4e3341", "exact", 239),
    ("dm/otherwise/test_id.json", "da8a9f1bea065d0a4c9051e8a92779537dc61fa0", "exact", 294),
    ("dr/disrpt25/ces.rst.crdt/test_id.json", "e4723178b434ad3541a2ecd12eebe5854bb82a92", "exact", 148),
    ("dr/disrpt25/deu.pdtb.pcc/test_id.json", "792333d55187344bf3901654ae39cf405fc0b0d1", "exact", 194),
    ("dr/disrpt25/deu.rst.pcc/test_id.json", "d9dd085c3a9f05a9bc1135c7948abbfb92b1bf76", "exact", 273),
    ("dr/disrpt25/eng.dep.covdtb/test_id.json", "ac601f4b01cc79cb9d913cf0e7f7bbe947b6893e", "exact", 2586),
    ("dr/disrpt25/eng.dep.scidtb/test_id.json", "ce7fedd63a47033e55a62562b01f0843fd0b9c4d", "exact", 1910),
    ("dr/disrpt25/eng.erst.gentle/test_id.json", "fb92229cd0a6a97eb408968322a47c78ccb0344e", "exact", 2552),
    ("dr/disrpt25/eng.erst.gum/test_id.json", "06321405affbb91509c8b5018a1fafd51510df0c", "approximate", 3574),
    ("dr/disrpt25/eng.pdtb.gentle/test_id.json", "daf834f0d9a3374c9bed5d8b2265fe0202bf40b4", "exact", 786),
    ("dr/disrpt25/eng.pdtb.gum/test_id.json", "286f2ad8e8106e219fa834da36a10e3d1148703d", "exact", 1678),
    ("dr/disrpt25/eng.pdtb.tedm/test_id.json", "030126c57627de7c1773f1392a80a4fa1a94fb13", "exact", 351),
    ("dr/disrpt25/eng.rst.oll/test_id.json", "03d6b1f2ce87e94a94faf5b1e096c56ab65a78a2", "exact", 271),
    ("dr/disrpt25/eng.rst.sts/test_id.json", "e6abd6b4864a05a24787e4982e783d04c82e7f92", "exact", 328),
    ("dr/disrpt25/eng.rst.umuc/test_id.json", "f886ead565ceea6984801dda9d04055cfb314721", "exact", 484),
    ("dr/disrpt25/eng.sdrt.msdc/test_id.json", "8656f0a09928fa181ed138a95336c6fe00deccf7", "missing", 6018),
    ("dr/disrpt25/eng.sdrt.stac/test_id.json", "c97f01416d6af79855a1dff181b2331c3825b4a6", "exact", 1128),
    ("dr/disrpt25/eus.rst.ert/test_id.json", "d30999f2344df0155e330bb3cd5c9c3b34cdee37", "exact", 485),
    ("dr/disrpt25/fas.rst.prstc/test_id.json", "de0e060c2e28dab62f9a7c6b264025ca3ed88bba", "exact", 592),
    ("dr/disrpt25/fra.sdrt.annodis/test_id.json", "1d236137dbb8d6db65ed34ad3fbeb7d7adfca398", "exact", 621),
    ("dr/disrpt25/ita.pdtb.luna/test_id.json", "de4c414bab7b15c3a95db58b3e103fb1a14db07d", "exact", 375),
    ("dr/disrpt25/nld.rst.nldt/test_id.json", "207652036db19e82847c37905ab956dca24bfcd5", "exact", 325),
    ("dr/disrpt25/pcm.pdtb.disconaija/test_id.json", "8dfebbba77827b798344cdc1dae67a175850357e", "exact", 1017),
    ("dr/disrpt25/pol.iso.pdc/test_id.json", "b67cc67efbb8e55a6830f071e642a1cd776721da", "exact", 743),
    ("dr/disrpt25/por.pdtb.crpc/test_id.json", "895b45ff9bb03f75bedd34f4c23bc49e35a3bba2", "exact", 1248),
    ("dr/disrpt25/por.pdtb.tedm/test_id.json", "9a52d31306fb3be22d631e4c778d609f0fe0e752", "exact", 364),
    ("dr/disrpt25/por.rst.cstn/test_id.json", "d37c4ece321219dafbad978a586d346ff6e42013", "exact", 272),
    ("dr/disrpt25/rus.rst.rrt/test_id.json", "9a8e86c13f69dda918d471a6db20c9cfa1a63717", "missing", 2815),
    ("dr/disrpt25/spa.rst.rststb/test_id.json", "afa4dfc60ffa4dc4adf1c756ac2667e364495be6", "exact", 426),
    ("dr/disrpt25/spa.rst.sctb/test_id.json", "bdd858ad92135cdcad13c0e13ff73735351ac06c", "exact", 159),
    ("dr/disrpt25/tha.pdtb.tdtb/test_id.json", "e17e073b9fbe3d6dd3d5713432bc7b721516e052", "exact", 1344),
    ("dr/disrpt25/tur.pdtb.tedm/test_id.json", "af5c7c15abcadbe4fb1697f7a823c0d8f18ad587", "exact", 363),
    ("dr/disrpt25/zho.dep.scidtb/test_id.json", "c153145e7025a5b5731c7934290b6126f75d9e09", "exact", 215),
    ("dr/disrpt25/zho.pdtb.ted/test_id.json", "5e5f0902d5049003bc53c9f4fa62eadc560f7f59", "exact", 1330),
    ("dr/disrpt25/zho.rst.gcdt/test_id.json", "0dcfac33365dd557c57f5821aeec1dfb81f90f2a", "exact", 953),
    ("dr/disrpt25/zho.rst.sctb/test_id.json", "fcb66d91b376aa6d6cf1461c016bf75a733d13ba", "exact", 159),
    ("so/aan-abstract/test_id.jsonl", "6b581452bed3aeef16473d01ae1d5163c975654b", "missing", 2687),
    ("so/arxiv-abstracts/test_id.jsonl", "bdef60c50f5c47190d16a8299dfc65655e093ead", "missing", 179691),
    ("so/nips-abs/test_id.jsonl", "055e25330ac621e9a1c8eeee4a86b3474ff83df6", "exact", 377),
    ("so/nsf/test_id.jsonl", "70ae5d7d2fb1a50af52a22c1ae277568d17832bf", "missing", 20366),
    ("so/roc/test_id.jsonl", "8306eae8296f58f2dc356abed8d64b4345cdda85", "missing", 9816),
    ("so/sind-captions/test_id.jsonl", "8d06d23b4c2bb1fdef4c314999ee7e6b8f77b8be", "missing", 5055),
    ("so/wiki-movies/test_id.jsonl", "96d7ce9b1698e974fbba9c48be249981f9e8f225", "missing", 3345),
    ("tr/tbd-ee/test_id.json", "bf1f4617bff38171f9d4141756d804c4314fb01a", "exact", 1515),
    ("tr/tdd-man/test_id.json", "6648cf62ea3e057c8ac92e6f7bf83f6b3003d98c", "exact", 1500),
    ("tr/tot-arithmetic/test_id.json", "766efaae20a7def7f2d2339ce7116c80449afe81", "exact", 1850),
)


def _paper_fraction(path: str) -> float:
    task, dataset = path.split("/")[0], path.split("/")[-2]
    if task == "so":
        return _SO_FRACTIONS[dataset]
    if task == "dr":
        return DISRPT_PAPER_FRACTIONS[dataset]
    return 1.0


def _build_registry() -> dict[str, DataFile]:
    registry = {
        path: DataFile(path, sha1, records, _paper_fraction(path), status)
        for path, sha1, status, records in _MANIFEST
    }
    for corpus, records in _LDC_CORPORA.items():
        path = f"dr/disrpt25/{corpus}/test_id.json"
        registry[path] = DataFile(path, None, records, DISRPT_PAPER_FRACTIONS[corpus], "licensed")
    return registry


REGISTRY: dict[str, DataFile] = _build_registry()
"""Every file of the benchmark, keyed by its path under the data root (49 pinned + 4 LDC DISRPT corpora)."""


try:  # Inspect's CLI prints a PrerequisiteError as its message alone, without a traceback (inspect-ai 0.3.x)
    from inspect_ai._util.error import PrerequisiteError as _UserFacingError
except ImportError:  # pragma: no cover - a future Inspect without it: a plain traceback, same message
    _UserFacingError = Exception  # type: ignore[misc,assignment]


class DataFileMissingError(FileNotFoundError, _UserFacingError):
    """A benchmark file is not under the data root and cannot be downloaded.

    Also an Inspect ``PrerequisiteError``, so ``inspect eval`` shows just the message and exits 1.
    """

    def __init__(self, message: str) -> None:
        FileNotFoundError.__init__(self, message)
        self.message = message


class DataFormatError(ValueError, _UserFacingError):
    """A data file or one of its records does not have the expected shape (names file, record, field).

    Also an Inspect ``PrerequisiteError``, so ``inspect eval`` shows just the message and exits 1.
    """

    def __init__(self, message: str) -> None:
        ValueError.__init__(self, message)
        self.message = message


def git_blob_sha1(data: bytes) -> str:
    """Git blob SHA-1 of ``data`` (what ``git hash-object FILE`` prints): ``sha1(b"blob <len>\\0" + data)``."""
    digest = hashlib.sha1()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def cache_dir() -> Path:
    """User cache for downloaded files: ``$BEDISCOVER_CACHE_DIR`` or the platform cache dir, per commit."""
    explicit = os.environ.get(ENV_CACHE_DIR)
    if explicit:
        return Path(explicit).expanduser() / PINNED_COMMIT
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("bediscover-inspect")) / PINNED_COMMIT


def data_file_info(path: str) -> DataFile:
    """The registry entry of ``path`` (under the data root).

    Raises:
        KeyError: ``path`` is not a benchmark file; the message lists the known datasets of its task.
    """
    try:
        return REGISTRY[path]
    except KeyError:
        task = path.split("/")[0]
        known = sorted(f.path for f in REGISTRY.values() if f.task == task)
        raise KeyError(f"{path!r} is not a BeDiscovER data file; known files of task {task!r}: {known}") from None


@dataclass(frozen=True)
class ResolvedFile:
    """Where a benchmark file was found and whether it is the pinned one.

    ``source`` is ``data_dir`` (task parameter), ``env`` (``BEDISCOVER_DATA_DIR``) or ``cache``;
    ``verified`` is ``True`` (SHA-1 matches), ``False`` (differs: loaded with a warning) or ``None``
    (no pinned SHA-1, e.g. a user-restored LDC corpus).
    """

    path: str
    local_path: str
    source: str
    expected_sha1: str | None
    actual_sha1: str
    verified: bool | None

    def provenance(self) -> dict[str, Any]:
        """JSON-able record for task metadata (so the log says exactly which bytes were scored)."""
        return asdict(self) | {"repository": PINNED_REPOSITORY, "commit": PINNED_COMMIT}


def _missing_message(info: DataFile, where: str, reason: str) -> str:
    return (
        f"BeDiscovER data file for dataset {info.dataset!r} not found: {info.path} "
        f"(git blob SHA-1 {info.sha1 or 'none: LDC-licensed corpus, restore it yourself'}; {reason}). "
        f"Looked in {where}. Options: pass -T data_dir=DIR or set {ENV_DATA_DIR}=DIR to a directory laid out "
        f"like the repository's data/ folder (so the file is DIR/{info.path}); or, with neither set (nor "
        f"{ENV_OFFLINE}) and a network, it is downloaded from {PINNED_REPOSITORY}@{PINNED_COMMIT[:10]} into "
        f"{cache_dir()}."
    )


def default_fetch(url: str, timeout: float = 60.0) -> bytes:
    """Fetch ``url`` and return its body (the transport :func:`download_file` uses unless told otherwise)."""
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (fixed https URL)
        return response.read()


def download_file(
    info: DataFile, dest_root: Path, fetch: Callable[[str], bytes] | None = None
) -> Path:
    """Download ``info`` from the pinned commit into ``dest_root/info.path`` atomically, checking its SHA-1.

    The bytes go to a temporary file in the destination directory, are checked against ``info.sha1``, and
    only then renamed into place, so an interrupted or corrupt download never leaves a partial file.

    Args:
        info: registry entry of the file.
        dest_root: cache root; the file lands at ``dest_root / info.path``.
        fetch: ``url -> bytes`` transport (default :func:`default_fetch`); tests pass a fake or a loopback URL.

    Raises:
        DataFileMissingError: the file has no pinned SHA-1 (LDC), the fetch failed, or the bytes do not match.
    """
    if info.sha1 is None:
        raise DataFileMissingError(_missing_message(info, str(dest_root), "not distributed by the authors"))
    url = DOWNLOAD_URL_TEMPLATE.format(repository=PINNED_REPOSITORY, commit=PINNED_COMMIT, path=info.path)
    try:
        data = (fetch or default_fetch)(url)
    except Exception as ex:  # any transport failure becomes the one clear error
        raise DataFileMissingError(
            _missing_message(info, str(dest_root), f"download from {url} failed: {ex}")
        ) from ex
    actual = git_blob_sha1(data)
    if actual != info.sha1:
        raise DataFileMissingError(
            _missing_message(info, str(dest_root), f"downloaded bytes have SHA-1 {actual}, expected {info.sha1}")
        )
    target = dest_root / info.path
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".download-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def resolve_data_file(
    path: str, data_dir: str | os.PathLike[str] | None = None, fetch: Callable[[str], bytes] | None = None
) -> ResolvedFile:
    """Find ``path`` (a key of :data:`REGISTRY`) under the data root, downloading it into the cache if needed.

    Args:
        path: file under the data root, e.g. ``"so/nips-abs/test_id.jsonl"``.
        data_dir: explicit data root (task parameter); overrides ``BEDISCOVER_DATA_DIR``.
        fetch: transport for the cache download (tests); ignored when a data root is given.

    Returns:
        A :class:`ResolvedFile`; a SHA-1 mismatch is reported there and as a warning, not raised.

    Raises:
        KeyError: unknown path.
        DataFileMissingError: not under the explicit data root, or not downloadable (offline,
            ``BEDISCOVER_OFFLINE=1``, LDC corpus).
    """
    info = data_file_info(path)
    if data_dir is not None or os.environ.get(ENV_DATA_DIR):
        source = "data_dir" if data_dir is not None else "env"
        root = Path(data_dir if data_dir is not None else os.environ[ENV_DATA_DIR]).expanduser()
        local = root / path
        if not local.is_file():
            label = "-T data_dir" if source == "data_dir" else ENV_DATA_DIR
            raise DataFileMissingError(_missing_message(info, f"{root} ({label})", "not under the data root"))
    else:
        source = "cache"
        root = cache_dir()
        local = root / path
        if not local.is_file():
            if os.environ.get(ENV_OFFLINE, "") not in ("", "0"):
                raise DataFileMissingError(
                    _missing_message(info, f"{root} (cache)", f"{ENV_OFFLINE} is set, no download tried")
                )
            local = download_file(info, root, fetch)
    actual = _file_sha1(str(local), local.stat().st_mtime_ns, local.stat().st_size)
    verified = None if info.sha1 is None else actual == info.sha1
    if verified is False:
        warnings.warn(
            f"{local}: git blob SHA-1 {actual} differs from the pinned {info.sha1} "
            f"({PINNED_REPOSITORY}@{PINNED_COMMIT[:10]}); scores may not be comparable with the paper",
            stacklevel=2,
        )
    return ResolvedFile(path, str(local), source, info.sha1, actual, verified)


@lru_cache(maxsize=128)
def _file_sha1(local: str, mtime_ns: int, size: int) -> str:
    return git_blob_sha1(Path(local).read_bytes())


def _read_records(local: str, limit: int | None = None) -> tuple[dict[str, Any], ...]:
    """Parse a ``.json`` list or ``.jsonl`` file into records; with ``limit``, only its first ``limit`` records.

    The prefix of a JSON list is streamed with ijson (the yajl2 C backend), so a paper subset of a large file
    (e.g. 242 of a DISRPT corpus's 2,586 relations) never materialises the rest. Not memoised: a process-wide
    cache kept every parsed file alive for the whole eval (38 MB for the DISRPT paper subset, issue 8), to save
    a rebuild of at most 0.6 s.
    """
    try:
        return _parse_records(local, limit)
    except UnicodeDecodeError as ex:
        raise DataFormatError(f"{local}: not UTF-8 text (byte {ex.object[ex.start:ex.end]!r} at offset {ex.start})") from ex


def _parse_records(local: str, limit: int | None) -> tuple[dict[str, Any], ...]:
    records: list[Any] = []
    if local.endswith(".jsonl"):
        with open(local, encoding="utf-8") as handle:
            for line_no, line in enumerate(handle, start=1):
                if limit is not None and len(records) >= limit:
                    break
                if not line.strip():
                    continue
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as ex:
                    raise DataFormatError(f"{local}, line {line_no}: not valid JSON ({ex.msg})") from ex
    elif limit is not None:
        import ijson

        try:
            with open(local, "rb") as handle:
                for record in ijson.items(handle, "item", use_float=True):
                    if len(records) >= limit:
                        break
                    records.append(record)
        except ijson.JSONError as ex:
            raise DataFormatError(f"{local}: not valid JSON ({ex})") from ex
    else:
        try:
            loaded = json.loads(Path(local).read_text(encoding="utf-8"))
        except json.JSONDecodeError as ex:
            raise DataFormatError(f"{local}: not valid JSON ({ex.msg} at line {ex.lineno})") from ex
        if not isinstance(loaded, list):
            raise DataFormatError(f"{local}: expected a JSON list of records, got {type(loaded).__name__}")
        records = loaded
    if not records and limit != 0:
        raise DataFormatError(f"{local}: the file holds no records")
    first_index: dict[Any, int] = {}
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise DataFormatError(f"{local}, record {index}: expected an object, got {type(record).__name__}")
        record_id = record.get("id")
        if isinstance(record_id, (int, str)) and not isinstance(record_id, bool):
            if record_id in first_index:
                raise DataFormatError(
                    f"{local}, record {index}: field 'id' repeats {record_id!r} of record {first_index[record_id]}"
                )
            first_index[record_id] = index
    return tuple(records)


def subset_size(n_records: int, fraction: float) -> int:
    """Number of records in the paper subset: ``int(fraction * n_records)`` (authors' ``load_data.py``)."""
    return int(fraction * n_records)


def check_subset(subset: str) -> None:
    """Raise ``ValueError`` naming the valid choices unless ``subset`` is ``"paper"`` or ``"full"``."""
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {list(SUBSETS)}, got {subset!r}")


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
    if value is None:
        names = ["all"]
    else:
        items = value.split(",") if isinstance(value, str) else list(value)
        names = [str(item).strip() for item in items if str(item).strip()]
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
        records = _read_records(resolved.local_path, limit)
        if len(records) != n:
            raise DataFormatError(f"{resolved.local_path}: {len(records)} records, the pinned file has {info.records}")
        return LoadedRecords(info, resolved, list(records), info.records)
    records = _read_records(resolved.local_path)
    n = len(records) if subset == "full" else subset_size(len(records), info.paper_fraction)
    if info.records is not None and len(records) != info.records and resolved.verified is not False:
        logger.warning("%s: %d records, the pinned file has %d", resolved.local_path, len(records), info.records)
    return LoadedRecords(info, resolved, list(records[:n]), len(records))


def require_field(record: dict[str, Any], field: str, file: str, index: int, kind: type | tuple[type, ...]) -> Any:
    """Return ``record[field]`` if present and of type ``kind`` (a JSON ``true`` is not an ``int`` here).

    Raises:
        DataFormatError: naming the file, the record (index and ``id``) and the field.
    """
    if field not in record:
        raise DataFormatError(f"{file}, record {index} (id={record.get('id')!r}): missing field {field!r}")
    value = record[field]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in kinds):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise DataFormatError(
            f"{file}, record {index} (id={record.get('id')!r}): field {field!r} should be {names}, "
            f"got {type(value).__name__}"
        )
    return value
