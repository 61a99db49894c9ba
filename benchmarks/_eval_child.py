"""Child process of the benchmarks: one Inspect eval, timed from inside.

    python benchmarks/_eval_child.py ours  REPORT LOG_DIR --model M [--max-connections N] [--limit N]
                                     [--no-score-display] [--eval-arg K=V ...] TASK [TASK ...]
    python benchmarks/_eval_child.py bare  REPORT LOG_DIR --model M [--max-connections N] --calls CALLS [--order O]
                                     [--no-score-display]

``ours`` builds the named suite task(s) (arguments from ``_common.PAPER_TASK_ARGS``) and evaluates them in one
``eval()`` call; a task given as ``dialogue_parsing:msdc`` runs that dataset only. ``bare`` replays, as a plain Inspect task with a trivial scorer, exactly the model calls a run of
ours made (same samples, same message strings, same generate config, same number of calls per sample, in the
same order within a sample; samples in the recorded order, or with the most calls first under ``--order
longest-first``) and never imports the suite; :func:`extract_calls` (called in the benchmark's own process) takes
those calls from our log. ``--model
mock`` is the scripted mockllm of ``_common``; any other value is an Inspect model name (e.g. the benchmark
server's ``openai-api/bench/bediscover-bench``). The report (JSON) holds the inner split: imports, task building,
the ``eval()`` call, and when ``eval()`` began and ended on ``time.monotonic()`` (the machine-wide clock the model
server stamps its calls with).
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402


def _model(name: str) -> Any:
    from _common import scripted_model

    return scripted_model() if name == "mock" else name


def _eval_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"log_dir": args.log_dir, "display": "none", "log_level": "warning"}
    if args.no_score_display:
        kwargs["score_display"] = False
    if args.max_connections:
        kwargs["max_connections"] = args.max_connections
    for item in args.eval_arg:
        key, _, value = item.partition("=")
        kwargs[key] = json.loads(value)
    return kwargs


def _log_summary(task: str, log: Any) -> dict[str, Any]:
    return {
        "task": task,
        "location": log.location,
        "status": log.status,
        "samples": log.results.completed_samples if log.results else 0,
        "error": str(log.error.message) if log.error else None,
    }


def run_ours(args: argparse.Namespace) -> dict[str, Any]:
    """Build and evaluate our task(s); return the timing split and log locations."""
    import importlib

    from _common import PAPER_TASK_ARGS, data_dir
    from inspect_ai import eval

    names = [spec.partition(":")[0] for spec in args.tasks]
    task_args = dict(item.split("=", 1) for item in args.task_arg)
    fns = [getattr(importlib.import_module(f"bediscover_inspect.{t}.task"), t) for t in names]
    t_import = time.perf_counter()
    built = []
    for fn, name, spec in zip(fns, names, args.tasks):
        dataset = spec.partition(":")[2]  # "dialogue_parsing:msdc": that dataset only
        given = {**PAPER_TASK_ARGS[name], **({"dataset": dataset} if dataset else {}), **task_args}
        built.append(fn(**given, data_dir=data_dir()))
    t_build = time.perf_counter()
    logs = eval(built, model=_model(args.model), limit=args.limit or None, **_eval_kwargs(args))
    t_eval = time.perf_counter()
    return {
        "import_s": t_import - T0,
        "build_s": t_build - t_import,
        "eval_s": t_eval - t_build,
        "eval_span_monotonic": [time.monotonic() - (time.perf_counter() - t) for t in (t_build, t_eval)],
        "logs": [_log_summary(t, log) for t, log in zip(args.tasks, logs)],
    }


def run_bare(args: argparse.Namespace) -> dict[str, Any]:
    """Replay recorded model calls as a bare Inspect task (generate + trivial scorer)."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model
    from inspect_ai.scorer import Score, Target, accuracy, scorer
    from inspect_ai.solver import Generate, TaskState, generate, solver

    t_import = time.perf_counter()
    recorded = json.loads(Path(args.calls).read_text())
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser}

    def messages(call: list[list[str]]) -> list[Any]:
        return [kinds[role](content=text) for role, text in call]

    calls = {sid: [messages(c) for c in entry["calls"]] for sid, entry in recorded["samples"].items()}
    multi = any(len(c) > 1 for c in calls.values())
    samples = [Sample(id=sid, input=c[0], target=recorded["samples"][sid]["target"]) for sid, c in calls.items()]
    if args.order == "longest-first":  # most calls first (stable: file order among equals)
        samples.sort(key=lambda sample: -len(calls[str(sample.id)]))

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

    task = Task(
        dataset=MemoryDataset(samples, name="bare"),
        solver=replay_calls() if multi else generate(),
        scorer=trivial(),
        config=GenerateConfig(**recorded.get("config", {})),
        name=f"bare_{recorded['task']}",
    )
    t_build = time.perf_counter()
    logs = eval(task, model=_model(args.model), **_eval_kwargs(args))
    t_eval = time.perf_counter()
    return {
        "import_s": t_import - T0,
        "build_s": t_build - t_import,
        "eval_s": t_eval - t_build,
        "eval_span_monotonic": [time.monotonic() - (time.perf_counter() - t) for t in (t_build, t_eval)],
        "logs": [_log_summary(recorded["task"], logs[0])],
    }


