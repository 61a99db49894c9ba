"""Cost of one sample event in Inspect's live buffer against the number of live metric entries.

    .venv/bin/python benchmarks/live_metrics_row.py [--events 5000] [--repeats 3]

Why (issue 8, cause 9 in ``benchmarks/README.md``): while an eval runs, Inspect writes every sample event to a
SQLite buffer (what ``inspect view`` reads live). Each event's transaction also runs ``UPDATE task_database SET
version = version + 1``, and ``version`` is that table's ``INTEGER PRIMARY KEY`` while the same row holds the
JSON of the live metrics (``update_metrics``, about every 0.9 s). So every event re-inserts the whole metrics
row, and the cost of *every* event grows with the number of metric entries a task reports. discourse_relations
reports 254 entries at paper size (7 measures x 32 corpora + ``all``, accuracy per framework and per language).

This script uses Inspect's own ``SampleBufferDatabase`` (inspect-ai 0.3.285, a private module) in a temporary
directory: it sets the live metrics to N entries with discourse_relations' names, then logs ``--events`` info
events for one sample and times them; the N values run interleaved in each repeat, so all see the same machine
state. The garbage collector is off while an event loop is timed (one full collection inside a loop would be
charged to that entry count alone). Result: microseconds per event and the ratio to N = 1 with Inspect as released (what a bare task with
one ``accuracy`` has); use ``--repeats`` >= 3 so the median is one of the runs.

Each entry count is timed twice, interleaved: with Inspect's buffer as released (``inspect``) and with the live
metrics in a table of their own (``own_table``, ``_live_metrics_table.own_table_buffer``: the upstream change
proposed in ``benchmarks/README.md``), so the result shows the cause and the fix side by side.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import median, write_result

ENTRY_COUNTS = (1, 17, 50, 120, 254)
"""1 = a bare task's ``accuracy``; 17 = temporal_reasoning on one dataset; 254 = discourse_relations at paper size."""


def _metrics(n: int) -> list[Any]:
    """``n`` live metric entries named like discourse_relations' (``<measure>/<corpus>``)."""
    from inspect_ai._display.core.display import TaskDisplayMetric

    from bediscover_inspect.discourse_relations.dataset import CORPORA
    from bediscover_inspect.discourse_relations.scorer import RELATION_MEASURES

    names = [f"{measure}/{group}" for measure in RELATION_MEASURES for group in ("all", *CORPORA)]
    return [TaskDisplayMetric(scorer="discourse_relation_scorer", scorer_name="discourse_relation_scorer",
                              name=name, value=0.123456789012345, reducer=None, params={}, headline=False)
            for name in names[:n]]


LAYOUTS = ("inspect", "own_table")
"""``inspect``: Inspect's ``SampleBufferDatabase`` as released; ``own_table``: the live metrics in their own table."""


def time_events(n_entries: int, events: int, root: Path, layout: str = "inspect") -> dict[str, float]:
    """Seconds per logged event with ``n_entries`` live metric entries in a fresh buffer database of ``layout``.

    Raises:
        ValueError: ``layout`` is not one of :data:`LAYOUTS`.
    """
    from inspect_ai._util.json import to_json_str_safe
    from inspect_ai.event import InfoEvent
    from inspect_ai.log import EvalSampleSummary
    from inspect_ai.log._recorders.buffer.database import SampleBufferDatabase
    from inspect_ai.log._recorders.types import SampleEvent

    from _live_metrics_table import own_table_buffer

    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    buffer_class = SampleBufferDatabase if layout == "inspect" else own_table_buffer()
    db_dir = root / f"db_{layout}_{n_entries}"
    db = buffer_class(str(root / f"log_{layout}_{n_entries}.eval"), db_dir=db_dir)
    try:
        metrics = _metrics(n_entries)
        db.update_metrics(metrics)
        db.start_sample(EvalSampleSummary(id=1, epoch=1, input="x", target="y"))
        batch = [SampleEvent(id=1, epoch=1, event=InfoEvent(data={"turn": i})) for i in range(events)]
        # a full garbage collection (~70 ms here) landing inside one entry count's loop would be charged to it alone
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            for event in batch:
                db.log_events([event])
            seconds = time.perf_counter() - start
        finally:
            gc.enable()
        return {"per_event_us": 1e6 * seconds / events, "metrics_json_bytes": len(to_json_str_safe(metrics))}
    finally:
        db.cleanup()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Time the event path for every entry count (interleaved, ``--repeats`` times); write the result JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="live_metrics_row")
    args = parser.parse_args(argv)
    if args.events < 1 or args.repeats < 1:
        parser.error(f"--events and --repeats must be at least 1 (got {args.events} and {args.repeats})")
    per_event: dict[tuple[str, int], list[float]] = {(layout, n): [] for layout in LAYOUTS for n in ENTRY_COUNTS}
    size: dict[int, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            for n in ENTRY_COUNTS:
                for layout in LAYOUTS:
                    res = time_events(n, args.events, Path(tmp) / f"r{r}", layout)
                    per_event[layout, n].append(res["per_event_us"])
                    size[n] = int(res["metrics_json_bytes"])
    base = median(per_event["inspect", 1])
    rows = []
    for n in ENTRY_COUNTS:
        inspect_us, own_us = median(per_event["inspect", n]), median(per_event["own_table", n])
        rows.append({"entries": n, "metrics_json_bytes": size[n], "per_event_us": inspect_us,
                     "per_event_us_runs": per_event["inspect", n], "ratio_to_one_entry": inspect_us / base,
                     "own_table_per_event_us": own_us, "own_table_per_event_us_runs": per_event["own_table", n],
                     "own_table_ratio_to_one_entry": own_us / base})
    for row in rows:
        print(f"{row['entries']:4d} entries  {row['metrics_json_bytes']:6d} B  inspect {row['per_event_us']:7.1f} us/event"
              f" x{row['ratio_to_one_entry']:.2f}  own table {row['own_table_per_event_us']:7.1f} us/event"
              f" x{row['own_table_ratio_to_one_entry']:.2f}", flush=True)
    path = write_result(args.out, {"events": args.events, "repeats": args.repeats, "rows": rows})
    print(f"wrote {path}")
    return {"rows": rows}


if __name__ == "__main__":
    main(sys.argv[1:])
