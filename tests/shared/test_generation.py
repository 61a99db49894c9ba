"""Table 7 presets, the reasoning flag (presets.py), the thinking switch (thinking.py) and the system prompt
(messages.py)."""

from __future__ import annotations

import contextvars

import pytest
from inspect_ai.model import GenerateConfig

from bediscover_inspect.evallogs.scores import _reasoning_of
from bediscover_inspect.presets import (
    FAMILIES,
    PresetWarning,
    family_preset,
    model_family,
    reasoning_flag,
    task_generation,
)
from bediscover_inspect.report.paper import table7_setting
from bediscover_inspect.report.setting import generation_differences
from bediscover_inspect.tasks import TASK_NAMES
from bediscover_inspect.thinking import thinking_kwargs


def test_qwen3_presets_of_table_7():
    off = task_generation("discourse_markers", False, "qwen3").config
    on = task_generation("discourse_markers", "true", "Qwen3").config
    assert (off.max_tokens, off.temperature, off.top_p) == (2048, 0.7, 0.8)
    assert (on.max_tokens, on.temperature, on.top_p) == (4096, 0.6, 0.95)


@pytest.mark.parametrize(
    ("model", "effort", "family"),
    [
        ("vllm/Qwen/Qwen3-8B", None, "qwen3"),
        ("vllm/Qwen/Qwen3-8B-AWQ", None, "qwen3"),
        ("gguf/./models/qwen3-8b-q4_k_m.gguf", None, "qwen3"),
        ("ollama/qwen3:0.6b", None, "qwen3"),
        ("hf/Qwen/Qwen2.5-7B-Instruct", None, "other"),
        ("vllm/Qwen/Qwen3.5-9B", None, "other"),
        ("together/deepseek-ai/DeepSeek-R1-0528", None, "deepseek-r1"),
        ("openai-api/deepseek/deepseek-reasoner", None, "deepseek-r1"),
        ("vllm/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", None, "deepseek-r1-distill"),
        ("vllm/deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", None, "deepseek-r1-distill"),
        ("openai/gpt-5-mini", "low", "gpt-5-mini-low"),
        ("openai/gpt-5-mini-2025-08-07", "minimal", "gpt-5-mini-low"),
        ("openai/gpt-5-mini", "high", "gpt-5-mini-high"),
        ("openai/gpt-5-mini", None, "gpt-5-mini-high"),  # OpenAI's default effort is medium
        ("openai/gpt-5", "low", "other"),
        ("mockllm/model", None, "other"),
        ("vllm/qwen3-models/Llama-3.1-8B", None, "other"),  # only the last path part counts
    ],
)
def test_model_family_from_the_name(model, effort, family):
    assert model_family(model, effort) == family


# Table 7 (Appendix A) and its caption, typed by hand: (family, reasoning, task) -> fields sent
TABLE_7 = {
    ("qwen3", False, "discourse_markers"): {"max_tokens": 2048, "temperature": 0.7, "top_p": 0.8},
    ("qwen3", True, "discourse_markers"): {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95},
    ("qwen3", True, "dialogue_parsing"): {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95},
    ("deepseek-r1-distill", True, "sentence_ordering"): {"max_tokens": 4096},
    ("deepseek-r1-distill", True, "dialogue_parsing"): {"max_tokens": 4096},
    ("deepseek-r1", True, "temporal_reasoning"): {"max_tokens": 4096},
    ("deepseek-r1", False, "temporal_reasoning"): {"max_tokens": 4096},
    ("deepseek-r1", True, "dialogue_parsing"): {"max_tokens": 16384},
    ("gpt-5-mini-low", True, "discourse_relations"): {"max_tokens": 4096, "verbosity": "low"},
    ("gpt-5-mini-low", True, "dialogue_parsing"): {"max_tokens": 4096, "verbosity": "low"},
    ("gpt-5-mini-high", True, "discourse_relations"): {"max_tokens": 8192, "verbosity": "low"},
    ("gpt-5-mini-high", False, "discourse_relations"): {"max_tokens": 8192, "verbosity": "low"},
    ("gpt-5-mini-high", True, "dialogue_parsing"): {"max_tokens": 32768, "verbosity": "low"},
    ("other", False, "dialogue_parsing"): {"max_tokens": 2048},
    ("other", True, "sentence_ordering"): {"max_tokens": 4096},
    ("none", True, "dialogue_parsing"): {},
}


