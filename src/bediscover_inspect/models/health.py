"""The embedded model's process killed by a signal: never silent, one line naming the signal, the cause and the fix.

A native library that executes an instruction the CPU (or the kernel) does not allow kills the whole process with
``SIGILL`` before Python can print anything; an out-of-memory kill is ``SIGKILL``. Such a death can only be
reported by another process, so the suite reports it from three places:

``check`` (run by ``make install``)
    runs the embedded SmolLM2 model once, in a child process, on a prompt of :data:`LONG_PROMPT_TOKENS` tokens
    (llama.cpp's batched matrix kernels, where a build for another CPU executes AVX-512 or AMX code, only run on
    prompts of more than a few tokens); a death is reported by :func:`signal_line`.
:func:`.gguf.ensure_runs_here` (the ``gguf/`` provider, before it loads a model in-process)
    the same check once per llama.cpp library and CPU (a stamp in the user cache), so ``inspect eval`` and
    ``bediscover run`` refuse with that line instead of dying.
``run -- CMD …`` (``make demo``)
    runs ``CMD`` as a child and, if a signal kills it, prints :func:`signal_line`; with ``--log-hint DIR`` it
    then names the eval log the command wrote and how to open it.

Command line: ``python -m bediscover_inspect.models.health check`` / ``run [--log-hint DIR] -- CMD …``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from .llama_build import cpu_flags, installed_libraries

REBUILD = "make rebuild-llama"
"""The make target that compiles llama-cpp-python again for a portable CPU level (README, Set-up)."""

LONG_PROMPT_TOKENS = 600
"""Prompt length of the check (tokens): above llama.cpp's batch threshold, like the demo's prompts."""

CAUSES: dict[int, tuple[str, str]] = {
    signal.SIGILL: (
        "an instruction this CPU or kernel does not allow, i.e. llama-cpp-python compiled for another CPU "
        "(a -march=native build or a wheel from pip's cache, e.g. with AVX-512 or AMX code)",
        f"run `{REBUILD}` (portable x86-64-v3 build; on a CPU without AVX2: `{REBUILD} LLAMA_CPU=x86-64`)",
    ),
    signal.SIGKILL: (
        "most likely the kernel's out-of-memory killer (`dmesg` says so), or a kill from outside",
        "free memory, lower the context (-M n_ctx=2048) or run fewer workers",
    ),
    signal.SIGSEGV: (
        "a crash inside llama.cpp: a library built for another CPU or llama.cpp version, or a damaged model file",
        f"run `{REBUILD}`; for a gguf/<path> model check its file (-M sha256=...)",
    ),
    signal.SIGBUS: (
        "the memory-mapped model file was truncated or could not be read",
        "check the model file's size and sha256 (-M sha256=...) and free disk space",
    ),
    signal.SIGABRT: (
        "llama.cpp stopped on an internal assertion (its GGML_ASSERT message is on the lines above)",
        "lower the context or batch size (-M n_ctx=..., -M n_batch=...); if it persists, run `" + REBUILD + "`",
    ),
    signal.SIGFPE: (
        "an arithmetic fault inside llama.cpp, typically a library built for another CPU",
        f"run `{REBUILD}`",
    ),
}
"""Per signal: (likely cause, fix). Signals not listed were sent from outside (SIGTERM, SIGINT, SIGHUP ...)."""


def death_signal(returncode: int) -> int | None:
    """The signal that ended a process: ``-N`` (``subprocess``) or ``128 + N`` (a shell's ``$?``); else ``None``."""
    if returncode < 0:
        return -returncode
    if 128 < returncode < 128 + signal.NSIG:
        return returncode - 128
    return None


def signal_line(signum: int, who: str = "the embedded model's process") -> str:
    """One line: ``error: <who> was killed by SIGILL (Illegal instruction): likely cause: …; fix: …``.

    ``signum`` is a signal number (e.g. ``-returncode`` of a ``subprocess``); unknown numbers are named ``signal N``.
    """
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    description = signal.strsignal(signum) or name
    return f"error: {who} was killed by {name} ({description}): {cause_and_fix(signum)}"


def cause_and_fix(signum: int) -> str:
    """``likely cause: …; fix: …`` for a process killed by ``signum`` (:data:`CAUSES`; no fix for outside signals)."""
    cause, fix = CAUSES.get(signum, ("it was sent from outside the process (a user, a supervisor, a time limit)", ""))
    return f"likely cause: {cause}" + (f"; fix: {fix}" if fix else "")


def long_prompt(n_sentences: int = 36) -> str:
    """A deterministic text of about :data:`LONG_PROMPT_TOKENS` SmolLM2 tokens (about 17 per sentence)."""
    return " ".join(
        f"Sentence {i}: the committee read the report and agreed on the next step." for i in range(n_sentences)
    )


def check_embedded_model(model: str = "smollm2-135m", timeout: float = 600.0) -> tuple[bool, str]:
    """Run the embedded model once on a long prompt in a child process.

    Returns:
        ``(True, summary line)`` or ``(False, one error line)``: :func:`signal_line` when a signal killed the
        child, else the child's last stderr line and exit code (e.g. llama-cpp-python not installed).
    """
    return run_check([sys.executable, "-m", "bediscover_inspect.models.gguf", "--long-prompt", model], model, timeout)


def run_check(cmd: list[str], model: str, timeout: float) -> tuple[bool, str]:
    """Run a check child ``cmd`` that prints one JSON line of stats; see :func:`check_embedded_model`."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"error: the embedded model's check did not finish in {timeout:.0f} s (machine overloaded?)"
    signum = death_signal(proc.returncode)
    if signum is not None:
        return False, signal_line(signum)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        return False, f"error: the embedded model's check failed (exit {proc.returncode}): {last}"
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    return True, (
        f"embedded model {model} runs on this CPU: {stats['prompt_tokens']}-token prompt + {stats['generated']} "
        f"tokens in {stats['seconds']:.1f} s (child process)"
    )


def _fingerprint() -> str:
    """Hash of what decides whether the library runs here: its files (name, size, mtime) and the CPU's flags."""
    libs = [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in installed_libraries()]
    return hashlib.sha256(json.dumps([libs, sorted(cpu_flags() or [])]).encode()).hexdigest()[:16]


def stamp_path() -> Path | None:
    """The success stamp for the installed library on this CPU, or ``None`` without llama-cpp-python."""
    from platformdirs import user_cache_dir

    try:
        return Path(user_cache_dir("bediscover-inspect")) / "llama-ok" / _fingerprint()
    except RuntimeError:
        return None


def check_and_stamp(model: str = "smollm2-135m") -> tuple[bool, str]:
    """:func:`check_embedded_model`, leaving the stamp :func:`.gguf.ensure_runs_here` looks for when it succeeds."""
    ok, line = check_embedded_model(model)
    stamp = stamp_path()
    if ok and stamp is not None:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(line + "\n")
    return ok, line


def newest_log(log_dir: Path, since: float) -> Path | None:
    """The most recently written ``*.eval``/``*.json`` eval log in ``log_dir`` modified at or after ``since``."""
    logs = [p for p in log_dir.glob("*.eval") if p.stat().st_mtime >= since]
    logs += [p for p in log_dir.glob("*.json") if p.stat().st_mtime >= since and not p.name.startswith(".")]
    return max(logs, key=lambda p: p.stat().st_mtime, default=None)


def run_guarded(cmd: list[str], log_hint: Path | None = None) -> int:
    """Run ``cmd`` as a child; a signal death gets :func:`signal_line`, a success with ``log_hint`` the log line.

    Ctrl-C reaches the child (same process group) and is left to it. Returns the child's exit code, or
    ``128 + N`` after signal ``N``.
    """
    since = time.time() - 1
    proc = subprocess.Popen(cmd)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        returncode = proc.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    signum = death_signal(returncode)
    if signum is not None:
        print(signal_line(signum, f"`{Path(cmd[0]).name} {' '.join(cmd[1:3])} …`"), file=sys.stderr, flush=True)
        return 128 + signum
    if log_hint is not None:
        log = newest_log(log_hint, since)
        if log is not None:
            bindir = Path(sys.executable).parent
            print(
                f"log: {log} — browse it with `{bindir}/inspect view --log-dir {log_hint}`, "
                f"or print it as JSON with `{bindir}/inspect log dump {log}`",
                flush=True,
            )
    return returncode


def main(argv: list[str] | None = None) -> int:
    """Command line: ``check [MODEL]`` or ``run [--log-hint DIR] -- CMD …`` (see the module docstring)."""
    args = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m bediscover_inspect.models.health")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="run the embedded model once on a long prompt in a child process")
    check.add_argument("model", nargs="?", default="smollm2-135m")
    run = sub.add_parser("run", help="run a command; report a signal death in one line")
    run.add_argument("--log-hint", type=Path, help="after success, name the newest eval log in this directory")
    run.add_argument("cmd", nargs=argparse.REMAINDER)
    ns = parser.parse_args(args)
    if ns.command == "check":
        ok, line = check_and_stamp(ns.model)
        print(line, file=sys.stdout if ok else sys.stderr)
        return 0 if ok else 1
    cmd = ns.cmd[1:] if ns.cmd[:1] == ["--"] else ns.cmd
    if not cmd:
        parser.error("run: no command given (run [--log-hint DIR] -- CMD ...)")
    return run_guarded(cmd, ns.log_hint)


if __name__ == "__main__":
    raise SystemExit(main())
