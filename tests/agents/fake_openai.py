"""A scripted OpenAI-compatible chat-completions server for tests (stdlib only, 127.0.0.1).

Contract: ``FakeOpenAI(script)`` serves ``POST /v1/chat/completions`` on a free local port. Each
request pops the next entry of ``script``: a :class:`Reply` (HTTP status + JSON body) or a
callable ``(request_json) -> Reply`` (to script a "model" that reacts to tool results). When the
script runs out, the last entry is repeated. Every request is recorded in ``requests`` (path,
headers, parsed JSON body). Use it as a context manager; ``base_url`` ends in ``/v1``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeOpenAI", "Reply", "error", "final", "tool_calls", "USAGE"]

USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def _completion(message: dict[str, Any], finish: str) -> Reply:
    return Reply(
        200,
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": USAGE,
        },
    )


def final(text: str) -> Reply:
    """An assistant turn with no tool calls: the agent's final answer."""
    return _completion({"role": "assistant", "content": text}, "stop")


def tool_calls(*calls: tuple[str, Any]) -> Reply:
    """An assistant turn calling tools; arguments given as a dict are JSON-encoded, a str is sent raw."""
    encoded = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for i, (name, args) in enumerate(calls)
    ]
    return _completion({"role": "assistant", "content": None, "tool_calls": encoded}, "tool_calls")


def error(status: int, message: str = "scripted failure") -> Reply:
    return Reply(status, {"error": {"message": message, "type": "test_error", "code": None}})


Step = Reply | Callable[[dict[str, Any]], Reply]


class FakeOpenAI:
    def __init__(self, script: list[Step]) -> None:
        if not script:
            raise ValueError("the script needs at least one reply")
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        return step(body) if callable(step) else step

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # silence stderr
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "json": body}
                    )
                if not self.path.endswith("/chat/completions"):
                    reply = error(404, f"no route {self.path}")
                else:
                    reply = fake._next(body)
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler
