"""The user channel of a rollout: paired events, counting, budget, the early-stop guard, endings."""

from __future__ import annotations

import gc
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import silo
from silo.agents.contract import AgentInput
from silo.tasks import Task
from silo.users.base import UserTurn, UserView
from tests.waiting import SHORT_SAFETY_S, wait_until

ROOT = Path(__file__).resolve().parents[2]


def _events(result: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.trace_lines]


def _run(agent: Any, task: str | Task = "TASK-007", **kwargs: Any) -> Any:
    return silo.run_task("crm", task, agent, project_dir=ROOT, write_artifacts=False, **kwargs)


def _asks_twice(inp: AgentInput) -> dict[str, Any]:
    assert inp.user is not None
    first = inp.user.send("Hello, how can I help?")
    second = inp.user.send("Which deal do you mean?")
    return {"output": [first.text, second.text]}


def test_agent_gets_the_opening_and_the_messages_are_paired_in_the_trace() -> None:
    seen: list[str] = []

    def agent(inp: AgentInput) -> dict[str, Any]:
        seen.append(inp.task)
        return _asks_twice(inp)

    result = _run(agent)
    task = silo.load_environment("crm", ROOT).task("TASK-007")
    assert task.user is not None
    assert seen == [task.user.opening]
    said = [e for e in _events(result) if e["type"] == "user_message"]
    assert [(e["messageId"], e["role"]) for e in said] == [
        (0, "user"), (1, "agent"), (1, "user"), (2, "agent"), (2, "user"),
    ]  # fmt: skip
    assert said[0]["opening"] is True and said[0]["text"] == task.user.opening
    assert said[2]["ended"] is False and "durationMs" in said[2]
    assert result.run["userTurns"] == 2
    end = [e for e in _events(result) if e["type"] == "conversation_end"]
    assert [(e["endedBy"], e["reason"]) for e in end] == [
        ("agent", "the agent returned its answer")
    ]


def test_a_conversational_rollout_leaves_no_reference_cycle_behind() -> None:
    # A cycle through the user channel kept each rollout's whole trace alive until the
    # collector's next full pass: memory a sweep of conversations piled up.
    _run(_asks_twice)  # warm: what loads once is not the rollout's
    gc.collect()
    gc.disable()
    try:
        _run(_asks_twice)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_tasks_without_a_user_block_get_no_channel_and_no_new_run_keys() -> None:
    seen: list[Any] = []
    result = _run(lambda inp: seen.append((inp.task, inp.user)), task="TASK-004")
    task = silo.load_environment("crm", ROOT).task("TASK-004")
    assert seen == [(task.instruction, None)]
    for key in ("user", "userIdentity", "userTurns", "conversationEndedBy"):
        assert key not in result.run
    assert "maxUserTurns" not in result.run["config"]
    assert not [e for e in _events(result) if e["type"] in ("user_message", "conversation_end")]


def test_user_none_rolls_a_conversational_task_out_with_its_instruction() -> None:
    seen: list[Any] = []
    _run(lambda inp: seen.append((inp.task, inp.user)), user="none")
    task = silo.load_environment("crm", ROOT).task("TASK-007")
    assert seen == [(task.instruction, None)]


def test_max_user_turns_refuses_the_message_over_it_and_the_run_goes_on() -> None:
    replies: list[Any] = []

    def chatty(inp: AgentInput) -> str:
        assert inp.user is not None
        for _ in range(4):
            replies.append(inp.user.send("What is the amount?"))
        return "done"

    result = _run(chatty, budget={"max_user_turns": 2})
    assert [r.is_error for r in replies] == [False, False, True, True]
    assert "max_user_turns=2" in replies[2].text
    assert result.termination_reason == "completed"
    assert result.run["userTurns"] == 2 and result.run["config"]["maxUserTurns"] == 2
    end = [e for e in _events(result) if e["type"] == "conversation_end"]
    assert [e["endedBy"] for e in end] == ["budget"]


def test_after_the_user_ends_messages_are_error_replies_and_the_agent_still_acts() -> None:
    replies: list[Any] = []

    def agent(inp: AgentInput) -> str:
        assert inp.user is not None
        replies.append(inp.user.send("I have updated it."))  # the scripted ending phrase
        replies.append(inp.user.send("Anything else?"))
        inp.call_tool("get_opportunity", {"opportunityId": "OPP-001"})  # still allowed
        return "ok"

    result = _run(agent)
    assert replies[0].ended and not replies[0].is_error
    assert replies[1].ended and replies[1].is_error
    assert result.tool_calls == 1 and result.run["conversationEndedBy"] == "user"
    end = [e for e in _events(result) if e["type"] == "conversation_end"]
    assert end[0]["endedBy"] == "user" and '"updated"' in end[0]["reason"]


