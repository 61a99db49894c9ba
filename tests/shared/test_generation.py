"""Table 7 presets, the reasoning flag and the thinking switch (generation.py)."""

from __future__ import annotations

import pytest
from inspect_ai.model import GenerateConfig

from bediscover_inspect.generation import generation_config, reasoning_flag, thinking_kwargs


def test_presets_of_table_7():
    off, on = generation_config(False), generation_config(True)
    assert (off.max_tokens, off.temperature, off.top_p) == (2048, 0.7, 0.8)
    assert (on.max_tokens, on.temperature, on.top_p) == (4096, 0.6, 0.95)
    assert generation_config("off").max_tokens == 2048 and generation_config("true").max_tokens == 4096


@pytest.mark.parametrize("bad", ["maybe", "", 2, None, 0.5])
def test_reasoning_flag_rejects_non_booleans(bad):
    with pytest.raises(ValueError, match="reasoning must be true or false"):
        reasoning_flag(bad)


def test_thinking_switch_per_provider():
    assert thinking_kwargs("openai", True) == {}
    assert thinking_kwargs("vllm", "false") == {"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}
    user = GenerateConfig(extra_body={"chat_template_kwargs": {"enable_thinking": True}, "top_k": 20})
    # the user's own --extra-body wins; other fields are kept
    assert thinking_kwargs("gguf", False, user) == {
        "extra_body": {"chat_template_kwargs": {"enable_thinking": True}, "top_k": 20}}


def test_every_task_starts_its_samples_with_the_papers_system_prompt():
    """The system prompt is part of each sample's input (not inserted while the sample runs)."""
    from bediscover_inspect.discourse_relations.prompts import SYSTEM_PROMPT as DR_SYSTEM
    from bediscover_inspect.discourse_relations.task import discourse_relations
    from bediscover_inspect.sentence_ordering.prompts import SYSTEM_PROMPT as SO_SYSTEM
    from bediscover_inspect.sentence_ordering.task import sentence_ordering
    from bediscover_inspect.temporal_reasoning.prompts import RELATION_SYSTEM_PROMPT, TOT_SYSTEM_PROMPT
    from bediscover_inspect.temporal_reasoning.task import temporal_reasoning

    expected = {"tbd": RELATION_SYSTEM_PROMPT, "tdd-man": RELATION_SYSTEM_PROMPT, "tot-arithmetic": TOT_SYSTEM_PROMPT}
    tr = temporal_reasoning()
    firsts = {}
    for sample in tr.dataset:
        firsts.setdefault(sample.metadata["dataset"], set()).add((sample.input[0].role, sample.input[0].text))
        assert [m.role for m in sample.input] == ["system", "user"]
    assert firsts == {name: {("system", text)} for name, text in expected.items()}
    for built, system in ((discourse_relations(corpora="eng.dep.scidtb"), DR_SYSTEM),
                          (sentence_ordering(datasets="nips-abs"), SO_SYSTEM)):
        assert {(s.input[0].role, s.input[0].text, s.input[1].role) for s in built.dataset} == {("system", system, "user")}


def test_prompt_messages_are_system_then_user():
    from bediscover_inspect.generation import prompt_messages

    messages = prompt_messages("S", "U")
    assert [(m.role, m.text) for m in messages] == [("system", "S"), ("user", "U")]
    again = prompt_messages("S", "V")
    assert again[0] is messages[0] and again[1].id != messages[1].id  # one system message, a user message each


def test_a_shared_system_message_is_copied_into_each_samples_state(tmp_path):
    """Inspect deep-copies the input: a solver changing its system message changes no other sample."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import solver

    from bediscover_inspect.generation import prompt_messages
    from tests.helpers import scripted_model

    @solver
    def edit_system():
        async def solve(state, generate):
            state.messages[0].content = f"changed by {state.sample_id}"
            return await generate(state)

        return solve

    samples = [Sample(id=i, input=prompt_messages("shared", f"q{i}")) for i in (1, 2)]
    [log] = eval(Task(dataset=samples, solver=edit_system()), model=scripted_model(lambda m: "ok"),
                 display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert {s.id: s.messages[0].text for s in log.samples} == {1: "changed by 1", 2: "changed by 2"}
    assert samples[0].input[0].text == "shared" and prompt_messages("shared", "x")[0].text == "shared"
