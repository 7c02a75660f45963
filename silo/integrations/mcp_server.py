"""An MCP server exposing one Silo environment's tools, one rollout per MCP episode.

Contract: :func:`build_server` makes an ``mcp`` low-level server (the high-level ``MCPServer``
cannot advertise a raw JSON Schema) whose tools are the environment's own, with their schemas,
descriptions and read-only hints, plus reserved ``silo_``-prefixed tools (see
:mod:`silo.integrations.mcp_tools`; the dotted names of earlier releases still answer, with a
deprecation line on stderr): ``silo_finish`` (the answer: grades, writes the four artifacts and
returns ``recorded``, or passed, reward and the checks when the server was started with
``finish_result="grade"``), ``silo_list_tasks`` and ``silo_start_task`` (when the server's task
is left open), and ``silo_message_user`` (``{"text"}``: one message to the simulated user, the
result its reply ``{"text", "ended", "isError"}``), listed only to a session whose task has a
``user`` block. A failing call is a tool result with ``isError`` whose JSON text is Silo's
``{"code", "message"}``, and one line on stderr; nothing a client sends crashes the server.
``serverInfo.version`` is Silo's version, and each rollout's ``run.json`` names the client
(``agentIdentity``: the ``clientInfo`` name and version it announced).

The task's instruction (a conversational task's: the user's opening message) is in the
server's instructions and a prompt, and, since clients need not show either to the model, in
what every client does show it: the ``silo_message_user`` description and the
``silo_start_task`` result. Each episode is one rollout on a fresh world, opened at its first
call: over stdio the process, over HTTP an episode URL, an ``x-silo-episode`` header or the
``mcp-session-id`` (see :mod:`silo.integrations.mcp_http`). Over stdio, end of input and
SIGINT, SIGTERM or SIGHUP all end the rollout with its complete record; a process that ends
after one tool call without ``silo_finish`` warns that the client starts a process per call.
:func:`serve` runs it over stdio or streamable HTTP.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
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
from silo.distribution import version as silo_version  # noqa: E402
from silo.errors import SessionError, SiloError  # noqa: E402
from silo.integrations.episodes import EpisodeSpec, EpisodeTable, outcome  # noqa: E402
from silo.integrations.mcp_options import (  # noqa: E402
    FINISH_RESULTS,
    check_finish_result,
    check_transport,
)
from silo.integrations.mcp_tools import (  # noqa: E402
    FINISH_TOOL,
    LIST_TOOL,
    MESSAGE_TOOL,
    START_TOOL,
    canonical,
    control_tools,
    environment_tools,
    instructions,
    message_tool,
    prompt_text,
)
from silo.integrations.mcp_tools import tool_result as _result  # noqa: E402
from silo.loading.environment import Environment  # noqa: E402
from silo.rollout.session import Session  # noqa: E402

__all__ = [
    "EPISODE_HEADER",
    "FINISH_RESULTS",
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
_STDIO_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _say(message: str) -> None:
    sys.stderr.write(f"silo-mcp: {message}\n")
    sys.stderr.flush()


def _error(tool: str, code: str, message: str) -> types.CallToolResult:
    _say(f"{tool}: {code}: {message}")
    return _result({"code": code, "message": message}, is_error=True)


def _handle(ctx: ServerRequestContext[Any, Any]) -> str:
    """The client's episode handle: its episode (URL or header), or its MCP session."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return STDIO_HANDLE  # stdio: one process per client
    handle = headers.get(EPISODE_HEADER) or headers.get("mcp-session-id")
    if not handle:
        raise SessionError(
            "episode_unknown",
            "this request has no MCP session (the stateless 2026-07-28 protocol), so it "
            "belongs to no episode; POST /episodes for an episode URL and connect to that URL "
            "(docs/integrations.md), or connect with the handshake (mcp.Client(url, "
            "mode='legacy'))",
        )
    return str(handle)


