"""Run ``bediscover`` with an extra offline model ``slowmock/model`` (for the kill-and-resume test).

Each generate call appends a line to the file named by ``$BEDISCOVER_TEST_COUNTER`` and sleeps
``$BEDISCOVER_TEST_DELAY`` seconds, then answers a fixed text with usage set (no tokenizer needed); with
``$BEDISCOVER_TEST_VARIED`` set, one of :data:`VARIED` chosen by the CRC-32 of the prompt (the same prompt, the
same answer), so scores differ between samples. With ``$BEDISCOVER_TEST_ANSWERED`` = N, the calls after the N-th
(counted in that file, over every process of the run) wait for an hour instead: a test stops the run once the
file has more than N lines, knowing exactly N calls were answered, without waiting for a delay to pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import os
import zlib
from pathlib import Path
from typing import Any

from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi

from bediscover_inspect.cli import console_main, main

VARIED = ("BEFORE", "AFTER", "VAGUE", "<s 2> <s 1> <s 3>", "<s 1> <s 2> <s 3>", "not an answer")
"""The answers of ``$BEDISCOVER_TEST_VARIED``: temporal relations, sentence orders and an unreadable one."""


@modelapi(name="slowmock")
class SlowMock(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(self, input, tools, tool_choice, config):  # noqa: ANN001 (ModelAPI signature)
        with open(os.environ["BEDISCOVER_TEST_COUNTER"], "a+", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)  # this call's line number, whatever the other processes append
            fh.write("generate\n")
            fh.flush()
            fh.seek(0)
            number = len(fh.read().splitlines())
        if number > int(os.environ.get("BEDISCOVER_TEST_ANSWERED", number)):
            await asyncio.sleep(3600)
        await asyncio.sleep(float(os.environ.get("BEDISCOVER_TEST_DELAY", "0")))
        content = "<s 1> <s 2> <s 3>"
        if os.environ.get("BEDISCOVER_TEST_VARIED"):
            content = VARIED[zlib.crc32(str(input[-1].text).encode()) % len(VARIED)]
        output = ModelOutput.from_content(model="slowmock", content=content)
        output.usage = ModelUsage(input_tokens=1, output_tokens=3, total_tokens=4, reasoning_tokens=0)
        return output


def run_here(argv: list[str], counter: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    """``bediscover ARGV`` in the calling process (importing this module registers ``slowmock/model``), for a run
    that needs no process of its own (no signal, no workers): generate calls counted in ``counter``, no delay,
    ``env`` set meanwhile. Returns the exit code and what the run printed (stdout, then stderr)."""
    out, err = io.StringIO(), io.StringIO()
    settings = {"BEDISCOVER_TEST_COUNTER": str(counter), "BEDISCOVER_TEST_DELAY": "0", **(env or {})}
    before = {key: os.environ.get(key) for key in settings}
    os.environ.update(settings)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return code, out.getvalue() + err.getvalue()


if __name__ == "__main__":
    console_main()
