"""A run's samples as ``compare`` keeps them between reading and testing: columns, not one object per sample.

``compare`` holds every sample of both sides until its cells are tested. :class:`RunSamples` keeps, per sample, its
key (sample id, epoch) and references to shared strings (target, groups, gold label, answer — each distinct string
stored once per run), and per scorer one float and one type code per ``Score.value`` key
(:class:`ScorerColumns`); errors and non-finite values are kept for the samples that have them. A sample costs a few
hundred bytes whatever its transcript, where a value dict and score objects per sample cost several kilobytes.

:class:`RunSamples` is still a mapping ``(id, epoch) -> SampleRow``: a row is rebuilt on access, equal to the one
read (value dicts with their keys in the logged order and their ``int`` / ``float`` / ``bool`` / ``None`` values).
The cells are computed from the columns (:class:`CellScores`), which read a key as
:class:`bediscover_inspect.measures.Measure` reads a sequence of value dicts (``None`` as NaN; a sample lacking the
key, or holding no number there, raises the same :class:`ValueError` naming it).
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bediscover_inspect.evallogs.samples import LogSample
from bediscover_inspect.measures import ValueColumns
from bediscover_inspect.metrics import INVALID_ANSWER

GROUP_KEYS = ("dataset", "framework", "language", "category")
"""The sample-metadata keys a cell can be grouped by (the measure catalog's ``groups``)."""

MISSING, NONE, INT, FLOAT, BOOL, OTHER = range(6)
"""Type codes of one ``Score.value`` entry: absent from the dict, ``None`` (not measured), an ``int`` exact as a
float, a ``float``, a ``bool``, anything else (kept as it is, beside the columns)."""

EXACT_INT = 2**53
"""Integers of at most this magnitude are exact as a float; a larger one is kept as it is (:data:`OTHER`)."""


@dataclass
class Scored:
    """One scorer's score of one sample: value dict, answer read, gold label (sample metadata ``gold``)."""

    value: dict[str, float]
    answer: str
    gold: str


@dataclass
class SampleRow:
    """One sample (one epoch) of a run: its key, groups, target, scores by scorer name and error (``None`` when
    the sample ran to its score)."""

    id: str
    epoch: int
    groups: dict[str, str]
    target: str
    scores: dict[str, Scored]
    error: str | None = None
    non_finite: list[str] = field(default_factory=list)
    """Each score value that is NaN or infinite, as ``"<scorer> <value>"`` (a scalar score) or ``"<scorer>
    <name> <value>"`` (an entry of a value dict)."""


def _finite(value: Any) -> bool:
    """False for a float score value that is NaN or infinite (other values, strings included, are not numbers to
    check)."""
    return not isinstance(value, float) or math.isfinite(value)


class _Strings:
    """One copy of each distinct string (or other hashable) of a run."""

    def __init__(self) -> None:
        self._seen: dict[Any, Any] = {}

    def __call__(self, value: Any) -> Any:
        return self._seen.setdefault(value, value)


class ScorerColumns:
    """One scorer's dict-valued scores of a run's samples: position ``p`` holds run row :attr:`rows` ``[p]``.

    Attributes:
        rows: the run row (:class:`RunSamples`) of each position.
        keys: ``Score.value`` key -> its column.
        numbers: per column, the value of each position as a float (NaN where absent, ``None`` or not a number).
        kinds: per column, the type code of each position (:data:`MISSING` … :data:`OTHER`).
        shapes: the distinct key orders of the value dicts; ``shape_of[p]`` indexes it.
        answers, gold: per position, ``Score.answer`` (``None`` read as
            :data:`~bediscover_inspect.metrics.INVALID_ANSWER`) and the sample's metadata ``gold``, as strings.
        others: ``(position, column) -> value`` of the entries coded :data:`OTHER`.
    """

    def __init__(self, strings: _Strings) -> None:
        self._strings = strings
        self.rows: Any = array("q")
        self.keys: dict[str, int] = {}
        self.numbers: list[Any] = []
        self.kinds: list[Any] = []
        self.shapes: list[tuple[str, ...]] = []
        self._shape_index: dict[tuple[str, ...], int] = {}
        self.shape_of: Any = array("q")
        self.answers: list[str] = []
        self.gold: list[str] = []
        self.others: dict[tuple[int, int], Any] = {}
        self.position_of: Any = None
        """Per run row, its position here (-1: the row has no dict-valued score of this scorer); set by
        :meth:`finish`."""

    def add(self, row: int, value: Mapping[str, Any], answer: str, gold: str) -> None:
        """Append the score of run row ``row``."""
        position = len(self.rows)
        self.rows.append(row)
        for numbers, kinds in zip(self.numbers, self.kinds, strict=True):
            numbers.append(math.nan)
            kinds.append(MISSING)
        shape = tuple(value)
        index = self._shape_index.get(shape)
        if index is None:
            index = self._shape_index[shape] = len(self.shapes)
            self.shapes.append(tuple(self._strings(k) for k in shape))
        self.shape_of.append(index)
        for key, item in value.items():
            column = self.keys.get(key)
            if column is None:
                column = self.keys[self._strings(key)] = len(self.numbers)
                self.numbers.append(array("d", [math.nan]) * (position + 1))
                self.kinds.append(array("b", [MISSING]) * (position + 1))
            kind, number = _code(item)
            self.kinds[column][position] = kind
            self.numbers[column][position] = number
            if kind == OTHER:
                self.others[(position, column)] = item
        self.answers.append(self._strings(answer))
        self.gold.append(self._strings(gold))

    def finish(self, rows: int) -> None:
        """Turn the columns into arrays once every sample of the run (``rows`` in all) is added."""
        self.rows = np.frombuffer(self.rows, dtype=np.int64) if len(self.rows) else np.zeros(0, dtype=np.int64)
        self.shape_of = np.frombuffer(self.shape_of, dtype=np.int64) if len(self.shape_of) else np.zeros(0, np.int64)
        self.numbers = [np.frombuffer(c, dtype=np.float64) for c in self.numbers]
        self.kinds = [np.frombuffer(c, dtype=np.int8) for c in self.kinds]
        self.position_of = np.full(rows, -1, dtype=np.int64)
        self.position_of[self.rows] = np.arange(len(self.rows))

    def value(self, position: int) -> dict[str, Any]:
        """The value dict of ``position`` as logged (keys in their order, each value of its type)."""
        out: dict[str, Any] = {}
        for key in self.shapes[self.shape_of[position]]:
            column = self.keys[key]
            kind = int(self.kinds[column][position])
            number = float(self.numbers[column][position])
            out[key] = (
                None
                if kind == NONE
                else int(number)
                if kind == INT
                else bool(number)
                if kind == BOOL
                else self.others[(position, column)]
                if kind == OTHER
                else number
            )
        return out


def _code(item: Any) -> tuple[int, float]:
    """The type code and float of one value entry (:data:`MISSING` … :data:`OTHER`)."""
    if item is None:
        return NONE, math.nan
    if isinstance(item, bool):
        return BOOL, float(item)
    if isinstance(item, int):
        return (INT, float(item)) if abs(item) <= EXACT_INT else (OTHER, float(item))
    if isinstance(item, float):
        return FLOAT, item
    return OTHER, math.nan


class RunSamples(Mapping[tuple[str, int], SampleRow]):
    """A run's samples keyed by ``(sample id, epoch)``, kept as columns (module docstring); :meth:`add` each
    sample, then :meth:`finish`. As a mapping its values are :class:`SampleRow` rebuilt on access."""

    def __init__(self) -> None:
        self._strings = _Strings()
        self._index: dict[tuple[str, int], int] = {}
        self._keys: list[tuple[str, int]] = []
        self._targets: list[str] = []
        self._groups: list[dict[str, str]] = []
        self._scorer_sets: list[frozenset[str]] = []
        self._errors: dict[int, str] = {}
        self._non_finite: dict[int, list[str]] = {}
        self.scorers: dict[str, ScorerColumns] = {}
        """Scorer name -> its columns (the scorers with a dict-valued score on some sample)."""

    def add(self, sample: LogSample) -> None:
        """Keep what ``compare`` uses of ``sample``; a key read twice keeps the later sample (as a dict would)."""
        row = len(self._keys)
        key = (self._strings(str(sample.id)), sample.epoch)
        metadata = sample.metadata
        gold = str(metadata.get("gold", ""))
        names: list[str] = []
        non_finite: list[str] = []
        for name, score in sample.scores.items():
            if isinstance(score.value, dict):
                columns = self.scorers.get(name)
                if columns is None:
                    columns = self.scorers[self._strings(name)] = ScorerColumns(self._strings)
                answer = str(score.answer) if score.answer is not None else INVALID_ANSWER
                columns.add(row, score.value, answer, gold)
                names.append(name)
                non_finite += [f"{name} {k} {v}" for k, v in score.value.items() if not _finite(v)]
            elif not _finite(score.value):
                non_finite.append(f"{name} {score.value}")
        target = sample.target if isinstance(sample.target, str) else json.dumps(sample.target)
        groups = {k: str(metadata[k]) for k in GROUP_KEYS if k in metadata}
        self._keys.append(key)
        self._index[key] = row
        self._targets.append(self._strings(target))
        self._groups.append(self._strings(_Frozen(groups)))
        self._scorer_sets.append(self._strings(frozenset(names)))
        if sample.error is not None:
            self._errors[row] = sample.error
        if non_finite:
            self._non_finite[row] = non_finite

    def finish(self) -> RunSamples:
        """Turn the score columns into arrays; returns this object."""
        for columns in self.scorers.values():
            columns.finish(len(self._keys))
        return self

    # ------------------------------------------------------------------ per row

    def row(self, key: tuple[str, int]) -> int | None:
        """The row of ``key``, ``None`` when the run has no such sample."""
        return self._index.get(key)

    def key(self, key: tuple[str, int]) -> tuple[str, int]:
        """``key`` itself, or the equal key this run holds (so that the run's keys are stored once)."""
        row = self._index.get(key)
        return key if row is None else self._keys[row]

    def key_of(self, row: int) -> tuple[str, int]:
        """The (sample id, epoch) of ``row``."""
        return self._keys[row]

    def target(self, row: int) -> str:
        """The sample's target (a list target as JSON)."""
        return self._targets[row]

    def groups(self, row: int) -> Mapping[str, str]:
        """The sample's groups: its metadata ``dataset``, ``framework``, ``language``, ``category`` (those it has)."""
        return self._groups[row]

    def error(self, row: int) -> str | None:
        """The message of the error that ended the sample, ``None`` when it ran to its score."""
        return self._errors.get(row)

    def non_finite(self, row: int) -> list[str]:
        """The sample's NaN or infinite score values (:attr:`SampleRow.non_finite`)."""
        return self._non_finite.get(row, [])

    def scorer_names(self, row: int) -> frozenset[str]:
        """The scorers with a dict-valued score on the sample."""
        return self._scorer_sets[row]

    def score(self, row: int, scorer: str) -> Scored | None:
        """The sample's score by ``scorer`` (``None`` when it has none)."""
        columns = self.scorers.get(scorer)
        position = -1 if columns is None else int(columns.position_of[row])
        if columns is None or position < 0:
            return None
        return Scored(columns.value(position), columns.answers[position], columns.gold[position])

    # ------------------------------------------------------------------ the mapping

    def __getitem__(self, key: tuple[str, int]) -> SampleRow:
        row = self._index[key]
        scores = {name: self.score(row, name) for name in self.scorers if name in self._scorer_sets[row]}
        return SampleRow(
            key[0],
            key[1],
            dict(self._groups[row]),
            self._targets[row],
            {name: score for name, score in scores.items() if score is not None},
            self._errors.get(row),
            list(self.non_finite(row)),
        )

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, key: object) -> bool:
        return key in self._index


