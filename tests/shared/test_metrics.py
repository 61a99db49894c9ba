"""The metric layer: measures by hand, against scikit-learn, bootstrap standard errors, and the log layout."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import SampleScore, Score, aggregate, mean, scorer, stderr
from sklearn.metrics import confusion_matrix, f1_score, precision_recall_fscore_support

from bediscover_inspect import metrics as m
from bediscover_inspect.discourse_markers.dataset import load_dataset
from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.measures import CATALOG, METRICS
from tests.helpers import answer_with, run_eval

LABELS = st.sampled_from(["Before", "After", "Includes", "Is_Included", "Simultaneous", "Vague", m.INVALID_ANSWER])


def weighted_prf(gold: list[str], pred: list[str]) -> tuple[float, float, float]:
    """Weighted precision, recall and F1 as the catalog's measures compute them from the labels."""
    return tuple(CATALOG[f"weighted_{stat}"].of_labels(gold, pred) for stat in m.WEIGHTED)  # type: ignore[return-value]


def item(sample_id: str, dataset: str, gold: str, answer: str, **value: float) -> SampleScore:
    return SampleScore(
        score=Score(value=value, answer=answer), sample_id=sample_id, sample_metadata={"dataset": dataset, "gold": gold}
    )


def test_mean_measures_report_the_mean_and_its_stderr_by_hand():
    scores = [item(f"s{i}", "d", "a", "a", accuracy=v) for i, v in enumerate([1.0, 0.0, 1.0, 1.0])]
    # mean 3/4; sample std of (1, 0, 1, 1) is 1/2, so stderr = (1/2) / sqrt(4) = 1/4
    assert METRICS["accuracy"]()(scores) == pytest.approx({"accuracy": 0.75, "accuracy_stderr": 0.25})
    assert METRICS["accuracy"](stat="value")(scores) == pytest.approx(0.75)
    assert METRICS["accuracy"](stat="stderr")(scores) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="stat must be one of"):
        METRICS["accuracy"](stat="median")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 1), st.floats(-1e6, 1e6), st.just(float("nan"))), max_size=40))
def test_mean_measures_equal_inspects_mean_and_stderr_over_the_key(values):
    """The mean measures compute what aggregate(key, mean()) / aggregate(key, stderr()) compute (NaN skipped, NaN
    for no value), without copying every score."""
    scores = [item(f"s{i}", "d", "a", "a", accuracy=v) for i, v in enumerate(values)]
    expected_mean = aggregate("accuracy", mean())(scores)
    expected_stderr = aggregate("accuracy", stderr())(scores)
    if math.isnan(expected_mean):
        assert (
            math.isnan(METRICS["accuracy"](stat="value")(scores)) and METRICS["accuracy"](stat="stderr")(scores) == 0.0
        )
    else:
        assert METRICS["accuracy"](stat="value")(scores) == pytest.approx(expected_mean, rel=1e-12, abs=1e-9)
        assert METRICS["accuracy"](stat="stderr")(scores) == pytest.approx(expected_stderr, rel=1e-9, abs=1e-9)


def test_a_missing_value_key_names_the_sample():
    with pytest.raises(ValueError, match="Sample s0 score key 'invalid' is missing"):
        METRICS["invalid"]()([item("s0", "d", "a", "a", accuracy=1.0)])
    with pytest.raises(ValueError, match="Sample s1 score key 'invalid' is not a number: 'no'"):
        METRICS["invalid"]()([item("s1", "d", "a", "a", invalid="no")])  # type: ignore[arg-type]
    scalar = SampleScore(score=Score(value=1.0), sample_id="s2")
    with pytest.raises(ValueError, match="Sample s2: score value 1.0 is not a dict, so it has no 'invalid'"):
        METRICS["invalid"]()([scalar])


def test_confusion_refuses_lists_of_different_lengths():
    with pytest.raises(ValueError, match="2 gold labels but 1 predicted labels"):
        m.confusion(["a", "b"], ["a"])


def test_weighted_prf_by_hand():
    # support a2 b1 c1; predicted a1 b2 x1; tp a1 b1 c0
    # P = (2·1 + 1·½ + 1·0)/4, R = (2·½ + 1·1 + 0)/4, F1 = (2·⅔ + 1·⅔ + 0)/4
    assert weighted_prf(["a", "a", "b", "c"], ["a", "b", "b", "x"]) == pytest.approx((0.625, 0.5, 0.5))
    assert weighted_prf([], []) == (0.0, 0.0, 0.0)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=60))
