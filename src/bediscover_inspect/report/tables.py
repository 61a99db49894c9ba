"""Inspect logs -> paper-style tables: mean ± std over seeds per task, group, model and reasoning mode.

Log convention every task of the suite follows (see ``bediscover_inspect.metrics``):

* each scorer has one metric whose entries are named ``<measure>/<group>`` (``accuracy/just-manual``,
  ``accuracy_by_framework/pdtb``, ``pmr/all`` …), read with :func:`bediscover_inspect.metrics.log_measures`;
  the group key (sample metadata it groups by) follows from the measure name (``_by_<key>``, else
  ``dataset``);
* the seed is the generate config's ``seed`` (``--seed``), the reasoning mode the task argument
  ``reasoning``, the model ``log.eval.model``, the task ``log.eval.task``.

Standard deviation: **population** std over seeds (``ddof=0``, numpy's default), the convention the paper's
Appendix C numbers are most consistent with (see ``report/README.md``); ``ddof=1`` on request.
Rates (every measure except token counts) are reported in percent, as in the paper.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from bediscover_inspect.metrics import log_measures
from bediscover_inspect.report.paper import load_paper_results

TOKEN_MEASURES = frozenset({"output_tokens", "reasoning_tokens", "input_tokens", "total_tokens", "tok"})
"""Measures that are counts per sample, reported as they are (everything else is a 0-1 rate shown in %)."""

IGNORED_TASK_ARGS = frozenset({"reasoning", "data_dir"})
"""Task arguments that do not distinguish one experimental setting from another in the report."""

HEADLINE_MEASURES: tuple[str, ...] = ("accuracy", "micro_f1", "pmr", "acc", "link_f1", "full_f1")
"""Preferred y-axis measure of a plot, first present wins."""

SUPERSEDED = "superseded"
"""Reason prefix of a log left out because a later log of the same run succeeded (e.g. a resumed eval set)."""

RUN_KEYS = ["task", "model", "reasoning", "variant"]
GROUP_KEYS = RUN_KEYS + ["measure", "group_key", "group"]


class ReportWarning(UserWarning):
    """A problem in the log directory the report shows rather than hides (missing seed or task, failed log)."""


def short_task_name(task: str) -> str:
    """``bediscover_inspect/sentence_ordering`` -> ``sentence_ordering`` (the registry prefix dropped)."""
    return task.rsplit("/", 1)[-1]


def _norm(text: Any) -> str:
    return re.sub(r"[^a-z0-9+]", "", str(text).lower())


def _reasoning_of(task_args: dict[str, Any]) -> str:
    value = task_args.get("reasoning", False)
    if isinstance(value, str):
        value = value.strip().lower() in {"1", "true", "yes", "on"}
    return "on" if value else "off"


def _variant_of(task_args: dict[str, Any]) -> str:
    items = sorted((k, v) for k, v in task_args.items() if k not in IGNORED_TASK_ARGS)
    return ",".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in items)


def _seed_and_effort(log: Any) -> tuple[int | None, str | None]:
    for config in (getattr(log.plan, "config", None), getattr(log.eval, "model_generate_config", None)):
        if config is not None and config.seed is not None:
            return int(config.seed), config.reasoning_effort
    config = getattr(log.plan, "config", None)
    return None, (config.reasoning_effort if config is not None else None)


@dataclass
class LogScores:
    """Scores of every log under a directory (see :func:`read_log_scores`).

    Attributes:
        scores: one row per (log, measure, group): columns ``log``, ``task``, ``model``, ``reasoning``
            (``off``/``on``), ``variant`` (the other task arguments, ``k=v`` comma-joined), ``seed``
            (int, ``-1`` when the log has none), ``reasoning_effort``, ``samples`` (distinct samples scored in
            that log: completed samples ÷ epochs), ``measure``, ``group_key``, ``group``, ``value`` (float, as
            logged).
        skipped: ``(log path, reason)`` for logs left out: reasons starting with :data:`SUPERSEDED` are
            interrupted or older logs of a run that has a successful log (normal after a resumed
            ``eval_set``); any other reason (``status error`` …, :data:`UNREADABLE` for a file that cannot be
            read, :data:`NOT_OURS` for another Inspect task's log) means that log was not used.
    """

    scores: pd.DataFrame
    skipped: list[tuple[str, str]] = field(default_factory=list)


BENCHMARK = "BeDiscovER"
"""Value of ``benchmark`` in the task metadata (``log.eval.metadata``) that marks a log as one of this suite's."""

UNREADABLE = "unreadable"
"""Reason prefix of a log file that could not be read (truncated, corrupt, not an Inspect log)."""

NOT_OURS = "not a BeDiscovER log"
"""Reason prefix of a log whose task metadata lacks ``benchmark: BeDiscovER`` (another Inspect task)."""

NO_MEASURES = "no suite measures"
"""Reason prefix of a successful BeDiscovER log without ``<measure>/<group>`` metrics (an older layout)."""


def _log_rows(path: str, log: Any) -> list[dict[str, Any]]:
    """The score rows of one successful log (see :class:`LogScores`)."""
    task_args = log.eval.task_args or {}
    seed, effort = _seed_and_effort(log)
    base = {
        "log": path,
        "task": short_task_name(log.eval.task),
        "model": log.eval.model,
        "reasoning": _reasoning_of(task_args),
        "variant": _variant_of(task_args),
        "seed": -1 if seed is None else seed,
        "reasoning_effort": effort or "",
        "samples": round(_distinct_samples(log)),
    }
    return [base | {"measure": measure, "group_key": group_key, "group": group, "value": value}
            for measure, group_key, group, value in log_measures(log)]


def _local_path(name: str) -> str:
    """``file:///a/b.eval`` -> ``/a/b.eval`` (other locations, such as ``s3://``, are kept as they are)."""
    if name.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(name).path)
    return name


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _distinct_samples(log: Any) -> float:
    """Distinct samples a log scored: ``results.completed_samples`` counts each (sample, epoch) once, so it is
    divided by ``eval.config.epochs`` (3 samples run with ``--epochs 2`` -> 6 completed -> 3)."""
    config = getattr(log.eval, "config", None)
    epochs = getattr(config, "epochs", None) or 1
    return int(log.results.completed_samples or 0) / epochs


