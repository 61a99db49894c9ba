"""Output of ``bediscover compare``: terminal table, pull-request markdown, JSON with every number, the plot of
per-cell deltas, and the command line itself (:mod:`.compare` computes the :class:`~.compare.Comparison`)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from .compare import (
    EXIT_INCOMPLETE,
    EXIT_REGRESSED,
    EXIT_UNTESTED,
    FORMATS,
    IMPROVED,
    MEASURE_SETS,
    NO_CHANGE,
    REGRESSED,
    SMALL_DROP,
    TOO_FEW,
    VERDICT_ORDER,
    Cell,
    Comparison,
    compare,
)
from .coverage import SAMPLE_PROBLEMS, SIDES
from .pairing import seed_text

# --------------------------------------------------------------------------------------- rendering


def _number(value: float, digits: int = 1) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _p(value: float) -> str:
    if value is None or math.isnan(value):
        return "–"
    return "<0.0001" if value < 1e-4 else f"{value:.4f}"


def _cell_row(cell: Cell) -> list[str]:
    group = (
        "all"
        if cell.group_key == "all"
        else (cell.group if cell.group_key == "dataset" else f"{cell.group_key}={cell.group}")
    )
    discordant = f" ({cell.worse}↓/{cell.better}↑)" if cell.worse is not None else ""
    interval = "–" if math.isnan(cell.low) else f"[{round(cell.low, 1) + 0.0:+.1f}, {round(cell.high, 1) + 0.0:+.1f}]"
    return [
        cell.run,
        cell.shown_measure + ("" if cell.higher_is_better else " (lower better)"),
        group,
        str(cell.pairs),
        _number(100 * cell.baseline),
        _number(100 * cell.candidate),
        "–" if math.isnan(cell.delta) else f"{round(cell.delta, 1) + 0.0:+.1f}",
        interval,
        cell.test + discordant,
        _p(cell.p_value),
        _p(cell.p_holm),
        cell.verdict,
    ]


HEADER = ["run", "measure", "group", "n", "baseline", "candidate", "Δ pts", "CI", "test", "p", "p Holm", "verdict"]


def verdict_line(result: Comparison) -> str:
    """The gate's verdict in one line, as the exit code gives it (:meth:`~.compare.Comparison.exit_code`)."""
    code = result.exit_code()
    if code == EXIT_INCOMPLETE:
        return f"Incomplete: no verdict ({_count(len(result.incomplete), 'thing')} missing, listed below; exit 3)."
    if code == EXIT_REGRESSED and result.regressed:
        names = ", ".join(c.name + cause_words(c) for c in result.regressed)
        return f"{_count(len(result.regressed), 'cell')} regressed: {names} (exit 1)."
    if code == EXIT_REGRESSED:
        return f"{_count(len(result.changes), 'paired sample score')} changed (--require-identical; exit 1)."
    if code == EXIT_UNTESTED:
        return (
            f"Untested: {_count(len(result.untested), 'cell')} cannot decide (too few samples; --allow-untested "
            "accepts them; exit 4)."
        )
    if result.settings.get("require_identical"):
        return "No regression, and every paired sample scored identically (--require-identical; exit 0)."
    return "No regression (exit 0)."


def cause_words(cell: Cell) -> str:
    """`` (7 of its 9 newly wrong samples were newly cut off at the budget)`` for a cell whose candidate lost
    samples to cut-off or reasoning-only replies (:func:`~.cells.newly_lost`), else ``""``."""
    parts = []
    if cell.newly_cut_off:
        parts.append(f"{cell.newly_cut_off} newly cut off at the budget")
    if cell.newly_reasoning_only:
        parts.append(f"{cell.newly_reasoning_only} newly with their text only in the reasoning")
    if not parts:
        return ""
    return f" (of its {_count(cell.newly_worse, 'newly wrong sample')}: {' and '.join(parts)})"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _summary(result: Comparison) -> list[str]:
    s, coverage = result.settings, result.coverage
    counts = {verdict: sum(c.verdict == verdict for c in result.cells) for verdict in VERDICT_ORDER}
    tasks = sorted({pair.baseline.task for pair in result.pairing.pairs})
    sides = "; ".join(
        f"{side}: {coverage.planned[side]} samples asked in its runs, "
        + ", ".join(f"{coverage.problems[side][p]} {p}" for p in (*SAMPLE_PROBLEMS, "non-finite"))
        for side in SIDES
    )
    tests = ", ".join(sorted(set(s["tests"].values()), key=list(s["tests"].values()).index))
    lines = [
        f"baseline {result.baseline} vs candidate {result.candidate}",
        f"compared: {coverage.run_pairs} run pairs ({', '.join(tasks) or 'none'}); {coverage.paired} of "
        f"{coverage.asked} samples asked of either side paired",
        sides,
        f"{len(result.cells)} cells: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n),
        f"tests: {tests}; Holm correction over {s['holm_family']} cells at alpha {s['alpha']}; the verdict follows "
        f"p Holm, never the CI: CI = the unadjusted {1 - s['alpha']:.0%} interval Δ ± t·se (jackknife se, within the "
        f"measure's range), descriptive; regressed = significant drop > {s['max_drop']} points; too few samples = a "
        f"cell that cannot decide (< {s['min_pairs']} pairs, or a 0/1 cell whose total collapse could not reach "
        f"alpha/cells; fails unless --allow-untested); --max-missing {s['max_missing']}",
    ]
    if result.changes:
        shown = "listed below" if s.get("require_identical") else "listed with --require-identical or in the JSON"
        lines.append(f"{len(result.changes)} paired sample scores changed ({shown})")
    return lines


