"""Child process of the benchmarks: one Inspect eval under the scripted model, timed from inside.

    python benchmarks/_eval_child.py ours  <report.json> <log_dir> <limit|0> <task> [<task> ...]
    python benchmarks/_eval_child.py bare  <report.json> <log_dir> <calls.json>
    python benchmarks/_eval_child.py calls <report.json> <our log file> <calls.json>

``ours`` builds the named suite task(s) (arguments from ``_common.PAPER_TASK_ARGS``) and evaluates them in one
``eval()`` call; ``bare`` replays, as a plain Inspect task with a trivial scorer, exactly the model calls a run of
ours made (same samples, same message strings, same number of calls per sample) and never imports the suite;
``calls`` extracts those calls from our log. The parent measures wall time and peak RSS; the report holds the
inner split (imports, task building, eval).
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402


NO_SCORE_DISPLAY_ENV = "BEDISCOVER_BENCH_NO_SCORE_DISPLAY"
"""Set to ``1`` (``overhead.py --no-score-display``) to run both tasks with ``score_display=False``: no live
metric computation and no live metrics in Inspect's sample buffer (cause 9 in ``benchmarks/README.md``)."""


def _eval_kwargs(log_dir: str) -> dict[str, Any]:
    """``eval()`` options of both children; with ``_live_metrics_table.ENV=1`` also applies that what-if here."""
    import os

    from _live_metrics_table import ENV as LIVE_METRICS_TABLE_ENV
    from _live_metrics_table import apply

    kwargs: dict[str, Any] = {"log_dir": log_dir, "display": "none", "log_level": "warning"}
    if os.environ.get(NO_SCORE_DISPLAY_ENV) == "1":
        kwargs["score_display"] = False
    if os.environ.get(LIVE_METRICS_TABLE_ENV) == "1":
        apply()
    return kwargs


def run_ours(report: Path, log_dir: str, limit: int, tasks: list[str]) -> dict[str, Any]:
    """Build and evaluate our task(s); return the timing split and log locations."""
    import importlib

    from inspect_ai import eval

    from _common import PAPER_TASK_ARGS, data_dir, scripted_model

    fns = [getattr(importlib.import_module(f"bediscover_inspect.{t}.task"), t) for t in tasks]
    t_import = time.perf_counter()
    built = [fn(**PAPER_TASK_ARGS[t], data_dir=data_dir()) for fn, t in zip(fns, tasks)]
    t_build = time.perf_counter()
    logs = eval(built, model=scripted_model(), limit=limit or None, **_eval_kwargs(log_dir))
    t_eval = time.perf_counter()
    return {
        "import_s": t_import - T0,
        "build_s": t_build - t_import,
        "eval_s": t_eval - t_build,
        "logs": [
            {"task": t, "location": log.location, "status": log.status,
             "samples": log.results.completed_samples if log.results else 0,
             "error": str(log.error.message) if log.error else None}
            for t, log in zip(tasks, logs)
        ],
    }


def run_bare(report: Path, log_dir: str, calls_file: str) -> dict[str, Any]:
    """Replay recorded model calls as a bare Inspect task (generate + trivial scorer)."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, get_model
    from inspect_ai.scorer import Score, Target, accuracy, scorer
    from inspect_ai.solver import Generate, TaskState, generate, solver

    from _common import scripted_model

    t_import = time.perf_counter()
    recorded = json.loads(Path(calls_file).read_text())

    def messages(call: list[list[str]]) -> list[Any]:
        return [ChatMessageSystem(content=text) if role == "system" else ChatMessageUser(content=text)
                for role, text in call]

    calls = {sid: [messages(c) for c in entry["calls"]] for sid, entry in recorded["samples"].items()}
    multi = any(len(c) > 1 for c in calls.values())
    samples = [Sample(id=sid, input=c[0], target=recorded["samples"][sid]["target"]) for sid, c in calls.items()]

    @solver
    def replay_calls():
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            model = get_model()
            output = None
            for call in calls[str(state.sample_id)]:
                output = await model.generate(call)
                state.messages.extend([call[-1], output.message])
            state.output = output
            return state

        return solve

    @scorer(metrics=[accuracy()])
    def trivial():
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=float(state.output.completion.strip() == target.text))

        return score

    task = Task(dataset=MemoryDataset(samples, name="bare"), solver=replay_calls() if multi else generate(),
                scorer=trivial(), name=f"bare_{recorded['task']}")
    t_build = time.perf_counter()
    logs = eval(task, model=scripted_model(), **_eval_kwargs(log_dir))
    t_eval = time.perf_counter()
    log = logs[0]
    return {
        "import_s": t_import - T0,
        "build_s": t_build - t_import,
        "eval_s": t_eval - t_build,
        "logs": [{"task": recorded["task"], "location": log.location, "status": log.status,
                  "samples": log.results.completed_samples if log.results else 0,
                  "error": str(log.error.message) if log.error else None}],
    }


def extract_calls(log_file: str, calls_file: str) -> dict[str, Any]:
    """Write ``{task, samples: {id: {target, calls: [[[role, text], ...], ...]}}}`` from our log's model events."""
    from inspect_ai.log import read_eval_log, read_eval_log_samples, resolve_sample_attachments

    header = read_eval_log(log_file, header_only=True)
    samples: dict[str, Any] = {}
    n_calls = 0
    for sample in read_eval_log_samples(log_file, all_samples_required=False):
        # logs store long strings once, as attachment:// references: resolve them to the real message text
        sample = resolve_sample_attachments(sample)
        calls = [[[m.role, m.text] for m in e.input] for e in sample.events if e.event == "model"]
        n_calls += len(calls)
        target = sample.target if isinstance(sample.target, str) else " ".join(sample.target)
        samples[str(sample.id)] = {"target": target, "calls": calls}
    Path(calls_file).write_text(json.dumps({"task": header.eval.task, "samples": samples}))
    chars = sum(len(text) for entry in samples.values() for call in entry["calls"] for _, text in call)
    if any(text.startswith("attachment://") for e in samples.values() for c in e["calls"] for _, text in c):
        raise RuntimeError("unresolved attachment in recorded calls")
    return {"samples": len(samples), "calls": n_calls, "prompt_chars": chars}


def main(argv: list[str]) -> None:
    """Dispatch on the mode (module docstring) and write the report JSON."""
    mode, report = argv[0], Path(argv[1])
    if mode == "ours":
        result = run_ours(report, argv[2], int(argv[3]), argv[4:])
    elif mode == "bare":
        result = run_bare(report, argv[2], argv[3])
    elif mode == "calls":
        result = extract_calls(argv[2], argv[3])
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    import resource

    from _live_metrics_table import applied

    result["self_maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["live_metrics_table"] = applied()
    report.write_text(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
