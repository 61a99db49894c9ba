"""Fixtures of the gate's tests: the five-task suites of ``tests/gate/suite.py`` that several modules compare,
written once per session (per worker)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.gate.suite import Quality, baseline_quality, write_suite

QUALITIES: dict[str, Quality] = {
    "baseline": baseline_quality,
    "right": lambda task, dataset, index: "right",
    "invalid": lambda task, dataset, index: "invalid",
}
"""The shared suites by name: the baseline rule, every answer right, every answer invalid."""


@pytest.fixture(scope="session")
def suite(tmp_path_factory) -> Callable[[str], Path]:
    """The five-task suite of 12 samples per dataset scored by ``QUALITIES[name]``, written on first use and then
    shared: a test never edits it (``edit_logs`` or a copy first)."""
    written: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in written:
            written[name] = write_suite(tmp_path_factory.mktemp(f"suite-{name}"), quality=QUALITIES[name])
        return written[name]

    return get
