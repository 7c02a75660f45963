"""The three model APIs a harness speaks, read from their wire: requests, replies, SSE streams.

Contract: :func:`api_of` names the API of a request path (``anthropic.messages``,
``openai.responses``, ``openai.chat``; None for anything else, which the proxy forwards
unrecorded). :func:`sse_events` parses a ``text/event-stream`` body into its JSON events, and
:func:`assemble` turns a reply (a JSON body, or the events of a streamed one) into the one
message object the API's non-streaming answer would have been. :func:`request_summary` and
:func:`reply_summary` read what a ``model_step`` records of them, with the keys Silo's own
model agents use: ``model``, ``messages``, ``tools`` and ``stream`` of the request; ``text``,
``toolCalls`` (``name``, ``arguments`` as JSON text), ``finishReason`` and ``usage``
(``promptTokens``, ``completionTokens``, ``totalTokens``) of the reply. :func:`chained` is a
request body as the trace keeps it: only what is new since the previous request. Nothing here
raises on a malformed body: what cannot be read is left out.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "ANTHROPIC",
    "CHAT",
    "RESPONSES",
    "api_of",
    "assemble",
    "chained",
    "reply_summary",
    "request_summary",
    "sse_events",
]

ANTHROPIC = "anthropic.messages"
RESPONSES = "openai.responses"
CHAT = "openai.chat"


def api_of(path: str) -> str | None:
    """The API a request path belongs to (any base path before it), or None."""
    path = path.rstrip("/")
    if path.endswith("/messages"):
        return ANTHROPIC
    if path.endswith("/responses"):
        return RESPONSES
    if path.endswith("/chat/completions"):
        return CHAT
    return None


def sse_events(body: bytes) -> list[dict[str, Any]]:
    """The JSON ``data`` of each event of an SSE body (``[DONE]`` and non-JSON skipped)."""
    events: list[dict[str, Any]] = []
    for block in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = b"\n".join(
            line[5:].lstrip() for line in block.split(b"\n") if line.startswith(b"data:")
        )
        if not data or data == b"[DONE]":
            continue
        try:
            event = json.loads(data)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def assemble(api: str, body: bytes, streamed: bool) -> dict[str, Any]:
    """The reply as one message object (what the API answers when not streaming)."""
    if not streamed:
        try:
            return _dict(json.loads(body))
        except ValueError:
            return {}
    events = sse_events(body)
    if api == ANTHROPIC:
        return _anthropic_message(events)
    if api == RESPONSES:
        done = [e for e in events if e.get("type") in ("response.completed", "response.done")]
        return _dict(done[-1].get("response")) if done else {}
    return _chat_completion(events)


def _anthropic_message(events: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            message = dict(_dict(event.get("message")))
            message["usage"] = dict(_dict(message.get("usage")))
        elif kind == "content_block_start":
            blocks[int(event.get("index", 0))] = dict(_dict(event.get("content_block")))
        elif kind == "content_block_delta":
            index, delta = int(event.get("index", 0)), _dict(event.get("delta"))
            block = blocks.setdefault(index, {})
            if delta.get("type") == "text_delta":
                block["text"] = str(block.get("text", "")) + str(delta.get("text", ""))
            elif delta.get("type") == "input_json_delta":
                partial[index] = partial.get(index, "") + str(delta.get("partial_json", ""))
        elif kind == "message_delta":
            message.update(_dict(event.get("delta")))
            message.setdefault("usage", {}).update(_dict(event.get("usage")))
    for index, text in partial.items():
        try:
            blocks[index]["input"] = json.loads(text) if text else {}
        except ValueError:
            blocks[index]["input"] = text
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


def _chat_completion(events: list[dict[str, Any]]) -> dict[str, Any]:
    text, finish, usage, model = "", None, None, None
    calls: dict[int, dict[str, Any]] = {}
    for event in events:
        model = event.get("model", model)
        usage = event.get("usage") or usage
        for choice in _list(event.get("choices"))[:1]:
            delta = _dict(_dict(choice).get("delta"))
            text += str(delta.get("content") or "")
            finish = _dict(choice).get("finish_reason") or finish
            for call in _list(delta.get("tool_calls")):
                slot = calls.setdefault(int(_dict(call).get("index", 0)), {"name": "", "args": ""})
                function = _dict(_dict(call).get("function"))
                slot["name"] += str(function.get("name") or "")
                slot["args"] += str(function.get("arguments") or "")
    tool_calls = [
        {"type": "function", "function": {"name": c["name"], "arguments": c["args"]}}
        for _, c in sorted(calls.items())
    ]
    message = {"role": "assistant", "content": text or None, "tool_calls": tool_calls or None}
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {"model": model, "choices": [choice], "usage": usage}


def _count_tools(tools: list[Any]) -> int:
    """Tools offered, a Responses ``namespace`` entry counted by the functions it holds."""
    return sum(
        len(_list(t.get("tools"))) if _dict(t).get("type") == "namespace" else 1 for t in tools
    )


def request_summary(api: str, request: dict[str, Any]) -> dict[str, Any]:
    """``model``, ``messages`` (how many), ``tools`` (how many) and ``stream`` of a request."""
    messages = request.get("input") if api == RESPONSES else request.get("messages")
    return {
        "model": request.get("model"),
        "messages": len(messages) if isinstance(messages, list) else int(messages is not None),
        "tools": _count_tools(_list(request.get("tools"))),
        "stream": bool(request.get("stream")),
    }


def _tokens(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _usage(prompt: Any, completion: Any) -> dict[str, int]:
    used = (_tokens(prompt), _tokens(completion))
    return {"promptTokens": used[0], "completionTokens": used[1], "totalTokens": sum(used)}


def reply_summary(api: str, message: dict[str, Any]) -> dict[str, Any]:
    """``text``, ``toolCalls``, ``finishReason`` and ``usage`` of an assembled reply."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    usage = _dict(message.get("usage"))
    if api == ANTHROPIC:
        for block in map(_dict, _list(message.get("content"))):
            if block.get("type") == "text":
                texts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
                calls.append({"name": block.get("name"), "arguments": arguments})
        finish = message.get("stop_reason")
        counted = _usage(usage.get("input_tokens"), usage.get("output_tokens"))
    elif api == RESPONSES:
        for item in map(_dict, _list(message.get("output"))):
            if item.get("type") == "message":
                texts.extend(
                    str(part.get("text", ""))
                    for part in map(_dict, _list(item.get("content")))
                    if part.get("type") == "output_text"
                )
            elif item.get("type") == "function_call":
                calls.append({"name": item.get("name"), "arguments": item.get("arguments")})
        finish = "tool_calls" if calls else message.get("status")
        counted = _usage(usage.get("input_tokens"), usage.get("output_tokens"))
    else:
        choice = _dict((_list(message.get("choices")) or [{}])[0])
        reply = _dict(choice.get("message"))
        if reply.get("content"):
            texts.append(str(reply["content"]))
        for call in map(_dict, _list(reply.get("tool_calls"))):
            function = _dict(call.get("function"))
            calls.append({"name": function.get("name"), "arguments": function.get("arguments")})
        finish = choice.get("finish_reason")
        counted = _usage(usage.get("prompt_tokens"), usage.get("completion_tokens"))
    return {
        "text": "".join(texts) if texts else None,
        "toolCalls": calls,
        "finishReason": finish if isinstance(finish, str) else None,
        "usage": counted,
    }


