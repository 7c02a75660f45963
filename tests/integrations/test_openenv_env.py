"""The OpenEnv server with OpenEnv's own client: a GRPO-sized group of concurrent episodes.

Runs where the [openenv] extra is installed; it cannot share a venv with mcp 2.x, so CI runs
this file in its own venv through tests/integrations/openenv.sh.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openenv")

import uvicorn  # noqa: E402
from openenv.core.generic_client import GenericEnvClient  # noqa: E402

from silo import SiloError  # noqa: E402
from silo.integrations.episodes import EpisodeSpec  # noqa: E402
from silo.integrations.openenv_env import create_openenv_app  # noqa: E402
from tests.waiting import SAFETY_S, wait_until

REPO = Path(__file__).resolve().parents[2]
GROUP = 8  # rollouts of one prompt, as a GRPO group
MESSAGE_USER = "silo_message_user"  # how the shared solver_steps fixture marks a message


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    runs = tmp_path / "openenv"
    spec = EpisodeSpec(env="crm", task="TASK-002", runs_dir=runs, project_dir=REPO)
    app = create_openenv_app(spec, max_concurrent_envs=GROUP)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + SAFETY_S
    while not server.started:
        assert time.monotonic() < deadline, "the OpenEnv server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", runs
    server.should_exit = True
    thread.join(timeout=SAFETY_S)


def test_a_group_of_concurrent_episodes_gets_separate_worlds_and_run_task_bytes(
    served: tuple[str, Path],
    tmp_path: Path,
    solver_calls: Any,
    scripted_record: Any,
    bad_calls: Any,
) -> None:
    url, runs = served
    calls, answer = solver_calls("TASK-002")
    calls = bad_calls + calls

    async def episode() -> Any:
        async with GenericEnvClient(base_url=url) as env:
            first = await env.reset()
            assert first.observation["instruction"] and first.observation["tools"]
            results = []
            for name, args in calls:
                step = await env.step({"tool": name, "arguments": args})
                results.append(step.observation["result"])
                assert step.done is False
            last = await env.step({"answer": answer})
            assert last.done is True
            return results, last.reward, last.observation["outcome"]

    async def group() -> list[Any]:
        return list(await asyncio.gather(*(episode() for _ in range(GROUP))))

    episodes = asyncio.run(group())
    expected = scripted_record("TASK-002", calls, answer, tmp_path / "b")
    run_dirs = set()
    for results, reward, outcome in episodes:
        assert results[0]["isError"] and results[0]["output"]["code"] == "invalid_input"
        assert results[1]["isError"] and results[1]["output"]["code"] == "tool_not_found"
        assert reward == 1.0 and outcome["passed"] is True  # each on a world of its own
        run_dir = Path(outcome["runDir"])
        run_dirs.add(run_dir)
        record = (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()
        assert record == expected
    assert len(run_dirs) == GROUP and all(d.parent == runs for d in run_dirs)


def test_budget_end_step_after_end_and_a_dropped_socket(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    url, runs = served

    async def drive() -> tuple[Any, Any]:
        async with GenericEnvClient(base_url=url) as env:
            await env.reset(task="TASK-001")
            await env.step({"tool": "list_users", "arguments": {}})
            finished = await env.step({"answer": "done"})
            after = await env.step({"tool": "list_users", "arguments": {}})
        async with GenericEnvClient(base_url=url) as env:
            await env.reset()
            await env.step({"tool": "list_users", "arguments": {}})
        return finished, after  # the second socket closed without an answer

    finished, after = asyncio.run(drive())
    assert finished.done and finished.observation["outcome"]["terminationReason"] == "completed"
    assert after.done and after.observation["result"]["output"]["code"] == "episode_ended"
    wait_until(lambda: len(list(runs.glob("*/result.json"))) >= 2, "both runs' result.json")
    results = [json.loads(p.read_text()) for p in sorted(runs.glob("*/result.json"))]
    reasons = sorted(r["terminationReason"] for r in results)
    assert reasons == ["agent_error", "completed"]


def test_an_unknown_task_is_one_clear_error() -> None:
    with pytest.raises(SiloError, match="TASK-999"):
        create_openenv_app(EpisodeSpec(env="crm", task="TASK-999", project_dir=REPO))


def test_a_conversation_over_openenv_gives_run_task_bytes_and_refuses_bad_messages(
    served: tuple[str, Path], tmp_path: Path, solver_steps: Any, scripted_record: Any
) -> None:
    url, _ = served
    steps, answer = solver_steps("TASK-007")
    steps = [*steps, (MESSAGE_USER, {"text": "Anything else?"})]  # after the user ended

    async def drive() -> dict[str, Any]:
        seen: dict[str, Any] = {"replies": []}
        async with GenericEnvClient(base_url=url) as env:
            seen["first"] = (await env.reset(task="TASK-007")).observation
            seen["bad"] = [
                (await env.step(action)).observation["result"]
                for action in ({"message_user": ""}, {"message_user": 5},
                               {"message_user": "hi", "tool": "list_users"})
            ]  # fmt: skip
            for name, args in steps:
                if name == MESSAGE_USER:
                    step = await env.step({"message_user": args["text"]})
                    seen["replies"].append(step.observation["reply"])
                else:
                    step = await env.step({"tool": name, "arguments": args})
                assert step.done is False
            last = await env.step({"answer": answer})
            seen["reward"], seen["outcome"] = last.reward, last.observation["outcome"]
            await env.reset(task="TASK-001")
            seen["plain"] = (await env.step({"message_user": "hello?"})).observation["result"]
        return seen

    seen = asyncio.run(drive())
    assert seen["first"]["opening"] == seen["first"]["instruction"]
    assert seen["first"]["opening"].startswith("Hi, Marcus here.")
    codes = [r["output"]["code"] for r in seen["bad"]]
    assert codes == ["invalid_action"] * 3
    assert (
        seen["bad"][0]["output"]["message"]
        == seen["bad"][1]["output"]["message"]
        == ("a message to the user is a non-empty string; nothing was sent")
    )
    assert "$132,500" in seen["replies"][1]["text"] and seen["replies"][2]["ended"]
    assert seen["replies"][3]["isError"]  # refused: the user has left
    assert seen["reward"] == 1.0
    run_dir = Path(seen["outcome"]["runDir"])
    run = json.loads((run_dir / "run.json").read_text())
    assert (run["userTurns"], run["conversationEndedBy"]) == (3, "user")
    record = (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()
    assert record == scripted_record("TASK-007", steps, answer, tmp_path / "b")
    assert seen["plain"]["output"]["code"] == "invalid_action"
    assert "TASK-001 has no user block" in seen["plain"]["output"]["message"]


def test_a_budget_end_gives_the_reward_of_result_json(tmp_path: Path, solver_calls: Any) -> None:
    from silo.integrations.openenv_env import SiloAction, SiloOpenEnv

    calls, _ = solver_calls("TASK-002")  # the change done, then one call too many
    spec = EpisodeSpec(
        env="crm", task="TASK-002", budget={"max_tool_calls": len(calls)},
        runs_dir=tmp_path / "openenv", project_dir=REPO,
    )  # fmt: skip
    env = SiloOpenEnv(spec, spec.load())
    env.reset()
    for name, args in calls:
        assert not env.step(SiloAction(tool=name, arguments=args)).done
    over = env.step(SiloAction(tool="list_users", arguments={}))
    assert over.done and over.outcome is not None
    assert over.outcome["terminationReason"] == "max_tool_calls"
    recorded = json.loads((Path(over.outcome["runDir"]) / "result.json").read_text())
    assert over.reward == recorded["reward"] == over.outcome["reward"] > 0
