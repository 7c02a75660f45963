"""Process isolation: an agent in a child process acts on the parent's world and dies at its deadline.

Agents run in a child process with ``isolation: process``; their calls are served by the
rollout's bridge in this process, so records match the same agent on a thread byte for byte. A
CPU-looping agent's process is killed at the timeout; one that cannot be pickled or loaded in a
child is one line before the rollout opens.
"""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from silo.batch.point import Point
from silo.batch.sweep import run_points
from silo.errors import AgentLoadError
from silo.rollout.run import Budget, run_task
from tests.waiting import wait_until

AGENTS = """
import os
from pathlib import Path

def looper(inp):
    (Path(__file__).parent / "looper.pid").write_text(str(os.getpid()))
    total = 0
    while True:
        total += 1

def raises(inp):
    inp.call_tool("bump", {"id": "C-1"})
    raise ValueError("no more bumps")

def misuses(inp):
    bad = inp.call_tool("bump", {"id": 7})
    unknown = inp.call_tool("nope", {})
    good = inp.call_tool("bump", {"id": "C-1"})
    inp.emit("note", {"seen": [bad["isError"], unknown["isError"], good["isError"]]})
    return {"output": {"bad": bad["output"]["code"], "unknown": unknown["output"]["code"]}}

def greedy(inp):
    while True:
        inp.call_tool("bump", {"id": "C-1"})

def pid(inp):
    return {"output": os.getpid()}

def odd_inputs(inp):
    a = inp.call_tool("bump", {"id": lambda: 1})  # cannot be pickled: crosses as its text
    b = inp.call_tool("bump", {"id": {1, 2}})
    return [a["output"]["code"], b["output"]["code"]]

def exits(inp):
    inp.call_tool("bump", {"id": "C-1"})
    os._exit(3)
"""


@pytest.fixture
def agents(toy_project: Path) -> Path:
    path = toy_project / "agents" / "isolated.py"
    path.parent.mkdir()
    path.write_text(AGENTS)
    return path


def _spec(agents: Path, attr: str, isolation: str = "process") -> dict[str, Any]:
    return {"path": str(agents), "attr": attr, "isolation": isolation}


def _run(project: Path, agent: Any, runs: Path, timeout_ms: int = 60_000) -> Path:
    result = run_task(
        "toy", "TASK-001", agent, Budget(max_tool_calls=5, timeout_ms=timeout_ms),
        project_dir=project, runs_dir=runs,
    )  # fmt: skip
    assert result.run_dir is not None
    return Path(result.run_dir)


@pytest.mark.parametrize("attr", ["raises", "misuses", "greedy", "odd_inputs"])
def test_an_isolated_agent_leaves_the_record_it_leaves_on_a_thread(
    toy_project: Path, agents: Path, attr: str
) -> None:
    on_thread = _run(toy_project, _spec(agents, attr, "thread"), toy_project / "t")
    in_process = _run(toy_project, _spec(agents, attr), toy_project / "p")
    for name in ("result.json", "state-diff.json"):
        assert (in_process / name).read_bytes() == (on_thread / name).read_bytes(), name
    run = json.loads((in_process / "run.json").read_text())
    assert run["agentIsolation"] == "process"
    assert "agentIsolation" not in json.loads((on_thread / "run.json").read_text())
    events = [json.loads(line)["type"] for line in (in_process / "trace.jsonl").open()]
    assert events == [json.loads(line)["type"] for line in (on_thread / "trace.jsonl").open()]


def test_the_agent_runs_in_another_process(toy_project: Path, agents: Path) -> None:
    result = run_task("toy", "TASK-001", _spec(agents, "pid"), project_dir=toy_project,
                      write_artifacts=False)  # fmt: skip
    output = result.result["agentOutput"]
    assert isinstance(output, int) and output != os.getpid()


def test_an_agent_whose_process_dies_is_an_agent_error_and_the_next_rollout_runs(
    toy_project: Path, agents: Path
) -> None:
    died = run_task("toy", "TASK-001", _spec(agents, "exits"), project_dir=toy_project,
                    write_artifacts=False)  # fmt: skip
    assert died.termination_reason == "agent_error"
    assert died.error == "the agent's process exited before it returned"
    after = run_task("toy", "TASK-001", {"name": "solver", "isolation": "process"},
                     project_dir=toy_project, write_artifacts=False)  # fmt: skip
    assert after.passed


