"""The tool-calling loop every model-backed agent shares, whatever the API it speaks.

Contract: a :class:`ModelAgent` is a callable agent configured by plain settings (model, base URL,
the *name* of the environment variable holding the key, sampling and pass-through settings).
Each turn it sends the conversation and the environment's tools to its endpoint, runs the tool
calls the model asks for through ``call_tool`` (unknown tools and invalid input are answered by
the engine; arguments that are not JSON are explained back without a call) and returns the text
of the first turn that calls no tool. A subclass supplies the API: how to build its SDK client,
start a conversation, make one request and append a turn (:class:`ModelAgent` documents the
hooks).

Guarantees:

* the conversation is a coroutine on the process's model loop (:mod:`silo.agents.model_loop`):
  a sweep's rollouts in flight run there without a thread each (:meth:`ModelAgent.arun`);
  called as a plain callable (``agent(inp)``, a single run) the agent waits for it there;
* one aiohttp session per endpoint and process (:mod:`silo.agents.endpoints`): pooled
  keep-alive connections, TLS, the environment's proxies; at most ``max_connections``
  requests in flight when set; rate limits and server errors back off *together* for every
  rollout of the process, and the in-flight limit adapts;
* requests cost little CPU at thousands in flight: the body is assembled by
  :mod:`silo.agents.requests` (the fixed fields once per conversation, each tool's spec once per
  endpoint) and the raw JSON answer read with orjson, instead of an SDK's per-request parameter
  transformation and model parsing (docs/agents.md has the figures); the SDK only says which
  URL and headers its client would use;
* an endpoint that fails the agent is not the model's failure: refused or unreachable
  (``connect_failed``), HTTP 429/5xx still failing after ``max_retries`` (honouring
  ``Retry-After``), no answer in time, another 4xx, or an answer that is not a completion raise
  :class:`~silo.agents.contract.ModelError` (the run ends as ``model_error``), in one line;
* every completion is a ``model_step`` event: turn, request summary, response, usage, latency,
  attempts, and the exact turn (``api``; ``prompt``: ``base``, the new ``messages``, and on
  the first turn ``system`` and ``tools``; ``completion``: ``message``, ``finishReason``, and
  ``tokenIds``/``logprobs`` with ``promptTokenIds`` whenever the endpoint sends them;
  ``return_tokens`` asks a vLLM or SGLang server for them); every backoff a ``model_retry`` event;
* a reply cut off by the token limit, or a refusal, ends the run as ``agent_error`` with a line
  saying so: it is never taken as the answer;
* the key never appears in the trace or an error; a missing key is allowed only for a local
  ``base_url``; :attr:`ModelAgent.identity` (kind, model, base URL without credentials,
  temperature, seed) is what ``run.json`` records;
* in a conversational task the model talks to the user through one more function tool,
  :data:`USER_TOOL` (``silo__message_user``, renamed with a trailing ``_`` while an environment
  tool has the name, so it can never shadow one); the environment tools a turn asks for run
  before its messages to the user, so a user who ends the conversation never cuts off a write
  the model already asked for. :meth:`ModelAgent.complete` gives one completion of a
  conversation the caller keeps (a simulated user's) with the same endpoint, backoff and retries.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import ClassVar
from urllib.parse import urlsplit, urlunsplit

import orjson

from silo.agents.contract import AgentError, AgentInput, CancelSignal, ModelError, RunLimitError
from silo.agents.endpoints import (
    ConnectFailed,
    Endpoint,
    NoAnswer,
    StatusError,
    TimedOut,
    environment_proxy,
    shared_endpoint,
)
from silo.agents.model_loop import run_on_model_loop
from silo.agents.requests import (
    ConfiguredClient,
    PromptChain,
    conversation_state,
    json_body,
    request_body,
    sdk_target,
    tools_json,
)
from silo.distribution import install_hint
from silo.json_types import JSON
from silo.redact import add_secret

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "USER_TOOL",
    "ModelAgent",
    "Reply",
    "ToolUse",
    "check_url",
    "conversation_state",  # re-exported from silo.agents.requests, as json_body and tools_json
    "json_body",
    "read_json",
    "token_count",
    "tools_json",
    "user_tool_name",
    "without_credentials",
]

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
_POLL_S = 0.05  # how often a backoff looks at the run's signal
USER_TOOL = "silo__message_user"
_USER_TOOL_DESCRIPTION = (
    "Send one message to the user you are working for and get their reply. The user knows "
    "things the request does not say (names, amounts, preferences): ask them. When the reply "
    'says "ended": true the user has left; finish your work and give your final answer.'
)


@dataclass(frozen=True)
class ToolUse:
    """One tool call the model asked for; ``arguments`` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Reply:
    """One model turn, in the terms the loop needs.

    ``ending`` is ``answer`` (final text), ``tools`` (run ``tool_uses``), ``continue`` (send the
    turn back unchanged, e.g. Anthropic's ``pause_turn``), ``truncated`` (the token limit cut it
    off) or ``refused``; ``finish_reason`` is the API's own word for it.
    """

    text: str | None
    tool_uses: list[ToolUse]
    ending: str
    finish_reason: str | None
    usage: dict[str, int]
    message: JSON = field(default=None, repr=False)  # the API's own turn, to send back
    # promptTokenIds, tokenIds, logprobs: whichever the endpoint sent (see model_step)
    tokens: dict[str, list[JSON]] = field(default_factory=dict, repr=False)


