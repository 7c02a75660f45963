"""What one turn of a model agent sends: the request's bytes, its URL and headers, its prompt.

Contract: these are the byte-level parts of a model request, kept apart from the tool loop
(:mod:`silo.agents.model`) that decides *when* to send one.

* :func:`conversation_state` is the request state of a new conversation: its messages (the
  caller appends to them), the fixed fields serialised once, the tool specs and the system
  prompt;
* :func:`request_body` is the exact bytes of the next request: the fixed fields, the tools (as
  :func:`tools_json` made them: each spec rendered once per endpoint, kept in the state), then
  the messages; :func:`json_body` joins already serialised parts without parsing them again;
* :func:`sdk_target` is the URL and headers an SDK's client would use (its version, its auth
  scheme); Silo sends them itself, and a header holding a line break is refused before any
  request;
* :class:`PromptChain` says what each ``model_step`` event records of a request: only what is
  new since the previous step's prompt and completion (``base`` names that step), or the whole
  prompt (system, tools, messages) when the conversation does not continue it.

Nothing here talks to the network or runs tools.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Protocol

import orjson

from silo.agents.contract import AgentError
from silo.agents.endpoints import Endpoint
from silo.json_types import JSON

__all__ = [
    "ConfiguredClient",
    "PromptChain",
    "Render",
    "conversation_state",
    "json_body",
    "request_body",
    "sdk_target",
    "tools_json",
]

Render = Callable[[dict[str, JSON]], JSON]  # one environment tool spec in an API's format


class ConfiguredClient(Protocol):
    """What :func:`sdk_target` reads of an SDK's client (``openai.OpenAI``, ``anthropic.Anthropic``)."""

    @property
    def default_headers(self) -> Mapping[str, object]:
        """The headers every request of the client carries (version, user agent)."""

    @property
    def auth_headers(self) -> Mapping[str, str]:
        """The headers carrying the key, in the client's auth scheme."""

    @property
    def base_url(self) -> object:
        """The base URL the client sends to (a URL object or a string)."""

    def close(self) -> None:
        """Release the client's connections."""


def sdk_target(
    configured: ConfiguredClient, path: str, kind: str, where: str
) -> tuple[str, dict[str, str]]:
    """``path`` under the client's base URL and the headers it sends; closes the client.

    ``kind`` and ``where`` (the agent's kind and endpoint) name the agent in the error raised
    for a header that holds a line break.
    """
    try:
        headers = {**configured.default_headers, **configured.auth_headers}
        url = f"{str(configured.base_url).rstrip('/')}{path}"
    finally:
        configured.close()
    fixed = {name: value for name, value in headers.items() if isinstance(value, str)}
    for name, value in fixed.items():
        if any(c in name or c in value for c in "\r\n\0"):
            raise AgentError(
                f"the {kind} agent cannot reach {where}: the HTTP header {name!r} holds a line break"
            )
    return url, fixed


def conversation_state(
    messages: list[dict[str, JSON]],
    fields: Mapping[str, JSON],
    tools: list[dict[str, JSON]],
    system: str,
    system_messages: int = 0,
) -> dict[str, JSON]:
    """The request state of a new conversation.

    ``messages`` (callers may append to it), the fixed ``fields`` serialised once, the tool
    specs to offer, the ``system`` prompt and how many of the first messages hold it (recorded
    apart in ``model_step``).
    """
    return {
        "messages": messages,
        "head": json_body(b"{}", list(fields.items())),
        "tools": tools,
        "system": system,
        "systemMessages": system_messages,
    }


def request_body(endpoint: Endpoint, state: dict[str, JSON], render: Render) -> bytes:
    """The next request of the conversation ``state``: its fixed fields, tools, then messages."""
    tail: list[tuple[str, bytes | JSON]] = [("messages", state["messages"])]
    if state["tools"]:
        tail.insert(0, ("tools", state_tools_json(endpoint, state, render)))
    return json_body(state["head"], tail)


