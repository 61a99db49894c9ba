"""Reading logs at reproduction scale: CPU per sample and peak RSS of ``report``, ``compare`` and ``rescore`` against
the read floor, and ``report`` over many models' runs, for the current code and the code before a change side by side
in one run.

    python benchmarks/log_reading.py [--src ../before-checkout] [--after src] [--sizes 100,1000,10000,43716]
                                     [--rescore-sizes 1000,4000] [--models 10] [--many-limit N]
                                     [--many-timeout 1500] [--many-no-plots] [--out log_reading]

``--src`` is the code before (a checkout or its ``src/``); ``--after`` the code after, by default this checkout's
``src/``. Without ``--src`` only the code after is measured. Every command is a child process run with one tree's
``src/`` first on ``PYTHONPATH`` (CPU seconds user + system and peak RSS from ``wait4``).

**Growing log.** A discourse relations log (``tests/baseline/discourse_relations.eval``: 64 samples, about 20 KB of
JSON each, as a run writes them) is grown to each of ``--sizes`` by copying its sample members under new ids
(``<id>~<k>``, the dataset prefix kept) with the header's sample list and counts set to that size
(:func:`synthesize`), as ``growth.py`` does. At each size:

* ``floor``: decompress and parse every sample member of the archive and keep its scores (code-independent);
* ``report``: ``bediscover report --no-plots`` on the log's directory;
* ``compare``: ``bediscover compare`` of the directory with itself (``--format json``): both sides read;
* ``rescore``: ``bediscover rescore`` of the directory into a new one, at the sizes of ``--rescore-sizes`` only (the
  scorers run again on every sample and the new log is written: about 17 ms of CPU a sample, most of it Inspect's
  scoring and writing, so it is measured at fewer sizes); the two trees' re-scored logs' results are compared.

CPU per sample is the slope from the previous size (start-up drops out; the smallest size gives none), compare's
per sample of each side (half its slope); each is also given as a ratio to the floor's slope at the same size.

**Many models.** ``--models`` models (:data:`MODELS`, the paper's ten) × 6 runs (seeds 0, 1, 42 × reasoning off
and on) × the five tasks at the paper subsets: 300 logs for ten models (:func:`many_model_dir`). Each task's
baseline log is grown to the paper subset's sample ids (one baseline sample of the same dataset copied per id) and
each run is a copy of it whose header names the run's model, seed, reasoning mode, reasoning effort and Table 7
generation settings. ``bediscover report`` (plots included) runs over the whole directory with each tree, stopped
after ``--many-timeout`` seconds; the result counts the models in each task table and the cells with a paper number
per model. ``--many-limit N`` keeps the first N ids per log and ``--many-no-plots`` runs the report with
``--no-plots`` (a quick run: a plot per dataset is most of its time at a small size); ``--models 0`` skips this
part.

Writes ``results/<--out>.json`` and the tables as ``results/<--out>.md``; the report files of the two trees are
compared (:func:`outputs_compared`, :func:`cells_compared`): a file that only gained columns is told apart from one
that changed.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import sys
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from _common import REPO_DIR, RESULTS_DIR, TASKS, WORK_DIR, data_dir, run_child, write_result

BASELINE = REPO_DIR / "tests" / "baseline"
"""The suite's regression baseline: a few samples of every dataset, one log per task (``scripts/make_baseline.py``)."""

SOURCE = BASELINE / "discourse_relations.eval"
"""The log grown to each of ``--sizes``."""

MODELS: tuple[tuple[str, str | None], ...] = (
    ("vllm/Qwen/Qwen3-0.6B", None),
    ("vllm/Qwen/Qwen3-1.7B", None),
    ("vllm/Qwen/Qwen3-4B", None),
    ("vllm/Qwen/Qwen3-8B", None),
    ("vllm/Qwen/Qwen3-14B", None),
    ("vllm/Qwen/Qwen3-32B", None),
    ("vllm/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", None),
    ("together/deepseek-ai/DeepSeek-R1-0528", None),
    ("openai/gpt-5-mini", "low"),
    ("openai/azure/gpt-5-mini", "high"),
)
"""``(served model, reasoning effort)`` of the many-model directory: the paper's ten models (Tables 2-6), each
matched to its paper row by name; GPT-5-mini low and high under two served names, since a run is keyed by model."""