def extract_calls(log_file: str, calls_file: Path) -> dict[str, Any]:
    """Write to ``calls_file`` ``{task, config, samples: {id: {target, calls: [[[role, text], ...], ...]}}}`` from
    our log's model events (in order within each sample; samples in the dataset's order); ``config`` is the
    generate config of the first call. Reads the archive's JSON members directly, Inspect not imported (much
    faster than Inspect's typed reader at paper size, and cheap enough to run in the benchmark's own process).

    Returns:
        ``{"samples", "calls", "prompt_chars"}``: samples and calls written, characters of their messages.

    Raises:
        KeyError: the log has neither ``header.json`` nor ``_journal/start.json`` (not an Inspect ``.eval`` log).
    """
    import zipfile

    import zipfile_zstd  # noqa: F401 - Inspect's members are zstandard (stdlib from Python 3.14)

    samples: dict[str, Any] = {}
    config: dict[str, Any] | None = None
    n_calls = 0

    def text(content: Any, attachments: dict[str, str]) -> str:
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if part.get("type") == "text")
        if content.startswith("attachment://"):  # long strings are stored once, as attachment:// references
            content = attachments[content.removeprefix("attachment://")]
        return content

    with zipfile.ZipFile(log_file) as log:
        names = log.namelist()
        # a finished log's header, else the one written when the run started (both name the task and the ids)
        header = json.loads(log.read("header.json" if "header.json" in names else "_journal/start.json"))
        order = {str(sid): i for i, sid in enumerate(header["eval"]["dataset"].get("sample_ids") or [])}
        for name in names:
            if not name.startswith("samples/"):
                continue
            sample = json.loads(log.read(name))
            attachments = sample.get("attachments") or {}
            events = [e for e in sample["events"] if e.get("event") == "model"]
            if config is None and events:
                config = {k: v for k, v in events[0]["config"].items() if v is not None}
            pool = (sample.get("events_data") or {}).get("messages") or []  # inputs stored once, as ranges into it
            inputs = [e["input"] or [m for a, b in e.get("input_refs") or [] for m in pool[a:b]] for e in events]
            calls = [[[m["role"], text(m["content"], attachments)] for m in messages] for messages in inputs]
            n_calls += len(calls)
            target = sample["target"] if isinstance(sample["target"], str) else " ".join(sample["target"])
            samples[str(sample["id"])] = {"target": target, "calls": calls}
    samples = dict(sorted(samples.items(), key=lambda item: order.get(item[0], len(order))))
    task = header["eval"]["task"]
    calls_file.write_text(json.dumps({"task": task, "config": config or {}, "samples": samples}))
    chars = sum(len(text) for entry in samples.values() for call in entry["calls"] for _, text in call)
    return {"samples": len(samples), "calls": n_calls, "prompt_chars": chars}


def main(argv: list[str]) -> None:
    """Dispatch on the mode (module docstring) and write the report JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["ours", "bare"])
    parser.add_argument("report", type=Path)
    parser.add_argument("log_dir", help="log directory")
    parser.add_argument("tasks", nargs="*")
    parser.add_argument("--model", default="mock")
    parser.add_argument("--max-connections", type=int, default=0)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--calls")
    parser.add_argument("--order", choices=["file", "longest-first"], default="file", help="bare: sample order")
    parser.add_argument("--no-score-display", action="store_true", help="no live scores (Inspect's score_display)")
    parser.add_argument(
        "--task-arg", action="append", default=[], metavar="K=V", help="ours: a task argument (string), e.g. order=file"
    )
    parser.add_argument(
        "--eval-arg",
        action="append",
        default=[],
        metavar="K=V",
        help='an eval() argument (JSON value), e.g. log_realtime=false, log_buffer=100, display="plain"',
    )
    args = parser.parse_args(argv)
    result = {"ours": run_ours, "bare": run_bare}[args.mode](args)
    result["self_maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    args.report.write_text(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
