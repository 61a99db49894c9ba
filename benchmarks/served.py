"""The suite against a served model: wall time against the ideal and against a bare Inspect task, at paper size.

    python benchmarks/served.py [--slots 32,128] [--tasks a,b] [--rounds 1] [--fixed 0.4] [--per-token 0.004]
                                [--reasoning-tokens 32] [--limit N] [--dialogues N] [--suite-slots 32]
                                [--dialogue-order-slots 32] [--out served]

For each slot count, :mod:`model_server` is started with that many parallel slots, and for each task (every
dataset the data root has, paper subset; dialogue parsing incremental) rounds of two child processes run one after
the other against it, alternating which goes first (round 0: ours first, since the bare task replays its calls):

* **ours** — the suite task, ``--model openai-api/bench/bediscover-bench --max-connections <slots>``;
* **bare** — a plain Inspect task with the same sample ids, the same messages, generate config and number of calls
  per sample (recorded from our log), built-in ``generate()`` (a plain replay loop for dialogue parsing) and a
  trivial scorer, with the same model and ``--max-connections``.

**Ideal wall** = Σ(call latencies) / slots, or for dialogue parsing (the turns of a dialogue are sequential) the
larger of that and the longest dialogue's chain of calls; latencies come from the server's latency model applied
to each recorded call (checked against the server's own sum). **Efficiency** = ideal / the ``eval()`` time of the
child (imports and task building are reported beside it); ``eval()`` is split into start-up (until the first
call reaches the server), the calls' span (first arrival to last answer; ideal / span is the efficiency while
calling) and wind-down (after the last answer). **ours / bare** = ratio of spawn-to-exit wall times.
The client CPU per call (user + system seconds of the child / calls) shows how close the client is to a core.

Dialogue-parsing order (at ``--dialogue-order-slots``): the bare task is also run on STAC and MSDC alone with its
samples in file order and longest dialogue first, and on the whole task longest first, so the effect of the order
on the makespan is measured on the same calls.

Then (at ``--suite-slots``) the whole suite runs through ``bediscover run`` (reasoning off, seed 0) against the
server, with live scores off (the command's default) and/or on (``--suite-score-display off,on``): wall,
efficiency over all calls, peak RSS; and ``bediscover report`` on the first run's logs is timed.
``--no-score-display`` runs the task children (ours and bare alike) without live scores, which shows what
Inspect's live metrics cost. Writes ``results/<--out>.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

from _common import TASKS, WORK_DIR, TreeRss, finish_children, run_child, start_child, write_result
from _eval_child import extract_calls
from model_server import INSPECT_MODEL, Latency, answer, serve

CHILD = str(Path(__file__).resolve().parent / "_eval_child.py")

GOALS = {"ours_over_bare": 1.05, "efficiency": 0.90, "suite_rss_mb": 1536.0}
"""ours / bare at most 1.05; actual at least 0.90 × ideal; whole-suite peak RSS at most 1.5 GB."""


def _check(result: Any, what: str) -> None:
    logs = result.report.get("logs") or []
    if result.returncode != 0 or not logs or any(log["status"] != "success" for log in logs):
        raise RuntimeError(f"{what} failed (exit {result.returncode}): {logs}\n{result.stderr_tail}")


def call_latencies(calls_file: Path, latency: Latency, reasoning_tokens: int) -> dict[str, list[float]]:
    """Per sample, the latency of each recorded call under the server's model (answers are pure functions)."""
    recorded = json.loads(calls_file.read_text())
    return {
        sid: [
            latency(
                answer([{"role": role, "content": text} for role, text in call], reasoning_tokens).completion_tokens
            )
            for call in entry["calls"]
        ]
        for sid, entry in recorded["samples"].items()
    }


def ideal_wall(latencies: dict[str, list[float]], slots: int) -> dict[str, float]:
    """``{sum_s, per_slot_s, longest_chain_s, ideal_s}`` for calls grouped into sequential chains per sample."""
    chains = [sum(calls) for calls in latencies.values()]
    total = sum(chains)
    return {
        "sum_s": total,
        "per_slot_s": total / slots,
        "longest_chain_s": max(chains, default=0.0),
        "ideal_s": max(total / slots, max(chains, default=0.0)),
    }


