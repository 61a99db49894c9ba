"""Matching our cells to the paper's: model names, settings, groups and measures (``paper_results.csv``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from bediscover_inspect.measures import paper_key
from bediscover_inspect.report.paper import load_paper_results


def _norm(text: Any) -> str:
    return re.sub(r"[^a-z0-9+]", "", str(text).lower())


_DATASET_ALIASES = {
    "justmanual": "just-manual",
    "justsubtitle": "just-subtitle",
    "otherwise": "otherwise",
    "tbd": "tbd",
    "tbdee": "tbd",
    "tddman": "tdd-man",
    "tdd": "tdd-man",
    "totarithmetic": "tot-arithmetic",
    "tot": "tot-arithmetic",
    "totari": "tot-arithmetic",
    "aanabstract": "aan-abstract",
    "aan": "aan-abstract",
    "arxivabstracts": "arxiv-abstracts",
    "arxiv": "arxiv-abstracts",
    "nipsabs": "nips-abs",
    "neurips": "nips-abs",
    "nsf": "nsf",
    "roc": "roc",
    "sindcaptions": "sind-captions",
    "sind": "sind-captions",
    "wikimovies": "wiki-movies",
    "stac": "stac",
    "molweni": "molweni",
    "msdc": "msdc",
}

_MODEL_ALIASES = {
    "deepseekr1distillqwen32b": "DS-r1-distill-Qwen",
    "dsr1distillqwen": "DS-r1-distill-Qwen",
    "deepseekr1": "DeepSeek-r1-0528",
}

_SETTING_ALIASES = {"incremental": ("auto-regressive",), "autoregressive": ("auto-regressive",)}
"""Our task-argument values -> the paper's setting names (dialogue parsing calls its main mode "incremental")."""


def normalised(text: Any) -> str:
    """A name with case and punctuation dropped (``Just-Manual`` -> ``justmanual``), for loose comparisons."""
    return _norm(text)


def same_dataset(folder: str, group: str) -> bool:
    """Whether a data folder (``just``, ``tbd-ee``, ``nips-abs``) holds the dataset group ``group``
    (``just-manual``, ``tbd``, ``nips-abs``): the same name, the same alias, or ``group`` extends ``folder``."""
    a, b = _norm(folder), _norm(group)
    return a == b or _DATASET_ALIASES.get(a, a) == _DATASET_ALIASES.get(b, b) or b.startswith(a)


def canonical_measure(measure: str) -> str:
    """Our score name or the paper's metric name -> a shared key (``micro_f1`` -> ``accuracy``): the measure's
    :attr:`~bediscover_inspect.measures.Measure.paper_key` in the catalog (:func:`bediscover_inspect.measures.paper_key`).

    ``acc`` and ``micro_f1`` count as ``accuracy`` (one label per sample, so micro-F1 equals accuracy);
    ``output_tokens`` (``output_tokens_per_turn`` in dialogue parsing) is the paper's ``tok.``, which counts every
    generated token, the answer included (see the README, "The paper's tok. column"); ``reasoning_tokens`` has
    no paper column.
    """
    return paper_key(measure)


TDD_MAN_NOTE = (
    "TDD-Man: the captions of Tables 24 and 25 are read as swapped (Table 3's TDD-Man column, the "
    "full-document setting of its TBD column, equals Table 24, and §5.1.2 says removing context lowers "
    "TDD-Man, which holds only with the captions swapped): context=document is compared with Table 24, "
    "context=sentences with Table 25"
)
"""The note every cell compared under :data:`PAPER_SETTING_READINGS` carries (``paper_note``)."""

PAPER_NOTE_LABELS: dict[str, str] = {TDD_MAN_NOTE: "TDD-Man: Tables 24/25 read with their captions swapped (see Notes)"}
"""The short form of a ``paper_note`` in the task tables (``report.md`` gives the note in full, once)."""