class ModelAgent(ABC):
    """A model behind an HTTP API, as a Silo agent; see the module docstring for the contract.

    Subclasses set :attr:`kind`, :attr:`sdk_name`, :attr:`default_base_url`,
    :attr:`base_url_env` and :attr:`example_model`, and implement
    :meth:`build_client`, :meth:`start`, :meth:`request`, :meth:`add_reply` and
    :meth:`add_results`.
    """

    deterministic: ClassVar[bool] = False
    # Its rollouts run as coroutines on the process's model loop (silo.agents.model_loop).
    runs_on_model_loop: ClassVar[bool] = True
    kind: ClassVar[str]
    api: ClassVar[str]  # the wire format model_step events record: openai.chat, ...
    sdk_name: ClassVar[str]
    default_base_url: ClassVar[str]
    base_url_env: ClassVar[str]
    example_model: ClassVar[str]  # named in the "set agent.model" hint

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key_env: str = "",
        temperature: float | None = 0.0,
        seed: int | None = None,
        max_turns: int = 30,
        system_prompt: str | None = None,
        request_timeout_s: float = 60.0,
        max_retries: int = 8,
        max_tokens: int | None = None,
        tool_choice: JSON = None,
        parallel_tool_calls: bool | None = None,
        extra_body: Mapping[str, JSON] | None = None,
        max_connections: int | None = None,
        return_tokens: bool = False,
    ) -> None:
        # Settings are checked here, when the agent is built from config, so a missing one is a
        # run that could not start (exit 2, counted apart in sweeps), not an agent failure.
        if not model:
            raise AgentError(
                f"set agent.model=<model name> (e.g. agent.model={self.example_model})"
            )
        if max_turns < 1:
            raise AgentError(f"agent.max_turns={max_turns} must be at least 1")
        if max_tokens is not None and max_tokens < 1:
            raise AgentError(f"agent.max_tokens={max_tokens} must be at least 1 (or null)")
        if max_connections is not None and max_connections < 1:
            raise AgentError(
                f"agent.max_connections={max_connections} must be at least 1 (or null)"
            )
        if extra_body is not None and not isinstance(extra_body, Mapping):
            raise AgentError("agent.extra_body must be a mapping of extra request fields")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.seed = seed
        self.max_turns = max_turns
        self.system_prompt = system_prompt
        self.request_timeout_s = request_timeout_s
        self.max_retries = max(max_retries, 0)
        self.max_tokens = max_tokens
        self.tool_choice = tool_choice
        self.parallel_tool_calls = parallel_tool_calls
        self.extra_body = dict(extra_body) if extra_body else None
        self.max_connections = max_connections
        self.return_tokens = return_tokens
        try:  # an unusable URL or proxy setting is a run that could not start
            check_url(self.where)
        except ValueError as exc:
            raise AgentError(f"agent.base_url: {exc}") from None

    def __repr__(self) -> str:  # never shows the key: it is not an attribute
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def where(self) -> str:
        """The endpoint's base URL: the setting, else the SDK's environment variable, else its default."""
        return self.base_url or os.environ.get(self.base_url_env) or self.default_base_url

    @property
    def identity(self) -> dict[str, JSON]:
        """Who answers: what ``run.json`` records and summaries split rows by."""
        return {
            "kind": self.kind,
            "model": self.model,
            "baseUrl": without_credentials(self.where),
            "temperature": self.temperature,
            "seed": self.seed,
        }

    def __call__(self, inp: AgentInput) -> dict[str, JSON]:
        """Run the tool-calling loop for one rollout and return its final answer.

        From any thread but the model loop's: the conversation runs there (see :meth:`arun`).
        """
        return run_on_model_loop(self.arun(inp))

    async def arun(self, inp: AgentInput) -> dict[str, JSON]:
        """The tool-calling loop as a coroutine of the model loop (what rollouts in flight run)."""
        if inp.user is not None:  # the user is one more tool (see the module docstring)
            tool = {
                "name": user_tool_name(inp.tools),
                "description": _USER_TOOL_DESCRIPTION,
                "inputSchema": {
                    "type": "object",
                    "properties": {"message": {"type": "string"}},
                    "required": ["message"],
                },
            }
            inp = dataclasses.replace(inp, tools=[*inp.tools, tool])
        return await self._conversation(inp, None).run()

    def complete(self, inp: AgentInput, state: dict[str, JSON]) -> Reply:
        """One completion of ``state`` (built by :meth:`start`, extended by the caller).

        The same endpoint, backoff, retries and ``model_step`` event as a turn of the loop; for
        callers that keep their own conversation, such as a model playing the user. From any
        thread but the model loop's.
        """
        return run_on_model_loop(self.acomplete(inp, state))

    async def acomplete(self, inp: AgentInput, state: dict[str, JSON]) -> Reply:
        """:meth:`complete` as a coroutine of the model loop (many completions in flight)."""
        return await self._conversation(inp, state).step(1)

    def open_endpoint(self) -> Endpoint:
        """The process's endpoint this agent sends to, made on first use (its SDK imported).

        Rollouts open it at their first request; a process that runs many calls it before
        them, so that the SDK's import is part of its start (see :mod:`silo.batch.heap`).
        """
        key = self._api_key()
        return shared_endpoint(
            self.kind, self.where, key, self.max_connections, lambda: self.target(self._sdk(), key)
        )

    def _conversation(self, inp: AgentInput, state: dict[str, JSON] | None) -> _Conversation:
        return _Conversation(self, self.open_endpoint(), inp, self._api_key(), state)

    # -- what a subclass supplies ------------------------------------------------------------

    @abstractmethod
    def target(self, sdk: ModuleType, key: str) -> tuple[str, dict[str, str]]:
        """The request URL and headers, as the SDK's client is configured to send them."""

    def configured_target(
        self, configured: ConfiguredClient, path: str
    ) -> tuple[str, dict[str, str]]:
        """``path`` under an SDK client's base URL and the headers it sends; closes the client.

        For :meth:`target`: the SDK decides the URL and headers (its version, auth scheme),
        Silo sends them itself (:func:`~silo.agents.requests.sdk_target`).
        """
        return sdk_target(configured, path, self.kind, self.where)

    @abstractmethod
    def start(self, inp: AgentInput) -> dict[str, JSON]:
        """The request state of a new conversation (:func:`~silo.agents.requests.conversation_state`)."""

    @staticmethod
    @abstractmethod
    def render_tool(spec: dict[str, JSON]) -> dict[str, JSON]:
        """One environment tool spec in the API's format."""

    @abstractmethod
    def read_reply(self, answer: bytes) -> Reply:
        """The endpoint's answer (a 2xx body) as a :class:`Reply`.

        Raises :class:`~silo.agents.contract.ModelError` when it is not a completion.
        """

    @abstractmethod
    def reply_message(self, reply: Reply) -> dict[str, JSON]:
        """The model's turn as the API expects it back in the next request."""

    def add_reply(self, state: dict[str, JSON], reply: Reply) -> None:
        """Append the model's turn to the conversation."""
        state["messages"].append(self.reply_message(reply))

    @abstractmethod
    def add_results(self, state: dict[str, JSON], results: list[tuple[ToolUse, str, bool]]) -> None:
        """Append the tool results (call, JSON content, is error) as the next turn."""

    # -- shared helpers ----------------------------------------------------------------------

    def _sdk(self) -> ModuleType:
        import importlib

        try:
            return importlib.import_module(self.sdk_name)
        except ImportError:
            raise AgentError(
                f"the {self.kind} agent needs the {self.sdk_name} package: "
                f"{install_hint(self.kind)}"
            ) from None

    def _api_key(self) -> str:
        key = os.environ.get(self.api_key_env, "").strip()
        if key:
            add_secret(key)  # whatever the variable is called, the key never reaches disk
            return key
        if (urlsplit(self.where).hostname or "") in _LOCAL_HOSTS:
            return _PLACEHOLDER_KEY
        raise AgentError(
            f"no API key: set the {self.api_key_env} environment variable (agent.api_key_env "
            "names it), or point agent.base_url at a local server"
        )

    def describe_status(self, status: int, detail: str) -> str:
        """One line for an HTTP error the endpoint answered, saying what to fix."""
        where = f"the model endpoint at {self.where}"
        if status == 401:
            return f"{where} rejected the API key (HTTP 401); put a valid key in {self.api_key_env}"
        if status == 403:
            return f"{where} denied access (HTTP 403: {detail}); check the key's permissions"
        if status == 404:
            return (
                f"{where} answered HTTP 404 for model {self.model!r} ({detail}); check agent.model "
                "and agent.base_url"
            )
        return (
            f"{where} refused the request (HTTP {status}: {detail}); check agent.model and that "
            "the endpoint supports tool calling"
        )


