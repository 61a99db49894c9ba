"""Which cells come from runs that are not the paper's setting, and what differs.

A cell is compared with the paper as if it reproduced it; that is only so when its run scored the paper's samples,
on the pinned data, with Table 7's generation settings, the same samples in every seed, and the paper's weights.
Each difference is one short text naming what differs and the paper's value:

* samples: fewer samples scored than the task's dataset holds (``--limit``, ``--sample-id``, samples that ended
  in error), or a dataset built
  from the first N samples of each dataset (``-T per_dataset=N``);
* data: a file whose SHA-1 is not the pinned one (``verified`` False in the task metadata), or whose records used
  are not the paper subset's ``int(fraction × records)`` (``subset=full`` where the fraction is below 1, a shorter
  or longer file); a dataset of the paper absent from the run, for the framework / language groups it belongs to;
* generation: ``max_tokens`` / ``temperature`` / ``top_p`` / ``verbosity`` as sent (``log.plan.config`` over
  ``log.eval.model_generate_config``) against the paper model's row of Table 7 (``paper.TABLE7_ROWS``);
  when no paper model matched, ``max_tokens`` against every model's row of the mode (a value none uses differs);
* epochs: each sample answered more than once per seed (``--epochs``; the paper runs each experiment once per
  seed, §3.3);
* seeds: different numbers of samples scored in the run's seeds;
* weights: a quantised build of the paper's model (``-AWQ``, ``Q4_K_M`` …, :func:`.matching.quantisation_of`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import pandas as pd

from bediscover_inspect.data import REGISTRY
from bediscover_inspect.data.select import subset_size
from bediscover_inspect.evallogs.scores import RUN_KEYS
from bediscover_inspect.report.matching import normalised, paper_model_match, quantisation_of, same_dataset
from bediscover_inspect.report.paper import TABLE7_ROWS, table7_setting

CELL_KEYS = RUN_KEYS + ["group_key", "group"]


def _file_dataset(path: str) -> str:
    """``dm/just/test_id.json`` -> ``just`` (the dataset folder of a data file)."""
    parts = path.split("/")
    return parts[-2] if len(parts) > 1 else path


def _in_group(name: str, group_key: str, group: str) -> bool:
    """Whether a dataset or corpus ``name`` feeds the cell ``(group_key, group)``: a dataset group is its own file
    (``just`` feeds ``just-manual``); a DISRPT framework / language group holds the corpora naming it
    (``eng.pdtb.gum`` feeds ``eng`` and ``pdtb``); ``all`` and other groups hold everything."""
    if group_key == "dataset" and group != "all":
        return same_dataset(name, group)
    if group_key in {"framework", "language"}:
        return normalised(group) in {normalised(part) for part in name.split(".")}
    return True


def _files_of(data: Mapping[str, Any], group_key: str, group: str) -> list[str]:
    files = [path for path in data if _in_group(_file_dataset(path), group_key, group)]
    return files or list(data)


def _shown(value: Any) -> str:
    return "not set" if value is None else str(value)


def generation_differences(sent: Mapping[str, Any], paper_model: str | None, reasoning: str, task: str) -> list[str]:
    """What a run's generate settings (``sent``) do differently from Table 7's row of ``paper_model``.

    Without a paper model only ``max_tokens`` is checked, against every paper model's Table 7 row of the mode:
    a value no row uses differs whichever model it is compared with (temperature and top-p differ between the
    paper's model families, so they are checked only against a named one).

    Returns:
        One text per field, e.g. ``"max_tokens 256 (Table 7: 4096)"``, ``"temperature 0.6 (Table 7: not set)"``,
        ``"max_tokens 256 (Table 7, any model: 2048 or 4096)"``; empty when they agree or Table 7 has no row for
        the model and mode.
    """
    expected = table7_setting(paper_model, reasoning, task) if paper_model else None
    if expected is None:
        return [] if paper_model else _any_model_max_tokens(sent.get("max_tokens"), reasoning, task)
    out: list[str] = []
    low, high = cast(tuple[int, int], expected["max_tokens"])
    tokens = sent.get("max_tokens")
    if tokens is None or not low <= tokens <= high:
        wanted = str(low) if low == high else f"{low}-{high}"
        out.append(f"max_tokens {_shown(tokens)} (Table 7: {wanted})")
    for name in ("temperature", "top_p", "verbosity"):
        value, want = sent.get(name), expected[name]
        if not _same_setting(name, value, want):
            out.append(f"{name} {_shown(value)} (Table 7: {_shown(want)})")
    return out


def _same_setting(name: str, value: Any, want: Any) -> bool:
    """Whether a generate setting sent (``value``) is Table 7's (``want``): both unset, the same word
    (``verbosity``), or the same number to 1e-9."""
    if value is None or want is None:
        return value is None and want is None
    if name == "verbosity":
        return str(value) == str(want)
    return abs(float(value) - float(want)) < 1e-9


def _any_model_max_tokens(tokens: Any, reasoning: str, task: str) -> list[str]:
    """``max_tokens`` against every paper model's Table 7 row for ``reasoning`` and ``task``: one text when no
    row allows it (including not set: every row sets it), else none."""
    ranges = sorted(
        {
            cast(tuple[int, int], setting["max_tokens"])
            for model in TABLE7_ROWS
            if (setting := table7_setting(model, reasoning, task)) is not None
        }
    )
    if not ranges or (tokens is not None and any(low <= tokens <= high for low, high in ranges)):
        return []
    wanted = " or ".join(str(low) if low == high else f"{low}-{high}" for low, high in ranges)
    return [f"max_tokens {_shown(tokens)} (Table 7, any model: {wanted})"]


def _samples_differ(run: Mapping[str, Any], group_key: str, group: str) -> list[str]:
    """Fewer samples scored than the task's dataset holds: how (``--limit``, ``--sample-id``, errors) and, for a
    dataset cell, how many of them are the cell's dataset."""
    scored, built = int(run["samples"]), run.get("dataset_samples")
    if built is None or pd.isna(built) or scored >= int(built):
        return []
    how = _why_fewer(run)
    here = (run.get("sample_counts") or {}).get(group) if group_key == "dataset" else None
    return [
        f"samples: {scored} of {int(built)} scored"
        + (f" ({', '.join(how)})" if how else "")
        + (f", {here} of them {group}" if here is not None else "")
    ]


def _why_fewer(run: Mapping[str, Any]) -> list[str]:
    """What made a run score fewer samples: ``--limit N``, ``--sample-id``, samples that ended in error."""
    how = [f"--limit {run['limit']}"] if run.get("limit") is not None else []
    how += ["--sample-id"] if run.get("sample_id") is not None else []
    how += [f"{run['errored']} ended in error"] if run.get("errored") else []
    return how


def _epochs_differ(run: Mapping[str, Any], group_key: str, group: str) -> list[str]:
    """Each sample answered more than once per seed (``--epochs``)."""
    epochs = run.get("epochs")
    if epochs is None or pd.isna(epochs) or int(epochs) <= 1:
        return []
    return [f"epochs: each sample answered {int(epochs)} times per seed (the paper: once, §3.3)"]


def _per_dataset_differs(run: Mapping[str, Any], group_key: str, group: str) -> list[str]:
    """A dataset built from the first N samples of each dataset (``-T per_dataset=N``)."""
    per_dataset = run.get("per_dataset")
    if per_dataset is None or pd.isna(per_dataset):
        return []
    return [f"samples: only the first {per_dataset} of each dataset (-T per_dataset={per_dataset})"]


def _data_differs(run: Mapping[str, Any], group_key: str, group: str) -> list[str]:
    """The cell's data files whose SHA-1 is not the pinned one, or whose records used are not the paper subset's."""
    data = run.get("data") or {}
    out: list[str] = []
    for path in _files_of(data, group_key, group):
        out += _file_differs(path, data[path], run.get("subset") == "full")
    return out


def _file_differs(path: str, facts: Mapping[str, Any], full: bool) -> list[str]:
    """What one data file's ``facts`` (the task metadata's ``data`` entry) show against its pin in the registry;
    ``full``: the run asked for ``subset=full``."""
    out: list[str] = []
    if facts.get("verified") is False:
        out.append(
            f"data {path}: SHA-1 {str(facts.get('actual_sha1'))[:10]} is not the pinned "
            f"{str(facts.get('expected_sha1'))[:10]}"
        )
    info, used = REGISTRY.get(path), facts.get("records_used")
    if info is None or info.records is None or used is None:
        return out
    paper = subset_size(info.records, info.paper_fraction)
    if int(used) != paper:
        out.append(
            f"data {path}: {used} records used, the paper's subset has {paper}" + (" (subset=full)" if full else "")
        )
    return out


def _absent_differs(run: Mapping[str, Any], group_key: str, group: str) -> list[str]:
    """Datasets of the paper absent from the run, for a group that holds several datasets."""
    if group_key == "dataset" and group != "all":
        return []
    absent = [f"{name} ({why})" for name, why in (run.get("absent") or {}).items() if _in_group(name, group_key, group)]
    return ["absent from the run: " + ", ".join(absent)] if absent else []


_RUN_CHECKS = (_samples_differ, _epochs_differ, _per_dataset_differs, _data_differs, _absent_differs)
"""What a run's own facts may show against the paper's setting, in the order the texts are listed."""


def log_differences(
    run: Mapping[str, Any], group_key: str, group: str, paper_models: Mapping[str, str] | None = None
) -> list[str]:
    """What one log (a row of :attr:`~bediscover_inspect.evallogs.scores.LogScores.runs`) does differently from the
    paper's setting, for the cell ``(group_key, group)``; empty when nothing differs (see the module docstring)."""
    out = [text for check in _RUN_CHECKS for text in check(run, group_key, group)]
    paper_model, _ = paper_model_match(run["model"], run.get("reasoning_effort") or None, paper_models)
    out += generation_differences(run.get("generate") or {}, paper_model, run["reasoning"], run["task"])
    quantised = quantisation_of(run["model"])
    if paper_model and quantised:
        out.append(
            f"weights: {run['model'].rsplit('/', 1)[-1]} is a quantised build ({', '.join(quantised)}) of {paper_model}"
        )
    return out


def _union(lists: Sequence[list[str]]) -> list[str]:
    return list(dict.fromkeys(text for texts in lists for text in texts))


def cell_differences(
    cells: pd.DataFrame, runs: pd.DataFrame, paper_models: Mapping[str, str] | None = None
) -> pd.Series:
    """The ``differs`` text of every cell: its seeds' :func:`log_differences` (each once) and unequal samples
    across seeds, ``"; "``-joined; empty for a cell of the paper's setting. Index aligned with ``cells``."""
    if cells.empty:
        return pd.Series([], dtype=object, index=cells.index)
    by_run = {key: frame for key, frame in runs.groupby(RUN_KEYS, sort=False)} if not runs.empty else {}
    logs: dict[tuple, list[dict[str, Any]]] = {}  # run -> its logs sorted by seed, made once for all its groups
    memo: dict[tuple, str] = {}
    texts: list[str] = []
    for row in cells.itertuples(index=False):
        key = tuple(getattr(row, k) for k in CELL_KEYS)
        if key not in memo:
            run = key[: len(RUN_KEYS)]
            if run not in logs and run in by_run:
                logs[run] = by_run[run].sort_values("seed").to_dict("records")
            memo[key] = "; ".join(_seed_differences(logs[run], row, paper_models) if run in logs else [])
        texts.append(memo[key])
    return pd.Series(texts, dtype=object, index=cells.index)


def _seed_differences(
    seeds: Sequence[Mapping[str, Any]], cell: Any, paper_models: Mapping[str, str] | None
) -> list[str]:
    """The differences of one cell from its run's logs ``seeds`` (rows of the runs, sorted by seed): each log's
    :func:`log_differences` once, then unequal samples across seeds."""
    found = _union([log_differences(run, cell.group_key, cell.group, paper_models) for run in seeds])
    counts = [int(run["samples"]) for run in seeds]
    if len(set(counts)) > 1:
        found.append(
            f"samples per seed differ: {'/'.join(map(str, counts))} "
            f"(seeds {' '.join(str(run['seed']) for run in seeds)})"
        )
    return found


def setting_warnings(cells: pd.DataFrame) -> list[str]:
    """One message per run whose cells carry a paper number although the run is not the paper's setting: the
    run, what differs (every group's reasons once) and how many of its paper comparisons it concerns."""
    if cells.empty or "differs" not in cells:
        return []
    compared = cells[cells["paper_mean"].notna() & (cells["differs"] != "")]
    messages: list[str] = []
    for (task, model, reasoning, variant), frame in compared.groupby(RUN_KEYS, sort=True):
        reasons = _union([text.split("; ") for text in frame["differs"]])
        messages.append(
            f"not the paper's setting, yet compared with it ({len(frame)} cells): task {task}, model "
            f"{model}, reasoning {reasoning}" + (f", {variant}" if variant else "") + ": " + "; ".join(reasons)
        )
    return messages
