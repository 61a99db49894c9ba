"""The real discourse-markers task against the loopback server replying in reasoning-model shapes: a third of the
replies stopped at the budget (counted, none read as a label), and replies whose text is only in the reasoning
(counted and explained)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bediscover_inspect.run_summary import reply_lines
from tests.gate.loopback_server import run_loopback

SAMPLES = 9


def _run(tmp_path: Path, monkeypatch, *shapes: str):
    arguments = ["1000", "Answer: Consequence", *shapes]
    log = run_loopback(tmp_path / "port", monkeypatch, arguments, tmp_path / "logs", SAMPLES, max_tokens=300)
    assert log.status == "success"
    return log


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_a_third_cut_off_at_the_budget_is_counted_and_never_read(tmp_path, monkeypatch):
    log = _run(tmp_path, monkeypatch, "answer", "answer", "length")
    scores = [next(iter(s.scores.values())) for s in log.samples]
    cut = [s for s in scores if s.value["cut_off"] == 1.0]
    assert len(cut) == SAMPLES // 3
    assert all(s.answer == "<invalid>" and s.metadata["cause"] == "cut_off" for s in cut)
    assert all(s.metadata["max_tokens"] == 300 and s.value["output_tokens"] == 300 for s in cut)
    # a finished "Answer: Consequence" is read; the cut-off analysis names Consequence in passing and is not
    assert [s.answer for s in scores if s.value["cut_off"] == 0.0] == ["Consequence"] * 6
    metrics = {name: m.value for score in log.results.scores for name, m in score.metrics.items()}
    assert metrics["cut_off_rate"] == pytest.approx(1 / 3)
    assert reply_lines([log]) == [
        "3 samples stopped at max_tokens=300: raise --max-tokens or see the report's cut-off column"
    ]


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_replies_only_in_the_reasoning_are_counted_and_explained(tmp_path, monkeypatch):
    log = _run(tmp_path, monkeypatch, "reasoning_only", "answer", "unclosed_think")
    scores = [next(iter(s.scores.values())) for s in log.samples]
    assert [s.metadata["cause"] for s in scores[:3]] == ["reasoning_only", None, "cut_off"]
    assert scores[0].explanation.startswith("text only in the reasoning: the reply's content is empty")
    assert scores[2].explanation.startswith("cut off at 300 tokens of max_tokens=300 (stop reason max_tokens), inside")
    lines = reply_lines([log])
    assert lines[0].startswith("3 of 9 replies had their text only in the reasoning: the content was empty")
    assert lines[1].startswith("3 samples stopped at max_tokens=300")