SEEDS = (0, 1, 42)
"""``bediscover run``'s default seeds."""

SAMPLES_DIR = "samples/"
HEADERS = ("header.json", "_journal/start.json")
"""The archive members that describe the run (its eval and plan); every other member is samples or summaries."""

FLOOR = """
import json, sys, zipfile
import zipfile_zstd  # Inspect's members are zstandard (stdlib from Python 3.14)
from pathlib import Path
kept = []
for path in sorted(Path(sys.argv[1]).glob("*.eval")):
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if info.filename.startswith("samples/") and info.filename.endswith(".json"):
                kept.append(json.loads(archive.read(info)).get("scores"))
print(len(kept))
"""
"""The read floor: every sample member decompressed and parsed, its scores kept."""


# --------------------------------------------------------------------------------------------- synthetic logs
def _read_archive(source: Path) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]], dict[str, bytes]]:
    """``(samples, headers, others)`` of an ``.eval`` log: its sample members parsed, its :data:`HEADERS` members
    parsed, and the raw bytes of the rest (summaries left out: they list the source's ids)."""
    import zipfile_zstd  # noqa: F401 - Inspect's members are zstandard (stdlib from Python 3.14)

    samples: list[dict[str, Any]] = []
    headers: dict[str, dict[str, Any]] = {}
    others: dict[str, bytes] = {}
    with zipfile.ZipFile(source) as archive:
        for info in archive.infolist():
            name = info.filename
            if name.startswith(SAMPLES_DIR):
                samples.append(json.loads(archive.read(info)))
            elif name in HEADERS:
                headers[name] = json.loads(archive.read(info))
            elif not name.endswith("summaries.json") and not name.startswith("_journal/summaries/"):
                others[name] = archive.read(info)
    return samples, headers, others


def _with_samples(header: dict[str, Any], ids: list[str | int]) -> dict[str, Any]:
    """A copy of a header (``header.json`` or ``_journal/start.json``) listing ``ids`` as its dataset's samples, all
    of them completed, and no ``--limit`` / ``--sample-id`` in its config."""
    data = copy.deepcopy(header)
    data["eval"]["dataset"]["samples"] = len(ids)
    data["eval"]["dataset"]["sample_ids"] = ids
    config = data["eval"].get("config") or {}
    config.pop("limit", None)
    config.pop("sample_id", None)
    if isinstance(data.get("results"), dict):
        data["results"]["total_samples"] = data["results"]["completed_samples"] = len(ids)
    return data


def _write_samples(path: Path, samples: Iterator[dict[str, Any]], others: dict[str, bytes]) -> list[str | int]:
    """Write an archive of ``samples`` (``samples/<id>_epoch_<epoch>.json``) and the ``others`` members; their ids."""
    ids: list[str | int] = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for sample in samples:
            ids.append(sample["id"])
            out.writestr(f"{SAMPLES_DIR}{sample['id']}_epoch_{sample['epoch']}.json", json.dumps(sample))
        for name, data in others.items():
            out.writestr(name, data)
    return ids


def _add_headers(path: Path, headers: dict[str, dict[str, Any]]) -> None:
    """Append the header members to the archive at ``path``."""
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as out:
        for name, data in headers.items():
            out.writestr(name, json.dumps(data))


def synthesize(source: Path, n: int, log_dir: Path) -> None:
    """Write into ``log_dir`` the log ``source`` grown to ``n`` samples: its samples repeated under ids
    ``<id>~<k>`` (the dataset prefix kept), its header listing them, all completed."""
    samples, headers, others = _read_archive(source)

    def grown() -> Iterator[dict[str, Any]]:
        for k in range(n):
            sample = dict(samples[k % len(samples)])
            if k >= len(samples):
                sample["id"] = f"{sample['id']}~{k // len(samples)}"
            yield sample

    shutil.rmtree(log_dir, ignore_errors=True)
    log_dir.mkdir(parents=True)
    path = log_dir / source.name
    ids = _write_samples(path, grown(), others)
    _add_headers(path, {name: _with_samples(header, ids) for name, header in headers.items()})


