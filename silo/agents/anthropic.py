"""An agent backed by Anthropic's Messages API with tool use.

Contract: ``AnthropicAgent(model, ...)`` is a :class:`~silo.agents.model.ModelAgent` speaking
``POST {base_url}/v1/messages``. The official ``anthropic`` SDK supplies the endpoint's
configuration once (base URL, key and version headers); requests go through the endpoint's
aiohttp session on the model loop, as :mod:`silo.agents.openai`'s do. The environment's tools are offered with their input schemas
unchanged (``input_schema``); the model's ``tool_use`` blocks run through ``call_tool`` and come
back in one user turn of ``tool_result`` blocks (``is_error`` set for refusals and invalid
input). ``stop_reason`` decides the turn: ``tool_use`` runs the calls, ``pause_turn`` sends the
turn back as it is, ``max_tokens`` and ``model_context_window_exceeded`` are a truncated turn,
``refusal`` a refusal (both end the run as ``agent_error``); anything else is the final answer.
Pass-through settings: ``max_tokens`` (required by the API; default 4096), ``tool_choice``
(``auto``, ``any``, ``none`` or a ``{"type": "tool", "name": ...}`` mapping),
``parallel_tool_calls: false`` (sent as ``disable_parallel_tool_use``), ``extra_body``;
``temperature`` (default unset) goes in the request body, since the SDK takes no sampling
parameters. The key is
read from the variable named by ``api_key_env`` (``ANTHROPIC_API_KEY``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
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

__all__ = ["AnthropicAgent"]

_DEFAULT_MAX_TOKENS = 4096
_TRUNCATED = ("max_tokens", "model_context_window_exceeded")


class AnthropicAgent(ModelAgent):
    """Messages-API tool-use loop; see the module docstring for the contract."""

    kind: ClassVar[str] = "anthropic"
    api: ClassVar[str] = "anthropic.messages"
    sdk_name: ClassVar[str] = "anthropic"
    example_model: ClassVar[str] = "claude-sonnet-4-5"
    default_base_url: ClassVar[str] = "https://api.anthropic.com"
    base_url_env: ClassVar[str] = "ANTHROPIC_BASE_URL"

    def __init__(
        self, model: str | None = None, api_key_env: str = "ANTHROPIC_API_KEY", **settings: Any
    ):
        settings.setdefault("max_tokens", _DEFAULT_MAX_TOKENS)
        settings.setdefault("temperature", None)
        super().__init__(model=model, api_key_env=api_key_env, **settings)
        self._api_key()  # a missing key is a run that could not start, not a failed one

    def target(self, sdk: ModuleType, key: str) -> tuple[str, dict[str, str]]:
        """``{base_url}/v1/messages`` and the headers the SDK's client is configured with."""
        client = sdk.Anthropic(api_key=key, base_url=self.where, max_retries=0)
        return self.configured_target(client, "/v1/messages")

    def start(self, inp: AgentInput) -> dict[str, JSON]:
        """The first user turn and the request fields every turn repeats."""
        messages: list[dict[str, JSON]] = [{"role": "user", "content": inp.task}]
        system = self.system_prompt or DEFAULT_SYSTEM_PROMPT
        fields: dict[str, JSON] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": system,
        }
        if inp.tools:
            choice = self._tool_choice()
            if choice is not None:
                fields["tool_choice"] = choice
        # Sampling parameters go in the body as extra fields, as the SDK would send them; models
        # that still accept one get it.
        if self.temperature is not None:
            fields["temperature"] = self.temperature
        fields.update(self.extra_body or {})  # extra fields win, as the SDK's extra_body does
        return conversation_state(messages, fields, inp.tools, system)

    def _tool_choice(self) -> dict[str, JSON] | None:
        choice: Any = self.tool_choice
        if isinstance(choice, str):
            choice = {"type": choice}
        elif isinstance(choice, Mapping):
            choice = dict(choice)
        if self.parallel_tool_calls is False:
            choice = {**(choice or {"type": "auto"}), "disable_parallel_tool_use": True}
        return choice if isinstance(choice, dict) else None

    def read_reply(self, answer: bytes) -> Reply:
        """A Messages-API message's JSON answer as a Reply."""
        message = read_json(answer, self.where, "a Messages API message")
        content = message.get("content")
        if not isinstance(content, list):
            raise ModelError(
                f"the model endpoint at {self.where} answered without content blocks; check "
                "that agent.base_url is a Messages API endpoint"
            )
        blocks = [b for b in content if isinstance(b, dict)]
        texts = [
            b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        uses = [
            ToolUse(str(b.get("id") or f"toolu_{i}"), str(b.get("name") or ""),
                    json.dumps(b.get("input", {}), ensure_ascii=False))
            for i, b in enumerate(blocks)
            if b.get("type") == "tool_use"
        ]  # fmt: skip
        stop = message.get("stop_reason")
        if stop in _TRUNCATED:
            ending = "truncated"
        elif stop == "refusal":
            ending = "refused"
        elif stop == "pause_turn":
            ending = "continue"
        else:
            ending = "tools" if uses and stop == "tool_use" else "answer"
        usage = message.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        prompt, completion = (
            token_count(usage.get("input_tokens")),
            token_count(usage.get("output_tokens")),
        )
        return Reply(
            text="\n".join(texts) if texts else None,
            tool_uses=uses if ending == "tools" else [],
            ending=ending,
            finish_reason=stop if isinstance(stop, str) else None,
            usage={
                "promptTokens": prompt,
                "completionTokens": completion,
                "totalTokens": prompt + completion,
            },
            message=blocks,
        )

    def reply_message(self, reply: Reply) -> dict[str, JSON]:
        """The assistant turn, its content blocks as the endpoint returned them."""
        return {"role": "assistant", "content": reply.message}

    @staticmethod
    def render_tool(spec: dict[str, JSON]) -> dict[str, JSON]:
        """One environment tool as a Messages-API tool: its input schema unchanged."""
        return {
            "name": spec["name"],
            "description": spec.get("description", ""),
            "input_schema": spec.get("inputSchema") or {"type": "object"},
        }

    def add_results(self, state: dict[str, JSON], results: list[tuple[ToolUse, str, bool]]) -> None:
        """One user turn holding a ``tool_result`` block for every ``tool_use`` block."""
        state["messages"].append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": use.id,
                        "content": content,
                        "is_error": is_error,
                    }
                    for use, content, is_error in results
                ],
            }
        )
