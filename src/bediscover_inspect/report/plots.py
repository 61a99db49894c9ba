"""Score against mean output tokens per model and mode, one PNG per dataset (like the paper's Appendix D).

The x axis is the tokens generated per sample, answer and reasoning together (``output_tokens``; per turn in
dialogue parsing), the quantity the paper's "tok." column counts, so the paper's points sit on the same axis.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from bediscover_inspect.measures import plot_measures
from bediscover_inspect.report.matching import canonical_measure

HEADLINE_MEASURES: tuple[str, ...] = plot_measures()
"""Preferred y-axis measure of a plot, first present wins: each scorer's log headline
(:func:`bediscover_inspect.measures.plot_measures`)."""

TOKEN_AXIS_MEASURES: tuple[str, ...] = ("output_tokens", "output_tokens_per_turn")
"""The x-axis measure of a plot, first present wins (both are the paper's "tok.")."""

MIN_TOKEN_SPAN = 10.0
"""Smallest x range drawn (tokens): with one point, or every point at 0 tokens, the axis still runs 0…10."""

MIN_SCORE_SPAN = 10.0
"""Smallest y range drawn (percentage points), centred on the points and kept within 0…100."""

TITLE_WIDTH = 60
"""Characters per title line: longer titles (long settings) wrap instead of running off the figure."""


def iter_groups(cells: pd.DataFrame) -> Iterable[tuple[tuple[str, str, str, str], pd.DataFrame]]:
    """``((task, group_key, group, variant), cells)`` for every plotted panel (the ``all`` group excluded)."""
    panel = cells[cells.group != "all"]
    yield from panel.groupby(["task", "group_key", "group", "variant"], sort=True)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]+", "-", text).strip("-") or "default"


def headline_measure(measures: set[str]) -> str | None:
    """The measure a panel plots: the first of :data:`HEADLINE_MEASURES` present."""
    return next((wanted for wanted in HEADLINE_MEASURES if wanted in measures), None)


def token_measure(measures: set[str]) -> str | None:
    """The x-axis measure of a panel: the first of :data:`TOKEN_AXIS_MEASURES` present."""
    return next((wanted for wanted in TOKEN_AXIS_MEASURES if wanted in measures), None)


def axis_limits(
    values: Iterable[float], minimum: float, span: float, maximum: float | None = None, margin: float = 0.08
) -> tuple[float, float]:
    """Axis limits that hold ``values`` with a margin, never below ``minimum`` (nor above ``maximum``), at least
    ``span`` wide: one point or all-equal points give a readable range, not Matplotlib's ±0.04 around it."""
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return minimum, minimum + span
    low, high = min(finite), max(finite)
    pad = max((high - low) * margin, (span - (high - low)) / 2)
    low, high = low - pad, high + pad
    if low < minimum:
        low, high = minimum, max(high, minimum + span)
    if maximum is not None and high > maximum:
        low, high = max(minimum, min(low, maximum - span)), maximum
    return low, high


