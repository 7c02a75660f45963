"""A scripted model upstream: replays a recorded run's tool calls to any harness.

Contract: :class:`ReplayScript` holds tool calls (name, input) and a final answer, read from a
run's ``trace.jsonl`` by :meth:`ReplayScript.from_trace` (the same reader as ``agent=replay``;
a conversational run's messages to the user become ``silo_message_user`` calls in their place).
:meth:`ReplayScript.reply` answers one model request in the API it was sent in (Anthropic
Messages, OpenAI Responses or Chat Completions; a server-sent-event stream when the request
asks for one): with ``k`` tool results already in the request's conversation, it asks for call
``k``, then for ``silo_finish`` with the answer, then says the answer as its final text. It
finds each tool under the name the harness offered it (``mcp__silo__<tool>``, a Responses
``namespace``, or the bare name); a tool not offered is said in the final text, and the run
fails visibly. The same request always gets the same reply, so a harness's retries are safe.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from silo.agents.contract import output_text
from silo.agents.replay import read_recorded_run
from silo.integrations.harness.wire import ANTHROPIC, RESPONSES
from silo.integrations.mcp_tools import FINISH_TOOL, MESSAGE_TOOL

__all__ = ["ReplayScript"]

SSE = "text/event-stream"
JSON = "application/json"


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _results_so_far(api: str, request: dict[str, Any]) -> int:
    """How many tool results the request's conversation holds (the step reached)."""
    if api == ANTHROPIC:
        return sum(
            1
            for message in _list(request.get("messages"))
            for block in _list(message.get("content") if isinstance(message, dict) else None)
            if isinstance(block, dict) and block.get("type") == "tool_result"
        )
    if api == RESPONSES:
        items = _list(request.get("input"))
        return sum(
            1 for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"
        )
    messages = _list(request.get("messages"))
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "tool")


def _offered(api: str, request: dict[str, Any], want: str) -> tuple[str, str | None] | None:
    """The name (and Responses namespace) under which the harness offers tool ``want``."""
    entries: list[tuple[str, str | None]] = []
    for tool in _list(request.get("tools")):
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            space: str | None = str(tool.get("name"))
            entries += [(str(t.get("name")), space) for t in _list(tool.get("tools"))]
        elif isinstance(tool.get("function"), dict):
            entries.append((str(tool["function"].get("name")), None))
        else:
            entries.append((str(tool.get("name")), None))
    for name, namespace in entries:
        if name == want or name.endswith(f"__{want}"):
            return name, namespace
    return None


@dataclass(frozen=True)
class ReplayScript:
    """Tool calls to ask for, in order, then the answer (see the module docstring)."""

    calls: tuple[tuple[str, dict[str, Any]], ...]
    answer: str

    @classmethod
    def from_trace(cls, path: Path) -> ReplayScript:
        """The calls and answer of a recorded run (one-line ``AgentError`` when unreadable)."""
        run = read_recorded_run(Path(path))
        calls = tuple(
            (str(step["tool"]), dict(step.get("input") or {}))
            if "tool" in step
            else (MESSAGE_TOOL, {"text": step["text"]})
            for step in run.steps()
        )
        return cls(calls, output_text(run.output))

    def reply(self, api: str, request: dict[str, Any]) -> tuple[int, str, bytes]:
        """HTTP status, content type and body answering ``request`` (see the module)."""
        step = _results_so_far(api, request)
        call: tuple[str, dict[str, Any]] | None = None
        namespace: str | None = None
        text = self.answer
        if step <= len(self.calls):
            want, arguments = (
                self.calls[step]
                if step < len(self.calls)
                else (FINISH_TOOL, {"answer": self.answer})
            )
            offered = _offered(api, request, want)
            if offered is None:
                text = f"the replayed tool {want} is not among the tools this harness offered"
            else:
                call, namespace = (offered[0], arguments), offered[1]
        model = str(request.get("model") or "silo-replay")
        stream = bool(request.get("stream"))
        if api == ANTHROPIC:
            events = _anthropic(model, step, call, text)
        elif api == RESPONSES:
            events = _responses(model, step, call, text, namespace)
        else:
            events = _chat(model, step, call, text)
        if not stream:
            return 200, JSON, json.dumps(events[-1][1]).encode()
        body = "".join(
            (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
            for name, data in events[:-1]
        )
        if api not in (ANTHROPIC, RESPONSES):
            body += "data: [DONE]\n\n"
        return 200, SSE, body.encode()


Event = tuple[str | None, dict[str, Any]]
_USAGE = {"input_tokens": 10, "output_tokens": 5}


def _anthropic(
    model: str, step: int, call: tuple[str, dict[str, Any]] | None, text: str
) -> list[Event]:
    """The stream's events, then (last) the whole message a non-streaming request gets."""
    if call is None:
        block: dict[str, Any] = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": text}
        whole: dict[str, Any] = {"type": "text", "text": text}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{step}", "name": call[0], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call[1])}
        whole = {**block, "input": call[1]}
        stop = "tool_use"
    message: dict[str, Any] = {
        "id": f"msg_{step}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }  # fmt: skip
    return [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {
            "type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        }),
        ("message_stop", {"type": "message_stop"}),
        (None, {**message, "content": [whole], "stop_reason": stop, "usage": _USAGE}),
    ]  # fmt: skip


def _responses(
    model: str,
    step: int,
    call: tuple[str, dict[str, Any]] | None,
    text: str,
    namespace: str | None,
) -> list[Event]:
    if call is None:
        item: dict[str, Any] = {
            "type": "message", "id": f"msg_{step}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }  # fmt: skip
    else:
        item = {
            "type": "function_call", "id": f"fc_{step}", "call_id": f"call_{step}",
            "name": call[0], "arguments": json.dumps(call[1]), "status": "completed",
        }  # fmt: skip
        if namespace is not None:
            item["namespace"] = namespace
    usage = {
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15,
    }  # fmt: skip
    response: dict[str, Any] = {"id": f"resp_{step}", "object": "response", "model": model}
    started = {**response, "status": "in_progress", "output": [], "usage": None}
    done = {**response, "status": "completed", "output": [item], "usage": usage}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": started},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**item, "status": "in_progress"}},
    ]  # fmt: skip
    if call is None:
        events.append(
            {"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
             "content_index": 0, "delta": text}
        )  # fmt: skip
    events += [
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": done},
    ]
    numbered: list[Event] = [
        (str(e["type"]), {**e, "sequence_number": n}) for n, e in enumerate(events)
    ]
    return [*numbered, (None, done)]


def _chat(model: str, step: int, call: tuple[str, dict[str, Any]] | None, text: str) -> list[Event]:
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    if call is None:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        delta: dict[str, Any] = {"role": "assistant", "content": text}
        finish = "stop"
    else:
        function = {"name": call[0], "arguments": json.dumps(call[1])}
        tool_call = {"id": f"call_{step}", "type": "function", "function": function}
        message = {"role": "assistant", "content": None, "tool_calls": [tool_call]}
        delta = {"role": "assistant", "tool_calls": [{"index": 0, **tool_call}]}
        finish = "tool_calls"
    head = {"id": f"chatcmpl-{step}", "model": model, "created": 0}
    chunk = {**head, "object": "chat.completion.chunk"}
    return [
        (None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
        (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
        (None, {**chunk, "choices": [], "usage": usage}),
        (None, {**head, "object": "chat.completion", "usage": usage,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}]}),
    ]  # fmt: skip
