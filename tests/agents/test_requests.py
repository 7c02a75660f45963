"""What one turn of a model agent sends (silo.agents.requests), without a server.

Covers: the request body's bytes (fixed fields, then tools, then messages; values orjson cannot
write still exact), the tool array kept in the conversation state, the prompt a ``model_step``
records (whole, then only what is new, whole again when the conversation no longer continues
it), and the SDK client's URL and headers.
"""

from __future__ import annotations

import json

import openai
import pytest

from silo.agents.contract import AgentError
from silo.agents.endpoints import Endpoint
from silo.agents.requests import PromptChain, conversation_state, request_body, sdk_target
from silo.json_types import JSON

SCHEMA: dict[str, JSON] = {"type": "object", "properties": {"id": {"type": "string"}}}
TOOLS: list[dict[str, JSON]] = [{"name": "get", "description": "Get one.", "inputSchema": SCHEMA}]


def render(spec: dict[str, JSON]) -> JSON:
    return {"name": spec["name"], "parameters": spec["inputSchema"]}


def endpoint() -> Endpoint:
    return Endpoint("http://127.0.0.1:9/v1/x", {}, max_connections=None)


def state(tools: list[dict[str, JSON]]) -> dict[str, JSON]:
    messages: list[dict[str, JSON]] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Get a."},
    ]
    return conversation_state(messages, {"model": "m", "seed": 2**70}, tools, "Be brief.", 1)


def test_the_body_is_fixed_fields_then_tools_then_messages() -> None:
    conversation = state(TOOLS)
    body = request_body(endpoint(), conversation, render)
    assert list(json.loads(body)) == ["model", "seed", "tools", "messages"]
    assert json.loads(body)["seed"] == 2**70  # beyond 64 bits: written exactly all the same
    assert json.loads(body)["tools"] == [{"name": "get", "parameters": SCHEMA}]
    assert (
        json.loads(conversation["toolsJson"]) == json.loads(body)["tools"]
    )  # kept for later turns
    without = json.loads(request_body(endpoint(), state([]), render))
    assert list(without) == ["model", "seed", "messages"]  # no tools: no "tools" field at all


def test_a_step_records_only_what_its_request_adds() -> None:
    where, conversation, chain = endpoint(), state(TOOLS), PromptChain()
    first = chain.prompt(where, conversation, render)
    assert first == {
        "base": None,
        "messages": [{"role": "user", "content": "Get a."}],  # the system message apart
        "system": "Be brief.",
        "tools": [{"name": "get", "parameters": SCHEMA}],
    }
    chain.answered(1, conversation)
    conversation["messages"] += [
        {"role": "assistant", "content": None},
        {"role": "tool", "content": "{}"},
    ]
    assert chain.prompt(where, conversation, render) == {
        "base": 1,
        "messages": [{"role": "tool", "content": "{}"}],
    }
    conversation["messages"][2] = {"role": "user", "content": "rewritten"}
    assert chain.prompt(where, conversation, render)["base"] is None  # not a continuation


def test_the_sdk_client_names_the_url_and_headers() -> None:
    client = openai.OpenAI(api_key="sk-k", base_url="http://127.0.0.1:9/v1/")
    url, headers = sdk_target(client, "/chat/completions", "openai", "http://127.0.0.1:9/v1")
    assert url == "http://127.0.0.1:9/v1/chat/completions"
    assert headers["Authorization"] == "Bearer sk-k"
    assert all(isinstance(value, str) for value in headers.values())


def test_a_header_with_a_line_break_is_refused_before_any_request() -> None:
    client = openai.OpenAI(api_key="sk-bad\r\nX-Injected: 1", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(AgentError, match="cannot reach http://127.0.0.1:9/v1") as caught:
        sdk_target(client, "/chat/completions", "openai", "http://127.0.0.1:9/v1")
    assert "line break" in str(caught.value) and "sk-bad" not in str(caught.value)