def _run_preference(item: tuple[str, Any, list[dict[str, Any]]]) -> tuple[float, str]:
    """Sort key of two successful logs of one run (same task, model, variant, reasoning, seed): distinct samples
    (:func:`_distinct_samples`, so a 3-sample run with 2 epochs is not "more" than a 5-sample run), then
    creation time; the larger is kept."""
    _path, log, _rows = item
    return _distinct_samples(log), str(log.eval.created)


def read_log_scores(log_dir: str | Path) -> LogScores:
    """Read the header of every Inspect log under ``log_dir`` into a long table of scores.

    Only logs of this suite (task metadata ``benchmark: BeDiscovER``) with ``status == "success"`` are used;
    for the same (task, model, task arguments, seed) the one with the most distinct samples wins, then the most
    recently created (an interrupted then resumed eval set can leave an earlier failed log; a later ``--limit``
    smoke run never replaces a full run). Logs left out are listed in :attr:`LogScores.skipped`,
    among them files that cannot be read (reason starting with :data:`UNREADABLE`: truncated, corrupt, not an
    Inspect log) and logs of other Inspect tasks (reason starting with :data:`NOT_OURS`); one bad file never
    stops the others from being read.

    Raises:
        FileNotFoundError: ``log_dir`` does not exist.
        NotADirectoryError: ``log_dir`` is not a directory.
    """
    from inspect_ai.log import list_eval_logs, read_eval_log

    log_dir = Path(log_dir)
    if not log_dir.exists():
        raise FileNotFoundError(f"log directory not found: {log_dir}")
    if not log_dir.is_dir():
        raise NotADirectoryError(f"log directory is not a directory: {log_dir}")
    skipped: list[tuple[str, str]] = []
    latest: dict[tuple, tuple[str, Any, list[dict[str, Any]]]] = {}
    unfinished: list[tuple[tuple, str, str]] = []
    for info in list_eval_logs(str(log_dir), recursive=True):
        path = _local_path(info.name)
        try:
            log = read_eval_log(info, header_only=True)
        except Exception as exc:  # noqa: BLE001 - any unreadable file is reported and skipped, never fatal
            skipped.append((path, f"{UNREADABLE}: {_one_line(exc)}"))
            continue
        try:
            metadata = log.eval.metadata or {}
            if not isinstance(metadata, dict) or metadata.get("benchmark") != BENCHMARK:
                skipped.append((path, f"{NOT_OURS}: task {log.eval.task!r} has no metadata "
                                      f"benchmark={BENCHMARK!r}"))
                continue
            seed, _ = _seed_and_effort(log)
            key = (short_task_name(log.eval.task), log.eval.model, _variant_of(log.eval.task_args or {}),
                   _reasoning_of(log.eval.task_args or {}), seed)
            if log.status != "success" or log.results is None:
                unfinished.append((key, path, log.status if log.status != "success" else "success without results"))
                continue
            rows = _log_rows(path, log)
            if not rows:
                skipped.append((path, f"{NO_MEASURES}: no metric named <measure>/<group> in its results "
                                      "(written by an older version of the suite?)"))
                continue
        except Exception as exc:  # noqa: BLE001 - a malformed header is reported and skipped, never fatal
            skipped.append((path, f"{UNREADABLE}: malformed log header ({_one_line(exc)})"))
            continue
        previous = latest.get(key)
        if previous is not None:
            # a smoke run (--limit) never replaces a fuller run of the same seed: most samples first, then newest
            lost, kept = sorted([previous, (path, log, rows)], key=_run_preference)
            (kept_samples, kept_created), (lost_samples, lost_created) = _run_preference(kept), _run_preference(lost)
            why = ("covers more samples" if kept_samples > lost_samples
                   else "is newer" if kept_created > lost_created
                   else "has the same samples and time, and was read later")
            skipped.append((lost[0], f"{SUPERSEDED}: another successful log of the same run {why} "
                                     f"({kept[0]})"))
            latest[key] = kept
        else:
            latest[key] = (path, log, rows)

    for key, path, status in unfinished:
        if key in latest:
            skipped.append((path, f"{SUPERSEDED}: status {status}, the same run later succeeded"))
        else:
            skipped.append((path, f"status {status}"))
    rows = [row for _, _, log_rows in latest.values() for row in log_rows]
    columns = ["log", "task", "model", "reasoning", "variant", "seed", "reasoning_effort", "samples",
               "measure", "group_key", "group", "value"]
    return LogScores(pd.DataFrame(rows, columns=columns), skipped)


