"""Shared pieces of the benchmark scripts: paths, the scripted model, child processes measured with ``wait4``.

Nothing here imports ``bediscover_inspect`` at module level, so a "bare Inspect" child process that imports this
module pays for Inspect alone.
"""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
"""``benchmarks/``."""

REPO_DIR = BENCH_DIR.parent
"""Repository root."""

RESULTS_DIR = Path(os.environ.get("BEDISCOVER_BENCH_RESULTS") or BENCH_DIR / "results")
"""Where every script writes its JSON result (``BEDISCOVER_BENCH_RESULTS`` overrides, e.g. in the smoke test)."""

WORK_DIR = Path(os.environ.get("BEDISCOVER_BENCH_WORK") or BENCH_DIR / ".work")
"""Scratch space for Inspect logs of benchmark runs (git-ignored; ``BEDISCOVER_BENCH_WORK`` overrides)."""

DEFAULT_DATA_DIR = REPO_DIR.parent / "shared" / "data" / "bediscover" / "data"
"""The project's read-only data mirror, used when ``BEDISCOVER_DATA_DIR`` is not set."""

TASKS: tuple[str, ...] = (
    "discourse_markers",
    "temporal_reasoning",
    "discourse_relations",
    "sentence_ordering",
    "dialogue_parsing",
)
"""The five tasks, paper order; each is ``bediscover_inspect.<name>.task.<name>``."""

PAPER_TASK_ARGS: dict[str, dict[str, Any]] = {
    "discourse_markers": {"dataset": "all"},
    "temporal_reasoning": {"dataset": "all"},
    "discourse_relations": {},  # every corpus the data root has (absent ones are skipped by the task)
    "sentence_ordering": {"dataset": "nips-abs"},  # the only sentence-ordering file in the offline mirror
    "dialogue_parsing": {"dataset": "all", "mode": "incremental"},
}
"""Task arguments covering every dataset the offline data root holds (paper subset is the task default)."""


def data_dir() -> str:
    """The data root for benchmarks: ``BEDISCOVER_DATA_DIR`` if set, else the shared mirror."""
    return os.environ.get("BEDISCOVER_DATA_DIR") or str(DEFAULT_DATA_DIR)


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for child processes: data root set, offline, no Inspect display; ``extra`` on top."""
    env = dict(os.environ, **(extra or {}))
    env["BEDISCOVER_DATA_DIR"] = data_dir()
    env["BEDISCOVER_OFFLINE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(BENCH_DIR), env.get("PYTHONPATH", "")) if p)
    env.setdefault("INSPECT_DISPLAY", "none")
    return env


# --------------------------------------------------------------------------------------------- scripted model
_NEW_TURN = re.compile(r"## New turn:\s*(\d+)\.")  # Table 12 layout: "## New turn:\n\n<j>. speaker: …"
_MARKER = re.compile(r"<s (\d+)>")


def scripted_answer(messages: Sequence[Any]) -> str:
    """A deterministic, well-formed answer for any of the five tasks, read off the last user message.

    Sentence ordering gets the identity order of the prompt's markers, dialogue parsing a ``QA_PAIR(j-1,j)``
    attaching the new turn to the previous one (so the predicted structure grows as a real model's would), and
    the classification tasks one label each. The same function drives our tasks and the bare ones.
    """
    text = ""
    for message in reversed(messages):
        if getattr(message, "role", None) == "user":
            text = message.text
            break
    turn = _NEW_TURN.search(text)
    if turn:
        j = int(turn.group(1))
        return f"QA_PAIR({max(j - 1, 0)},{j})"
    markers = _MARKER.findall(text)
    if markers:
        return " ".join(f"<s {m}>" for m in dict.fromkeys(markers))
    return "Answer: BEFORE. elaboration. Emphatic."


def scripted_model(answer: Callable[[Sequence[Any]], str] = scripted_answer) -> Any:
    """``mockllm/model`` answering ``answer(messages)`` with ``ModelUsage`` set (no tokenizer, no network)."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def outputs(input, tools, tool_choice, config):  # noqa: ANN001 (mockllm callback signature)
        text = answer(input)
        out = ModelOutput.from_content(model="mockllm", content=text)
        n = len(text.split())
        out.usage = ModelUsage(input_tokens=1, output_tokens=n, total_tokens=n + 1)
        return out

    return get_model("mockllm/model", custom_outputs=outputs)


# --------------------------------------------------------------------------------------------- child processes
@dataclass
class ChildResult:
    """One measured child process: wall and CPU (user + system) seconds, peak RSS in MB, its report, exit code.

    On a shared machine CPU seconds are the steadier measure: wall time also counts waiting for a core.
    """

    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    returncode: int
    report: dict[str, Any]
    stderr_tail: str


@dataclass
class RunningChild:
    """A child process started by :func:`start_child`, to be measured by :func:`finish_children`."""

    proc: subprocess.Popen
    start: float
    report_file: Path
    err_file: Path
    err: Any


def start_child(args: Sequence[str], report_file: Path, env: dict[str, str] | None = None) -> RunningChild:
    """Start ``python <args>`` as a child (wall time counts from here); the child writes its JSON to ``report_file``.
    ``env``: variables added to :func:`child_env`."""
    report_file.parent.mkdir(parents=True, exist_ok=True)
    report_file.unlink(missing_ok=True)
    err_file = report_file.with_suffix(".stderr")
    err = open(err_file, "w")  # noqa: SIM115 - closed by finish_children
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *args], env=child_env(env), cwd=str(REPO_DIR), stdout=subprocess.DEVNULL, stderr=err
    )
    return RunningChild(proc, start, report_file, err_file, err)