def _figures(res: Any, stats: dict[str, Any] | None, ideal_s: float | None) -> dict[str, Any]:
    out = {
        "wall_s": res.wall_s,
        "eval_s": res.report["eval_s"],
        "import_s": res.report["import_s"],
        "build_s": res.report["build_s"],
        "cpu_s": res.cpu_s,
        "peak_rss_mb": res.peak_rss_mb,
        "samples": sum(log["samples"] for log in res.report["logs"]),
        "loadavg_1min_after": _loadavg(),
    }
    if stats is not None:
        out.update(
            calls=stats["requests"],
            server_latency_sum_s=stats["latency_sum_s"],
            max_in_flight=stats["max_in_flight"],
            cpu_ms_per_call=1000 * res.cpu_s / max(stats["requests"], 1),
        )
        span = res.report.get("eval_span_monotonic")
        if span and stats.get("first_arrival") is not None and stats.get("last_end") is not None:
            # eval() = start-up (until the first call reaches the server) + calls + wind-down (after the last answer)
            out.update(
                startup_s=stats["first_arrival"] - span[0],
                calls_span_s=stats["last_end"] - stats["first_arrival"],
                winddown_s=span[1] - stats["last_end"],
            )
    if ideal_s is not None:
        out["efficiency"] = ideal_s / res.report["eval_s"]
        if "calls_span_s" in out:
            out["efficiency_while_calling"] = ideal_s / out["calls_span_s"]
    return out


def _loadavg() -> float:
    """The machine's 1-minute load average (other processes slow the client: the figures carry it)."""
    import os

    return os.getloadavg()[0]


class Bench:
    """Runs children against one server (``server=None``: the scripted mockllm, no server); keeps the work
    directory."""

    def __init__(
        self,
        server: Any,
        slots: int,
        latency: Latency | None,
        reasoning_tokens: int,
        work: Path,
        score_display: bool = True,
        eval_args: list[str] | None = None,
        task_args: list[str] | None = None,
    ) -> None:
        self.server, self.slots, self.latency, self.reasoning_tokens, self.work = (
            server,
            slots,
            latency,
            reasoning_tokens,
            work,
        )
        self.score_display = score_display
        self.eval_args = [arg for item in eval_args or [] for arg in ("--eval-arg", item)]
        self.task_args = [arg for item in task_args or [] for arg in ("--task-arg", item)]  # ours only
        work.mkdir(parents=True, exist_ok=True)

    def child(self, args: list[str], name: str) -> tuple[Any, dict[str, Any] | None]:
        report = self.work / f"{name}.json"
        if not self.score_display:
            args = [*args, "--no-score-display"]
        args = [*args, *self.eval_args]
        if self.server is None:
            res = run_child([CHILD, *args, "--model", "mock"], report)
        else:
            self.server.reset()
            res = run_child(
                [CHILD, *args, "--model", INSPECT_MODEL, "--max-connections", str(self.slots)],
                report,
                env=self.server.env,
            )
        _check(res, name)
        return res, None if self.server is None else self.server.stats()

    def ours(self, task: str, limit: int, name: str) -> tuple[Any, dict[str, Any] | None]:
        return self.child(
            ["ours", str(self.work / f"{name}.json"), str(self.work / f"logs_{name}"), task, "--limit", str(limit)]
            + self.task_args,
            name,
        )

    def bare(self, calls: Path, name: str, order: str = "file") -> tuple[Any, dict[str, Any] | None]:
        return self.child(
            [
                "bare",
                str(self.work / f"{name}.json"),
                str(self.work / f"logs_{name}"),
                "--calls",
                str(calls),
                "--order",
                order,
            ],
            name,
        )

    def record(self, log_location: str, calls: Path) -> None:
        """Write the model calls of our log at ``log_location`` to ``calls`` (in this process: no child to start,
        Inspect not imported)."""
        extract_calls(log_location.removeprefix("file://"), calls)


