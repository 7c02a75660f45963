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
AUTORESET = getattr(gymnasium.vector, "AutoresetMode", None)


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


def test_the_tool_call_budget_truncates_with_the_reward_of_result_json(
    tmp_path: Path, solver_calls: Any
) -> None:
    calls, _ = solver_calls("TASK-002")  # the change done, then one call too many
    env = _make(tmp_path, task="TASK-002", budget={"max_tool_calls": len(calls)})
    env.reset()
    for name, args in calls:
        assert env.step(_act(name, args))[2:4] == (False, False)
    observation, reward, terminated, truncated, info = env.step(_act("list_users", {}))
    assert (terminated, truncated) == (False, True)
    assert json.loads(observation)["output"]["code"] == "max_tool_calls"
    assert info["outcome"]["terminationReason"] == "max_tool_calls"
    assert info["outcome"]["toolCalls"] == len(calls)
    recorded = json.loads((Path(info["outcome"]["runDir"]) / "result.json").read_text())
    assert reward == recorded["reward"] == info["outcome"]["reward"] > 0
    env.close()


def test_reset_mid_episode_and_close_leave_honest_records(tmp_path: Path) -> None:
    env = _make(tmp_path, task="TASK-001")
    env.reset()
    env.step(_act("list_users", {}))
    env.reset()  # abandons the first episode
    env.step("{not json")  # an invalid action is a step too: the episode is played
    env.reset()  # never stepped: discarded
    env.close()
    env.close()
    results = [json.loads(p.read_text()) for p in sorted((tmp_path / "gym").glob("*/result.json"))]
    assert [r["terminationReason"] for r in results] == ["agent_error", "agent_error"]
    assert sorted(r["toolCalls"] for r in results) == [0, 1]


def test_reset_options_choose_the_task_and_the_sampling_serves_many(tmp_path: Path) -> None:
    env = _make(tmp_path, tasks=["TASK-001", "TASK-002", "TASK-003"])
    assert env.reset(seed=1)[1] == {"task_id": "TASK-002"}  # the seed restarts the cycle
    assert [env.reset()[1]["task_id"] for _ in range(3)] == ["TASK-003", "TASK-001", "TASK-002"]
    observation, info = env.reset(options={"task": "TASK-005"})
    assert info == {"task_id": "TASK-005"}
    assert (
        json.loads(observation)["instruction"]
        == silo.load_environment("crm", REPO).task("TASK-005").instruction
    )
    _, _, _, _, ended = env.step(json.dumps({"answer": "x"}))
    assert (
        json.loads((Path(ended["outcome"]["runDir"]) / "run.json").read_text())["task"]["id"]
        == "TASK-005"
    )
    with pytest.raises(silo.SiloError, match="TASK-001#3"):  # passed to the environment as is
        env.reset(options={"variant": "TASK-001#3"})
    with pytest.raises(silo.SiloError, match="not an instance of task"):
        env.reset(options={"task": "TASK-002", "variant": "TASK-001#3"})
    with pytest.raises(silo.SiloError, match="reset options take task and variant"):
        env.reset(options={"tsk": "TASK-001"})
    env.close()
    drawn = _make(tmp_path, tasks="all", sampling="random")
    first = [drawn.reset(seed=5)[1]["task_id"]] + [drawn.reset()[1]["task_id"] for _ in range(5)]
    again = [drawn.reset(seed=5)[1]["task_id"]] + [drawn.reset()[1]["task_id"] for _ in range(5)]
    assert first == again and len(set(first)) > 1
    drawn.close()
    assert not (tmp_path / "gym").exists() or len(list((tmp_path / "gym").iterdir())) == 1


def test_all_tasks_pass_check_env(tmp_path: Path) -> None:
    env = gymnasium.make(
        "silo/Silo-v0", env="crm", tasks="all", project_dir=str(REPO), runs_dir=str(tmp_path)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


@pytest.mark.skipif(
    AUTORESET is None, reason="autoreset modes (SAME_STEP) need gymnasium>=1.1; the floor is 1.0"
)
def test_a_same_step_vector_env_leaves_one_run_folder_per_played_episode(tmp_path: Path) -> None:
    assert AUTORESET is not None
    vector = gymnasium.make_vec(
        "silo/Silo-v0",
        num_envs=4,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AUTORESET.SAME_STEP},
        env="crm",
        tasks="all",
        project_dir=str(REPO),
        runs_dir=str(tmp_path / "vec"),
    )
    vector.reset(seed=0)
    call = _act("list_users", {})
    answer = json.dumps({"answer": "done"})
    played = 0
    for _ in range(3):  # three episodes per copy: one call, then the answer
        vector.step([call] * 4)
        _, rewards, terminated, _, _ = vector.step([answer] * 4)
        assert list(terminated) == [True] * 4
        played += 4
    vector.close()  # the four fresh episodes autoreset started never took a step
    results = [json.loads(p.read_text()) for p in (tmp_path / "vec").glob("*/result.json")]
    assert len(results) == played == 12
    assert {r["terminationReason"] for r in results} == {"completed"}
    assert all(r["toolCalls"] == 1 for r in results)


def test_an_unknown_task_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(silo.SiloError, match="TASK-999"):
        _make(tmp_path, task="TASK-999")
    with pytest.raises(silo.SiloError, match="TASK-999"):
        _make(tmp_path, tasks=["TASK-001", "TASK-999"])
    with pytest.raises(silo.SiloError, match="not both"):
        _make(tmp_path, task="TASK-001", tasks="all")
    with pytest.raises(silo.SiloError, match="sampling="):
        _make(tmp_path, sampling="shuffle")
