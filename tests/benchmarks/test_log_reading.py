"""``benchmarks/log_reading.py``: the grown and many-model logs are read by the report as the runs they stand for,
the table's ratios are the slopes', and the script runs at a tiny size."""

from __future__ import annotations

import zipfile

import pytest

from tests.benchmarks.log_reading_script import run_tiny


def test_grown_log_lists_every_sample(log_reading, tmp_path):
    """70 samples from the baseline's 64: 6 copies under ``<id>~1``, the header listing all 70 as completed."""
    from inspect_ai.log import read_eval_log

    log_reading.synthesize(log_reading.SOURCE, 70, tmp_path)
    [path] = tmp_path.glob("*.eval")
    with zipfile.ZipFile(path) as archive:
        members = [name for name in archive.namelist() if name.startswith("samples/")]
    assert len(members) == 70 and sum("~1_epoch_1" in name for name in members) == 6
    header = read_eval_log(str(path), header_only=True)
    assert header.eval.dataset.samples == 70 and len(set(header.eval.dataset.sample_ids)) == 70
    assert header.results.completed_samples == 70 and header.eval.config.sample_id is None
    assert len(read_eval_log(str(path)).samples) == 70


def test_many_model_logs_are_the_runs_they_name(log_reading, tmp_path):
    """Two models × 3 seeds × 2 modes × 5 tasks: 60 runs the report tells apart, each with the model's Table 7
    settings (GPT-5-mini low: max_tokens 4096 and verbosity low; high: 32,768 for dialogue parsing, Table 7's high end), three samples
    of the paper subset each, and a paper row per model."""
    from bediscover_inspect.evallogs.scores import read_log_scores
    from bediscover_inspect.report.matching import paper_model_match

    models = log_reading.MODELS[8:]
    written = log_reading.many_model_dir(tmp_path, models, limit=3)
    assert (written["logs"], written["samples"]) == (60, 180)
    read = read_log_scores(tmp_path)
    assert read.skipped == []
    runs = read.runs
    assert len(runs) == 60 and set(runs["samples"]) == {3}
    assert set(runs["model"]) == {"openai/gpt-5-mini", "openai/azure/gpt-5-mini"}
    assert set(runs["seed"]) == {0, 1, 42} and set(runs["reasoning"]) == {"off", "on"}
    assert runs.groupby(["task", "model", "reasoning"]).size().eq(3).all()
    low = runs[(runs["model"] == "openai/gpt-5-mini") & (runs["task"] == "dialogue_parsing")]
    high = runs[(runs["model"] == "openai/azure/gpt-5-mini") & (runs["task"] == "dialogue_parsing")]
    assert all(g == {"max_tokens": 4096, "verbosity": "low"} for g in low["generate"])
    assert all(g == {"max_tokens": 32768, "verbosity": "low"} for g in high["generate"])
    assert set(low["reasoning_effort"]) == {"low"} and set(high["reasoning_effort"]) == {"high"}
    assert [paper_model_match(m, e, None)[0] for m, e in models] == ["GPT-5-mini (low)", "GPT-5-mini (high)"]


def test_table_gives_slopes_and_their_ratios_to_the_floor(log_reading):
    """From 100 to 1,100 samples the floor adds 1 s (1 ms/sample), report 2 s (2 ms, 2 ×), compare 6 s for both
    sides (3 ms per sample of each side, 3 ×); the smallest size has no slope."""

    def measured(cpu: float, mb: float) -> dict[str, float]:
        return {"wall_s": cpu, "cpu_s": cpu, "peak_rss_mb": mb}

    result = {
        "trees": {"after": "src"},
        "sizes": [
            {
                "samples": 1100,
                "floor": measured(2, 40),
                "after": {"report": measured(5, 250), "compare": measured(10, 300)},
            },
            {
                "samples": 100,
                "floor": measured(1, 30),
                "after": {"report": measured(3, 240), "compare": measured(4, 290)},
            },
        ],
    }
    lines = log_reading.table(result).splitlines()
    assert lines[0].startswith("Code: after = `src`. ")
    assert lines[4:] == [
        "| 100 | after | – | – | – | – | – | 30 | 240 | 290 |",
        "| 1,100 | after | 1.000 | 2.000 | 2.0 × | 3.000 | 3.0 × | 40 | 250 | 300 |",
    ]


@pytest.mark.slow
def test_script_runs_at_a_tiny_size(tmp_path):
    """One size (the log grown past the baseline's 64 samples), also re-scored, and one model's 30 logs of three
    samples reported without plots, the code after only: every command measured, the report's tables hold the
    model, the markdown written with the rescore table. One size gives no slope (the tables' slopes are the tests
    above): each command runs once. The report's plots are drawn in ``tests/report`` and in ``run_all.py
    --quick``."""
    args = ["--sizes", "96", "--rescore-sizes", "96", "--models", "1", "--many-limit", "3", "--many-no-plots"]
    result, markdown = run_tiny(tmp_path, args, timeout=900)
    [row] = result["sizes"]
    assert row["samples"] == 96 and row["log_mb"] > 0
    assert row["floor"]["cpu_s"] > 0 and row["floor"]["peak_rss_mb"] > 0
    for name in ("report", "compare", "rescore"):
        assert row["after"][name]["cpu_s"] > 0 and row["after"][name]["peak_rss_mb"] > 0
    many = result["many"]
    assert (many["logs"], many["samples"], many["after"]["finished"]) == (30, 90, True)
    assert set(many["after"]["models_per_table"].values()) == {1} and many["plots"] is False
    assert "`bediscover report` (--no-plots) over 1 model × 6 runs × 5 tasks (30 logs, 90 samples" in markdown
    sizes, rescore = markdown.split("rescore ms/sample")
    assert f"| 96 | after | – | – | – | – | – | {row['floor']['peak_rss_mb']:.0f} |" in sizes
    assert f"| 96 | after | – | – | {row['after']['rescore']['peak_rss_mb']:.0f} | – |" in rescore