def bench_task(bench: Bench, task: str, limit: int, rounds: int, calls: Path) -> dict[str, Any]:
    """``rounds`` ours/bare pairs for one task, alternating which goes first (round 0: ours, whose calls the bare
    task replays); figures per run and the median ratios ours / bare."""
    runs: dict[str, list[dict[str, Any]]] = {"ours": [], "bare": []}
    ideal: dict[str, float] | None = None
    for r in range(rounds):
        for kind in ("ours", "bare") if r % 2 == 0 else ("bare", "ours"):
            name = f"{task}_{kind}_{r}"
            res, stats = bench.ours(task, limit, name) if kind == "ours" else bench.bare(calls, name)
            if kind == "ours" and not calls.exists():
                bench.record(res.report["logs"][0]["location"], calls)
            if ideal is None and bench.latency is not None:
                ideal = ideal_wall(call_latencies(calls, bench.latency, bench.reasoning_tokens), bench.slots)
            row = _figures(res, stats, ideal["ideal_s"] if ideal else None)
            runs[kind].append(row)
            served = (
                f" ideal {ideal['ideal_s']:7.1f}s eff {row['efficiency']:.3f} calls {row['calls']}" if ideal else ""
            )
            print(
                f"  {name:32s} wall {res.wall_s:7.1f}s eval {res.report['eval_s']:7.1f}s{served} "
                f"cpu {res.cpu_s:6.1f}s rss {res.peak_rss_mb:5.0f}MB load {row['loadavg_1min_after']:.1f}",
                flush=True,
            )
    ours, bare = runs["ours"], runs["bare"]
    if ours[0]["samples"] != bare[0]["samples"]:
        raise RuntimeError(f"{task}: sample counts differ ({ours[0]['samples']} vs {bare[0]['samples']})")
    ratios = {
        key: statistics.median([o[key] / b[key] for o, b in zip(ours, bare)])
        for key in ("wall_s", "eval_s", "cpu_s", "peak_rss_mb")
    }
    out: dict[str, Any] = {
        "task": task,
        "samples": ours[0]["samples"],
        "rounds": rounds,
        "ours_over_bare": ratios["wall_s"],
        "ours_over_bare_per_round": [o["wall_s"] / b["wall_s"] for o, b in zip(ours, bare)],
        "ratios": ratios,
        "runs": runs,
    }
    if ideal:
        out.update(
            ideal=ideal,
            efficiency_ours=min(o["efficiency"] for o in ours),
            efficiency_bare=min(b["efficiency"] for b in bare),
        )
    return out


def dialogue_file_order() -> list[str]:
    """Sample ids of incremental dialogue parsing in the data files' order (``-T order=file``): the replays'
    "file" order, whatever order the recorded run used."""
    from _common import data_dir

    from bediscover_inspect.dialogue_parsing.task import dialogue_parsing

    task = dialogue_parsing(dataset="all", mode="incremental", order="file", presets="none", data_dir=data_dir())
    return [str(sample.id) for sample in task.dataset]


