"""The answer forms of ``reading_forms`` through the real tasks (scripted mockllm on the mirrored data): each
sample gets one form, and each is read as a careful reader reads it (the gold label, or invalid and counted)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from inspect_ai.scorer import Score

from tests.shared.reading_forms import LABEL_FORMS, Form
from tests.shared.test_answer_extraction_e2e import LABEL_TASKS, _other, _run, _state

pytestmark = pytest.mark.filterwarnings("ignore:.*differs from the pinned")


def check_label_forms(tmp_path, task, labels, gold_of, forms: Sequence[Form]) -> list[tuple[Form, Score]]:
    """Run ``task`` with one form per sample; assert each is read as its ``expect`` says; the (form, score) pairs."""
    given: dict[object, int] = {}

    def respond(messages):
        state = _state()
        form = forms[given.setdefault(state.sample_id, len(given))]
        gold = gold_of(state)
        return form.write(gold, _other(labels, gold), labels)

    log = _run(tmp_path, task, respond, limit=len(forms))
    assert len(given) == len(forms)
    read = []
    for sample in log.samples:
        form = forms[given[sample.id]]
        [score] = [s for s in sample.scores.values() if s is not None and s.metadata]
        expected = (1.0, 0.0) if form.expect == "gold" else (0.0, 1.0)
        assert (score.value["accuracy"], score.value["invalid"]) == expected, (form.name, score.answer)
        read.append((form, score))
    return read


@pytest.mark.parametrize(("make_task", "dataset", "labels", "gold_of"), LABEL_TASKS)
def test_every_label_form_is_read_as_a_careful_reader_reads_it(tmp_path, make_task, dataset, labels, gold_of):
    check_label_forms(tmp_path, make_task(), labels, gold_of, LABEL_FORMS)


def test_sentence_ordering_echo_of_the_prompt_is_invalid_and_counted(tmp_path):
    from bediscover_inspect.evallogs.results import measures_by_group
    from bediscover_inspect.sentence_ordering.task import sentence_ordering

    log = _run(tmp_path, sentence_ordering(dataset="nips-abs"), lambda messages: messages[-1].text, limit=4)
    metrics = measures_by_group(log)
    assert metrics["echo"]["nips-abs"] == 1.0 and metrics["invalid"]["nips-abs"] == 1.0
    assert metrics["pmr"]["nips-abs"] == 0.0 and metrics["acc"]["nips-abs"] == 0.0


def test_tot_answer_buried_in_markup_is_invalid_and_a_prompt_copy_is_an_echo(tmp_path):
    from bediscover_inspect.temporal_reasoning.task import temporal_reasoning

    given: dict[object, int] = {}

    def respond(messages):
        index = given.setdefault(_state().sample_id, len(given))
        return "<div><p>Answer: BEFORE</p></div>" if index % 2 == 0 else messages[-1].text

    log = _run(tmp_path, temporal_reasoning(dataset="tot-arithmetic"), respond, limit=4)
    for sample in log.samples:
        score = sample.scores["tot_scorer"]
        assert score.value["invalid"] == 1.0 and score.value["accuracy"] == 0.0
        assert score.value["echo"] == float(given[sample.id] % 2 == 1)
