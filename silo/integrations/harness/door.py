"""The MCP door of harness rollouts: a rollout's own tools, served to the CLI that plays it.

Contract: :data:`DOOR` is the process's one MCP server for harness agents (streamable HTTP on
loopback, uvicorn on a thread of its own, started on first use). :meth:`McpDoor.open` seats a
rollout's :class:`~silo.agents.contract.AgentInput` at ``<door>/rollouts/<token>/mcp`` (a
:class:`Seat`); :meth:`McpDoor.close` unseats it (later requests there are 404). A seated
client sees the rollout's tools with their schemas, ``silo_message_user`` in a conversational
task, and ``silo_finish`` (the same specs silo-mcp serves, :mod:`silo.integrations.mcp_tools`;
the dotted names answer too). A tool call runs through the rollout's ``call_tool``: counted,
traced and refused by its budget as any agent's call (the refusal of the call over
``max_tool_calls`` reaches the model as a tool error). ``silo_finish`` keeps the answer on the
seat and sets ``seat.finished``; the rollout itself ends when the agent returns, so the engine
grades and writes it as for any agent. Calls after it are refused.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from silo.integrations.extras import require

require("mcp", "mcp", "agent=claude_code, agent=codex and agent=harness")

import anyio  # noqa: E402  (after the extra check, so a missing extra is one line)
import mcp_types as types  # noqa: E402
import uvicorn  # noqa: E402
from mcp.server import Server, ServerRequestContext  # noqa: E402

from silo.agents.contract import AgentInput, RunLimitError  # noqa: E402
from silo.distribution import version as silo_version  # noqa: E402
from silo.errors import ConfigError  # noqa: E402
from silo.integrations.harness.served import Served  # noqa: E402
from silo.integrations.mcp_tools import (  # noqa: E402
    FINISH_TOOL,
    MESSAGE_TOOL,
    canonical,
    control_tools,
    message_tool,
)
from silo.integrations.mcp_tools import tool_result as _result  # noqa: E402

__all__ = ["DOOR", "McpDoor", "Seat"]

_HEADER = "x-silo-rollout"
_START_S = 60.0  # safety net for uvicorn's start-up on its thread (it takes milliseconds)
_IDLE_S = 600.0  # an MCP session its CLI left without DELETE holds nothing of the rollout

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


@dataclass
class Seat:
    """One rollout at the door: its input, its URL, and the answer once it finished."""

    inp: AgentInput
    token: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    url: str = ""
    answer: Any = None
    finished: threading.Event = field(default_factory=threading.Event)
    tools: list[types.Tool] = field(default_factory=list)


def _refusal(code: str, message: str) -> types.CallToolResult:
    return _result({"code": code, "message": message}, is_error=True)


class McpDoor:
    """The MCP server of harness rollouts (see the module docstring)."""

    def __init__(self) -> None:
        self._seats: Served[Seat] = Served(self._start)
        self._finish = control_tools(task_open=False)[1]

    def forget(self) -> None:
        """In a forked child the parent's server thread does not exist: start afresh on use."""
        self._seats.forget()

    def open(self, inp: AgentInput) -> Seat:
        """Seat ``inp``'s rollout; its ``url`` is the MCP endpoint for its harness."""
        seat = Seat(inp)
        seat.tools = [
            types.Tool(
                name=str(t["name"]),
                description=str(t.get("description") or ""),
                input_schema=t.get("inputSchema") or {"type": "object"},
            )
            for t in inp.tools
        ]
        if inp.user is not None:
            seat.tools.append(message_tool(inp.user.opening))
        seat.tools.append(self._finish)
        seat.url = f"{self._seats.add(seat.token, seat)}/rollouts/{seat.token}/mcp"
        return seat

    def close(self, seat: Seat) -> None:
        """Unseat ``seat``: its harness has ended."""
        self._seats.remove(seat.token)

    def _start(self) -> str:
        sdk = Server(
            "silo",
            version=silo_version(),
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        inner = sdk.streamable_http_app(session_idle_timeout=_IDLE_S, max_sessions=None)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(2048)
        base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                parts = scope["path"].strip("/").split("/")
                token = parts[1] if len(parts) == 3 and parts[0] == "rollouts" else ""
                known = self._seats.get(token) is not None and parts[2] == "mcp"
                if not known:
                    await _not_found(send)
                    return
                headers = [(k, v) for k, v in scope["headers"] if k != _HEADER.encode()]
                headers.append((_HEADER.encode(), token.encode()))
                scope = {**scope, "path": "/mcp", "raw_path": b"/mcp", "headers": headers}
            await inner(scope, receive, send)

        config = uvicorn.Config(app, log_level="critical", lifespan="on")
        served = uvicorn.Server(config)
        thread = threading.Thread(
            target=served.run, kwargs={"sockets": [sock]}, name="silo-harness-mcp", daemon=True
        )
        thread.start()
        deadline = time.monotonic() + _START_S
        while not served.started:  # uvicorn offers a flag, not an event
            if not thread.is_alive() or time.monotonic() > deadline:
                raise ConfigError(
                    "config_invalid", f"the harness MCP door did not start on {base_url}"
                )
            time.sleep(0.005)
        return base_url

    def _seat(self, ctx: ServerRequestContext[Any, Any]) -> Seat | None:
        headers = getattr(ctx.request, "headers", None)
        token = None if headers is None else headers.get(_HEADER)
        return self._seats.get(str(token))

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        seat = self._seat(ctx)
        return types.ListToolsResult(tools=[] if seat is None else list(seat.tools))

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        seat = self._seat(ctx)
        name = canonical(params.name)[0]
        arguments = dict(params.arguments or {})
        if seat is None:
            return _refusal("rollout_ended", "this rollout has ended")
        if seat.finished.is_set():
            return _refusal(
                "session_finished", f"this rollout has ended ({FINISH_TOOL} was called)"
            )
        if name == FINISH_TOOL:
            if set(arguments) - {"answer"}:
                return _refusal("invalid_input", f'{FINISH_TOOL} takes {{"answer": "<text>"}}')
            seat.answer = arguments.get("answer")
            seat.finished.set()
            return _result("recorded")
        try:
            if name == MESSAGE_TOOL and seat.inp.user is not None:
                text = arguments.get("text")
                if set(arguments) != {"text"} or not isinstance(text, str):
                    return _refusal(
                        "invalid_input", f'{MESSAGE_TOOL} takes {{"text": "<message>"}}'
                    )
                # A model-played user answers in seconds: the door serves the others meanwhile.
                reply = await anyio.to_thread.run_sync(seat.inp.user.send, text)
                return _result(dict(reply), reply.is_error)
            called = seat.inp.call_tool(name, arguments)
        except RunLimitError as exc:
            return _refusal(exc.reason, str(exc))
        return _result(called.output, called.is_error)


async def _not_found(send: Send) -> None:
    body = b'{"error": "no harness rollout is seated at this path"}'
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 404, "headers": headers})
    await send({"type": "http.response.body", "body": body})


DOOR = McpDoor()
"""The process's MCP door for harness rollouts."""
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=DOOR.forget)