PAPER_SETTING_READINGS: dict[tuple[int, str, str], tuple[str, str]] = {
    (24, "tdd-man", "without-context"): ("with-context", TDD_MAN_NOTE),
    (25, "tdd-man", "with-context"): ("without-context", TDD_MAN_NOTE),
    (3, "tdd-man", "without-context"): ("with-context", TDD_MAN_NOTE),
}
"""``(table, dataset, setting as printed) -> (setting as the report reads it, note)`` where the paper's own
numbers contradict its caption. ``paper_results.csv`` keeps what the paper prints; matching applies these."""


def read_paper_settings(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` of ``paper_results.csv`` with ``variant`` as the report reads it (:data:`PAPER_SETTING_READINGS`)
    and a ``reading_note`` column (empty where the printed setting is used)."""
    readings = [PAPER_SETTING_READINGS.get(key) for key in zip(rows.table, rows.dataset, rows.variant)]
    return rows.assign(
        variant=[r[0] if r else v for r, v in zip(readings, rows.variant)],
        reading_note=[r[1] if r else "" for r in readings],
    )


QUANTISED_TOKENS = ("awq", "gptq", "int4", "int8", "fp8", "bnb", "4bit", "8bit", "w4a16", "w8a8")
"""Name suffixes of quantised builds (plus llama.cpp's ``Q4_K_M``-style and ``IQ4_XS``-style tags)."""

FORMAT_TOKENS = ("gguf", "mlx", "fp16", "bf16", "f16", "f32")
"""Name suffixes of a file format or precision that names the same model."""

_SUFFIX = re.compile(
    r"[-_.:](" + "|".join(QUANTISED_TOKENS + FORMAT_TOKENS) + r"|i?q\d(?:_[a-z0-9]+)*)$", re.IGNORECASE
)


def base_model_name(model: str) -> tuple[str, list[str]]:
    """The model name without its provider / organisation prefix and its build suffixes, and the suffixes.

    Only suffixes that name a build of the same model are removed: a file extension or format (``.gguf``,
    ``-GGUF``, ``-MLX``, ``-BF16``), a quantisation (``-AWQ``, ``-GPTQ-Int4``, ``-FP8``, ``-bnb-4bit``,
    llama.cpp's ``Q4_K_M`` / ``Q8_0`` / ``IQ4_XS``, also as a ``:Q4_K_M`` tag). ``-Instruct``, ``-Base`` or a
    date are kept: they name other models (``Qwen3-4B-Instruct-2507`` is not ``Qwen3-4B``).

    ``gguf/./Qwen3-8B-Q4_K_M.gguf`` -> ``("Qwen3-8B", ["Q4_K_M", "gguf"])``.
    """
    name = model.rsplit("/", 1)[-1]
    suffixes: list[str] = []
    while (found := _SUFFIX.search(name)) is not None and found.start() > 0:
        suffixes.insert(0, found.group(1))
        name = name[: found.start()]
    return name, suffixes


def quantisation_of(model: str) -> list[str]:
    """The quantisation suffixes of a served name (``Qwen/Qwen3-8B-AWQ`` -> ``["AWQ"]``; none for ``-BF16``)."""
    _, suffixes = base_model_name(model)
    return [s for s in suffixes if s.lower() not in FORMAT_TOKENS]


ALL_MODELS = "*"
"""Key of :func:`parse_paper_models`' result that maps every served model (``--paper-model NAME``)."""


def paper_model_names() -> list[str]:
    """The paper's BeDiscovER model rows (``Qwen3-0.6B`` … ``GPT-5-mini (high)``), as printed."""
    return list(_paper_models())


def parse_paper_models(values: Sequence[str] | None) -> dict[str, str]:
    """``--paper-model`` values -> ``{served model or ALL_MODELS: paper model}``.

    Each value is ``PAPER`` (every model of the logs) or ``SERVED=PAPER`` (one model, as ``log.eval.model`` names
    it or its last path part: ``gguf/./Qwen3-8B-Q4_K_M.gguf=Qwen3-8B``). ``PAPER`` is one of
    :func:`paper_model_names` (case and punctuation ignored) or ``GPT-5-mini``, which takes ``(low)`` / ``(high)``
    from the run's reasoning effort.

    Raises:
        ValueError: an unknown paper model (the message lists the paper's models) or an empty name.
    """
    mapping: dict[str, str] = {}
    known = {_norm(name): name for name in paper_model_names()} | {_norm("GPT-5-mini"): "GPT-5-mini"}
    for value in values or ():
        served, sep, paper = value.rpartition("=")
        if (sep and not served.strip()) or not paper.strip():
            raise ValueError(f"--paper-model expects PAPER or SERVED=PAPER, got {value!r}")
        name = known.get(_norm(paper))
        if name is None:
            raise ValueError(
                f"--paper-model {value!r}: {paper!r} is not a model of the paper; choose from "
                + ", ".join(paper_model_names())
                + " (or GPT-5-mini)"
            )
        mapping[served.strip() if sep else ALL_MODELS] = name
    return mapping


def paper_model_match(
    model: str, reasoning_effort: str | None = None, paper_models: Mapping[str, str] | None = None
) -> tuple[str | None, str]:
    """The paper's row name of our model and how it was found (``"--paper-model"``, ``"name"``), or ``(None, "")``.

    ``paper_models`` (:func:`parse_paper_models`) wins: the served name itself, its last path part, then
    :data:`ALL_MODELS`. Otherwise the loose name match of :func:`paper_model_name`.
    """
    given = dict(paper_models or {})
    for key in (model, model.rsplit("/", 1)[-1], ALL_MODELS):
        if key in given:
            named = given[key]
            if named == "GPT-5-mini":
                named = f"GPT-5-mini ({reasoning_effort})" if reasoning_effort in {"low", "high"} else ""
            return (named or None), ("--paper-model" if named else "")
    name = paper_model_name(model, reasoning_effort)
    return name, ("name" if name else "")


def paper_model_name(model: str, reasoning_effort: str | None = None) -> str | None:
    """Our model id -> the paper's row name, or ``None`` when the paper has no such model.

    Loose match: the provider and organisation prefixes and build suffixes (:func:`base_model_name`) are dropped
    (``vllm/Qwen/Qwen3-8B`` and ``gguf/./Qwen3-8B-Q4_K_M.gguf`` -> ``Qwen3-8B``) and case and punctuation
    ignored. GPT-5-mini maps to ``GPT-5-mini (low)`` / ``(high)`` by the run's ``reasoning_effort``
    (``--reasoning-effort``); other efforts have no paper row.
    """
    tail = _norm(base_model_name(model)[0])
    if tail.startswith("gpt5mini"):
        return f"GPT-5-mini ({reasoning_effort})" if reasoning_effort in {"low", "high"} else None
    if tail in _MODEL_ALIASES:
        return _MODEL_ALIASES[tail]
    for name in _paper_models():
        if _norm(name) == tail:
            return name
    return None


@lru_cache(maxsize=1)
def _paper_models() -> tuple[str, ...]:
    """The paper's model names, once per process (the packaged results do not change while it runs)."""
    df = load_paper_results()
    ours = df[df.section == "BeDiscovER"]
    appendix_first = ours.assign(_main=ours.table < 13).sort_values(["_main", "table"], kind="stable")
    return tuple(dict.fromkeys(appendix_first.model))  # in the order of the appendix tables' rows (Table 13)


def _context_setting(value: Any) -> str | None:
    text = _norm(value)
    if text in {"true", "1", "yes", "with", "withcontext", "full", "document", "doc"}:
        return "with-context"
    if text in {"false", "0", "no", "none", "without", "withoutcontext", "sentence", "sentences"}:
        return "without-context"
    return None


def _variant_candidates(variant: str) -> set[str]:
    """Setting names our task arguments may express, normalised."""
    names: set[str] = set()
    for item in filter(None, variant.split(",")):
        key, _, value = item.partition("=")
        value = value.strip('"')
        names.add(_norm(value))
        names |= {_norm(alias) for alias in _SETTING_ALIASES.get(_norm(value), ())}
        if "context" in key.lower():
            setting = _context_setting(value)
            if setting:
                names.add(_norm(setting))
    return names


_GROUP_KINDS = {"framework": "framework", "language": "language", "category": "category"}
"""Our ``group_key`` values that name a paper sub-group (``framework:DEP``, ``language:ces``, ``category:tz``)."""


class _Dataset:
    """The paper rows of one dataset within a slice: the first (best) one, its settings and the first per setting."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.settings: set[str] = set()
        self.by_setting: dict[str, int] = {}

    def add(self, rank: int, variant: str) -> None:
        if self.first is None:
            self.first = rank
        if variant:
            self.settings.add(variant)
        self.by_setting.setdefault(_norm(variant), rank)


class _Slice:
    """The paper rows of one task, paper model, reasoning mode and measure, by sub-group and by dataset."""

    def __init__(self) -> None:
        self.by_part: dict[tuple[str, str], int] = {}
        self.by_dataset: dict[str, _Dataset] = {}

    def add(self, rank: int, dataset: str, variant: str) -> None:
        kind, _, name = variant.partition(":")
        self.by_part.setdefault((kind, _norm(name)), rank)
        if dataset != "tot-arithmetic" or variant == "category:all":
            self.by_dataset.setdefault(dataset, _Dataset()).add(rank, variant)


class PaperIndex:
    """The paper's BeDiscovER rows (``paper_results.csv``, settings read through :data:`PAPER_SETTING_READINGS`)
    keyed by :func:`match_paper`'s rules, built once so that matching a cell takes a few dictionary look-ups.

    ``rows``: those rows (the paper frame's index kept); :meth:`find` gives a position in it. Rows are ranked
    appendix tables (13 and above) first, then by table number, then in the file's order, so the first row a key
    reaches is the one :func:`match_paper` returns.
    """

    def __init__(self, paper: pd.DataFrame) -> None:
        self.rows = read_paper_settings(paper[paper.section == "BeDiscovER"])
        tables = self.rows.table.tolist()
        self._order = sorted(range(len(tables)), key=lambda i: (tables[i] < 13, tables[i]))
        self._slices: dict[tuple[str, str, str, str], _Slice] = {}
        columns = (self.rows[c].tolist() for c in ("task", "model", "reasoning", "metric", "dataset", "variant"))
        facts = list(zip(*columns, strict=True))
        for rank, position in enumerate(self._order):
            task, model, reasoning, metric, dataset, variant = facts[position]
            key = (task, model, _mode_key(model, reasoning), canonical_measure(metric))
            self._slices.setdefault(key, _Slice()).add(rank, dataset, variant)

    def find(
        self, task: str, group_key: str, group: str, variant: str, paper_model: str, reasoning: str, measure: str
    ) -> int | None:
        """The position in :attr:`rows` of the paper's cell for one of our cells whose model is the paper's
        ``paper_model`` (:func:`paper_model_match`), or ``None``; the rules of :func:`match_paper`."""
        if group == "all":
            return None
        found = self._slices.get((task, paper_model, _mode_key(paper_model, reasoning), canonical_measure(measure)))
        if found is None:  # a measure the paper does not report (invalid, ambiguous, reasoning_tokens …)
            return None
        g = _norm(group)
        kind = _GROUP_KINDS.get(group_key.lower(), "")
        if kind or task == "discourse_relations":
            rank = found.by_part.get((kind or "corpus", g))
        else:
            alias = _DATASET_ALIASES.get(g)
            dataset = None if alias is None else found.by_dataset.get(alias)
            if dataset is None:
                return None
            if len(dataset.settings) > 1:  # several settings: ours must name one
                ranks = [dataset.by_setting[w] for w in _variant_candidates(variant) if w in dataset.by_setting]
                rank = min(ranks, default=None)
            else:
                rank = dataset.first
        return None if rank is None else self._order[rank]


def _mode_key(paper_model: str, reasoning: str) -> str:
    """The reasoning mode a paper row is keyed by: GPT-5-mini rows (the "w/ reasoning" columns) match either mode."""
    return "" if paper_model.startswith("GPT-5-mini") else reasoning


def match_paper(
    paper: pd.DataFrame,
    task: str,
    group_key: str,
    group: str,
    variant: str,
    model: str,
    reasoning: str,
    reasoning_effort: str,
    measure: str,
    paper_models: Mapping[str, str] | None = None,
) -> pd.Series | None:
    """The paper's cell (a row of ``paper``, with a ``reading_note``) for one of our cells, or ``None``.

    Rules: same task; the group is a dataset (aliases such as ``tbd-ee`` -> ``tbd``), or a DISRPT framework /
    language / corpus, or a ToT category (``framework:``/``language:``/``corpus:``/``category:`` variants);
    the paper's setting (prompt style, context, parsing mode) must be named by one of our task arguments
    (when the paper has several settings for that dataset and ours names none, there is no match); same
    reasoning mode (GPT-5-mini rows are the paper's "w/ reasoning" columns and match either mode by effort);
    same measure (:func:`canonical_measure`). Appendix tables win over the main text's repeats. Settings are read
    through :data:`PAPER_SETTING_READINGS` (the hit's ``reading_note`` says where); the model through
    :func:`paper_model_match` (``paper_models``: ``--paper-model``). Builds a :class:`PaperIndex` of ``paper``
    each call: to match many cells, build one and call :meth:`PaperIndex.find` (as :func:`with_paper` does).
    """
    name, _ = paper_model_match(model, reasoning_effort or None, paper_models)
    if name is None:
        return None
    index = PaperIndex(paper)
    position = index.find(task, group_key, group, variant, name, reasoning, measure)
    return None if position is None else index.rows.iloc[position]


def with_paper(
    agg: pd.DataFrame, paper: pd.DataFrame | None = None, paper_models: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Add ``paper_model``, ``paper_table``, ``paper_mean``, ``paper_std``, ``paper_note`` (where the paper is
    read against its caption, :data:`PAPER_SETTING_READINGS`) and ``diff`` (ours - paper) columns.

    ``paper_models``: ``--paper-model`` (:func:`parse_paper_models`)."""
    paper = load_paper_results() if paper is None else paper
    cols: dict[str, list[Any]] = {
        k: [] for k in ("paper_model", "paper_table", "paper_mean", "paper_std", "paper_note")
    }
    index = PaperIndex(paper)
    facts = {c: index.rows[c].tolist() for c in ("model", "table", "mean", "std", "reading_note")}
    names: dict[tuple[str, str], str | None] = {}  # (served model, reasoning effort) -> paper model
    keys = ("task", "group_key", "group", "variant", "model", "reasoning", "reasoning_effort", "measure")
    for task, group_key, group, variant, model, reasoning, effort, measure in zip(*(agg[k] for k in keys)):
        if (model, effort) not in names:
            names[model, effort] = paper_model_match(model, effort or None, paper_models)[0]
        name = names[model, effort]
        at = None if name is None else index.find(task, group_key, group, variant, name, reasoning, measure)
        cols["paper_model"].append("" if at is None else facts["model"][at])
        cols["paper_table"].append(np.nan if at is None else int(facts["table"][at]))
        cols["paper_mean"].append(np.nan if at is None else float(facts["mean"][at]))
        cols["paper_std"].append(np.nan if at is None else float(facts["std"][at]))
        cols["paper_note"].append("" if at is None else facts["reading_note"][at])
    out = agg.assign(**cols)
    out["diff"] = out["mean"] - out["paper_mean"]
    return out
