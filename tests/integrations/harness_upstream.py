"""A scripted model endpoint on loopback for the harness tests: any of the three APIs.

``ScriptedUpstream(script)`` serves ``POST`` on a free port of 127.0.0.1 (a thread), answering
each request with ``script.reply`` in the API its path names (``/v1/messages``,
``/v1/responses``, ``/chat/completions``), streamed when asked, and remembers each request's
headers (lower-cased names). Use it as a context manager.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from silo.integrations.harness.replay import ReplayScript
from silo.integrations.harness.wire import api_of
from tests.waiting import QUICK_STOP


class ScriptedUpstream:
    def __init__(self, script: ReplayScript) -> None:
        self.headers: list[dict[str, str]] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                upstream.headers.append({k.lower(): v for k, v in self.headers.items()})
                api = api_of(self.path.partition("?")[0]) or "openai.chat"
                status, kind, answer = script.reply(api, body)
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def do_GET(self) -> None:  # Claude Code looks at / once: nothing there
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()

            do_HEAD = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs=QUICK_STOP, daemon=True).start()

    def __enter__(self) -> ScriptedUpstream:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.shutdown()
        self.server.server_close()
