"""Why an answer could not be used: the reply's cause (cut off, reasoning only), the reader's rule for a reply cut off
at the budget in every task, and the confusing cases (a stop right after a complete answer, reasoning and content
both present, a provider that reports no stop reason). Completions written here in the shapes reasoning models
produce."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from inspect_ai.model import ContentReasoning, ContentText, ModelName, ModelOutput, ModelUsage
from inspect_ai.scorer import Score, Target
from inspect_ai.solver import TaskState

from bediscover_inspect.causes import REASONING_STORE_KEY, cause_of, read_reply
from bediscover_inspect.dialogue_parsing.relations import read_turn
from bediscover_inspect.dialogue_parsing.scorer import dialogue_parsing_scorer
from bediscover_inspect.dialogue_parsing.solver import TURNS_STORE_KEY, turn_record
from bediscover_inspect.discourse_markers.scorer import discourse_marker_scorer
from bediscover_inspect.discourse_relations.scorer import discourse_relation_scorer
from bediscover_inspect.sentence_ordering.scorer import sentence_ordering_scorer
from bediscover_inspect.temporal_reasoning.scorer import relation_scorer, tot_scorer


def reply(content: str | list[Any], stop: str = "stop", tokens: int | None = 40) -> ModelOutput:
    """A generation with ``content``, Inspect's ``stop`` reason and ``tokens`` output tokens (``None``: no usage)."""
    output = ModelOutput.from_content(model="mockllm", content=content, stop_reason=stop)  # type: ignore[arg-type]
    if tokens is not None:
        output.usage = ModelUsage(input_tokens=5, output_tokens=tokens, total_tokens=tokens + 5)
    return output


def only_reasoning(text: str, stop: str = "stop") -> ModelOutput:
    """A vLLM-style reply whose text is all in ``reasoning_content`` (Inspect: a reasoning block, empty text)."""
    return reply([ContentReasoning(reasoning=text), ContentText(text="")], stop)


def score(scorer: Any, output: ModelOutput, metadata: dict[str, Any], reasoning: bool = False) -> Score:
    state = TaskState(ModelName("mockllm/model"), "s", 1, "q", [], output=output, metadata=metadata)
    state.store.set(REASONING_STORE_KEY, reasoning)
    return asyncio.run(scorer(state, Target("")))


# --- the reply --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "reasoning", "cut_off", "reasoning_only", "unfinished"),
    [
        (reply("BEFORE", "stop"), False, False, False, False),
        (reply("The first event", "max_tokens"), False, True, False, False),
        (reply("The first event", "model_length"), False, True, False, False),
        # reasoning on, no closing tag: the budget ended in the thinking (a prompt-opened span has no tag)
        (reply("Okay, the first event happens", "max_tokens"), True, True, False, True),
        (reply("<think>The first event happens", "max_tokens"), False, True, False, True),
        (reply("</think>\n\nAnswer: BEF", "max_tokens"), True, True, False, False),
        # no stop reason: the budget reached, or an unclosed <think>, is a cut-off; else a finished reply
        (reply("The first event", "unknown", tokens=256), False, True, False, False),
        (reply("<think>The first event", "unknown", tokens=12), True, True, False, True),
        (reply("The first event", "unknown", tokens=255), False, False, False, False),
        (reply("BEFORE", "unknown", tokens=None), False, False, False, False),
        # text only in the reasoning: a reasoning block with empty text, or a closed span with nothing after it
        (only_reasoning("e1 clearly precedes e2, so BEFORE"), True, False, True, False),
        (reply("<think>e1 precedes e2</think>\n"), True, False, True, False),
        # cut off inside the reasoning: cut off, not reasoning-only (raise the budget, not fix the parser)
        (only_reasoning("e1 precedes", "max_tokens"), True, True, False, True),
        # reasoning and content both present: the content is the answer
        (reply([ContentReasoning(reasoning="AFTER?"), ContentText(text="BEFORE")]), True, False, False, False),
        (
            reply([ContentReasoning(reasoning="x"), ContentText(text="Answer: BEFORE")], "max_tokens"),
            True,
            True,
            False,
            False,
        ),
    ],
)
def test_the_reply_says_whether_it_was_cut_off_or_only_reasoning(
    output, reasoning, cut_off, reasoning_only, unfinished
):
    facts = read_reply(output, reasoning, max_tokens=256)
    assert (facts.cut_off, facts.reasoning_only, facts.unfinished) == (cut_off, reasoning_only, unfinished)
    assert facts.text == ("" if unfinished else output.completion)


