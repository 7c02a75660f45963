"""silo/Silo-v0 with the real Gymnasium: check_env, episodes, budgets, records."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import silo
import silo.gym  # noqa: F401  (registers silo/Silo-v0)

REPO = Path(__file__).resolve().parents[2]


def _make(tmp_path: Path, **kwargs: Any) -> Any:
    return gymnasium.make(
        "silo/Silo-v0", env="crm", project_dir=str(REPO), runs_dir=str(tmp_path / "gym"), **kwargs
    )


def _act(tool: str, arguments: Any) -> str:
    return json.dumps({"tool": tool, "arguments": arguments})


def test_check_env_passes(tmp_path: Path) -> None:
    env = _make(tmp_path, task="TASK-002")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure too
        check_env(env.unwrapped)
    env.close()


def test_an_episode_of_the_solvers_calls_gives_the_same_bytes_as_run_task(
    tmp_path: Path, solver_calls: Any, scripted_record: Any, bad_calls: Any
) -> None:
    calls, answer = solver_calls("TASK-002")
    calls = bad_calls + calls
    env = _make(tmp_path, task="TASK-002")
    observation, info = env.reset(seed=3)
    first = json.loads(observation)
    assert first["instruction"] and "reassign_opportunity" in [t["name"] for t in first["tools"]]
    assert info == {"task_id": "TASK-002"}
    seen = []
    for name, args in calls:
        observation, reward, terminated, truncated, _ = env.step(_act(name, args))
        seen.append(json.loads(observation))
        assert (reward, terminated, truncated) == (0.0, False, False)
    assert seen[0]["isError"] and seen[0]["output"]["code"] == "invalid_input"
    assert seen[1]["isError"] and seen[1]["output"]["code"] == "tool_not_found"
    malformed, reward, terminated, truncated, _ = env.step("{not json")
    assert json.loads(malformed)["output"]["code"] == "invalid_action" and not terminated
    _, reward, terminated, truncated, info = env.step(json.dumps({"answer": answer}))
    assert (reward, terminated, truncated) == (1.0, True, False)
    run_dir = Path(info["outcome"]["runDir"])
    assert info["outcome"]["passed"] is True
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.unwrapped.step(_act("list_users", {}))
    record = (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()
    assert record == scripted_record("TASK-002", calls, answer, tmp_path / "b")
    assert json.loads((run_dir / "run.json").read_text())["config"]["seed"] == 3
    env.close()


def test_the_tool_call_budget_truncates(tmp_path: Path) -> None:
    env = _make(tmp_path, task="TASK-001", budget={"max_tool_calls": 2})
    env.reset()
    for _ in range(2):
        assert env.step(_act("list_users", {}))[2:4] == (False, False)
    observation, reward, terminated, truncated, info = env.step(_act("list_users", {}))
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert json.loads(observation)["output"]["code"] == "max_tool_calls"
    assert info["outcome"]["terminationReason"] == "max_tool_calls"
    assert info["outcome"]["toolCalls"] == 2
    env.close()


def test_reset_mid_episode_and_close_leave_honest_records(tmp_path: Path) -> None:
    env = _make(tmp_path, task="TASK-001")
    env.reset()
    env.step(_act("list_users", {}))
    env.reset()  # abandons the first episode
    env.close()
    env.close()
    results = [json.loads(p.read_text()) for p in sorted((tmp_path / "gym").glob("*/result.json"))]
    assert [r["terminationReason"] for r in results] == ["agent_error", "agent_error"]
    assert sorted(r["toolCalls"] for r in results) == [0, 1]


def test_an_unknown_task_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(silo.SiloError, match="TASK-999"):
        _make(tmp_path, task="TASK-999")
