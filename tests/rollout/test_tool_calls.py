"""Tool calls through the bridge: validation, unknown tools, refusals, crashes, copies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from silo import run_task


def _run(project: Path, agent: Any, **kw: Any) -> Any:
    return run_task("toy", "TASK-001", agent, project_dir=project, write_artifacts=False, **kw)


def test_invalid_input_lists_every_problem_and_does_not_run(toy_project: Path) -> None:
    seen: dict[str, Any] = {}

    def agent(inp: Any) -> str:
        seen["bad"] = inp.call_tool("bump", {"by": 99, "extra": True})
        seen["state"] = inp.call_tool("read", {"id": "C-1"})
        return "done"

    result = _run(toy_project, agent)
    bad = seen["bad"]
    assert bad["isError"] is True
    assert bad["output"]["code"] == "invalid_input"
    problems = bad["output"]["details"]["problems"]
    assert '"id" is required' in problems
    assert any(p == '"extra" is not a parameter; expected one of: id, by' for p in problems)
    assert any(p.startswith('"by":') and "maximum" in p for p in problems)
    assert bad["output"]["message"].startswith('Invalid arguments for "bump": ')
    assert seen["state"]["output"]["value"] == 1  # the tool body never ran
    assert result.result["toolCalls"] == 2 and result.result["toolErrors"] == 1


def test_non_object_input_is_invalid(toy_project: Path) -> None:
    out: list[Any] = []
    _run(toy_project, lambda inp: out.append(inp.call_tool("read", ["C-1"])))
    assert out[0]["output"]["code"] == "invalid_input"


def test_unknown_tool_is_an_error_result(toy_project: Path) -> None:
    out: list[Any] = []
    result = _run(toy_project, lambda inp: out.append(inp.call_tool("nope", {})))
    assert out[0] == {
        "output": {
            "code": "tool_not_found",
            "message": 'Unknown tool "nope"; call one of the tools offered.',
        },
        "isError": True,
    }
    assert result.result["toolErrors"] == 1


def test_tool_error_keeps_code_and_details(toy_project: Path) -> None:
    out: list[Any] = []
    _run(toy_project, lambda inp: out.append(inp.call_tool("refuse", {})))
    assert out[0]["output"] == {
        "code": "not_allowed",
        "message": "Refused on purpose.",
        "details": {"why": "test"},
    }


def test_unexpected_exception_is_tool_crashed(toy_project: Path) -> None:
    out: list[Any] = []
    result = _run(toy_project, lambda inp: out.append(inp.call_tool("boom", {})))
    assert out[0]["isError"] is True
    assert out[0]["output"] == {"code": "tool_crashed", "message": "KeyError: 'kaboom'"}
    assert result.termination_reason == "completed"


def test_agent_cannot_reach_state_through_outputs_or_inputs(toy_project: Path) -> None:
    def agent(inp: Any) -> str:
        row = inp.call_tool("read", {"id": "C-1"})["output"]
        row["value"] = 1000  # mutating the copy must not touch the world
        payload = {"id": "C-1"}
        inp.call_tool("bump", payload)
        payload["id"] = "C-2"
        return str(inp.call_tool("read", {"id": "C-1"})["output"]["value"])

    result = _run(toy_project, agent)
    assert result.agent_output == "2"
    assert result.state_diff["collections"]["counters"]["changed"] == ["C-1"]


def test_async_agent_can_await_call_tool(toy_project: Path) -> None:
    async def agent(inp: Any) -> dict[str, Any]:
        await inp.call_tool("bump", {"id": "C-1"})
        second = await inp.call_tool("bump", {"id": "C-1"})
        return {"output": f"now {second['output']['value']}"}

    result = _run(toy_project, agent)
    assert result.passed and result.agent_output == "now 3"


def test_bare_return_value_is_the_output(toy_project: Path) -> None:
    result = _run(toy_project, lambda inp: {"answer": 3})
    assert result.agent_output == {"answer": 3}
