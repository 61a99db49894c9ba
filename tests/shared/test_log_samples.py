"""The log layer's sample reader against Inspect's own: the samples read one at a time from an ``.eval`` archive
(or a ``.json`` log) are Inspect's ``read_eval_log`` samples, field for field, on the project's baseline logs and on
logs the installed Inspect writes now (its ``samples/<id>_epoch_<epoch>.json`` members are what the reader relies
on)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from inspect_ai.log import EvalError, read_eval_log, write_eval_log

from bediscover_inspect._inspect_compat import run_coroutine
from bediscover_inspect.evallogs.samples import LogSample, read_samples_async

BASELINE = Path(__file__).resolve().parents[1] / "baseline"


def _streamed(location: str) -> dict[tuple[str, int], LogSample]:
    async def read() -> dict[tuple[str, int], LogSample]:
        return {(str(s.id), s.epoch): s async for s in read_samples_async(location)}

    return run_coroutine(read())  # type: ignore[no-any-return]


def _assert_same_as_inspect(location: str) -> int:
    """Every sample of the log read by the reader equals Inspect's read of it; returns the number of samples."""
    whole = read_eval_log(location).samples or []
    streamed = _streamed(location)
    assert sorted(streamed) == sorted((str(s.id), s.epoch) for s in whole)
    for sample in whole:
        mine = streamed[(str(sample.id), sample.epoch)]
        assert mine.id == sample.id and mine.target == sample.target
        assert mine.metadata == (sample.metadata or {})
        assert mine.scores == (sample.scores or {})
        assert mine.error == (sample.error.message if sample.error is not None else None)
    return len(whole)


@pytest.mark.parametrize("name", sorted(p.name for p in BASELINE.glob("*.eval")))
def test_baseline_logs_read_one_sample_at_a_time_are_inspects_samples(name: str) -> None:
    assert _assert_same_as_inspect(str(BASELINE / name)) > 0


def test_a_log_inspect_writes_now_reads_the_same_in_both_formats(tmp_path: Path) -> None:
    """A baseline log written again by the installed Inspect, one sample given an error and a second epoch, as
    ``.eval`` (a zip with one member per sample and epoch) and as ``.json``."""
    log = read_eval_log(str(BASELINE / "discourse_markers.eval"))
    samples = log.samples or []
    samples[0] = samples[0].model_copy(update={"error": EvalError(message="boom", traceback="", traceback_ansi="")})
    samples.append(samples[1].model_copy(update={"epoch": 2}))
    log.samples = samples
    for suffix in (".eval", ".json"):
        location = str(tmp_path / f"log{suffix}")
        write_eval_log(log, location)
        assert _assert_same_as_inspect(location) == len(samples)
    with zipfile.ZipFile(tmp_path / "log.eval") as archive:
        members = {name for name in archive.namelist() if name.startswith("samples/")}
    assert f"samples/{samples[1].id}_epoch_2.json" in members and len(members) == len(samples)
    assert _streamed(str(tmp_path / "log.eval"))[(str(samples[0].id), 1)].error == "boom"