def paper_subset_ids(task: str) -> list[tuple[str | int, str]]:
    """``(sample id, dataset)`` of every sample of ``task`` at the paper subset, in the task's order, with the
    arguments ``bediscover run`` gives it (reasoning off, seed 0; dialogue parsing one sample per dialogue).
    Imports the package (the tree first on ``sys.path``) and reads the data root (:func:`_common.data_dir`)."""
    os.environ.setdefault("BEDISCOVER_DATA_DIR", data_dir())
    from bediscover_inspect.cli import build_tasks

    [built] = build_tasks([task], [0], [False], "paper", {"presets": "other"}, warn=False)
    return [(sample.id, str((sample.metadata or {}).get("dataset"))) for sample in built.dataset]


def as_run(header: dict[str, Any], task: str, model: str, effort: str | None, seed: int, reasoning: bool) -> dict:
    """A copy of a header member rewritten as one run of the suite: ``model`` (``eval.model``), the reasoning mode
    (task argument, resolved parameter, solver parameter), the model's preset family (task argument ``presets`` and
    the task metadata's ``generation``), ``seed`` and ``effort`` and the family's Table 7 generation settings
    (:func:`bediscover_inspect.presets.family_preset`, replacing the baseline's) in the eval's and the model's
    generate config. The run, eval and task ids are made from the run's keys, so each log is its own."""
    from bediscover_inspect.presets import family_preset, model_family

    family = model_family(model, effort)
    sent = family_preset(family, reasoning, task)
    data = copy.deepcopy(header)
    ev = data["eval"]
    ev["model"] = model
    key = f"{model.replace('/', '-')}-{task}-{'on' if reasoning else 'off'}-{seed}"
    ev["run_id"], ev["eval_id"], ev["task_id"] = f"run-{key}", f"eval-{key}", f"task-{key}"
    metadata = ev.get("metadata") or {}
    for arguments in (ev.get("task_args"), ev.get("task_args_passed"), metadata.get("parameters")):
        if isinstance(arguments, dict):
            arguments["reasoning"], arguments["presets"] = reasoning, family
    if isinstance(metadata.get("generation"), dict):
        metadata["generation"] |= {"presets": family, "family": family, "reasoning_effort": effort, "sent": sent}
    for step in data.get("plan", {}).get("steps") or []:
        for params in (step.get("params"), step.get("params_passed")):
            if isinstance(params, dict) and "reasoning" in params:
                params["reasoning"] = reasoning
    for config in (data.get("plan", {}).get("config"), ev.get("model_generate_config")):
        if isinstance(config, dict):
            for name in ("max_tokens", "temperature", "top_p", "verbosity", "reasoning_effort"):
                config.pop(name, None)
            config |= {"seed": seed, **sent} | ({"reasoning_effort": effort} if effort is not None else {})
    return data


def _copies(
    wanted: list[tuple[str | int, str]], by_dataset: dict[str, list[dict[str, Any]]]
) -> Iterator[dict[str, Any]]:
    """One sample per ``(id, dataset)`` of ``wanted``: the dataset's samples of ``by_dataset`` in turn, renamed."""
    for k, (sample_id, dataset) in enumerate(wanted):
        pool = by_dataset[dataset]
        yield dict(pool[k % len(pool)], id=sample_id)


