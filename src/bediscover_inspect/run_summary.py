"""The table ``bediscover run`` ends with: one row per eval and dataset, the headline measure by name.

    task               setting                dataset   headline           invalid  cut off  samples  log                   differs
    sentence_ordering  seed 0, reasoning off  nips-abs  PMR 12.5 ± 12.5 %    50.0%    37.5%        8  2026-…_sentence-….eval  max_tokens 256 (Table 7, any model: 2048 or 4096)
    ± is the headline's standard error over the samples; differs: how the run departs from the paper's setting

    3 samples stopped at max_tokens=256: raise --max-tokens or see the report's cut-off column

Per row: the run's setting (the ``--seed`` value and the reasoning mode); the headline measure of the scorer that
covers the dataset (the measure catalog's, :func:`bediscover_inspect.measures.headline`: PMR, accuracy, micro-F1 or
link-F1) with its standard error (the log's: Inspect's ``stderr()`` of a mean, the seeded bootstrap of a
corpus-level measure), both in %; the invalid rate in % (dialogue parsing: the share of relations read that were
invalid, "–" where nothing was read); the cut-off rate in % (the share of samples whose reply stopped at the token
budget, ``cut_off_rate``: :mod:`bediscover_inspect.causes`; dialogue parsing: the mean share of a dialogue's
turns); the samples scored (dialogue parsing: dialogues); the log file, relative to
the log directory, on the first row of each log; and, when some row's run departs from the paper's setting,
``differs``: what it does differently (``--limit``, ``-T per_dataset``, a data file that is not the pinned one,
generate settings other than Table 7's …), the text of ``bediscover report``'s ``differs`` column
(:func:`bediscover_inspect.report.setting.log_differences`). A line under the rows says what ± and ``differs``
are. Every other number stays in the logs (``inspect view``, :func:`bediscover_inspect.evallogs.results.read_results`).

Under the table (:func:`reply_lines`), counted over every reply of the run (a dialogue-parsing turn is one reply):
one line when replies came back with their text only in the reasoning (empty content, non-empty reasoning: the
server's reasoning parser is the first thing to check), and one when replies stopped at the token budget.
"""

from __future__ import annotations

import asyncio
import math
import os
import sys
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from .evallogs.results import read_results
from .evallogs.samples import read_samples_async
from .evallogs.scores import eval_seed, run_facts, some_not_scored
from .measures import SCORERS, headline
from .metrics import PRIMARY_GROUP_KEY
from .presets import reasoning_flag

MEASURE_NAMES = {"pmr": "PMR", "accuracy": "accuracy", "micro_f1": "micro-F1", "link_f1": "link-F1"}
"""How a headline measure is named in the table (the paper's terms); another measure keeps its metric name."""

INVALID_MEASURES = ("invalid", "invalid_rate")
"""Measures that are a scorer's invalid-answer rate (dialogue parsing: ``invalid_rate``, per turn)."""

CUT_OFF_MEASURE = "cut_off_rate"
"""The measure of the "cut off" column (:data:`bediscover_inspect.measures.CATALOG`)."""


COLUMNS = ("task", "setting", "dataset", "headline", "invalid", "cut off", "samples", "log", "differs")

FOOTNOTE = "± is the headline's standard error over the samples"
DIFFERS_NOTE = "; differs: how the run departs from the paper's setting"


def headline_measure(log: Any, scorer: str) -> str | None:
    """The headline measure of ``scorer``: the measure catalog's (:func:`bediscover_inspect.measures.headline`), else
    (a scorer outside the catalog) its first measure in ``log``'s results; ``None`` when it has none."""
    if scorer.rsplit("/", 1)[-1] in SCORERS:
        return headline(scorer).name
    rows = [row["measure"] for row in read_results(log) if row["scorer"] == scorer]
    return rows[0] if rows else None


