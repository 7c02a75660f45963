"""An MCP server exposing one Silo environment's tools, one rollout per MCP session.

Contract: :func:`build_server` makes an ``mcp`` low-level server (the high-level ``MCPServer``
cannot advertise a raw JSON Schema) whose tools are the environment's own, with their schemas
and descriptions, plus reserved ``silo.``-prefixed tools: ``silo.finish`` (the answer:
grades, writes the four artifacts and returns passed, reward and the checks),
``silo.list_tasks`` and ``silo.start_task`` (when the server's task is left open), and
``silo.message_user`` (``{"text"}``: one message to the simulated user, the result its reply
``{"text", "ended", "isError"}``), listed only to a session whose task has a ``user`` block. A
failing call is a tool result with ``isError`` whose JSON text is Silo's ``{"code",
"message"}``, and one line on stderr; nothing a client sends crashes the server. The task's
instruction (a conversational task's: the user's opening message) is in the server's
instructions and a prompt, and, since clients need not show either to the model, in what every
client does show it: the ``silo.message_user`` description and the ``silo.start_task`` result
(see :mod:`silo.integrations.mcp_tools`). Each MCP session (stdio: the process; HTTP: the
``mcp-session-id``, or an ``x-silo-episode`` header for the stateless protocol) is one rollout
on a fresh world, opened at its first call; a client gone without finishing is closed by the
idle reaper or at shutdown, which still writes a complete record. :func:`serve` runs it over
stdio or streamable HTTP.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
from typing import Any

from silo.integrations.extras import require

require("mcp", "mcp", "silo-mcp")

import anyio  # noqa: E402  (after the extra check, so a missing extra is one line)
import anyio.to_thread  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp import MCPError  # noqa: E402
from mcp.server import NotificationOptions, Server, ServerRequestContext  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402
from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # noqa: E402

from silo.agents.contract import RunLimitError  # noqa: E402
from silo.errors import ConfigError, SessionError, SiloError  # noqa: E402
from silo.integrations.episodes import EpisodeSpec, EpisodeTable, outcome  # noqa: E402
from silo.integrations.mcp_tools import (  # noqa: E402
    FINISH_TOOL,
    LIST_TOOL,
    MESSAGE_TOOL,
    START_TOOL,
    control_tools,
    environment_tools,
    instructions,
    message_tool,
    prompt_text,
)
from silo.rollout.session import Session  # noqa: E402

__all__ = [
    "EPISODE_HEADER",
    "FINISH_TOOL",
    "LIST_TOOL",
    "MESSAGE_TOOL",
    "START_TOOL",
    "build_server",
    "serve",
]

EPISODE_HEADER = "x-silo-episode"
STDIO_HANDLE = "stdio"
_ENDED = f"this rollout has ended ({FINISH_TOOL} was called); reconnect to start a new one"
IDLE_TIMEOUT_S = 1800.0  # the SDK's own session_idle_timeout, so both forget a client together


def _say(message: str) -> None:
    sys.stderr.write(f"silo-mcp: {message}\n")
    sys.stderr.flush()


def _result(payload: Any, is_error: bool = False) -> types.CallToolResult:
    text = json.dumps(payload, ensure_ascii=False)
    structured = payload if isinstance(payload, dict) else None
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=is_error,
    )


def _error(tool: str, code: str, message: str) -> types.CallToolResult:
    _say(f"{tool}: {code}: {message}")
    return _result({"code": code, "message": message}, is_error=True)


def _handle(ctx: ServerRequestContext[Any, Any]) -> str:
    """The client's episode handle: its MCP session, or the episode header it sends."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return STDIO_HANDLE  # stdio: one process per client
    handle = headers.get(EPISODE_HEADER) or headers.get("mcp-session-id")
    if not handle:
        raise SessionError(
            "episode_unknown",
            "this request has no MCP session (the stateless 2026-07-28 protocol); connect with "
            "the handshake (ClientSession.initialize(), or mcp.Client(url, mode='legacy')) or "
            f"send an {EPISODE_HEADER}: <your id> header on every request",
        )
    return str(handle)