def bench_dialogue_order(
    bench: Bench, calls_dir: Path, whole: dict[str, Any] | None, sets: tuple[str, ...] = ("stac", "msdc", "all")
) -> list[dict[str, Any]]:
    """Bare replay of STAC and MSDC dialogue parsing (their calls taken from the whole task's) in the data files'
    order and longest dialogue first, and of the whole task in file order (its longest-first run is ``whole``'s
    bare run, which replays the task's own order: longest first)."""
    out = []
    recorded = json.loads((calls_dir / "dialogue_parsing.calls.json").read_text())
    file_order = {sid: i for i, sid in enumerate(dialogue_file_order())}
    for dataset in sets:
        calls = calls_dir / f"dialogue_parsing_{dataset}.calls.json"
        samples = {
            sid: recorded["samples"][sid]
            for sid in sorted(recorded["samples"], key=lambda sid: file_order.get(sid, len(file_order)))
            if dataset == "all" or sid.startswith(f"{dataset}_")
        }
        if not samples:  # a smoke run's first dialogues are all STAC
            continue
        calls.write_text(json.dumps({**recorded, "samples": samples}))
        ideal = ideal_wall(call_latencies(calls, bench.latency, bench.reasoning_tokens), bench.slots)
        row: dict[str, Any] = {"dataset": dataset, "dialogues": len(samples), "ideal": ideal}
        for order in ("file", "longest-first"):
            if dataset == "all" and order == "longest-first":
                if whole is None:
                    continue
                row[order] = whole["runs"]["bare"][0]
            else:
                res, stats = bench.bare(calls, f"{dataset}_bare_{order}", order)
                row[order] = _figures(res, stats, ideal["ideal_s"])
            print(
                f"  {dataset} bare {order:14s} eval {row[order]['eval_s']:7.1f}s ideal {ideal['ideal_s']:7.1f}s "
                f"(Σ/slots {ideal['per_slot_s']:.1f}s, longest chain {ideal['longest_chain_s']:.1f}s) "
                f"eff {row[order]['efficiency']:.3f}",
                flush=True,
            )
        out.append(row)
    return out


def bench_suite(
    bench: Bench,
    calls_dir: Path,
    tasks: list[str],
    limit: int,
    score_display: bool = False,
    report: bool = True,
    workers: int = 1,
) -> dict[str, Any]:
    """The whole suite through ``bediscover run`` (reasoning off, seed 0; live scores as ``score_display``: off is
    the command's default; ``--workers workers``), then ``bediscover report`` (if ``report``). A task without
    recorded calls (no task runs before) has its calls recorded from the suite's own log, for the ideal.
    Peak RSS: the largest process (``wait4``) and the whole process tree (sampled, :class:`_common.TreeRss`)."""
    name = "suite" + ("_score_display" if score_display else "") + (f"_workers{workers}" if workers > 1 else "")
    log_dir = bench.work / f"{name}_logs"
    shutil.rmtree(log_dir, ignore_errors=True)
    args = [
        "-m",
        "bediscover_inspect.cli",
        "run",
        "--model",
        INSPECT_MODEL,
        "--tasks",
        *tasks,
        "--reasoning",
        "off",
        "--seeds",
        "0",
        "--max-connections",
        str(bench.slots),
        "--log-dir",
        str(log_dir),
        "--display",
        "none",
        "-T",
        "sentence_ordering.dataset=nips-abs",
    ]
    if score_display:
        args.append("--score-display")
    if workers > 1:
        args += ["--workers", str(workers)]
    if limit:
        args += ["--limit", str(limit)]
    bench.server.reset()
    child = start_child(args, bench.work / f"{name}.json", env=bench.server.env)
    tree = TreeRss(child.proc.pid)
    res = finish_children([child])[0]
    rss = tree.stop()
    if res.returncode != 0:
        raise RuntimeError(f"bediscover run failed (exit {res.returncode}): {res.stderr_tail}")
    stats = bench.server.stats()
    _record_missing_calls(bench, log_dir, calls_dir, tasks)
    latencies: dict[str, list[float]] = {}
    for task in tasks:
        latencies.update(
            {
                f"{task}/{k}": v
                for k, v in call_latencies(
                    calls_dir / f"{task}.calls.json", bench.latency, bench.reasoning_tokens
                ).items()
            }
        )
    ideal = ideal_wall(latencies, bench.slots)
    result: dict[str, Any] = {
        "score_display": score_display,
        "workers": workers,
        "wall_s": res.wall_s,
        "cpu_s": res.cpu_s,
        "loadavg_1min_after": _loadavg(),
        "peak_rss_mb": res.peak_rss_mb,
        "peak_rss_tree_mb": rss["peak_total_mb"],
        "processes": rss["peak_processes"],
        "calls": stats["requests"],
        "server_latency_sum_s": stats["latency_sum_s"],
        "max_in_flight": stats["max_in_flight"],
        "ideal": ideal,
        "efficiency": ideal["ideal_s"] / res.wall_s,
    }
    print(
        f"  {name}: wall {res.wall_s:.1f}s ideal {ideal['ideal_s']:.1f}s eff {result['efficiency']:.3f} "
        f"cpu {res.cpu_s:.1f}s rss {res.peak_rss_mb:.0f}MB (tree {rss['peak_total_mb']:.0f}MB) "
        f"calls {stats['requests']}",
        flush=True,
    )
    if report:
        rep = run_child(
            ["-m", "bediscover_inspect.cli", "report", "--log-dir", str(log_dir), "--out", str(bench.work / "report")],
            bench.work / "report.json",
        )
        result["report"] = {
            "wall_s": rep.wall_s,
            "cpu_s": rep.cpu_s,
            "peak_rss_mb": rep.peak_rss_mb,
            "returncode": rep.returncode,
            "stderr_tail": rep.stderr_tail[-500:] if rep.returncode else "",
        }
        print(f"  report: {rep.wall_s:.1f}s rss {rep.peak_rss_mb:.0f}MB (exit {rep.returncode})", flush=True)
    return result


