"""The three model APIs read from their wire: a streamed reply reads as its whole message.

The replay upstream answers each API streamed and not; what the proxy records of the stream
(assembled, then summarised) must be what it records of the plain answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

# The harness agents need the [mcp] extra (their MCP door); the floors run goes without it.
pytest.importorskip("mcp", reason="the harness agents need the [mcp] extra")

from silo.integrations.harness.replay import ReplayScript
from silo.integrations.harness.wire import (
    ANTHROPIC,
    CHAT,
    RESPONSES,
    api_of,
    assemble,
    chained,
    reply_summary,
    request_summary,
)

SCRIPT = ReplayScript((("get_user", {"userId": "USR-004"}),), "done: USR-004")


def _request(api: str, stream: bool, results: int) -> dict[str, Any]:
    """A request offering get_user and silo_finish the way each harness names them."""
    if api == ANTHROPIC:
        tools: list[Any] = [{"name": "mcp__silo__get_user"}, {"name": "mcp__silo__silo_finish"}]
        block = {"type": "tool_result", "tool_use_id": "t", "content": "{}"}
        messages: list[Any] = [{"role": "user", "content": "go"}]
        messages += [{"role": "user", "content": [block]}] * results
        return {"model": "m", "stream": stream, "tools": tools, "messages": messages}
    if api == RESPONSES:
        space = {"type": "namespace", "name": "mcp__silo",
                 "tools": [{"type": "function", "name": "get_user"},
                           {"type": "function", "name": "silo_finish"}]}  # fmt: skip
        items = [{"type": "function_call_output", "call_id": "c", "output": "{}"}] * results
        return {"model": "m", "stream": stream, "tools": [space], "input": items}
    tools = [{"type": "function", "function": {"name": n}} for n in ("get_user", "silo_finish")]
    messages = [{"role": "user", "content": "go"}, *[{"role": "tool", "content": "{}"}] * results]
    return {"model": "m", "stream": stream, "tools": tools, "messages": messages}


@pytest.mark.parametrize("api", [ANTHROPIC, RESPONSES, CHAT])
def test_a_stream_reads_as_the_message_the_api_sends_unstreamed(api: str) -> None:
    said = []
    for step in range(3):  # the call, silo_finish, the final text
        plain = SCRIPT.reply(api, _request(api, False, step))
        streamed = SCRIPT.reply(api, _request(api, True, step))
        assert plain[1] == "application/json" and streamed[1] == "text/event-stream"
        whole = reply_summary(api, assemble(api, plain[2], streamed=False))
        assert reply_summary(api, assemble(api, streamed[2], streamed=True)) == whole
        said.append(whole)
    calls = [(c["name"], json.loads(c["arguments"])) for s in said for c in s["toolCalls"]]
    assert [name.rpartition("__")[2] for name, _ in calls] == ["get_user", "silo_finish"]
    assert calls[0][1] == {"userId": "USR-004"} and calls[1][1] == {"answer": "done: USR-004"}
    assert said[2]["text"] == "done: USR-004" and said[2]["toolCalls"] == []
    assert said[0]["usage"]["totalTokens"] == 15


def test_a_tool_the_harness_did_not_offer_is_said_in_the_final_text() -> None:
    request = {"model": "m", "messages": [], "tools": [{"name": "other"}]}
    answer = SCRIPT.reply(ANTHROPIC, request)[2]
    text = reply_summary(ANTHROPIC, assemble(ANTHROPIC, answer, streamed=False))["text"]
    assert text == "the replayed tool get_user is not among the tools this harness offered"


def test_paths_name_their_api_and_requests_are_counted() -> None:
    assert api_of("/v1/messages") == ANTHROPIC
    assert api_of("/v1/responses") == RESPONSES
    assert api_of("/v1/chat/completions") == CHAT
    assert api_of("/v1/models") is None
    summary = request_summary(RESPONSES, _request(RESPONSES, True, 2))
    assert summary == {"model": "m", "messages": 2, "tools": 2, "stream": True}


def test_a_malformed_reply_reads_as_nothing_rather_than_failing() -> None:
    assert reply_summary(CHAT, assemble(CHAT, b"not json", streamed=False))["text"] is None
    assert assemble(ANTHROPIC, b"data: {broken\n\n", streamed=True)["content"] == []


def _rebuilt(kept: list[dict[str, Any]], turn: int) -> dict[str, Any]:
    """Request ``turn`` (1-based) rebuilt from the kept bodies, as docs/agents.md says."""
    body = dict(kept[turn - 1])
    chain = body.pop("chain", None)
    if chain is None:
        return body
    base = _rebuilt(kept, chain["base"])
    for key in chain["same"]:
        body[key] = base[key]
    for key, shared in chain["kept"].items():
        body[key] = base[key][:shared] + body[key]
    return body


def test_a_request_body_is_kept_as_what_is_new_and_rebuilds_whole() -> None:
    sent = [_request(ANTHROPIC, True, results) for results in range(3)]
    # A harness moving a cache marker onto its newest message changes an old one too.
    sent[2]["messages"][1] = {**sent[2]["messages"][1], "cache_control": {"type": "ephemeral"}}
    kept = [chained(body, sent[i - 1] if i else None, i) for i, body in enumerate(sent)]
    assert kept[0] == sent[0]
    assert "tools" not in kept[1] and kept[1]["chain"] == {
        "base": 1, "same": ["tools"], "kept": {"messages": 1},
    }  # fmt: skip
    assert kept[2]["chain"]["kept"] == {"messages": 1} and len(kept[2]["messages"]) == 2
    assert [_rebuilt(kept, turn) for turn in (1, 2, 3)] == sent
