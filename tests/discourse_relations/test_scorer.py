"""Scorer and metrics of Task (3): size-weighted framework/language averages, gold and garbage runs."""

from __future__ import annotations

import random
import statistics

import pytest
from inspect_ai.dataset import MemoryDataset
from inspect_ai.scorer import SampleScore, Score, Target
from inspect_ai.util import Store

from bediscover_inspect.discourse_relations.prompts import LABELS
from bediscover_inspect.discourse_relations.scorer import METRICS, discourse_relation_scorer
from bediscover_inspect.discourse_relations.task import discourse_relations
from bediscover_inspect.evallogs.results import read_results
from bediscover_inspect.metrics import INVALID_ANSWER
from tests.helpers import run_eval

from ..helpers import answer_with, output_with_usage, scripted_model

_MEASURE_KEYS = {"accuracy": "dataset", "accuracy_by_framework": "framework", "accuracy_by_language": "language"}


def _metrics(log, key: str) -> dict[str, float]:
    """``{group: value}`` of one measure, with ``"all"`` for the overall value. ``accuracy_by_framework`` and
    ``accuracy_by_language`` name accuracy grouped by framework / language; other keys group by corpus."""
    measure, group_key = ("accuracy", _MEASURE_KEYS[key]) if key in _MEASURE_KEYS else (key, "dataset")
    return {
        row["group"]: row["value"]
        for row in read_results(log)
        if row["measure"] == measure and row["group_key"] in (group_key, "all")
    }


def _entries(scores: list[SampleScore]) -> dict[str, float]:
    """Every metric entry the scorer's metrics give for ``scores`` (as Inspect names them in the log)."""
    out: dict[str, float] = {}
    for metric in METRICS:
        out.update(metric(scores))
    return out


def _sample_score(corpus: str, framework: str, language: str, hit: float, i: int) -> SampleScore:
    value = {
        "accuracy": float(hit),
        "invalid": 0.0,
        "ambiguous": 0.0,
        "echo": 0.0,
        "cut_off": 0.0,
        "reasoning_only": 0.0,
        "output_tokens": 0.0,
        "reasoning_tokens": 0.0,
    }
    return SampleScore(
        score=Score(value=value, answer="Elaboration" if hit else "Contrast"),
        sample_id=f"{corpus}_{i}",
        sample_metadata={"dataset": corpus, "framework": framework, "language": language, "gold": "Elaboration"},
    )