def finish_children(children: Sequence[RunningChild], timeout: float | None = None) -> list[ChildResult]:
    """Wait for started children, polling all of them, so each one's wall time ends at its own exit; CPU and peak
    RSS from ``os.wait4`` (ru_maxrss). A child still running after ``timeout`` seconds is killed."""
    ended: dict[int, tuple[int, Any, float]] = {}
    try:
        while len(ended) < len(children):
            for index, child in enumerate(children):
                if index in ended:
                    continue
                pid, status, usage = os.wait4(child.proc.pid, os.WNOHANG)
                if not pid and timeout is not None and time.perf_counter() > child.start + timeout:
                    child.proc.kill()
                    pid, status, usage = os.wait4(child.proc.pid, 0)
                if pid:
                    ended[index] = (status, usage, time.perf_counter() - child.start)
            if len(ended) < len(children):
                time.sleep(0.02)
    finally:
        for child in children:
            child.err.close()
    results = []
    for index, child in enumerate(children):
        status, usage, wall = ended[index]
        child.proc.returncode = os.waitstatus_to_exitcode(status)
        report = json.loads(child.report_file.read_text()) if child.report_file.exists() else {}
        tail = child.err_file.read_text()[-2000:]
        # ru_maxrss is in kilobytes on Linux
        results.append(
            ChildResult(
                wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, child.proc.returncode, report, tail
            )
        )
    return results