def _std(values: np.ndarray, ddof: int) -> float:
    if len(values) <= ddof:
        return float("nan")
    return float(np.std(values, ddof=ddof))


def aggregate(scores: pd.DataFrame, ddof: int = 0) -> pd.DataFrame:
    """Mean and std over seeds of each (task, model, reasoning, variant, measure, group).

    Args:
        scores: :attr:`LogScores.scores`.
        ddof: 0 for the population std (default, the paper's convention), 1 for the sample std.

    Returns:
        One row per cell with ``mean``, ``std`` (NaN with fewer than ``ddof + 1`` seeds), ``n_seeds``,
        ``seeds`` (the seeds present, space-separated, ascending), ``samples`` (samples scored per seed,
        ``/``-joined in seed order) and ``reasoning_effort``. Rates are scaled to percent.
    """
    out: list[dict[str, Any]] = []
    for key, frame in scores.groupby(GROUP_KEYS, sort=True, dropna=False):
        frame = frame.sort_values("seed")
        scale = 1.0 if key[4] in TOKEN_MEASURES else 100.0
        values = frame["value"].to_numpy(dtype=float) * scale
        out.append(dict(zip(GROUP_KEYS, key)) | {
            "mean": float(np.mean(values)),
            "std": _std(values, ddof),
            "n_seeds": len(frame),
            "seeds": " ".join(str(s) for s in frame["seed"]),
            "samples": "/".join(str(s) for s in frame["samples"]),
            "reasoning_effort": ",".join(sorted(set(frame["reasoning_effort"]) - {""})),
        })
    columns = GROUP_KEYS + ["mean", "std", "n_seeds", "seeds", "samples", "reasoning_effort"]
    return pd.DataFrame(out, columns=columns)