def many_model_dir(log_dir: Path, models: Sequence[tuple[str, str | None]], limit: int | None = None) -> dict:
    """Write the many-model directory (module docstring) into ``log_dir``: ``<model>/<task>_<mode>_<seed>.eval``
    for every model of ``models``, seed of :data:`SEEDS`, reasoning off and on and task of :data:`_common.TASKS`.

    Returns:
        ``{"logs", "samples", "mb"}``: logs written, samples in them, megabytes on disk.

    Raises:
        ValueError: a task's baseline has no sample of a dataset of its paper subset.
    """
    shutil.rmtree(log_dir, ignore_errors=True)
    log_dir.mkdir(parents=True)
    logs = samples_written = 0
    for task in TASKS:
        samples, headers, others = _read_archive(BASELINE / f"{task}.eval")
        by_dataset: dict[str, list[dict[str, Any]]] = {}
        for sample in samples:
            by_dataset.setdefault(str((sample.get("metadata") or {}).get("dataset")), []).append(sample)
        wanted = paper_subset_ids(task)[:limit]
        missing = sorted({dataset for _, dataset in wanted} - set(by_dataset))
        if missing:
            raise ValueError(f"{BASELINE / f'{task}.eval'}: no sample of dataset(s) {', '.join(missing)} to copy")

        base = log_dir / f".{task}.samples"
        ids = _write_samples(base, _copies(wanted, by_dataset), others)
        listed = {name: _with_samples(header, ids) for name, header in headers.items()}
        for model, effort in models:
            folder = log_dir / model.replace("/", "_")
            folder.mkdir(exist_ok=True)
            for reasoning in (False, True):
                for seed in SEEDS:
                    path = folder / f"{task}_{'on' if reasoning else 'off'}_{seed}.eval"
                    shutil.copyfile(base, path)
                    _add_headers(path, {n: as_run(h, task, model, effort, seed, reasoning) for n, h in listed.items()})
                    logs += 1
                    samples_written += len(ids)
        base.unlink()
    mb = sum(p.stat().st_size for p in log_dir.rglob("*.eval")) / 2**20
    return {"logs": logs, "samples": samples_written, "mb": mb}


# --------------------------------------------------------------------------------------------- measuring
def _measure(res: Any) -> dict[str, float]:
    if res.returncode != 0:
        raise RuntimeError(f"child failed (exit {res.returncode}): {res.stderr_tail}")
    return {"wall_s": res.wall_s, "cpu_s": res.cpu_s, "peak_rss_mb": res.peak_rss_mb}


CLI = ["-m", "bediscover_inspect.cli"]


def _columns_added(a: Path, b: Path) -> list[str] | None:
    """The columns of CSV ``b`` that ``a`` lacks, when ``b`` has every column of ``a`` and the same rows in them
    (an output that only gained columns); ``None`` when they differ otherwise."""
    import pandas as pd

    old, new = (pd.read_csv(p, dtype=str, keep_default_na=False) for p in (a, b))
    if not set(old.columns) <= set(new.columns) or not old.equals(new[list(old.columns)]):
        return None
    return [c for c in new.columns if c not in old.columns]


def outputs_compared(a: Path, b: Path) -> dict[str, Any]:
    """Two trees' outputs of one command: the files under ``a`` (``files``), the CSV files of ``b`` that only
    gained columns (``columns_added``: file -> the new columns; every old column holds the same values) and the
    files ``b`` lacks or holds otherwise (``differing``: a markdown table that gained those columns among them)."""
    import filecmp

    files = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    added: dict[str, list[str]] = {}
    differing = []
    for name in files:
        if (b / name).is_file() and filecmp.cmp(a / name, b / name, False):
            continue
        columns = _columns_added(a / name, b / name) if name.endswith(".csv") and (b / name).is_file() else None
        if columns is None:
            differing.append(name)
        else:
            added[name] = columns
    return {"files": len(files), "columns_added": added, "differing": differing}


def cells_compared(a: Path, b: Path) -> dict[str, Any]:
    """Two trees' ``compare --format json`` cells: the fields only the second has (``fields_added``), and whether
    the cells agree in the fields both have (``common_fields_identical``)."""
    old, new = (json.loads(p.read_text())["cells"] for p in (a, b))
    common = set().union(*old) & set().union(*new) if old and new else set()
    return {
        "fields_added": sorted(set().union(*new) - common) if new else [],
        "common_fields_identical": len(old) == len(new)
        and all({k: x.get(k) for k in common} == {k: y.get(k) for k in common} for x, y in zip(old, new, strict=True)),
    }


