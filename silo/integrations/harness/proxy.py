"""The recording model proxy: a harness's model traffic, forwarded upstream and traced.

Contract: :data:`PROXY` is the process's one proxy, an aiohttp server on loopback that runs on
the model loop (:mod:`silo.agents.model_loop`), so hundreds of harnesses in flight cost no
thread each. :meth:`ModelProxy.open` gives a rollout a :class:`Route` with a base URL of its own
(``<proxy>/r/<token>``) to hand its harness (``ANTHROPIC_BASE_URL``, a Codex provider's
``base_url``); :meth:`ModelProxy.close` forgets it. Every request under that URL goes to the
route's upstream with the rest of its path and query (``<upstream>/v1/messages?beta=true``),
or, for a scripted route, is answered by its :class:`~silo.integrations.harness.replay.
ReplayScript`. The answer streams back as it arrives (SSE passes through chunk by chunk). The
harness holds a placeholder key: the proxy puts the route's real key in the ``x-api-key`` or
``Authorization`` header the harness sent, so the key never reaches the harness's process.

Each request of a model API (:func:`~silo.integrations.harness.wire.api_of`) is emitted as a
``model_step`` to the route: ``turn``, ``api``, ``request`` and ``response`` summaries,
``usage``, ``latencyMs``, ``attempts`` (1: the harness does its own retries, each a step),
``status``, ``requestBody`` (what is new since the previous request:
:func:`~silo.integrations.harness.wire.chained`) and ``responseBody`` (a stream assembled into
one message); the trace redacts secrets from every line it writes, these with it. An upstream
that cannot be reached is a 502 to the harness and the route's ``failure``, as is a 429 or 5xx
answer.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from silo.agents.model_loop import at_exit, run_on_model_loop
from silo.integrations.harness.replay import ReplayScript
from silo.integrations.harness.served import Served
from silo.integrations.harness.wire import (
    api_of,
    assemble,
    chained,
    reply_summary,
    request_summary,
)
from silo.redact import redact

__all__ = ["PROXY", "ModelProxy", "Route"]

_HOP = {
    "connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding",
    "host", "accept-encoding", "upgrade", "te", "trailer", "proxy-authorization",
}  # fmt: skip
_READ_TIMEOUT_S = 600.0  # a model may think for minutes between two chunks of a stream


@dataclass
class Route:
    """One rollout's way to its model: upstream (URL or script), key, and where steps go."""

    upstream: str | ReplayScript
    emit: Callable[[str, Mapping[str, Any]], None]
    key: str | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    url: str = ""
    turns: int = 0
    last_text: str | None = None
    last_body: dict[str, Any] | None = None
    failure: str | None = None
    connect_failed: bool = False


def _upstream_headers(request: web.Request, key: str | None) -> dict[str, str]:
    headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
    if key is not None:
        for name in list(headers):
            if name.lower() == "x-api-key":
                headers[name] = key
            elif name.lower() == "authorization":
                headers[name] = f"Bearer {key}"
    return headers


