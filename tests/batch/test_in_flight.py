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
from tests.waiting import SHORT_SAFETY_S, wait_until


def _runs(group: Path) -> dict[int, dict[str, Any]]:
    runs = {}
    for run_json in group.glob("*/run.json"):
        run = json.loads(run_json.read_text())
        runs[run["repeat"]] = run
    return runs


def _async_hangs_on_seed_zero(released: threading.Event) -> Any:
    """Async on every seed; on seed 0 the coroutine never awaits (it holds its event loop).

    It spins until ``released`` (set when the test ends), never for the rest of the session.
    """

    async def never_awaits() -> None:
        while not released.is_set():
            pass

    def agent(inp: Any) -> Any:
        async def fine() -> str:
            await asyncio.sleep(0.3)
            await inp.call_tool("bump", {"id": "C-1"})
            return "fine"

        return never_awaits() if inp.seed == 0 else fine()

    return agent


def test_async_code_that_never_awaits_stalls_no_other_async_agent(
    toy_project: Path, released: threading.Event
) -> None:
    group = toy_project / "g"
    agent = _async_hangs_on_seed_zero(released)
    outcomes = run_points(
        [Point("toy", "TASK-001", agent, "a", Budget(timeout_ms=1500))],
        64, project_dir=toy_project, group_dir=group, group_id="g", progress=False,
        max_concurrency=64,
    )  # fmt: skip
    assert len(outcomes) == 64
    runs = _runs(group)
    assert runs[0]["terminationReason"] == "timeout"
    assert runs[0]["durationMs"] >= 1500  # abandoned at its budget
    others = [runs[r] for r in range(1, 64)]
    assert all(r["terminationReason"] == "completed" for r in others)
    # No event loop shared with it: 0.3 s each, all done before it was abandoned.
    assert max(r["durationMs"] for r in others) < runs[0]["durationMs"]


def test_calls_after_the_agent_returned_are_refused_in_flight(toy_project: Path) -> None:
    refused: list[str] = []

    def agent(inp: Any) -> str:
        def calls_on_after_the_return() -> None:
            try:
                for _ in range(10_000_000):
                    inp.call_tool("bump", {"id": "C-1"})
            except RunLimitError as exc:
                refused.append(exc.reason)  # list.append: atomic, no lock needed
            except Exception as exc:  # noqa: BLE001 - the failure below shows what stopped it
                refused.append(f"{type(exc).__name__}: {exc}")

        threading.Thread(target=calls_on_after_the_return, daemon=True).start()
        time.sleep(0.05)
        return "returned"

    group = toy_project / "g"
    run_points(
        [Point("toy", "TASK-001", agent, "s", Budget(max_tool_calls=10_000_000))], 8,
        project_dir=toy_project, group_dir=group, group_id="g", progress=False,
        max_concurrency=8,
    )  # fmt: skip
    wait_until(lambda: len(refused) == 8, "every stray thread's call to be refused", SHORT_SAFETY_S)
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
        if inp.seed == 0:
            # Blocks past its timeout and returns soon after it is abandoned, while later
            # rollouts are still starting: its thread must not be handed one of them.
            inp.signal.wait(SHORT_SAFETY_S)
            time.sleep(0.5)
        else:
            time.sleep(0.2)  # well inside the budget even on a loaded machine
        return "done"

    group = toy_project / "g"
    outcomes = run_points(
        [Point("toy", "TASK-001", agent, "b", Budget(timeout_ms=1000))], 12,
        project_dir=toy_project, group_dir=group, group_id="g", progress=False,
        max_concurrency=2,
    )  # fmt: skip
    assert [o.repeat for o in outcomes] == list(range(12))
    runs = _runs(group)
    reasons = {r: (runs[r]["terminationReason"], runs[r]["durationMs"]) for r in range(12)}
    assert runs[0]["terminationReason"] == "timeout", reasons
    assert all(runs[r]["terminationReason"] == "completed" for r in range(1, 12)), reasons
    assert threads[0] not in [threads[seed] for seed in range(1, 12)], threads


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
