"""A sample error said in the server's words, and Inspect's sample-error warnings one per kind on the console."""

from __future__ import annotations

import logging

from bediscover_inspect._inspect_compat import sample_error_logger
from bediscover_inspect.run.failures import digest_sample_errors, error_kind, server_words

# the messages as Inspect records them: repr() of the exception (inspect_ai/_util/error.py, exception_message)
REQUEST = '\\nRequest:\\n{\\n  "messages": [\\n    {\\n      "role": "user",\\n      "content": "Hi"\\n    }\\n  ]\\n}'
VLLM_400 = (
    f"ModelGenerateError('{REQUEST}\\n\\nBadRequestError(\"Error code: 400 - This model\\'s maximum context "
    "length is 512 tokens. However, you requested 900 tokens.\")')"
)
OPENAI_400 = (
    f"ModelGenerateError('{REQUEST}\\n\\nBadRequestError(\"Error code: 400 - {{\\'error\\': {{\\'message\\': "
    "\\'maximum context length exceeded\\', \\'type\\': \\'invalid_request_error\\'}}}}\")')"
)
RETRY = "RetryError(<Future at 0x7f17399b8e90 state=finished raised OpenAIResponseError>)"
RETRY_TRACEBACK = """Traceback (most recent call last):
  File "openai_compatible.py", line 318, in generate
openai_compatible.OpenAIResponseError: server_error: Unexpected non-ChatCompletion response: '<html>'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "tenacity/__init__.py", line 483, in exc_check
tenacity.RetryError: RetryError[<Future at 0x7f17399b8e90 state=finished raised OpenAIResponseError>]
"""


def test_the_servers_words_in_a_provider_error_after_the_request():
    assert error_kind(VLLM_400) == "BadRequestError"
    assert server_words(VLLM_400) == (
        "HTTP 400: This model's maximum context length is 512 tokens. However, you requested 900 tokens."
    )
    assert server_words(OPENAI_400) == "HTTP 400: maximum context length exceeded"


def test_retries_used_up_give_the_last_attempts_error_from_the_traceback():
    assert error_kind(RETRY) == "OpenAIResponseError"
    assert server_words(RETRY, RETRY_TRACEBACK) == ("server_error: Unexpected non-ChatCompletion response: '<html>'")
    assert server_words(RETRY) == RETRY  # no traceback: the message as it is


def test_a_long_message_is_cut_to_one_line_of_160_characters():
    words = server_words("ValueError('" + "x" * 300 + "')\nsecond line")
    assert len(words) == 160 and words.endswith("...") and "second" not in words


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_the_first_sample_error_of_each_kind_is_one_warning_the_rest_are_info():
    logger, seen = sample_error_logger(), Records()
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(seen)
    with digest_sample_errors() as digest:
        for sample in (1, 2):
            logger.warning(f"Sample error (id: s{sample}, epoch: 1): {VLLM_400}). Sample will be retried.")
        logger.warning(f"Sample error (id: s3, epoch: 2): {RETRY})")
        logger.warning("Sample limit (4) reached")
    logger.warning(f"Sample error (id: s4, epoch: 1): {VLLM_400}).")  # after the block: as Inspect logs it
    logger.removeHandler(seen)
    logger.setLevel(level)
    levels = [(record.levelname, record.getMessage()) for record in seen.records]
    assert levels[0] == (
        "WARNING",
        "Sample error (id: s1, epoch: 1): BadRequestError: HTTP 400: This model's maximum context length is 512 "
        "tokens. However, you requested 900 tokens. Sample will be retried. Further BadRequestErrors: counted at "
        "the end, each in the eval log.",
    )
    assert levels[1] == ("INFO", f"Sample error (id: s2, epoch: 1): {VLLM_400}). Sample will be retried.")
    assert levels[2][0] == "WARNING" and levels[2][1].startswith("Sample error (id: s3, epoch: 2): OpenAIResponseError")
    assert levels[3] == ("WARNING", "Sample limit (4) reached")
    assert levels[4] == ("WARNING", f"Sample error (id: s4, epoch: 1): {VLLM_400}).")
    assert digest.counts == {"BadRequestError": 2, "OpenAIResponseError": 1}