def coverage_warnings(scores: pd.DataFrame, expected_seeds: Sequence[int] | None = None,
                      expected_tasks: Sequence[str] | None = None) -> list[str]:
    """Missing seeds and missing tasks, one message each (never averaged away silently).

    Args:
        scores: :attr:`LogScores.scores`.
        expected_seeds: the seeds every run should have; default: every seed seen in ``scores``.
        expected_tasks: the tasks every (model, reasoning) should have; default: every task seen.

    Returns:
        Human-readable messages, sorted; empty when every run has every seed and every task.
    """
    messages: list[str] = []
    if scores.empty:
        return ["no successful logs found"]
    seeds = sorted(set(expected_seeds) if expected_seeds is not None else set(scores["seed"]))
    runs = scores.groupby(RUN_KEYS)["seed"].agg(lambda s: sorted(set(s)))
    for (task, model, reasoning, variant), present in runs.items():
        missing = [s for s in seeds if s not in present]
        if missing:
            messages.append(f"missing seed(s) {missing} for task {task}, model {model}, reasoning {reasoning}"
                            + (f", {variant}" if variant else "") + f" (present: {present})")
    tasks = sorted(set(expected_tasks) if expected_tasks is not None else set(scores["task"]))
    combos = scores.groupby(["model", "reasoning"])["task"].agg(lambda t: set(t))
    for (model, reasoning), present in combos.items():
        for task in tasks:
            if task not in present:
                messages.append(f"missing task {task} for model {model}, reasoning {reasoning}")
    return sorted(messages)


# --------------------------------------------------------------------------------------- paper matching

_DATASET_ALIASES = {
    "justmanual": "just-manual", "justsubtitle": "just-subtitle", "otherwise": "otherwise",
    "tbd": "tbd", "tbdee": "tbd", "tddman": "tdd-man", "tdd": "tdd-man",
    "totarithmetic": "tot-arithmetic", "tot": "tot-arithmetic", "totari": "tot-arithmetic",
    "aanabstract": "aan-abstract", "aan": "aan-abstract", "arxivabstracts": "arxiv-abstracts",
    "arxiv": "arxiv-abstracts", "nipsabs": "nips-abs", "neurips": "nips-abs", "nsf": "nsf",
    "roc": "roc", "sindcaptions": "sind-captions", "sind": "sind-captions", "wikimovies": "wiki-movies",
    "stac": "stac", "molweni": "molweni", "msdc": "msdc",
}

_MODEL_ALIASES = {
    "deepseekr1distillqwen32b": "DS-r1-distill-Qwen",
    "dsr1distillqwen": "DS-r1-distill-Qwen",
    "deepseekr1": "DeepSeek-r1-0528",
}

_SETTING_ALIASES = {"incremental": ("auto-regressive",), "autoregressive": ("auto-regressive",)}
"""Our task-argument values -> the paper's setting names (dialogue parsing calls its main mode "incremental")."""

_MEASURE_ALIASES = {"acc": "accuracy", "micro_f1": "accuracy", "reasoning_tokens": "tok"}


