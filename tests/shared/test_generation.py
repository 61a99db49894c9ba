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
