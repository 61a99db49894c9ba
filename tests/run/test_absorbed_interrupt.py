"""A Ctrl-C that never reaches the command as a ``KeyboardInterrupt`` still stops it: absorbed by a library's bare
``except:``, or turned into another error (Python wraps an exception raised in ``__set_name__`` while a class
is created in a ``RuntimeError``), as happens when the signal lands while Inspect is imported on a busy machine."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from bediscover_inspect.cli import main, run_outcome
from bediscover_inspect.run import interrupts

# the script: Ctrl-C is delivered, then absorbed (as a bare ``except:`` around an import would), before the
# console script runs; {break_import} makes importing the CLI fail, as the wrapped interrupt did
SCRIPT = """
import os, signal, sys
from bediscover_inspect import entry
sys.argv = ["bediscover", "run", "--model", "mockllm/model"]
{deliver}
{break_import}
entry.console_main()
"""
DELIVER = """
signal.signal(signal.SIGINT, entry.raise_keyboard_interrupt)
try:
    os.kill(os.getpid(), signal.SIGINT)
except KeyboardInterrupt:
    pass
"""
BREAK_IMPORT = 'sys.modules["bediscover_inspect.cli"] = None'


def run_script(deliver: bool, break_import: bool) -> subprocess.CompletedProcess[str]:
    code = SCRIPT.format(deliver=DELIVER if deliver else "", break_import=BREAK_IMPORT if break_import else "")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize("break_import", [False, True])
def test_a_ctrl_c_absorbed_during_start_up_ends_the_command_with_its_line(break_import):
    proc = run_script(deliver=True, break_import=break_import)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip() == (
        "bediscover run: interrupted during start-up (re-run the same command to resume: finished evals are "
        "skipped and finished samples kept)"
    )


@pytest.mark.slow
def test_an_import_error_without_a_ctrl_c_is_not_called_an_interrupt():
    proc = run_script(deliver=False, break_import=True)
    assert proc.returncode == 1
    assert "ModuleNotFoundError: import of bediscover_inspect.cli halted" in proc.stderr
    assert "interrupted" not in proc.stderr


def test_a_ctrl_c_absorbed_while_the_tasks_were_built_starts_no_eval(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setattr(interrupts, "_INTERRUPTS", 1)
    log_dir = tmp_path / "logs"
    args = ["run", "--model", "mockllm/model", "--tasks", "discourse_markers", "--seeds", "0", "--reasoning", "off"]
    assert main([*args, "--limit", "1", "--log-dir", str(log_dir), "--display", "none"]) == 130
    assert not list(log_dir.glob("*.eval"))
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"bediscover run: 0/1 evals complete in {log_dir}; interrupted (re-run the same command to resume: finished "
        "evals are skipped and finished samples kept)"
    )


# an eval set whose wind-down never ends (a task that does not finish cancelling keeps asyncio.run waiting)
STUCK = """
import os, signal, sys, time
sys.argv = ["bediscover", "run"]
from bediscover_inspect.run.winddown import interrupts_stop_the_eval_set
with interrupts_stop_the_eval_set(grace=1.0):
    try:
        os.kill(os.getpid(), signal.SIGINT)
    except KeyboardInterrupt:
        time.sleep(60)
print("not stopped")
"""


@pytest.mark.slow
def test_an_eval_set_stuck_after_ctrl_c_is_left_after_the_grace_period():
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", STUCK], capture_output=True, text=True, timeout=120)
    assert time.monotonic() - started < 30  # the grace period, not the 60 s the wind-down would take
    assert (proc.returncode, proc.stdout) == (130, "")
    assert proc.stderr.strip() == (
        "bediscover run: interrupted; the evals did not stop within 1 s; stopping now (re-run the same command to "
        "resume: finished evals are skipped and finished samples kept)"
    )


def test_a_ctrl_c_after_every_eval_finished_is_a_complete_run():
    finished = [SimpleNamespace(status="success")] * 2
    assert run_outcome(finished, 2, "logs", interrupted=True) == (0, "bediscover run: 2/2 evals complete in logs")
    code, line = run_outcome([finished[0], SimpleNamespace(status="started")], 2, "logs", interrupted=True)
    assert code == 130 and line.startswith("bediscover run: 1/2 evals complete in logs; interrupted (")