def test_the_bootstrap_statistic_is_scikit_learn_weighted_prf(pairs):
    """weighted_prf_of_confusion (the vectorised statistic the bootstrap resamples) equals scikit-learn."""
    gold = [g for g, _ in pairs]
    pred = [p for _, p in pairs]
    _, matrix = m.confusion(gold, pred)
    ours = m.weighted_prf_of_confusion(matrix[None])[0]
    p, r, f, _ = precision_recall_fscore_support(gold, pred, average="weighted", zero_division=0)
    assert ours == pytest.approx([p, r, f], abs=1e-12)
    assert CATALOG["micro_f1"].of_labels(gold, pred) == pytest.approx(f1_score(gold, pred, average="micro"))
    assert CATALOG["micro_f1"].of_labels(gold, pred) == pytest.approx(np.mean([g == q for g, q in pairs]))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=60))
def test_confusion_weighted_and_per_class_scores_are_scikit_learns(pairs):
    """The numpy confusion matrix, the weighted P/R/F1 and the per-class table equal scikit-learn's."""
    gold = [g for g, _ in pairs]
    pred = [p for _, p in pairs]
    labels, matrix = m.confusion(gold, pred)
    assert matrix.tolist() == confusion_matrix(gold, pred, labels=labels).tolist()
    p, r, f, _ = precision_recall_fscore_support(gold, pred, average="weighted", zero_division=0)
    assert weighted_prf(gold, pred) == pytest.approx((p, r, f), abs=1e-12)
    gold_labels = sorted(set(gold))
    p, r, f, support = precision_recall_fscore_support(gold, pred, labels=gold_labels, average=None, zero_division=0)
    table = m.per_class_prf(gold, pred)
    assert list(table) == gold_labels
    for i, label in enumerate(gold_labels):
        assert table[label] == pytest.approx({"precision": p[i], "recall": r[i], "f1": f[i], "support": support[i]})


def test_weighted_prf_on_real_gold_labels():
    """Just-Manual's 90 gold labels (mirror file) against a prediction that replaces every third label with the one
    17 places on and marks every seventh invalid: values far from 0 and 1, checked against scikit-learn."""
    gold = [str(s.metadata["gold"]) for s in load_dataset("just-manual").dataset]
    assert len(gold) == 90
    pred = [
        m.INVALID_ANSWER if i % 7 == 0 else (gold[(i + 17) % 90] if i % 3 == 0 else label)
        for i, label in enumerate(gold)
    ]
    p, r, f, _ = precision_recall_fscore_support(gold, pred, average="weighted", zero_division=0)
    assert weighted_prf(gold, pred) == pytest.approx((p, r, f), rel=1e-12)
    assert 0.3 < f < 0.8


@pytest.mark.slow
def test_confusion_bootstrap_is_seeded_and_agrees_with_a_plain_resampling_bootstrap():
    rng = np.random.default_rng(7)
    gold = list(rng.choice(["a", "b", "c"], 200))
    pred = [g if rng.random() < 0.6 else str(rng.choice(["a", "b", "c", m.INVALID_ANSWER])) for g in gold]
    se = m.label_stderr(gold, pred, CATALOG["weighted_f1"].of_confusions)
    assert se == m.label_stderr(gold, pred, CATALOG["weighted_f1"].of_confusions)  # the same seed, the same number
    # a plain bootstrap of scikit-learn's weighted F1 over resampled items (a different random stream)
    # 300 resamples: their std has a relative standard error of 1/sqrt(2·300) = 4%, well inside the 15% allowed
    draws = np.random.default_rng(11).integers(0, 200, size=(300, 200))
    plain = np.std(
        [
            precision_recall_fscore_support(
                [gold[i] for i in row], [pred[i] for i in row], average="weighted", zero_division=0
            )[2]
            for row in draws
        ]
    )
    assert se == pytest.approx(plain, rel=0.15)
    assert m.label_stderr(["a"], ["a"], CATALOG["weighted_f1"].of_confusions) == 0.0


def test_ratio_of_sums_and_its_bootstrap_by_hand():
    numerator, denominator = np.array([1.0, 2.0, 0.0]), np.array([2.0, 4.0, 4.0])
    assert m.ratio_of_sums(numerator, denominator) == pytest.approx(0.3)
    assert m.ratio_of_sums(np.zeros(2), np.zeros(2)) == 0.0
    indices = np.random.default_rng(m.BOOTSTRAP_SEED).integers(0, 3, size=(m.BOOTSTRAP_RESAMPLES, 3))
    by_hand = np.std([numerator[row].sum() / denominator[row].sum() for row in indices])
    assert m.ratio_stderr(numerator, denominator) == pytest.approx(by_hand)