def test_framework_and_language_accuracy_are_size_weighted_averages_of_corpus_accuracies():
    # Hand-made: pdtb corpus A 3/4 correct, pdtb corpus B 0/1, rst corpus C 1/2.
    scores = (
        [_sample_score("A", "pdtb", "deu", h, i) for i, h in enumerate([1, 1, 1, 0])]
        + [_sample_score("B", "pdtb", "eng", 0, 0)]
        + [_sample_score("C", "rst", "deu", h, i) for i, h in enumerate([1, 0])]
    )
    values = _entries(scores)
    prefixes = {"accuracy_by_framework": "accuracy_framework_", "accuracy_by_language": "accuracy_language_"}
    by = {
        measure: {k[len(prefix) :]: v for k, v in values.items() if k.startswith(prefix)}
        for measure, prefix in prefixes.items()
    }
    by["accuracy"] = {corpus: values[f"accuracy_{corpus}"] for corpus in "ABC"}
    assert values["accuracy"] == pytest.approx(4 / 7)
    assert by["accuracy"] == {"A": 0.75, "B": 0.0, "C": 0.5}
    assert set(by["accuracy_by_framework"]) == {"pdtb", "rst"} and set(by["accuracy_by_language"]) == {"deu", "eng"}
    # Table 4 convention: (4 * 0.75 + 1 * 0.0) / (4 + 1) = 0.6, not the unweighted (0.75 + 0.0) / 2 = 0.375
    assert by["accuracy_by_framework"]["pdtb"] == pytest.approx((4 * 0.75 + 1 * 0.0) / 5) == pytest.approx(0.6)
    assert by["accuracy_by_framework"]["rst"] == 0.5
    # Table 27 convention: deu = (4 * 0.75 + 2 * 0.5) / 6 = 4/6
    assert by["accuracy_by_language"]["deu"] == pytest.approx((4 * 0.75 + 2 * 0.5) / 6)
    assert by["accuracy_by_language"]["eng"] == 0.0
    # weighted recall over one gold class = accuracy; precision = 1 (every "Elaboration" answer is right)
    assert values["weighted_recall_A"] == 0.75 and values["weighted_precision_A"] == 1.0
    # standard errors: Inspect's stderr() of the 0/1 means, per group too (pdtb: 3 of 5 right)
    assert values["accuracy_stderr_framework_pdtb"] == pytest.approx(statistics.stdev([1, 1, 1, 0, 0]) / 5**0.5)
    # the headline's standard error is the entry named "stderr" (the one Inspect reads)
    assert values["stderr"] == pytest.approx(statistics.stdev([1, 1, 1, 0, 0, 1, 0]) / 7**0.5)
    # only accuracy is broken down by framework and language; every measure by corpus
    assert not any(k.startswith(("weighted_f1_framework", "invalid_language")) for k in values)
    assert {"invalid_A", "ambiguous_B", "output_tokens_C", "weighted_f1_stderr_C"} <= set(values)
    # per-class view over all samples: the one gold class, recall = accuracy
    assert values["recall_Elaboration"] == pytest.approx(4 / 7) and values["precision_Elaboration"] == 1.0


def _corpus_heads(task, per_corpus: dict[str, int]) -> MemoryDataset:
    """The first n samples of each listed corpus (in the task's order)."""
    kept, seen = [], {c: 0 for c in per_corpus}
    for sample in task.dataset:
        corpus = sample.metadata["dataset"]
        if corpus in seen and seen[corpus] < per_corpus[corpus]:
            kept.append(sample)
            seen[corpus] += 1
    return MemoryDataset(kept)


