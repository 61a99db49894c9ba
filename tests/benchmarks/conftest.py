"""Fixtures of the benchmark scripts' tests."""

from __future__ import annotations

import pytest

from tests.benchmarks.log_reading_script import BENCH


@pytest.fixture()
def log_reading(monkeypatch):
    """The module ``benchmarks/log_reading.py``, imported from the benchmarks folder."""
    monkeypatch.syspath_prepend(str(BENCH))
    import log_reading

    return log_reading
