"""A log's results read back into rows of measures: the structure Inspect stores with each metric entry (the
``grouped`` parameters and the measure metric's name and ``stat``), as the metric engine
(:mod:`bediscover_inspect.metrics`) composes it; no entry name is parsed."""

from __future__ import annotations

from typing import Any

from bediscover_inspect.metrics import HEADLINE_STDERR, PRIMARY_GROUP_KEY, STDERR_SUFFIX


def _unqualified(name: str) -> str:
    return name.split("/", 1)[-1]


def read_results(log: Any) -> list[dict[str, Any]]:
    """Every measure a suite scorer wrote into ``log.results``, one row per (measure, group).

    Reads the structure Inspect stores with each metric entry — the ``grouped`` parameters (group key, name
    template) and the measure metric's name and ``stat`` — so no entry name is parsed.

    Returns:
        Rows ``{"scorer", "measure", "group_key", "group", "value", "stderr"}``: ``group_key`` ``"all"`` and
        group ``"all"`` for the overall value; ``stderr`` NaN where none was logged. ``[]`` for a log without
        results.
    """
    rows: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    results = getattr(log, "results", None)
    for score in (results.scores if results else None) or []:
        for entry in score.metrics.values():
            params = entry.params or {}
            if "group_key" in params and isinstance(params.get("metric"), dict):
                inner = params["metric"]
                measure = _unqualified(str(inner.get("name", "")))
                stat = (inner.get("params") or {}).get("stat", "value")
                template = str(params.get("name_template", "{group_name}"))
                prefix = template.split("{group_name}")[0]
                if not entry.name.startswith(prefix):
                    continue
                group_key, group = str(params["group_key"]), entry.name[len(prefix) :]
            elif entry.group is not None:
                measure = _unqualified(entry.group)
                if entry.name == measure:
                    stat = "value"
                elif entry.name in (measure + STDERR_SUFFIX, HEADLINE_STDERR):
                    stat = "stderr"
                else:
                    continue
                group_key = group = "all"
            else:
                continue
            key = (score.name, measure, group_key, group)
            row = rows.setdefault(
                key,
                {
                    "scorer": score.name,
                    "measure": measure,
                    "group_key": group_key,
                    "group": group,
                    "value": float("nan"),
                    "stderr": float("nan"),
                },
            )
            row["stderr" if stat == "stderr" else "value"] = float(entry.value)
    return list(rows.values())


def measures_by_group(
    log: Any, scorer: str | None = None, group_key: str = PRIMARY_GROUP_KEY
) -> dict[str, dict[str, float]]:
    """:func:`read_results` as ``{measure: {"all": value, group: value, …}}`` for one group key (notebooks, tests).

    Args:
        log: an eval log (header enough).
        scorer: only this scorer's measures (default: every scorer's).
        group_key: which breakdown to show beside ``all`` (``dataset``, ``framework``, ``language``, ``category``).
    """
    table: dict[str, dict[str, float]] = {}
    for row in read_results(log):
        if (scorer is None or row["scorer"] == scorer) and row["group_key"] in ("all", group_key):
            table.setdefault(row["measure"], {})[row["group"]] = row["value"]
    return table
