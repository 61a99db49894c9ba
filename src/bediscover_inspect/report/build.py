"""``bediscover report``: read the logs, aggregate over seeds, compare with the paper, write tables and plots."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from bediscover_inspect.evallogs.scores import (
    NO_SEED,
    NOT_OURS,
    SUPERSEDED,
    LogScores,
    ReportWarning,
    read_log_scores,
)
from bediscover_inspect.measures import is_token_measure
from bediscover_inspect.report.aggregate import aggregate, coverage_warnings
from bediscover_inspect.report.classes import write_class_tables
from bediscover_inspect.report.matching import normalised, paper_model_match, paper_model_names, with_paper
from bediscover_inspect.report.plots import plot_reasoning_effort
from bediscover_inspect.report.render import NOT_REPORTED, markdown, task_table
from bediscover_inspect.report.setting import cell_differences, setting_warnings


@dataclass
class Report:
    """What :func:`build_report` wrote: paths, the merged cell table, the warnings and the notes.

    ``warnings`` are problems of the log directory (missing seeds or tasks, logs not used, runs compared with the
    paper that are not its setting); ``incomplete`` those of them that leave something out of the report (no
    cell, a missing seed or task, a suite log not used: :func:`incompleteness`); ``notes`` say what the report
    could not compare (a model without a paper row, a seed not recorded) and where the paper is read against its
    own captions.
    """

    cells: pd.DataFrame
    warnings: list[str]
    files: list[Path]
    notes: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)


STARTED = "status started"
"""Reason of a log that never finished (:attr:`LogScores.skipped`): the run crashed, was killed or is running."""


def select_tasks(read: LogScores, tasks: Sequence[str]) -> LogScores:
    """``read`` restricted to the logs of ``tasks`` (short names): their scores, runs and classes, and the logs
    left out that are theirs or whose task is unknown (an unreadable file, another Inspect task's log)."""
    keep = set(tasks)
    scores = read.scores[read.scores["task"].isin(keep)]
    runs = read.runs[read.runs["task"].isin(keep)]
    logs = set(scores["log"])
    skipped = [(path, why) for path, why in read.skipped if path not in read.tasks_of or read.tasks_of[path] in keep]
    classes = {path: pairs for path, pairs in read.classes.items() if path in logs}
    return LogScores(scores, skipped, runs, classes, read.tasks_of)


def incompleteness(
    read: LogScores, log_dir: str | Path, expected_seeds: Sequence[int] | None, tasks: Sequence[str] | None
) -> list[str]:
    """One line per thing missing from the report: no cell at all; a run without a seed or a model/mode without a
    task (of ``expected_seeds`` / ``tasks``, default: every one found, :func:`~.aggregate.coverage_warnings`); a
    suite log not used (unreadable, without the suite's measures, ended in error or cancelled with no successful
    log of its run), each naming the log and why; and the logs that never finished (status ``started``: a run
    that crashed, was killed or is still running) in one line. Another Inspect task's log is not missing."""
    if read.scores.empty:
        what = f" of task{'s' if len(tasks) > 1 else ''} {', '.join(tasks)}" if tasks else ""
        lines = [f"no cells: no successful BeDiscovER log{what} under {log_dir}"]
    else:
        lines = coverage_warnings(read.scores, expected_seeds, tasks)
    used = [(path, why) for path, why in read.skipped if not why.startswith((SUPERSEDED, NOT_OURS))]
    lines += [f"log not used: {path} ({why})" for path, why in used if why != STARTED]
    return lines + _never_finished([path for path, why in used if why == STARTED])


def _never_finished(started: Sequence[str]) -> list[str]:
    """One line for the logs of status ``started`` (the first three named), none when there are none."""
    if not started:
        return []
    shown = ", ".join(started[:3]) + (f" and {len(started) - 3} more" if len(started) > 3 else "")
    return [
        f"{len(started)} log{'s' if len(started) > 1 else ''} never finished, left out (status started: a run "
        f"that crashed, was killed or is still running; the same bediscover run command resumes it): {shown}"
    ]


def unrecorded_seed_notes(runs: pd.DataFrame) -> list[str]:
    """One note per run (task, model, reasoning, variant) with a log that records no seed (a run made without
    ``--seed``): its ``seeds`` read ``not recorded``."""
    if runs.empty:
        return []
    unseeded = runs[runs["seed"] == NO_SEED].drop_duplicates(["task", "model", "reasoning", "variant"])
    return [
        f"seed not recorded: task {row.task}, model {row.model}, reasoning {row.reasoning}"
        + (f", {row.variant}" if row.variant else "")
        + f" ({row.log}: made without --seed, so its run cannot be repeated exactly; its seeds read 'not recorded')"
        for row in unseeded.itertuples(index=False)
    ]


def unmatched_model_notes(scores: pd.DataFrame, paper_models: Mapping[str, str] | None = None) -> list[str]:
    """One note per served model that matched no paper model in any of its runs, listing the paper's models."""
    if scores.empty:
        return []
    notes = []
    runs = scores.drop_duplicates(["model", "reasoning_effort"])
    matched = {
        row.model
        for row in runs.itertuples(index=False)
        if paper_model_match(row.model, row.reasoning_effort or None, paper_models)[0] is not None
    }
    for model in sorted(set(runs.model) - matched):
        effort = (
            " (GPT-5-mini rows need --reasoning-effort low or high in the run)"
            if "gpt5mini" in normalised(model)
            else ""
        )
        notes.append(
            f"no paper model for {model}{effort}: its cells have no paper numbers. Name one with "
            f"--paper-model PAPER or --paper-model '{model}=PAPER'; the paper's models: "
            + ", ".join(paper_model_names())
        )
    return notes


def unreported_token_notes(cells: pd.DataFrame) -> list[str]:
    """One note per run whose token measures have no value: its provider sent no token usage with its replies
    (for every sample of at least one seed), so the token columns read :data:`~.render.NOT_REPORTED`."""
    if cells.empty:
        return []
    missing = cells["measure"].map(is_token_measure) & cells["mean"].isna() & (cells["group_key"] == "all")
    runs = cells[missing].drop_duplicates(["task", "model", "reasoning", "variant"])
    return [
        f"token counts {NOT_REPORTED}: {row.task}, model {row.model}, reasoning {row.reasoning}"
        + (f", {row.variant}" if row.variant else "")
        + " (no usage in its replies): its token columns say so, never 0"
        for row in runs.itertuples(index=False)
    ]


CUT_OFF_NOTE_ABOVE = 0.05
"""A cell whose ``cut_off_rate`` is above this share gets a note: its numbers are bound by the budget sent."""


def budgets_sent(cells: pd.DataFrame, runs: pd.DataFrame) -> list[str]:
    """Per cell, the ``max_tokens`` its runs (same task, model and reasoning mode) were sent, ``" or "``-joined
    (``"not set"``; ``""`` when no run matches)."""
    sent: dict[tuple[str, str, str], set[str]] = {}
    for task, model, reasoning, generate in zip(runs["task"], runs["model"], runs["reasoning"], runs["generate"]):
        sent.setdefault((task, model, reasoning), set()).add(str((generate or {}).get("max_tokens", "not set")))
    keys = zip(cells["task"], cells["model"], cells["reasoning"])
    return [" or ".join(sorted(sent.get(key, ()))) for key in keys]


def cut_off_notes(cells: pd.DataFrame) -> list[str]:
    """One note per cell (task, group, model, reasoning, variant) in which more than :data:`CUT_OFF_NOTE_ABOVE` of
    the samples stopped at the token budget (``cut_off_rate``, :mod:`bediscover_inspect.causes`), naming the
    ``max_tokens`` its runs were sent (the cells' ``max_tokens``: :func:`budgets_sent`)."""
    if cells.empty or "max_tokens" not in cells:
        return []
    hit = cells[(cells["measure"] == "cut_off_rate") & (cells["mean"] > 100 * CUT_OFF_NOTE_ABOVE)]  # cells in %
    notes = []
    for row in hit.itertuples(index=False):
        where = "all" if row.group_key == "all" else f"{row.group_key} {row.group}"
        notes.append(
            f"budget-bound: {row.task} [{where}], model {row.model}, reasoning {row.reasoning}"
            + (f", {row.variant}" if row.variant else "")
            + f": {row.mean:.1f} % of the samples stopped at max_tokens={row.max_tokens or 'unknown'};"
            " its numbers are bound by that budget (raise --max-tokens to measure the model)"
        )
    return notes


def build_report(
    log_dir: str | Path,
    out_dir: str | Path,
    ddof: int = 0,
    expected_seeds: Sequence[int] | None = None,
    tasks: Sequence[str] | None = None,
    plots: bool = True,
    paper_models: Mapping[str, str] | None = None,
    read: LogScores | None = None,
) -> Report:
    """Read the logs, aggregate over seeds, compare with the paper, and write tables (and plots).

    Files written under ``out_dir``: ``cells.csv`` (every cell, long format, with the 95 % interval, the paper
    columns and ``differs``), ``<task>.csv`` and ``<task>.md`` (wide, paper-style), ``classes/per_class.csv`` and
    ``classes/confusion.csv`` (label-choice tasks), ``report.md`` (all tasks, the warnings and the notes),
    ``warnings.txt`` (missing seeds or tasks, runs with no successful log, runs compared with the paper that are
    not its setting), and with ``plots=True`` ``plots/<task>__<group>[__variant].png``.

    Args:
        log_dir: directory of Inspect logs (searched recursively).
        out_dir: created if needed.
        ddof: std convention (0 population, the default; 1 sample).
        expected_seeds: the seeds every run should have (default: every seed seen).
        tasks: only these tasks (short names), and every model/mode should have each (default: every task seen).
        plots: also draw the score-vs-output-tokens plots.
        paper_models: served model -> paper model (``--paper-model``,
            :func:`~bediscover_inspect.report.matching.parse_paper_models`).
        read: the logs of ``log_dir`` already read (``read_log_scores(log_dir, classes=True)``); read here if not.

    Returns:
        A :class:`Report` (its ``incomplete`` lines: :func:`incompleteness`). Each warning is also issued as a
        :class:`ReportWarning`.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    read = read_log_scores(log_dir, classes=True) if read is None else read
    if tasks is not None:
        read = select_tasks(read, tasks)
    incomplete = incompleteness(read, log_dir, expected_seeds, tasks)
    messages = incomplete + [
        f"log not used: {path} ({reason})" for path, reason in read.skipped if reason.startswith(NOT_OURS)
    ]
    cells = _cells(read, ddof, paper_models)
    messages += setting_warnings(cells)
    for message in messages:
        warnings.warn(message, ReportWarning, stacklevel=2)
    notes = _notes(read, cells, paper_models)
    superseded = [f"{path} ({reason})" for path, reason in read.skipped if reason.startswith(SUPERSEDED)]
    sections = [_report_header(log_dir, ddof)] + _lists(
        ("Warnings", messages),
        ("Notes", notes),
        ("Logs superseded by a later successful log of the same run", superseded),
    )
    files = _write_tables(cells, read, out, ddof, plots, sections) if not cells.empty else []
    report_md = out / "report.md"
    report_md.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    warn_path = out / "warnings.txt"
    warn_path.write_text("".join(f"{m}\n" for m in messages), encoding="utf-8")
    files += [report_md, warn_path]
    return Report(cells=cells, warnings=messages, files=files, notes=notes, incomplete=incomplete)


def _cells(read: LogScores, ddof: int, paper_models: Mapping[str, str] | None) -> pd.DataFrame:
    """The report's cells: the scores aggregated over seeds, with the paper's numbers, ``differs`` and the
    ``max_tokens`` sent; an empty frame without scores."""
    if read.scores.empty:
        return pd.DataFrame()
    cells = with_paper(aggregate(read.scores, ddof=ddof), paper_models=paper_models)
    cells["differs"] = cell_differences(cells, read.runs, paper_models)
    cells["max_tokens"] = budgets_sent(cells, read.runs)
    return cells


def _notes(read: LogScores, cells: pd.DataFrame, paper_models: Mapping[str, str] | None) -> list[str]:
    """The report's notes: models matched with no paper model, token measures not reported, budget-bound cells,
    seeds not recorded, and where the paper is ambiguous."""
    notes = unmatched_model_notes(read.scores, paper_models) + unreported_token_notes(cells)
    notes += cut_off_notes(cells)
    notes += unrecorded_seed_notes(read.runs)
    if not cells.empty:
        compared = cells[cells["paper_mean"].notna()]
        notes += [f"where the paper is ambiguous: {note}" for note in sorted(set(compared["paper_note"]) - {""})]
    return notes


def _lists(*sections: tuple[str, Sequence[str]]) -> list[str]:
    """A markdown section per ``(title, items)`` with items, each item a bullet."""
    return [f"## {title}\n\n" + "\n".join(f"- {item}" for item in items) for title, items in sections if items]


def _report_header(log_dir: str | Path, ddof: int) -> str:
    """The opening section of ``report.md``: what a cell holds and where the paper's numbers come from."""
    return (
        f"# BeDiscovER report\n\nLogs: `{log_dir}`. Each cell: mean ± {'population' if ddof == 0 else 'sample'}"
        f" std over seeds (ddof={ddof}), then the 95 % interval mean ± 1.96·SE (SE: the logged standard error "
        f"over test items, averaged over seeds); rates in %, tokens per sample (per turn in dialogue "
        f"parsing). Paper numbers from `paper_results.csv` (table noted), Δ = ours − paper; the paper's "
        f"tok. is compared with `output_tokens` (answer and reasoning), `reasoning_tokens` has no paper "
        f"column. `differs` names what a run does differently from the paper's setting (empty: the paper's "
        f"setting). Per-class scores and confusion matrices of the label-choice tasks: `classes/`."
    )


def _write_tables(
    cells: pd.DataFrame, read: LogScores, out: Path, ddof: int, plots: bool, sections: list[str]
) -> list[Path]:
    """Write ``cells.csv``, each task's wide table (CSV and markdown, the markdown also appended to ``sections``),
    the class tables and (``plots``) the plots under ``out``; returns the files written."""
    path = out / "cells.csv"
    cells.to_csv(path, index=False)
    files = [path]
    for task, frame in cells.groupby("task", sort=True):
        table = task_table(frame)
        csv_path, md_path = out / f"{task}.csv", out / f"{task}.md"
        table.to_csv(csv_path, index=False)
        md = f"## {task}\n\n" + markdown(table)
        md_path.write_text(md + "\n", encoding="utf-8")
        files += [csv_path, md_path]
        sections.append(md)
    files += write_class_tables(read.scores, read.classes, out, ddof)
    if plots:
        files += plot_reasoning_effort(cells, out / "plots")
    return files