_SAME_KEYS = ("tools", "system", "instructions")
_GROWING_KEYS = ("messages", "input")


def chained(body: dict[str, Any], previous: dict[str, Any] | None, base: int) -> dict[str, Any]:
    """``body`` without what request ``base`` (whose body was ``previous``) already sent.

    A harness resends the whole conversation and every tool with each request, so a trace of
    full bodies grows with the square of the turns. Kept: ``tools``, ``system`` and
    ``instructions`` only when they changed, and of ``messages`` (Responses: ``input``) only
    what follows the longest prefix shared with the previous request. ``chain`` says how to
    rebuild the body: ``base`` (that request's turn), ``same`` (keys as in the base) and
    ``kept`` (key -> how many leading items of the base's list come first). The first request,
    or one sharing nothing, is kept whole.
    """
    if previous is None:
        return body
    out, same, kept = dict(body), [], {}
    for key in _SAME_KEYS:
        if key in body and body[key] == previous.get(key):
            del out[key]
            same.append(key)
    for key in _GROWING_KEYS:
        new, old = body.get(key), previous.get(key)
        if not isinstance(new, list) or not isinstance(old, list):
            continue
        shared = 0
        for mine, theirs in zip(new, old, strict=False):
            if mine != theirs:
                break
            shared += 1
        if shared:
            out[key] = new[shared:]
            kept[key] = shared
    if same or kept:
        out["chain"] = {"base": base, "same": same, "kept": kept}
    return out