def test_end_to_end_weighting_on_hand_made_answers(tmp_path):
    task = discourse_relations(dataset="deu.pdtb.pcc,eng.pdtb.tedm,ces.rst.crdt")
    task.dataset = _corpus_heads(task, {"deu.pdtb.pcc": 4, "eng.pdtb.tedm": 1, "ces.rst.crdt": 2})
    wrong_ids = {"deu.pdtb.pcc_003", "eng.pdtb.tedm_000", "ces.rst.crdt_001"}

    def answer(state):
        gold = state.target.text
        if state.sample_id in wrong_ids:
            return "query" if gold != "query" else "comment"
        return f"**{gold.capitalize()}**"  # markdown and capitals still parse to the exact label

    log = run_eval(task, solver=answer_with(answer), model="mockllm/model", display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success" and len(log.samples) == 7
    assert _metrics(log, "accuracy") == {
        "deu.pdtb.pcc": 0.75,
        "eng.pdtb.tedm": 0.0,
        "ces.rst.crdt": 0.5,
        "all": pytest.approx(4 / 7),
    }
    assert _metrics(log, "accuracy_by_framework") == {
        "pdtb": pytest.approx(0.6),
        "rst": 0.5,
        "all": pytest.approx(4 / 7),
    }
    assert _metrics(log, "accuracy_by_language") == {"deu": 0.75, "eng": 0.0, "ces": 0.5, "all": pytest.approx(4 / 7)}
    assert _metrics(log, "invalid")["all"] == 0.0


@pytest.mark.slow
def test_gold_answers_score_one_everywhere(tmp_path):
    task = discourse_relations()
    corpora = list(task.metadata["samples_per_corpus"])
    task.dataset = _corpus_heads(task, {c: 3 for c in corpora})
    log = run_eval(
        task, solver=answer_with(lambda s: s.target.text), model="mockllm/model", display="none", log_dir=str(tmp_path)
    )[0]
    assert len(log.samples) == 3 * 32
    for key, groups in (("accuracy", 32), ("accuracy_by_framework", 6), ("accuracy_by_language", 15)):
        values = _metrics(log, key)
        assert len(values) == groups + 1, key  # + "all"
        assert set(values.values()) == {1.0}, key
    for key in ("weighted_precision", "weighted_recall", "weighted_f1"):
        values = _metrics(log, key)
        assert len(values) == 32 + 1 and set(values.values()) == {1.0}, key
    assert set(_metrics(log, "invalid").values()) == {0.0}
    assert set(_metrics(log, "ambiguous").values()) == {0.0}
    assert log.eval.task_args.get("subset", "paper") == "paper"
    assert log.eval.metadata["absent"]["eng.sdrt.msdc"] == "not in this data root"
    assert log.eval.metadata["absent_paper_relations"]["eng.sdrt.msdc"] == 240
    assert log.eval.task_version == 2


def test_garbage_answers_are_invalid_and_wrong(tmp_path):
    rng = random.Random(7)
    garbage = ["", "I cannot tell.", "42", "<think>elaboration</think> no idea", "relation: unknown", "\x00\n\t"]
    garbage += ["".join(rng.choice("xyz #*_-") for _ in range(rng.randint(1, 30))) for _ in range(14)]
    task = discourse_relations(dataset="spa.rst.sctb")
    task.dataset = _corpus_heads(task, {"spa.rst.sctb": len(garbage)})
    log = run_eval(task, model=scripted_model(garbage), display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success"
    assert _metrics(log, "invalid") == {"spa.rst.sctb": 1.0, "all": 1.0}
    assert _metrics(log, "accuracy")["all"] == 0.0
    assert {s.scores["discourse_relation_scorer"].answer for s in log.samples} == {INVALID_ANSWER}
    assert _metrics(log, "output_tokens")["all"] == pytest.approx(sum(len(g.split()) for g in garbage) / len(garbage))


class _State:
    """Minimal TaskState stand-in: the scorer reads ``output``, the gold label of ``metadata`` and ``store``."""

    def __init__(self, text: str, reasoning_tokens: int | None = None, gold: str = "causal"):
        self.output = output_with_usage(text, output_tokens=5, reasoning_tokens=reasoning_tokens)
        self.metadata = {"gold": gold, "dataset": "eng.pdtb.gum"}
        self.store = Store()  # the solver's record of the task's reasoning setting (causes.REASONING_STORE_KEY)


@pytest.mark.parametrize(
    ("completion", "answer", "correct", "invalid"),
    [
        ("causal", "causal", 1.0, 0.0),
        ("Causal.", "causal", 1.0, 0.0),
        ("Label: elaboration", "elaboration", 0.0, 0.0),
        ("cause", "causal", 1.0, 0.0),  # a noun form of the label (aliases.RELATION_ALIASES)
        ("justification", INVALID_ANSWER, 0.0, 1.0),  # neither one of the 17 nor a spelling of one
        ("causal or conjunction", INVALID_ANSWER, 0.0, 1.0),  # a hedge: no choice, invalid, flagged ambiguous
    ],
)
async def test_scorer_reads_only_the_completion(completion, answer, correct, invalid):
    score = await discourse_relation_scorer()(_State(completion, reasoning_tokens=3), Target("causal"))
    assert score.answer == answer
    assert score.value["accuracy"] == correct
    assert score.value["invalid"] == invalid
    assert score.value["output_tokens"] == 5.0 and score.value["reasoning_tokens"] == 3.0
    assert score.value["ambiguous"] == (1.0 if completion == "causal or conjunction" else 0.0)
    assert score.explanation == completion


def test_labels_are_17_distinct():
    assert len(set(LABELS)) == 17