def test_the_cause_is_the_first_that_applies():
    cut = read_reply(reply("x", "max_tokens"))
    only = read_reply(only_reasoning("x"))
    plain = read_reply(reply("x"))
    assert cause_of(cut, invalid=True, echo=True, ambiguous=True) == "cut_off"
    assert cause_of(only, invalid=True) == "reasoning_only"
    assert cause_of(plain, invalid=True, echo=True, ambiguous=True) == "echo"
    assert cause_of(plain, invalid=True, markup=True, ambiguous=True) == "markup"
    assert cause_of(plain, invalid=True, ambiguous=True) == "ambiguous"
    assert cause_of(plain, invalid=True) == "unreadable"
    assert cause_of(cut, invalid=False) is None


# --- the reader's rule in every task ----------------------------------------------------------------------------

TBD = {"dataset": "tbd", "gold": "BEFORE"}
JUST = {"dataset": "just-manual", "gold": "Temporal"}
DISRPT = {"dataset": "eng.rst.gum", "gold": "contrast"}

CUT_LABEL_ANSWERS = [
    # mid-sentence inside <think>
    (relation_scorer, TBD, "<think>e1 (left) happens and then e2, so the relation looks like BEFORE, but the", False),
    # a prompt-opened thinking span (no tag at all) cut off while naming a label, reasoning on
    (relation_scorer, TBD, "Okay. The relation is BEFORE. Wait, e2 could also be", True),
    # after </think>, a half-written answer that names the label only in passing
    (
        relation_scorer,
        TBD,
        "<think>Thinking done.</think>\n\nLooking at both events, e1 precedes e2 (BEFORE) and",
        True,
    ),
    # a list of candidate labels in progress
    (discourse_marker_scorer, JUST, "Candidates:\n1. **Temporal**\n2. **Exclus", False),
    (
        discourse_marker_scorer,
        JUST,
        "Let me weigh the options. Temporal fits since the adverb marks time, while",
        False,
    ),
    # the answer's last sentence read as a conclusion would be the unfinished one
    (discourse_relation_scorer, DISRPT, "</think>The second unit sets up a contrast", True),
]


@pytest.mark.parametrize(("scorer", "metadata", "completion", "reasoning"), CUT_LABEL_ANSWERS)
def test_a_cut_off_label_answer_is_not_read_from_unfinished_text(scorer, metadata, completion, reasoning):
    result = score(scorer(), reply(completion, "max_tokens", tokens=256), metadata, reasoning)
    assert result.answer == "<invalid>" and result.value["invalid"] == 1.0 and result.value["accuracy"] == 0.0
    assert result.value["cut_off"] == 1.0 and result.value["reasoning_only"] == 0.0
    assert result.metadata["cause"] == "cut_off" and result.metadata["stop_reason"] == "max_tokens"
    assert result.explanation.startswith("cut off at 256 tokens (stop reason max_tokens)")


@pytest.mark.parametrize(
    ("scorer", "metadata", "completion", "label"),
    [
        # a stop at the budget right after a complete answer
        (relation_scorer, TBD, "BEFORE", "BEFORE"),
        (relation_scorer, TBD, "<think>e1 first.</think>\nAnswer: BEFORE", "BEFORE"),
        # a stated answer, then the explanation cut off
        (discourse_marker_scorer, JUST, "Answer: Temporal\n\nThe adverb 'just' here marks that the", "Temporal"),
        (discourse_relation_scorer, DISRPT, "contrast\n\nThe second unit opposes", "contrast"),
        (discourse_relation_scorer, DISRPT, "So the relation is contrast. The reason is that", "contrast"),
    ],
)
def test_a_cut_off_reply_counts_an_answer_it_stated(scorer, metadata, completion, label):
    result = score(scorer(), reply(completion, "max_tokens"), metadata)
    assert result.answer == label and result.value["accuracy"] == 1.0 and result.value["cut_off"] == 1.0
    assert result.metadata["cause"] is None and not result.explanation.startswith("cut off")