def canonical_measure(measure: str) -> str:
    """Our score name or the paper's metric name -> a shared key (``accuracy_by_framework`` -> ``accuracy``).

    ``acc`` and ``micro_f1`` count as ``accuracy`` (one label per sample, so micro-F1 equals accuracy);
    ``reasoning_tokens`` is the paper's ``tok``.
    """
    measure = re.sub(r"_by_\w+$", "", measure)
    return _MEASURE_ALIASES.get(measure, measure)


def paper_model_name(model: str, reasoning_effort: str | None = None) -> str | None:
    """Our model id -> the paper's row name, or ``None`` when the paper has no such model.

    Loose match: the provider and organisation prefixes are dropped (``vllm/Qwen/Qwen3-8B`` -> ``Qwen3-8B``)
    and case and punctuation ignored. GPT-5-mini maps to ``GPT-5-mini (low)`` / ``(high)`` by the run's
    ``reasoning_effort`` (``--reasoning-effort``); other efforts have no paper row.
    """
    tail = _norm(model.rsplit("/", 1)[-1])
    if tail.startswith("gpt5mini"):
        return f"GPT-5-mini ({reasoning_effort})" if reasoning_effort in {"low", "high"} else None
    if tail in _MODEL_ALIASES:
        return _MODEL_ALIASES[tail]
    for name in _paper_models():
        if _norm(name) == tail:
            return name
    return None


def _paper_models() -> list[str]:
    df = load_paper_results()
    return sorted(set(df.loc[df.section == "BeDiscovER", "model"]))


def _context_setting(value: Any) -> str | None:
    text = _norm(value)
    if text in {"true", "1", "yes", "with", "withcontext", "full", "document", "doc"}:
        return "with-context"
    if text in {"false", "0", "no", "none", "without", "withoutcontext", "sentence", "sentences"}:
        return "without-context"
    return None


def _variant_candidates(variant: str) -> set[str]:
    """Setting names our task arguments may express, normalised."""
    names: set[str] = set()
    for item in filter(None, variant.split(",")):
        key, _, value = item.partition("=")
        value = value.strip('"')
        names.add(_norm(value))
        names |= {_norm(alias) for alias in _SETTING_ALIASES.get(_norm(value), ())}
        if "context" in key.lower():
            setting = _context_setting(value)
            if setting:
                names.add(_norm(setting))
    return names


def match_paper(paper: pd.DataFrame, task: str, group_key: str, group: str, variant: str, model: str,
                reasoning: str, reasoning_effort: str, measure: str) -> pd.Series | None:
    """The paper's cell for one of our cells, or ``None``.

    Rules: same task; the group is a dataset (aliases such as ``tbd-ee`` -> ``tbd``), or a DISRPT framework /
    language / corpus, or a ToT category (``framework:``/``language:``/``corpus:``/``category:`` variants);
    the paper's setting (prompt style, context, parsing mode) must be named by one of our task arguments
    (when the paper has several settings for that dataset and ours names none, there is no match); same
    reasoning mode (GPT-5-mini rows are the paper's "w/ reasoning" columns and match either mode by effort);
    same measure (:func:`canonical_measure`). Appendix tables win over the main text's repeats.
    """
    name = paper_model_name(model, reasoning_effort or None)
    if name is None or group == "all":
        return None
    rows = paper[(paper.task == task) & (paper.model == name) & (paper.section == "BeDiscovER")]
    if not name.startswith("GPT-5-mini"):
        rows = rows[rows.reasoning == reasoning]
    rows = rows[rows.metric.map(canonical_measure) == canonical_measure(measure)]
    g = _norm(group)
    kind = {"framework": "framework", "language": "language", "category": "category"}.get(group_key.lower(), "")
    sub = rows.variant.str.partition(":")
    if kind:
        rows = rows[(sub[0] == kind) & (sub[2].map(_norm) == g)]
    elif task == "discourse_relations":
        rows = rows[(sub[0] == "corpus") & (sub[2].map(_norm) == g)]
    else:
        dataset = _DATASET_ALIASES.get(g)
        rows = rows[rows.dataset == dataset]
        if dataset == "tot-arithmetic":
            rows = rows[rows.variant == "category:all"]
        settings = set(rows.variant) - {""}
        if len(settings) > 1:
            wanted = _variant_candidates(variant)
            rows = rows[rows.variant.map(_norm).isin(wanted)]
    if rows.empty:
        return None
    rows = rows.assign(_appendix=rows.table >= 13).sort_values(["_appendix", "table"], ascending=[False, True])
    return rows.iloc[0]


