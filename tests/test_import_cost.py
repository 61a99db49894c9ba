"""What a process of ``bediscover run`` (the first process and each ``--workers`` process alike) and of
``inspect eval evals/<task>.py`` imports before its first sample: the command line, its ``run`` parser and the
task files, but not pandas, Inspect's analysis package, matplotlib, scipy or the report and gate packages. Each of
those costs a share of a second to seconds of CPU per process; the commands and functions that use them import
them where they are used (``# import cost:``, :mod:`tests.test_import_circles`)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO_ROOT

NOT_AT_START = (
    "pandas",
    "matplotlib",
    "scipy",
    "inspect_ai.analysis",
    "bediscover_inspect.report",
    "bediscover_inspect.gate",
)
"""Packages no ``run`` process or task file loads at start-up."""

START_UP = f"""
import runpy, sys
from bediscover_inspect.cli import build_parser
build_parser("run").parse_args(["run", "--model", "mockllm/model", "--tasks", "sentence_ordering"])
for name in ("sentence_ordering", "discourse_markers", "discourse_relations", "temporal_reasoning", "dialogue_parsing"):
    runpy.run_path({str(REPO_ROOT / "evals")!r} + "/" + name + ".py")
print("\\n".join(sys.modules))
"""


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == top or m.startswith(f"{top}.") for top in NOT_AT_START))


def test_run_and_task_files_start_without_the_report_stack() -> None:
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", START_UP], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert {"inspect_ai", "bediscover_inspect.workers", "bediscover_inspect.run_summary"} <= loaded
    assert _heavy(loaded) == []


def test_a_heavy_module_is_seen() -> None:
    assert _heavy({"pandas.core.frame", "inspect_ai.analysis", "inspect_ai.log", "pandasx"}) == [
        "inspect_ai.analysis",
        "pandas.core.frame",
    ]