def shown_path(location: str, log_dir: str | None) -> str:
    """A log's location as the table shows it: relative to ``log_dir`` when inside it (local paths, ``file:`` and
    object-store URLs alike), else as it is."""
    path = location.removeprefix("file://") if location.startswith("file://") else location.removeprefix("file:")
    if not log_dir:
        return path
    if "://" in path:
        prefix = log_dir.rstrip("/") + "/"
        return path[len(prefix) :] if path.startswith(prefix) else path
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(log_dir))
    return path if relative.startswith("..") else relative


def scored_samples(log: Any) -> dict[str, str]:
    """The samples of ``log`` scored: sample id -> its ``dataset`` metadata value, for each id with an epoch that
    ended without error and has a score (an errored sample was asked, not scored), from its sample summaries (the
    samples in memory when the log carries them)."""
    from inspect_ai.log import read_eval_log_sample_summaries

    samples: Iterable[Any] = log.samples if log.samples else read_eval_log_sample_summaries(log.location)
    return {
        str(sample.id): str((sample.metadata or {}).get(PRIMARY_GROUP_KEY, ""))
        for sample in samples
        if sample.error is None and sample.scores
    }


def summary_rows(log: Any, log_dir: str | None = None) -> list[dict[str, Any]]:
    """One row per scorer and dataset of ``log``, in the log's order: ``task``, ``seed`` (``None`` when not set),
    ``reasoning`` (the task argument), ``dataset``, ``measure`` (the headline's name), ``headline`` and
    ``headline_stderr`` (fractions), ``invalid`` and ``cut_off`` (fractions or NaN), ``samples``, ``log`` and
    ``differs`` (what
    the run does differently from the paper's setting for the dataset, ``"; "``-joined:
    :func:`bediscover_inspect.report.setting.log_differences`; empty for the paper's setting).

    A log without results (failed, cancelled) gives one row naming its status in ``dataset``.
    """
    task = str(log.eval.task).rsplit("/", 1)[-1]
    seed = eval_seed(log)
    reasoning = (log.eval.task_args or {}).get("reasoning")
    base = {"task": task, "seed": seed, "reasoning": reasoning, "log": shown_path(str(log.location), log_dir)}
    if log.status != "success" or not log.results:
        return [base | _status_row(log)]
    scored = scored_samples(log)
    counts = Counter(scored.values())
    results = read_results(log)
    facts = run_facts(str(log.location), log, frozenset(scored) if some_not_scored(log) else None)
    rows = []
    for score in log.results.scores:
        measure = headline_measure(log, score.name)
        if measure is not None:
            rows += [base | row for row in _scorer_rows(results, score.name, measure, counts, facts)]
    return rows


def _scorer_rows(
    results: Sequence[dict[str, Any]], scorer: str, measure: str, counts: Counter[str], facts: dict[str, Any]
) -> list[dict[str, Any]]:
    """The rows of one scorer: one per dataset with its headline ``measure`` among the log's ``results``;
    ``counts``: samples scored per dataset; ``facts``: the run's facts (for ``differs``)."""
    # import cost: the report's comparison with the paper reads the paper's tables with pandas (about 0.5 s CPU),
    # only when the run's table is printed (never in a worker process)
    from .report.setting import log_differences

    mine = [r for r in results if r["scorer"] == scorer and r["group_key"] == PRIMARY_GROUP_KEY]
    rows = []
    for row in (r for r in mine if r["measure"] == measure):
        differs = "; ".join(log_differences(facts, PRIMARY_GROUP_KEY, row["group"]))
        rows.append(_dataset_row(mine, row, counts.get(row["group"], 0), differs))
    return rows


def _status_row(log: Any) -> dict[str, Any]:
    """The row of a log without results: its status in ``dataset``, no measure."""
    return {
        "dataset": f"({log.status})",
        "measure": "",
        "headline": math.nan,
        "headline_stderr": math.nan,
        "invalid": math.nan,
        "cut_off": math.nan,
        "samples": log.results.completed_samples if log.results else 0,
        "differs": "",
    }


