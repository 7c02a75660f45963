"""An agent backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, …).

Contract: ``OpenAIAgent(model, ...)`` is a callable agent. Each turn it sends the conversation and
the environment's tools (as function tools whose parameters are the tools' input schemas) to
``POST {base_url}/chat/completions`` through the official ``openai`` SDK. Every tool call goes
through ``call_tool`` and its result, errors included, returns to the model as a tool message
holding JSON; arguments that are not a JSON object are explained back to the model without a
call. The first turn without tool calls ends the run and its text is the output.

The API key is read from the environment variable named by ``api_key_env`` and never appears in
the trace or in errors; a missing key is allowed only for a local ``base_url`` (localhost). HTTP
429 and 5xx answers (and request timeouts) are retried with seeded, jittered exponential backoff
while the run's deadline and signal allow; any other failure raises :class:`AgentError` with a
one-line reason. Each completion emits a ``model_step`` event (turn, request summary, response,
usage, latency). :class:`RunLimitError` from ``call_tool`` propagates; when the run's signal or
deadline ends the run between turns, the agent raises it too, so the engine records the reason.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

from silo.agent import AgentError, AgentInput, RunLimitError

__all__ = ["OpenAIAgent", "DEFAULT_SYSTEM_PROMPT"]

DEFAULT_SYSTEM_PROMPT = (
    "You are an agent working in a simulated environment. Use the provided tools to complete "
    "the user's task: look things up before you change them, and read tool errors carefully to "
    "correct your calls. When the task is done (or cannot be done), reply with a short final "
    "answer and no tool calls."
)
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")
_PLACEHOLDER_KEY = "not-needed"
_BACKOFF_BASE_S = 0.5
_BACKOFF_CAP_S = 30.0


class OpenAIAgent:
    """Chat-completions tool-calling loop; see the module docstring for the contract."""

    deterministic: ClassVar[bool] = False

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float | None = 0.0,
        seed: int | None = None,
        max_turns: int = 30,
        system_prompt: str | None = None,
        request_timeout_s: float = 60.0,
        max_retries: int = 8,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.seed = seed
        self.max_turns = max_turns
        self.system_prompt = system_prompt
        self.request_timeout_s = request_timeout_s
        self.max_retries = max_retries

    def __repr__(self) -> str:  # never shows the key: it is not an attribute
        return f"OpenAIAgent(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def _where(self) -> str:
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"

    # -- the loop ------------------------------------------------------------------------------

    def __call__(self, inp: AgentInput) -> dict[str, Any]:
        if not self.model:
            raise AgentError("set agent.model=<model name> (e.g. agent.model=gpt-4.1-mini)")
        if self.max_turns < 1:
            raise AgentError(f"agent.max_turns={self.max_turns} must be at least 1")
        try:
            import openai
        except ImportError:
            raise AgentError(
                "the openai agent needs the openai package: pip install -e '.[openai]'"
            ) from None
        key = self._api_key()
        client = openai.OpenAI(
            api_key=key, base_url=self.base_url, max_retries=0, timeout=self.request_timeout_s
        )
        rng = random.Random(inp.seed if self.seed is None else self.seed)
        tools = [
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
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt or DEFAULT_SYSTEM_PROMPT},
            {"role": "user", "content": inp.task},
        ]
        try:
            for turn in range(1, self.max_turns + 1):
                _stop_if_ended(inp)
                message = self._step(client, inp, rng, key, turn, messages, tools)
                calls = list(message.tool_calls or [])
                if not calls:
                    return {"output": message.content or ""}
                messages.append(_assistant_message(message.content, calls, turn))
                for call, entry in zip(calls, messages[-1]["tool_calls"], strict=True):
                    content = _run_tool_call(inp, call)
                    messages.append(
                        {"role": "tool", "tool_call_id": entry["id"], "content": content}
                    )
        finally:
            client.close()
        raise AgentError(
            f"the model reached max_turns={self.max_turns} without a final answer; "
            "raise agent.max_turns"
        )

    def _api_key(self) -> str:
        key = os.environ.get(self.api_key_env, "").strip()
        if key:
            return key
        if (urlsplit(self._where).hostname or "") in _LOCAL_HOSTS:
            return _PLACEHOLDER_KEY
        raise AgentError(
            f"no API key: set the {self.api_key_env} environment variable (agent.api_key_env "
            "names it), or point agent.base_url at a local server"
        )

    def _step(
        self,
        client: Any,
        inp: AgentInput,
        rng: random.Random,
        key: str,
        turn: int,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
    ) -> Any:
        """One completion (with retries); emits ``model_step`` and returns the assistant message."""
        options: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            options["tools"] = tools
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.seed is not None:
            options["seed"] = self.seed
        started = time.monotonic()
        completion, attempts = self._complete(client, inp, rng, key, options)
        latency_ms = round((time.monotonic() - started) * 1000, 3)
        if not completion.choices:
            raise AgentError(
                f"the model endpoint at {self._where} returned no choices; "
                "check that agent.model is a chat model"
            )
        choice = completion.choices[0]
        message = choice.message
        usage = completion.usage
        inp.emit(
            "model_step",
            {
                "turn": turn,
                "request": {"model": self.model, "messages": len(messages), "tools": len(tools)},
                "response": {
                    "text": message.content,
                    "toolCalls": [
                        {"name": _call_name(c), "arguments": _call_arguments(c)}
                        for c in message.tool_calls or []
                    ],
                    "finishReason": choice.finish_reason,
                },
                "usage": {
                    "promptTokens": getattr(usage, "prompt_tokens", 0) or 0,
                    "completionTokens": getattr(usage, "completion_tokens", 0) or 0,
                    "totalTokens": getattr(usage, "total_tokens", 0) or 0,
                },
                "latencyMs": latency_ms,
                "attempts": attempts,
            },
        )
        return message

    def _complete(
        self, client: Any, inp: AgentInput, rng: random.Random, key: str, options: dict[str, Any]
    ) -> tuple[Any, int]:
        import openai

        attempt = 0
        while True:
            attempt += 1
            _stop_if_ended(inp)
            remaining = inp.deadline - time.monotonic()
            timeout = min(self.request_timeout_s, max(remaining, 0.001))
            retry_after: float | None = None
            try:
                return client.chat.completions.create(**options, timeout=timeout), attempt
            except openai.APIStatusError as exc:
                status = exc.status_code
                detail = _one_line(getattr(exc, "message", "") or str(exc), key)
                if status != 429 and status < 500:
                    raise AgentError(self._describe_status(status, detail)) from None
                problem = f"HTTP {status}: {detail}"
                retry_after = _retry_after(exc.response.headers)
            except openai.APITimeoutError:
                problem = f"no answer within {timeout:.1f}s"
            except openai.APIConnectionError as exc:
                cause = _one_line(str(exc.__cause__ or exc), key)
                raise AgentError(
                    f"cannot connect to the model endpoint at {self._where} ({cause}); start the "
                    "server or fix agent.base_url"
                ) from None
            except openai.OpenAIError as exc:
                raise AgentError(
                    f"the model endpoint at {self._where} failed: {_one_line(str(exc), key)}"
                ) from None
            if attempt > self.max_retries:
                raise AgentError(
                    f"the model endpoint at {self._where} kept failing ({problem}) after {attempt} "
                    "attempts; retry later or raise agent.max_retries"
                )
            backoff = min(_BACKOFF_CAP_S, _BACKOFF_BASE_S * 2 ** (attempt - 1))
            delay = max(backoff * (0.5 + rng.random() / 2), retry_after or 0.0)
            delay = min(delay, max(inp.deadline - time.monotonic(), 0.0))
            inp.signal.wait(delay)

    def _describe_status(self, status: int, detail: str) -> str:
        where = f"the model endpoint at {self._where}"
        if status == 401:
            return f"{where} rejected the API key (HTTP 401); put a valid key in {self.api_key_env}"
        if status == 403:
            return f"{where} denied access (HTTP 403: {detail}); check the key's permissions"
        if status == 404:
            return (
                f"{where} answered HTTP 404 for model {self.model!r} ({detail}); check agent.model "
                "and agent.base_url (usually ending in /v1)"
            )
        return (
            f"{where} refused the request (HTTP {status}: {detail}); check agent.model and that "
            "the endpoint supports tool calling"
        )


# -- helpers -----------------------------------------------------------------------------------


def _stop_if_ended(inp: AgentInput) -> None:
    if inp.signal.aborted:
        reason = inp.signal.reason or "cancelled"
        raise RunLimitError(reason, f"the run was stopped ({reason})")
    if time.monotonic() >= inp.deadline:
        raise RunLimitError("timeout", "the run's time budget ran out")


def _run_tool_call(inp: AgentInput, call: Any) -> str:
    """Execute one tool call (unless its arguments are unusable); the tool message's content."""
    name = _call_name(call)
    if name is None:
        return _dumps(
            {
                "error": {
                    "code": "unsupported_tool_call",
                    "message": "only function tool calls are supported; call a listed function",
                }
            }
        )
    text = _call_arguments(call) or "{}"
    try:
        arguments = json.loads(text)
    except json.JSONDecodeError as exc:
        return _dumps(
            {
                "error": {
                    "code": "invalid_json",
                    "message": f"the arguments are not valid JSON ({exc.msg} at line "
                    f"{exc.lineno}, column {exc.colno}); the tool was not called; "
                    "send the arguments again as one JSON object",
                }
            }
        )
    if not isinstance(arguments, dict):
        return _dumps(
            {
                "error": {
                    "code": "invalid_input",
                    "message": f"the arguments must be a JSON object, not "
                    f"{type(arguments).__name__}; the tool was not called",
                }
            }
        )
    result = inp.call_tool(name, arguments)
    if result.get("isError"):
        return _dumps({"error": result.get("output")})
    return _dumps(result.get("output"))


def _assistant_message(content: str | None, calls: list[Any], turn: int) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": getattr(call, "id", None) or f"call_{turn}_{index}",
                "type": "function",
                "function": {"name": _call_name(call) or "", "arguments": _call_arguments(call)},
            }
            for index, call in enumerate(calls)
        ],
    }


def _call_name(call: Any) -> str | None:
    function = getattr(call, "function", None)
    return getattr(function, "name", None) if function is not None else None


def _call_arguments(call: Any) -> str:
    function = getattr(call, "function", None)
    return (getattr(function, "arguments", None) or "") if function is not None else ""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _one_line(text: str, secret: str) -> str:
    """A server message made safe for an error line: secret removed, one line, bounded."""
    if secret and secret != _PLACEHOLDER_KEY:
        text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def _retry_after(headers: Mapping[str, str]) -> float | None:
    try:
        value = float(headers.get("retry-after", ""))
    except ValueError:
        return None
    return min(value, _BACKOFF_CAP_S) if value >= 0 else None
