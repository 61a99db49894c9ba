"""The paper's tables as runs: which tasks, datasets, prompt variants, reasoning modes and seeds each one reports.

Read from the paper's own numbers (:func:`bediscover_inspect.report.paper.load_paper_results`, the BeDiscovER rows
of Tables 2-6 and the appendix Tables 13-41), with the settings as the report reads them
(:func:`bediscover_inspect.report.matching.read_paper_settings`: Tables 24/25 and Table 3's TDD-Man column are
compared with the full-document setting their numbers come from), so ``bediscover run --table N`` produces the
logs ``bediscover report --table N`` compares with Table N.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bediscover_inspect.presets import PAPER_SEEDS
from bediscover_inspect.report.matching import read_paper_settings
from bediscover_inspect.report.paper import load_paper_results

MAIN_TABLES: tuple[int, ...] = (2, 3, 4, 5, 6)
"""The main text's result tables; each reports every dataset of its task ("w/ reasoning")."""

VARIANT_ARGS: dict[str, dict[str, dict[str, Any]]] = {
    "discourse_markers": {"basic": {"prompt": "basic"}, "def": {"prompt": "def"}, "def+exp": {"prompt": "def+exp"}},
    "temporal_reasoning": {"with-context": {"context": "document"}, "without-context": {"context": "sentences"}},
    "dialogue_parsing": {"auto-regressive": {"mode": "incremental"}, "single-turn": {"mode": "single-turn"}},
}
"""A paper variant (``paper_results.csv``'s ``variant``) -> the task arguments that run it (Appendix B's prompt
formats, Tables 22-25's context settings, Table 6 / Tables 39-41's parsing modes). A variant not listed (a sub-group
such as ``language:deu`` or ``category:tz``, or none) sets no argument."""


@dataclass(frozen=True)
class TableGroup:
    """The evals of one table that share their task arguments: ``task`` with ``args`` (``dataset`` included when
    the table reports only some of the task's datasets)."""

    task: str
    args: tuple[tuple[str, Any], ...]

    @property
    def task_args(self) -> dict[str, Any]:
        """``args`` as the ``-T`` arguments of ``bediscover run``, one task only (``<task>.<arg>`` keys)."""
        return {f"{self.task}.{key}": list(value) if isinstance(value, tuple) else value for key, value in self.args}

    @property
    def label(self) -> str:
        """``task`` and its arguments, ``key=value`` comma-separated (the plan's and the run's name for it)."""
        shown = ",".join(f"{key}={_shown(value)}" for key, value in self.args)
        return f"{self.task} {shown}".strip()


@dataclass(frozen=True)
class PaperTable:
    """What one paper table reports, as runs.

    Attributes:
        number: the table's number in the paper.
        groups: the evals' task arguments, one group per prompt variant or parsing mode (one when the table has
            none).
        modes: reasoning modes the table reports (``False`` = without, ``True`` = "w/ reasoning").
        seeds: the seeds of its mean ± std (Appendix A: 0, 1 and 42).
    """

    number: int
    groups: tuple[TableGroup, ...]
    modes: tuple[bool, ...]
    seeds: tuple[int, ...] = PAPER_SEEDS

    @property
    def tasks(self) -> tuple[str, ...]:
        """The tasks of the table, in the order of its groups."""
        return tuple(dict.fromkeys(group.task for group in self.groups))


def _shown(value: Any) -> str:
    return ",".join(value) if isinstance(value, (list, tuple)) else str(value)


def _dataset_of(task: str, dataset: str, variant: str) -> str | None:
    """The task's dataset name of a paper row; ``None`` for every dataset (DISRPT's language/framework views)."""
    if task == "discourse_relations":
        return variant.partition(":")[2] if variant.startswith("corpus:") else None
    return dataset


@lru_cache(maxsize=1)
def paper_tables() -> dict[int, PaperTable]:
    """Every table of the paper with BeDiscovER rows, by number (Tables 2-6 and 13-41).

    Per table: its task, the datasets of its rows (all of the task's for :data:`MAIN_TABLES` and the DISRPT
    language / framework views), one group per variant of :data:`VARIANT_ARGS` (datasets whose rows have no
    variant join the first group, as ToT-Arithmetic in Table 3, where the context setting has no effect), and the
    reasoning modes of its rows.
    """
    rows = read_paper_settings(load_paper_results())
    rows = rows[rows.section == "BeDiscovER"]
    tables: dict[int, PaperTable] = {}
    for number, table in rows.groupby("table", sort=True):
        by_args: dict[tuple[str, tuple[tuple[str, Any], ...]], list[str | None]] = {}
        loose: list[tuple[str, str | None]] = []
        for task, dataset, variant in table[["task", "dataset", "variant"]].drop_duplicates().itertuples(index=False):
            args = VARIANT_ARGS.get(task, {}).get(variant)
            name = _dataset_of(task, dataset, variant)
            if args is None:
                loose.append((task, name))
            else:
                by_args.setdefault((task, tuple(sorted(args.items()))), []).append(name)
        for task, name in loose:
            key = next((k for k in by_args if k[0] == task), (task, ()))
            by_args.setdefault(key, []).append(name)
        groups = []
        for (task, shared), names in by_args.items():
            datasets = list(dict.fromkeys(names))
            every = int(number) in MAIN_TABLES or None in datasets
            groups.append(TableGroup(task, shared if every else (("dataset", tuple(datasets)), *shared)))
        modes = tuple(sorted({value == "on" for value in table.reasoning}))
        tables[int(number)] = PaperTable(int(number), tuple(groups), modes)
    return tables


def paper_table(number: int) -> PaperTable:
    """The runs of the paper's Table ``number``.

    Raises:
        KeyError: the paper has no table of BeDiscovER results with that number (the message lists those it has).
    """
    tables = paper_tables()
    if number not in tables:
        raise KeyError(
            f"the paper has no table {number} of BeDiscovER results; its tables: {', '.join(map(str, tables))}"
        )
    return tables[number]
