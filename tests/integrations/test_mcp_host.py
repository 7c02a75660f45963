"""McpHost: silo-mcp in a thread, each rollout of a harness on an episode URL of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from silo.integrations.episodes import EpisodeSpec
from silo.integrations.mcp_host import McpHost
from tests.integrations._mcp_process import REPO


def test_each_episode_is_one_rollout_and_the_harness_ends_the_unfinished(
    tmp_path: Path, solver_calls: Any, scripted_record: Any
) -> None:
    calls, answer = solver_calls("TASK-002")
    spec = EpisodeSpec(
        env="crm", task="TASK-002", project_dir=REPO, runs_dir=tmp_path / "mcp", agent_label="h"
    )
    with McpHost(spec) as host:
        done, left = host.new_episode(), host.new_episode()
        assert done.url.startswith("http://127.0.0.1:") and done.url != left.url

        async def harnesses() -> None:
            async def solve() -> None:
                async with Client(done.url) as c:
                    for name, args in calls:
                        await c.call_tool(name, args)
                    await c.call_tool("silo_finish", {"answer": answer})

            async def wander() -> None:
                async with Client(left.url) as c:
                    await c.call_tool("list_users", {})

            async with anyio.create_task_group() as group:
                group.start_soon(solve)
                group.start_soon(wander)

        anyio.run(harnesses)
        finished = host.end_episode(done.id)  # already finished: its record, unchanged
        abandoned = host.end_episode(left.id)
        assert host.end_episode("never-handed-out") is None
        untouched = host.end_episode(host.new_episode().id)  # its client never came: recorded
        assert host.end_episode(left.id) is None  # ended already
    assert finished is not None and abandoned is not None
    assert finished.result["passed"] is True and finished.run_dir is not None
    expected = scripted_record("TASK-002", calls, answer, tmp_path / "b")
    assert (
        (finished.run_dir / "result.json").read_bytes(),
        (finished.run_dir / "state-diff.json").read_bytes(),
    ) == expected
    assert abandoned.result["terminationReason"] == "agent_error"
    assert abandoned.result["error"] == "the session was ended by its harness without finish()"
    assert untouched is not None and untouched.result["toolCalls"] == 0
    assert untouched.result["terminationReason"] == "agent_error"
