"""The paper's reported numbers (Tables 2-6 and Appendix C Tables 13-41), shipped as package data.

``paper_results.csv`` was produced once by ``scripts/transcribe_paper.py`` from the paper text and
checked by hand; it is the fact file the report compares our runs with, so no network is needed.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import cast

import pandas as pd

PAPER_RESULTS_FILE = "paper_results.csv"

PAPER_COLUMNS: tuple[str, ...] = (
    "table",
    "task",
    "dataset",
    "variant",
    "model",
    "size",
    "section",
    "reasoning",
    "metric",
    "mean",
    "std",
    "note",
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


QWEN3_MODELS: tuple[str, ...] = ("Qwen3-0.6B", "Qwen3-1.7B", "Qwen3-4B", "Qwen3-8B", "Qwen3-14B", "Qwen3-32B")

TABLE7_GENERATION: dict[str, dict[str, dict[str, object]]] = {
    **{
        model: {
            "off": {"max_tokens": (2048, 2048), "temperature": 0.7, "top_p": 0.8, "verbosity": None},
            "on": {"max_tokens": (4096, 4096), "temperature": 0.6, "top_p": 0.95, "verbosity": None},
        }
        for model in QWEN3_MODELS
    },
    "DS-r1-distill-Qwen": {"on": {"max_tokens": (4096, 4096), "temperature": None, "top_p": None, "verbosity": None}},
    "DeepSeek-r1-0528": {"on": {"max_tokens": (4096, 16384), "temperature": None, "top_p": None, "verbosity": None}},
    "GPT-5-mini (low)": {"on": {"max_tokens": (4096, 4096), "temperature": None, "top_p": None, "verbosity": "low"}},
    "GPT-5-mini (high)": {"on": {"max_tokens": (8192, 32768), "temperature": None, "top_p": None, "verbosity": "low"}},
}
"""The paper's Table 7 (generation settings) as ``paper model -> reasoning mode -> setting``.

``max_tokens`` is ``(low, high)``: Table 7 prints a range ("4096-16384", "8192-32768") for DeepSeek-r1-0528 and
GPT-5-mini (high), and its caption says the higher values are for dialogue parsing, so the low end applies to the
other tasks and any value in the range to dialogue parsing. ``None`` is Table 7's "-" (not set: the provider's
default). The GPT-5-mini rows are the paper's "w/ reasoning" columns and apply in either of our modes."""

TABLE7_WIDE_TASKS: frozenset[str] = frozenset({"dialogue_parsing"})
"""Tasks for which Table 7's caption allows the higher ``max_tokens`` of a range."""


def table7_setting(paper_model: str, reasoning: str, task: str) -> dict[str, object] | None:
    """Table 7's generation setting of ``paper_model`` in ``reasoning`` (``off``/``on``) for ``task``, or ``None``.

    Returns:
        ``{"max_tokens": (low, high), "temperature", "top_p", "verbosity"}`` with ``max_tokens`` narrowed to the
        low end except for :data:`TABLE7_WIDE_TASKS`; ``None`` when Table 7 has no such row or mode.
    """
    rows = TABLE7_GENERATION.get(paper_model)
    if rows is None:
        return None
    setting = rows.get(reasoning) or (rows.get("on") if paper_model.startswith("GPT-5-mini") else None)
    if setting is None:
        return None
    low, high = cast(tuple[int, int], setting["max_tokens"])
    return setting | {"max_tokens": (low, high if task in TABLE7_WIDE_TASKS else low)}
