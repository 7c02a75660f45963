"""The OpenAI agent against a real local OpenAI-compatible server, through the real SDK.

Every test runs ``silo.run_task`` on the CRM with a scripted "model" (``fake_openai``): no test
touches the internet.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from agent_helpers import ENV, ROOT, TASK, Solution, events
from fake_openai import USAGE, FakeOpenAI, Reply, error, final, tool_calls

import silo
from silo.agents.contract import AgentError
from silo.agents.openai import OpenAIAgent

KEY_ENV = "SILO_TEST_OPENAI_KEY"
KEY = "sk-test-6f1d2c9e8a7b4c3d-never-log-me"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def run(
    tmp_path: Path, server: FakeOpenAI | None, budget: dict[str, int] | None = None, **options: Any
) -> Any:
    settings: dict[str, Any] = {"model": "fake-model", "api_key_env": KEY_ENV}
    if server is not None:
        settings["base_url"] = server.base_url
    agent = OpenAIAgent(**{**settings, **options})
    return silo.run_task(
        ENV,
        TASK,
        agent,
        budget=budget or {"max_tool_calls": 100, "timeout_ms": 120_000},
        project_dir=ROOT,
        runs_dir=tmp_path / "runs",
    )


def solving(solution: Solution) -> list[Reply]:
    """A model that makes the solver's calls, one per turn, then answers like the solver."""
    return [tool_calls(call) for call in solution.calls] + [final(solution.answer)]


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["json"]["messages"] if m["role"] == "tool"]


def test_scripted_model_solves_task(tmp_path: Path, solution: Solution) -> None:
    with FakeOpenAI(solving(solution)) as server:
        result = run(tmp_path, server)
    assert result.passed, result.result
    assert result.termination_reason == "completed"
    assert result.result["toolCalls"] == len(solution.calls)
    assert result.result["agentOutput"] == solution.answer
    first = server.requests[0]
    assert first["path"] == "/v1/chat/completions"
    assert first["headers"]["authorization"] == f"Bearer {KEY}"
    # The headers the SDK's client is configured with; the request path is Silo's own.
    assert first["headers"]["user-agent"].startswith("OpenAI/Python")
    assert first["headers"]["accept-encoding"] == "identity"
    body = first["json"]
    assert body["model"] == "fake-model" and body["temperature"] == 0.0 and "seed" not in body
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"] == silo.load_environment(ENV, ROOT).task(TASK).instruction
    specs = silo.load_environment(ENV, ROOT).tool_specs()
    assert [t["function"]["name"] for t in body["tools"]] == [s["name"] for s in specs]
    assert body["tools"][0]["function"]["parameters"] == specs[0]["inputSchema"]
    # Each tool result went back to the model as JSON, paired with its call id.
    outputs = [e for e in events(result) if e["type"] == "tool_result"]
    second = tool_messages(server.requests[1])
    assert second[0]["tool_call_id"] == "call_0"
    assert json.loads(second[0]["content"]) == outputs[0]["output"]


def test_malformed_arguments_are_explained_and_the_run_goes_on(
    tmp_path: Path, solution: Solution
) -> None:
    first_tool = solution.calls[0][0]
    script = [tool_calls((first_tool, '{"oops": ')), *solving(solution)]
    with FakeOpenAI(script) as server:
        result = run(tmp_path, server)
    assert result.passed, result.result
    assert result.result["toolCalls"] == len(solution.calls)  # the malformed call never ran
    reply = json.loads(tool_messages(server.requests[1])[-1]["content"])
    assert reply["error"]["code"] == "invalid_json"
    assert "not valid JSON" in reply["error"]["message"]


def test_unknown_tool_and_invalid_input_are_answered_by_the_engine(
    tmp_path: Path, solution: Solution
) -> None:
    first_tool = solution.calls[0][0]
    script = [tool_calls(("no_such_tool", {"x": 1}), (first_tool, "[1, 2]")), final("I gave up.")]
    with FakeOpenAI(script) as server:
        result = run(tmp_path, server)
    assert result.termination_reason == "completed"
    assert result.result["toolCalls"] == 2 and result.result["toolErrors"] == 2
    outcomes = [e["output"]["code"] for e in events(result) if e["type"] == "tool_result"]
    assert outcomes == ["tool_not_found", "invalid_input"]
    replies = [json.loads(m["content"]) for m in tool_messages(server.requests[1])]
    assert [r["error"]["code"] for r in replies] == outcomes


def test_endless_tool_loop_ends_at_max_tool_calls(tmp_path: Path, solution: Solution) -> None:
    with FakeOpenAI([tool_calls(solution.calls[0])]) as server:
        result = run(tmp_path, server, budget={"max_tool_calls": 5, "timeout_ms": 120_000})
    assert result.termination_reason == "max_tool_calls"
    assert result.result["toolCalls"] == 5
    assert len(server.requests) == 6  # the sixth call was refused and the agent stopped


def test_max_turns_without_answer_is_an_agent_error(tmp_path: Path, solution: Solution) -> None:
    with FakeOpenAI([tool_calls(solution.calls[0])]) as server:
        result = run(tmp_path, server, max_turns=3)
    assert result.termination_reason == "agent_error"
    assert "max_turns=3" in result.error and "raise agent.max_turns" in result.error
    assert len(server.requests) == 3


def test_rate_limit_then_success_passes(tmp_path: Path, solution: Solution) -> None:
    with FakeOpenAI([error(429, "slow down"), *solving(solution)]) as server:
        result = run(tmp_path, server)
    assert result.passed, result.result
    assert len(server.requests) == len(solution.calls) + 2
    steps = [e for e in events(result) if e["type"] == "model_step"]
    assert steps[0]["attempts"] == 2 and all(s["attempts"] == 1 for s in steps[1:])
    [retry] = [e for e in events(result) if e["type"] == "model_retry"]
    assert retry["attempt"] == 1 and retry["problem"].startswith("HTTP 429")
    assert 0 <= retry["delayMs"] <= 500


