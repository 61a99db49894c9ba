"""The paper's reported numbers (Tables 2-6 and Appendix C Tables 13-41), shipped as package data.

``paper_results.csv`` was produced once by ``scripts/transcribe_paper.py`` from the paper text and
checked by hand; it is the fact file the report compares our runs with, so no network is needed.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import pandas as pd

PAPER_RESULTS_FILE = "paper_results.csv"

PAPER_COLUMNS: tuple[str, ...] = (
    "table", "task", "dataset", "variant", "model", "size", "section", "reasoning", "metric", "mean", "std", "note",
)


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    with resources.files("bediscover_inspect.report").joinpath(PAPER_RESULTS_FILE).open("r", encoding="utf-8") as fh:
        df = pd.read_csv(fh, dtype=str, keep_default_na=False)
    if tuple(df.columns) != PAPER_COLUMNS:
        raise ValueError(f"{PAPER_RESULTS_FILE}: unexpected columns {list(df.columns)}")
    df["table"] = df["table"].astype(int)
    df["mean"] = df["mean"].astype(float)
    df["std"] = pd.to_numeric(df["std"].replace("", None), errors="raise").astype(float)
    return df


def load_paper_results() -> pd.DataFrame:
    """All result cells the paper reports, one row per cell (long format).

    Columns:
        ``table`` (int, the paper's table number), ``task`` (our task name, e.g. ``discourse_markers``),
        ``dataset`` (``just-manual``, ``tbd``, ``tdd-man``, ``tot-arithmetic``, ``disrpt25``,
        ``aan-abstract`` … ``wiki-movies`` as in the data repository, ``stac``/``molweni``/``msdc``),
        ``variant`` (prompt style ``basic``/``def``/``def+exp``; ``with-context``/``without-context``;
        ``single-turn``/``auto-regressive``; or a sub-group ``framework:DEP``, ``language:ces``,
        ``corpus:eng.rst.gum``, ``category:tz``; empty when the table has no setting),
        ``model`` and ``size`` (as printed), ``section`` (the table's row block: ``BeDiscovER`` for the
        benchmark's own runs, else the baseline family such as ``Supervised``), ``reasoning``
        (``off``/``on`` for BeDiscovER rows, empty for baselines; main-text tables report ``on``),
        ``metric`` (``accuracy``, ``micro_f1``, ``weighted_precision``/``_recall``/``_f1``, ``acc``,
        ``lumr``, ``pmr``, ``skip``, ``lcs``, ``link_f1``, ``full_f1``, or ``tok`` = mean reasoning
        tokens per sample), ``mean`` (float, percent except ``tok``), ``std`` (float over the three
        seeds, NaN when the paper prints none), ``note`` (``surprisal`` / ``approx-from-figure``).

    Returns:
        A new :class:`pandas.DataFrame` (a copy; callers may modify it).

    Raises:
        ValueError: the packaged CSV does not have the expected columns.
    """
    return _load().copy()
