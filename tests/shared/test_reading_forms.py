"""The answer forms of ``reading_forms`` in the order, ToT and dialogue readers, and the prompt echo rule."""

from __future__ import annotations

import pytest

from bediscover_inspect.dialogue_parsing.relations import Relation, parse_answer
from bediscover_inspect.labels import copies_prompt
from bediscover_inspect.sentence_ordering.parsing import echoes_sentences, parse_order
from bediscover_inspect.sentence_ordering.prompts import user_prompt
from bediscover_inspect.temporal_reasoning.tot_answers import parse_tot_answer
from tests.shared.reading_forms import ORDER_FORMS


@pytest.mark.parametrize(("name", "write", "expect"), ORDER_FORMS, ids=[f[0] for f in ORDER_FORMS])
def test_order_forms(name, write, expect):
    gold = [3, 1, 4, 2]
    parsed = parse_order(write(gold))
    assert parsed.ids == (tuple(k - 1 for k in gold) if expect == "gold" else ())


def test_tot_few_shot_continuation_reads_the_first_answer():
    text = '{"answer": "352 BC"}\n\nQuestion: When did the second war end?\n{"answer": "1990"}'
    assert parse_tot_answer(text, ["answer"]).value == {"answer": "352 BC"}


@pytest.mark.parametrize(
    "text",
    [
        "QA_PAIR(3,5)\n\nQuestion: which relation attaches turn 6?\nAnswer: COMMENT(5,6)",
        "COMMENT(4,5) is possible, but the question stays open. So, the new turn attaches as QA_PAIR(3,5).",
        "Options: QA_PAIR, COMMENT\nA: QA_PAIR(3,5)",
    ],
    ids=["few-shot continuation", "conclusion after reasoning", "answer line after options"],
)
def test_dialogue_forms(text):
    assert parse_answer(text, 5, ["QA_PAIR", "COMMENT"], 10).valid == (Relation(3, 5, "QA_PAIR"),)


SENTENCES = ["The cat sat on the warm mat all day.", "Then it slept until the evening came.", "Nobody woke it up."]


def test_an_echo_of_the_tagged_sentences_is_not_an_identity_order():
    prompt = user_prompt(SENTENCES)
    parsed = parse_order(prompt)
    assert parsed.ids == (0, 1, 2) and echoes_sentences(prompt, parsed.ids, prompt)
    no_closing_tags = "\n".join(f"<s {i}> {s}" for i, s in enumerate(SENTENCES, start=1))
    assert echoes_sentences(no_closing_tags, parse_order(no_closing_tags).ids, prompt)
    assert not echoes_sentences("<s 1> <s 2> <s 3>", (0, 1, 2), prompt)  # an identity order without the text
    reordered = "\n".join(f"<s {i}> {SENTENCES[i - 1]}" for i in (2, 1, 3))
    assert not echoes_sentences(reordered, parse_order(reordered).ids, prompt)


def test_copies_prompt_needs_half_of_the_long_lines():
    prompt = "Given the document:\nA long first line of the document.\nA second long line of it here.\nQ: short?"
    assert copies_prompt("A long first line of the  document.\nA second long line of it here.", prompt)
    assert copies_prompt("A long first line of the document.", prompt)  # one of two long lines: half
    assert not copies_prompt("Answer: BEFORE", prompt) and not copies_prompt("anything", "short\nlines")
