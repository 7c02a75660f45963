"""An agent backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, …).

Contract: ``OpenAIAgent(model, ...)`` is a :class:`~silo.agents.model.ModelAgent` speaking
``POST {base_url}/chat/completions``. The official ``openai`` SDK supplies the endpoint's
configuration once (its base URL and headers: the key, ``OPENAI_ORG_ID``, ``OPENAI_PROJECT_ID``,
the user agent); the requests themselves go out through :class:`~silo.agents.json_client.JsonClient`
(a body serialised here, one kept-alive connection per rollout thread, the answer read with
orjson into dicts), not the SDK's ``create()``, which costs ~10x the CPU. The environment's
tools are offered as function tools whose parameters are the tools' input schemas; each tool
result (errors included) returns to the model as a ``tool`` message holding JSON. Pass-through
settings: ``max_tokens``, ``tool_choice`` (``auto``, ``none``, ``required`` or a function
choice), ``parallel_tool_calls``, ``extra_body`` (sent as extra request fields).
``finish_reason: length`` is a truncated turn and a non-empty ``refusal`` (or
``content_filter``) a refusal: both end the run as ``agent_error``. The key is read from the
variable named by ``api_key_env`` (``OPENAI_API_KEY``).
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any, ClassVar

from silo.agents.contract import AgentError, AgentInput
from silo.agents.endpoints import Endpoint
from silo.agents.json_client import JsonClient
from silo.agents.model import (
    DEFAULT_SYSTEM_PROMPT,
    ModelAgent,
    Reply,
    ToolUse,
    conversation_body,
    conversation_state,
    read_json,
    token_count,
)

__all__ = ["DEFAULT_SYSTEM_PROMPT", "OpenAIAgent"]

_USAGE_FIELDS = (
    ("promptTokens", "prompt_tokens"),
    ("completionTokens", "completion_tokens"),
    ("totalTokens", "total_tokens"),
)


class OpenAIAgent(ModelAgent):
    """Chat-completions tool-calling loop; see the module docstring for the contract."""

    kind: ClassVar[str] = "openai"
    sdk_name: ClassVar[str] = "openai"
    example_model: ClassVar[str] = "gpt-4.1-mini"
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"
    base_url_env: ClassVar[str] = "OPENAI_BASE_URL"

    def __init__(
        self, model: str | None = None, api_key_env: str = "OPENAI_API_KEY", **settings: Any
    ):
        super().__init__(model=model, api_key_env=api_key_env, **settings)
        self._api_key()  # a missing key is a run that could not start, not a failed one

    def build_client(self, sdk: ModuleType, key: str, base_url: str, pool: int) -> Any:
        """The endpoint's :class:`JsonClient`, configured as the SDK's client would send.

        Shared by every rollout thread (one kept-alive connection per thread), so ``pool`` needs
        no pool here: :meth:`Endpoint.slot` keeps the requests in flight under it.
        """
        configured = sdk.OpenAI(api_key=key, base_url=base_url, max_retries=0)
        try:
            headers = {**configured.default_headers, **configured.auth_headers}
            url = f"{str(configured.base_url).rstrip('/')}/chat/completions"
        finally:
            configured.close()
        fixed = {name: value for name, value in headers.items() if isinstance(value, str)}
        try:
            return JsonClient(url, fixed)
        except ValueError as exc:  # a header that cannot be sent (a line break in the key)
            raise AgentError(f"the {self.kind} agent cannot reach {self.where}: {exc}") from None

    def start(self, inp: AgentInput) -> dict[str, Any]:
        """The system and user messages, and the request fields every turn repeats."""
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt or DEFAULT_SYSTEM_PROMPT},
            {"role": "user", "content": inp.task},
        ]
        fields: dict[str, Any] = {"model": self.model}
        if inp.tools:
            if self.tool_choice is not None:
                fields["tool_choice"] = self.tool_choice
            if self.parallel_tool_calls is not None:
                fields["parallel_tool_calls"] = self.parallel_tool_calls
        for name, value in (
            ("temperature", self.temperature),
            ("seed", self.seed),
            ("max_tokens", self.max_tokens),
        ):
            if value is not None:
                fields[name] = value
        fields.update(self.extra_body or {})  # extra fields win, as the SDK's extra_body does
        return conversation_state(messages, fields, inp.tools)

    def request(self, endpoint: Endpoint, state: dict[str, Any], timeout: float) -> Reply:
        """One chat completion: a body serialised here, the JSON answer read into a Reply."""
        answer = endpoint.client.post(conversation_body(endpoint, state, _function_tool), timeout)
        return self._reply(read_json(answer.body, self.where, "a chat completion"))

    def _reply(self, completion: dict[str, Any]) -> Reply:
        choices = completion.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(choice, dict) or not isinstance(message, dict):
            raise AgentError(
                f"the model endpoint at {self.where} returned no choices; "
                "check that agent.model is a chat model"
            )
        calls = message.get("tool_calls") or []
        uses = [
            ToolUse(
                _text(call.get("id") if isinstance(call, dict) else None) or f"call_{i}",
                *_function(call),
            )
            for i, call in enumerate(calls if isinstance(calls, list) else [])
        ]
        finish = choice.get("finish_reason")
        refusal = message.get("refusal")
        content = message.get("content")
        if finish == "length":
            ending = "truncated"
        elif refusal or finish == "content_filter":
            ending = "refused"
        else:
            ending = "tools" if uses else "answer"
        usage = completion.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return Reply(
            text=_text_or_none(refusal or content if ending == "refused" else content),
            tool_uses=uses,
            ending=ending,
            finish_reason=finish,
            usage={name: token_count(usage.get(field)) for name, field in _USAGE_FIELDS},
            message=message,
        )

    def add_reply(self, state: dict[str, Any], reply: Reply) -> None:
        """The assistant turn with its tool calls, as the API expects it back."""
        state["messages"].append(
            {
                "role": "assistant",
                "content": reply.text,
                "tool_calls": [
                    {
                        "id": use.id,
                        "type": "function",
                        "function": {"name": use.name, "arguments": use.arguments},
                    }
                    for use in reply.tool_uses
                ],
            }
        )

    def add_results(self, state: dict[str, Any], results: list[tuple[ToolUse, str, bool]]) -> None:
        """One ``tool`` message per call, in the order the model made them."""
        for use, content, _is_error in results:
            state["messages"].append({"role": "tool", "tool_call_id": use.id, "content": content})


def _function_tool(spec: dict[str, Any]) -> dict[str, Any]:
    """One environment tool as a chat-completions function tool."""
    return {
        "type": "function",
        "function": {
            "name": spec["name"],
            "description": spec.get("description", ""),
            "parameters": spec.get("inputSchema") or {"type": "object"},
        },
    }


def _function(call: Any) -> tuple[str, str]:
    """Name and raw arguments of a tool call (empty for a non-function call)."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return "", ""
    arguments = function.get("arguments")
    if arguments is not None and not isinstance(arguments, str):  # lenient servers send objects
        arguments = json.dumps(arguments, ensure_ascii=False)
    return _text(function.get("name")), arguments or ""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