def test_a_cpu_looping_agent_times_out_and_its_process_is_killed(
    toy_project: Path, agents: Path
) -> None:
    run = _run(toy_project, _spec(agents, "looper"), toy_project / "runs", timeout_ms=500)
    record = json.loads((run / "run.json").read_text())
    assert record["terminationReason"] == "timeout"
    pid = int((agents.parent / "looper.pid").read_text())

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_until(gone, "the looping agent's process to be killed and reaped")


def test_loopers_in_a_sweep_end_as_timeout_and_the_others_pass(
    toy_project: Path, agents: Path
) -> None:
    looper = _spec(agents, "looper")
    solver = {"name": "solver", "isolation": "process"}
    points = [Point("toy", "TASK-001", looper, "looper", Budget(timeout_ms=500))] * 4 + [
        Point("toy", "TASK-001", solver, "solver", Budget(timeout_ms=300_000), seed=i)
        for i in range(12)
    ]
    group = toy_project / "g"
    outcomes = run_points(
        points, 1, project_dir=toy_project, group_dir=group, group_id="g",
        progress=False, max_concurrency=8,
    )  # fmt: skip
    assert len(outcomes) == 16
    runs = [json.loads(p.read_text()) for p in group.glob("*/run.json")]
    reasons = sorted((r["agent"], r["terminationReason"]) for r in runs)
    assert reasons == [("looper", "timeout")] * 4 + [("solver", "completed")] * 12
    assert sum(o.passed for o in outcomes) == 12


def test_an_agent_that_cannot_be_pickled_is_one_line(toy_project: Path) -> None:
    with pytest.raises(AgentLoadError) as caught:
        run_task("toy", "TASK-001", {"agent": lambda inp: None, "isolation": "process"},
                 project_dir=toy_project, write_artifacts=False)  # fmt: skip
    message = str(caught.value)
    assert "cannot be pickled" in message and "agent.isolation=thread" in message
    assert "\n" not in message


def test_an_agent_a_child_cannot_import_is_one_line_before_the_rollout(
    toy_project: Path,
) -> None:
    module = types.ModuleType("only_in_this_process")

    def agent(inp: Any) -> None:
        return None

    agent.__module__, agent.__qualname__ = module.__name__, "agent"
    module.agent = agent  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        with pytest.raises(AgentLoadError) as caught:
            run_task("toy", "TASK-001", {"agent": agent, "isolation": "process"},
                     project_dir=toy_project, runs_dir=toy_project / "runs")  # fmt: skip
    finally:
        del sys.modules[module.__name__]
    message = str(caught.value)
    assert "cannot run in a process of its own" in message and "only_in_this_process" in message
    assert "\n" not in message
    assert not (toy_project / "runs").exists()  # refused before the rollout opened


def test_an_unknown_isolation_is_one_line(toy_project: Path) -> None:
    with pytest.raises(AgentLoadError, match="isolation must be one of thread, process"):
        run_task("toy", "TASK-001", {"name": "solver", "isolation": "fork"},
                 project_dir=toy_project, write_artifacts=False)  # fmt: skip


SLOW_IMPORT = """
import time

time.sleep(1.0)  # an agent whose module takes a while to import (a model, a big library)


def agent(inp):
    return "ready"
"""


def test_starting_a_process_and_loading_the_agent_never_count_against_its_budget(
    toy_project: Path,
) -> None:
    path = toy_project / "slow_import.py"
    path.write_text(SLOW_IMPORT)
    spec = {"path": str(path), "isolation": "process"}
    points = [Point("toy", "TASK-001", spec, "slow-import", Budget(timeout_ms=500), seed=i)
              for i in range(4)]  # fmt: skip
    group = toy_project / "g"
    run_points(points, 1, project_dir=toy_project, group_dir=group, group_id="g",
               progress=False, max_concurrency=4)  # fmt: skip
    runs = [json.loads(p.read_text()) for p in group.glob("*/run.json")]
    assert [r["terminationReason"] for r in runs] == ["completed"] * 4
