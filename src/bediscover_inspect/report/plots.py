"""Score against mean reasoning tokens per model and mode, one PNG per dataset (like the paper's Appendix D)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from bediscover_inspect.report.tables import HEADLINE_MEASURES, iter_groups


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]+", "-", text).strip("-") or "default"


def headline_measure(measures: set[str]) -> str | None:
    """The measure a panel plots: the first of :data:`HEADLINE_MEASURES` present (``*_by_*`` names included)."""
    for wanted in HEADLINE_MEASURES:
        for measure in sorted(measures):
            if measure == wanted or measure.startswith(f"{wanted}_by_"):
                return measure
    return None


def plot_reasoning_effort(cells: pd.DataFrame, out_dir: str | Path) -> list[Path]:
    """Draw one scatter plot per (task, group, setting): x = mean reasoning tokens per sample, y = score.

    Each point is one model in one reasoning mode (circle: off, triangle: on), with its std over seeds as
    error bars; the paper's number for the same model and mode, when known, is drawn hollow in grey at the
    paper's token count (``tok``) so the two can be compared.

    Args:
        cells: :func:`bediscover_inspect.report.tables.with_paper` output.
        out_dir: created if needed.

    Returns:
        The PNG paths written (a panel without a reasoning-token measure or a score is skipped).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bediscover_inspect.report.tables import canonical_measure, match_paper
    from bediscover_inspect.report.paper import load_paper_results

    paper = load_paper_results()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for (task, group_key, group, variant), frame in iter_groups(cells):
        measure = headline_measure(set(frame.measure))
        tokens = frame[frame.measure == "reasoning_tokens"]
        scores = frame[frame.measure == measure] if measure else frame.iloc[0:0]
        if scores.empty:
            continue
        fig, ax = plt.subplots(figsize=(5.5, 4))
        for row in scores.itertuples(index=False):
            tok = tokens[(tokens.model == row.model) & (tokens.reasoning == row.reasoning)]
            x = float(tok["mean"].iloc[0]) if not tok.empty else 0.0
            marker = "^" if row.reasoning == "on" else "o"
            yerr = None if math.isnan(row.std) else row.std
            label = f"{row.model.rsplit('/', 1)[-1]} ({row.reasoning})"
            ax.errorbar([x], [row.mean], yerr=yerr, fmt=marker, capsize=3, label=label)
            if not math.isnan(row.paper_mean):
                tok_paper = match_paper(paper, task, group_key, group, variant, row.model, row.reasoning,
                                        row.reasoning_effort, "reasoning_tokens")
                if tok_paper is not None:
                    ax.scatter([tok_paper["mean"]], [row.paper_mean], marker=marker, facecolors="none",
                               edgecolors="grey", label=f"paper {row.paper_model} ({row.reasoning})")
        ax.set_xlabel("mean reasoning tokens per sample")
        ax.set_ylabel(f"{canonical_measure(measure)} (%)")
        title = f"{task}: {group}" + (f" [{variant}]" if variant else "")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        name = f"{task}__{_slug(group)}" + (f"__{_slug(variant)}" if variant else "") + ".png"
        path = out / name
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written
