"""The one-metric-per-scorer layout: values by hand, entry order, errors that name the sample, log read-back."""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.scorer import SampleScore, Score

from bediscover_inspect.metrics import (
    CLASSIFICATION_MEASURES,
    group_key_of,
    log_measures,
    measures_by_group,
    measures_metric,
)
from bediscover_inspect.temporal_reasoning.task import temporal_reasoning
from tests.helpers import scripted_model


def _item(sample_id: str, dataset: str, gold: str, answer: str, tokens: float, **extra: str) -> SampleScore:
    hit = float(gold == answer)
    value = {"accuracy": hit, "invalid": float(answer == "<invalid>"), "output_tokens": tokens, "reasoning_tokens": 0.0}
    return SampleScore(score=Score(value=value, answer=answer, metadata={"gold": gold}), sample_id=sample_id,
                       sample_metadata={"dataset": dataset, **extra})


SCORES = [
    _item("a1", "A", "x", "x", 2.0, kind="k1"),
    _item("a2", "A", "y", "x", 4.0, kind="k2"),
    _item("b1", "B", "y", "<invalid>", 9.0, kind="k1"),
]


def test_values_by_hand_and_entry_order():
    values = measures_metric(CLASSIFICATION_MEASURES | {"accuracy_by_kind": "mean"})(SCORES)
    assert list(values)[:3] == ["accuracy/all", "accuracy/A", "accuracy/B"]  # all first, groups as first seen
    assert values["accuracy/all"] == pytest.approx(1 / 3) and values["accuracy/A"] == 0.5
    assert values["invalid/B"] == 1.0 and values["output_tokens/all"] == pytest.approx(5.0)
    assert values["accuracy_by_kind/k1"] == 0.5 and values["accuracy_by_kind/k2"] == 0.0
    # group A: gold x,y; answers x,x -> P_x = 1/2, P_y = 0; R_x = 1, R_y = 0; F1_x = 2·1/(1+2), F1_y = 0;
    # support 1 each -> P = 1/4, R = 1/2, F1 = 1/3
    assert values["weighted_precision/A"] == 0.25 and values["weighted_recall/A"] == 0.5
    assert values["weighted_f1/A"] == pytest.approx(1 / 3)
    assert measures_metric({"accuracy": "mean"}, include_all=False)(SCORES) == {"accuracy/A": 0.5, "accuracy/B": 0.0}
    assert measures_metric({"accuracy": "mean"})([]) == {}


def test_group_key_follows_the_measure_name():
    assert group_key_of("accuracy_by_framework") == ("accuracy", "framework")
    assert group_key_of("weighted_f1") == ("weighted_f1", "dataset")
    assert group_key_of("no_relation_rate") == ("no_relation_rate", "dataset")


def test_errors_name_the_reduction_or_the_sample():
    with pytest.raises(ValueError, match=r"unknown reduction\(s\) \['median'\]"):
        measures_metric({"accuracy": "median"})
    with pytest.raises(ValueError, match="sample a1: sample metadata has no 'language'"):
        measures_metric({"accuracy_by_language": "mean"})(SCORES)
    with pytest.raises(ValueError, match="sample a1: score value has no finite number under 'pmr'"):
        measures_metric({"pmr": "mean"})(SCORES)
    no_gold = [SampleScore(score=Score(value={"accuracy": 1.0}, answer="x"), sample_id="z",
                           sample_metadata={"dataset": "A"})]
    with pytest.raises(ValueError, match="sample z: score metadata has no 'gold' label"):
        measures_metric({"weighted_f1": "weighted_f1"})(no_gold)


def test_repeated_computations_on_a_changing_list_match_fresh_ones():
    """Inspect recomputes the metric on a growing list of the same score objects (live display) and may replace
    one (a re-scored sample): every computation equals that of a fresh metric, and no score is kept alive."""
    import gc
    import weakref

    spec = CLASSIFICATION_MEASURES | {"accuracy_by_kind": "mean", "micro_f1": "micro_f1"}
    metric = measures_metric(spec)
    assert metric(SCORES[:1]) == measures_metric(spec)(SCORES[:1])
    assert metric(SCORES) == measures_metric(spec)(SCORES)
    rescored = [SCORES[0], _item("a2", "A", "y", "y", 4.0, kind="k2"), SCORES[2]]
    values = metric(rescored)
    assert values == measures_metric(spec)(rescored) and values["accuracy/A"] == 1.0
    temporary = [_item("t", "T", "x", "x", 1.0, kind="k1")]
    assert metric(temporary)["accuracy/T"] == 1.0
    watch = weakref.ref(temporary[0])
    del temporary
    gc.collect()
    assert watch() is None
    # a new object at a reused address is read afresh (the identity check is on the object, not the id)
    for answer in ("x", "y", "x", "y"):
        assert metric([_item("r", "R", "x", answer, 1.0, kind="k1")])["accuracy/R"] == float(answer == "x")