def _rescore(n: int, trees: dict[str, Path], work: Path, log_dir: Path, row: dict[str, Any]) -> None:
    """``bediscover rescore`` of ``log_dir`` with each tree into ``row[tree]["rescore"]``; whether the trees'
    re-scored logs hold the same results (``rescore_results_identical``)."""
    from inspect_ai.log import read_eval_log

    results = []
    for name, src in trees.items():
        out = work / f"rescore_{name}_{n}"
        shutil.rmtree(out, ignore_errors=True)
        res = run_child(
            [*CLI, "rescore", str(log_dir), "--out", str(out)], work / "s.json", env={"PYTHONPATH": str(src)}
        )
        row[name]["rescore"] = _measure(res)
        results.append([read_eval_log(str(p), header_only=True).results for p in sorted(out.glob("*.eval"))])
        shutil.rmtree(out, ignore_errors=True)
        print(f"  {n:6d} samples {name:6s}: rescore {res.cpu_s:6.1f}s CPU {res.peak_rss_mb:5.0f}MB", flush=True)
    if len(results) == 2:
        row["rescore_results_identical"] = results[0] == results[1] and len(results[0]) > 0


def one_size(n: int, trees: dict[str, Path], work: Path, rescore: bool = False) -> dict[str, Any]:
    """The floor, and report and compare (and with ``rescore``, rescore) with each code tree, on the log grown to
    ``n`` samples."""
    log_dir = work / f"logs_{n}"
    synthesize(SOURCE, n, log_dir)
    row: dict[str, Any] = {"samples": n, "log_mb": sum(p.stat().st_size for p in log_dir.glob("*.eval")) / 2**20}
    row["floor"] = _measure(run_child(["-c", FLOOR, str(log_dir)], work / "floor.json"))
    for name, src in trees.items():
        env = {"PYTHONPATH": str(src)}
        out = work / f"report_{name}_{n}"
        shutil.rmtree(out, ignore_errors=True)
        report = run_child(
            [*CLI, "report", "--log-dir", str(log_dir), "--out", str(out), "--no-plots"], work / "r.json", env=env
        )
        compare = run_child(
            [*CLI, "compare", "--baseline", str(log_dir), "--candidate", str(log_dir), "--format", "json"]
            + ["--out", str(work / f"compare_{name}_{n}.json")],
            work / "c.json",
            env=env,
        )
        row[name] = {"report": _measure(report), "compare": _measure(compare)}
        print(
            f"  {n:6d} samples {name:6s}: report {report.cpu_s:6.1f}s CPU {report.peak_rss_mb:5.0f}MB | "
            f"compare {compare.cpu_s:6.1f}s CPU {compare.peak_rss_mb:5.0f}MB | floor {row['floor']['cpu_s']:.1f}s",
            flush=True,
        )
    if len(trees) == 2:
        row["report_outputs"] = outputs_compared(*(work / f"report_{name}_{n}" for name in trees))
        row["compare_cells"] = cells_compared(*(work / f"compare_{name}_{n}.json" for name in trees))
    if rescore:
        _rescore(n, trees, work, log_dir, row)
    return row


def _tables_of(out: Path) -> dict[str, Any]:
    """What a report over the many-model directory wrote: the models in each task table (``<task>.csv``) and, per
    model, the cells with a paper number (``cells.csv``)."""
    import pandas as pd

    tables = {
        task: int(pd.read_csv(out / f"{task}.csv")["model"].nunique()) if (out / f"{task}.csv").is_file() else 0
        for task in TASKS
    }
    cells = pd.read_csv(out / "cells.csv") if (out / "cells.csv").is_file() else pd.DataFrame()
    compared = (
        {str(k): int(v) for k, v in cells[cells["paper_mean"].notna()].groupby("model").size().items()}
        if not cells.empty
        else {}
    )
    return {"models_per_table": tables, "paper_cells_per_model": compared}


