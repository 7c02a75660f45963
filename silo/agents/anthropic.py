"""An agent backed by Anthropic's Messages API with tool use, through the official SDK.

Contract: ``AnthropicAgent(model, ...)`` is a :class:`~silo.agents.model.ModelAgent` speaking
``POST {base_url}/v1/messages``. The environment's tools are offered with their input schemas
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

from silo.agents.contract import AgentInput
from silo.agents.model import DEFAULT_SYSTEM_PROMPT, ModelAgent, Reply, ToolUse, pool_limits

__all__ = ["AnthropicAgent"]

_DEFAULT_MAX_TOKENS = 4096
_TRUNCATED = ("max_tokens", "model_context_window_exceeded")


class AnthropicAgent(ModelAgent):
    """Messages-API tool-use loop; see the module docstring for the contract."""

    kind: ClassVar[str] = "anthropic"
    sdk_name: ClassVar[str] = "anthropic"
    example_model: ClassVar[str] = "claude-sonnet-4-5"
    sdk_error: ClassVar[str] = "AnthropicError"
    default_base_url: ClassVar[str] = "https://api.anthropic.com"
    base_url_env: ClassVar[str] = "ANTHROPIC_BASE_URL"

    def __init__(
        self, model: str | None = None, api_key_env: str = "ANTHROPIC_API_KEY", **settings: Any
    ):
        settings.setdefault("max_tokens", _DEFAULT_MAX_TOKENS)
        settings.setdefault("temperature", None)
        super().__init__(model=model, api_key_env=api_key_env, **settings)
        self._api_key()  # a missing key is a run that could not start, not a failed one

    def build_client(self, sdk: ModuleType, key: str, base_url: str, pool: int) -> Any:
        """A sync client shared by every rollout thread, its pool and keep-alive set to ``pool``."""
        http_client = sdk.DefaultHttpxClient(limits=pool_limits(pool))
        return sdk.Anthropic(api_key=key, base_url=base_url, max_retries=0, http_client=http_client)

    def start(self, inp: AgentInput) -> dict[str, Any]:
        """The first user turn and the request options every turn repeats."""
        messages: list[dict[str, Any]] = [{"role": "user", "content": inp.task}]
        options: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": self.system_prompt or DEFAULT_SYSTEM_PROMPT,
            "messages": messages,
        }
        if inp.tools:
            options["tools"] = [
                {
                    "name": spec["name"],
                    "description": spec.get("description", ""),
                    "input_schema": spec.get("inputSchema") or {"type": "object"},
                }
                for spec in inp.tools
            ]
            choice = self._tool_choice()
            if choice is not None:
                options["tool_choice"] = choice
        # The SDK no longer takes sampling parameters; models that still accept one get it as an
        # extra field of the request body.
        extra = dict(self.extra_body or {})
        if self.temperature is not None:
            extra.setdefault("temperature", self.temperature)
        if extra:
            options["extra_body"] = extra
        return {"messages": messages, "options": options}

    def _tool_choice(self) -> dict[str, Any] | None:
        choice: Any = self.tool_choice
        if isinstance(choice, str):
            choice = {"type": choice}
        elif isinstance(choice, Mapping):
            choice = dict(choice)
        if self.parallel_tool_calls is False:
            choice = {**(choice or {"type": "auto"}), "disable_parallel_tool_use": True}
        return choice if isinstance(choice, dict) else None

    def request(self, client: Any, state: dict[str, Any], timeout: float) -> Reply:
        """One Messages-API call, read into a :class:`Reply`."""
        message = client.messages.create(**state["options"], timeout=timeout)
        texts = [block.text for block in message.content if block.type == "text"]
        uses = [
            ToolUse(block.id, block.name, json.dumps(block.input, ensure_ascii=False))
            for block in message.content
            if block.type == "tool_use"
        ]
        stop = message.stop_reason
        if stop in _TRUNCATED:
            ending = "truncated"
        elif stop == "refusal":
            ending = "refused"
        elif stop == "pause_turn":
            ending = "continue"
        else:
            ending = "tools" if uses and stop == "tool_use" else "answer"
        usage = message.usage
        prompt = (usage.input_tokens or 0) if usage else 0
        completion = (usage.output_tokens or 0) if usage else 0
        return Reply(
            text="\n".join(texts) if texts else None,
            tool_uses=uses if ending == "tools" else [],
            ending=ending,
            finish_reason=stop,
            usage={
                "promptTokens": prompt,
                "completionTokens": completion,
                "totalTokens": prompt + completion,
            },
            message=message,
        )

    def add_reply(self, state: dict[str, Any], reply: Reply) -> None:
        """The assistant turn, blocks as the SDK returned them (they are valid parameters)."""
        state["messages"].append({"role": "assistant", "content": reply.message.content})

    def add_results(self, state: dict[str, Any], results: list[tuple[ToolUse, str, bool]]) -> None:
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