def test_the_same_words_finished_are_read_as_before():
    """Finished, a single label named is an answer (layer 4); cut off at the budget it is not."""
    text = "Let me weigh the options. Temporal fits since the adverb marks time."
    assert score(discourse_marker_scorer(), reply(text), JUST).answer == "Temporal"
    assert score(discourse_marker_scorer(), reply(text, "max_tokens"), JUST).answer == "<invalid>"


def test_a_reasoning_only_reply_is_invalid_and_explained():
    result = score(relation_scorer(), only_reasoning("e1 precedes e2.\nAnswer: BEFORE"), TBD, reasoning=True)
    assert result.answer == "<invalid>" and result.value["reasoning_only"] == 1.0 and result.value["cut_off"] == 0.0
    assert result.metadata["cause"] == "reasoning_only"
    assert result.explanation.startswith("text only in the reasoning: the reply's content is empty")


TOT = {"dataset": "tot-arithmetic", "gold": "{'answer': '352 BC'}", "category": "as"}


@pytest.mark.parametrize(
    ("completion", "reasoning", "answer"),
    [
        ("<think>352 + 0 BC, so the answer dict is {'answer': '352 BC'} unless", True, "<invalid>"),
        ("First, 400 BC minus 48 years gives {'answer': '352 BC'}. But I must check whether", True, "<invalid>"),
        ('</think>\n{"answer": "352', True, "<invalid>"),
        # a dict begun in passing and never closed: its key-value fragment is no stated answer
        ('Weighing the options, {"answer": 352 BC looks right, but before', False, "<invalid>"),
        ('</think>\n{"answer": "352 BC"}\n\nExplanation: counting back from', True, "{'answer': '352 BC'}"),
    ],
)
def test_tot_reads_only_a_complete_dict_after_the_reasoning(completion, reasoning, answer):
    result = score(tot_scorer(), reply(completion, "max_tokens"), TOT, reasoning)
    assert result.answer == answer and result.value["cut_off"] == 1.0
    assert result.metadata["cause"] == (None if answer != "<invalid>" else "cut_off")


ORDER = {"gold_order": [2, 0, 1, 3], "canonical_ids": [0, 1, 2, 3]}


@pytest.mark.parametrize(
    ("completion", "answer"),
    [
        ("<think>Sentence <s 3> opens, then <s 1>", "<invalid>"),
        ("</think>\n<s 3> <s 1> <s", "<invalid>"),  # an order in progress: two of four sentences placed
        ("</think>\n<s 3> <s 1> <s 2> <s 4>\n\nThe first sentence introduces", "<s 3> <s 1> <s 2> <s 4>"),
    ],
)
def test_sentence_ordering_counts_only_a_complete_cut_off_order(completion, answer):
    result = score(sentence_ordering_scorer(), reply(completion, "max_tokens"), ORDER, reasoning=True)
    assert result.answer == answer and result.value["cut_off"] == 1.0
    assert result.value["invalid"] == float(answer == "<invalid>")
    if answer == "<invalid>":
        assert result.metadata["cause"] == "cut_off" and result.value["pmr"] == 0.0
    else:
        assert result.value["pmr"] == 1.0


def test_a_finished_short_order_is_still_read():
    result = score(sentence_ordering_scorer(), reply("<s 3> <s 1>"), ORDER)
    assert result.answer == "<s 3> <s 1>" and result.value["lumr"] == 1.0 and result.metadata["cause"] is None


STAC_TURN = {"dataset": "stac", "turn": 3, "n_edus": 5, "gold": "QA_PAIR(2,3)"}