def many_models(
    trees: dict[str, Path],
    work: Path,
    models: Sequence[tuple[str, str | None]],
    limit: int | None,
    timeout: float,
    plots: bool = True,
) -> dict[str, Any]:
    """``bediscover report`` over the many-model directory (:func:`many_model_dir`) with each tree (without
    ``plots``: ``--no-plots``), each stopped after ``timeout`` seconds (``finished`` False)."""
    log_dir = work / "many"
    block: dict[str, Any] = {"models": len(models), "runs_per_model": 2 * len(SEEDS), "limit": limit, "plots": plots}
    block |= many_model_dir(log_dir, models, limit)
    print(f"  many models: {block['logs']} logs, {block['samples']:,} samples, {block['mb']:.0f} MB", flush=True)
    for name, src in trees.items():
        out = work / f"report_many_{name}"
        shutil.rmtree(out, ignore_errors=True)
        res = run_child(
            [*CLI, "report", "--log-dir", str(log_dir), "--out", str(out), *([] if plots else ["--no-plots"])],
            work / "m.json",
            timeout=timeout,
            env={"PYTHONPATH": str(src)},
        )
        finished = res.wall_s < timeout
        if finished and res.returncode != 0:
            raise RuntimeError(f"report over {log_dir} failed (exit {res.returncode}): {res.stderr_tail}")
        block[name] = {"wall_s": res.wall_s, "cpu_s": res.cpu_s, "peak_rss_mb": res.peak_rss_mb, "finished": finished}
        if finished:
            block[name] |= _tables_of(out)
        print(
            f"  many models {name:6s}: "
            + (f"report {res.wall_s:6.1f}s wall" if finished else f"did not finish in {timeout:.0f} s")
            + f", {res.cpu_s:6.1f}s CPU, {res.peak_rss_mb:5.0f}MB",
            flush=True,
        )
    block["timeout_s"] = timeout
    if len(trees) == 2 and all(block[name]["finished"] for name in trees):
        block["report_outputs"] = outputs_compared(*(work / f"report_many_{t}" for t in trees))
    return block


# --------------------------------------------------------------------------------------------- tables
def _per_sample(previous: dict[str, Any] | None, row: dict[str, Any], get: Callable[[dict], float]) -> float | None:
    """Milliseconds of CPU per sample added from ``previous`` to ``row`` (``None`` for the smallest size)."""
    if previous is None:
        return None
    return 1000 * (get(row) - get(previous)) / (row["samples"] - previous["samples"])


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _ratio(value: float | None, floor: float | None) -> str:
    return "–" if value is None or not floor else f"{value / floor:.1f} ×"


