"""Answer parsing (cases and fuzz), metrics against scikit-learn, confusion matrices, end-to-end runs."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from bediscover_inspect.discourse_markers.aliases import ALIASES
from bediscover_inspect.discourse_markers.dataset import DATASETS
from bediscover_inspect.discourse_markers.prompts import LABELS
from bediscover_inspect.discourse_markers.task import discourse_markers
from bediscover_inspect.evallogs.results import measures_by_group
from bediscover_inspect.labels import parse_label
from bediscover_inspect.metrics import INVALID_ANSWER, confusion
from tests.helpers import answer_with, run_eval, scripted_model


def parse_answer(completion: str, dataset: str) -> tuple[str, bool, bool, tuple[str, ...]]:
    """``(answer, invalid, ambiguous, candidates)`` of one completion, as the scorer reads it."""
    parsed = parse_label(completion, LABELS[dataset], ALIASES[dataset])
    answer = parsed.label if parsed.label is not None else INVALID_ANSWER
    return answer, parsed.invalid, parsed.ambiguous, parsed.candidates


@pytest.mark.parametrize(
    ("completion", "dataset", "answer", "ambiguous"),
    [
        ("Exclusionary", "just-manual", "Exclusionary", False),
        ("exclusionary.", "just-subtitle", "Exclusionary", False),
        ("**Exclusive**", "just-manual", "Exclusionary", False),
        ("Label: TEMPORAL", "just-manual", "Temporal", False),
        ("The function is Emphasis.", "just-subtitle", "Emphatic", False),
        ("Adjectival use of 'just'", "just-manual", "Adjective", False),
        ("<think>It is not Temporal.</think>Unexplanatory", "just-manual", "Unexplanatory", False),
        ("Temporal, not Exclusionary", "just-manual", "Temporal", False),
        ("Temporal or Exclusionary", "just-manual", INVALID_ANSWER, True),
        ("I am not sure.", "just-manual", INVALID_ANSWER, False),
        ("", "just-subtitle", INVALID_ANSWER, False),
        ("Argumentative", "otherwise", "Argumentation", False),
        ("consequence", "otherwise", "Consequence", False),
        ("The answer is: Exception", "otherwise", "Exception", False),
        ("Enumerative", "otherwise", "Enumeration", False),
        # an Otherwise explanation that speaks of arguments names no label
        ("Arg1 is the first argument of the sentence.", "otherwise", INVALID_ANSWER, False),
        # a Just label is not an Otherwise answer, and the reverse
        ("Temporal", "otherwise", INVALID_ANSWER, False),
        ("Consequence", "just-manual", INVALID_ANSWER, False),
    ],
)
def test_parse_answer_cases(completion, dataset, answer, ambiguous):
    parsed, invalid, flagged, _ = parse_answer(completion, dataset)
    assert parsed == answer
    assert invalid == (answer == INVALID_ANSWER)
    assert flagged == ambiguous


def test_aliases_point_into_label_sets():
    for dataset in DATASETS:
        assert set(ALIASES[dataset].values()) <= set(LABELS[dataset])


_VOCABULARY = [w for d in DATASETS for w in (*LABELS[d], *ALIASES[d])] + [
    "just",
    "otherwise",
    "<think>",
    "</think>",
    "Arg1",
    "**",
    "label:",
    "answer",
    "not",
    "\n",
    "—",
    "’",
]
_completions = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(st.sampled_from(_VOCABULARY), st.text(alphabet=string.printable, max_size=12)), max_size=25).map(
        " ".join
    ),
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, database=None)
@given(completion=_completions, dataset=st.sampled_from(DATASETS))
def test_parser_fuzz_never_raises(completion, dataset):
    answer, invalid, ambiguous, candidates = parse_answer(completion, dataset)
    assert answer in (*LABELS[dataset], INVALID_ANSWER)
    assert invalid == (answer == INVALID_ANSWER)
    if not candidates:
        assert invalid
    if ambiguous:  # several labels named and none chosen (labels.py layer 5)
        assert invalid and len(candidates) >= 2
    if not invalid:
        assert answer in candidates


def _values(log, key):
    return measures_by_group(log)[key]


def confusion_matrices(log) -> dict[str, dict[str, dict[str, int]]]:
    """``{dataset: {gold: {predicted: count}}}`` of a log's samples (scikit-learn's matrix, zeros left out)."""
    pairs: dict[str, tuple[list[str], list[str]]] = {}
    for sample in log.samples:
        gold, pred = pairs.setdefault(sample.metadata["dataset"], ([], []))
        gold.append(sample.metadata["gold"])
        pred.append(sample.scores["discourse_marker_scorer"].answer)
    out = {}
    for dataset, (gold, pred) in pairs.items():
        labels, matrix = confusion(gold, pred)
        out[dataset] = {
            g: {p: int(matrix[i, j]) for j, p in enumerate(labels) if matrix[i, j]}
            for i, g in enumerate(labels)
            if matrix[i].any()
        }
    return out


@pytest.mark.slow
def test_gold_answer_run_scores_one_everywhere(tmp_path):
    log = run_eval(
        discourse_markers(),
        solver=answer_with(lambda state: state.target.text),
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success"
    counts = {}
    for sample in log.samples:
        counts[sample.metadata["dataset"]] = counts.get(sample.metadata["dataset"], 0) + 1
    assert counts == {"just-manual": 90, "just-subtitle": 149, "otherwise": 294}
    for key in ("accuracy", "weighted_precision", "weighted_recall", "weighted_f1"):
        assert _values(log, key) == {"just-manual": 1.0, "just-subtitle": 1.0, "otherwise": 1.0, "all": 1.0}
    assert set(_values(log, "invalid").values()) == {0.0}
    matrices = confusion_matrices(log)
    assert matrices["just-subtitle"]["Exclusionary"] == {"Exclusionary": 60}
    assert matrices["otherwise"]["Enumeration"] == {"Enumeration": 36}


# hand-made answers for Just-Manual (ids 0-89, 15 of each label): a label per sample, or junk (invalid)
def _manual_answer(record_id: int) -> str:
    cycle = ["Exclusive", "temporal", "Emphatic", "I cannot tell", "Adjective", "Unelaboratory, maybe Temporal"]
    return cycle[record_id % 6]


def test_scripted_run_metrics_equal_sklearn(tmp_path):
    by_text = {}
    task = discourse_markers(dataset="just-manual")
    for sample in task.dataset:
        by_text[sample.input] = _manual_answer(sample.metadata["record_id"])

    def respond(messages):
        return by_text[messages[-1].text]

    log = run_eval(task, model=scripted_model(respond), display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success" and len(log.samples) == 90
    gold = [s.metadata["gold"] for s in log.samples]
    mapped = {
        "Exclusive": "Exclusionary",
        "temporal": "Temporal",
        "Emphatic": "Emphatic",
        "I cannot tell": INVALID_ANSWER,
        "Adjective": "Adjective",
        "Unelaboratory, maybe Temporal": INVALID_ANSWER,
    }
    pred = [mapped[_manual_answer(s.metadata["record_id"])] for s in log.samples]
    assert [s.scores["discourse_marker_scorer"].answer for s in log.samples] == pred
    precision, recall, f1, _ = precision_recall_fscore_support(gold, pred, average="weighted", zero_division=0)
    assert _values(log, "accuracy")["just-manual"] == pytest.approx(accuracy_score(gold, pred))
    assert _values(log, "weighted_precision")["just-manual"] == pytest.approx(precision)
    assert _values(log, "weighted_recall")["just-manual"] == pytest.approx(recall)
    assert _values(log, "weighted_f1")["just-manual"] == pytest.approx(f1)
    # 15 of 90 answers are junk, 15 hedge between two labels ("Unelaboratory, maybe Temporal": no choice, so
    # invalid and ambiguous)
    assert _values(log, "invalid")["just-manual"] == pytest.approx(30 / 90)
    assert _values(log, "ambiguous")["just-manual"] == pytest.approx(15 / 90)
    # tokens: scripted usage counts whitespace words of each answer
    words = sum(len(_manual_answer(s.metadata["record_id"]).split()) for s in log.samples)
    assert _values(log, "output_tokens")["just-manual"] == pytest.approx(words / 90)
    matrix = confusion_matrices(log)["just-manual"]
    assert sum(matrix[g].get(INVALID_ANSWER, 0) for g in matrix) == 30
    assert sum(sum(row.values()) for row in matrix.values()) == 90
    assert sum(matrix[g].get(g, 0) for g in matrix) == round(accuracy_score(gold, pred) * 90)


@pytest.mark.slow
def test_mockllm_run_scores_exactly_90_149_294_samples(tmp_path):
    log = run_eval(
        discourse_markers(),
        model=scripted_model(lambda messages: "Exclusionary"),
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success" and log.results.completed_samples == 533
    counts = {}
    for sample in log.samples:
        assert "discourse_marker_scorer" in sample.scores
        counts[sample.metadata["dataset"]] = counts.get(sample.metadata["dataset"], 0) + 1
    assert counts == {"just-manual": 90, "just-subtitle": 149, "otherwise": 294}
    # a constant "Exclusionary" is the majority baseline of Just (15/90, 60/149) and invalid on Otherwise
    assert _values(log, "accuracy") == pytest.approx(
        {"just-manual": 15 / 90, "just-subtitle": 60 / 149, "otherwise": 0.0, "all": 75 / 533}
    )
    assert _values(log, "invalid") == pytest.approx(
        {"just-manual": 0.0, "just-subtitle": 0.0, "otherwise": 1.0, "all": 294 / 533}
    )


def test_reasoning_content_is_never_read(tmp_path):
    from inspect_ai.model import ChatMessageAssistant, ContentReasoning, ContentText, ModelOutput, ModelUsage
    from inspect_ai.solver import solver

    @solver
    def think_then_answer():
        async def solve(state, generate):
            message = ChatMessageAssistant(
                content=[ContentReasoning(reasoning="It must be Temporal."), ContentText(text="Emphatic")]
            )
            state.output = ModelOutput.from_message(message)
            state.output.usage = ModelUsage(input_tokens=5, output_tokens=9, total_tokens=14, reasoning_tokens=6)
            return state

        return solve

    log = run_eval(
        discourse_markers(dataset="just-manual"),
        solver=think_then_answer(),
        sample_id=["just-manual_000"],
        display="none",
        log_dir=str(tmp_path),
    )[0]
    score = log.samples[0].scores["discourse_marker_scorer"]
    assert score.answer == "Emphatic" and log.samples[0].metadata["gold"] == "Exclusionary"
    assert score.value["accuracy"] == 0.0 and score.value["invalid"] == 0.0
    assert score.value["output_tokens"] == 9.0 and score.value["reasoning_tokens"] == 6.0


@pytest.mark.parametrize(("reasoning", "preset"), [(False, (2048, 0.7, 0.8)), (True, (4096, 0.6, 0.95))])
def test_task_uses_table7_presets(reasoning, preset):
    config = discourse_markers(dataset="otherwise", reasoning=reasoning, presets="qwen3").config
    assert (config.max_tokens, config.temperature, config.top_p) == preset