def render_table(result: Comparison) -> str:
    """Plain-text report for a terminal: summary lines, warnings, notes, the cell table (worst first)."""
    rows = [HEADER] + [_cell_row(c) for c in result.cells]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    lines = [verdict_line(result)] + [f"incomplete: {line}" for line in result.incomplete] + _summary(result)
    lines += [f"warning: {w}" for w in result.warnings] + [f"note: {n}" for n in result.notes]
    lines.append("")
    for i, row in enumerate(rows):
        lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines += _change_lines(result)
    return "\n".join(lines) + "\n"


def _change_lines(result: Comparison, limit: int = 50) -> list[str]:
    if not result.changes or not result.settings.get("require_identical"):
        return []
    lines = ["", "changed sample scores (baseline -> candidate):"]
    for change in result.changes[:limit]:
        what = ", ".join(f"{k} {a!r} -> {b!r}" for k, (a, b) in change.differences.items())
        lines.append(
            f"  {change.run} {change.scorer} [{change.dataset}] sample {change.sample_id} "
            f"({seed_text(change.seed)}, epoch {change.epoch}): {what}"
        )
    if len(result.changes) > limit:
        lines.append(f"  … and {len(result.changes) - limit} more")
    return lines


def _markdown_table(cells: Sequence[Cell]) -> list[str]:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for cell in cells:
        row = _cell_row(cell)
        row[-1] = f"**{row[-1]}**" if cell.verdict == REGRESSED else row[-1]
        lines.append("| " + " | ".join(v.replace("|", "\\|") for v in row) + " |")
    return lines


def render_markdown(result: Comparison) -> str:
    """Markdown for a pull-request comment: verdict line, settings, headline cells, then every other cell in a
    collapsed block (cells worst first)."""
    lines = ["## BeDiscovER compare", "", f"**{verdict_line(result)}**", ""]
    lines += [f"- incomplete: {line}" for line in result.incomplete] + [f"- {line}" for line in _summary(result)]
    lines += [f"- ⚠ {w}" for w in result.warnings] + [f"- note: {n}" for n in result.notes]
    headline = [c for c in result.cells if c.headline]
    other = [c for c in result.cells if not c.headline]
    lines += ["", "### Headline cells", ""] + _markdown_table(headline)
    if other:
        lines += ["", f"<details><summary>Other cells ({len(other)})</summary>", ""] + _markdown_table(other)
        lines += ["", "</details>"]
    if _change_lines(result):
        lines += ["", "<details><summary>Changed sample scores</summary>", "", "```"]
        lines += [line.strip() for line in _change_lines(result)[2:]] + ["```", "", "</details>"]
    return "\n".join(lines) + "\n"


def render_json(result: Comparison) -> str:
    """Every number: exit code and verdict, what is incomplete, settings, pairing and coverage, warnings, notes,
    cells, changed samples."""
    pairing = result.pairing
    payload = {
        "baseline": result.baseline,
        "candidate": result.candidate,
        "exit_code": result.exit_code(),
        "verdict": verdict_line(result),
        "incomplete": result.incomplete,
        "settings": result.settings,
        "regressed": [c.name for c in result.regressed],
        "untested": [c.name for c in result.untested],
        "pairing": {
            "run_pairs": [
                {
                    "baseline": p.baseline.path,
                    "candidate": p.candidate.path,
                    "task": p.baseline.task,
                    "variant": p.baseline.variant,
                    "candidate_variant": p.candidate.variant,
                    "reasoning": p.baseline.reasoning,
                    "seed": p.baseline.seed,
                    "asked_samples": len(p.keys),
                }
                for p in pairing.pairs
            ],
            "coverage": asdict(result.coverage),
            "unpaired_runs": pairing.unpaired,
            "problems": pairing.problems,
        },
        "warnings": result.warnings,
        "notes": result.notes,
        "cells": [asdict(c) | {"name": c.name} for c in result.cells],
        "changes": [asdict(c) for c in result.changes],
    }
    return json.dumps(_finite(payload), indent=2) + "\n"


