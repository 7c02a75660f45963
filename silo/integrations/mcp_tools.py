"""silo-mcp's reserved control tools and what it tells a client about the task.

Contract: every name here starts with ``silo_`` and matches ``^[a-zA-Z0-9_-]+$``, the function
names every model API accepts (``silo_`` and ``silo.`` are reserved: :func:`environment_tools`
refuses an environment tool named so). The dotted names of earlier releases (``silo.finish``,
...) are deprecated aliases, still answered for one release: :func:`canonical` maps one to its
new name. :func:`control_tools` are ``silo_list_tasks`` and ``silo_start_task`` (when the
client picks the task) and :data:`FINISH_TOOL`, whose ``answer`` is text; :func:`message_tool`
is ``silo_message_user`` for a task with a ``user`` block, its description quoting the user's
opening. :func:`environment_tools` mark the environment's read-only tools with MCP's
``readOnlyHint`` (and every other with ``destructiveHint: false``, since a world is a fresh
simulation), so that clients may approve reads without asking. :func:`instructions` and :func:`prompt_text` are the task as the
server's instructions and as a prompt (a conversational task's: the user's opening). The
opening is in all of these because MCP clients differ in what reaches the model: instructions
and prompts are optional for a client (a prompt is sent only when the user picks it), while
tool descriptions and tool results always are. :func:`tool_result` is the answer to a
``tools/call`` every MCP door of Silo gives (silo-mcp's and the harness agents').
"""

from __future__ import annotations

import json
from typing import Any

from silo.integrations.extras import require

require("mcp", "mcp", "silo-mcp")

import mcp_types as types  # noqa: E402  (after the extra check, so a missing extra is one line)

from silo.errors import EnvironmentLoadError  # noqa: E402
from silo.integrations.episodes import EpisodeSpec  # noqa: E402
from silo.json_types import JSON  # noqa: E402
from silo.loading.environment import Environment  # noqa: E402
from silo.tasks import Task  # noqa: E402

__all__ = [
    "FINISH_TOOL",
    "LIST_TOOL",
    "MESSAGE_TOOL",
    "START_TOOL",
    "canonical",
    "control_tools",
    "environment_tools",
    "instructions",
    "message_tool",
    "prompt_text",
    "tool_result",
]

FINISH_TOOL = "silo_finish"
LIST_TOOL = "silo_list_tasks"
START_TOOL = "silo_start_task"
MESSAGE_TOOL = "silo_message_user"
# Deprecated since the underscore names (model APIs refuse dots in function names); answered
# until the next release.
_ALIASES = {
    name.replace("silo_", "silo.", 1): name
    for name in (FINISH_TOOL, LIST_TOOL, START_TOOL, MESSAGE_TOOL)
}
_RESERVED_PREFIXES = ("silo_", "silo.")

_FINISH_SPEC: dict[str, Any] = {
    "name": FINISH_TOOL,
    "description": "Give your final answer and end the task: the world is graded and the run "
    "recorded. Call it once, last; nothing you call after it counts.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "answer": {
                "type": "string",
                "description": "Your final answer: what the task asks you to report, as text.",
            }
        },
        "required": ["answer"],
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
    "description": "Start a task on a fresh world and return its instruction (a conversational "
    f"task's: the user's opening message, then talk to them with {MESSAGE_TOOL}). Once per "
    "session.",
    "inputSchema": {
        "type": "object",
        "properties": {"task_id": {"type": "string", "description": "A task id from list_tasks."}},
        "required": ["task_id"],
        "additionalProperties": False,
    },
}


_MESSAGE_DESCRIPTION = (
    "Send one message to the user you are working for and get their reply, "
    '{"text", "ended", "isError"}. The user knows what the task does not say (which record, '
    'amounts, dates): ask them. Once a reply has "ended": true the user has left; finish the '
    f"work and call {FINISH_TOOL}."
)


def message_tool(opening: str) -> types.Tool:
    """``silo.message_user``, its description quoting the user's opening (models read it)."""
    return types.Tool(
        name=MESSAGE_TOOL,
        description=f'{_MESSAGE_DESCRIPTION} The user opened the conversation with: "{opening}"',
        input_schema={
            "type": "object",
            "properties": {
                "text": {"type": "string", "minLength": 1, "description": "Your message."}
            },
            "required": ["text"],
            "additionalProperties": False,
        },
        annotations=_WRITE,
    )


def canonical(name: str) -> tuple[str, bool]:
    """The tool a called name means, and whether the name was a deprecated alias."""
    new = _ALIASES.get(name)
    return (name, False) if new is None else (new, True)


def _tool(spec: dict[str, Any], annotations: types.ToolAnnotations | None = None) -> types.Tool:
    return types.Tool(
        name=spec["name"],
        description=spec["description"],
        input_schema=spec["inputSchema"],
        annotations=annotations,
    )


_READ = types.ToolAnnotations(read_only_hint=True)
_WRITE = types.ToolAnnotations(read_only_hint=False, destructive_hint=False)


def environment_tools(environment: Environment) -> list[types.Tool]:
    """The environment's tools as MCP tools; one named ``silo_*`` or ``silo.*`` is refused."""
    tools = environment.tools()
    reserved = [t.name for t in tools if t.name.startswith(_RESERVED_PREFIXES)]
    if reserved:
        raise EnvironmentLoadError(
            "tool_name_reserved",
            f"tool names starting with silo_ or silo. are reserved for silo-mcp; rename "
            f"{reserved[0]}",
        )
    return [_tool(dict(t.spec()), _READ if t.read_only else _WRITE) for t in tools]


def control_tools(task_open: bool) -> tuple[list[types.Tool], types.Tool]:
    """The tools for picking a task (none when the server's task is fixed), and finish."""
    picking = [_tool(_LIST_SPEC, _READ), _tool(_START_SPEC, _WRITE)] if task_open else []
    return picking, _tool(_FINISH_SPEC, _WRITE)


def instructions(spec: EpisodeSpec, environment: Environment) -> str:
    """What the server tells a client up front: the task, and how to end it."""
    if spec.task is None:
        return (
            f"Silo environment {environment.name}. Call {LIST_TOOL}, then {START_TOOL} with a "
            f"task id; use the tools (and, in a conversational task, {MESSAGE_TOOL} to talk to "
            f"the user), then call {FINISH_TOOL} with your final answer."
        )
    task = environment.task(spec.task)
    opening = spec.opening(task)
    if opening is not None:
        return (
            f"Task {task.id}: you are working for a user, who wrote: {opening}\n\n"
            f"Ask them what you need to know with {MESSAGE_TOOL}, use the tools, then call "
            f"{FINISH_TOOL} with your final answer; it grades the result."
        )
    return (
        f"Task {task.id}: {task.instruction}\n\nUse the tools, then call {FINISH_TOOL} with your "
        "final answer; it grades the result."
    )


def prompt_text(spec: EpisodeSpec, task: Task) -> str:
    """A task's prompt: the user's opening message, or the instruction (no user)."""
    opening = spec.opening(task)
    return task.instruction if opening is None else opening


def tool_result(payload: JSON, is_error: bool = False) -> types.CallToolResult:
    """A ``tools/call`` answer: ``payload`` as text (JSON unless a string), structured if an object."""
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    structured = payload if isinstance(payload, dict) else None
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=is_error,
    )
