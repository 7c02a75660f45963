"""The replay agent: a recorded run, replayed on a fresh world, gives the same artifacts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agent_helpers import ENV, ROOT, TASK, events, solve
from fake_openai import FakeOpenAI, final, tool_calls

import silo
from silo.agents.contract import AgentError, AgentInput
from silo.agents.openai import OpenAIAgent
from silo.agents.random import RandomAgent
from silo.agents.replay import ReplayAgent

ORACLES = ("result.json", "state-diff.json")


def rollout(tmp_path: Path, agent: Any, budget: dict[str, int] | None = None) -> Any:
    return silo.run_task(ENV, TASK, agent, budget=budget, project_dir=ROOT, runs_dir=tmp_path)


def assert_reproduced(tmp_path: Path, agent: Any, budget: dict[str, int] | None = None) -> Any:
    recorded = rollout(tmp_path, agent, budget)
    replayed = rollout(tmp_path, ReplayAgent(recorded.run_dir / "trace.jsonl"), budget)
    for name in ORACLES:
        assert (replayed.run_dir / name).read_bytes() == (recorded.run_dir / name).read_bytes()
    assert not [e for e in events(replayed) if e["type"] == "replay_divergence"]
    return recorded


def test_replaying_the_solver_reproduces_its_run(tmp_path: Path) -> None:
    recorded = assert_reproduced(tmp_path, "solver")
    assert recorded.passed and recorded.result["toolCalls"] > 0


def test_replaying_a_run_stopped_by_its_tool_limit(tmp_path: Path) -> None:
    recorded = assert_reproduced(
        tmp_path, RandomAgent(seed=3, calls=20), {"max_tool_calls": 6, "timeout_ms": 120_000}
    )
    assert recorded.termination_reason == "max_tool_calls" and recorded.error is None


def test_replaying_a_failed_agent(tmp_path: Path) -> None:
    def failing(inp: AgentInput) -> Any:
        inp.call_tool(inp.tools[0]["name"], {})
        inp.call_tool("no_such_tool", {})
        raise AgentError("the model endpoint went away; try again later")

    recorded = assert_reproduced(tmp_path, failing)
    assert recorded.termination_reason == "agent_error" and recorded.result["toolCalls"] == 2


def test_a_changed_world_is_reported_as_divergence(tmp_path: Path) -> None:
    recorded = rollout(tmp_path, "solver")
    lines = (recorded.run_dir / "trace.jsonl").read_text().splitlines()
    edited = []
    for line in lines:
        event = json.loads(line)
        if event["type"] == "tool_result" and event["callId"] == 1:
            event["output"] = {"recorded": "something else"}
        edited.append(json.dumps(event))
    trace = tmp_path / "edited.jsonl"
    trace.write_text("\n".join(edited) + "\n")
    replayed = rollout(tmp_path, ReplayAgent(trace))
    assert replayed.passed
    [divergence] = [e for e in events(replayed) if e["type"] == "replay_divergence"]
    assert divergence["recordedCallId"] == 1
    assert divergence["recorded"]["output"] == {"recorded": "something else"}


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_replay_without_a_trace_cannot_be_built() -> None:
    with pytest.raises(AgentError, match=r"^set agent.trace=<path to trace.jsonl>$"):
        ReplayAgent(None)


@pytest.mark.parametrize(
    ("make_trace", "expected"),
    [
        (lambda d: d / "missing.jsonl", "missing.jsonl does not exist; set agent.trace="),
        (
            lambda d: write(d / "bad.jsonl", ['{"seq": 1, "type": "run_start"}', "{not json"]),
            "bad.jsonl:2: not valid JSON",
        ),
        (
            lambda d: write(
                d / "cut.jsonl",
                ['{"seq": 1, "type": "tool_call", "callId": 1, "tool": "x", "input": {}}'],
            ),
            "cut.jsonl has no agent_output event",
        ),
    ],
)
def test_unusable_traces_are_one_line_errors(
    tmp_path: Path, make_trace: Any, expected: str
) -> None:
    result = rollout(tmp_path, ReplayAgent(make_trace(tmp_path)))
    assert result.termination_reason == "agent_error"
    assert expected in result.error and "\n" not in result.error
    assert result.result["toolCalls"] == 0


def test_replaying_a_model_run_needs_no_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    solution = solve()
    monkeypatch.setenv("SILO_TEST_OPENAI_KEY", "sk-test-replay")
    script = [tool_calls(call) for call in solution.calls] + [final(solution.answer)]
    for replies, budget in ((script, None), ([script[0]], {"max_tool_calls": 4})):
        with FakeOpenAI(replies) as server:
            model = OpenAIAgent(
                "fake", base_url=server.base_url, api_key_env="SILO_TEST_OPENAI_KEY"
            )
            recorded = assert_reproduced(
                tmp_path, model, budget
            )  # the server is still up but unused
            assert len(server.requests) == (len(script) if budget is None else 5)
    assert recorded.termination_reason == "max_tool_calls"


def test_replay_reproduces_a_conversational_run_byte_for_byte(tmp_path: Path) -> None:
    recorded = silo.run_task("crm", "TASK-007", "solver", project_dir=ROOT, runs_dir=tmp_path)
    trace = recorded.run_dir / "trace.jsonl"
    replayed = silo.run_task(
        "crm", "TASK-007", ReplayAgent(trace), project_dir=ROOT, runs_dir=tmp_path
    )
    for name in ("result.json", "state-diff.json", "state-changes.json"):
        assert (replayed.run_dir / name).read_bytes() == (recorded.run_dir / name).read_bytes()
    lines = (replayed.run_dir / "trace.jsonl").read_text().splitlines()
    said = [json.loads(line) for line in lines if '"user_message"' in line]
    assert len(said) == 7 and "replay_divergence" not in "".join(lines)


def test_replaying_a_conversation_without_a_user_is_a_one_line_agent_error(tmp_path: Path) -> None:
    recorded = silo.run_task("crm", "TASK-007", "solver", project_dir=ROOT, runs_dir=tmp_path)
    replayed = silo.run_task(
        "crm", "TASK-007", ReplayAgent(recorded.run_dir / "trace.jsonl"), project_dir=ROOT,
        runs_dir=tmp_path, user="none",
    )  # fmt: skip
    assert replayed.termination_reason == "agent_error"
    assert "conversation with a simulated user" in (replayed.error or "")