def _dataset_row(mine: Sequence[dict[str, Any]], row: dict[str, Any], samples: int, differs: str) -> dict[str, Any]:
    """The row of one dataset: its headline ``row`` of the scorer's results ``mine``, with the invalid and cut-off
    rates of the same dataset (NaN where the scorer has none)."""
    invalid = [r["value"] for r in mine if r["measure"] in INVALID_MEASURES and r["group"] == row["group"]]
    cut_off = [r["value"] for r in mine if r["measure"] == CUT_OFF_MEASURE and r["group"] == row["group"]]
    return {
        "dataset": row["group"],
        "measure": row["measure"],
        "headline": row["value"],
        "headline_stderr": row["stderr"],
        "invalid": invalid[0] if invalid else math.nan,
        "cut_off": cut_off[0] if cut_off else math.nan,
        "samples": samples,
        "differs": differs,
    }


def _percent(value: float) -> str:
    return "–" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def format_table(logs: Sequence[Any], log_dir: str | None = None) -> tuple[str, list[str]]:
    """The end-of-run table of ``logs`` (module docstring) as plain text, and a message per log left out because
    its samples could not be read; ``""`` for no rows.

    Rows are sorted by task, reasoning mode, seed and then the dataset order of the log.
    """
    rows, left_out = _table_rows(logs, log_dir)
    if not rows:
        return "", left_out
    cells = [_row_cells(row) for row in rows]
    differs = any(row["differs"] for row in rows)
    shown = COLUMNS if differs else COLUMNS[:-1]
    lines = _aligned(list(shown), [line[: len(shown)] for line in cells])
    lines.append(FOOTNOTE + (DIFFERS_NOTE if differs else ""))
    return "\n".join(lines), left_out


def _aligned(shown: list[str], cells: list[list[str]]) -> list[str]:
    """The header ``shown`` and the rows of ``cells`` as lines of columns two spaces apart, the counts and rates
    right-aligned."""
    widths = [max(len(line[i]) for line in [shown, *cells]) for i in range(len(shown))]
    right = {"invalid", "cut off", "samples"}
    return [
        "  ".join(
            cell.rjust(width) if name in right else cell.ljust(width)
            for name, cell, width in zip(shown, line, widths, strict=True)
        ).rstrip()
        for line in [shown, *cells]
    ]


def _table_rows(logs: Sequence[Any], log_dir: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The :func:`summary_rows` of ``logs`` in the table's order (each log's path on its first row only), and a
    message per log whose samples could not be read."""
    rows: list[dict[str, Any]] = []
    left_out: list[str] = []
    for log in sorted(logs, key=_order):
        try:
            own = summary_rows(log, log_dir)
        except (OSError, ValueError, KeyError) as exc:
            left_out.append(f"no summary for {log.location}: {exc}")
            continue
        rows += [row | {"log": row["log"] if i == 0 else ""} for i, row in enumerate(own)]
    return rows, left_out


def _row_cells(row: dict[str, Any]) -> list[str]:
    """One row's cells, in the order of :data:`COLUMNS`."""
    headline = (
        f"{MEASURE_NAMES.get(row['measure'], row['measure'])} {_percent(row['headline'])}"
        f" ± {_percent(row['headline_stderr'])} %"
        if row["measure"]
        else ""
    )
    return [
        row["task"],
        _setting(row["seed"], row["reasoning"]),
        row["dataset"],
        headline,
        _rate_cell(row, "invalid"),
        _rate_cell(row, "cut_off"),
        str(row["samples"]),
        row["log"],
        row["differs"],
    ]


def _rate_cell(row: dict[str, Any], key: str) -> str:
    """A rate column's cell: ``12.5%``, ``–`` for no value, empty on a failed log's row."""
    if not row["measure"]:
        return ""
    value = row.get(key, math.nan)
    return "–" if value is None or math.isnan(value) else f"{_percent(value)}%"