@pytest.mark.parametrize(
    ("completion", "reasoning", "predicted"),
    [
        ("<think>Turn 3 answers 2, so QA_PAIR(2,3) seems right, though", True, ""),
        # an analysis naming relations on its way (the prose rule) is no answer when cut off
        ("Turn 3 could be QA_PAIR(2,3) since it answers, or COMMENT(1,3) if", False, ""),
        ("</think>\nStructure: QA_PAIR(2,3)\n\nBecause the speaker", True, "QA_PAIR(2,3)"),
    ],
)
def test_dialogue_turn_cut_off(completion, reasoning, predicted):
    result = score(dialogue_parsing_scorer(), reply(completion, "max_tokens"), STAC_TURN, reasoning)
    assert result.value["cut_off"] == 1.0 and result.metadata["turns"][0]["predicted"] == predicted
    assert result.metadata["cause"] == (None if predicted else "cut_off")
    assert result.value["link_tp"] == float(bool(predicted))


def test_incremental_dialogue_counts_the_causes_per_turn_and_sums_them():
    edus = ["0. A: hi", "1. B: who has wood?", "2. A: I do", "3. B: great"]
    turns = [
        {"turn": j, "doc_id": "d", "gold": gold}
        for j, gold in ((1, "COMMENT(0,1)"), (2, "QA_PAIR(1,2)"), (3, "ACKNOWLEDGEMENT(2,3)"))
    ]
    outputs = {
        1: reply("COMMENT(0,1)"),
        2: reply("<think>2 answers 1, so QA_PAIR(1,2) or", "max_tokens", tokens=64),
        3: only_reasoning("ACKNOWLEDGEMENT(2,3)"),
    }
    records = []
    for j, output in outputs.items():
        facts = read_reply(output, True, 64)
        parsed = read_turn(
            facts.text, f"prompt {j}", j, ["COMMENT", "QA_PAIR", "ACKNOWLEDGEMENT"], len(edus), facts.cut_off
        )
        records.append(turn_record(j, f"prompt {j}", output, parsed, facts))
    metadata = {"dataset": "stac", "edus": edus, "turns": turns}
    state = TaskState(ModelName("mockllm/model"), "s", 1, "q", [], output=outputs[3], metadata=metadata)
    state.store.set(TURNS_STORE_KEY, records)
    result = asyncio.run(dialogue_parsing_scorer()(state, Target("")))
    assert result.value["cut_off"] == pytest.approx(1 / 3) and result.value["reasoning_only"] == pytest.approx(1 / 3)
    assert result.metadata["cut_off_turns"] == 1 and result.metadata["reasoning_only_turns"] == 1
    assert result.metadata["max_tokens"] == 64
    assert [t["cause"] for t in result.metadata["turns"]] == [None, "cut_off", "reasoning_only"]
    assert "| 2 | QA_PAIR(1,2) | — | cut off at 64 tokens | yes |" in result.explanation
    assert "| 3 | ACKNOWLEDGEMENT(2,3) | — | text only in the reasoning | yes |" in result.explanation
    assert result.value["link_tp"] == 1.0


def test_the_report_notes_a_budget_bound_cell_and_shows_the_budget():
    import pandas as pd

    from bediscover_inspect.report.build import budgets_sent, cut_off_notes

    cells = pd.DataFrame(
        [
            {"task": "t", "group_key": "all", "group": "all", "model": "m", "reasoning": "on", "variant": ""}
            | {"measure": "cut_off_rate", "mean": mean}
            for mean in (33.3, 5.0)  # percent, as the report's cells hold rates
        ]
    )
    runs = pd.DataFrame([{"task": "t", "model": "m", "reasoning": "on", "generate": {"max_tokens": 256}}])
    cells["max_tokens"] = budgets_sent(cells, runs)
    assert list(cells["max_tokens"]) == ["256", "256"]
    [note] = cut_off_notes(cells)  # 5.0 % is not above 5 %
    assert note.startswith(
        "budget-bound: t [all], model m, reasoning on: 33.3 % of the samples stopped at max_tokens=256"
    )