class _Conversation:
    """One rollout of a model agent: its request state, endpoint and backoff random source.

    Runs on the model loop. ``chain`` says what the previous ``model_step`` already recorded,
    so each step records only the messages that are new.
    """

    def __init__(
        self,
        agent: ModelAgent,
        endpoint: Endpoint,
        inp: AgentInput,
        key: str,
        state: dict[str, JSON] | None = None,
    ) -> None:
        self.agent, self.endpoint, self.inp, self.key = agent, endpoint, inp, key
        self.rng = random.Random(inp.seed if agent.seed is None else agent.seed)
        self.state = agent.start(inp) if state is None else state
        self.chain = PromptChain()

    async def run(self) -> dict[str, JSON]:
        agent = self.agent
        for turn in range(1, agent.max_turns + 1):
            _stop_if_ended(self.inp)
            reply = await self.step(turn)
            if reply.ending == "truncated":
                raise AgentError(
                    f"the model's turn {turn} was cut off by the token limit (finish reason "
                    f"{reply.finish_reason}); raise agent.max_tokens"
                )
            if reply.ending == "refused":
                raise AgentError(
                    f"the model refused on turn {turn} (finish reason {reply.finish_reason}): "
                    f"{_one_line(reply.text or '', self.key)}"
                )
            if reply.ending == "continue":
                agent.add_reply(self.state, reply)
                continue
            if not reply.tool_uses:
                return {"output": reply.text or ""}
            agent.add_reply(self.state, reply)
            agent.add_results(self.state, _run_turn(self.inp, reply.tool_uses))
        raise AgentError(
            f"the model reached max_turns={agent.max_turns} without a final answer; "
            "raise agent.max_turns"
        )

    async def step(self, turn: int) -> Reply:
        """One completion (with retries); emits ``model_step`` and returns the reply."""
        started = time.monotonic()
        prompt = self.chain.prompt(self.endpoint, self.state, self.agent.render_tool)
        reply, attempts = await self.complete()
        message = self.agent.reply_message(reply)
        self.chain.answered(turn, self.state)
        completion: dict[str, JSON] = {"message": message, "finishReason": reply.finish_reason}
        step: dict[str, JSON] = {
            "turn": turn,
            "api": self.agent.api,
            "request": {
                "model": self.agent.model,
                "messages": len(self.state["messages"]),
                "tools": len(self.inp.tools),
            },
            "prompt": prompt,
            "completion": completion,
            "response": {
                "text": reply.text,
                "toolCalls": [{"name": u.name, "arguments": u.arguments} for u in reply.tool_uses],
                "finishReason": reply.finish_reason,
            },
            "usage": reply.usage,
            "latencyMs": round((time.monotonic() - started) * 1000, 3),
            "attempts": attempts,
        }
        tokens = reply.tokens
        if "promptTokenIds" in tokens:
            step["promptTokenIds"] = tokens["promptTokenIds"]
        for name in ("tokenIds", "logprobs"):
            if name in tokens:
                completion[name] = tokens[name]
        self.inp.emit("model_step", step)
        return reply

    async def complete(self) -> tuple[Reply, int]:
        agent, inp = self.agent, self.inp
        problem = "no attempt"
        for attempt in range(1, agent.max_retries + 2):
            retry_after: float | None = None
            rate_limited = False
            timeout = agent.request_timeout_s
            try:
                async with self.endpoint.slot(inp.deadline, inp.signal):
                    timeout = min(timeout, max(inp.deadline - time.monotonic(), 0.001))
                    body = request_body(self.endpoint, self.state, agent.render_tool)
                    answer = await self.endpoint.post(body, timeout)
                reply = agent.read_reply(answer)
                self.endpoint.succeeded()
                return reply, attempt
            except StatusError as exc:
                detail = _one_line(exc.detail, self.key)
                if exc.status != 429 and exc.status < 500:
                    raise ModelError(agent.describe_status(exc.status, detail)) from None
                problem = f"HTTP {exc.status}: {detail}"
                retry_after = _retry_after(exc.headers)
                rate_limited = exc.status == 429
            except TimedOut:
                problem = f"no answer within {timeout:.1f}s"
            except ConnectFailed as exc:
                raise ModelError(
                    f"cannot connect to the model endpoint at {agent.where} "
                    f"({_one_line(str(exc), self.key)}); start the server or fix agent.base_url",
                    connect_failed=True,
                ) from None
            except NoAnswer as exc:
                raise ModelError(
                    f"the model endpoint at {agent.where} failed: {_one_line(str(exc), self.key)}"
                ) from None
            _stop_if_ended(inp)  # a failure at the deadline is a timeout, not a failing endpoint
            if attempt > agent.max_retries:
                break
            backoff = min(_BACKOFF_CAP_S, _BACKOFF_BASE_S * 2 ** (attempt - 1))
            delay = max(backoff * (0.5 + self.rng.random() / 2), retry_after or 0.0)
            delay = min(delay, max(inp.deadline - time.monotonic(), 0.0))
            self.endpoint.overloaded(delay, rate_limited)
            inp.emit(
                "model_retry",
                {"attempt": attempt, "problem": problem, "delayMs": round(delay * 1000)},
            )
            await _sleep_unless_stopped(delay, inp.signal)
        raise ModelError(
            f"the model endpoint at {agent.where} kept failing ({problem}) after "
            f"{agent.max_retries + 1} attempts; retry later or raise agent.max_retries"
        )


