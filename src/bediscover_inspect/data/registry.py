"""The benchmark's files: the authors' release pinned to one commit, each file's git blob SHA-1, record count and
paper-subset fraction.

Every task reads the authors' processed files (``chuyuanli/BeDiscovER`` at :data:`PINNED_COMMIT`), laid out like
the repository's ``data/`` folder (``<task>/<dataset>/test_id.json``, ``.jsonl`` for sentence ordering). The SHA-1s,
record counts and mirror status come from the data manifest of the pinned commit; the paper-subset fractions from
the authors' ``load_data.py`` (``DISRPT_FRAC_MAP`` for DISRPT).
"""

from __future__ import annotations

from dataclasses import dataclass

PINNED_REPOSITORY = "chuyuanli/BeDiscovER"
"""The authors' public data repository (paper, Table 1 and footnotes)."""

PINNED_COMMIT = "f99bd2a3585ddf28ea880568747fbb3281de6e77"
"""The commit every file below is pinned to (the data manifest)."""


TASK_FOLDERS: dict[str, str] = {
    "dm": "discourse_markers",
    "tr": "temporal_reasoning",
    "dr": "discourse_relations",
    "so": "sentence_ordering",
    "ddp": "dialogue_parsing",
}
"""Data-root folder of each task -> the task's name (``bediscover_inspect.tasks.TASK_NAMES``)."""


@dataclass(frozen=True)
class DataFile:
    """One pinned file of the authors' release.

    Attributes:
        path: path under the data root, e.g. ``"so/nips-abs/test_id.jsonl"``.
        sha1: git blob SHA-1 at :data:`PINNED_COMMIT` (``None`` for the LDC-licensed DISRPT corpora, which
            the authors do not distribute: a user-restored file cannot be checked).
        records: number of records in the full file (``None`` when unknown here).
        paper_fraction: the paper subset is the first ``int(paper_fraction * records)`` records in file order
            (``load_data.py`` of the authors; fractions from the data manifest and, for DISRPT,
            ``the authors' ``DISRPT_FRAC_MAP````).
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
    "ces.rst.crdt": 1.0,
    "deu.pdtb.pcc": 1.0,
    "deu.rst.pcc": 1.0,
    "eng.dep.covdtb": 0.1,
    "eng.dep.scidtb": 0.1,
    "eng.erst.gentle": 0.1,
    "eng.erst.gum": 0.07,
    "eng.pdtb.gentle": 0.3,
    "eng.pdtb.gum": 0.15,
    "eng.pdtb.pdtb": 0.05,
    "eng.pdtb.tedm": 0.7,
    "eng.rst.oll": 1.0,
    "eng.rst.rstdt": 0.1,
    "eng.rst.sts": 0.8,
    "eng.rst.umuc": 0.5,
    "eng.sdrt.msdc": 0.04,
    "eng.sdrt.stac": 0.2,
    "eus.rst.ert": 0.5,
    "fas.rst.prstc": 0.4,
    "fra.sdrt.annodis": 0.4,
    "ita.pdtb.luna": 0.6,
    "nld.rst.nldt": 0.6,
    "pcm.pdtb.disconaija": 0.2,
    "pol.iso.pdc": 0.3,
    "por.pdtb.crpc": 0.2,
    "por.pdtb.tedm": 0.7,
    "por.rst.cstn": 1.0,
    "rus.rst.rrt": 0.1,
    "spa.rst.rststb": 0.5,
    "spa.rst.sctb": 1.0,
    "tha.pdtb.tdtb": 0.2,
    "tur.pdtb.tdb": 0.5,
    "tur.pdtb.tedm": 0.7,
    "zho.dep.scidtb": 1.0,
    "zho.pdtb.cdtb": 0.3,
    "zho.pdtb.ted": 0.2,
    "zho.rst.gcdt": 0.2,
    "zho.rst.sctb": 1.0,
}

# DISRPT 2025 final test sizes of the four LDC corpora (DISRPT 2025 ``counts.tsv``); not distributed.
_LDC_CORPORA = {"eng.pdtb.pdtb": 4295, "eng.rst.rstdt": 2155, "tur.pdtb.tdb": 421, "zho.pdtb.cdtb": 758}

# (path, git blob SHA-1, mirror status, records) as in the data manifest; the record counts of the two
# DISRPT corpora missing from the mirror are the final test sizes of DISRPT 2025 ``counts.tsv``.
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
        path: DataFile(path, sha1, records, _paper_fraction(path), status) for path, sha1, status, records in _MANIFEST
    }
    for corpus, records in _LDC_CORPORA.items():
        path = f"dr/disrpt25/{corpus}/test_id.json"
        registry[path] = DataFile(path, None, records, DISRPT_PAPER_FRACTIONS[corpus], "licensed")
    return registry


REGISTRY: dict[str, DataFile] = _build_registry()
"""Every file of the benchmark, keyed by its path under the data root (49 pinned + 4 LDC DISRPT corpora)."""


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
