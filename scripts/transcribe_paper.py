#!/usr/bin/env python
"""Transcribe the paper's result tables (Tables 2-6 and Appendix C Tables 13-41) into one long CSV.

Usage:
    python scripts/transcribe_paper.py [PAPER_TXT] [OUT_CSV]

Defaults: ``../shared/paper/bediscover_paper.txt`` (relative to the repository root) and
``src/bediscover_inspect/report/paper_results.csv``.

The paper text holds each table as tab-separated lines directly above its caption ("Table N: ...");
cells look like ``$17.3_{1.4}$`` (mean 17.3, std 1.4), ``$.7$`` style stds (0.7), ``\\mathbf{}`` /
``\\underline{}`` highlighting, ``-`` for "not reported", and plain integers for the "tok." columns.
Each table family has its own layout, handled by one small function below. The committed CSV is the
fact file; this script documents how it was produced and was run once, after which the output was
checked by hand against the text (see tests/report/test_paper.py for the cells checked automatically).

One row per cell, columns:
    table, task, dataset, variant, model, size, section, reasoning, metric, mean, std, note
``variant`` is the table's setting (prompt style, context setting, dialogue-parsing mode) or, for a
sub-group, ``kind:value`` (``framework:DEP``, ``language:ces``, ``corpus:ces.rst.crdt``,
``category:tz``). ``section`` is the paper's row block (``BeDiscovER``, ``Supervised`` ...).
``reasoning`` is ``off`` / ``on`` for BeDiscovER models ("w/o" / "w/ reasoning"; the main tables
report the "w/ reasoning" runs) and empty for published baselines.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bediscover_inspect.report.paper import PAPER_COLUMNS  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PAPER = REPO / ".." / "shared" / "paper" / "bediscover_paper.txt"
DEFAULT_OUT = REPO / "src" / "bediscover_inspect" / "report" / "paper_results.csv"

COLUMNS = list(PAPER_COLUMNS)

DM_METRICS = {
    "Acc": "accuracy",
    "weighted-Pre": "weighted_precision",
    "weighted-Rec": "weighted_recall",
    "weighted-F1": "weighted_f1",
    "tok.": "tok",
}
TR_METRICS = {
    "micro-F1": "micro_f1",
    "weighted-Pre": "weighted_precision",
    "weighted-Rec": "weighted_recall",
    "weighted-F1": "weighted_f1",
    "tok.": "tok",
}
SO_METRICS = {"Acc": "acc", "Lumr": "lumr", "Pmr": "pmr", "Skip": "skip", "Lcs": "lcs", "tok.": "tok"}
DDP_METRICS = {"Link": "link_f1", "Full": "full_f1", "tok.": "tok"}

# Appendix C: table number -> (task, dataset, variant)
APPENDIX_GRID: dict[int, tuple[str, str, str]] = {
    13: ("discourse_markers", "just-manual", "basic"),
    14: ("discourse_markers", "just-manual", "def"),
    15: ("discourse_markers", "just-manual", "def+exp"),
    16: ("discourse_markers", "just-subtitle", "basic"),
    17: ("discourse_markers", "just-subtitle", "def"),
    18: ("discourse_markers", "just-subtitle", "def+exp"),
    19: ("discourse_markers", "otherwise", "basic"),
    20: ("discourse_markers", "otherwise", "def"),
    21: ("discourse_markers", "otherwise", "def+exp"),
    22: ("temporal_reasoning", "tbd", "without-context"),
    23: ("temporal_reasoning", "tbd", "with-context"),
    24: ("temporal_reasoning", "tdd-man", "without-context"),
    25: ("temporal_reasoning", "tdd-man", "with-context"),
    32: ("sentence_ordering", "aan-abstract", ""),
    33: ("sentence_ordering", "arxiv-abstracts", ""),
    34: ("sentence_ordering", "nips-abs", ""),
    35: ("sentence_ordering", "nsf", ""),
    36: ("sentence_ordering", "roc", ""),
    37: ("sentence_ordering", "sind-captions", ""),
    38: ("sentence_ordering", "wiki-movies", ""),
    39: ("dialogue_parsing", "stac", ""),
    40: ("dialogue_parsing", "molweni", ""),
    41: ("dialogue_parsing", "msdc", ""),
}

SO_DATASETS = ["aan-abstract", "arxiv-abstracts", "nips-abs", "nsf", "roc", "sind-captions", "wiki-movies"]
TOT_CATEGORIES = {
    "Acc (all)": "all",
    "Acc (tz)": "tz",
    "Acc (as)": "as",
    "Acc (scd)": "scd",
    "Acc (mop)": "mop",
    "Acc (dur)": "dur",
    "Acc (cmp)": "cmp",
    "Acc (trk)": "trk",
}


def parse_cell(cell: str) -> tuple[float, float | None, str] | None:
    """``"$\\underline{66.1}_{.6}$"`` -> ``(66.1, 0.6, "")``; ``"-"`` / ``""`` -> ``None``.

    The note is ``surprisal`` for a dagger mark and ``approx-from-figure`` for an asterisk (Table 2).
    """
    text = cell.strip()
    if text in {"", "-"}:
        return None
    note = ""
    if "dagger" in text:
        note = "surprisal"
    elif "^{*}" in text:
        note = "approx-from-figure"
    text = re.sub(r"\^\{[^}]*\}", "", text)
    std = None
    m = re.search(r"_\{\s*(\d*\.?\d+)\s*\}", text)
    if m:
        std = float(m.group(1))
        text = text[: m.start()] + text[m.end() :]
    m = re.search(r"-?\d*\.?\d+", text)
    if not m:
        raise ValueError(f"no number in cell {cell!r}")
    return float(m.group(0)), std, note


def table_blocks(lines: list[str]) -> dict[int, list[list[str]]]:
    """Table number -> its tab-separated rows (the contiguous non-blank lines above the caption)."""
    blocks: dict[int, list[list[str]]] = {}
    for i, line in enumerate(lines):
        m = re.match(r"Table (\d+):", line)
        if not m:
            continue
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        rows: list[str] = []
        while j >= 0 and lines[j].strip() and "\t" in lines[j]:
            rows.append(lines[j])
            j -= 1
        blocks[int(m.group(1))] = [r.rstrip("\n").split("\t") for r in reversed(rows)]
    return blocks


class Sink:
    """Collects rows, skipping empty cells."""

    def __init__(self) -> None:
        self.rows: list[dict[str, object]] = []

    def add(self, cell: str, **fields: object) -> None:
        parsed = parse_cell(cell)
        if parsed is None:
            return
        mean, std, note = parsed
        row = {c: "" for c in COLUMNS}
        row.update({k: v for k, v in fields.items()})
        row["mean"] = mean
        row["std"] = "" if std is None else std
        row["note"] = fields.get("note", note) or note
        self.rows.append(row)


def _sectioned(rows: list[list[str]], first_data: int):
    """Yield (section, cells) for rows with a section column that carries forward when empty."""
    section = ""
    for cells in rows[first_data:]:
        if cells[0].strip():
            section = cells[0].strip()
        yield section, cells


def _reasoning_for(section: str) -> str:
    return "on" if section == "BeDiscovER" else ""


def table2(rows: list[list[str]], sink: Sink) -> None:
    datasets = ["just-manual", "just-subtitle", "otherwise"]
    variants = ["basic", "def", "def+exp"]
    for section, cells in _sectioned(rows, 2):
        model, size = cells[1].strip(), cells[2].strip()
        base = dict(
            table=2,
            task="discourse_markers",
            model=model,
            size=size,
            section=section,
            reasoning=_reasoning_for(section),
            metric="accuracy",
        )
        if section == "Contin.":
            # one spanning cell: the Otherwise continuation-acceptability (surprisal) score
            sink.add(next(c for c in cells[3:] if "dagger" in c), dataset="otherwise", variant="surprisal", **base)
            continue
        values = cells[3:12]
        for k, cell in enumerate(values):
            sink.add(cell, dataset=datasets[k // 3], variant=variants[k % 3], **base)


def table3(rows: list[list[str]], sink: Sink) -> None:
    # Table 3's TBD column equals Table 23 (with context), its TDD-Man column Table 24 (without context)
    cols = [
        ("tbd", "with-context", "micro_f1"),
        ("tdd-man", "without-context", "micro_f1"),
        ("tot-arithmetic", "category:all", "accuracy"),
    ]
    for section, cells in _sectioned(rows, 2):
        for (dataset, variant, metric), cell in zip(cols, cells[3:6]):
            if section != "BeDiscovER" and "context" in variant:
                variant = ""  # published baselines: the context setting is ours, not theirs
            sink.add(
                cell,
                table=3,
                task="temporal_reasoning",
                dataset=dataset,
                variant=variant,
                model=cells[1].strip(),
                size=cells[2].strip(),
                section=section,
                reasoning=_reasoning_for(section),
                metric=metric,
            )


def table4(rows: list[list[str]], sink: Sink) -> None:
    frameworks = [h.strip() for h in rows[0][2:]]
    for section, cells in _sectioned(rows, 1):
        for fw, cell in zip(frameworks, cells[2:]):
            sink.add(
                cell,
                table=4,
                task="discourse_relations",
                dataset="disrpt25",
                variant=f"framework:{fw}",
                model=cells[1].strip(),
                size="",
                section=section,
                reasoning=_reasoning_for(section),
                metric="accuracy",
            )


def table5(rows: list[list[str]], sink: Sink) -> None:
    metrics = [h.strip().lower() for h in rows[1][2:]]
    for section, cells in _sectioned(rows, 2):
        for k, cell in enumerate(cells[2:16]):
            sink.add(
                cell,
                table=5,
                task="sentence_ordering",
                dataset=SO_DATASETS[k // 2],
                variant="",
                model=cells[1].strip(),
                size="",
                section=section,
                reasoning=_reasoning_for(section),
                metric={"pmr": "pmr", "acc": "acc"}[metrics[k]],
            )


def table6(rows: list[list[str]], sink: Sink) -> None:
    datasets = ["stac", "molweni", "msdc"]
    for section, cells in _sectioned(rows, 2):
        for k, cell in enumerate(cells[3:9]):
            # Table 6's BeDiscovER rows equal the auto-regressive "w/ reasoning" cells of Tables 39-41
            sink.add(
                cell,
                table=6,
                task="dialogue_parsing",
                dataset=datasets[k // 2],
                variant="auto-regressive" if section == "BeDiscovER" else "",
                model=cells[1].strip(),
                size=cells[2].strip(),
                section=section,
                reasoning=_reasoning_for(section),
                metric=["link_f1", "full_f1"][k % 2],
            )


def appendix_two_modes(num: int, rows: list[list[str]], sink: Sink) -> None:
    """Tables 13-25 and 32-38: Model, Size, then the same metric columns for w/o and w/ reasoning."""
    task, dataset, variant = APPENDIX_GRID[num]
    header = [h.strip() for h in rows[1]]
    assert header[0] == "Model", (num, header)
    names = {"discourse_markers": DM_METRICS, "temporal_reasoning": TR_METRICS, "sentence_ordering": SO_METRICS}[task]
    metric_cols = header[2:]
    half = len(metric_cols) // 2
    for cells in rows[2:]:
        for k, cell in enumerate(cells[2:]):
            sink.add(
                cell,
                table=num,
                task=task,
                dataset=dataset,
                variant=variant,
                model=cells[0].strip(),
                size=cells[1].strip(),
                section="BeDiscovER",
                reasoning="off" if k < half else "on",
                metric=names[metric_cols[k].replace("Weighted", "weighted")],
            )


def appendix_ddp(num: int, rows: list[list[str]], sink: Sink) -> None:
    """Tables 39-41: single turn / auto-regressive x w/o / w/ reasoning x (Link, Full, tok.)."""
    task, dataset, _ = APPENDIX_GRID[num]
    header = [h.strip() for h in rows[2]]
    blocks = [("single-turn", "off"), ("single-turn", "on"), ("auto-regressive", "off"), ("auto-regressive", "on")]
    for cells in rows[3:]:
        for k, cell in enumerate(cells[2:]):
            mode, reasoning = blocks[k // 3]
            sink.add(
                cell,
                table=num,
                task=task,
                dataset=dataset,
                variant=mode,
                model=cells[0].strip(),
                size=cells[1].strip(),
                section="BeDiscovER",
                reasoning=reasoning,
                metric=DDP_METRICS[header[2 + k]],
            )


def table26(rows: list[list[str]], sink: Sink) -> None:
    header = [h.strip() for h in rows[0]]
    section, reasoning = "", ""
    for cells in rows[1:]:
        if not cells[0].strip():
            label = cells[1].strip()
            section, reasoning = {
                "baselines": ("Prompting", ""),
                "w/o reasoning": ("BeDiscovER", "off"),
                "w/ reasoning": ("BeDiscovER", "on"),
            }[label]
            continue
        for name, cell in zip(header[2:], cells[2:]):
            if name == "tok.":
                variant, metric = "category:all", "tok"
            else:
                variant, metric = f"category:{TOT_CATEGORIES[name]}", "accuracy"
            sink.add(
                cell,
                table=26,
                task="temporal_reasoning",
                dataset="tot-arithmetic",
                variant=variant,
                model=cells[0].strip(),
                size=cells[1].strip(),
                section=section,
                reasoning=reasoning,
                metric=metric,
            )


def table27(rows: list[list[str]], sink: Sink) -> None:
    languages = [h.strip().lower() for h in rows[0][2:]]
    for section, cells in _sectioned(rows, 1):
        for lang, cell in zip(languages, cells[2:]):
            sink.add(
                cell,
                table=27,
                task="discourse_relations",
                dataset="disrpt25",
                variant=f"language:{lang}",
                model=cells[1].strip(),
                size="",
                section=section,
                reasoning=_reasoning_for(section),
                metric="accuracy",
            )


def tables28_31(num: int, rows: list[list[str]], sink: Sink) -> None:
    """Per-corpus DISRPT tables: sub-blocks of (corpus header, column header, rows)."""
    corpora: list[str] = []
    for cells in rows:
        if cells[0].strip() == "" and len(cells) > 2 and "." in cells[2]:
            corpora = [c.strip() for c in cells[2:] if c.strip()]
            continue
        if cells[0].strip() == "Model":
            continue
        model, size = cells[0].strip(), cells[1].strip()
        supervised = size == "-"
        for k, cell in enumerate(cells[2:]):
            corpus = corpora[k // 4]
            slot = k % 4  # w/o r, tok., w/ r, tok.
            reasoning = "" if supervised else ("off" if slot < 2 else "on")
            sink.add(
                cell,
                table=num,
                task="discourse_relations",
                dataset="disrpt25",
                variant=f"corpus:{corpus}",
                model=model,
                size="" if supervised else size,
                section="Supervised" if supervised else "BeDiscovER",
                reasoning=reasoning,
                metric="tok" if slot % 2 else "accuracy",
            )


def transcribe(paper_text: str) -> list[dict[str, object]]:
    """All result cells of Tables 2-6 and 13-41 as CSV rows (see the module docstring)."""
    blocks = table_blocks(paper_text.splitlines())
    sink = Sink()
    table2(blocks[2], sink)
    table3(blocks[3], sink)
    table4(blocks[4], sink)
    table5(blocks[5], sink)
    table6(blocks[6], sink)
    for num in range(13, 26):
        appendix_two_modes(num, blocks[num], sink)
    table26(blocks[26], sink)
    table27(blocks[27], sink)
    for num in range(28, 32):
        tables28_31(num, blocks[num], sink)
    for num in range(32, 39):
        appendix_two_modes(num, blocks[num], sink)
    for num in range(39, 42):
        appendix_ddp(num, blocks[num], sink)
    return sink.rows


def main(argv: list[str]) -> None:
    paper = Path(argv[1]) if len(argv) > 1 else DEFAULT_PAPER
    out = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUT
    rows = transcribe(paper.read_text(encoding="utf-8"))
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    per_table: dict[object, int] = {}
    for row in rows:
        per_table[row["table"]] = per_table.get(row["table"], 0) + 1
    print(f"wrote {len(rows)} rows to {out}")
    print(" ".join(f"T{t}:{n}" for t, n in per_table.items()))


if __name__ == "__main__":
    main(sys.argv)