def _record_missing_calls(bench: Bench, log_dir: Path, calls_dir: Path, tasks: list[str]) -> None:
    """Record the calls of every task in ``tasks`` that has no calls file yet from its log in ``log_dir`` (one log
    per task: the suite runs seed 0, reasoning off)."""
    missing = {task for task in tasks if not (calls_dir / f"{task}.calls.json").exists()}
    if not missing:
        return
    from inspect_ai.log import list_eval_logs, read_eval_log  # here: the parent imports Inspect only when needed

    for info in list_eval_logs(str(log_dir)):
        task = read_eval_log(info, header_only=True).eval.task.rsplit("/", 1)[-1]
        if task in missing:
            bench.record(info.name.removeprefix("file://"), calls_dir / f"{task}.calls.json")
            missing.discard(task)
    if missing:
        raise RuntimeError(f"no log of {sorted(missing)} in {log_dir} to record its calls from")


def table(result: dict[str, Any]) -> str:
    """Markdown table of a result file: one row per slot count and task, the suite last."""
    lines = [
        "| slots | task | calls | ideal (s) | eval() ours / bare (s) | efficiency ours / bare | "
        "wall ours / bare (s) | ours / bare wall | ours / bare CPU | client CPU ms/call ours / bare | "
        "peak RSS ours / bare (MB) | load |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for block in result["slots"]:
        for t in block["tasks"]:
            o, b = t["runs"]["ours"][0], t["runs"]["bare"][0]
            lines.append(
                f"| {block['slots']} | {t['task']} | {o['calls']} | {t['ideal']['ideal_s']:.0f} | "
                f"{o['eval_s']:.0f} / {b['eval_s']:.0f} | {o['efficiency']:.2f} / {b['efficiency']:.2f} | "
                f"{o['wall_s']:.0f} / {b['wall_s']:.0f} | {o['wall_s'] / b['wall_s']:.2f} | "
                f"{o['cpu_s'] / b['cpu_s']:.2f} | {o['cpu_ms_per_call']:.0f} / {b['cpu_ms_per_call']:.0f} | "
                f"{o['peak_rss_mb']:.0f} / {b['peak_rss_mb']:.0f} | "
                f"{o['loadavg_1min_after']:.1f} / {b['loadavg_1min_after']:.1f} |"
            )
        for suite in block.get("suites") or ([block["suite"]] if block.get("suite") else []):
            live = " --score-display" if suite.get("score_display") else ""
            live += f" --workers {suite['workers']}" if suite.get("workers", 1) > 1 else ""
            rss = f"{suite['peak_rss_mb']:.0f}"
            if suite.get("workers", 1) > 1:
                rss += f" per process, {suite['peak_rss_tree_mb']:.0f} in all"
            lines.append(
                f"| {block['slots']} | whole suite (`bediscover run{live}`) | {suite['calls']} | "
                f"{suite['ideal']['ideal_s']:.0f} | – | {suite['efficiency']:.2f} (of spawn-to-exit) | "
                f"{suite['wall_s']:.0f} | – | – | {1000 * suite['cpu_s'] / max(suite['calls'], 1):.0f} | "
                f"{rss} | {suite['loadavg_1min_after']:.1f} |"
            )
    order = [
        "",
        "| slots | dialogues | ideal (s): Σ/slots, longest chain | bare eval() file order (s) | "
        "longest first (s) | efficiency file order / longest first |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for block in result["slots"]:
        for row in block.get("dialogue_order", []):
            f, lf, i = row.get("file"), row.get("longest-first"), row["ideal"]
            if f and lf:
                order.append(
                    f"| {block['slots']} | {row['dataset']} ({row['dialogues']}) | {i['ideal_s']:.0f}: "
                    f"{i['per_slot_s']:.0f}, {i['longest_chain_s']:.0f} | "
                    f"{f['eval_s']:.0f} | {lf['eval_s']:.0f} | "
                    f"{f['efficiency']:.2f} / {lf['efficiency']:.2f} |"
                )
    return "\n".join(lines + (order if len(order) > 3 else []))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the selected tasks at each slot count, then the dialogue-order runs and the whole suite."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slots", default="32,128", help="comma-separated slot counts (= --max-connections)")
    parser.add_argument(
        "--tasks",
        default=",".join(TASKS),
        help="tasks of the ours/bare pairs ('': none, the whole suite runs all five, its calls recorded from its logs)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="ours/bare pairs per task and slot count")
    parser.add_argument("--fixed", type=float, default=1.0, help="fixed seconds per call")
    parser.add_argument("--per-token", type=float, default=0.015, help="seconds per completion token")
    parser.add_argument(
        "--scale-with-slots",
        action="store_true",
        help="scale both latency parts by slots / 32 (the server's throughput stays the same)",
    )
    parser.add_argument("--reasoning-tokens", type=int, default=32, help="mean reasoning tokens per call")
    parser.add_argument("--limit", type=int, default=0, help="samples per task (0: all; for smoke runs)")
    parser.add_argument("--dialogues", type=int, default=0, help="dialogues for dialogue_parsing (0: all)")
    parser.add_argument(
        "--suite-slots", default="32", help="slot counts at which the whole suite runs, then the report ('' for none)"
    )
    parser.add_argument(
        "--dialogue-order-slots",
        default="32",
        help="slot counts at which the dialogue-order runs are made ('' for none)",
    )
    parser.add_argument("--out", default="served", help="result file name (benchmarks/results/)")
    parser.add_argument(
        "--dialogue-order-sets",
        default="stac,msdc,all",
        help="dialogue-parsing datasets of the dialogue-order runs ('all': the whole task)",
    )
    parser.add_argument(
        "--calls-dir",
        type=Path,
        help="recorded calls of an earlier run (its .work/<out>/calls) instead of recording them",
    )
    parser.add_argument(
        "--no-task-runs", action="store_true", help="with --calls-dir: only the dialogue-order runs and the whole suite"
    )
    parser.add_argument(
        "--no-score-display", action="store_true", help="task runs (ours and bare) without Inspect's live scores"
    )
    parser.add_argument(
        "--suite-score-display",
        default="off",
        help="live scores of the whole-suite runs: off (bediscover run's default), on, or off,on (both runs)",
    )
    parser.add_argument(
        "--eval-arg",
        action="append",
        default=[],
        metavar="K=V",
        help="an eval() argument for the task children, ours and bare alike (JSON value; repeatable), "
        "e.g. log_realtime=false",
    )
    parser.add_argument(
        "--suite-tasks",
        default=None,
        help="tasks of the whole-suite runs (default: --tasks, or all five when --tasks is '')",
    )
    parser.add_argument(
        "--suite-workers",
        default="1",
        help="worker processes of the whole-suite runs (bediscover run --workers): 1, 2, or 1,2 (one run each)",
    )
    parser.add_argument("--table", type=Path, metavar="RESULT", help="print a result file's markdown table and stop")
    args = parser.parse_args(argv)
    if args.table:
        print(table(json.loads(args.table.read_text())))
        return {}
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if set(tasks) - set(TASKS) or args.rounds < 1:
        parser.error(f"--tasks must name tasks of {list(TASKS)}; --rounds at least 1")
    suite_tasks = [t.strip() for t in (args.suite_tasks or ",".join(tasks or TASKS)).split(",") if t.strip()]
    if set(suite_tasks) - set(TASKS):
        parser.error(f"--suite-tasks must name tasks of {list(TASKS)}")
    suite_workers = [int(w) for w in args.suite_workers.split(",") if w.strip()]
    if not suite_workers or min(suite_workers) < 1:
        parser.error("--suite-workers takes worker counts >= 1, e.g. 1,2")
    suite_slots = {int(s) for s in args.suite_slots.split(",") if s.strip()}
    suite_variants = [v.strip() for v in args.suite_score_display.split(",") if v.strip()]
    if not suite_variants or set(suite_variants) - {"off", "on"}:
        parser.error("--suite-score-display takes off, on or off,on")
    dialogue_order_slots = {int(s) for s in args.dialogue_order_slots.split(",") if s.strip()}
    if args.no_task_runs and not args.calls_dir:
        parser.error("--no-task-runs needs --calls-dir")
    work = WORK_DIR / args.out
    shutil.rmtree(work, ignore_errors=True)
    calls_dir = work / "calls"
    if args.calls_dir:
        shutil.copytree(args.calls_dir, calls_dir)
    calls_dir.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "goals": GOALS,
        "rounds": args.rounds,
        "limit": args.limit,
        "dialogues": args.dialogues,
        "reasoning_tokens": args.reasoning_tokens,
        "score_display": not args.no_score_display,
        "eval_args": args.eval_arg,
        "slots": [],
    }
    for slots in [int(s) for s in args.slots.split(",")]:
        scale = slots / 32 if args.scale_with_slots else 1.0
        latency = Latency(args.fixed * scale, args.per_token * scale)
        print(
            f"slots {slots}: latency {latency.fixed_s:.3f} s + {1000 * latency.per_token_s:.1f} ms/token, "
            f"reasoning tokens {args.reasoning_tokens} per call on average",
            flush=True,
        )
        block: dict[str, Any] = {
            "slots": slots,
            "latency": {"fixed_s": latency.fixed_s, "per_token_s": latency.per_token_s},
            "tasks": [],
        }
        result["slots"].append(block)
        with serve(slots, latency, args.reasoning_tokens, work) as server:
            bench = Bench(
                server,
                slots,
                latency,
                args.reasoning_tokens,
                work / f"slots{slots}",
                not args.no_score_display,
                args.eval_arg,
            )
            for task in [] if args.no_task_runs else tasks:
                limit = args.dialogues if task == "dialogue_parsing" else args.limit
                block["tasks"].append(bench_task(bench, task, limit, args.rounds, calls_dir / f"{task}.calls.json"))
                path = write_result(args.out, result)  # after each step, so a long run keeps what it measured
            if slots in dialogue_order_slots and "dialogue_parsing" in tasks:
                whole = next((t for t in block["tasks"] if t["task"] == "dialogue_parsing"), None)
                block["dialogue_order"] = bench_dialogue_order(
                    bench, calls_dir, whole, tuple(args.dialogue_order_sets.split(","))
                )
                path = write_result(args.out, result)
            if slots in suite_slots:
                block["suites"] = []
                for i, (variant, workers) in enumerate((v, w) for v in suite_variants for w in suite_workers):
                    block["suites"].append(
                        bench_suite(
                            bench,
                            calls_dir,
                            suite_tasks,
                            args.limit,
                            score_display=variant == "on",
                            report=i == 0,
                            workers=workers,
                        )
                    )
                    path = write_result(args.out, result)
    print(f"wrote {path}")
    print(table(result))
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
