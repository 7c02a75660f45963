"""An agent backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, …).

Contract: ``OpenAIAgent(model, ...)`` is a callable agent. Each turn it sends the conversation and
the environment's tools (function tools whose parameters are the tools' input schemas) to
``POST {base_url}/chat/completions`` through the official ``openai`` SDK. Every tool call goes
through ``call_tool`` (unknown tools and invalid input are answered by the engine) and its result,
errors included, returns to the model as a tool message holding JSON; arguments that are not
valid JSON are explained back to the model without a call. The first turn without tool calls
ends the run, and its text is the output.

The API key is read from the environment variable named by ``api_key_env`` and never appears in
the trace or in errors; a missing key is allowed only for a local ``base_url`` (localhost). HTTP
429 and 5xx answers (and request timeouts) are retried with seeded, jittered exponential backoff
(a ``model_retry`` event each) while the run's deadline and signal allow; any other failure
raises :class:`AgentError` with a one-line reason. Each completion emits a ``model_step`` event
(turn, request summary, response, usage, latency). :class:`RunLimitError` from ``call_tool``
propagates; when the signal or deadline ends the run between turns or during a backoff, the
agent raises it too, so the engine records the reason.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

from silo.agents.contract import AgentError, AgentInput, RunLimitError

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
        # Settings are checked here, when the agent is built from config, so a missing one is a
        # run that could not start (exit 2, counted apart in sweeps), not an agent failure.
        if not model:
            raise AgentError("set agent.model=<model name> (e.g. agent.model=gpt-4.1-mini)")
        if max_turns < 1:
            raise AgentError(f"agent.max_turns={max_turns} must be at least 1")
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

    def __call__(self, inp: AgentInput) -> dict[str, Any]:
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
        try:
            return _Conversation(self, client, inp, key).run()
        finally:
            client.close()

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


class _Conversation:
    """One run of the agent: the messages so far, the client, the backoff's random source."""

    def __init__(self, agent: OpenAIAgent, client: Any, inp: AgentInput, key: str) -> None:
        self.agent, self.client, self.inp, self.key = agent, client, inp, key
        self.rng = random.Random(inp.seed if agent.seed is None else agent.seed)
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": agent.system_prompt or DEFAULT_SYSTEM_PROMPT},
            {"role": "user", "content": inp.task},
        ]
        self.options: dict[str, Any] = {"model": agent.model, "messages": self.messages}
        if inp.tools:
            self.options["tools"] = [
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
        if agent.temperature is not None:
            self.options["temperature"] = agent.temperature
        if agent.seed is not None:
            self.options["seed"] = agent.seed

    def run(self) -> dict[str, Any]:
        for turn in range(1, self.agent.max_turns + 1):
            _stop_if_ended(self.inp)
            message = self.step(turn)
            calls = [
                (c.id or f"call_{turn}_{i}", *_function(c))
                for i, c in enumerate(message.tool_calls or [])
            ]
            if not calls:
                return {"output": message.content or ""}
            self.messages.append(
                {
                    "role": "assistant",
                    "content": message.content,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": args},
                        }
                        for cid, name, args in calls
                    ],
                }
            )
            for call_id, name, arguments in calls:
                content = _run_tool_call(self.inp, name, arguments)
                self.messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
        raise AgentError(
            f"the model reached max_turns={self.agent.max_turns} without a final answer; "
            "raise agent.max_turns"
        )

    def step(self, turn: int) -> Any:
        """One completion (with retries); emits ``model_step``, returns the assistant message."""
        started = time.monotonic()
        completion, attempts = self.complete()
        latency_ms = round((time.monotonic() - started) * 1000, 3)
        if not completion.choices:
            raise AgentError(
                f"the model endpoint at {self.agent._where} returned no choices; "
                "check that agent.model is a chat model"
            )
        choice = completion.choices[0]
        message = choice.message
        usage = completion.usage
        self.inp.emit(
            "model_step",
            {
                "turn": turn,
                "request": {
                    "model": self.agent.model,
                    "messages": len(self.messages),
                    "tools": len(self.options.get("tools", [])),
                },
                "response": {
                    "text": message.content,
                    "toolCalls": [
                        dict(zip(("name", "arguments"), _function(c), strict=True))
                        for c in message.tool_calls or []
                    ],
                    "finishReason": choice.finish_reason,
                },
                "usage": {
                    name: getattr(usage, field, 0) or 0
                    for name, field in (
                        ("promptTokens", "prompt_tokens"),
                        ("completionTokens", "completion_tokens"),
                        ("totalTokens", "total_tokens"),
                    )
                },
                "latencyMs": latency_ms,
                "attempts": attempts,
            },
        )
        return message

    def complete(self) -> tuple[Any, int]:
        import openai

        agent, inp = self.agent, self.inp
        retries = max(agent.max_retries, 0)
        problem = "no attempt"
        for attempt in range(1, retries + 2):
            _stop_if_ended(inp)
            timeout = min(agent.request_timeout_s, max(inp.deadline - time.monotonic(), 0.001))
            retry_after: float | None = None
            try:
                return self.client.chat.completions.create(**self.options, timeout=timeout), attempt
            except openai.APIStatusError as exc:
                detail = _one_line(getattr(exc, "message", "") or str(exc), self.key)
                if exc.status_code != 429 and exc.status_code < 500:
                    raise AgentError(agent._describe_status(exc.status_code, detail)) from None
                problem = f"HTTP {exc.status_code}: {detail}"
                retry_after = _retry_after(exc.response.headers)
            except openai.APITimeoutError:
                problem = f"no answer within {timeout:.1f}s"
            except openai.APIConnectionError as exc:
                cause = _one_line(str(exc.__cause__ or exc), self.key)
                raise AgentError(
                    f"cannot connect to the model endpoint at {agent._where} ({cause}); start the "
                    "server or fix agent.base_url"
                ) from None
            except openai.OpenAIError as exc:
                raise AgentError(
                    f"the model endpoint at {agent._where} failed: {_one_line(str(exc), self.key)}"
                ) from None
            _stop_if_ended(inp)  # a failure at the deadline is a timeout, not a failing endpoint
            if attempt > retries:
                break
            backoff = min(_BACKOFF_CAP_S, _BACKOFF_BASE_S * 2 ** (attempt - 1))
            delay = max(backoff * (0.5 + self.rng.random() / 2), retry_after or 0.0)
            delay = min(delay, max(inp.deadline - time.monotonic(), 0.0))
            inp.emit(
                "model_retry",
                {"attempt": attempt, "problem": problem, "delayMs": round(delay * 1000)},
            )
            inp.signal.wait(delay)
        raise AgentError(
            f"the model endpoint at {agent._where} kept failing ({problem}) after "
            f"{retries + 1} attempts; retry later or raise agent.max_retries"
        )