class ModelProxy:
    """The recording proxy (see the module docstring); one per process, started on first use."""

    def __init__(self) -> None:
        self._routes: Served[Route] = Served(lambda: run_on_model_loop(self._start()))
        self._runner: web.AppRunner | None = None
        self._client: aiohttp.ClientSession | None = None

    def forget(self) -> None:
        """In a forked child the parent's server is not running here: start afresh on use."""
        self._routes.forget()
        self._runner, self._client = None, None

    def open(self, route: Route) -> Route:
        """Serve ``route`` under a URL of its own (set on it); starts the proxy if needed."""
        route.url = f"{self._routes.add(route.token, route)}/r/{route.token}"
        return route

    def close(self, route: Route) -> None:
        """Stop serving ``route`` (its harness has ended): later requests are 404."""
        self._routes.remove(route.token)

    async def _start(self) -> str:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/r/{token}/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=2048)
        await site.start()
        host, port = runner.addresses[0][:2]
        timeout = aiohttp.ClientTimeout(total=None, sock_read=_READ_TIMEOUT_S)
        # No connection cap: every harness in flight has its request in flight (aiohttp's
        # default of 100 would queue the rest silently).
        connector = aiohttp.TCPConnector(limit=0)
        self._client = aiohttp.ClientSession(connector=connector, timeout=timeout)
        self._runner = runner
        at_exit(self._stop)
        return f"http://{host}:{port}"

    async def _stop(self) -> None:
        if self._client is not None:
            await self._client.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        route = self._routes.get(request.match_info["token"])
        if route is None:
            return web.json_response({"error": "no harness is served at this path"}, status=404)
        started = time.monotonic()
        body = await request.read()
        api = api_of(request.match_info["tail"]) if request.method == "POST" else None
        if isinstance(route.upstream, ReplayScript):
            sent = self._replayed(route.upstream, api, body)
            status, streamed, answer = sent[0], sent[1], sent[2]
            response: web.StreamResponse = web.Response(
                status=status, body=answer, content_type=sent[3]
            )
        else:
            response, status, streamed, answer = await self._forward(route, request, body)
        if api is not None:
            self._record(route, api, body, status, streamed, answer, started)
        return response

    @staticmethod
    def _replayed(
        script: ReplayScript, api: str | None, body: bytes
    ) -> tuple[int, bool, bytes, str]:
        if api is None:
            return (
                404,
                False,
                b'{"error": "the replay upstream answers model requests only"}',
                ("application/json"),
            )
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = {}
        status, kind, answer = script.reply(api, parsed if isinstance(parsed, dict) else {})
        return status, kind == "text/event-stream", answer, kind

    async def _forward(
        self, route: Route, request: web.Request, body: bytes
    ) -> tuple[web.StreamResponse, int, bool, bytes]:
        """Send the request upstream and stream the answer back; what was answered."""
        assert self._client is not None and isinstance(route.upstream, str)
        url = f"{route.upstream.rstrip('/')}/{request.match_info['tail']}"
        if request.query_string:
            url += f"?{request.query_string}"
        headers = _upstream_headers(request, route.key)
        response: web.StreamResponse | None = None
        kept = bytearray()
        try:
            async with self._client.request(
                request.method, url, data=body, headers=headers
            ) as upstream:
                response = web.StreamResponse(status=upstream.status)
                for name, value in upstream.headers.items():
                    if name.lower() not in _HOP:
                        response.headers[name] = value
                await response.prepare(request)
                async for chunk in upstream.content.iter_any():
                    kept += chunk
                    if not await _relay(response, chunk):
                        break  # the harness went away mid-answer: the upstream is not to blame
                else:
                    await _relay(response, None)
                streamed = "text/event-stream" in upstream.headers.get("content-type", "")
                if upstream.status == 429 or upstream.status >= 500:
                    route.failure = (
                        f"the model upstream {route.upstream} answered HTTP {upstream.status}"
                    )
                return response, upstream.status, streamed, bytes(kept)
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            route.connect_failed = isinstance(exc, aiohttp.ClientConnectorError)
            why = redact(f"{type(exc).__name__}: {exc}")
            route.failure = f"the model upstream {route.upstream} failed: {why}"
        if response is not None:  # the answer broke off after it began: the harness sees that
            return response, response.status, False, bytes(kept)
        failed = {"type": "error", "error": {"type": "api_error", "message": route.failure}}
        payload = json.dumps(failed).encode()
        refused = web.Response(status=502, body=payload, content_type="application/json")
        return refused, 502, False, payload

    @staticmethod
    def _record(
        route: Route,
        api: str,
        body: bytes,
        status: int,
        streamed: bool,
        answer: bytes,
        started: float,
    ) -> None:
        try:
            sent = json.loads(body)
        except ValueError:
            sent = {}
        sent = sent if isinstance(sent, dict) else {}
        message = assemble(api, answer, streamed)
        summary = reply_summary(api, message)
        route.turns += 1
        body_kept = chained(sent, route.last_body, route.turns - 1)
        route.last_body = sent
        if status == 200 and summary["text"] is not None:
            route.last_text = summary["text"]
        step = {
            "turn": route.turns,
            "api": api,
            "request": request_summary(api, sent),
            "response": {k: summary[k] for k in ("text", "toolCalls", "finishReason")},
            "usage": summary["usage"],
            "latencyMs": round((time.monotonic() - started) * 1000, 3),
            "attempts": 1,
            "status": status,
            # The trace redacts every line it writes (silo.redact), these bodies with it.
            "requestBody": body_kept,
            "responseBody": message,
        }
        try:
            route.emit("model_step", step)
        except Exception:  # noqa: BLE001 - a rollout already ended has no trace to add to
            return


async def _relay(response: web.StreamResponse, chunk: bytes | None) -> bool:
    """Pass ``chunk`` on (None: the end); False when the harness has gone away."""
    try:
        if chunk is None:
            await response.write_eof()
        else:
            await response.write(chunk)
    except ConnectionResetError:
        return False
    return True


PROXY = ModelProxy()
"""The process's recording proxy."""
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=PROXY.forget)
