"""One check, before any eval starts, that the model's server answers at all.

Without it, Inspect retries a model call against a closed port for as long as its retry policy lasts, once per
sample, and prints a traceback per eval. :func:`check_endpoint` sends one ``GET <base URL>/models`` instead:
any HTTP reply (even 401 or 404) means the server is there; a refused connection, an unknown host or no reply
within ``timeout`` seconds is :class:`EndpointUnreachable`.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from typing import Any


class EndpointUnreachable(Exception):
    """The model's base URL does not answer (the message names the URL, where it came from and the cause)."""


def server_url(model: str, base_url: str | None, model_args: dict[str, Any]) -> tuple[str, str] | None:
    """The base URL ``model`` will be served from and where it was set, or ``None`` when there is none to check.

    ``--model-base-url`` (``base_url``) or ``-M base_url=…`` first; else ``VLLM_BASE_URL`` / ``SGLANG_BASE_URL``
    for ``vllm/`` / ``sglang/`` models, ``<NAME>_BASE_URL`` for ``openai-api/<name>/…`` models (Inspect's
    conventions), ``OPENAI_BASE_URL`` for ``openai/`` when set. ``vllm/`` without a URL starts its own server
    (nothing to check); hosted providers without a URL are not checked.

    Returns:
        ``(url, source)``, e.g. ``("http://127.0.0.1:8000/v1", "VLLM_BASE_URL")``.
    """
    if base_url:
        return base_url, "--model-base-url"
    if model_args.get("base_url"):
        return str(model_args["base_url"]), "-M base_url"
    provider, _, rest = model.partition("/")
    variable = {"vllm": "VLLM_BASE_URL", "sglang": "SGLANG_BASE_URL", "openai": "OPENAI_BASE_URL"}.get(provider)
    if provider == "openai-api":
        name = rest.partition("/")[0]
        variable = f"{name.upper().replace('-', '_')}_BASE_URL" if name else None
    if variable and os.environ.get(variable):
        return os.environ[variable], variable
    return None


def check_endpoint(model: str, base_url: str | None, model_args: dict[str, Any], timeout: float = 10.0) -> None:
    """Raise :class:`EndpointUnreachable` when the server of ``model`` (see :func:`server_url`) does not answer.

    Args:
        timeout: seconds to wait for the connection and the reply.
    """
    found = server_url(model, base_url, model_args)
    if found is None:
        return
    url, source = found
    probe = url.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(urllib.request.Request(probe, method="GET"), timeout=timeout):
            return
    except urllib.error.HTTPError:  # the server answered (401, 404 …): it is there
        return
    except urllib.error.URLError as exc:
        cause = exc.reason
    except (OSError, ValueError) as exc:  # a timeout, a reset, a malformed URL
        cause = exc
    reason = getattr(cause, "strerror", None) or str(cause) or type(cause).__name__
    raise EndpointUnreachable(
        f"the model server at {url} (from {source}) does not answer: {reason}; start it or fix {source}"
    )