# -- helpers -----------------------------------------------------------------------------------


def _stop_if_ended(inp: AgentInput) -> None:
    if inp.signal.aborted:
        reason = inp.signal.reason or "cancelled"
        raise RunLimitError(reason, f"the run was stopped ({reason})")
    if time.monotonic() >= inp.deadline:
        raise RunLimitError("timeout", "the run's time budget ran out")


def _function(call: Any) -> tuple[str, str]:
    """Name and raw arguments of a tool call (empty for a non-function call)."""
    function = getattr(call, "function", None)
    return getattr(function, "name", None) or "", getattr(function, "arguments", None) or ""


def _run_tool_call(inp: AgentInput, name: str, arguments: str) -> str:
    """Run one tool call unless its arguments are not JSON; the tool message's content."""
    try:
        data = json.loads(arguments or "{}")
    except json.JSONDecodeError as exc:
        message = (
            f"the arguments are not valid JSON ({exc.msg} at line {exc.lineno}, column "
            f"{exc.colno}); the tool was not called; send the arguments again as one JSON object"
        )
        return _dumps({"error": {"code": "invalid_json", "message": message}})
    result = inp.call_tool(name, data)  # the engine answers unknown tools and invalid input
    return _dumps(
        {"error": result.get("output")} if result.get("isError") else result.get("output")
    )


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
