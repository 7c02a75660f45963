"""A scripted OpenAI-compatible chat-completions server for tests (stdlib only, 127.0.0.1).

Contract: ``FakeOpenAI(script)`` serves ``POST /v1/chat/completions`` on a free local port. Each
request pops the next entry of ``script``: a :class:`Reply` (HTTP status + JSON body) or a
callable ``(request_json) -> Reply`` (to script a "model" that reacts to tool results). When the
script runs out, the last entry is repeated. Every request is recorded in ``requests`` (path,
headers, parsed JSON body). Use it as a context manager; ``base_url`` ends in ``/v1``.
"""

from __future__ import annotations

import json
from typing import Any

from fake_server import FakeServer, Reply, Step

__all__ = ["FakeOpenAI", "Reply", "error", "final", "length", "refusal", "tool_calls", "USAGE"]

USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def _completion(message: dict[str, Any], finish: str) -> Reply:
    return Reply(
        200,
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": USAGE,
        },
    )


def final(text: str) -> Reply:
    """An assistant turn with no tool calls: the agent's final answer."""
    return _completion({"role": "assistant", "content": text}, "stop")


def tool_calls(*calls: tuple[str, Any]) -> Reply:
    """An assistant turn calling tools; arguments given as a dict are JSON-encoded, a str is sent raw."""
    encoded = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for i, (name, args) in enumerate(calls)
    ]
    return _completion({"role": "assistant", "content": None, "tool_calls": encoded}, "tool_calls")


def length(text: str) -> Reply:
    """An assistant turn the token limit cut off."""
    return _completion({"role": "assistant", "content": text}, "length")


def refusal(text: str) -> Reply:
    """An assistant turn that declines, with the ``refusal`` field set."""
    return _completion({"role": "assistant", "content": None, "refusal": text}, "stop")


def error(status: int, message: str = "scripted failure") -> Reply:
    return Reply(status, {"error": {"message": message, "type": "test_error", "code": None}})


def FakeOpenAI(script: list[Step], latency_s: float = 0.0) -> OpenAIServer:
    """A fake chat-completions endpoint; its ``base_url`` ends in ``/v1``."""
    return OpenAIServer(script, "/chat/completions", latency_s)


class OpenAIServer(FakeServer):
    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"