def reply_counts(log: Any) -> tuple[int, int, int, int]:
    """``(replies, cut off, reasoning only, samples cut off)`` of one log, from its sample summaries' scores: one
    reply per sample (a dialogue-parsing sample: one per turn, its ``turns``; its ``cut_off`` / ``reasoning_only``
    shares times its turns); a sample is cut off when any of its replies is. Samples without those values (an
    older log) count as replies with neither."""
    from inspect_ai.log import read_eval_log_sample_summaries

    if log.status != "success" and not log.samples:
        return 0, 0, 0, 0
    samples: Iterable[Any] = log.samples if log.samples else read_eval_log_sample_summaries(log.location)
    counts = [_sample_replies(sample) for sample in samples]
    return (
        sum(c[0] for c in counts),
        sum(c[1] for c in counts),
        sum(c[2] for c in counts),
        sum(c[3] for c in counts),
    )


def _sample_replies(sample: Any) -> tuple[int, int, int, int]:
    """``(replies, cut off, reasoning only, cut off at all)`` of one sample (summary), as :func:`reply_counts`
    counts them: the values of its first score holding ``cut_off`` (else its first dict value)."""
    values = [s.value for s in (sample.scores or {}).values() if isinstance(s.value, dict)]
    value = next((v for v in values if "cut_off" in v), values[0] if values else {})
    n = int(value.get("turns") or 1)
    cut = round(float(value.get("cut_off") or 0.0) * n)
    only = round(float(value.get("reasoning_only") or 0.0) * n)
    return n, cut, only, int(bool(value.get("cut_off")))


def max_tokens_of(log: Any) -> int | None:
    """The ``max_tokens`` a log's requests went out with (the eval's generate config over the model's), ``None``
    when none was set."""
    for config in (getattr(log.plan, "config", None), getattr(log.eval, "model_generate_config", None)):
        value = getattr(config, "max_tokens", None) if config is not None else None
        if value is not None:
            return int(value)
    return None


def reply_lines(logs: Sequence[Any]) -> list[str]:
    """The lines under the run's table (module docstring): replies with their text only in the reasoning, and
    replies stopped at the budget (``max_tokens=4096``, or each budget sent when the logs differ); none when
    neither happened."""
    replies = cut = only = samples_cut = 0
    budgets: set[int | None] = set()
    for log in logs:
        n, c, r, k = reply_counts(log)
        replies, cut, only, samples_cut = replies + n, cut + c, only + r, samples_cut + k
        if c:
            budgets.add(max_tokens_of(log))
    lines = []
    if only:
        lines.append(
            f"{only} of {replies} replies had their text only in the reasoning: the content was empty, the "
            "reasoning was not (they are invalid, cause reasoning_only). Check the server's reasoning parser "
            "(vLLM --reasoning-parser, the chat template's <think> handling) or give the answer room after the "
            "reasoning"
        )
    if cut:
        shown = " or ".join(sorted("not set" if b is None else str(b) for b in budgets))
        lines.append(
            f"{samples_cut} {'sample' if samples_cut == 1 else 'samples'} stopped at max_tokens={shown}"
            + (f" ({cut} of {replies} replies)" if cut != samples_cut else "")
            + ": raise --max-tokens or see the report's cut-off column"
        )
    return lines


def _setting(seed: int | None, reasoning: Any) -> str:
    """``seed 0, reasoning off`` (``seed not set`` without ``--seed``; the mode left out when not recorded)."""
    try:
        mode = None if reasoning is None else ("on" if reasoning_flag(reasoning) else "off")
    except ValueError:
        mode = None
    return ("seed not set" if seed is None else f"seed {seed}") + (f", reasoning {mode}" if mode else "")


