"""``benchmarks/log_reading.py``'s rescore measurement: its table's slopes and ratios (the script's run at a tiny
size, re-scoring included, is in ``test_log_reading.py``)."""

from __future__ import annotations


def _measured(cpu: float, mb: float) -> dict[str, float]:
    return {"wall_s": cpu, "cpu_s": cpu, "peak_rss_mb": mb}


def test_rescore_table_gives_its_slope_between_the_sizes_re_scored(log_reading):
    """Re-scored at 100 and 1,100 samples (not at 600): rescore adds 17 s over those 1,000 samples (17 ms/sample)
    while the floor adds 1 s (1 ms), so 17 ×; the smallest size has no slope."""
    row = {"report": _measured(1, 1), "compare": _measured(1, 1)}
    result = {
        "trees": {"after": "src"},
        "sizes": [
            {"samples": 100, "floor": _measured(1, 30), "after": row | {"rescore": _measured(5, 240)}},
            {"samples": 600, "floor": _measured(1.5, 35), "after": row},
            {
                "samples": 1100,
                "floor": _measured(2, 40),
                "after": row | {"rescore": _measured(22, 250)},
                "rescore_results_identical": True,
            },
        ],
    }
    lines = log_reading.table(result).splitlines()
    start = lines.index("| samples | code | rescore ms/sample | rescore / floor | rescore MB | results identical |")
    assert lines[start + 2 : start + 4] == [
        "| 100 | after | – | – | 240 | – |",
        "| 1,100 | after | 17.000 | 17.0 × | 250 | yes |",
    ]
