"""What every model agent guarantees, for each API, through the real SDKs and a local fake server.

Covers: solving a task over the API's own tool-call format, truncated and refused turns ending as
``agent_error`` (never taken as the answer), pass-through request settings, the recorded
identity without credentials, and one endpoint (client, backoff, limit) shared by the rollouts
of a process.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fake_anthropic
import fake_openai
import pytest
from agent_helpers import ENV, ROOT, TASK, Solution, events
from fake_server import Reply

import silo
from silo.agents.anthropic import AnthropicAgent
from silo.agents.contract import AgentError, CancelSignal, RunLimitError
from silo.agents.endpoints import Endpoint, shared_endpoint
from silo.agents.model import ModelAgent, tools_json
from silo.agents.openai import OpenAIAgent

KEY_ENV = "SILO_TEST_MODEL_KEY"
KEY = "sk-test-0b5e7d2f-never-log-me"


@dataclass(frozen=True)
class Api:
    """One model API as the tests need it: its agent, fake server and reply builders."""

    name: str
    agent: type[ModelAgent]
    server: Callable[..., Any]
    final: Callable[[str], Reply]
    call: Callable[[tuple[str, dict[str, Any]]], Reply]
    truncated: Reply
    refused: Reply
    error: Callable[[int, str], Reply]

    def tool_results(self, request: dict[str, Any]) -> list[tuple[str, Any]]:
        """(call id, parsed content) of the tool results a request sends back."""
        messages = request["json"]["messages"]
        if self.name == "openai":
            return [
                (m["tool_call_id"], json.loads(m["content"]))
                for m in messages
                if m["role"] == "tool"
            ]
        last = messages[-1]["content"]
        return [
            (b["tool_use_id"], json.loads(b["content"])) for b in last if b["type"] == "tool_result"
        ]


APIS = [
    Api(
        "openai",
        OpenAIAgent,
        fake_openai.FakeOpenAI,
        fake_openai.final,
        lambda call: fake_openai.tool_calls(call),
        fake_openai.length("The pipeline is wor"),
        fake_openai.refusal("I can't help with that."),
        fake_openai.error,
    ),
    Api(
        "anthropic",
        AnthropicAgent,
        fake_anthropic.FakeAnthropic,
        fake_anthropic.final,
        lambda call: fake_anthropic.tool_uses(call),
        fake_anthropic.stopped("max_tokens", "The pipeline is wor"),
        fake_anthropic.stopped("refusal", "I can't help with that."),
        fake_anthropic.error,
    ),
]


@pytest.fixture(params=APIS, ids=lambda api: api.name)
def api(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Api:
    monkeypatch.setenv(KEY_ENV, KEY)
    found: Api = request.param
    return found


def agent_for(api: Api, server: Any, **settings: Any) -> ModelAgent:
    return api.agent(model="fake-model", api_key_env=KEY_ENV, base_url=server.base_url, **settings)


def run(tmp_path: Path, agent: Any, timeout_ms: int = 20000) -> Any:
    return silo.run_task(
        ENV,
        TASK,
        agent,
        budget={"max_tool_calls": 100, "timeout_ms": timeout_ms},
        project_dir=ROOT,
        runs_dir=tmp_path / "runs",
    )


def solving(api: Api, solution: Solution) -> list[Reply]:
    return [api.call(call) for call in solution.calls] + [api.final(solution.answer)]


def test_solves_the_task_through_its_own_tool_format(
    tmp_path: Path, api: Api, solution: Solution
) -> None:
    with api.server(solving(api, solution)) as server:
        result = run(tmp_path, agent_for(api, server))
    assert result.passed, result.error
    assert result.result["toolCalls"] == len(solution.calls)
    assert result.result["agentOutput"] == solution.answer
    outputs = [e["output"] for e in events(result) if e["type"] == "tool_result"]
    [(call_id, content)] = api.tool_results(server.requests[1])
    assert content == outputs[0] and call_id in {"call_0", "toolu_0"}
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("ending", ["truncated", "refused"])
def test_truncated_and_refused_turns_are_never_the_answer(
    tmp_path: Path, api: Api, ending: str
) -> None:
    with api.server([getattr(api, ending)]) as server:
        result = run(tmp_path, agent_for(api, server))
    assert result.termination_reason == "agent_error"
    assert not result.passed
    expected = "cut off by the token limit" if ending == "truncated" else "the model refused"
    assert expected in result.error and "\n" not in result.error
    assert result.result["agentOutput"] in (None, "")
    [step] = [e for e in events(result) if e["type"] == "model_step"]
    assert step["response"]["finishReason"] in {"length", "max_tokens", "stop", "refusal"}


def test_pass_through_settings_reach_the_request(tmp_path: Path, api: Api) -> None:
    choice: Any = "required" if api.name == "openai" else "any"
    with api.server([api.final("done")]) as server:
        agent = agent_for(
            api,
            server,
            max_tokens=321,
            tool_choice=choice,
            parallel_tool_calls=False,
            extra_body={"top_k": 7},
        )
        run(tmp_path, agent)
    body = server.requests[0]["json"]
    assert body["max_tokens"] == 321 and body["top_k"] == 7
    if api.name == "openai":
        assert body["tool_choice"] == "required" and body["parallel_tool_calls"] is False
    else:
        assert body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
        assert body["tools"][0]["input_schema"]["type"] == "object"


def test_identity_names_the_model_and_never_a_credential(api: Api) -> None:
    agent = api.agent(
        model="m-1",
        api_key_env=KEY_ENV,
        base_url="https://user:s3cret@models.example:8443/v1?key=abc#frag",
        temperature=0.3,
        seed=5,
    )
    assert agent.identity == {
        "kind": api.name,
        "model": "m-1",
        "baseUrl": "https://models.example:8443/v1",
        "temperature": 0.3,
        "seed": 5,
    }


def test_run_json_records_who_answered(tmp_path: Path, api: Api) -> None:
    with api.server([api.final("done")]) as server:
        result = run(tmp_path, agent_for(api, server, seed=3))
    recorded = json.loads((result.run_dir / "run.json").read_text(encoding="utf-8"))
    assert recorded["agentIdentity"] == {
        "kind": api.name,
        "model": "fake-model",
        "baseUrl": server.base_url,
        "temperature": 0.0 if api.name == "openai" else None,
        "seed": 3,
    }
    assert KEY not in json.dumps(recorded)


def test_missing_key_for_a_remote_endpoint_is_one_line(
    tmp_path: Path, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(AgentError) as refused:  # when built: a run that could not start
        api.agent(model="m", api_key_env=KEY_ENV, base_url="https://models.example.invalid/v1")
    assert KEY_ENV in str(refused.value) and "\n" not in str(refused.value)


def test_rollouts_of_a_process_share_one_endpoint(
    tmp_path: Path, api: Api, solution: Solution
) -> None:
    with api.server([api.final("done")]) as server:
        first, second = agent_for(api, server), agent_for(api, server)
        run(tmp_path, first)
        run(tmp_path, second)
        built: list[int] = []
        endpoint = shared_endpoint(api.name, server.base_url, KEY, 256, lambda n: built.append(n))
    assert built == []  # the two rollouts already built this endpoint's one client
    assert (
        type(endpoint.client).__name__
        == {"openai": "JsonClient", "anthropic": "Anthropic"}[api.name]
    )
    assert endpoint.limit == 256


def test_a_rate_limit_slows_every_rollout_down_together(
    tmp_path: Path, api: Api, solution: Solution
) -> None:
    """One rollout's 429 makes the others wait out its backoff instead of hammering the endpoint.

    Six rollouts send their first request; once all six are in, one gets a 429 with
    ``Retry-After: 0.6`` and the other five get a tool call once the client has taken the 429 in
    (the shared endpoint is cooling down). Their second requests must wait for the cool-down:
    none may reach the server before it ends.
    """
    rollouts = 6
    lock = threading.Lock()
    arrived = threading.Event()
    first_requests: list[float] = []
    limited: list[float] = []

    def model(body: dict[str, Any]) -> Reply:
        if len(body["messages"]) <= 2:  # a rollout's first turn (the 429'd one resends it too)
            with lock:
                first_requests.append(time.monotonic())
                if len(first_requests) == rollouts:
                    arrived.set()
                retry = len(first_requests) > rollouts
            if retry:
                return api.final("done")
            arrived.wait(10)
            with lock:
                if not limited:
                    limited.append(time.monotonic())
                    reply = api.error(429, "slow down")
                    reply.headers["retry-after"] = "0.6"
                    return reply
            endpoint = shared_endpoint(api.name, server.base_url, KEY, 256, lambda n: None)
            waited = time.monotonic() + 10
            while endpoint.cooling_for == 0 and time.monotonic() < waited:
                time.sleep(0.01)
            return api.call(solution.calls[0])
        return api.final("done")

    with api.server([model]) as server:
        threads = [
            threading.Thread(target=run, args=(tmp_path / str(i), agent_for(api, server)))
            for i in range(rollouts)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    after = sorted(r["at"] - limited[0] for r in server.requests if r["at"] > limited[0])
    assert len(after) == rollouts, after  # five second turns and the retried first turn
    assert all(delay >= 0.55 for delay in after), after


def test_endpoint_cool_down_and_adaptive_limit() -> None:
    endpoint = Endpoint(client=None, max_connections=8)
    signal = CancelSignal()
    endpoint.overloaded(0.3, rate_limited=True)
    assert endpoint.limit == 4 and endpoint.cooling_for > 0.2
    started = time.monotonic()
    with endpoint.slot(time.monotonic() + 5, signal):
        waited = time.monotonic() - started
    assert 0.25 <= waited < 1.0
    for _ in range(10):
        endpoint.succeeded()
    assert endpoint.limit == 8  # grows back, never past the pool
    endpoint.overloaded(5.0, rate_limited=False)
    with pytest.raises(RunLimitError) as stopped, endpoint.slot(time.monotonic() + 0.2, signal):
        pass
    assert stopped.value.reason == "timeout"


def test_a_full_endpoint_admits_no_more_than_its_limit() -> None:
    endpoint = Endpoint(client=None, max_connections=2)
    signal = CancelSignal()
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with endpoint.slot(time.monotonic() + 5, signal):
            holding.set()
            release.wait(5)

    workers = [threading.Thread(target=hold) for _ in range(2)]
    for worker in workers:
        worker.start()
    holding.wait(5)
    time.sleep(0.05)
    # Both slots are held until the deadline passes.
    with pytest.raises(RunLimitError), endpoint.slot(time.monotonic() + 0.2, signal):
        pass
    release.set()
    for worker in workers:
        worker.join(5)
    with endpoint.slot(time.monotonic() + 1, signal):
        pass


def test_anthropic_pause_turn_is_sent_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    script = [fake_anthropic.stopped("pause_turn", "thinking"), fake_anthropic.final("done")]
    with fake_anthropic.FakeAnthropic(script) as server:
        result = run(tmp_path, agent_for(APIS[1], server))
    assert result.termination_reason == "completed" and result.result["agentOutput"] == "done"
    second = server.requests[1]["json"]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant"]
    assert second[1]["content"][0]["text"] == "thinking"


@pytest.mark.parametrize(
    ("body", "reason"),
    [({"unexpected": True}, "agent_error"), (["not", "an", "object"], "model_error")],
)
def test_an_answer_that_is_not_the_api_s_shape_is_one_line(
    tmp_path: Path, api: Api, body: Any, reason: str
) -> None:
    with api.server([Reply(200, body)]) as server:
        result = run(tmp_path, agent_for(api, server))
    assert result.termination_reason == reason  # not JSON at all: the endpoint's failure
    assert result.error is not None and "\n" not in result.error
    assert server.base_url.split("/v1")[0] in result.error


def test_tool_specs_are_serialised_once_per_endpoint() -> None:
    endpoint = Endpoint(client=None, max_connections=4)
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    specs = [{"name": "get", "description": "Get one.", "inputSchema": schema}]
    rendered: list[str] = []

    def render(spec: dict[str, Any]) -> dict[str, Any]:
        rendered.append(spec["name"])
        return {"name": spec["name"], "schema": spec["inputSchema"]}

    first = tools_json(endpoint, [dict(s) for s in specs], render)  # copies, as rollouts get
    again = tools_json(endpoint, [dict(s) for s in specs], render)
    assert first == again and json.loads(first) == [{"name": "get", "schema": schema}]
    assert rendered == ["get"]  # made once, reused by the second rollout
    other = tools_json(endpoint, [{**specs[0], "inputSchema": {"type": "object"}}], render)
    assert json.loads(other)[0]["schema"] == {"type": "object"} and len(rendered) == 2


def test_every_request_offers_the_same_serialised_tools(
    tmp_path: Path, api: Api, solution: Solution
) -> None:
    with api.server(solving(api, solution) * 2) as server:
        agent = agent_for(api, server)
        assert run(tmp_path / "a", agent).passed and run(tmp_path / "b", agent).passed
    offered = [r["json"]["tools"] for r in server.requests]
    assert len(offered) == 2 * (len(solution.calls) + 1)
    assert all(tools == offered[0] for tools in offered) and len(offered[0]) > 10


def test_requests_go_through_the_environment_s_proxy(
    tmp_path: Path, api: Api, solution: Solution, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the SDKs do: HTTP_PROXY carries a plain-HTTP endpoint's requests (absolute targets)."""
    monkeypatch.setenv(KEY_ENV, KEY)
    for name in ("no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    with api.server(solving(api, solution)) as proxy:  # the fake answers as the proxy
        monkeypatch.setenv("HTTP_PROXY", proxy.origin)
        origin = "http://models.example.invalid"
        base_url = proxy.base_url.replace(proxy.origin, origin)
        result = run(tmp_path, api.agent(model="m", api_key_env=KEY_ENV, base_url=base_url))
    assert result.passed, result.result
    assert all(r["path"].startswith(f"{origin}/v1/") for r in proxy.requests)
    assert all(r["headers"]["host"] == "models.example.invalid" for r in proxy.requests)


def test_an_unusable_proxy_setting_stops_the_run_before_it_starts(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("HTTPS_PROXY", "socks5://127.0.0.1:1080")
    monkeypatch.delenv("https_proxy", raising=False)
    with pytest.raises(AgentError, match=r"^agent.base_url: the proxy socks5://\.\.\. is not"):
        api.agent(model="m", api_key_env=KEY_ENV, base_url="https://models.example.invalid/v1")