# -- helpers -----------------------------------------------------------------------------------


def _stop_if_ended(inp: AgentInput) -> None:
    if inp.signal.aborted:
        reason = inp.signal.reason or "cancelled"
        raise RunLimitError(reason, f"the run was stopped ({reason})")
    if time.monotonic() >= inp.deadline:
        raise RunLimitError("timeout", "the run's time budget ran out")


async def _sleep_unless_stopped(delay: float, signal: CancelSignal) -> None:
    """Wait ``delay`` s on the loop, or less when the run is told to stop."""
    until = time.monotonic() + delay
    while not signal.aborted:
        left = until - time.monotonic()
        if left <= 0:
            return
        await asyncio.sleep(min(left, _POLL_S))


def check_url(url: str) -> None:
    """Raise :class:`ValueError` (one line) for an endpoint URL or proxy that cannot be used.

    The URL must be ``http``/``https``; the environment's proxy for it
    (:func:`~silo.agents.endpoints.environment_proxy`) must be an ``http://`` or ``https://`` one.
    """
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// URL")
    proxy = environment_proxy(url)
    proxy_scheme = urlsplit(proxy).scheme.lower() if proxy else "http"
    if proxy_scheme not in ("http", "https"):
        raise ValueError(
            f"the proxy {proxy_scheme}://... is not supported; use an http:// or https:// one"
        )


