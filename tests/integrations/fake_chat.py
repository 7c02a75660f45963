"""A scripted OpenAI-compatible chat endpoint on loopback, streaming as the real one does.

Reply *k* of a conversation is ``SCRIPT[k]``, where *k* counts the assistant messages before
it, so every conversation (a GRPO group's rollouts in flight at once) gets the same replies in
the same order whatever the interleaving. A text entry is the reply's content; an object
``{"call": name, "arguments": {...}}`` is a reply calling that tool (an MCP harness). Run as ``python fake_chat.py <script.json>``:
it prints ``ready <port>`` once it listens.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def serve(script: list[Any]) -> ThreadingHTTPServer:
    """A server on a free loopback port answering with ``script``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            turns = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
            entry = script[min(turns, len(script) - 1)]
            if isinstance(entry, dict):
                call = {"index": 0, "id": f"call_{turns}", "type": "function",
                        "function": {"name": entry["call"],
                                     "arguments": json.dumps(entry["arguments"])}}  # fmt: skip
                self._stream(body, {"role": "assistant", "tool_calls": [call]}, "tool_calls")
                return
            text = entry
            if not body.get("stream"):
                message = {"role": "assistant", "content": text}
                choice = {"index": 0, "message": message, "finish_reason": "stop"}
                self._send(200, {"id": "c", "object": "chat.completion", "created": 0,
                                 "model": body.get("model"), "choices": [choice],
                                 "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                           "total_tokens": 2}})  # fmt: skip
                return
            self._stream(body, {"role": "assistant", "content": text}, "stop")

        def _stream(self, body: Any, delta: dict[str, Any], finish: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            base = {"id": "c", "object": "chat.completion.chunk", "created": 0,
                    "model": body.get("model")}  # fmt: skip
            chunks = [
                {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
            ]  # fmt: skip
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return ThreadingHTTPServer(("127.0.0.1", 0), Handler)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        server = serve(json.load(handle))
    print(f"ready {server.server_address[1]}", flush=True)
    server.serve_forever()
