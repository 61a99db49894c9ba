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
    assert again[0] is not messages[0] and {again[0].id, again[1].id}.isdisjoint({messages[0].id, messages[1].id})
    again[0].content = "edited"
    assert messages[0].text == "S" and prompt_messages("S", "W")[0].text == "S"  # editing one input changes no other