def user_tool_name(tools: list[dict[str, JSON]]) -> str:
    """:data:`USER_TOOL`, with ``_`` appended while an environment tool already has the name."""
    taken = {spec.get("name") for spec in tools}
    name = USER_TOOL
    while name in taken:
        name += "_"
    return name


def _run_turn(inp: AgentInput, uses: list[ToolUse]) -> list[tuple[ToolUse, str, bool]]:
    """Run a turn's calls, environment tools first and messages to the user last.

    The results keep the model's order. Environment tools go first so that a user who ends the
    conversation on a message never cuts off a write the model asked for in the same turn.
    """
    user_tool = user_tool_name(inp.tools[:-1]) if inp.user is not None else None
    done: dict[int, tuple[str, bool]] = {}
    order = sorted(range(len(uses)), key=lambda i: uses[i].name == user_tool)
    for index in order:
        use = uses[index]
        done[index] = _message_user(inp, use) if use.name == user_tool else _run_tool_call(inp, use)
    return [(use, *done[index]) for index, use in enumerate(uses)]


def _message_user(inp: AgentInput, use: ToolUse) -> tuple[str, bool]:
    """Deliver a ``silo__message_user`` call: the user's reply as the tool result."""
    assert inp.user is not None
    try:
        data = json.loads(use.arguments or "{}")
    except json.JSONDecodeError:
        data = None
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, str) or not message.strip():
        text = 'send {"message": "<your message to the user>"}; the message was not delivered'
        return _dumps({"error": {"code": "invalid_input", "message": text}}), True
    reply = inp.user.send(message)
    return _dumps(dict(reply)), reply.is_error