def test_per_class_scores_are_scikit_learn_per_label():
    gold, pred = ["a", "a", "b", "c"], ["a", "b", "b", m.INVALID_ANSWER]
    table = m.per_class_prf(gold, pred)
    assert list(table) == ["a", "b", "c"]
    assert table["a"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3), "support": 2.0}
    assert table["b"]["precision"] == 0.5 and table["c"]["recall"] == 0.0
    # the same answers as counts of (gold, predicted) pairs (a pair counted 0 names no label): the same table
    counts = {("a", "a"): 1, ("a", "b"): 1, ("b", "b"): 1, ("c", m.INVALID_ANSWER): 1, ("d", "a"): 0}
    labels, matrix = m.confusion_of_counts(counts)
    assert labels == ["a", "b", "c", m.INVALID_ANSWER]
    assert matrix.tolist() == [[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]]
    assert m.per_class_prf_of_confusion(labels, matrix) == table
    scores = [item(str(i), "d", g, p) for i, (g, p) in enumerate(zip(gold, pred))]
    assert m.per_class()(scores)["f1_b"] == pytest.approx(2 / 3)


@scorer(
    metrics=m.measure_metrics(METRICS["accuracy"], ["dataset", "framework"]) + m.measure_metrics(METRICS["weighted_f1"])
)
def _toy_scorer():
    async def score(state, target):
        return Score(value={"accuracy": float(state.output.completion == target.text)}, answer=state.output.completion)

    return score