def test_two_tasks_sharing_one_metric_object_keep_their_rows(monkeypatch):
    """``@scorer(metrics=[...])`` builds the metric once per process, so concurrent tasks call the same object on
    different lists: each score is read once however the calls interleave, and a freed score's row is dropped."""
    import gc

    import bediscover_inspect.metrics as metrics_module

    reads = []
    real = metrics_module._checked_number
    monkeypatch.setattr(metrics_module, "_checked_number", lambda item, key: reads.append(key) or real(item, key))
    metric = measures_metric({"accuracy": "mean"})
    first = [_item(f"a{i}", "A", "x", "x", 1.0) for i in range(50)]
    second = [_item(f"b{i}", "B", "x", "y", 1.0) for i in range(50)]
    for _ in range(3):
        assert metric(first) == {"accuracy/all": 1.0, "accuracy/A": 1.0}
        assert metric(second) == {"accuracy/all": 0.0, "accuracy/B": 0.0}
    assert len(reads) == 100
    del first
    gc.collect()
    assert metric(second)["accuracy/B"] == 0.0 and len(reads) == 100


def test_a_two_scorer_log_reads_back_without_clashing_groups(tmp_path):
    """Temporal reasoning runs two scorers whose measures share names: every (measure, group) appears once."""
    task = temporal_reasoning(dataset="tbd,tot-arithmetic")
    [log] = inspect_eval(task, model=scripted_model(lambda messages: "BEFORE"), limit=None, display="none",
                         log_dir=str(tmp_path), sample_id=["tbd_0", "tbd_1", "tot-arithmetic_1750"])
    assert log.status == "success", log.error
    rows = log_measures(log)
    keys = [(measure, group) for measure, _, group, _ in rows]
    assert len(keys) == len(set(keys))
    table = measures_by_group(log)
    assert set(table["accuracy"]) == {"all", "tbd", "tot-arithmetic"}
    assert table["accuracy_by_category"] == {"tz": 0.0}
    assert measures_by_group(log, "tot_scorer")["invalid"] == {"tot-arithmetic": 1.0}



def test_epochs_pool_every_answer(tmp_path):
    """--epochs 2 with a right then a wrong answer per sample: each (sample, epoch) is one observation, so accuracy,
    weighted recall and micro-F1 are 0.5 (Inspect's mean reducer would make the answer None, i.e. invalid), and
    sentence ordering's micro Acc sums both epochs' counts."""
    from bediscover_inspect.discourse_markers.task import discourse_markers
    from bediscover_inspect.sentence_ordering.task import sentence_ordering

    calls: dict[str, int] = {}

    def right_then_wrong(state_text: str, right: str, wrong: str) -> str:
        calls[state_text] = calls.get(state_text, 0) + 1
        return right if calls[state_text] == 1 else wrong

    dm = discourse_markers(dataset="just-manual")
    gold = {s.input[-1].text: s.target for s in dm.dataset}
    model = scripted_model(lambda m: right_then_wrong(m[-1].text, gold[m[-1].text],
                                                      "Unelaboratory" if gold[m[-1].text] != "Unelaboratory" else "Emphatic"))
    [log] = inspect_eval(dm, model=model, limit=4, epochs=2, display="none", log_dir=str(tmp_path), max_connections=1)
    table = measures_by_group(log)
    assert table["accuracy"]["all"] == 0.5 and table["weighted_recall"]["all"] == 0.5 and table["invalid"]["all"] == 0.0
    so = sentence_ordering(datasets="nips-abs")
    gold_so = {s.input[-1].text: s.target for s in so.dataset}
    calls.clear()
    model = scripted_model(lambda m: right_then_wrong(m[-1].text, gold_so[m[-1].text], "no markers"))
    [log] = inspect_eval(so, model=model, limit=3, epochs=2, display="none", log_dir=str(tmp_path), max_connections=1)
    table = measures_by_group(log)
    assert table["acc"]["all"] == table["pmr"]["all"] == table["lcs"]["all"] == 0.5


def test_non_finite_values_and_reserved_group_names_are_errors():
    nan = [_item("n1", "A", "x", "x", float("nan"))]
    with pytest.raises(ValueError, match="sample n1: score value has no finite number under 'output_tokens'"):
        measures_metric({"output_tokens": "mean"})(nan)
    for bad in ("all", "", "a/b"):
        with pytest.raises(ValueError, match="cannot name a group"):
            measures_metric({"accuracy": "mean"})([_item("g1", bad, "x", "x", 1.0)])
    # the same value key under two group keys is averaged once per group
    values = measures_metric({"accuracy": "mean", "accuracy_by_dataset": "mean"})(SCORES)
    assert values["accuracy/all"] == values["accuracy_by_dataset/all"] == pytest.approx(1 / 3)
