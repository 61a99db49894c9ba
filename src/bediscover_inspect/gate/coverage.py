"""Accounting for every sample a ``compare`` was asked about: per run pair and side, the samples missing, not run,
errored, unscored or with a non-finite score (:func:`account`), the values a provider did not report
(:func:`unmeasured_notes`), and what makes the comparison incomplete (:func:`incompleteness`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bediscover_inspect.measures import SCORERS

from .columns import NONE, RunSamples
from .pairing import Pairing, Run, RunPair, Side, run_name

SIDES = ("baseline", "candidate")
"""The two sides of a comparison, in the order they are read and reported."""

SAMPLE_PROBLEMS = ("missing", "errored", "unscored", "not run")
"""What can be wrong with a sample expected of a run (tolerated up to ``max_missing``): in its log's sample list and
absent from its results (``missing``), ended in error, unscored, or not in its log's sample list though the other
run's list has it (``not run``). A non-finite score value is never tolerated."""

NOT_RUN_CAUSES = "not in its log's sample list: --limit, --sample-id, a dataset selector, or removed from the log"
"""How a problem line explains ``not run``."""


@dataclass
class Coverage:
    """What was compared (:func:`account`).

    Attributes:
        run_pairs: run pairs compared.
        asked: samples (× epochs) either run of a pair was asked to run, summed over run pairs.
        paired: of those, the samples usable on both sides (the rows of the cells).
        planned: per side, samples its compared runs were asked to run.
        problems: per side, per problem (:data:`SAMPLE_PROBLEMS` and ``non-finite``), the samples affected.
        lines: one line per (side, run, problem): count, total and example sample ids.
    """

    run_pairs: int = 0
    asked: int = 0
    paired: int = 0
    planned: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SIDES, 0))
    problems: dict[str, dict[str, int]] = field(
        default_factory=lambda: {side: dict.fromkeys((*SAMPLE_PROBLEMS, "non-finite"), 0) for side in SIDES}
    )
    lines: dict[str, list[str]] = field(default_factory=lambda: {"tolerable": [], "non-finite": []})

    @property
    def unusable(self) -> int:
        """Samples asked of either side and not paired."""
        return self.asked - self.paired


def _problem_of(key: tuple[str, int], run: Run) -> str | None:
    row = run.samples.row(key)
    if row is None:
        return "missing" if key in run.planned else "not run"
    if run.samples.error(row) is not None:
        return "errored"
    if run.samples.non_finite(row):
        return "non-finite"
    return None if run.samples.scorer_names(row) else "unscored"


def _example(key: tuple[str, int], run: Run, problem: str) -> str:
    """A sample as a problem line names it: its id, its epoch from 2 on, and a non-finite score's values."""
    name = key[0] if key[1] == 1 else f"{key[0]} (epoch {key[1]})"
    if problem != "non-finite":
        return name
    return f"{name}: {', '.join(run.samples.non_finite(run.samples.row(key) or 0)[:2])}"


def _problem_line(side: str, run: Run, problem: str, names: Sequence[str], total: int) -> str:
    what = {
        "non-finite": "with a NaN or infinite score",
        "not run": f"not run ({NOT_RUN_CAUSES})",
    }.get(problem, problem)
    example = ("; " if problem == "non-finite" else ", ").join(names[:3]) + (" …" if len(names) > 3 else "")
    return f"{side} {run_name(run)}: {len(names)} of {total} samples {what} ({example}) in {run.path}"


def _scorer_missing(key: tuple[str, int], run: Run, other: Run) -> str | None:
    """``"unscored"`` when the other side scored this sample with a catalog scorer (:data:`SCORERS`) that this
    side lacks: a scorer renamed or dropped would otherwise leave its cells out of the comparison unannounced."""
    row, other_row = run.samples.row(key), other.samples.row(key)
    if row is None or other_row is None:
        return None
    ours = run.samples.scorer_names(row)
    return "unscored" if any(s in SCORERS and s not in ours for s in other.samples.scorer_names(other_row)) else None


def _side_problems(key_list: Sequence[tuple[str, int]], run: Run, other: Run) -> dict[str, list[tuple[str, int]]]:
    """The keys of ``key_list`` that ``run`` cannot use, by problem (:func:`_problem_of`, :func:`_scorer_missing`),
    in key order."""
    found: dict[str, list[tuple[str, int]]] = {}
    for key in key_list:
        problem = _problem_of(key, run) or _scorer_missing(key, run, other)
        if problem is not None:
            found.setdefault(problem, []).append(key)
    return found


