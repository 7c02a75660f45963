"""Sessions: one rollout driven from outside, the same record as run_task, budgets and endings."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import silo
from silo import RunLimitError, SiloError, open_session, run_task
from silo.batch.baseline import tool_events
from silo.rollout.session import Session
from tests.waiting import SHORT_SAFETY_S, wait_until

ARTIFACTS = ("trace.jsonl", "state-diff.json", "result.json", "run.json")
REPO = Path(__file__).resolve().parents[2]


def _calls_of(lines: list[str]) -> list[tuple[str, Any]]:
    return [(e["tool"], e["input"]) for e in tool_events(lines) if e["type"] == "tool_call"]


def _bytes(run_dir: Path) -> tuple[bytes, bytes]:
    return (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()


@pytest.mark.parametrize("task_id", ["TASK-001", "TASK-002", "TASK-004", "TASK-006"])
def test_a_session_making_the_solvers_calls_writes_the_same_bytes_as_run_task(
    tmp_path: Path, task_id: str
) -> None:
    solved = run_task("crm", task_id, "solver", project_dir=REPO, runs_dir=tmp_path / "a")
    lines = (solved.run_dir / "trace.jsonl").read_text().splitlines()
    calls = _calls_of(lines)
    assert calls, "the solver makes tool calls"

    def scripted(inp: Any) -> Any:
        for name, args in calls:
            inp.call_tool(name, args)
        return {"output": solved.agent_output}

    by_agent = run_task("crm", task_id, scripted, project_dir=REPO, runs_dir=tmp_path / "b")
    session = open_session("crm", task_id, project_dir=REPO, runs_dir=tmp_path / "c")
    assert session.instruction == solved.task.instruction
    assert [t["name"] for t in session.tools] == [t["name"] for t in json.loads(lines[0])["tools"]]
    for name, args in calls:
        session.call_tool(name, args)
    by_session = session.finish(solved.agent_output)
    assert by_session.passed
    assert _bytes(by_session.run_dir) == _bytes(by_agent.run_dir) == _bytes(solved.run_dir)
    for name in ARTIFACTS:
        assert (by_session.run_dir / name).is_file(), name


def test_session_results_are_what_an_agent_gets(toy_project: Path) -> None:
    seen: dict[str, Any] = {}

    def agent(inp: Any) -> None:
        seen["ok"] = inp.call_tool("read", {"id": "C-1"})
        seen["bad"] = inp.call_tool("read", {"id": 7})
        seen["missing"] = inp.call_tool("nope", {})

    run_task("toy", "TASK-001", agent, project_dir=toy_project, write_artifacts=False)
    with open_session("toy", "TASK-001", project_dir=toy_project, write_artifacts=False) as s:
        assert s.call_tool("read", {"id": "C-1"}) == seen["ok"]
        assert s.call_tool("read", {"id": 7}) == seen["bad"]
        assert s.call_tool("nope", {}) == seen["missing"]
        assert s.call_tool("nope", {}).is_error
        s.finish("done")


def test_the_call_over_the_limit_is_refused_and_the_run_is_max_tool_calls(
    toy_project: Path,
) -> None:
    session = open_session("toy", "TASK-001", budget={"max_tool_calls": 2}, project_dir=toy_project)
    session.call_tool("bump", {"id": "C-1"})
    session.call_tool("bump", {"id": "C-1"})
    with pytest.raises(RunLimitError) as refused:
        session.call_tool("bump", {"id": "C-1"})
    assert refused.value.reason == "max_tool_calls"
    result = session.finish("gave up")
    assert result.termination_reason == "max_tool_calls"
    assert result.tool_calls == 2
    events = (result.run_dir / "trace.jsonl").read_text().splitlines()
    assert sum('"type":"tool_call"' in e for e in events) == 2


def test_a_session_open_at_its_deadline_ends_as_timeout_with_every_artifact(
    toy_project: Path,
) -> None:
    session = open_session("toy", "TASK-001", budget={"timeout_ms": 200}, project_dir=toy_project)
    session.call_tool("bump", {"id": "C-1"})
    wait_until(lambda: session.finished, "the session to end at its deadline", SHORT_SAFETY_S)
    result = session.result
    assert result is not None and result.termination_reason == "timeout"
    assert "still open at its timeout (200 ms)" in (result.error or "")
    for name in ARTIFACTS:
        assert (result.run_dir / name).is_file(), name
    assert json.loads((result.run_dir / "result.json").read_text())["toolCalls"] == 1
    with pytest.raises(RunLimitError) as late:
        session.call_tool("bump", {"id": "C-1"})
    assert late.value.reason == "timeout"
    with pytest.raises(RunLimitError):
        session.finish("too late")


def test_finish_twice_and_use_after_finish_are_clear_errors(toy_project: Path) -> None:
    session = open_session("toy", "TASK-001", project_dir=toy_project)
    first = session.finish("done")
    before = _bytes(first.run_dir)
    with pytest.raises(SiloError) as twice:
        session.finish("again")
    assert twice.value.code == "session_finished"
    with pytest.raises(SiloError) as after:
        session.call_tool("read", {"id": "C-1"})
    assert after.value.code == "session_finished"
    assert _bytes(first.run_dir) == before  # nothing on disk changed or lost
    assert session.result is first


def test_a_session_closed_without_finish_leaves_an_honest_record(toy_project: Path) -> None:
    with open_session("toy", "TASK-001", project_dir=toy_project) as session:
        session.call_tool("bump", {"id": "C-1"})
    result = session.result
    assert result is not None
    assert result.termination_reason == "agent_error"
    assert result.error == "the session was closed without finish()"
    assert result.tool_calls == 1
    for name in ARTIFACTS:
        assert (result.run_dir / name).is_file(), name

    failing = open_session("toy", "TASK-001", project_dir=toy_project)
    with pytest.raises(ValueError), failing:
        raise ValueError("driver crashed")
    assert failing.result is not None
    assert failing.result.error == (
        "the session was closed by ValueError: driver crashed without finish()"
    )


def test_a_garbage_collected_session_still_leaves_its_record(toy_project: Path) -> None:
    runs = toy_project / "gc-runs"
    session = open_session("toy", "TASK-001", project_dir=toy_project, runs_dir=runs)
    session.call_tool("bump", {"id": "C-1"})
    del session
    gc.collect()
    (run_dir,) = list(runs.iterdir())
    result = json.loads((run_dir / "result.json").read_text())
    assert result["terminationReason"] == "agent_error"
    assert result["error"] == "the session was garbage collected without finish()"
    assert (run_dir / "run.json").is_file()


def test_async_with_acall_tool_and_afinish(toy_project: Path) -> None:
    async def drive() -> silo.RolloutResult:
        async with open_session("toy", "TASK-001", project_dir=toy_project) as session:
            await session.acall_tool("bump", {"id": "C-1"})
            await session.acall_tool("bump", {"id": "C-1"})
            return await session.afinish("bumped twice")

    result = asyncio.run(drive())
    assert result.passed and result.termination_reason == "completed"
    assert result.agent_output == "bumped twice"


def test_a_call_from_another_rollouts_agent_is_refused(toy_project: Path) -> None:
    other = open_session("toy", "TASK-001", project_dir=toy_project)

    def agent(inp: Any) -> None:
        other.call_tool("bump", {"id": "C-1"})

    result = run_task("toy", "TASK-001", agent, project_dir=toy_project, write_artifacts=False)
    assert result.termination_reason == "agent_error"
    assert "belongs to another rollout" in (result.error or "")
    assert other.finish("untouched").tool_calls == 0


def test_calls_after_the_agent_returned_are_refused(toy_project: Path) -> None:
    refused: list[str] = []
    stop = threading.Event()

    def stray(call: Any) -> None:
        while not stop.is_set():
            try:
                call("bump", {"id": "C-1"})
            except RunLimitError as exc:
                refused.append(exc.reason)
                return

    def agent(inp: Any) -> str:
        thread = threading.Thread(target=stray, args=(inp.call_tool,), daemon=True)
        thread.start()
        time.sleep(0.05)
        return "returned"

    result = run_task(
        "toy", "TASK-001", agent, {"max_tool_calls": 10_000_000}, project_dir=toy_project
    )
    wait_until(lambda: refused, "the stray thread's call to be refused", SHORT_SAFETY_S)
    stop.set()
    assert refused == ["completed"]  # the stray thread was stopped at the agent's return
    assert result.termination_reason == "completed"
    lines = (result.run_dir / "trace.jsonl").read_text().splitlines()
    calls = sum('"type":"tool_call"' in line for line in lines)
    results = sum('"type":"tool_result"' in line for line in lines)
    assert calls == results == result.tool_calls  # every call paired and counted


def test_session_is_public(toy_project: Path) -> None:
    session = silo.open_session("toy", "TASK-001", project_dir=toy_project, write_artifacts=False)
    assert isinstance(session, silo.Session) and isinstance(session, Session)
    session.close()
    assert session.result is not None and session.result.termination_reason == "agent_error"
