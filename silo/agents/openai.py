"""An agent backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, …).

Contract: ``OpenAIAgent(model, ...)`` is a :class:`~silo.agents.model.ModelAgent` speaking
``POST {base_url}/chat/completions`` through the official ``openai`` SDK. The environment's
tools are offered as function tools whose parameters are the tools' input schemas; each tool
result (errors included) returns to the model as a ``tool`` message holding JSON. Pass-through
settings: ``max_tokens``, ``tool_choice`` (``auto``, ``none``, ``required`` or a function
choice), ``parallel_tool_calls``, ``extra_body`` (sent as extra request fields).
``finish_reason: length`` is a truncated turn and a non-empty ``refusal`` (or
``content_filter``) a refusal: both end the run as ``agent_error``. The key is read from the
variable named by ``api_key_env`` (``OPENAI_API_KEY``).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

from silo.agents.contract import AgentError, AgentInput
from silo.agents.model import DEFAULT_SYSTEM_PROMPT, ModelAgent, Reply, ToolUse, pool_limits

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
    sdk_error: ClassVar[str] = "OpenAIError"
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"
    base_url_env: ClassVar[str] = "OPENAI_BASE_URL"

    def __init__(
        self, model: str | None = None, api_key_env: str = "OPENAI_API_KEY", **settings: Any
    ):
        super().__init__(model=model, api_key_env=api_key_env, **settings)
        self._api_key()  # a missing key is a run that could not start, not a failed one

    def build_client(self, sdk: ModuleType, key: str, base_url: str, pool: int) -> Any:
        """A sync client shared by every rollout thread, its pool and keep-alive set to ``pool``."""
        http_client = sdk.DefaultHttpxClient(limits=pool_limits(pool))
        return sdk.OpenAI(api_key=key, base_url=base_url, max_retries=0, http_client=http_client)

    def start(self, inp: AgentInput) -> dict[str, Any]:
        """The system and user messages, and the request options every turn repeats."""
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt or DEFAULT_SYSTEM_PROMPT},
            {"role": "user", "content": inp.task},
        ]
        options: dict[str, Any] = {"model": self.model, "messages": messages}
        if inp.tools:
            options["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": spec["name"],
                        "description": spec.get("description", ""),
                        "parameters": spec.get("inputSchema") or {"type": "object"},
                    },
                }
                for spec in inp.tools
            ]
            if self.tool_choice is not None:
                options["tool_choice"] = self.tool_choice
            if self.parallel_tool_calls is not None:
                options["parallel_tool_calls"] = self.parallel_tool_calls
        for name, value in (
            ("temperature", self.temperature),
            ("seed", self.seed),
            ("max_tokens", self.max_tokens),
            ("extra_body", self.extra_body),
        ):
            if value is not None:
                options[name] = value
        return {"messages": messages, "options": options}

    def request(self, client: Any, state: dict[str, Any], timeout: float) -> Reply:
        """One chat completion, read into a :class:`Reply`."""
        completion = client.chat.completions.create(**state["options"], timeout=timeout)
        if not completion.choices:
            raise AgentError(
                f"the model endpoint at {self.where} returned no choices; "
                "check that agent.model is a chat model"
            )
        choice = completion.choices[0]
        message = choice.message
        uses = [
            ToolUse(call.id or f"call_{i}", *_function(call))
            for i, call in enumerate(message.tool_calls or [])
        ]
        finish = choice.finish_reason
        refusal = getattr(message, "refusal", None)
        if finish == "length":
            ending = "truncated"
        elif refusal or finish == "content_filter":
            ending = "refused"
        else:
            ending = "tools" if uses else "answer"
        usage = completion.usage
        return Reply(
            text=(refusal or message.content) if ending == "refused" else message.content,
            tool_uses=uses,
            ending=ending,
            finish_reason=finish,
            usage={name: getattr(usage, field, 0) or 0 for name, field in _USAGE_FIELDS},
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


def _function(call: Any) -> tuple[str, str]:
    """Name and raw arguments of a tool call (empty for a non-function call)."""
    function = getattr(call, "function", None)
    return getattr(function, "name", None) or "", getattr(function, "arguments", None) or ""