def panel_points(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The points of one panel: ours (``paper=False``) and the paper's (``paper=True``) per model and mode.

    Each point: ``model``, ``reasoning``, ``x`` (mean output tokens per sample), ``y`` (score, %), ``yerr`` (std
    over seeds or ``None``), ``paper``. A model without a token measure, or whose provider reported no tokens, is
    left out (no x to draw it at); the
    paper's point needs both its score and its "tok." (the paper numbers of the same cells).
    """
    measure = headline_measure(set(frame.measure))
    x_measure = token_measure(set(frame.measure))
    if measure is None or x_measure is None:
        return []
    tokens: dict[tuple[str, str], tuple[float, float]] = {}  # (model, reasoning) -> (ours, the paper's)
    on_x = frame[frame.measure == x_measure]
    for model, reasoning, mean, paper_mean in zip(on_x.model, on_x.reasoning, on_x["mean"], on_x.paper_mean):
        tokens.setdefault((model, reasoning), (mean, paper_mean))
    points: list[dict[str, Any]] = []
    for row in frame[frame.measure == measure].itertuples(index=False):
        tok = tokens.get((row.model, row.reasoning))
        if tok is None or math.isnan(tok[0]):  # no tokens reported by the provider: no x
            continue
        points.append(
            {
                "model": row.model,
                "reasoning": row.reasoning,
                "x": float(tok[0]),
                "y": float(row.mean),
                "yerr": None if math.isnan(row.std) else float(row.std),
                "paper": False,
                "label": f"{row.model.rsplit('/', 1)[-1]} ({row.reasoning})",
            }
        )
        paper_tok = float(tok[1])
        if not math.isnan(row.paper_mean) and not math.isnan(paper_tok):
            points.append(
                {
                    "model": row.model,
                    "reasoning": row.reasoning,
                    "x": paper_tok,
                    "y": float(row.paper_mean),
                    "yerr": None,
                    "paper": True,
                    "label": f"paper {row.paper_model} ({row.reasoning})",
                }
            )
    return points


def draw_panel(task: str, group: str, variant: str, frame: pd.DataFrame) -> Any:
    """The Matplotlib figure of one panel, or ``None`` when it has no point (:func:`panel_points`).

    Circles are the "w/o reasoning" mode, triangles "w/ reasoning"; the paper's points are hollow and grey. The
    axes start at 0 tokens and stay within 0–100 %, at least :data:`MIN_TOKEN_SPAN` / :data:`MIN_SCORE_SPAN`
    wide; the title wraps at :data:`TITLE_WIDTH` characters.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = panel_points(frame)
    if not points:
        return None
    measure = headline_measure(set(frame.measure))
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for point in points:
        marker = "^" if point["reasoning"] == "on" else "o"
        if point["paper"]:
            ax.scatter(
                [point["x"]],
                [point["y"]],
                marker=marker,
                facecolors="none",
                edgecolors="grey",
                label=point["label"],
                clip_on=False,
                zorder=3,
            )
        else:  # clip_on=False: a point on an axis (0 tokens, 0 %) is drawn whole
            ax.errorbar(
                [point["x"]],
                [point["y"]],
                yerr=point["yerr"],
                fmt=marker,
                capsize=3,
                label=point["label"],
                clip_on=False,
                zorder=3,
            )
    ax.set_xlim(*axis_limits([p["x"] for p in points], 0.0, MIN_TOKEN_SPAN))
    ys = [p["y"] + s * (p["yerr"] or 0.0) for p in points for s in (-1, 1)]
    ax.set_ylim(*axis_limits(ys, 0.0, MIN_SCORE_SPAN, 100.0))
    unit = "turn" if task == "dialogue_parsing" else "sample"
    ax.set_xlabel(f"mean output tokens per {unit} (answer + reasoning; the paper's tok.)")
    ax.set_ylabel(f"{canonical_measure(measure or '')} (%)")
    title = f"{task}: {group}" + (f" [{variant}]" if variant else "")
    ax.set_title("\n".join(textwrap.wrap(title, TITLE_WIDTH)), fontsize=9)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.set_layout_engine(None)  # laid out: without an engine, savefig draws the figure once instead of twice
    return fig


def plot_reasoning_effort(cells: pd.DataFrame, out_dir: str | Path) -> list[Path]:
    """Draw one scatter plot per (task, group, setting): x = mean output tokens per sample, y = score.

    Each point is one model in one reasoning mode (circle: off, triangle: on), with its std over seeds as
    error bars; the paper's number for the same model and mode, when known, is drawn hollow in grey at the
    paper's "tok." so the two can be compared (:func:`draw_panel`).

    Args:
        cells: :func:`bediscover_inspect.report.matching.with_paper` output.
        out_dir: created if needed.

    Returns:
        The PNG paths written (a panel without a token measure or a score is skipped).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for (task, _group_key, group, variant), frame in iter_groups(cells):
        fig = draw_panel(task, group, variant, frame)
        if fig is None:
            continue
        name = f"{task}__{_slug(group)}" + (f"__{_slug(variant)}" if variant else "") + ".png"
        path = out / name
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written
