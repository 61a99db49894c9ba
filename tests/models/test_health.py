"""A model process killed by a signal: one line with the signal, the likely cause and the fix; never silent."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from bediscover_inspect.models import health

SIGILL_CHILD = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGILL)"]


def test_signal_line_names_signal_cause_and_fix() -> None:
    assert health.signal_line(signal.SIGILL) == (
        "error: the embedded model's process was killed by SIGILL (Illegal instruction): likely cause: an "
        "instruction this CPU or kernel does not allow, i.e. llama-cpp-python compiled for another CPU (a "
        "-march=native build or a wheel from pip's cache, e.g. with AVX-512 or AMX code); fix: run `make "
        "rebuild-llama` (portable x86-64-v3 build; on a CPU without AVX2: `make rebuild-llama LLAMA_CPU=x86-64`)"
    )
    assert health.signal_line(signal.SIGKILL).startswith(
        "error: the embedded model's process was killed by SIGKILL (Killed): likely cause: most likely the "
        "kernel's out-of-memory killer"
    )
    assert health.signal_line(signal.SIGTERM, "x") == (
        "error: x was killed by SIGTERM (Terminated): likely cause: it was sent from outside the process "
        "(a user, a supervisor, a time limit)"
    )


@pytest.mark.parametrize(("code", "signum"), [(-4, 4), (132, 4), (137, 9), (0, None), (1, None), (2, None)])
def test_death_signal(code: int, signum: int | None) -> None:
    assert health.death_signal(code) == signum


def test_check_reports_a_child_killed_by_sigill() -> None:
    ok, line = health.run_check(SIGILL_CHILD, "smollm2-135m", timeout=60)
    assert not ok
    assert line == health.signal_line(signal.SIGILL)


def test_check_reports_a_child_that_fails_with_its_last_line() -> None:
    cmd = [sys.executable, "-c", "import sys; print('first', file=sys.stderr); sys.exit('no llama_cpp here')"]
    assert health.run_check(cmd, "m", timeout=60) == (
        False,
        "error: the embedded model's check failed (exit 1): no llama_cpp here",
    )


def test_guard_reports_sigill_in_one_line_and_exits_128_plus_4(capfd: pytest.CaptureFixture[str]) -> None:
    assert health.run_guarded(SIGILL_CHILD) == 132
    out, err = capfd.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: `python")
    assert " was killed by SIGILL (Illegal instruction): likely cause: " in lines[0]
    assert lines[0].endswith("`make rebuild-llama LLAMA_CPU=x86-64`)")


def test_guard_command_line_passes_exit_code_and_names_the_new_log(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "old.eval").write_text("x")
    import os

    os.utime(tmp_path / "old.eval", (0, 0))
    writer = f"import pathlib, sys; pathlib.Path({str(tmp_path / 'new.eval')!r}).write_text('x'); sys.exit(3)"
    assert health.main(["run", "--log-hint", str(tmp_path), "--", sys.executable, "-c", writer]) == 3
    out, err = capfd.readouterr()
    bindir = Path(sys.executable).parent
    assert out == (
        f"log: {tmp_path / 'new.eval'} — browse it with `{bindir}/inspect view --log-dir {tmp_path}`, "
        f"or print it as JSON with `{bindir}/inspect log dump {tmp_path / 'new.eval'}`\n"
    )
    assert err == ""


def test_provider_check_refuses_when_the_library_dies_and_stamps_success(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(health, "_fingerprint", lambda: "abc")
    monkeypatch.setattr(health, "check_embedded_model", lambda model: (False, health.signal_line(4)))
    from bediscover_inspect.models.gguf import ensure_runs_here

    with pytest.raises(RuntimeError, match=r"^the embedded model's process was killed by SIGILL"):
        ensure_runs_here()
    calls: list[str] = []
    monkeypatch.setattr(health, "check_embedded_model", lambda model: (calls.append(model), (True, "ok"))[1])
    ensure_runs_here()
    ensure_runs_here()
    assert calls == ["smollm2-135m"]  # the second call found the stamp
    assert (tmp_path / "bediscover-inspect" / "llama-ok" / "abc").read_text() == "ok\n"


@pytest.mark.gguf
def test_embedded_model_runs_a_long_prompt_in_a_child() -> None:
    ok, line = health.check_embedded_model()
    assert ok, line
    prompt_tokens = int(line.split(": ")[1].split("-token")[0])
    assert 550 < prompt_tokens < 700


def test_a_worker_killed_by_sigill_is_named_with_cause_and_fix_in_the_closing_line() -> None:
    from bediscover_inspect.cli import RESUME_HINT
    from bediscover_inspect.workers import outcome

    code, line = outcome([(0, 2), (-signal.SIGILL, 0)], 4, "logs")
    assert code == 1
    assert line == (
        "bediscover run: 2/4 evals complete in logs (2 workers); worker 2/2 was killed by SIGILL ("
        + health.cause_and_fix(signal.SIGILL)
        + f"); 2 unfinished ({RESUME_HINT})"
    )
    assert "fix: run `make rebuild-llama`" in line