def with_paper(agg: pd.DataFrame, paper: pd.DataFrame | None = None) -> pd.DataFrame:
    """Add ``paper_model``, ``paper_table``, ``paper_mean``, ``paper_std`` and ``diff`` (ours - paper) columns."""
    paper = load_paper_results() if paper is None else paper
    cols: dict[str, list[Any]] = {k: [] for k in ("paper_model", "paper_table", "paper_mean", "paper_std")}
    for row in agg.itertuples(index=False):
        hit = match_paper(paper, row.task, row.group_key, row.group, row.variant, row.model, row.reasoning,
                          row.reasoning_effort, row.measure)
        cols["paper_model"].append("" if hit is None else hit.model)
        cols["paper_table"].append(np.nan if hit is None else int(hit.table))
        cols["paper_mean"].append(np.nan if hit is None else float(hit["mean"]))
        cols["paper_std"].append(np.nan if hit is None else float(hit["std"]))
    out = agg.assign(**cols)
    out["diff"] = out["mean"] - out["paper_mean"]
    return out


# --------------------------------------------------------------------------------------- rendering

def _fmt(mean: float, std: float, digits: int = 1) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return ""
    if std is None or (isinstance(std, float) and math.isnan(std)):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def _cell(value: Any) -> str:
    """One markdown table cell: NaN empty; ``|`` escaped and line breaks flattened so a cell stays one cell."""
    if isinstance(value, float) and math.isnan(value):
        return ""
    return " ".join(str(value).splitlines()).replace("\\", "\\\\").replace("|", "\\|")


