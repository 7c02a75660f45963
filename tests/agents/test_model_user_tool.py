"""Model agents talk to the user through the built-in silo__message_user tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, Reply, final, tool_calls

import silo
from silo.agents.model import USER_TOOL, user_tool_name
from silo.agents.openai import OpenAIAgent

ROOT = Path(__file__).resolve().parents[2]


def _agent(server: Any) -> OpenAIAgent:
    return OpenAIAgent(model="fake-model", base_url=server.base_url)


def _run(agent: Any, task: str = "TASK-007") -> Any:
    return silo.run_task("crm", task, agent, project_dir=ROOT, write_artifacts=False)


def _tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "tool"]


def test_the_model_messages_the_user_and_reads_the_reply_as_a_tool_result() -> None:
    script: list[Any] = [
        tool_calls((USER_TOOL, {"message": "Which company are you with?"})),
        final("All set."),
    ]
    with FakeOpenAI(script) as server:
        result = _run(_agent(server))
    first, second = (r["json"] for r in server.requests)
    assert first["messages"][1] == {"role": "user", "content": result.task.user.opening}
    offered = [t["function"]["name"] for t in first["tools"]]
    assert offered[-1] == USER_TOOL and len(offered) == 44  # 43 CRM tools + the user
    reply = json.loads(_tool_results(second)[0]["content"])
    assert reply["ended"] is False and "Northwind" in reply["text"]
    assert result.tool_calls == 0  # a message to the user is not a tool call
    assert result.run["userTurns"] == 1


def test_a_turns_tool_calls_run_before_its_message_to_the_user() -> None:
    """The user ending on the message cannot cut off the write asked for in the same turn."""
    write = {"actorId": "USR-002", "opportunityId": "OPP-001", "amount": 132500}
    script: list[Any] = [
        tool_calls((USER_TOOL, {"message": "I have updated it."}), ("update_opportunity", write)),
        final("Done."),
    ]
    with FakeOpenAI(script) as server:
        result = _run(_agent(server))
    kinds = [json.loads(line)["type"] for line in result.trace_lines]
    assert kinds.index("tool_result") < kinds.index("conversation_end")
    assert result.passed
    second = server.requests[1]["json"]
    # The results go back in the model's own order.
    assert [m["tool_call_id"] for m in _tool_results(second)] == ["call_0", "call_1"]


def test_a_bad_message_is_explained_without_reaching_the_user() -> None:
    script: list[Reply] = [tool_calls((USER_TOOL, {"text": "hi"})), final("ok")]
    with FakeOpenAI(script) as server:
        result = _run(_agent(server))
    content = json.loads(_tool_results(server.requests[1]["json"])[0]["content"])
    assert content["error"]["code"] == "invalid_input"
    assert result.run["userTurns"] == 0


def test_no_user_tool_without_a_user_and_no_collision_with_environment_tools() -> None:
    with FakeOpenAI([final("nothing to do")]) as server:
        _run(_agent(server), task="TASK-004")
    offered = [t["function"]["name"] for t in server.requests[0]["json"]["tools"]]
    assert USER_TOOL not in offered
    assert user_tool_name([{"name": USER_TOOL}, {"name": USER_TOOL + "_"}]) == USER_TOOL + "__"