@pytest.mark.parametrize(("key", "fields"), list(TABLE_7.items()), ids=lambda v: "-".join(map(str, v)))
def test_family_presets_are_table_7(key, fields):
    family, reasoning, task = key
    assert family_preset(family, reasoning, task) == fields


PAPER_ROWS = {
    "qwen3": "Qwen3-8B",
    "deepseek-r1-distill": "DS-r1-distill-Qwen",
    "deepseek-r1": "DeepSeek-r1-0528",
    "gpt-5-mini-low": "GPT-5-mini (low)",
    "gpt-5-mini-high": "GPT-5-mini (high)",
}


@pytest.mark.parametrize("task", TASK_NAMES)
@pytest.mark.parametrize("family", sorted(PAPER_ROWS))
def test_every_preset_passes_the_reports_table_7_check(family, task):
    """What each family sends is what the report's Table 7 check expects of that paper row, in every task."""
    for reasoning in (False, True):
        mode = "on" if reasoning else "off"
        sent = family_preset(family, reasoning, task)
        if table7_setting(PAPER_ROWS[family], mode, task) is not None:
            assert generation_differences(sent, PAPER_ROWS[family], mode, task) == [], (family, mode, task)


def test_presets_parameter_rejects_unknown_values():
    with pytest.raises(ValueError, match="presets must be one of auto, qwen3, deepseek-r1-distill"):
        task_generation("sentence_ordering", True, "qwen")
    assert task_generation("sentence_ordering", True, "NONE").config == GenerateConfig()
    assert set(FAMILIES) == set(PAPER_ROWS) | {"other"}


def test_auto_without_an_active_model_warns_and_sends_only_max_tokens():
    # a fresh context: an eval earlier in this process leaves Inspect's active model set in the calling context
    with pytest.warns(PresetWarning, match="presets='auto' found no model being evaluated"):
        built = contextvars.Context().run(task_generation, "dialogue_parsing", True)
    assert built.metadata() == {
        "presets": "auto",
        "family": "other",
        "model": None,
        "reasoning_effort": None,
        "sent": {"max_tokens": 4096},
    }


@pytest.mark.parametrize("bad", ["maybe", "", 2, None, 0.5])
def test_reasoning_flag_rejects_non_booleans(bad):
    with pytest.raises(ValueError, match="reasoning must be true or false"):
        reasoning_flag(bad)


def test_logs_read_the_reasoning_parameter_as_the_task_does():
    """One parser for the flag: what the report reads from a log's parameters is what the task built with."""
    for value in (True, False, "on", "off", "yes", "no", "1", "0", 1, 0, "True"):
        assert _reasoning_of({"reasoning": value}) == ("on" if reasoning_flag(value) else "off")
    assert _reasoning_of({}) == "off"
    with pytest.raises(ValueError, match="reasoning must be true or false"):
        _reasoning_of({"reasoning": "maybe"})


