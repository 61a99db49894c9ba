"""What-if for cause 9: Inspect's live buffer with the live metrics kept out of the row each event rewrites.

Benchmark-only. The suite never imports this module and never changes Inspect; it exists to measure what the
upstream change proposed in ``benchmarks/README.md`` ("Upstream report") would give, side by side with Inspect as
released.

In inspect-ai 0.3.285 ``SampleBufferDatabase`` (``inspect_ai/log/_recorders/buffer/database.py``) keeps the live
metrics JSON in ``task_database``, the one-row table whose ``version`` column (its ``INTEGER PRIMARY KEY``) every
write transaction bumps. SQLite rewrites a whole row on update, overflow pages included, so every sample event
rewrites the live metrics: about 54 KB for discourse_relations' 254 entries. :func:`apply` moves the metrics to a
one-row table of their own (``live_metrics``), written at each ``update_metrics`` call (about every 0.9 s), and
reads them back from there; the version bump and everything else stay as they are. Within one process the buffer
returns the same ``TaskData`` (version + metrics) as before, and it reads a buffer written by Inspect as released
(no ``live_metrics`` table: it falls back to ``task_database.metrics``). The reverse does not hold: an ``inspect
view`` running Inspect as released finds no live metrics in the buffer of a patched run.
"""

from __future__ import annotations

import json
from typing import Any

ENV = "BEDISCOVER_BENCH_LIVE_METRICS_TABLE"
"""Set to ``1`` (``overhead.py --live-metrics-table``) to run both benchmark children with :func:`apply`."""

TABLE = "live_metrics"
"""Name of the table that holds the live metrics JSON under :func:`apply`."""

_applied = False


def _update_metrics(self: Any, metrics: list[Any]) -> None:
    from inspect_ai._util.json import to_json_str_safe

    with self._get_connection(write=True) as conn:
        conn.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), metrics TEXT)")
        conn.execute(f"INSERT OR REPLACE INTO {TABLE} (id, metrics) VALUES (1, ?)", [to_json_str_safe(metrics)])


def _get_task_data(self: Any, conn: Any) -> Any:
    from sqlite3 import OperationalError

    from inspect_ai.log._recorders.buffer.database import TaskData

    version = conn.execute("SELECT version FROM task_database").fetchone()["version"]
    try:
        row = conn.execute(f"SELECT metrics FROM {TABLE}").fetchone()
    except OperationalError:  # no live metrics written yet, or a buffer written by Inspect as released
        row = conn.execute("SELECT metrics FROM task_database").fetchone()
    return TaskData(version=version, metrics=json.loads(row["metrics"]) if row else [])


def _buffer_class() -> Any:
    from inspect_ai.log._recorders.buffer.database import SampleBufferDatabase

    for name in ("update_metrics", "_get_task_data"):
        if not hasattr(SampleBufferDatabase, name):
            raise AttributeError(f"inspect_ai SampleBufferDatabase has no {name!r}: the what-if targets 0.3.285")
    return SampleBufferDatabase


def own_table_buffer() -> type:
    """A ``SampleBufferDatabase`` subclass with the live metrics in their own table (for side-by-side timing).

    Raises:
        AttributeError: the installed Inspect no longer has the two methods (the what-if is for 0.3.285).
    """
    return type("OwnTableSampleBuffer", (_buffer_class(),),
                {"update_metrics": _update_metrics, "_get_task_data": _get_task_data})


def apply() -> None:
    """Give Inspect's own ``SampleBufferDatabase`` the two methods of :func:`own_table_buffer` (idempotent).

    For a whole eval, where Inspect creates the buffer itself; it changes this process only.

    Raises:
        AttributeError: the installed Inspect no longer has the two methods (the what-if is for 0.3.285).
    """
    global _applied
    if _applied:
        return
    buffer_class = _buffer_class()
    buffer_class.update_metrics = _update_metrics
    buffer_class._get_task_data = _get_task_data
    _applied = True


def applied() -> bool:
    """Whether :func:`apply` ran in this process."""
    return _applied