def _count_problems(
    coverage: Coverage, side: str, run: Run, found: dict[str, list[tuple[str, int]]], total: int
) -> None:
    """Add one side's problems of a run pair (:func:`_side_problems`, of ``total`` samples asked) to ``coverage``:
    counts, and a line per problem."""
    for problem, keys in found.items():
        names = [_example(key, run, problem) for key in keys]
        coverage.problems[side][problem] += len(names)
        line = _problem_line(side, run, problem, names, total)
        coverage.lines["non-finite" if problem == "non-finite" else "tolerable"].append(line)


def account(pairs: Sequence[RunPair]) -> tuple[Coverage, dict[int, list[tuple[str, int]]]]:
    """Every sample either run of each pair was asked to run, sorted into usable and not.

    Returns:
        The :class:`Coverage` (one line per side, run and problem) and, per run pair (index in ``pairs``), the
        sample keys usable on both sides: in both logs' sample lists, present, not errored, scored and every
        score value finite.
    """
    coverage = Coverage(run_pairs=len(pairs))
    usable: dict[int, list[tuple[str, int]]] = {}
    for index, pair in enumerate(pairs):
        coverage.asked += len(pair.keys)
        bad: set[tuple[str, int]] = set()
        for side, run, other in (
            ("baseline", pair.baseline, pair.candidate),
            ("candidate", pair.candidate, pair.baseline),
        ):
            coverage.planned[side] += len(run.planned)
            found = _side_problems(pair.keys, run, other)
            _count_problems(coverage, side, run, found, len(pair.keys))
            bad.update(key for keys in found.values() for key in keys)
        usable[index] = [key for key in pair.keys if key not in bad]
        coverage.paired += len(usable[index])
    return coverage, usable


def unmeasured_notes(pairs: Sequence[RunPair], usable: dict[int, list[tuple[str, int]]]) -> list[str]:
    """One note per run pair whose paired samples hold values not measured (``None``: token counts the provider
    did not report, :mod:`bediscover_inspect.tokens`) on one side or both, naming the keys: such a value is stated,
    never tested nor counted as a sample problem."""
    notes = []
    for index, pair in enumerate(pairs):
        found: dict[str, tuple[int, set[str]]] = {}
        for side, run in zip(SIDES, (pair.baseline, pair.candidate)):
            rows = np.array([run.samples.row(key) for key in usable.get(index, [])], dtype=np.int64)
            count, keys = _unmeasured(run.samples, rows)
            if count:
                found[side] = (count, keys)
        if found:
            sides = "both sides" if len(found) == 2 else f"the {next(iter(found))} side only"
            detail = "; ".join(f"{side} {n} of {len(usable[index])} samples" for side, (n, _) in found.items())
            names = ", ".join(sorted(set().union(*(k for _, k in found.values()))))
            notes.append(
                f"{run_name(pair.baseline)}: {names} not reported by the provider on {sides} ({detail}): "
                "not measured there, not compared"
            )
    return notes


def _unmeasured(samples: RunSamples, rows: np.ndarray) -> tuple[int, set[str]]:
    """Of ``rows``, how many hold a value that is ``None`` under some scorer, and the keys of those values."""
    flagged = np.zeros(len(rows), dtype=bool)
    names: set[str] = set()
    for columns in samples.scorers.values():
        positions = columns.position_of[rows]
        present = positions >= 0
        for key, column in columns.keys.items():
            none = np.zeros(len(rows), dtype=bool)
            none[present] = columns.kinds[column][positions[present]] == NONE
            if none.any():
                flagged |= none
                names.add(key)
    return int(flagged.sum()), names


def incompleteness(sides: Sequence[Side], pairing: Pairing, coverage: Coverage, max_missing: int) -> list[str]:
    """One line per thing missing from what was asked (module docstring); empty when the comparison is complete.
    Samples missing, errored or unscored count against ``max_missing``; a non-finite score value never passes."""
    lines = [line for side in sides for line in side.incomplete] + list(pairing.unpaired)
    lines += coverage.lines["non-finite"]
    if coverage.unusable - sum(coverage.problems[side]["non-finite"] for side in SIDES) > max_missing:
        lines += coverage.lines["tolerable"]
    return lines