class _Handlers:
    """The server's request handlers over one episode table."""

    def __init__(self, table: EpisodeTable) -> None:
        self.table = table
        self.spec = table.spec
        self.environment = table.environment
        picking, self.finish_tool = control_tools(task_open=self.spec.task is None)
        self.tools = [*environment_tools(self.environment), *picking]
        fixed = self.environment.task(self.spec.task) if self.spec.task else None
        opening = self.spec.opening(fixed) if fixed else None
        self.fixed_message_tool = None if opening is None else message_tool(opening)

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """Every tool: the environment's, then silo-mcp's own (the user's only if there is one)."""
        message = self._message_tool_for(ctx)
        return types.ListToolsResult(
            tools=[*self.tools, *([message] if message else []), self.finish_tool]
        )

    def _message_tool_for(self, ctx: ServerRequestContext[Any, Any]) -> types.Tool | None:
        """``silo.message_user`` when this client's task has a user (fixed, or started)."""
        if self.spec.task is not None:
            return self.fixed_message_tool
        try:
            session = self.table.get(_handle(ctx))
        except SessionError:  # no episode handle: no task can have started
            return None
        return message_tool(session.instruction) if session and session.has_user else None

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        """Run one call; every failure becomes an ``isError`` result, never an exception."""
        name = params.name
        arguments = dict(params.arguments or {})
        try:
            return await self._call(ctx, _handle(ctx), name, arguments)
        except RunLimitError as exc:
            return _error(name, exc.reason, str(exc))
        except SiloError as exc:
            if exc.code == "session_finished":
                return _error(name, exc.code, _ENDED)
            return _error(name, exc.code, exc.message)
        except Exception as exc:  # a Silo bug must not take the other sessions down
            return _error(name, "internal_error", f"{type(exc).__name__}: {exc}")

    async def _call(
        self, ctx: ServerRequestContext[Any, Any], handle: str, name: str, arguments: dict[str, Any]
    ) -> types.CallToolResult:
        if name == LIST_TOOL:
            tasks = self.environment.tasks.values()
            return _result({"tasks": [{"id": t.id, "title": t.title} for t in tasks]})
        if name == START_TOOL:
            task_id = arguments.get("task_id")
            if self.spec.task is not None:
                raise SessionError("task_fixed", f"this server's task is fixed ({self.spec.task})")
            if not isinstance(task_id, str) or set(arguments) != {"task_id"}:
                raise SessionError("invalid_input", f'{START_TOOL} takes {{"task_id": "<id>"}}')
            return await self._start(ctx, handle, task_id)
        if name == FINISH_TOOL:
            if set(arguments) - {"answer"}:
                raise SessionError("invalid_input", f'{FINISH_TOOL} takes {{"answer": <value>}}')
            finished = await self.table.start(handle).afinish(arguments.get("answer"))
            return _result(outcome(finished))
        session = self._session(handle)
        if name == MESSAGE_TOOL:
            return await _message_user(session, arguments)
        called = await session.acall_tool(name, arguments)
        if called.is_error:
            error = called.output if isinstance(called.output, dict) else {}
            _say(f"{name}: {error.get('code', 'tool_error')}: {error.get('message', '')}")
        return _result(called.output, called.is_error)

    async def _start(
        self, ctx: ServerRequestContext[Any, Any], handle: str, task_id: str
    ) -> types.CallToolResult:
        """Open the client's rollout of ``task_id``; a conversation adds the user's tool."""
        started = self.table.start(handle, task_id)
        payload = {"taskId": started.task.id, "instruction": started.instruction}
        if not started.has_user:
            return _result(payload)
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:  # 2026-07-28 has no push
            # Advice only: the task has started, and the next tools/list shows the tool anyway.
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await ctx.session.send_tool_list_changed()
        note = f"The instruction is the user's first message; talk to them with {MESSAGE_TOOL}."
        return _result({**payload, "opening": started.instruction, "conversation": note})

    def _session(self, handle: str) -> Session:
        """The client's rollout: opened on the fixed task, or the one it started."""
        if self.spec.task is not None:
            return self.table.start(handle)
        session = self.table.get(handle)
        if session is None:
            raise SessionError("task_not_chosen", f"no task started; call {START_TOOL} first")
        return session

    def _task_ids(self) -> list[str]:
        return [self.spec.task] if self.spec.task else list(self.environment.tasks)

    async def list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        """One prompt per task on offer, named by its id: the task's instruction."""
        tasks = [self.environment.task(t) for t in self._task_ids()]
        return types.ListPromptsResult(
            prompts=[types.Prompt(name=t.id, description=t.title) for t in tasks]
        )

    async def get_prompt(
        self, ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        """The task as a user message: the instruction, or the user's opening message."""
        if params.name not in self._task_ids():
            known = ", ".join(self._task_ids())
            _say(f"prompt {params.name}: unknown; known: {known}")
            raise MCPError(types.INVALID_PARAMS, f'unknown prompt "{params.name}"; known: {known}')
        task = self.environment.task(params.name)
        text = types.TextContent(type="text", text=prompt_text(self.spec, task))
        return types.GetPromptResult(
            description=task.title, messages=[types.PromptMessage(role="user", content=text)]
        )


async def _message_user(session: Session, arguments: dict[str, Any]) -> types.CallToolResult:
    """One message to the session's user; the reply (a refusal is an ``isError`` reply).

    Runs on a worker thread: a model-driven user takes seconds, and the event loop serves the
    other sessions meanwhile.
    """
    if set(arguments) != {"text"}:
        raise SessionError("invalid_input", f'{MESSAGE_TOOL} takes {{"text": "<your message>"}}')
    reply = await anyio.to_thread.run_sync(session.message_user, arguments["text"])
    if reply.is_error:
        _say(f"{MESSAGE_TOOL}: refused: {reply.text}")
    return _result(dict(reply), reply.is_error)


def build_server(table: EpisodeTable) -> Server[Any]:
    """The MCP server over ``table``'s environment; closing the table is the caller's job."""
    handlers = _Handlers(table)
    return Server(
        "silo",
        instructions=instructions(table.spec, table.environment),
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_prompts=handlers.list_prompts,
        on_get_prompt=handlers.get_prompt,
    )


def _reap_until(stop: threading.Event, table: EpisodeTable, idle_s: float) -> None:
    """Close sessions abandoned without a DELETE, once the SDK has forgotten them too."""
    while not stop.wait(min(idle_s, 60.0)):
        table.close_idle(idle_s)


def serve(
    spec: EpisodeSpec,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    idle_timeout_s: float = IDLE_TIMEOUT_S,
) -> None:
    """Serve ``spec`` until the client leaves (stdio) or the process is stopped (HTTP)."""
    table = EpisodeTable(spec, spec.load())
    server = build_server(table)
    try:
        if transport == "stdio":
            anyio.run(_serve_stdio, server, spec.task is None)
        elif transport == "http":
            _serve_http(server, table, host, port, idle_timeout_s)
        else:
            raise ConfigError(
                "config_invalid", f"transport must be stdio or http, got {transport!r}"
            )
    finally:
        table.close_all()  # every rollout a client left open still leaves its record


async def _serve_stdio(server: Server[Any], task_open: bool) -> None:
    # A client picking the task sees the tool list change when it starts a conversation.
    options = server.create_initialization_options(NotificationOptions(tools_changed=task_open))
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


def _serve_http(
    server: Server[Any], table: EpisodeTable, host: str, port: int, idle_s: float
) -> None:
    import uvicorn

    app = server.streamable_http_app(host=host, session_idle_timeout=idle_s)
    stop = threading.Event()
    threading.Thread(target=_reap_until, args=(stop, table, idle_s), daemon=True).start()
    _say(f"serving {table.environment.name} on http://{host}:{port}/mcp")
    # uvicorn re-raises the SIGTERM it caught once it has shut down; exiting through Python
    # (not the default handler) lets serve() close the sessions clients left open.
    previous = signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
    finally:
        stop.set()
        signal.signal(signal.SIGTERM, previous)


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)
