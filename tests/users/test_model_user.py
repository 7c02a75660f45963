"""A model playing the user, against local fake OpenAI and Anthropic servers."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

import fake_anthropic  # noqa: E402
import fake_openai  # noqa: E402

import silo  # noqa: E402
from silo.agents.contract import AgentInput  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _talker(inp: AgentInput) -> list[str]:
    assert inp.user is not None
    first = inp.user.send("Which company are you with?")
    second = inp.user.send("Done: I have updated the deal.")
    return [first.text, str(second.ended)]


def _run(user: dict[str, Any], seed: int = 5) -> Any:
    return silo.run_task(
        "crm", "TASK-007", _talker, project_dir=ROOT, write_artifacts=False, seed=seed, user=user
    )


def _events(result: Any, kind: str) -> list[dict[str, Any]]:
    return [e for e in map(json.loads, result.trace_lines) if e["type"] == kind]


@pytest.mark.slow  # the real openai client against a fake server
def test_openai_user_prompt_roles_seed_steps_stop_and_identity() -> None:
    script = [
        fake_openai.final("I'm with Northwind Freight."),
        fake_openai.final("Great! ###STOP###"),
    ]
    with fake_openai.FakeOpenAI(script) as server:
        result = _run({"name": "openai", "model": "user-model", "base_url": server.base_url})
    assert result.agent_output == ["I'm with Northwind Freight.", "True"]
    first, second = (r["json"] for r in server.requests)
    system = first["messages"][0]
    assert system["role"] == "system"
    assert "Marcus Webb" in system["content"] and "$132,500" in system["content"]
    assert "ONLY when the agent asks" in system["content"]
    assert first["messages"][1:] == [{"role": "user", "content": "Which company are you with?"}]
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert first["seed"] == 5 and first["model"] == "user-model" and "tools" not in first
    steps = _events(result, "user_model_step")
    assert [s["turn"] for s in steps] == [1, 2] and steps[0]["usage"]["totalTokens"] == 18
    assert not _events(result, "model_step")  # the agent's own steps stay apart
    last = _events(result, "user_message")[-1]
    assert last["text"] == "Great!" and last["ended"] is True
    end = _events(result, "conversation_end")[0]
    assert end["endedBy"] == "user" and "###STOP###" in end["reason"]
    assert result.run["user"] == "openai"
    assert result.run["userIdentity"] == {
        "kind": "openai", "model": "user-model", "baseUrl": server.base_url,
        "temperature": 0.0, "seed": 5,
    }  # fmt: skip
    assert "usage" not in result.run  # the user's tokens are not the agent's


@pytest.mark.slow  # the real anthropic client against a fake server
def test_anthropic_user_speaks_the_messages_api() -> None:
    script = [fake_anthropic.final("Northwind."), fake_anthropic.final("Thanks ###STOP###")]
    with fake_anthropic.FakeAnthropic(script) as server:
        result = _run(
            {"name": "anthropic", "model": "claude-user", "base_url": server.base_url, "seed": 9}
        )
    body = server.requests[0]["json"]
    assert "Marcus Webb" in body["system"]
    assert body["messages"] == [{"role": "user", "content": "Which company are you with?"}]
    assert result.run["userIdentity"]["kind"] == "anthropic"
    assert result.run["userIdentity"]["seed"] == 9
    assert result.agent_output == ["Northwind.", "True"]


def test_an_unreachable_user_model_ends_the_run_as_user_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = _run({"name": "openai", "model": "m", "base_url": f"http://127.0.0.1:{port}/v1"})
    assert result.termination_reason == "user_error"
    assert result.error is not None and "the simulated user failed" in result.error
    assert "cannot connect" in result.error and "\n" not in result.error