def table(result: dict[str, Any]) -> str:
    """Markdown: per size and code tree, CPU per sample (slope from the previous size, ms) of the floor, report and
    compare (per sample of each side) with their ratios to the floor, and each one's peak RSS (MB); then the
    many-model report per tree. A size a tree was not run at (results of two runs put together) has no line of
    that tree."""
    head = [
        "samples",
        "code",
        "floor ms/sample",
        "report ms/sample",
        "report / floor",
        "compare ms/sample (each side)",
        "compare / floor",
        "floor MB",
        "report MB",
        "compare MB",
    ]
    commits = result.get("commits", {})
    rows = sorted(result.get("sizes", []), key=lambda r: r["samples"])
    lines = [
        "Code: " + ", ".join(f"{name} = `{commits.get(name) or path}`" for name, path in result["trees"].items()) + "."
    ]
    if rows:
        lines[0] += (
            " CPU per sample: user + system seconds of the command's process, slope from the previous size; compare"
            " reads both sides, so its figure is per sample of each side. Ratios: to the floor's slope at that size."
        )
        lines += ["", "| " + " | ".join(head) + " |", "|---:|---|" + "---:|" * (len(head) - 2)]
    for previous, row in zip([None, *rows], rows, strict=False):
        floor = _per_sample(previous, row, lambda r: r["floor"]["cpu_s"])
        for name in (t for t in result["trees"] if t in row):
            report = _per_sample(previous, row, lambda r, t=name: r[t]["report"]["cpu_s"])
            compare = _per_sample(previous, row, lambda r, t=name: r[t]["compare"]["cpu_s"] / 2)
            lines.append(
                "| "
                + " | ".join(
                    [
                        f"{row['samples']:,}",
                        name,
                        _ms(floor),
                        _ms(report),
                        _ratio(report, floor),
                        _ms(compare),
                        _ratio(compare, floor),
                        f"{row['floor']['peak_rss_mb']:.0f}",
                        f"{row[name]['report']['peak_rss_mb']:.0f}",
                        f"{row[name]['compare']['peak_rss_mb']:.0f}",
                    ]
                )
                + " |"
            )
    lines += _rescore_table(result)
    many = result.get("many")
    if many:
        lines += [
            "",
            f"`bediscover report` ({'plots included' if many.get('plots', True) else '--no-plots'}) over {many['models']} model{'s' if many['models'] > 1 else ''} × "
            f"{many['runs_per_model']} runs × {len(TASKS)} tasks ({many['logs']} logs, {many['samples']:,} samples, "
            f"{many['mb']:,.0f} MB):",
            "",
            "| code | wall s | CPU s | peak RSS MB | models in each task table | cells with a paper number, per model |",
            "|---|---:|---:|---:|---|---|",
        ]
        for name in result["trees"]:
            run = many[name]
            if not run["finished"]:
                lines.append(
                    f"| {name} | did not finish in {many['timeout_s']:.0f} s | {run['cpu_s']:.0f} when stopped | "
                    f"{run['peak_rss_mb']:.0f} when stopped | – | – |"
                )
                continue
            tables = sorted(set(run["models_per_table"].values()))
            cells = sorted(run["paper_cells_per_model"].values())
            span = "none" if not cells else str(cells[0]) if cells[0] == cells[-1] else f"{cells[0]}–{cells[-1]}"
            lines.append(
                f"| {name} | {run['wall_s']:.0f} | {run['cpu_s']:.0f} | {run['peak_rss_mb']:.0f} | "
                f"{' or '.join(map(str, tables))} | {span} ({len(cells)} model{'s' if len(cells) != 1 else ''}) |"
            )
    compared = [
        _outputs_line(f"{row['samples']:,} samples", row["report_outputs"], row["compare_cells"])
        for row in rows
        if "report_outputs" in row
    ]
    if many and "report_outputs" in many:
        compared.append(_outputs_line("many models", many["report_outputs"]))
    if compared:
        lines += ["", "Outputs of the code after against the code before:", "", *compared]
    return "\n".join(lines)


def _rescore_table(result: dict[str, Any]) -> list[str]:
    """Markdown lines: per size re-scored and code tree, rescore's CPU per sample (slope from the previous size the
    tree re-scored, ms), its ratio to the floor's slope over the same sizes, and its peak RSS (MB); a size a tree
    did not re-score has no line of it."""
    rows = sorted(
        (r for r in result.get("sizes", []) if any("rescore" in r.get(t, {}) for t in result["trees"])),
        key=lambda r: r["samples"],
    )
    if not rows:
        return []
    lines = [
        "",
        "`bediscover rescore` of the grown log (CPU per sample: slope from the previous size re-scored):",
        "",
        "| samples | code | rescore ms/sample | rescore / floor | rescore MB | results identical |",
        "|---:|---|---:|---:|---:|---|",
    ]
    last: dict[str, dict[str, Any]] = {}  # per tree, the last size it re-scored
    for row in rows:
        for name in (t for t in result["trees"] if "rescore" in row.get(t, {})):
            previous, last[name] = last.get(name), row
            floor = _per_sample(previous, row, lambda r: r["floor"]["cpu_s"])
            rescore = _per_sample(previous, row, lambda r, t=name: r[t]["rescore"]["cpu_s"])
            same = row.get("rescore_results_identical")
            lines.append(
                f"| {row['samples']:,} | {name} | {_ms(rescore)} | {_ratio(rescore, floor)} | "
                f"{row[name]['rescore']['peak_rss_mb']:.0f} | {'–' if same is None else 'yes' if same else 'no'} |"
            )
    return lines