def test_the_log_holds_every_measure_per_group_with_a_standard_error(tmp_path):
    samples = [
        Sample(
            id=f"{d}_{i}",
            input="x",
            target="A" if i % 2 else "B",
            metadata={"dataset": d, "framework": f, "gold": "A" if i % 2 else "B"},
        )
        for d, f in (("c1", "pdtb"), ("c2", "pdtb"), ("c3", "rst"))
        for i in range(4)
    ]
    task = Task(
        dataset=samples,
        solver=answer_with(lambda s: "A" if s.sample_id.startswith("c1") else "B"),
        scorer=_toy_scorer(),
        epochs=m.pooled_epochs(),
    )
    [log] = run_eval(task, model="mockllm/model", display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    [score] = log.results.scores
    names = list(score.metrics)
    assert names[:2] == ["accuracy", "accuracy_stderr"]  # the headline first: evals_df score_<scorer>_accuracy
    assert {
        "accuracy_c1",
        "accuracy_stderr_c1",
        "accuracy_framework_pdtb",
        "accuracy_stderr_framework_rst",
        "weighted_f1",
        "weighted_f1_stderr",
        "weighted_f1_c3",
    } <= set(names)
    rows = {(r["measure"], r["group_key"], r["group"]): r for r in read_results(log)}
    # c1 answers A: right on the two A items; c2, c3 answer B: right on their two B items -> 6/12
    assert rows[("accuracy", "all", "all")]["value"] == 0.5
    assert rows[("accuracy", "dataset", "c1")]["value"] == 0.5
    assert rows[("accuracy", "framework", "pdtb")]["value"] == 0.5
    # stderr of four 0/1 values, two of each: sample std sqrt(1/3), / 2
    assert rows[("accuracy", "dataset", "c3")]["stderr"] == pytest.approx(math.sqrt(1 / 3) / 2)
    assert not math.isnan(rows[("weighted_f1", "all", "all")]["stderr"])
    assert len(rows) == 1 + 3 + 2 + 1 + 3


def test_epochs_pool_every_answer(tmp_path):
    """--epochs 2 with a right then a wrong answer per sample: each (sample, epoch) is one observation, so accuracy
    and weighted recall are 0.5 (Inspect's mean reducer would make the answer None, i.e. invalid)."""
    from bediscover_inspect.discourse_markers.task import discourse_markers
    from tests.helpers import scripted_model

    calls: dict[str, int] = {}
    dm = discourse_markers(dataset="just-manual")
    gold = {s.input: s.target for s in dm.dataset}

    def right_then_wrong(messages):
        text = messages[-1].text
        calls[text] = calls.get(text, 0) + 1
        right = str(gold[text])
        return right if calls[text] == 1 else ("Unelaboratory" if right != "Unelaboratory" else "Emphatic")

    [log] = run_eval(
        dm,
        model=scripted_model(right_then_wrong),
        limit=4,
        epochs=2,
        display="none",
        log_dir=str(tmp_path),
        max_connections=1,
    )
    rows = {(r["measure"], r["group"]): r["value"] for r in read_results(log)}
    assert rows[("accuracy", "all")] == 0.5 and rows[("weighted_recall", "all")] == 0.5
    assert rows[("invalid", "all")] == 0.0


def test_headline_stat_names_its_standard_error_stderr_for_inspect():
    """``stat="headline"``: the measure under its own name, its standard error under ``stderr`` (the entry Inspect
    reads as a log's headline standard error); the value and error are the ``"both"`` ones."""
    scores = [
        item("a", "d1", "x", "x", accuracy=1.0),
        item("b", "d2", "x", "y", accuracy=0.0),
        item("c", "d2", "x", "x", accuracy=1.0),
    ]
    both = METRICS["accuracy"]()(scores)
    headline = METRICS["accuracy"](stat="headline")(scores)
    assert list(headline) == ["accuracy", "stderr"]
    assert headline == {"accuracy": both["accuracy"], "stderr": both["accuracy_stderr"]}
    # sample std of (1, 0, 1) = sqrt(1/3), over sqrt(3)
    assert headline == pytest.approx({"accuracy": 2 / 3, "stderr": math.sqrt(1 / 3) / math.sqrt(3)})


def test_token_counts_not_reported_are_left_out_of_means_and_ratios():
    # two samples report 4 and 8 output tokens, one reported none (None): mean 6, not 4; per turn (3 + 5 turns
    # measured) 12 / 8 = 1.5; with no sample measured the mean is NaN
    scores = [
        SampleScore(score=Score(value={"output_tokens": v, "turns": t}), sample_id=i)
        for i, (v, t) in enumerate([(4.0, 3.0), (None, 2.0), (8.0, 5.0)])
    ]
    values = m.values_of(scores, "output_tokens")
    assert values[0] == 4.0 and math.isnan(values[1]) and values[2] == 8.0
    assert m.mean_and_stderr(values)[0] == 6.0
    assert m.ratio_of_sums(values, m.values_of(scores, "turns")) == 1.5
    assert math.isnan(m.ratio_of_sums(np.array([np.nan]), np.array([2.0])))


def test_invalid_rate_of_nothing_read_is_undefined_and_its_bootstrap_leaves_such_resamples_out():
    """Dialogue parsing's ``invalid_rate`` = Σ relations_invalid / Σ relations_read.

    One sample read 2 relations, both invalid; two read none: the rate is 2/2 = 1 and every resample holding the
    first sample gives 1, so the standard error is 0 (a resample of the two empty samples only, (2/3)³ = 30 % of
    them, has no rate; counting it as 0 made the standard error √(0.3 · 0.7) ≈ 0.46). With nothing read in any
    sample the rate is undefined (NaN), not a perfect 0, and so is its standard error."""
    from bediscover_inspect.measures import CATALOG

    invalid_rate = CATALOG["invalid_rate"]
    counts = [(2.0, 2.0), (0.0, 0.0), (0.0, 0.0)]
    scores = [
        item(f"d{i}", "msdc", "-", "-", relations_invalid=bad, relations_read=read)
        for i, (bad, read) in enumerate(counts)
    ]
    assert invalid_rate.metric()(scores) == {"invalid_rate": 1.0, "invalid_rate_stderr": 0.0}
    values = [{"relations_invalid": bad, "relations_read": read} for bad, read in counts]
    assert invalid_rate.compute(values) == 1.0
    nothing = invalid_rate.metric()(scores[1:])
    assert math.isnan(nothing["invalid_rate"]) and math.isnan(nothing["invalid_rate_stderr"])
    assert math.isnan(invalid_rate.compute(values[1:]))
    # 1 of 2 invalid in one sample, 1 of 1 in another, none read in a third: 2/3, and the standard error is the
    # plain bootstrap's over the resamples that read something
    numerator, denominator = np.array([1.0, 1.0, 0.0]), np.array([2.0, 1.0, 0.0])
    assert m.ratio_of_sums(numerator, denominator, empty=float("nan")) == pytest.approx(2 / 3)
    indices = np.random.default_rng(m.BOOTSTRAP_SEED).integers(0, 3, size=(m.BOOTSTRAP_RESAMPLES, 3))
    by_hand = np.std([numerator[row].sum() / denominator[row].sum() for row in indices if denominator[row].sum()])
    assert m.ratio_stderr(numerator, denominator, empty=float("nan")) == pytest.approx(by_hand)
    # link precision keeps scikit-learn's zero_division=0: nothing predicted is precision 0
    assert CATALOG["link_precision"].compute([{"link_tp": 0.0, "link_pred": 0.0}]) == 0.0