def _client_fields(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    """run.json's ``agentIdentity``: the MCP client as it announced itself."""
    params = ctx.session.client_params
    info = None if params is None else params.client_info
    identity: dict[str, Any] = {"kind": "mcp"}
    if info is not None:
        identity.update(client=info.name, clientVersion=info.version)
    return {"agentIdentity": identity}


class _Handlers:
    """The server's request handlers over one episode table."""

    def __init__(self, table: EpisodeTable, finish_result: str = "recorded") -> None:
        self.table = table
        self.finish_result = finish_result
        self._warned: set[str] = set()
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
        name, deprecated = canonical(params.name)
        if deprecated and params.name not in self._warned:
            self._warned.add(params.name)
            _say(f"{params.name} is deprecated and goes in the next release; call {name}")
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
                raise SessionError("invalid_input", f'{FINISH_TOOL} takes {{"answer": "<text>"}}')
            session = self.table.start(handle, run_fields=_client_fields(ctx))
            finished = await session.afinish(arguments.get("answer"))
            # The grade stays with Silo unless asked for: an agent told "passed: false" could
            # try again on a world it can no longer change, or learn the checks.
            return _result(outcome(finished) if self.finish_result == "grade" else "recorded")
        session = self._session(ctx, handle)
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
        started = self.table.start(handle, task_id, _client_fields(ctx))
        payload = {"taskId": started.task.id, "instruction": started.instruction}
        if not started.has_user:
            return _result(payload)
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:  # 2026-07-28 has no push
            # Advice only: the task has started, and the next tools/list shows the tool anyway.
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await ctx.session.send_tool_list_changed()
        note = f"The instruction is the user's first message; talk to them with {MESSAGE_TOOL}."
        return _result({**payload, "opening": started.instruction, "conversation": note})

    def _session(self, ctx: ServerRequestContext[Any, Any], handle: str) -> Session:
        """The client's rollout: opened on the fixed task, or the one it started."""
        if self.spec.task is not None:
            return self.table.start(handle, run_fields=_client_fields(ctx))
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


def build_server(table: EpisodeTable, finish_result: str = "recorded") -> Server[Any]:
    """The MCP server over ``table``'s environment; closing the table is the caller's job."""
    check_finish_result(finish_result)
    handlers = _Handlers(table, finish_result)
    return Server(
        "silo",
        version=silo_version(),
        instructions=instructions(table.spec, table.environment),
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_prompts=handlers.list_prompts,
        on_get_prompt=handlers.get_prompt,
    )


def serve(
    spec: EpisodeSpec,
    *,
    transport: str = "stdio",
    finish_result: str = "recorded",
    http: Any = None,
    environment: Environment | None = None,
) -> None:
    """Serve ``spec`` until the client leaves (stdio) or the process is stopped (HTTP).

    ``http`` is the :class:`~silo.integrations.mcp_http.HttpOptions` of ``transport="http"``;
    ``environment`` is ``spec.load()`` when the caller has loaded it already.
    """
    check_transport(transport)
    max_episodes = None if http is None else http.max_episodes
    table = EpisodeTable(spec, environment or spec.load(), max_episodes)
    server = build_server(table, finish_result)
    try:
        if transport == "stdio":
            anyio.run(_serve_stdio, server, table)
            _end_stdio(table, "closed")
        else:
            from silo.integrations.mcp_host import serve_http
            from silo.integrations.mcp_http import HttpOptions

            serve_http(server, table, http or HttpOptions())
    finally:
        table.close_all()  # every rollout a client left open still leaves its record


async def _serve_stdio(server: Server[Any], table: EpisodeTable) -> None:
    # A client picking the task sees the tool list change when it starts a conversation.
    tools_changed = table.spec.task is None
    options = server.create_initialization_options(NotificationOptions(tools_changed=tools_changed))
    async with anyio.create_task_group() as group:
        group.start_soon(_record_on_signal, table)
        async with stdio_server() as (read, write):
            await server.run(read, write, options)
        group.cancel_scope.cancel()


async def _record_on_signal(table: EpisodeTable) -> None:
    """Record the stdio rollout at SIGINT, SIGTERM or SIGHUP, then leave at once.

    Clients stop their server with signals, not by closing stdin, and kill it a fraction of a
    second later: the record is written first, here on the event loop (no tool call is half
    done on it). The process then exits without unwinding, since the stdio transport waits on
    a thread blocked reading stdin that no cancellation reaches.
    """
    with anyio.open_signal_receiver(*_STDIO_SIGNALS) as signals:
        async for signum in signals:
            _end_stdio(table, f"ended by {signal.Signals(signum).name}")
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(128 + signum)


def _end_stdio(table: EpisodeTable, why: str) -> None:
    """End the process's rollout; warn when it looks like one process per tool call."""
    session = table.close(STDIO_HANDLE, why)
    result = None if session is None else session.result
    if result is None or result.result["terminationReason"] != "agent_error":
        return
    if result.result["toolCalls"] == 1:
        _say(
            f"this process ended after one tool call and no {FINISH_TOOL}: the client seems "
            "to start silo-mcp once per tool call, so each call was a rollout of its own; "
            "keep one connection for the whole episode (see docs/integrations.md, Inspect)"
        )