def _finite(value: Any) -> Any:
    """NaN -> None throughout (JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def render(result: Comparison, format: str) -> str:
    """The report in ``format`` (:data:`FORMATS`)."""
    return {"table": render_table, "markdown": render_markdown, "json": render_json}[format](result)


COLOURS = {REGRESSED: "#c0392b", SMALL_DROP: "#e67e22", IMPROVED: "#27ae60", NO_CHANGE: "#7f8c8d", TOO_FEW: "#bdc3c7"}


def plot_deltas(result: Comparison, path: str | Path) -> Path:
    """A PNG (or any matplotlib format by extension) of every cell's difference with its interval,
    worst first, coloured by verdict, with lines at 0 and ``-max_drop``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = result.cells
    fig, ax = plt.subplots(figsize=(8, max(2.0, 0.25 * len(cells) + 1)))
    y = np.arange(len(cells))[::-1]
    for yi, cell in zip(y, cells):
        ax.errorbar(
            cell.delta,
            yi,
            xerr=None if math.isnan(cell.low) else [[cell.delta - cell.low], [cell.high - cell.delta]],
            fmt="o",
            color=COLOURS[cell.verdict],
            capsize=2,
            markersize=4,
        )
    ax.axvline(0, color="black", linewidth=0.8)
    ax.axvline(-result.settings["max_drop"], color=COLOURS[REGRESSED], linewidth=0.8, linestyle="--")
    ax.set_yticks(y, [cell.name for cell in cells], fontsize=7)
    ax.set_xlabel("candidate − baseline (points; negative = worse), interval Δ ± t·se")
    handles = [plt.Line2D([], [], marker="o", linestyle="", color=c, label=v) for v, c in COLOURS.items()]
    ax.legend(handles=handles, fontsize=7, loc="best")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------------------- command line


def add_arguments(parser: Any) -> None:
    """The options of ``bediscover compare`` (module docstring)."""
    from bediscover_inspect.tasks import TASK_NAMES

    parser.add_argument("--baseline", required=True, help="baseline log directory or log file")
    parser.add_argument("--candidate", required=True, help="candidate log directory or log file")
    parser.add_argument(
        "--tasks", nargs="+", choices=TASK_NAMES, default=None, metavar="TASK", help="compare only these tasks"
    )
    parser.add_argument(
        "--max-drop",
        type=float,
        default=1.0,
        help="a significant drop beyond this many points regresses (default %(default)s)",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="family-wise level (Holm; default %(default)s)")
    parser.add_argument("--measures", choices=MEASURE_SETS, default="headline")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument(
        "--out",
        default=None,
        help="write the report here (default: standard output); the verdict line is printed either way",
    )
    parser.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="compare unlike runs (other version, data, variant, samples), with warnings",
    )
    parser.add_argument("--plot", default=None, help="plot the per-cell differences to this image file")
    parser.add_argument(
        "--require-identical",
        action="store_true",
        help="also fail (exit 1) when any paired sample's score changed (scorer gate)",
    )
    parser.add_argument(
        "--max-missing",
        type=int,
        default=0,
        help="samples asked of either side that may be missing, not run, errored or unscored on a side before the "
        "comparison is incomplete (exit 3; default %(default)s)",
    )
    parser.add_argument(
        "--allow-untested",
        action="store_true",
        help="cells with too few samples to test do not fail the gate (otherwise exit 4)",
    )


def run_command(args: Any) -> int:
    """Run ``bediscover compare`` from parsed arguments: the report on standard output, or with ``--out`` in that
    file and its verdict line (:func:`verdict_line`) with the file's name on standard output; returns the exit code
    (0, 1, 3 or 4: see :meth:`~.compare.Comparison.exit_code`).

    Raises:
        CompareError: see :func:`compare` (the CLI prints it and exits 2).
    """
    result = compare(
        args.baseline,
        args.candidate,
        tasks=args.tasks,
        max_drop=args.max_drop,
        alpha=args.alpha,
        measures=args.measures,
        allow_mismatch=args.allow_mismatch,
        require_identical=args.require_identical,
        max_missing=args.max_missing,
        allow_untested=args.allow_untested,
    )
    text = render(result, args.format)
    if args.out:  # the file holds the report; the terminal still gets the verdict
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"{verdict_line(result)} Report: {args.out}")
    else:
        print(text, end="")
    if args.plot:
        plot_deltas(result, args.plot)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for line in result.incomplete:
        print(f"incomplete: {line}", file=sys.stderr)
    return result.exit_code()
