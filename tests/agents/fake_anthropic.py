"""A scripted Anthropic Messages API server for tests (stdlib only, 127.0.0.1).

Contract: ``FakeAnthropic(script)`` serves ``POST /v1/messages`` (see :mod:`fake_server` for
scripts, recorded requests and latency). The builders return full response bodies, as the real
API does, so the SDK parses them with strict validation on.
"""

from __future__ import annotations

from typing import Any

from fake_server import FakeServer, Reply, Step

__all__ = ["USAGE", "FakeAnthropic", "error", "final", "stopped", "tool_uses"]

USAGE = {"input_tokens": 13, "output_tokens": 5}


class AnthropicServer(FakeServer):
    @property
    def base_url(self) -> str:
        return self.origin  # the SDK appends /v1/messages


def FakeAnthropic(script: list[Step], latency_s: float = 0.0) -> AnthropicServer:
    """A fake Messages endpoint."""
    return AnthropicServer(script, "/v1/messages", latency_s)


def _message(content: list[dict[str, Any]], stop: str) -> Reply:
    return Reply(
        200,
        {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": "fake-claude",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": USAGE,
        },
    )


def final(text: str) -> Reply:
    """A final answer: text and ``end_turn``."""
    return _message([{"type": "text", "text": text}], "end_turn")


def stopped(stop: str, text: str = "partial") -> Reply:
    """A turn ending for ``stop`` (``max_tokens``, ``refusal``, ``pause_turn``)."""
    return _message([{"type": "text", "text": text}], stop)


def tool_uses(*calls: tuple[str, dict[str, Any]]) -> Reply:
    """A turn calling tools, one ``tool_use`` block each."""
    blocks = [
        {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}
        for i, (name, args) in enumerate(calls)
    ]
    return _message(blocks, "tool_use")


def error(status: int, message: str = "scripted failure") -> Reply:
    kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
    return Reply(status, {"type": "error", "error": {"type": kind, "message": message}})
