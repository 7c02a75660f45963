"""An agent backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, …).

Contract: ``OpenAIAgent(model, ...)`` is a :class:`~silo.agents.model.ModelAgent` speaking
``POST {base_url}/chat/completions``. The official ``openai`` SDK supplies the endpoint's
configuration once (its base URL and headers: the key, ``OPENAI_ORG_ID``, ``OPENAI_PROJECT_ID``,
the user agent); the requests themselves go out through the endpoint's aiohttp session on the
model loop (:mod:`silo.agents.endpoints`: a body serialised here, the answer read with orjson
into dicts), not the SDK's ``create()``, which costs ~20x the CPU. The environment's
tools are offered as function tools whose parameters are the tools' input schemas; each tool
result (errors included) returns to the model as a ``tool`` message holding JSON. Pass-through
settings: ``max_tokens``, ``tool_choice`` (``auto``, ``none``, ``required`` or a function
choice), ``parallel_tool_calls``, ``extra_body`` (sent as extra request fields).
``finish_reason: length`` is a truncated turn and a non-empty ``refusal`` (or
``content_filter``) a refusal: both end the run as ``agent_error``. The key is read from the
variable named by ``api_key_env`` (``OPENAI_API_KEY``). Token data a vLLM or SGLang server
sends (``prompt_token_ids``, ``choices[0].token_ids``, ``choices[0].logprobs.content``) is kept
for ``model_step``; ``return_tokens: true`` asks for it (``logprobs`` and ``return_token_ids``).
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any, ClassVar

from silo.agents.contract import AgentInput, ModelError
from silo.agents.model import (
    DEFAULT_SYSTEM_PROMPT,
    ModelAgent,
    Reply,
    ToolUse,
    read_json,
    token_count,
)
from silo.agents.requests import conversation_state
from silo.json_types import JSON

__all__ = ["DEFAULT_SYSTEM_PROMPT", "OpenAIAgent"]

_USAGE_FIELDS = (
    ("promptTokens", "prompt_tokens"),
    ("completionTokens", "completion_tokens"),
    ("totalTokens", "total_tokens"),
)


class OpenAIAgent(ModelAgent):
    """Chat-completions tool-calling loop; see the module docstring for the contract."""

    kind: ClassVar[str] = "openai"
    api: ClassVar[str] = "openai.chat"
    sdk_name: ClassVar[str] = "openai"
    example_model: ClassVar[str] = "gpt-4.1-mini"
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"
    base_url_env: ClassVar[str] = "OPENAI_BASE_URL"

    def __init__(
        self, model: str | None = None, api_key_env: str = "OPENAI_API_KEY", **settings: Any
    ):
        super().__init__(model=model, api_key_env=api_key_env, **settings)
        self._api_key()  # a missing key is a run that could not start, not a failed one

    def target(self, sdk: ModuleType, key: str) -> tuple[str, dict[str, str]]:
        """``{base_url}/chat/completions`` and the headers the SDK's client is configured with."""
        client = sdk.OpenAI(api_key=key, base_url=self.where, max_retries=0)
        return self.configured_target(client, "/chat/completions")

    def start(self, inp: AgentInput) -> dict[str, JSON]:
        """The system and user messages, and the request fields every turn repeats."""
        system = self.system_prompt or DEFAULT_SYSTEM_PROMPT
        messages: list[dict[str, JSON]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": inp.task},
        ]
        fields: dict[str, JSON] = {"model": self.model}
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
        if self.return_tokens:  # vLLM's names; SGLang's OpenAI server reads logprobs too
            fields["logprobs"] = True
            fields["return_token_ids"] = True
        fields.update(self.extra_body or {})  # extra fields win, as the SDK's extra_body does
        return conversation_state(messages, fields, inp.tools, system, system_messages=1)

    def read_reply(self, answer: bytes) -> Reply:
        """A chat completion's JSON answer as a Reply (token data kept when sent)."""
        return self._reply(read_json(answer, self.where, "a chat completion"))

    def _reply(self, completion: dict[str, JSON]) -> Reply:
        choices = completion.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(choice, dict) or not isinstance(message, dict):
            raise ModelError(
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
            tokens=_tokens(completion, choice),
        )

    def reply_message(self, reply: Reply) -> dict[str, JSON]:
        """The assistant turn with its tool calls, as the API expects it back."""
        message: dict[str, JSON] = {"role": "assistant", "content": reply.text}
        if reply.tool_uses:
            message["tool_calls"] = [
                {
                    "id": use.id,
                    "type": "function",
                    "function": {"name": use.name, "arguments": use.arguments},
                }
                for use in reply.tool_uses
            ]
        return message

    @staticmethod
    def render_tool(spec: dict[str, JSON]) -> dict[str, JSON]:
        """One environment tool as a chat-completions function tool."""
        return {
            "type": "function",
            "function": {
                "name": spec["name"],
                "description": spec.get("description", ""),
                "parameters": spec.get("inputSchema") or {"type": "object"},
            },
        }

    def add_results(self, state: dict[str, JSON], results: list[tuple[ToolUse, str, bool]]) -> None:
        """One ``tool`` message per call, in the order the model made them."""
        for use, content, _is_error in results:
            state["messages"].append({"role": "tool", "tool_call_id": use.id, "content": content})


def _tokens(completion: dict[str, JSON], choice: dict[str, JSON]) -> dict[str, list[JSON]]:
    """The token data a vLLM-style answer carries: prompt and completion ids, logprobs."""
    found: dict[str, list[JSON]] = {}
    prompt_ids = completion.get("prompt_token_ids", choice.get("prompt_token_ids"))
    if isinstance(prompt_ids, list) and _ints(prompt_ids):
        found["promptTokenIds"] = prompt_ids
    token_ids = choice.get("token_ids")
    if isinstance(token_ids, list) and _ints(token_ids):
        found["tokenIds"] = token_ids
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if isinstance(content, list) and content:
        values = [item.get("logprob") if isinstance(item, dict) else None for item in content]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            found["logprobs"] = values
    return found


def _ints(values: list[JSON]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


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