def _markdown(df: pd.DataFrame) -> str:
    header = "| " + " | ".join(_cell(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def task_table(cells: pd.DataFrame) -> pd.DataFrame:
    """One task's cells as a paper-style wide table.

    Rows: (group key, group, variant, model, reasoning); columns: each score measure as ``mean ± std``
    (tokens per sample for token measures, percent otherwise), then for measures with a paper number
    ``<measure> (paper)`` and ``<measure> Δ``; then ``seeds`` (present) and ``samples`` (scored per seed).
    """
    index = ["group_key", "group", "variant", "model", "reasoning"]
    measures = list(dict.fromkeys(cells["measure"]))
    rows: list[dict[str, Any]] = []
    for key, frame in cells.groupby(index, sort=True):
        row = dict(zip(index, key))
        for measure in measures:
            hit = frame[frame.measure == measure]
            if hit.empty:
                continue
            cell = hit.iloc[0]
            digits = 0 if measure in TOKEN_MEASURES else 1
            row[measure] = _fmt(cell["mean"], cell["std"], digits)
            if not math.isnan(cell["paper_mean"]):
                row[f"{measure} (paper)"] = _fmt(cell["paper_mean"], cell["paper_std"], digits)
                row[f"{measure} Δ"] = f"{cell['diff']:+.{digits}f}"
        first = frame.iloc[0]
        hits = frame[frame.paper_model != ""]
        tables = ",".join(f"T{int(t)}" for t in sorted(set(hits.paper_table)))
        row["paper row"] = f"{hits.paper_model.iloc[0]} ({tables})" if not hits.empty else ""
        row["seeds"] = first["seeds"]
        row["samples"] = first["samples"]
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass
class Report:
    """What :func:`build_report` wrote: paths, the merged cell table and the coverage warnings."""

    cells: pd.DataFrame
    warnings: list[str]
    files: list[Path]


def build_report(log_dir: str | Path, out_dir: str | Path, ddof: int = 0,
                 expected_seeds: Sequence[int] | None = None, expected_tasks: Sequence[str] | None = None,
                 plots: bool = True) -> Report:
    """Read the logs, aggregate over seeds, compare with the paper, and write tables (and plots).

    Files written under ``out_dir``: ``cells.csv`` (every cell, long format, with paper columns),
    ``<task>.csv`` and ``<task>.md`` (wide, paper-style), ``report.md`` (all tasks and the warnings),
    ``warnings.txt`` (missing seeds or tasks, runs with no successful log), and with ``plots=True`` ``plots/<task>__<group>[__variant].png``.

    Args:
        log_dir: directory of Inspect logs (searched recursively).
        out_dir: created if needed.
        ddof: std convention (0 population, the default; 1 sample).
        expected_seeds / expected_tasks: what every run should contain (default: the union seen).
        plots: also draw the score-vs-reasoning-tokens plots.

    Returns:
        A :class:`Report`. Each coverage warning is also issued as a :class:`ReportWarning`.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    read = read_log_scores(log_dir)
    messages = coverage_warnings(read.scores, expected_seeds, expected_tasks)
    messages += [f"log not used: {path} ({reason})" for path, reason in read.skipped
                 if not reason.startswith(SUPERSEDED)]
    notes = [f"{path} ({reason})" for path, reason in read.skipped if reason.startswith(SUPERSEDED)]
    for message in messages:
        warnings.warn(message, ReportWarning, stacklevel=2)
    files: list[Path] = []
    cells = with_paper(aggregate(read.scores, ddof=ddof)) if not read.scores.empty else pd.DataFrame()
    sections = [f"# BeDiscovER report\n\nLogs: `{log_dir}`. Each cell: mean ± {'population' if ddof == 0 else 'sample'}"
                f" std over seeds (ddof={ddof}); rates in %, tokens per sample. Paper numbers from "
                f"`paper_results.csv` (table noted), Δ = ours − paper."]
    if messages:
        sections.append("## Warnings\n\n" + "\n".join(f"- {m}" for m in messages))
    if notes:
        sections.append("## Logs superseded by a later successful log of the same run\n\n"
                        + "\n".join(f"- {n}" for n in notes))
    if not cells.empty:
        path = out / "cells.csv"
        cells.to_csv(path, index=False)
        files.append(path)
        for task, frame in cells.groupby("task", sort=True):
            table = task_table(frame)
            csv_path, md_path = out / f"{task}.csv", out / f"{task}.md"
            table.to_csv(csv_path, index=False)
            md = f"## {task}\n\n" + _markdown(table)
            md_path.write_text(md + "\n", encoding="utf-8")
            files += [csv_path, md_path]
            sections.append(md)
        if plots:
            from bediscover_inspect.report.plots import plot_reasoning_effort

            files += plot_reasoning_effort(cells, out / "plots")
    report_md = out / "report.md"
    report_md.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    warn_path = out / "warnings.txt"
    warn_path.write_text("".join(f"{m}\n" for m in messages), encoding="utf-8")
    files += [report_md, warn_path]
    return Report(cells=cells, warnings=messages, files=files)


def iter_groups(cells: pd.DataFrame) -> Iterable[tuple[tuple[str, str, str, str], pd.DataFrame]]:
    """``((task, group_key, group, variant), cells)`` for every plotted panel (the ``all`` group excluded)."""
    panel = cells[cells.group != "all"]
    for key, frame in panel.groupby(["task", "group_key", "group", "variant"], sort=True):
        yield key, frame