class TreeRss:
    """Peak resident memory of a process tree (a process and all its descendants), sampled from ``/proc`` every
    ``interval`` seconds in a thread (Linux): the sum over the tree, and the largest single process.

    ``wait4``'s ``ru_maxrss`` gives only the largest single process of a tree; a run spread over worker processes
    needs the sum. Sampling misses peaks shorter than ``interval``.
    """

    def __init__(self, pid: int, interval: float = 0.5) -> None:
        import threading

        self.pid, self.interval = pid, interval
        self.peak_total_mb = self.peak_single_mb = 0.0
        self.peak_processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _tree_mb(self) -> list[float]:
        parents: dict[int, int] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as fh:
                        parents[int(name)] = int(fh.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        tree, frontier = {self.pid}, [self.pid]
        while frontier:
            parent = frontier.pop()
            children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
            tree.update(children)
            frontier.extend(children)
        sizes = []
        for pid in tree:
            try:
                with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
                    sizes.append(int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20)
            except (OSError, IndexError, ValueError):
                continue
        return sizes

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            sizes = self._tree_mb()
            if sizes:
                self.peak_total_mb = max(self.peak_total_mb, sum(sizes))
                self.peak_single_mb = max(self.peak_single_mb, max(sizes))
                self.peak_processes = max(self.peak_processes, len(sizes))

    def stop(self) -> dict[str, float]:
        """Stop sampling; ``{"peak_total_mb", "peak_single_mb", "peak_processes"}``."""
        self._stop.set()
        self._thread.join()
        return {
            "peak_total_mb": self.peak_total_mb,
            "peak_single_mb": self.peak_single_mb,
            "peak_processes": self.peak_processes,
        }


def run_child(
    args: Sequence[str], report_file: Path, timeout: float | None = None, env: dict[str, str] | None = None
) -> ChildResult:
    """Run ``python <args>`` as a child and measure it (:func:`start_child` then :func:`finish_children`).

    The child is expected to write a JSON object to ``report_file`` (its own inner timings).
    """
    return finish_children([start_child(args, report_file, env)], timeout)[0]


def median(values: Sequence[float]) -> float:
    """Median of a non-empty sequence (``nan`` when empty)."""
    return statistics.median(values) if values else float("nan")


def code_under_test() -> dict[str, Any]:
    """Which suite code ran: the imported package's directory, its git commit and whether code was edited.

    ``dirty``: a tracked Python file under ``src/`` or in ``benchmarks/`` differs from the commit (editing a README
    or other text during a run does not count).
    ``commit`` / ``dirty`` are ``None`` outside a git checkout.
    """
    import importlib.util

    spec = importlib.util.find_spec("bediscover_inspect")
    package_dir = str(Path(spec.origin).parent) if spec and spec.origin else None

    def git(*args: str) -> str | None:
        if package_dir is None:
            return None
        try:
            done = subprocess.run(["git", *args], cwd=package_dir, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    status = (
        None
        if top is None
        else git(
            "-C",
            top,
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            ":(glob)src/**/*.py",
            ":(glob)benchmarks/*.py",
        )
    )
    return {
        "package_dir": package_dir,
        "commit": git("rev-parse", "HEAD"),
        "dirty": None if status is None else bool(status),
    }


def machine() -> dict[str, Any]:
    """Where, when and what: date, CPU count, Python, inspect-ai version, platform, :func:`code_under_test`."""
    from importlib.metadata import version

    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "inspect_ai": version("inspect-ai"),
        "platform": platform.platform(),
        "code": code_under_test(),
    }


def write_result(name: str, result: dict[str, Any]) -> Path:
    """Write ``<results dir>/<name>.json`` (with the machine block added) and return its path.

    ``name`` may end in ``.json`` (not doubled). The results directory is :data:`RESULTS_DIR`.

    Raises:
        ValueError: ``name`` is not a plain file name (results stay under the results directory).
    """
    name = name.removesuffix(".json")
    if not name or Path(name).name != name or name in (".", ".."):
        raise ValueError(f"result name {name!r} must be a plain file name (no directory part)")
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    path.write_text(json.dumps({"machine": machine(), **result}, indent=2, default=_json_default) + "\n")
    return path


def _json_default(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return asdict(value)
    return str(value)


def scorer_span_seconds(log_path: str) -> list[float]:
    """Per-sample seconds spent in the ``scorers`` span, read from an Inspect log's sample events."""
    from inspect_ai.log import read_eval_log_samples

    out: list[float] = []
    for sample in read_eval_log_samples(log_path, all_samples_required=False):
        begins: dict[str, Any] = {}
        for event in sample.events:
            if event.event == "span_begin" and getattr(event, "type", None) == "scorers":
                begins[event.id] = event.timestamp
            elif event.event == "span_end" and event.id in begins:
                out.append((event.timestamp - begins.pop(event.id)).total_seconds())
    return out