def _commit(src: Path) -> str | None:
    """The short commit of the checkout holding ``src``, ``+`` when its Python files differ from it (``None``
    outside git)."""
    import subprocess

    def git(*args: str) -> str | None:
        done = subprocess.run(["git", "-C", str(src), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ":(glob)**/*.py")
    return None if commit is None else commit + ("+" if dirty else "")


def _outputs_line(what: str, report: dict[str, Any], cells: dict[str, Any] | None = None) -> str:
    """One line on how the two trees' outputs compare (:func:`outputs_compared`, :func:`cells_compared`)."""
    added = sorted({c for columns in report["columns_added"].values() for c in columns})
    line = f"- {what}: report {report['files']} files, " + (
        f"{len(report['columns_added'])} only gained columns ({', '.join(added)}), " if added else ""
    )
    line += f"differing: {', '.join(report['differing']) or 'none'}"
    if cells is not None:
        line += "; compare cells " + (f"gained {', '.join(cells['fields_added'])}, " if cells["fields_added"] else "")
        line += "the fields both have " + ("identical" if cells["common_fields_identical"] else "differ")
    return line + "."


def _source(path: Path) -> Path:
    """The ``src/`` of a code tree: ``path`` itself, or its ``src/`` when it is a checkout."""
    path = path.resolve()
    return path / "src" if (path / "src" / "bediscover_inspect").is_dir() else path


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, help="the code before a change: a checkout or its src/ (none: after only)")
    parser.add_argument("--after", type=Path, default=REPO_DIR / "src", help="the code after (default: this src/)")
    parser.add_argument("--sizes", default="100,1000,10000,43716", help="sample counts of the grown log ('' none)")
    parser.add_argument("--rescore-sizes", default="1000,4000", help="sizes (of --sizes) rescore is measured at")
    parser.add_argument(
        "--models", type=int, default=len(MODELS), help=f"models of the many-model directory (0-{len(MODELS)})"
    )
    parser.add_argument(
        "--many-limit", type=int, help="samples per log of the many-model directory (default: the paper subset)"
    )
    parser.add_argument(
        "--many-timeout", type=float, default=1500, help="seconds before a many-model report is stopped"
    )
    parser.add_argument(
        "--many-no-plots", action="store_true", help="the many-model report with --no-plots (a quick run)"
    )
    parser.add_argument("--out", default="log_reading", help="result file name (benchmarks/results/)")
    parser.add_argument("--table", type=Path, metavar="RESULT", help="print a result file's markdown tables and stop")
    args = parser.parse_args(argv)
    if args.table:
        print(table(json.loads(args.table.read_text())))
        return {}
    if not 0 <= args.models <= len(MODELS):
        parser.error(f"--models must be 0 to {len(MODELS)}")
    trees = (
        {"after": _source(args.after)}
        if args.src is None
        else {"before": _source(args.src), "after": _source(args.after)}
    )
    sys.path.insert(0, str(trees["after"]))  # the many-model directory is written with the code after
    work = WORK_DIR / args.out
    work.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"trees": {k: str(v) for k, v in trees.items()}, "source": SOURCE.name, "sizes": []}
    result["commits"] = {name: _commit(src) for name, src in trees.items()}
    rescored = {int(s) for s in args.rescore_sizes.split(",") if s.strip()}
    for n in sorted(int(s) for s in args.sizes.split(",") if s.strip()):
        result["sizes"].append(one_size(n, trees, work, rescore=n in rescored))
        write_result(args.out, result)
    if args.models:
        result["many"] = many_models(
            trees, work, MODELS[: args.models], args.many_limit, args.many_timeout, plots=not args.many_no_plots
        )
    path = write_result(args.out, result)
    markdown = table(result)
    (RESULTS_DIR / f"{args.out}.md").write_text(markdown + "\n")
    print(f"wrote {path} and {path.with_suffix('.md').name}")
    print(markdown)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
