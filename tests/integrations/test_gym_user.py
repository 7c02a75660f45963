"""silo/Silo-v0 on conversational tasks: the message_user action talks to the simulated user."""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import silo
import silo.gym  # noqa: F401  (registers silo/Silo-v0)

REPO = Path(__file__).resolve().parents[2]
MESSAGE_USER = "silo_message_user"  # how the shared solver_steps fixture marks a message
NOT_A_MESSAGE = "a message to the user is a non-empty string; nothing was sent"


def _make(tmp_path: Path, task: str, **kwargs: Any) -> Any:
    return gymnasium.make(
        "silo/Silo-v0", env="crm", task=task, project_dir=str(REPO), runs_dir=str(tmp_path / "gym"),
        **kwargs,
    )  # fmt: skip


def _action(name: str, args: Any) -> str:
    if name == MESSAGE_USER:
        return json.dumps({"message_user": args["text"]})
    return json.dumps({"tool": name, "arguments": args})


def _step(env: Any, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
    observation, reward, terminated, truncated, info = env.step(
        action if isinstance(action, str) else json.dumps(action)
    )
    return json.loads(observation), float(reward), terminated, truncated, info


def test_check_env_passes_on_a_conversational_task(tmp_path: Path) -> None:
    env = _make(tmp_path, "TASK-007")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure too
        check_env(env.unwrapped)
    env.close()


def test_a_conversation_through_gym_gives_the_same_bytes_as_run_task(
    tmp_path: Path, solver_steps: Any, scripted_record: Any
) -> None:
    steps, answer = solver_steps("TASK-007")
    steps = [*steps, (MESSAGE_USER, {"text": "Anything else?"})]  # after the user ended
    env = _make(tmp_path, "TASK-007")
    observation, _ = env.reset(seed=0)
    first = json.loads(observation)
    assert first["opening"].startswith("Hi, Marcus here.")
    assert first["instruction"] == first["opening"]
    replies = []
    for name, args in steps:
        seen, reward, terminated, truncated, _ = _step(env, _action(name, args))
        assert (reward, terminated, truncated) == (0.0, False, False)
        if name == MESSAGE_USER:
            replies.append(seen)
    assert "Northwind" in replies[0]["text"] and "$132,500" in replies[1]["text"]
    assert replies[2] == {"text": "Perfect, thanks. That's all I needed.", "ended": True,
                          "isError": False}  # fmt: skip
    assert replies[3]["isError"] and replies[3]["ended"]  # refused: the user has left
    _, reward, terminated, _, info = _step(env, {"answer": answer})
    assert (reward, terminated) == (1.0, True)
    run_dir = Path(info["outcome"]["runDir"])
    run = json.loads((run_dir / "run.json").read_text())
    assert (run["userTurns"], run["conversationEndedBy"]) == (3, "user")
    trace = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    said = [e for e in trace if e["type"] == "user_message" and e["role"] == "agent"]
    assert [e["messageId"] for e in said] == [1, 2, 3]
    record = (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()
    assert record == scripted_record("TASK-007", steps, answer, tmp_path / "b")
    env.close()


def test_bad_messages_and_a_task_without_a_user_are_invalid_actions(tmp_path: Path) -> None:
    env = _make(tmp_path, "TASK-008")
    env.reset()
    for text in ("", "   ", 7, None, ["hi"]):
        seen, _, terminated, truncated, _ = _step(env, {"message_user": text})
        assert seen["output"] == {"code": "invalid_action", "message": NOT_A_MESSAGE}
        assert not (terminated or truncated)
    mixed, *_ = _step(env, {"message_user": "hi", "tool": "list_users"})
    assert mixed["output"]["code"] == "invalid_action"
    _, _, _, _, info = _step(env, {"answer": "x"})
    run = json.loads((Path(info["outcome"]["runDir"]) / "run.json").read_text())
    assert run["userTurns"] == 0 and run["conversationEndedBy"] == "agent"  # nothing was sent
    plain = _make(tmp_path, "TASK-001")
    observation, _ = plain.reset()
    assert "opening" not in json.loads(observation)
    seen, _, terminated, _, _ = _step(plain, {"message_user": "hello?"})
    assert seen["output"]["code"] == "invalid_action" and not terminated
    assert "TASK-001 has no user block" in seen["output"]["message"]
    assert "message_user" not in json.loads(plain.step("{")[0])["output"]["message"]
    env.close()
    plain.close()


def test_user_none_gives_no_opening_and_a_bad_user_fails_at_make(tmp_path: Path) -> None:
    env = _make(tmp_path, "TASK-007", user="none")
    observation, _ = env.reset()
    assert "opening" not in json.loads(observation)
    seen, *_ = _step(env, {"message_user": "hello?"})
    assert seen["output"]["code"] == "invalid_action"
    env.close()
    with pytest.raises(silo.SiloError, match='unknown user "nobody"'):
        _make(tmp_path, "TASK-007", user="nobody")


def test_the_turn_budget_refuses_and_ends_the_conversation(tmp_path: Path) -> None:
    env = _make(tmp_path, "TASK-007", budget={"max_user_turns": 1})
    env.reset()
    first, *_ = _step(env, {"message_user": "Which company are you with?"})
    over, _, terminated, truncated, _ = _step(env, {"message_user": "How much?"})
    assert not first["isError"] and over["isError"] and not (terminated or truncated)
    assert "budget.max_user_turns=1" in over["text"]
    _, _, _, _, info = _step(env, {"answer": "x"})
    run = json.loads((Path(info["outcome"]["runDir"]) / "run.json").read_text())
    assert (run["userTurns"], run["conversationEndedBy"]) == (1, "budget")
    env.close()


def test_a_message_after_the_deadline_truncates_with_the_graded_outcome(tmp_path: Path) -> None:
    env = _make(tmp_path, "TASK-009", budget={"timeout_ms": 200})
    env.reset()
    _step(env, {"message_user": "Hi"})  # the rollout and its clock start at the first step
    time.sleep(0.4)
    seen, reward, terminated, truncated, info = _step(env, {"message_user": "Hello?"})
    assert (reward, terminated, truncated) == (info["outcome"]["reward"], False, True)
    assert seen["output"]["code"] == "timeout"
    assert info["outcome"]["terminationReason"] == "timeout"
    env.close()
