"""An OpenAI-compatible chat-completions server on 127.0.0.1 that answers ``good`` requests and then returns
malformed JSON: ``python loopback_server.py PORT_FILE GOOD ANSWER``.

It binds a free port, writes it to ``PORT_FILE`` and serves ``POST /v1/chat/completions`` until killed. The first
``GOOD`` requests get a well-formed completion whose text is ``ANSWER``; every later one a truncated JSON body
(HTTP 200), as a server that breaks mid-run sends.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_lock = threading.Lock()
_served = 0


def _completion(model: str, answer: str) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-loopback",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        }
    ).encode()


def main() -> None:
    port_file, good, answer = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            global _served
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            with _lock:
                _served += 1
                healthy = _served <= good
            body = _completion(request.get("model", "loopback"), answer) if healthy else b'{"id": "chatcmpl-lo'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