def _order(log: Any) -> tuple[str, bool, int]:
    args = log.eval.task_args or {}
    seed = eval_seed(log)
    return (str(log.eval.task), bool(args.get("reasoning")), -1 if seed is None else seed)


def actual_usage(logs: Sequence[Any]) -> dict[str, Any]:
    """What ``logs`` spent: ``calls`` (their samples' model calls, read through
    :func:`bediscover_inspect.evallogs.samples.read_samples_async`), ``prompt_tokens`` and ``output_tokens``
    (Inspect's ``stats.model_usage``: input and output tokens), ``cost`` (its ``total_cost``; ``None`` when
    Inspect had no prices).

    Raises:
        OSError, zipfile.BadZipFile, ValueError: a log's samples cannot be read.
    """

    async def calls() -> int:
        return sum([s.model_calls for log in logs async for s in read_samples_async(str(log.location))])

    usage = [u for log in logs for u in (log.stats.model_usage or {}).values()]
    costs = [u.total_cost for u in usage]
    return {
        "calls": asyncio.run(calls()),
        "prompt_tokens": sum(u.input_tokens for u in usage),
        "output_tokens": sum(u.output_tokens for u in usage),
        "cost": None if not costs or None in costs else sum(c or 0.0 for c in costs),
    }


def plan_lines(planned: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """The run's figures beside its plan's: calls, prompt tokens, output tokens (planned: the ceiling, and the
    expected where ``--from-logs`` gave it) and cost; ``planned`` is
    :meth:`bediscover_inspect.plan.core.Plan.totals`, ``actual`` :func:`actual_usage`. A figure the plan did not
    count or price reads ``not counted`` / ``not priced``; when the plan left out samples finished earlier, a line
    says that the actual figures include them."""

    def n(value: Any) -> str:
        return "not counted" if value is None else f"{value:,.0f}"

    def usd(value: Any) -> str:
        return "not priced" if value is None else f"${value:,.2f}"

    def ceiling(value: Any, expected: Any, shown: Any) -> str:
        if value is None:
            return shown(value)
        return f"{shown(value)} ceiling" + (f", {shown(expected)} expected" if expected is not None else "")

    output = ceiling(planned["output_ceiling"], planned.get("output_expected"), n)
    cost = ceiling(planned["cost_ceiling"], planned.get("cost_expected"), usd)
    rows = [
        ("", "planned", "actual"),
        ("calls", n(planned["calls"]), n(actual["calls"])),
        ("prompt tokens", n(planned["prompt_tokens"]), n(actual["prompt_tokens"])),
        ("output tokens", output, n(actual["output_tokens"])),
        ("cost", cost, usd(actual["cost"])),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"{a.ljust(widths[0])}  {b.rjust(widths[1])}  {c.rjust(widths[2])}" for a, b, c in rows]
    if planned.get("samples_done"):
        lines.append(f"actual includes the {planned['samples_done']:,} samples finished before this run")
    return lines


def print_run_summary(logs: Sequence[Any], log_dir: str, planned: dict[str, Any] | None = None) -> None:
    """Print :func:`format_table` of ``logs`` on stdout after a blank line (nothing for no rows), then
    :func:`reply_lines` after a blank line, then, given the plan's totals ``planned``, :func:`plan_lines`, and each
    log left out as one ``warning:`` line on stderr."""
    table, left_out = format_table(logs, log_dir)
    for message in left_out:
        print(f"warning: {message}", file=sys.stderr)
    if table:
        print(f"\n{table}", flush=True)
    try:
        lines = reply_lines(logs)
    except (OSError, ValueError, KeyError) as exc:
        lines = [f"warning: replies not counted: {exc}"]
    if lines:
        print("\n" + "\n".join(lines), flush=True)
    if planned is not None and logs:
        try:
            lines = plan_lines(planned, actual_usage(logs))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            lines = [f"warning: actual usage not read: {exc}"]
        print("\n" + "\n".join(lines), flush=True)
