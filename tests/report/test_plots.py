"""Plots: readable axes for one point or zero tokens, titles that fit, the paper's point at its tok."""

from __future__ import annotations

import math

import matplotlib
import pandas as pd
import pytest

from bediscover_inspect.report.plots import axis_limits, draw_panel, panel_points, plot_reasoning_effort

matplotlib.use("Agg")

LONG_VARIANT = "context=none,dataset=just-manual,prompt=def+exp,subset=paper,an_extension_parameter=some-long-value"


def _cell(
    measure: str,
    mean: float,
    model: str = "mockllm/model",
    reasoning: str = "off",
    paper: float = math.nan,
    std: float = 0.0,
) -> dict:
    return {
        "task": "discourse_markers",
        "model": model,
        "reasoning": reasoning,
        "variant": LONG_VARIANT,
        "measure": measure,
        "group_key": "dataset",
        "group": "just-manual",
        "mean": mean,
        "std": std,
        "paper_mean": paper,
        "paper_std": math.nan,
        "paper_model": "Qwen3-8B" if not math.isnan(paper) else "",
        "reasoning_effort": "",
    }


def _inside(fig, artist) -> bool:
    renderer = fig.canvas.get_renderer()
    box, frame = artist.get_window_extent(renderer), fig.bbox
    return (
        frame.x0 - 0.5 <= box.x0 and box.x1 <= frame.x1 + 0.5 and frame.y0 - 0.5 <= box.y0 and box.y1 <= frame.y1 + 0.5
    )


def test_one_point_at_zero_tokens_gets_sane_axes_and_a_title_that_fits():
    frame = pd.DataFrame([_cell("accuracy", 0.0), _cell("output_tokens", 0.0)])
    fig = draw_panel("discourse_markers", "just-manual", LONG_VARIANT, frame)
    ax = fig.axes[0]
    assert ax.get_xlim() == pytest.approx((0.0, 10.0))
    low, high = ax.get_ylim()
    assert low == pytest.approx(0.0) and high == pytest.approx(10.0)
    fig.canvas.draw()
    assert "\n" in ax.get_title() and _inside(fig, ax.title)
    assert ax.get_xlabel() == "mean output tokens per sample (answer + reasoning; the paper's tok.)"


def test_axes_hold_our_points_and_the_papers_within_0_to_100_percent():
    frame = pd.DataFrame(
        [
            _cell("accuracy", 98.0, std=3.0),
            _cell("output_tokens", 3.0, paper=3.0),
            _cell("accuracy", 40.0, reasoning="on", paper=59.1),
            _cell("output_tokens", 500.0, reasoning="on", paper=1624.0),
        ]
    )
    # the paper's score sits in the accuracy cell, its tok. in the output_tokens cell of the same model and mode
    frame.loc[0, "paper_mean"] = 44.7
    points = panel_points(frame)
    assert [(p["x"], p["y"], p["paper"]) for p in points] == [
        (3.0, 98.0, False),
        (3.0, 44.7, True),
        (500.0, 40.0, False),
        (1624.0, 59.1, True),
    ]
    fig = draw_panel("discourse_markers", "just-manual", "", frame)
    x_low, x_high = fig.axes[0].get_xlim()
    y_low, y_high = fig.axes[0].get_ylim()
    assert x_low == 0.0 and 1624.0 < x_high < 1800.0
    assert 0.0 <= y_low < 40.0 and y_high == 100.0


def test_axis_limits():
    assert axis_limits([0.0], 0.0, 10.0) == (0.0, 10.0)
    assert axis_limits([50.0], 0.0, 10.0, 100.0) == (45.0, 55.0)
    assert axis_limits([99.0, 100.0], 0.0, 10.0, 100.0) == (90.0, 100.0)
    assert axis_limits([], 0.0, 10.0) == (0.0, 10.0)


def test_a_panel_without_a_token_measure_is_not_drawn(tmp_path):
    frame = pd.DataFrame([_cell("accuracy", 30.0), _cell("reasoning_tokens", 0.0)])
    assert draw_panel("discourse_markers", "just-manual", "", frame) is None
    assert plot_reasoning_effort(frame, tmp_path) == []
    frame = pd.concat([frame, pd.DataFrame([_cell("output_tokens", 2.0)])], ignore_index=True)
    [path] = plot_reasoning_effort(frame, tmp_path)
    assert path.read_bytes()[:4] == b"\x89PNG"
