"""Markup (one rule for every task: an HTML closing tag or a control character makes the answer invalid) and
sentence orders stated in an analysis that never commits: the forms of ``reading_forms`` in the readers and
through the real tasks (scripted mockllm on the mirrored data)."""

from __future__ import annotations

import pytest

from bediscover_inspect.dialogue_parsing.relations import Relation, parse_answer
from bediscover_inspect.discourse_markers.prompts import JUST_LABELS
from bediscover_inspect.labels import has_markup, parse_label
from bediscover_inspect.sentence_ordering.parsing import parse_order
from bediscover_inspect.temporal_reasoning.prompts import RELATION_LABELS
from bediscover_inspect.temporal_reasoning.tot_answers import parse_tot_answer
from tests.shared.reading_forms import HEDGED_ORDER_FORMS, MARKUP_FORMS
from tests.shared.test_answer_extraction_e2e import LABEL_TASKS, _run, _state
from tests.shared.test_reading_forms_e2e import check_label_forms

pytestmark = pytest.mark.filterwarnings("ignore:.*differs from the pinned")


def test_markup_is_html_closing_tags_and_control_characters_not_the_tasks_own_tags():
    assert has_markup("<b>Answer:</b> BEFORE") and has_markup("x</P >") and has_markup("</h2>") and has_markup("\x1b")
    assert not has_markup("<EVENT e1>left</EVENT>") and not has_markup("<s 3> It rained. </s 3>")
    assert not has_markup("<answer>BEFORE</answer>") and not has_markup("BEFORE</s>") and not has_markup("a\tb\r\n")
    assert not has_markup("</bold>") and not has_markup("a < b > c")


@pytest.mark.parametrize("labels", [JUST_LABELS, RELATION_LABELS], ids=["Just", "TBD"])
@pytest.mark.parametrize("form", MARKUP_FORMS, ids=[f.name for f in MARKUP_FORMS])
def test_label_markup_forms(form, labels):
    gold, other = labels[1], labels[0]
    parsed = parse_label(form.write(gold, other, labels), labels)
    if form.expect == "gold":
        assert parsed.label == gold and not parsed.markup
    else:
        assert parsed.invalid and parsed.markup


@pytest.mark.parametrize(
    ("text", "markup"),
    [
        ("<b>QA_PAIR(3,5)</b>", True),
        ("<p>Structure: QA_PAIR(3,5)</p>", True),
        ("\x00QA_PAIR(3,5)\x1b[0m", True),
        ("<answer>QA_PAIR(3,5)</answer>", False),
    ],
)
def test_dialogue_relations_in_markup_are_invalid(text, markup):
    parsed = parse_answer(text, 5, ["QA_PAIR", "COMMENT"], 10)
    assert parsed.markup == markup and parsed.read == 1
    assert parsed.valid == (() if markup else (Relation(3, 5, "QA_PAIR"),))
    assert parsed.invalid == (("QA_PAIR(3,5)",) if markup else ())


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('<p>{"answer": "352 BC"}</p>', None),
        ('\x00{"answer": "352 BC"}', None),
        ('<answer>{"answer": "352 BC"}</answer>', {"answer": "352 BC"}),
    ],
)
def test_tot_answer_with_markup_anywhere_is_invalid(text, value):
    parsed = parse_tot_answer(text, ["answer"])
    assert parsed.value == value and ("markup" in parsed.notes) == (value is None)


@pytest.mark.parametrize(("name", "write", "expect"), HEDGED_ORDER_FORMS, ids=[f[0] for f in HEDGED_ORDER_FORMS])
def test_hedged_order_forms(name, write, expect):
    gold = [3, 1, 4, 2]
    parsed = parse_order(write(gold))
    assert parsed.ids == (tuple(k - 1 for k in gold) if expect == "gold" else ())


def test_a_tentative_analysis_before_a_marked_order_keeps_the_marked_order():
    text = "Perhaps <s 2> opens it. Final answer: <s 1> <s 2> <s 3>"
    assert parse_order(text).ids == (0, 1, 2)
    assert parse_order("<s 2> might open it. <s 1> comes next.").ids == ()  # last sentence: one marker only


# --- through the real tasks -----------------------------------------------------------------------------


@pytest.mark.parametrize(("make_task", "dataset", "labels", "gold_of"), LABEL_TASKS)
def test_every_markup_form_through_the_label_tasks(tmp_path, make_task, dataset, labels, gold_of):
    for form, score in check_label_forms(tmp_path, make_task(), labels, gold_of, MARKUP_FORMS):
        assert score.metadata["markup"] == (form.expect == "invalid"), form.name


def test_every_hedged_order_form_through_the_ordering_task(tmp_path):
    from bediscover_inspect.sentence_ordering.task import sentence_ordering

    given: dict[object, int] = {}

    def respond(messages):
        state = _state()
        _, write, _ = HEDGED_ORDER_FORMS[given.setdefault(state.sample_id, len(given))]
        return write([i + 1 for i in state.metadata["gold_order"]])

    log = _run(tmp_path, sentence_ordering(dataset="nips-abs"), respond, limit=len(HEDGED_ORDER_FORMS))
    assert len(given) == len(HEDGED_ORDER_FORMS)
    for sample in log.samples:
        name, _, expect = HEDGED_ORDER_FORMS[given[sample.id]]
        value = sample.scores["sentence_ordering_scorer"].value
        expected = (1.0, 0.0) if expect == "gold" else (0.0, 1.0)
        assert (value["pmr"], value["invalid"]) == expected, name


def test_gold_relations_in_markup_through_the_dialogue_task_are_invalid(tmp_path):
    from bediscover_inspect.dialogue_parsing.task import dialogue_parsing

    def respond(messages):
        gold = _state().metadata["gold"]
        return f"<p><b>Structure:</b> {gold}</p>" if gold else "<p>none</p>"

    log = _run(tmp_path, dialogue_parsing(dataset="stac", mode="single-turn"), respond, limit=4)
    read = 0
    for sample in log.samples:
        value = sample.scores["dialogue_parsing_scorer"].value
        assert value["link_pred"] == 0 and value["relations_invalid"] == value["relations_read"]
        read += value["relations_read"]
    assert read >= 4  # every sample's gold has at least one relation, all read and all invalid