def test_thinking_switch_per_provider():
    assert thinking_kwargs("openai", True) == {}
    assert thinking_kwargs("vllm", "false") == {"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}
    user = GenerateConfig(extra_body={"chat_template_kwargs": {"enable_thinking": True}, "top_k": 20})
    # the user's own --extra-body wins; other fields are kept
    assert thinking_kwargs("gguf", False, user) == {
        "extra_body": {"chat_template_kwargs": {"enable_thinking": True}, "top_k": 20}
    }


def _task_cases():
    """``(task, expected system prompt per dataset)`` for each task, with the prompts of ``prompts.py`` (tested
    verbatim against the paper's Appendix B elsewhere); dialogue parsing in both modes."""
    from bediscover_inspect.dialogue_parsing.prompts import SYSTEM_PROMPTS as DP_SYSTEM
    from bediscover_inspect.dialogue_parsing.task import dialogue_parsing
    from bediscover_inspect.discourse_markers.prompts import JUST_SYSTEM_PROMPT, OTHERWISE_SYSTEM_PROMPT
    from bediscover_inspect.discourse_markers.task import discourse_markers
    from bediscover_inspect.discourse_relations.prompts import SYSTEM_PROMPT as DR_SYSTEM
    from bediscover_inspect.discourse_relations.task import discourse_relations
    from bediscover_inspect.sentence_ordering.prompts import SYSTEM_PROMPT as SO_SYSTEM
    from bediscover_inspect.sentence_ordering.task import sentence_ordering
    from bediscover_inspect.temporal_reasoning.prompts import RELATION_SYSTEM_PROMPT, TOT_SYSTEM_PROMPT
    from bediscover_inspect.temporal_reasoning.task import temporal_reasoning

    return {
        "discourse_markers": (
            lambda: discourse_markers(per_dataset=1, presets="none"),
            {
                "just-manual": JUST_SYSTEM_PROMPT,
                "just-subtitle": JUST_SYSTEM_PROMPT,
                "otherwise": OTHERWISE_SYSTEM_PROMPT,
            },
        ),
        "temporal_reasoning": (
            lambda: temporal_reasoning(per_dataset=1, presets="none"),
            {"tbd": RELATION_SYSTEM_PROMPT, "tdd-man": RELATION_SYSTEM_PROMPT, "tot-arithmetic": TOT_SYSTEM_PROMPT},
        ),
        "discourse_relations": (
            lambda: discourse_relations(dataset="eng.dep.scidtb,deu.pdtb.pcc", per_dataset=1, presets="none"),
            {"eng.dep.scidtb": DR_SYSTEM, "deu.pdtb.pcc": DR_SYSTEM},
        ),
        "sentence_ordering": (
            lambda: sentence_ordering(dataset="nips-abs", per_dataset=2, presets="none"),
            {"nips-abs": SO_SYSTEM},
        ),
        "dialogue_parsing/incremental": (
            lambda: dialogue_parsing(dataset="stac", order="file", per_dataset=1, presets="none"),
            {"stac": DP_SYSTEM["stac"]},
        ),
        "dialogue_parsing/single-turn": (
            lambda: dialogue_parsing(dataset="molweni,msdc", mode="single-turn", per_dataset=1, presets="none"),
            {"molweni": DP_SYSTEM["molweni"], "msdc": DP_SYSTEM["msdc"]},
        ),
    }


@pytest.mark.parametrize("case", list(_task_cases()))
def test_each_task_sends_the_papers_system_prompt_first_and_keeps_it_out_of_the_sample_input(case, tmp_path):
    """``Sample.input`` is the sample's own user prompt (what the viewer's sample list shows); the task's first
    solver puts the dataset's system prompt before it, so every model call is ``[system prompt, user prompt]``."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import resolve_sample_attachments

    from tests.helpers import run_eval

    build, expected = _task_cases()[case]
    task = build()
    samples = list(task.dataset)
    assert {s.metadata["dataset"] for s in samples} == set(expected)
    assert all(isinstance(s.input, str) and s.input.strip() for s in samples)  # the user prompt, no system message
    log = run_eval(task, model="mockllm/model", display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success", log.error
    inputs = {s.id: s.input for s in samples}
    for sample in map(resolve_sample_attachments, log.samples):
        assert isinstance(sample.input, str) and sample.input == inputs[sample.id]
        calls = [event.input for event in sample.events if isinstance(event, ModelEvent)]
        assert calls, sample.id
        system = expected[sample.metadata["dataset"]]
        for call in calls:
            assert [(m.role, m.text) for m in call[:1]] == [("system", system)]
            assert [m.role for m in call] == ["system", "user"]
        assert calls[0][1].text == sample.input
        # the messages the viewer shows: the system prompt once, first
        assert [m.role for m in sample.messages if m.role == "system"] == ["system"] and sample.messages[
            0
        ].text == system
    if case == "dialogue_parsing/incremental":
        # one call per turn, each with the system prompt and that turn's prompt only
        assert len(calls) == log.samples[0].metadata["n_turns"] == 7


def test_system_prompt_solver_names_a_dataset_it_has_no_prompt_for():
    from bediscover_inspect.messages import system_prompt_text

    assert system_prompt_text("S", "any") == "S"
    assert system_prompt_text({"a": "A", "b": "B"}, "b") == "B"
    with pytest.raises(KeyError, match=r"no system prompt for dataset 'c' \(have \['a', 'b'\]\)"):
        system_prompt_text({"a": "A", "b": "B"}, "c")


def _sent(log):
    """``(plan.config, configs of the sample's model calls)`` of a one-sample log."""
    from inspect_ai.event import ModelEvent

    assert log.status == "success", log.error
    calls = [event.config for event in log.samples[0].events if isinstance(event, ModelEvent)]
    assert calls
    return log.plan.config, calls


@pytest.mark.filterwarnings("ignore:.*differs from the pinned")
@pytest.mark.parametrize(
    ("model", "effort", "reasoning", "task", "args", "expected"),
    [
        (
            "mockllm/Qwen3-8B",
            None,
            False,
            "sentence_ordering",
            {"dataset": "nips-abs"},
            ("qwen3", 2048, 0.7, 0.8, None),
        ),
        (
            "mockllm/Qwen3-8B-AWQ",
            None,
            True,
            "sentence_ordering",
            {"dataset": "nips-abs"},
            ("qwen3", 4096, 0.6, 0.95, None),
        ),
        (
            "mockllm/DeepSeek-R1-0528",
            None,
            True,
            "sentence_ordering",
            {"dataset": "nips-abs"},
            ("deepseek-r1", 4096, None, None, None),
        ),
        (
            "mockllm/DeepSeek-R1-0528",
            None,
            True,
            "dialogue_parsing",
            {"dataset": "stac"},
            ("deepseek-r1", 16384, None, None, None),
        ),
        (
            "mockllm/DeepSeek-R1-Distill-Qwen-32B",
            None,
            True,
            "dialogue_parsing",
            {"dataset": "stac"},
            ("deepseek-r1-distill", 4096, None, None, None),
        ),
        (
            "mockllm/gpt-5-mini",
            "low",
            True,
            "dialogue_parsing",
            {"dataset": "stac", "mode": "single-turn"},
            ("gpt-5-mini-low", 4096, None, None, "low"),
        ),
        (
            "mockllm/gpt-5-mini",
            "high",
            True,
            "dialogue_parsing",
            {"dataset": "stac"},
            ("gpt-5-mini-high", 32768, None, None, "low"),
        ),
        (
            "mockllm/gpt-5-mini",
            "high",
            False,
            "sentence_ordering",
            {"dataset": "nips-abs"},
            ("gpt-5-mini-high", 8192, None, None, "low"),
        ),
        (
            "mockllm/model",
            None,
            False,
            "sentence_ordering",
            {"dataset": "nips-abs"},
            ("other", 2048, None, None, None),
        ),
    ],
)
def test_auto_reads_the_evaluated_model(model, effort, reasoning, task, args, expected):
    """Under eval() with the task function (as ``inspect eval`` builds it), ``auto`` sees the active model; every
    model call goes out with the family's preset and the log's metadata says which."""
    from bediscover_inspect.tasks import task_function
    from tests.helpers import run_eval

    family, max_tokens, temperature, top_p, verbosity = expected
    [log] = run_eval(
        task_function(task),
        task_args=args | {"reasoning": reasoning},
        model=model,
        limit=1,
        reasoning_effort=effort,
        display="none",
    )
    plan, calls = _sent(log)
    for config in [plan, *calls]:
        assert (config.max_tokens, config.temperature, config.top_p, config.verbosity) == expected[1:]
    generation = log.eval.metadata["generation"]
    assert (generation["presets"], generation["family"], generation["model"]) == ("auto", family, model)
    assert generation["sent"] == {
        k: v
        for k, v in zip(("max_tokens", "temperature", "top_p", "verbosity"), expected[1:], strict=True)
        if v is not None
    }


@pytest.mark.filterwarnings("ignore:.*differs from the pinned")
def test_user_flags_win_and_presets_can_be_forced_or_switched_off():
    from bediscover_inspect.sentence_ordering.task import sentence_ordering
    from tests.helpers import run_eval

    args = {"dataset": "nips-abs", "reasoning": True}
    [flags] = run_eval(
        sentence_ordering,
        task_args=args,
        model="mockllm/Qwen3-8B",
        limit=1,
        max_tokens=77,
        temperature=0.1,
        display="none",
    )
    plan, calls = _sent(flags)
    for config in [plan, *calls]:
        assert (config.max_tokens, config.temperature, config.top_p) == (77, 0.1, 0.95)
    [forced] = run_eval(
        sentence_ordering,
        task_args=args | {"presets": "gpt-5-mini-low"},
        model="mockllm/model",
        limit=1,
        display="none",
    )
    assert (_sent(forced)[1][0].max_tokens, _sent(forced)[1][0].verbosity) == (4096, "low")
    assert forced.eval.metadata["generation"]["model"] is None
    [off] = run_eval(
        sentence_ordering, task_args=args | {"presets": "none"}, model="mockllm/Qwen3-8B", limit=1, display="none"
    )
    assert (_sent(off)[1][0].max_tokens, _sent(off)[1][0].temperature) == (None, None)
