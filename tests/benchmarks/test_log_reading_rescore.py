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


def test_rescore_table_leaves_out_a_tree_at_a_size_it_did_not_re_score(log_reading):
    """Two runs put together: both trees at 1,000 and 4,000 samples, the code after alone at 10,000. The code
    after's slope to 10,000 is from its 4,000 (30 s more over 6,000 samples: 5 ms, the floor 1 ms: 5 ×); the code
    before has no 10,000 line, and no line of report or compare is written for it there."""
    both = {"report": _measured(1, 1), "compare": _measured(1, 1)}
    result = {
        "trees": {"before": "a", "after": "b"},
        "sizes": [
            {
                "samples": 1000,
                "floor": _measured(1, 30),
                "before": both | {"rescore": _measured(10, 300)},
                "after": both | {"rescore": _measured(10, 220)},
            },
            {
                "samples": 4000,
                "floor": _measured(4, 40),
                "before": both | {"rescore": _measured(70, 900)},
                "after": both | {"rescore": _measured(40, 240)},
            },
            {"samples": 10000, "floor": _measured(10, 50), "after": both | {"rescore": _measured(70, 260)}},
        ],
    }
    lines = log_reading.table(result).splitlines()
    start = lines.index("| samples | code | rescore ms/sample | rescore / floor | rescore MB | results identical |")
    assert lines[start + 2 :] == [
        "| 1,000 | before | – | – | 300 | – |",
        "| 1,000 | after | – | – | 220 | – |",
        "| 4,000 | before | 20.000 | 20.0 × | 900 | – |",
        "| 4,000 | after | 10.000 | 10.0 × | 240 | – |",
        "| 10,000 | after | 5.000 | 5.0 × | 260 | – |",
    ]
    assert sum(line.startswith("| 10,000 |") for line in lines) == 2  # the size table's and rescore's, after only
