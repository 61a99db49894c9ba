"""The paper's reported numbers (Tables 2-6 and Appendix C Tables 13-41), shipped as package data.

``paper_results.csv`` was produced once by ``scripts/transcribe_paper.py`` from the paper text and
checked by hand; it is the fact file the report compares our runs with, so no network is needed.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import pandas as pd

from bediscover_inspect.presets import family_preset

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

TABLE7_ROWS: dict[str, tuple[str, tuple[str, ...]]] = {
    **{model: ("qwen3", ("off", "on")) for model in QWEN3_MODELS},
    "DS-r1-distill-Qwen": ("deepseek-r1-distill", ("on",)),
    "DeepSeek-r1-0528": ("deepseek-r1", ("on",)),
    "GPT-5-mini (low)": ("gpt-5-mini-low", ("off", "on")),
    "GPT-5-mini (high)": ("gpt-5-mini-high", ("off", "on")),
}
"""The paper models of Table 7 (generation settings): ``paper model -> (preset family, reasoning modes)``. The
settings themselves are the families' presets (:func:`bediscover_inspect.presets.family_preset`); the
DeepSeek-R1 rows exist only "w/ reasoning", and the GPT-5-mini rows (the paper's "w/ reasoning" columns) apply in
either of our modes."""


def table7_setting(paper_model: str, reasoning: str, task: str) -> dict[str, object] | None:
    """Table 7's generation setting of ``paper_model`` in ``reasoning`` (``off``/``on``) for ``task``, or ``None``.

    Returns:
        ``{"max_tokens": (low, high), "temperature", "top_p", "verbosity"}``, ``None`` for Table 7's "-" (not set:
        the provider's default). Table 7 prints a range ("4096-16384", "8192-32768") for DeepSeek-r1-0528 and
        GPT-5-mini (high), and its caption says the higher values are for dialogue parsing: for the tasks of
        :data:`~bediscover_inspect.presets.WIDE_BUDGET_TASKS` any value in the range is the paper's, for the
        others only the low end (``low == high``). ``None`` when Table 7 has no such row or mode.
    """
    row = TABLE7_ROWS.get(paper_model)
    if row is None or reasoning not in row[1]:
        return None
    family, _modes = row
    sent = family_preset(family, reasoning == "on", task)
    narrow = family_preset(family, reasoning == "on", "")  # "": a task outside WIDE_BUDGET_TASKS
    return {
        "max_tokens": (narrow["max_tokens"], sent["max_tokens"]),
        **{name: sent.get(name) for name in ("temperature", "top_p", "verbosity")},
    }
