"""An MCP server exposing one Silo environment's tools, one rollout per MCP session.

Contract: :func:`build_server` makes an ``mcp`` low-level server (the high-level ``MCPServer``
cannot advertise a raw JSON Schema) whose tools are the environment's own, with their schemas
and descriptions, plus three reserved ``silo.``-prefixed tools: ``silo.finish`` (the answer:
grades, writes the four artifacts and returns passed, reward and the checks),
``silo.list_tasks`` and ``silo.start_task`` (when the server's task is left open). A failing
call is a tool result with ``isError`` whose JSON text is Silo's ``{"code", "message"}``, and
one line on stderr; nothing a client sends crashes the server. The task's instruction is the
server's instructions and a prompt. Each MCP session (stdio: the process; HTTP: the
``mcp-session-id``, or an ``x-silo-episode`` header for the stateless protocol) is one rollout
on a fresh world, opened at its first call; a client gone without finishing is closed by the
idle reaper or at shutdown, which still writes a complete record. :func:`serve` runs it over
stdio or streamable HTTP.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from typing import Any

from silo.integrations.extras import require

require("mcp", "mcp", "silo-mcp")

import anyio  # noqa: E402  (after the extra check, so a missing extra is one line)
import mcp_types as types  # noqa: E402
from mcp import MCPError  # noqa: E402
from mcp.server import Server, ServerRequestContext  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402

from silo.agents.contract import RunLimitError  # noqa: E402
from silo.errors import ConfigError, EnvironmentLoadError, SessionError, SiloError  # noqa: E402
from silo.integrations.episodes import EpisodeSpec, EpisodeTable, outcome  # noqa: E402
from silo.loading.environment import Environment  # noqa: E402
from silo.rollout.session import Session  # noqa: E402

__all__ = ["FINISH_TOOL", "LIST_TOOL", "START_TOOL", "EPISODE_HEADER", "build_server", "serve"]

FINISH_TOOL = "silo.finish"
LIST_TOOL = "silo.list_tasks"
START_TOOL = "silo.start_task"
EPISODE_HEADER = "x-silo-episode"
STDIO_HANDLE = "stdio"
_ENDED = f"this rollout has ended ({FINISH_TOOL} was called); reconnect to start a new one"
IDLE_TIMEOUT_S = 1800.0  # the SDK's own session_idle_timeout, so both forget a client together

_FINISH_SPEC = {
    "name": FINISH_TOOL,
    "description": "Give your final answer and end the task: the world is graded and the run "
    "recorded. Returns passed, reward and every check. Call it once, last.",
    "inputSchema": {
        "type": "object",
        "properties": {"answer": {"description": "Your final answer (text or any JSON value)."}},
        "additionalProperties": False,
    },
}
_LIST_SPEC = {
    "name": LIST_TOOL,
    "description": "List the tasks of this environment (id, title, difficulty).",
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
}
_START_SPEC = {
    "name": START_TOOL,
    "description": "Start a task on a fresh world and return its instruction. Once per session.",
    "inputSchema": {
        "type": "object",
        "properties": {"task_id": {"type": "string", "description": "A task id from list_tasks."}},
        "required": ["task_id"],
        "additionalProperties": False,
    },
}


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


def instructions(spec: EpisodeSpec, environment: Environment) -> str:
    """What the server tells a client up front: the task, and how to end it."""
    if spec.task is None:
        return (
            f"Silo environment {environment.name}. Call {LIST_TOOL}, then {START_TOOL} with a "
            f"task id; use the tools, then call {FINISH_TOOL} with your final answer."
        )
    task = environment.task(spec.task)
    return (
        f"Task {task.id}: {task.instruction}\n\nUse the tools, then call {FINISH_TOOL} with your "
        "final answer; it grades the result."
    )


class _Handlers:
    """The server's request handlers over one episode table."""

    def __init__(self, table: EpisodeTable) -> None:
        self.table = table
        self.spec = table.spec
        self.environment = table.environment
        specs = self.environment.tool_specs()
        reserved = [s["name"] for s in specs if str(s["name"]).startswith("silo.")]
        if reserved:
            raise EnvironmentLoadError(
                "tool_name_reserved",
                f"tool names starting with silo. are reserved for silo-mcp; rename {reserved[0]}",
            )
        own = [_FINISH_SPEC] if self.spec.task else [_LIST_SPEC, _START_SPEC, _FINISH_SPEC]
        self.tools = [
            types.Tool(name=s["name"], description=s["description"], input_schema=s["inputSchema"])
            for s in [*specs, *own]
        ]

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """Every tool: the environment's, then silo-mcp's own."""
        return types.ListToolsResult(tools=self.tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        """Run one call; every failure becomes an ``isError`` result, never an exception."""
        name = params.name
        arguments = dict(params.arguments or {})
        try:
            return await self._call(_handle(ctx), name, arguments)
        except RunLimitError as exc:
            return _error(name, exc.reason, str(exc))
        except SiloError as exc:
            if exc.code == "session_finished":
                return _error(name, exc.code, _ENDED)
            return _error(name, exc.code, exc.message)
        except Exception as exc:  # a Silo bug must not take the other sessions down
            return _error(name, "internal_error", f"{type(exc).__name__}: {exc}")

    async def _call(
        self, handle: str, name: str, arguments: dict[str, Any]
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
            started = self.table.start(handle, task_id)
            return _result({"taskId": started.task.id, "instruction": started.instruction})
        if name == FINISH_TOOL:
            if set(arguments) - {"answer"}:
                raise SessionError("invalid_input", f'{FINISH_TOOL} takes {{"answer": <value>}}')
            finished = await self.table.start(handle).afinish(arguments.get("answer"))
            return _result(outcome(finished))
        table = self.table
        session: Session | None = (
            table.get(handle) if self.spec.task is None else table.start(handle)
        )
        if session is None:
            raise SessionError("task_not_chosen", f"no task started; call {START_TOOL} first")
        called = await session.acall_tool(name, arguments)
        if called.is_error:
            error = called.output if isinstance(called.output, dict) else {}
            _say(f"{name}: {error.get('code', 'tool_error')}: {error.get('message', '')}")
        return _result(called.output, called.is_error)

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
        """The task's instruction as a user message."""
        if params.name not in self._task_ids():
            known = ", ".join(self._task_ids())
            _say(f"prompt {params.name}: unknown; known: {known}")
            raise MCPError(types.INVALID_PARAMS, f'unknown prompt "{params.name}"; known: {known}')
        task = self.environment.task(params.name)
        text = types.TextContent(type="text", text=task.instruction)
        return types.GetPromptResult(
            description=task.title, messages=[types.PromptMessage(role="user", content=text)]
        )


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
            anyio.run(_serve_stdio, server)
        elif transport == "http":
            _serve_http(server, table, host, port, idle_timeout_s)
        else:
            raise ConfigError(
                "config_invalid", f"transport must be stdio or http, got {transport!r}"
            )
    finally:
        table.close_all()  # every rollout a client left open still leaves its record


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


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
