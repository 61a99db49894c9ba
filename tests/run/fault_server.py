"""An OpenAI-compatible chat-completions server on 127.0.0.1 that misbehaves on purpose, for the run tests.

    python tests/run/fault_server.py --bad malformed --every 3 --port-file PORT --requests-file REQUESTS

Every request is numbered from 1; request ``n`` gets the ``--bad`` reply when ``n`` is a multiple of ``--every``
and ``n <= --first`` (when given), else a valid reply (the text of ``--answer``, usage set). Each request appends
one JSON line ``{"n", "kind", "prompt", "time"}`` to ``--requests-file`` (``prompt``: a hash of the messages, so a test
can tell whether one sample was asked twice). The process stops by itself after ``--max-requests`` requests or
``--max-seconds`` seconds, whichever comes first, so a run that never ends cannot keep it alive.

Bad replies (:data:`KINDS`): ``malformed`` (a JSON body cut short), ``empty_choices`` (``"choices": []``),
``non_utf8`` (bytes that are not UTF-8, sent as JSON), ``html200`` (a gateway's HTML error page, status 200),
``no_usage`` (a valid reply without ``usage``), ``slow`` (a valid reply after ``--slow-seconds``, or as soon as
the file ``--release`` names exists, whichever comes first: a test holds replies as long as it needs), ``http500``,
``http400`` (vLLM's "maximum context length" error, as a server says a prompt is too long), ``http429`` (a rate
limit with ``Retry-After: <--retry-after>``), ``cut`` (a reply whose body stops half-way: the connection is closed
before the chunked body ends).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

KINDS = (
    "ok",
    "malformed",
    "empty_choices",
    "non_utf8",
    "html200",
    "no_usage",
    "slow",
    "http500",
    "http400",
    "http429",
    "cut",
)

CONTEXT_LENGTH_ERROR = {
    "object": "error",
    "message": "This model's maximum context length is 512 tokens. However, you requested 900 tokens (388 in the "
    "messages, 512 in the completion). Please reduce the length of the messages or completion.",
    "type": "BadRequestError",
    "param": None,
    "code": 400,
}
"""The body of the ``http400`` reply: vLLM's reply to a prompt that does not fit the context window."""


def _reply(body: dict[str, Any], n: int, text: str, usage: bool) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fault"),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
    }
    if usage:
        reply["usage"] = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    return reply


def create_app(args: argparse.Namespace) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    count = {"n": 0}

    async def completions(request: Request) -> Response:
        body = await request.json()
        count["n"] += 1
        n = count["n"]
        bad = n % args.every == 0 and (args.first is None or n <= args.first)
        kind = args.bad if bad else "ok"
        prompt = hashlib.sha1(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()[:12]
        with open(args.requests_file, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"n": n, "kind": kind, "prompt": prompt, "time": time.time()}) + "\n")
        if n >= args.max_requests:
            asyncio.get_running_loop().call_later(0.5, os._exit, 0)
        if kind == "malformed":
            return Response('{"id": "chatcmpl-x", "choices": [{"index": 0, "mess', media_type="application/json")
        if kind == "empty_choices":
            reply = _reply(body, n, args.answer, usage=True)
            reply["choices"] = []
            return JSONResponse(reply)
        if kind == "non_utf8":
            return Response(b'{"id": "\xff\xfe\xfa", "choices": [\xc3\x28]}', media_type="application/json")
        if kind == "html200":
            return Response("<html><body><h1>502 Bad Gateway</h1></body></html>", media_type="text/html")
        if kind == "http400":
            return JSONResponse(CONTEXT_LENGTH_ERROR, status_code=400)
        if kind == "http429":
            headers = {"Retry-After": args.retry_after}
            return JSONResponse({"error": {"message": "rate limited"}}, status_code=429, headers=headers)
        if kind == "cut":

            async def half_a_reply() -> Any:
                yield b'{"id": "chatcmpl-cut", "object": "chat.completion", "choices": [{"index": 0, '
                raise ConnectionAbortedError("the fault server cuts this reply")

            return StreamingResponse(half_a_reply(), media_type="application/json")
        if kind == "http500":
            return JSONResponse({"error": {"message": "internal error"}}, status_code=500)
        if kind == "slow":
            deadline = time.monotonic() + args.slow_seconds
            while time.monotonic() < deadline and not (args.release and args.release.exists()):
                await asyncio.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
        return JSONResponse(_reply(body, n, args.answer, usage=kind != "no_usage"))

    async def models(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "fault", "object": "model", "owned_by": "test"}]})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
        ]
    )


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bad", choices=KINDS, default="ok")
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--first", type=int, default=None)
    parser.add_argument("--answer", default="Exclusionary")
    parser.add_argument("--slow-seconds", type=float, default=30.0)
    parser.add_argument("--release", type=Path, default=None, help="a file whose existence ends slow replies")
    parser.add_argument("--retry-after", default="120", help="the Retry-After header of http429")
    parser.add_argument("--max-requests", type=int, default=200)
    parser.add_argument("--max-seconds", type=float, default=120.0)
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--requests-file", type=Path, required=True)
    args = parser.parse_args()
    args.requests_file.touch()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(args), log_level="warning", access_log=False))

    async def serve() -> None:
        asyncio.get_running_loop().call_later(args.max_seconds, os._exit, 0)
        args.port_file.write_text(str(sock.getsockname()[1]))
        await server.serve(sockets=[sock])

    asyncio.run(serve())


if __name__ == "__main__":
    main()