def _run_tool_call(inp: AgentInput, use: ToolUse) -> tuple[str, bool]:
    """Run one tool call unless its arguments are not JSON: the result's content and error flag."""
    try:
        data = json.loads(use.arguments or "{}")
    except json.JSONDecodeError as exc:
        message = (
            f"the arguments are not valid JSON ({exc.msg} at line {exc.lineno}, column "
            f"{exc.colno}); the tool was not called; send the arguments again as one JSON object"
        )
        return _dumps({"error": {"code": "invalid_json", "message": message}}), True
    result = inp.call_tool(use.name, data)  # the engine answers unknown tools and invalid input
    if result.get("isError"):
        return _dumps({"error": result.get("output")}), True
    return _dumps(result.get("output")), False


def _dumps(value: JSON) -> str:
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


def without_credentials(url: str) -> str:
    """``url`` without user info, query or fragment: what may be written to ``run.json``."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def token_count(value: object) -> int:
    """A usage figure as the endpoint sent it, 0 when it is missing or not a whole number."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def read_json(content: bytes, where: str, expected: str) -> dict[str, JSON]:
    """The JSON object an endpoint answered (an HTTP body), or a :class:`ModelError`."""
    try:
        data = orjson.loads(content)
    except orjson.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        text = content.decode("utf-8", "replace")
        raise ModelError(
            f"the model endpoint at {where} answered something that is not {expected} "
            f"({_one_line(text, '')}); check agent.base_url"
        )
    return data
