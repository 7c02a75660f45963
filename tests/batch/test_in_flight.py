"""Rollouts in flight, each run whole on its agent's thread: hangs, stray calls, thread reuse."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

from silo.agents.contract import RunLimitError
from silo.batch.sweep import Point, run_points
from silo.rollout.run import Budget


def _runs(group: Path) -> dict[int, dict[str, Any]]:
    runs = {}
    for run_json in group.glob("*/run.json"):
        run = json.loads(run_json.read_text())
        runs[run["repeat"]] = run
    return runs


async def _never_awaits() -> None:
    while True:
        pass


def _async_hangs_on_seed_zero(inp: Any) -> Any:
    """Async on every seed; on seed 0 the coroutine never awaits (it holds its event loop)."""

    async def fine() -> str:
        await asyncio.sleep(0.3)
        await inp.call_tool("bump", {"id": "C-1"})
        return "fine"

    return _never_awaits() if inp.seed == 0 else fine()


def test_async_code_that_never_awaits_stalls_no_other_async_agent(toy_project: Path) -> None:
    group = toy_project / "g"
    outcomes = run_points(
        [Point("toy", "TASK-001", _async_hangs_on_seed_zero, "a", Budget(timeout_ms=1500))],
        64, project_dir=toy_project, group_dir=group, group_id="g", progress=False,
        max_concurrency=64,
    )  # fmt: skip
    assert len(outcomes) == 64
    runs = _runs(group)
    assert runs[0]["terminationReason"] == "timeout"
    assert runs[0]["durationMs"] <= 1500 + 1000
    others = [runs[r] for r in range(1, 64)]
    assert all(r["terminationReason"] == "completed" for r in others)
    assert max(r["durationMs"] for r in others) < 300 + 1000  # no event loop shared with it


def test_calls_after_the_agent_returned_are_refused_in_flight(toy_project: Path) -> None:
    refused: list[str] = []

    def agent(inp: Any) -> str:
        def calls_on_after_the_return() -> None:
            try:
                for _ in range(10_000_000):
                    inp.call_tool("bump", {"id": "C-1"})
            except RunLimitError as exc:
                refused.append(exc.reason)  # list.append: atomic, no lock needed

        threading.Thread(target=calls_on_after_the_return, daemon=True).start()
        time.sleep(0.05)
        return "returned"

    group = toy_project / "g"
    run_points(
        [Point("toy", "TASK-001", agent, "s", Budget(max_tool_calls=10_000_000))], 8,
        project_dir=toy_project, group_dir=group, group_id="g", progress=False,
        max_concurrency=8,
    )  # fmt: skip
    time.sleep(0.1)
    assert refused == ["completed"] * 8  # every stray thread stopped at its agent's return
    for folder in group.iterdir():
        if not folder.is_dir():
            continue
        result = json.loads((folder / "result.json").read_text())
        assert result["terminationReason"] == "completed"
        lines = (folder / "trace.jsonl").read_text().splitlines()
        calls = sum('"type":"tool_call"' in line for line in lines)
        results = sum('"type":"tool_result"' in line for line in lines)
        assert calls == results == result["toolCalls"]  # every call paired and counted


def test_an_abandoned_agents_thread_runs_no_later_rollout(toy_project: Path) -> None:
    threads: dict[int, int] = {}

    def agent(inp: Any) -> str:
        threads[inp.seed] = threading.get_ident()
        # Seed 0 blocks past its timeout (abandoned at ~0.6 s) and returns at 0.9 s, while
        # later rollouts are still starting: its thread must not be handed one of them.
        time.sleep(0.9 if inp.seed == 0 else 0.2)
        return "done"

    group = toy_project / "g"
    outcomes = run_points(
        [Point("toy", "TASK-001", agent, "b", Budget(timeout_ms=300))], 12,
        project_dir=toy_project, group_dir=group, group_id="g", progress=False,
        max_concurrency=2,
    )  # fmt: skip
    assert [o.repeat for o in outcomes] == list(range(12))
    runs = _runs(group)
    assert runs[0]["terminationReason"] == "timeout"
    assert all(runs[r]["terminationReason"] == "completed" for r in range(1, 12))
    assert threads[0] not in [threads[seed] for seed in range(1, 12)]


def test_a_rollout_in_flight_costs_one_thread(toy_project: Path) -> None:
    seen: list[int] = []

    async def agent(inp: Any) -> str:
        await asyncio.sleep(0.2)  # all 32 in flight at once
        seen.append(threading.active_count())
        return "done"

    before = threading.active_count()
    run_points(
        [Point("toy", "TASK-001", agent, "t", Budget())], 32, project_dir=toy_project,
        group_dir=toy_project / "g", group_id="g", progress=False, max_concurrency=32,
    )  # fmt: skip
    # 32 agent threads (some may already idle in the pool), the sweep's control thread and
    # the process's timer thread: no driver thread per rollout.
    assert max(seen) <= before + 32 + 2