_SLOW_TOOL = """

import time as _time
from pathlib import Path as _Path


def _slow_bump(state, args):
    _Path({marker!r}).touch()  # tells the test's agent the write is in flight
    _time.sleep(1.0)  # a write still running when the user answers
    return _bump(state, {{"id": "C-1", "by": 2}})


TOOLS.append(define_tool("slow_bump", "Bump C-1 by 2, slowly.", {{"type": "object"}}, _slow_bump))
"""

_TALK = {
    "id": "TASK-009", "title": "Toy talk", "instruction": "Bump C-1 by 2.",
    "verifierId": "VER-001",
    "user": {
        "persona": "A toy user.", "goal": "C-1 bumped.", "opening": "Please bump C-1.",
        "ending": {"when": ["bumping"], "say": "Great, bye."},
    },
}  # fmt: skip


@pytest.fixture
def talking_toy(toy_project: Path) -> Path:
    """The toy project with a slow write and a conversational task."""
    env = toy_project / "environments" / "toy"
    marker = str(toy_project / "write-started")
    (env / "env.py").write_text((env / "env.py").read_text() + _SLOW_TOOL.format(marker=marker))
    (env / "tasks" / "TASK-009.json").write_text(json.dumps(_TALK))
    return toy_project


def test_the_user_cannot_end_while_the_agents_tool_call_is_in_flight(talking_toy: Path) -> None:
    """The early-stop guard: the ending waits for the running write, and the trace says so."""

    def agent(inp: AgentInput) -> str:
        assert inp.user is not None
        writer = threading.Thread(target=inp.call_tool, args=("slow_bump", {}))
        writer.start()
        started = talking_toy / "write-started"
        wait_until(started.exists, "the write to be in flight", SHORT_SAFETY_S)
        reply = inp.user.send("I am bumping it now.")  # the scripted user's ending phrase
        writer.join()
        return reply.text

    result = silo.run_task("toy", "TASK-009", agent, project_dir=talking_toy, write_artifacts=False)
    events = _events(result)
    kinds = [e["type"] for e in events]
    end = events[kinds.index("conversation_end")]
    assert end["endedBy"] == "user" and end["heldForCallId"] == 1
    assert kinds.index("tool_result") < kinds.index("conversation_end")
    assert result.passed  # the write landed although the user ended the conversation


def test_a_failing_user_ends_the_run_as_user_error_not_an_agent_failure() -> None:
    class Broken:
        deterministic = True

        def reply(self, view: UserView) -> UserTurn:
            raise RuntimeError("the user model is down")

        def identity(self, seed: int) -> dict[str, Any]:
            return {"kind": "broken"}

    result = _run(_asks_twice, user=Broken())
    assert result.termination_reason == "user_error"
    assert result.error is not None and "simulated user crashed" in result.error
    assert result.run["userIdentity"] == {"kind": "broken"}


def test_async_agents_await_the_user() -> None:
    async def agent(inp: AgentInput) -> str:
        assert inp.user is not None
        first = await inp.user.send("Which company are you with?")
        second = await inp.user.asend("What is the amount?")
        return f"{first.text} | {second.text}"

    result = _run(agent)
    assert "Northwind" in result.agent_output and "132,500" in result.agent_output


def test_an_answer_task_grades_what_the_agent_told_the_user() -> None:
    """TASK-009's verifier reads the conversation from its context, not the final output."""

    def told(inp: AgentInput) -> str:
        assert inp.user is not None
        inp.user.send("Which company are you with?")
        inp.user.send("The value on file is $210,000.")
        return "done"

    def kept_to_itself(inp: AgentInput) -> str:
        assert inp.user is not None
        inp.user.send("Which company are you with?")
        return "The value on file is $210,000."

    assert _run(told, task="TASK-009").passed
    assert not _run(kept_to_itself, task="TASK-009").passed


def test_a_user_that_hangs_ends_the_run_at_its_timeout_with_the_conversation_closed() -> None:
    class Hangs:
        deterministic = True

        def reply(self, view: UserView) -> UserTurn:
            view.signal.wait(SHORT_SAFETY_S)  # returns as soon as the run is stopped
            return UserTurn("too late")

        def identity(self, seed: int) -> dict[str, Any]:
            return {"kind": "hangs"}

    result = _run(_asks_twice, user=Hangs(), budget={"timeout_ms": 300})
    assert result.termination_reason == "timeout"
    end = [e for e in _events(result) if e["type"] == "conversation_end"]
    assert [(e["endedBy"], e["reason"]) for e in end] == [("run", "the run ended: timeout")]
    assert result.run["userTurns"] == 1
