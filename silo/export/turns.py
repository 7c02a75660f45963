"""Model turns read back from a trace: each ``model_step``'s full prompt, completion and tokens.

Contract: :func:`model_turns` reads the ``model_step`` events of one ``trace.jsonl`` (the
exact-turns schema: ``api``, ``prompt`` {``base``, ``messages``, ``system``, ``tools``},
``completion`` {``message``, ``finishReason``, ``tokenIds``, ``logprobs``}, ``promptTokenIds``)
and rebuilds every turn's whole conversation: turn *t*'s messages are those of its ``base``
turn, that turn's completion message, then its own new ones. Messages and tools come out in
OpenAI chat format whatever the API was (:func:`openai_messages` and :func:`openai_tools`
convert ``anthropic.messages``), with the system prompt as the first message. Token fields stay
as the endpoint sent them; absent ones are ``None``. A trace with a ``model_step`` that names
a ``base`` it does not hold raises :class:`~silo.errors.ArtifactError` naming the turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from silo.errors import ArtifactError
from silo.json_types import JSON

__all__ = ["ModelTurn", "model_turns", "openai_messages", "openai_tools"]


@dataclass(frozen=True)
class ModelTurn:
    """One completion as the model saw and produced it (messages in OpenAI chat format)."""

    turn: int
    prompt: list[dict[str, JSON]]
    completion: dict[str, JSON]
    tools: list[dict[str, JSON]]
    finish_reason: JSON
    prompt_token_ids: list[int] | None
    completion_token_ids: list[int] | None
    completion_logprobs: list[float] | None


def model_turns(trace: Path) -> list[ModelTurn]:
    """Every ``model_step`` of ``trace`` as a :class:`ModelTurn`, in trace order."""
    steps: dict[int, tuple[list[dict[str, JSON]], dict[str, JSON], list[dict[str, JSON]]]] = {}
    turns: list[ModelTurn] = []
    for event in _events(trace):
        prompt = event.get("prompt") if isinstance(event.get("prompt"), Mapping) else {}
        completion = event.get("completion")
        if not isinstance(prompt, Mapping) or not isinstance(completion, Mapping):
            continue  # a model_step from before the exact-turns schema: counts only
        api = str(event.get("api", "openai.chat"))
        turn = int(event.get("turn", len(turns) + 1))
        base = prompt.get("base")
        new = list(prompt.get("messages") or [])
        if base is None:
            leads = bool(new) and new[0].get("role") in ("system", "developer")
            messages: list[dict[str, JSON]] = [] if leads else _system(prompt.get("system"))
            tools = openai_tools(api, prompt.get("tools") or [])
        elif base in steps:
            before, answered, tools = steps[base]
            messages = [*before, answered]
        else:
            raise ArtifactError(
                "export_bad_trace",
                f"{trace}: model_step turn {turn} extends turn {base}, which the trace does not "
                "hold; the trace is incomplete",
            )
        messages += openai_messages(api, new)
        (answer,) = openai_messages(api, [dict(completion.get("message") or {})])
        steps[turn] = (messages, answer, tools)
        turns.append(
            ModelTurn(
                turn=turn,
                prompt=messages,
                completion=answer,
                tools=tools,
                finish_reason=completion.get("finishReason"),
                prompt_token_ids=_ints(event.get("promptTokenIds")),
                completion_token_ids=_ints(completion.get("tokenIds")),
                completion_logprobs=_floats(completion.get("logprobs")),
            )
        )
    return turns


def _events(trace: Path) -> Iterable[dict[str, JSON]]:
    try:
        lines = trace.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ArtifactError(
            "export_bad_trace", f"{trace} cannot be read ({exc.strerror or exc})"
        ) from None
    for line in lines:
        if '"model_step"' not in line:
            continue  # most lines are tool calls: skip them without parsing
        event = json.loads(line)
        if isinstance(event, dict) and event.get("type") == "model_step":
            yield event


def _system(system: JSON) -> list[dict[str, JSON]]:
    if isinstance(system, list):  # Anthropic's system blocks
        system = "".join(b.get("text", "") for b in system if isinstance(b, Mapping))
    return [{"role": "system", "content": system}] if system else []


def _ints(value: JSON) -> list[int] | None:
    return [int(v) for v in value] if isinstance(value, list) else None


def _floats(value: JSON) -> list[float] | None:
    return [float(v) for v in value] if isinstance(value, list) else None


def openai_tools(api: str, tools: list[JSON]) -> list[dict[str, JSON]]:
    """Tool specs as OpenAI chat ``tools`` (``{"type": "function", "function": {...}}``)."""
    if api != "anthropic.messages":
        return [dict(t) for t in tools]
    return [
        {
            "type": "function",
            "function": {
                "name": t.get("name"),
                "description": t.get("description", ""),
                "parameters": t.get("input_schema", {"type": "object"}),
            },
        }
        for t in tools
    ]


def openai_messages(api: str, messages: list[JSON]) -> list[dict[str, JSON]]:
    """Messages in OpenAI chat format; Anthropic content blocks become messages and tool calls."""
    if api != "anthropic.messages":
        return [dict(m) for m in messages]
    converted: list[dict[str, JSON]] = []
    for message in messages:
        role, content = message.get("role"), message.get("content")
        if isinstance(content, str):
            converted.append({"role": role, "content": content})
        elif role == "assistant":
            converted.append(_assistant(content or []))
        else:
            converted += _user_blocks(content or [])
    return converted


def _assistant(blocks: list[Mapping[str, JSON]]) -> dict[str, JSON]:
    """An Anthropic assistant turn: its text, and its ``tool_use`` blocks as tool calls."""
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    calls = [
        {
            "id": b.get("id"),
            "type": "function",
            "function": {"name": b.get("name"), "arguments": json.dumps(b.get("input", {}))},
        }
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    message: dict[str, JSON] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    return message


def _user_blocks(blocks: list[Mapping[str, JSON]]) -> list[dict[str, JSON]]:
    """An Anthropic user turn: ``tool_result`` blocks become ``tool`` messages, text a user one."""
    messages: list[dict[str, JSON]] = []
    text: list[str] = []
    for block in blocks:
        if block.get("type") == "tool_result":
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": block.get("tool_use_id"),
                    "content": _text(block.get("content")),
                }
            )
        elif block.get("type") == "text":
            text.append(str(block.get("text", "")))
    if text:
        messages.append({"role": "user", "content": "".join(text)})
    return messages


def _text(content: JSON) -> str:
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
    return "" if content is None else str(content)
