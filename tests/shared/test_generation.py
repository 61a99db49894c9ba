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


def test_system_prompt_inserted_once_per_sample_by_dataset(tmp_path):
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    from bediscover_inspect.generation import generate_with_thinking
    from tests.helpers import scripted_model

    samples = [
        Sample(id="a", input="question a", metadata={"dataset": "x"}),
        Sample(id="b", input="question b", metadata={"dataset": "y"}),
        Sample(id="c", input=[ChatMessageSystem(content="own"), ChatMessageUser(content="q")], metadata={"dataset": "x"}),
    ]
    task = Task(dataset=samples, solver=generate_with_thinking(False, {"x": "SYS X", "y": "SYS Y"}))
    [log] = eval(task, model=scripted_model(lambda messages: "ok"), display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    first = {s.id: [(m.role, m.text) for m in s.messages[:2]] for s in log.samples}
    assert first == {"a": [("system", "SYS X"), ("user", "question a")],
                     "b": [("system", "SYS Y"), ("user", "question b")],
                     "c": [("system", "own"), ("user", "q")]}
    bad = Task(dataset=[Sample(id="d", input="q", metadata={"dataset": "z"})],
               solver=generate_with_thinking(False, {"x": "SYS X"}))
    [log] = eval(bad, model=scripted_model(["ok"]), display="none", log_dir=str(tmp_path))
    assert log.status == "error" and "'z'" in log.error.message