def test_server_error_forever_ends_as_timeout(tmp_path: Path) -> None:
    started = time.monotonic()
    with FakeOpenAI([error(500, "internal")]) as server:
        result = run(tmp_path, server, budget={"max_tool_calls": 100, "timeout_ms": 1500})
    elapsed = time.monotonic() - started
    assert result.termination_reason == "timeout"
    assert elapsed >= 1.5, elapsed  # it retried until the budget ran out, not less
    assert len(server.requests) >= 2  # it retried within the budget


def test_retries_exhausted_is_one_line_model_error(tmp_path: Path) -> None:
    with FakeOpenAI([error(503, "overloaded")]) as server:
        result = run(tmp_path, server, max_retries=1)
    assert result.termination_reason == "model_error"  # the endpoint's failure, not the model's
    assert "HTTP 503" in result.error and "after 2 attempts" in result.error
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    ("status", "expected"),
    [(401, "rejected the API key (HTTP 401)"), (404, "HTTP 404 for model 'fake-model'")],
)
def test_client_errors_are_one_line_model_errors(
    tmp_path: Path, status: int, expected: str
) -> None:
    with FakeOpenAI([error(status, f"Incorrect API key provided: {KEY}")]) as server:
        result = run(tmp_path, server)
    assert result.termination_reason == "model_error"
    assert expected in result.error
    assert "\n" not in result.error and KEY not in result.error
    assert len(server.requests) == 1  # never retried


def test_connection_refused_is_one_line_model_error(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run(tmp_path, None, base_url=f"http://127.0.0.1:{port}/v1")
    assert result.termination_reason == "model_error"
    assert result.run["modelUnreachable"] is True  # what stops a sweep early
    assert result.error.startswith("cannot connect to the model endpoint at http://127.0.0.1:")
    assert "\n" not in result.error


def test_missing_model_and_missing_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(AgentError, match=r"^set agent.model=<model name>"):
        OpenAIAgent(model=None)  # refused when built: the run cannot start
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(AgentError, match=f"^no API key: set the {KEY_ENV} environment variable"):
        run(tmp_path, None, base_url="https://models.example.invalid/v1")


def test_local_server_needs_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, solution: Solution
) -> None:
    monkeypatch.delenv(KEY_ENV)
    with FakeOpenAI([final("nothing to do")]) as server:
        result = run(tmp_path, server, temperature=None, seed=7)
    assert result.termination_reason == "completed"
    body = server.requests[0]["json"]
    assert "temperature" not in body and body["seed"] == 7
    assert server.requests[0]["headers"]["authorization"] == "Bearer not-needed"


def test_model_steps_and_usage_are_recorded(tmp_path: Path, solution: Solution) -> None:
    with FakeOpenAI(solving(solution)) as server:
        result = run(tmp_path, server)
    steps = [e for e in events(result) if e["type"] == "model_step"]
    turns = len(solution.calls) + 1
    assert [s["turn"] for s in steps] == list(range(1, turns + 1))
    first = steps[0]
    assert first["request"] == {
        "model": "fake-model",
        "messages": 2,
        "tools": len(silo.load_environment(ENV, ROOT).tool_specs()),
    }
    assert first["response"]["toolCalls"] == [
        {"name": solution.calls[0][0], "arguments": json.dumps(solution.calls[0][1])}
    ]
    assert steps[-1]["response"]["text"] == solution.answer
    assert first["usage"] == {"promptTokens": 11, "completionTokens": 7, "totalTokens": 18}
    assert first["latencyMs"] >= 0
    run_json = json.loads((result.run_dir / "run.json").read_text())
    assert run_json["usage"] == {
        "promptTokens": USAGE["prompt_tokens"] * turns,
        "completionTokens": USAGE["completion_tokens"] * turns,
        "totalTokens": USAGE["total_tokens"] * turns,
    }


def test_api_key_never_reaches_an_artifact(tmp_path: Path, solution: Solution) -> None:
    with FakeOpenAI([error(429, f"key {KEY} is rate limited"), *solving(solution)]) as server:
        run(tmp_path, server)
    with FakeOpenAI([error(401, f"Incorrect API key provided: {KEY}")]) as server:
        run(tmp_path, server)
    files = [p for p in (tmp_path / "runs").rglob("*") if p.is_file()]
    assert len(files) >= 8
    for path in files:
        assert KEY not in path.read_text(encoding="utf-8"), path


def test_the_sdk_s_configured_headers_go_with_every_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request path is Silo's; the headers are the ones the SDK's client is configured with."""
    monkeypatch.setenv("OPENAI_ORG_ID", "org-silo-test")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-silo-test")
    with FakeOpenAI([final("done")]) as server:
        result = run(tmp_path, server)
    assert result.termination_reason == "completed"
    headers = server.requests[0]["headers"]
    assert headers["openai-organization"] == "org-silo-test"
    assert headers["openai-project"] == "proj-silo-test"
    assert headers["authorization"] == f"Bearer {KEY}"
    assert headers["host"] == server.base_url.split("/")[2]


def test_a_key_that_would_smuggle_a_header_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-bad\r\nX-Injected: 1")
    with FakeOpenAI([final("done")]) as server:
        result = run(tmp_path, server)
    assert result.termination_reason == "agent_error" and "line break" in result.error
    assert "\n" not in result.error and "sk-bad" not in result.error and not server.requests