def state_tools_json(endpoint: Endpoint, state: dict[str, JSON], render: Render) -> bytes:
    """The conversation's tool array (:func:`tools_json`), made on first use and kept in ``state``."""
    found: bytes | None = state.get("toolsJson")
    if found is None:
        found = state["toolsJson"] = tools_json(endpoint, state["tools"], render)
    return found


@dataclass
class PromptChain:
    """What the previous ``model_step`` recorded: its turn, and how many messages it covers.

    ``covered`` counts the messages of its prompt and completion, so a step that continues it
    records only the messages after them.
    """

    base: int | None = None
    covered: int = 0

    def prompt(self, endpoint: Endpoint, state: dict[str, JSON], render: Render) -> dict[str, JSON]:
        """What the next request adds to the previous step's prompt and completion."""
        messages = state["messages"]
        chained = (
            self.base is not None
            and self.covered <= len(messages)
            and messages[self.covered - 1].get("role") == "assistant"
        )
        if chained:
            return {"base": self.base, "messages": messages[self.covered :]}
        skip = state.get("systemMessages", 0)
        prompt: dict[str, JSON] = {"base": None, "messages": messages[skip:]}
        prompt["system"] = state.get("system")
        if state["tools"]:
            prompt["tools"] = endpoint.parsed(state_tools_json(endpoint, state, render))
        return prompt

    def answered(self, turn: int, state: dict[str, JSON]) -> None:
        """Turn ``turn`` was recorded: its prompt and the completion about to follow it."""
        self.base, self.covered = turn, len(state["messages"]) + 1


def tools_json(endpoint: Endpoint, tools: list[dict[str, JSON]], render: Render) -> bytes:
    """The JSON array of ``render(spec)`` for every tool spec, made once per endpoint.

    Every rollout of an environment offers the same spec objects (copied shallowly), so a spec
    is known by its name, description and the identity of its input schema; the endpoint keeps
    the schemas alive with the fragments (see :meth:`Endpoint.fragment`). The whole array is one
    fragment (a rollout's first request looks it up once), each spec another (a tool list that
    differs, e.g. with the user tool added, renders only what is new).
    """
    keys = tuple((s.get("name"), s.get("description"), id(s.get("inputSchema"))) for s in tools)
    schemas = [spec.get("inputSchema") for spec in tools]
    return endpoint.fragment(
        ("tools", render, keys), schemas, partial(_tool_array, endpoint, tools, keys, render)
    )


def _tool_array(
    endpoint: Endpoint,
    tools: list[dict[str, JSON]],
    keys: tuple[tuple[JSON, JSON, int], ...],
    render: Render,
) -> bytes:
    parts = [
        endpoint.fragment((render, key), spec.get("inputSchema"), partial(_rendered, render, spec))
        for spec, key in zip(tools, keys, strict=True)
    ]
    return b"[" + b",".join(parts) + b"]"


def _rendered(render: Render, spec: dict[str, JSON]) -> bytes:
    return _json_bytes(render(spec))


def json_body(head: bytes, tail: list[tuple[str, bytes | JSON]]) -> bytes:
    """A request body: ``head`` (a serialised JSON object) followed by ``tail``'s fields.

    A tail value that is ``bytes`` is JSON already (a serialised tool list); anything else is
    serialised here.
    """
    parts = [head[:-1]]
    separator = b"," if head != b"{}" else b""
    for name, value in tail:
        text = value if isinstance(value, bytes) else _json_bytes(value)
        parts.append(b'%s"%s":%s' % (separator, name.encode(), text))
        separator = b","
    parts.append(b"}")
    return b"".join(parts)


def _json_bytes(value: JSON) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:  # a value orjson rejects (an integer beyond 64 bits): the slow, exact way
        return json.dumps(value, ensure_ascii=False, default=str).encode()
