"""The inconsistencies inside the paper that the report README lists, counted from ``paper_results.csv``.

Each count is recomputed here, so the README's claims are checked against the transcribed numbers, not copied.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bediscover_inspect.data import REGISTRY
from bediscover_inspect.data.select import subset_size
from bediscover_inspect.report.paper import load_paper_results


@pytest.fixture(scope="module")
def ours() -> pd.DataFrame:
    df = load_paper_results()
    return df[df.section == "BeDiscovER"]


def test_accuracy_differs_from_weighted_recall_in_68_rows_all_in_the_just_tables(ours):
    """One set of predictions has weighted recall = accuracy (Σ_c n_c/N · TP_c/n_c = Σ_c TP_c / N)."""

    def differing(tables: range) -> tuple[int, int]:
        rows = ours[ours.table.isin(tables)].pivot_table(
            index=["table", "model", "reasoning"], columns="metric", values="mean"
        )
        return len(rows), int(((rows.accuracy - rows.weighted_recall).abs() > 1e-9).sum())

    assert differing(range(13, 22)) == (144, 68)  # Tables 13-21: 9 tables x 16 model/mode rows
    assert differing(range(13, 19)) == (96, 68)  # all of them in the Just tables (13-18)
    assert differing(range(19, 22)) == (48, 0)  # Otherwise: none


def _paper_subset_sizes() -> dict[str, int]:
    return {
        info.dataset: subset_size(info.records, info.paper_fraction) for info in REGISTRY.values() if info.task == "dr"
    }


def test_table_4_follows_from_tables_28_to_31_in_4_of_42_cells(ours):
    """Table 4's caption: accuracy averaged over each framework's datasets, weighted by dataset size."""
    corpora = ours[ours.table.isin([28, 29, 30, 31]) & (ours.metric == "accuracy") & (ours.reasoning == "on")]
    corpora = corpora.assign(corpus=corpora.variant.str.partition(":")[2])
    corpora = corpora.assign(framework=corpora.corpus.str.split(".").str[1])
    assert corpora.corpus.nunique() == 38
    sizes = _paper_subset_sizes()
    assert sum(sizes.values()) == 8757  # Table 1: 8,757 relations

    def agreeing(weight) -> int:
        table4 = ours[ours.table == 4]
        hits = 0
        for row in table4.itertuples(index=False):
            group = corpora[(corpora.model == row.model) & (corpora.framework == row.variant.split(":")[1].lower())]
            weights = np.array([weight(corpus) for corpus in group.corpus], dtype=float)
            average = float((group["mean"].to_numpy() * weights).sum() / weights.sum())
            hits += abs(round(average, 1) - row.mean) < 0.051
        assert len(table4) == 42  # 7 models x 6 frameworks
        return hits

    assert agreeing(lambda corpus: sizes[corpus]) == 4  # weighted by the evaluated (paper-subset) sizes
    assert agreeing(lambda corpus: REGISTRY[f"dr/disrpt25/{corpus}/test_id.json"].records) == 3  # full sizes
    assert agreeing(lambda corpus: 1.0) == 8  # unweighted


def test_table_30_repeats_table_29s_rows_of_the_four_reasoning_only_models(ours):
    models = ["DS-r1-distill-Qwen", "DeepSeek-r1-0528", "GPT-5-mini (low)", "GPT-5-mini (high)"]
    last_of_29 = ["nld.rst.nldt", "pcm.pdtb.disconaija", "pol.iso.pdc"]
    first_of_30 = ["por.pdtb.crpc", "por.pdtb.tedm", "por.rst.cstn"]
    keys = ["model", "metric"]
    same = 0
    for a, b in zip(last_of_29, first_of_30):
        left = ours[(ours.table == 29) & (ours.variant == f"corpus:{a}") & ours.model.isin(models)]
        right = ours[(ours.table == 30) & (ours.variant == f"corpus:{b}") & ours.model.isin(models)]
        merged = left.merge(right, on=keys, suffixes=("_29", "_30"))
        assert len(merged) == 8  # 4 models x (w/ r accuracy, tok.)
        same += int(
            (
                (merged.mean_29 == merged.mean_30)
                & ((merged.std_29 == merged.std_30) | merged.std_29.isna() & merged.std_30.isna())
            ).sum()
        )
    assert same == 24
    # no other pair of corpora shares these rows
    blocks = ours[ours.table.isin([28, 29, 30, 31]) & ours.model.isin(models)].sort_values(keys)
    signature = blocks.groupby("variant").apply(lambda g: tuple(g["mean"]), include_groups=False)
    repeated = signature[signature.duplicated(keep=False)]
    assert sorted(repeated.index) == sorted(f"corpus:{c}" for c in last_of_29 + first_of_30)


def test_table_2_and_the_appendix_print_different_stds_for_the_same_runs(ours):
    main = ours[ours.table == 2]
    appendix = ours[ours.table.isin(range(13, 22))]
    merged = main.merge(appendix, on=["dataset", "variant", "model", "reasoning", "metric"], suffixes=("_main", "_app"))
    assert len(merged) == len(main) == 63
    assert int((merged.mean_main != merged.mean_app).sum()) == 0  # the same means
    assert int(((merged.std_main - merged.std_app).abs() > 1e-9).sum()) == 37  # other stds in 37 of 63
    ds = merged[
        (merged.model == "DS-r1-distill-Qwen") & (merged.dataset == "just-manual") & (merged.variant == "basic")
    ].iloc[0]
    assert (ds.mean_main, ds.std_main, ds.std_app, ds.table_app) == (56.7, 1.1, 0.9, 13)


def test_just_subtitle_has_149_items_not_139(ours):
    """Two Just-Subtitle accuracies with std 0.0 (the three seeds equal, so mean = k / n): both are k/149 and no
    k/139 rounds to them."""
    cells = ours[
        (ours.dataset == "just-subtitle") & (ours.metric == "accuracy") & (ours.table >= 13) & (ours["std"] == 0.0)
    ]
    printed = sorted(cells["mean"])
    assert printed == [13.4, 63.1]
    assert [k for k in range(150) if round(100 * k / 149, 1) == 63.1] == [94]  # Table 17, GPT-5-mini (high)
    assert [k for k in range(150) if round(100 * k / 149, 1) == 13.4] == [20]  # Table 16, Qwen3-1.7B w/o r.
    assert [k for mean in printed for k in range(140) if round(100 * k / 139, 1) == mean] == []
    # the data: 239 Just records = 90 Just-Manual + 149 Just-Subtitle
    assert REGISTRY["dm/just/test_id.json"].records == 239


def test_tdd_man_captions_read_swapped(ours):
    """Table 3 (the full document for TBD) equals Table 24 for TDD-Man; §5.1.2's "removing context: gains on TBD,
    a 2-9 % drop on TDD-Man" holds for TBD as printed and for TDD-Man only with Tables 24 and 25 swapped."""
    f1 = ours[ours.metric == "micro_f1"]

    def table(number: int, dataset: str | None = None) -> pd.Series:
        rows = f1[(f1.table == number) & ((f1.dataset == dataset) if dataset else True)]
        return rows.set_index(["model", "reasoning"])["mean"]

    for dataset, same, other in (("tbd", 23, 22), ("tdd-man", 24, 25)):
        main = table(3, dataset)
        assert len(main) == 7
        assert int((main == table(same).reindex(main.index)).sum()) == 7
        assert int((main == table(other).reindex(main.index)).sum()) == 0
    tbd_gain = (table(22) - table(23)).round(1)  # without - with, as printed
    assert (int((tbd_gain > 0).sum()), len(tbd_gain)) == (15, 16)
    tdd_drop = (table(24) - table(25)).round(1)  # with - without, read swapped
    assert (int((tdd_drop > 0).sum()), len(tdd_drop)) == (11, 16)
    assert sorted(tdd_drop[tdd_drop >= 2]) == [2.6, 2.7, 2.7, 3.3, 5.5, 7.2, 8.8]