class _Frozen(dict[str, str]):
    """A groups dict that can be shared between samples (hashable by its items; never changed once made)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self.items()))


# --------------------------------------------------------------------------------------- a cell's scores


@dataclass(frozen=True)
class Part:
    """The positions of a cell's rows in one run's columns of one scorer (:class:`ScorerColumns`)."""

    columns: ScorerColumns
    positions: np.ndarray


class CellScores:
    """One side's scores of a cell's pairs, in pair order: read as the measure catalog reads ``Score.value`` dicts
    (``self[key]`` -> float array), with the gold labels and answers of label measures.

    Built from :class:`Part` s (a cell pools the run pairs of its seeds) or from :class:`Scored` rows
    (:meth:`of_rows`).
    """

    def __init__(self, parts: Sequence[Part]) -> None:
        self._parts = list(parts)
        self._rows: list[Scored] | None = None

    @classmethod
    def of_rows(cls, rows: Sequence[Scored]) -> CellScores:
        """The scores of ``rows`` (one :class:`Scored` per pair)."""
        cell = cls([])
        cell._rows = list(rows)
        return cell

    def __len__(self) -> int:
        if self._rows is not None:
            return len(self._rows)
        return sum(len(part.positions) for part in self._parts)

    @property
    def gold(self) -> list[str]:
        """Each pair's gold label (sample metadata ``gold``)."""
        if self._rows is not None:
            return [row.gold for row in self._rows]
        return [part.columns.gold[p] for part in self._parts for p in part.positions]

    @property
    def answers(self) -> list[str]:
        """Each pair's answer (``Score.answer``)."""
        if self._rows is not None:
            return [row.answer for row in self._rows]
        return [part.columns.answers[p] for part in self._parts for p in part.positions]

    def __getitem__(self, key: str) -> np.ndarray:
        """``value[key]`` of each pair as a float array, ``None`` (not measured) as NaN.

        Raises:
            ValueError: a pair whose value lacks ``key`` or holds no number there (message: its position, the key
                and the value dict), as :class:`bediscover_inspect.measures.Measure` reports it.
        """
        if self._rows is not None:
            return ValueColumns([row.value for row in self._rows])[key]
        out, offset = [], 0
        for part in self._parts:
            column = part.columns.keys.get(key)
            if column is None:
                bad = np.ones(len(part.positions), dtype=bool)
                numbers = np.full(len(part.positions), math.nan)
            else:
                kinds = part.columns.kinds[column][part.positions]
                bad = (kinds == MISSING) | ((kinds == OTHER) & np.isnan(part.columns.numbers[column][part.positions]))
                numbers = part.columns.numbers[column][part.positions]
            if bad.any():
                first = int(np.argmax(bad))
                value = part.columns.value(int(part.positions[first]))
                raise ValueError(f"score value {offset + first} has no number under {key!r} (value {value!r})")
            out.append(numbers)
            offset += len(part.positions)
        return np.concatenate(out) if out else np.empty(0)

    def causes(self, key: str) -> np.ndarray:
        """``value[key]`` of each pair as a float, absent or ``None`` as 0 (a log without the cause counts 0)."""
        if self._rows is not None:
            return np.array([float(row.value.get(key) or 0.0) for row in self._rows], dtype=float)
        out = []
        for part in self._parts:
            column = part.columns.keys.get(key)
            if column is None:
                out.append(np.zeros(len(part.positions)))
                continue
            kinds = part.columns.kinds[column][part.positions]
            numbers = part.columns.numbers[column][part.positions].copy()
            numbers[(kinds == MISSING) | (kinds == NONE)] = 0.0
            out.append(numbers)
        return np.concatenate(out) if out else np.empty(0)
